/*
 * builtin/run.c - "faultline run": one benchmark on one machine, N times,
 * on a revision of a tree (built as needed) or a prebuilt kernel image,
 * through the dispatcher (fl_dispatch_run_attempts, its attempts for a
 * run asked for once); then a table of operations per second per task
 * count and mode, with their spread across the runs (a command machine's:
 * each metric its command printed, its mean and spread).
 */
#include "dispatch/agentapi.h"
#include "dispatch/dispatch.h"
#include "builtin/builtin.h"
#include "lib/buf.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/log.h"
#include "machine/machine.h"
#include "build/repo.h"
#include "analysis/stats.h"
#include "store/run.h"
#include "store/store.h"
#include "lib/units.h"
#include "lib/cancel.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_JOB_KEYS 16

struct run_opts {
	const char *config, *machine, *bench, *tree, *rev, *kernel, *image, *map;
	unsigned repeat;
	int64_t timeout_ms;
	const char *job[MAX_JOB_KEYS + 1];
	size_t njob;
};

/* One (mode, tasks) row: the mean of each ok run, total and per task. */
struct row {
	char *mode;
	unsigned tasks;
	double *ops, *per_task;
	size_t nops, nper_task;
};

struct table {
	struct row *rows;
	size_t n;
	int by_metric; /* a command's numbers: a row per metric (its mode), no task count */
};

static struct row *table_row(struct table *t, const char *mode, unsigned tasks)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->rows[i].mode, mode) && t->rows[i].tasks == tasks)
			return &t->rows[i];
	t->rows = fl_xrealloc(t->rows, (t->n + 1) * sizeof(*t->rows));
	t->rows[t->n] = (struct row){fl_xstrdup(mode), tasks, NULL, NULL, 0, 0};
	return &t->rows[t->n++];
}

static void push(double **v, size_t *n, double x)
{
	*v = fl_xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = x;
}

/* Adds one ok run's means; samples come sorted by metric, mode, tasks, seq. */
static int table_add_run(struct table *t, fl_store *st, int64_t run_id)
{
	struct fl_sample_row *s;
	size_t n;
	int r;

	if ((r = fl_store_run_samples(st, run_id, &s, &n)))
		return r;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double sum = 0;
		struct row *row = t->by_metric ? table_row(t, s[i].metric, 0)
					       : table_row(t, s[i].mode, s[i].tasks);

		while (j < n && !strcmp(s[j].metric, s[i].metric) &&
		       !strcmp(s[j].mode, s[i].mode) && s[j].tasks == s[i].tasks)
			sum += s[j++].value;
		if (!strcmp(s[i].metric, "ops"))
			push(&row->ops, &row->nops, sum / (double)(j - i));
		else
			push(&row->per_task, &row->nper_task, sum / (double)(j - i));
		i = j;
	}
	fl_store_samples_free(s, n);
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int m = strcmp(x->mode, y->mode);

	return m ? m : (x->tasks > y->tasks) - (x->tasks < y->tasks);
}

static void spread(const double *v, size_t n, char *out, size_t len)
{
	double mean = fl_stats_mean(v, n);

	if (n < 2 || mean <= 0)
		snprintf(out, len, "-");
	else
		snprintf(out, len, "%.1f%%", 100 * fl_stats_stddev(v, n) / mean);
}

static void table_print(struct table *t, const char *bench, const char *machine, size_t ok,
			size_t runs)
{
	printf("%s on %s: %zu of %zu runs ok\n", bench, machine, ok, runs);
	if (!t->n)
		return;
	qsort(t->rows, t->n, sizeof(*t->rows), row_cmp);
	if (t->by_metric) {
		printf("%-16s  %12s  %8s  %4s\n", "metric", "mean", "%stddev", "runs");
		for (size_t i = 0; i < t->n; i++) {
			struct row *r = &t->rows[i];
			char s1[16];

			spread(r->per_task, r->nper_task, s1, sizeof(s1));
			printf("%-16s  %12.6g  %8s  %4zu\n", r->mode,
			       fl_stats_mean(r->per_task, r->nper_task), s1, r->nper_task);
		}
		return;
	}
	printf("%6s  %-9s  %14s  %8s  %12s  %8s  %4s\n", "tasks", "mode", "per-task ops/s",
	       "%stddev", "ops/s", "%stddev", "runs");
	for (size_t i = 0; i < t->n; i++) {
		struct row *r = &t->rows[i];
		char s1[16], s2[16];

		spread(r->per_task, r->nper_task, s1, sizeof(s1));
		spread(r->ops, r->nops, s2, sizeof(s2));
		printf("%6u  %-9s  %14.0f  %8s  %12.0f  %8s  %4zu\n", r->tasks, r->mode,
		       fl_stats_mean(r->per_task, r->nper_task), s1, fl_stats_mean(r->ops, r->nops),
		       s2, r->nops);
	}
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->rows[i].mode);
		free(t->rows[i].ops);
		free(t->rows[i].per_task);
	}
	free(t->rows);
}

static int run_all(struct fl_config *cfg, const struct run_opts *o, const struct fl_machine_conf *m,
		   const struct fl_benchmark_conf *b, const struct fl_tree_conf *t, fl_store *st,
		   fl_repo *repo)
{
	struct table tab = {.by_metric = !fl_config_machine_kernel(m)};
	size_t ok = 0, done = 0;
	int exit_code = FL_EXIT_OK;

	for (unsigned i = 0; i < o->repeat && !fl_cancel_runs(); i++) {
		char label[32];
		struct fl_dispatch_req req = {
		    .run = {.cfg = cfg,
			    .machine = m,
			    .bench = b,
			    .tree = t,
			    .repo = repo,
			    .rev = o->rev,
			    .label = o->repeat > 1 ? label : NULL,
			    .job_extra = o->njob ? o->job : NULL,
			    .deadline_ms = o->timeout_ms},
		    .store = st,
		    .kernel_image = o->image,
		    .system_map = o->map,
		};
		struct fl_run_result res;
		int r;

		snprintf(label, sizeof(label), "%u/%u", i + 1, o->repeat);
		/* an infra-error is ours, not the kernel's: tried again */
		r = fl_dispatch_run_attempts(&req, &fl_attempts_once, &res);
		if (r) {
			fprintf(stderr, "faultline: %s\n", fl_error_last());
			fl_run_result_release(&res);
			table_free(&tab);
			return r == FL_EINVAL ? FL_EXIT_USAGE : FL_EXIT_FAIL;
		}
		done++;
		if (res.status == FL_RUN_OK && !table_add_run(&tab, st, res.run_id))
			ok++;
		else if (res.status == FL_RUN_OK)
			fprintf(stderr, "faultline: %s\n", fl_error_last());
		if (res.status == FL_RUN_INFRA_ERROR)
			exit_code = FL_EXIT_FAIL;
		else if (res.status != FL_RUN_OK && exit_code == FL_EXIT_OK)
			exit_code = FL_EXIT_NO;
		if (res.status == FL_RUN_UNTESTABLE) {
			fprintf(stderr, "faultline: %s: %s\n", o->rev, res.detail);
			fl_run_result_release(&res);
			break; /* the build fails the same way every time */
		}
		fl_run_result_release(&res);
	}
	if (fl_cancel_runs()) {
		fprintf(stderr, "faultline: interrupted\n");
		exit_code = FL_EXIT_FAIL;
	}
	table_print(&tab, b->name, m->name, ok, done);
	table_free(&tab);
	return exit_code;
}

/* Names left out take the configuration's only tree, machine or benchmark. */
static int resolve(struct fl_config *cfg, struct run_opts *o, const struct fl_machine_conf **m,
		   const struct fl_benchmark_conf **b, const struct fl_tree_conf **t)
{
	int r = fl_pick_names(cfg, &o->bench, &o->machine, o->rev ? &o->tree : NULL, b, m, t);

	if (r)
		return r;
	if (!o->bench || !o->machine || (o->rev && !o->tree))
		return fl_usage(&fl_cmd_run);
	if ((*b)->nmachines) {
		int listed = 0;

		for (size_t i = 0; i < (*b)->nmachines; i++)
			listed |= !strcmp((*b)->machines[i], o->machine);
		if (!listed) {
			fprintf(stderr,
				"faultline: %s: benchmark '%s' does not run on machine '%s'\n",
				cfg->path, o->bench, o->machine);
			return FL_EXIT_USAGE;
		}
	}
	if (o->kernel && !fl_config_kernel(cfg, o->kernel)) {
		fprintf(stderr, "faultline: %s: no kernel '%s'\n", cfg->path, o->kernel);
		return FL_EXIT_USAGE;
	}
	if (!o->repeat)
		o->repeat = (*b)->repeat;
	return 0;
}

static int run_cmd(struct fl_config *cfg, struct run_opts *o)
{
	const struct fl_machine_conf *m = NULL;
	const struct fl_benchmark_conf *b = NULL;
	const struct fl_tree_conf *t = NULL;
	struct fl_benchmark_conf with_kernel;
	fl_agentapi *api = NULL;
	fl_repo *repo = NULL;
	fl_store *st = NULL;
	int r;

	if ((r = resolve(cfg, o, &m, &b, &t)))
		return r;
	if (!o->rev && !o->image && !fl_machine_own_kernel(m))
		return fl_usage(&fl_cmd_run);
	if (o->kernel) {
		with_kernel = *b;
		with_kernel.kernel = (char *)o->kernel;
		b = &with_kernel;
	}
	fl_cancel_catch(0);
	if ((r = fl_store_open(&st, cfg->store.path, 0)) ||
	    (t && (r = fl_repo_open_current(&repo, t->name, t->url, cfg->var))) ||
	    (r = fl_agentapi_start_for(&api, cfg, m))) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		fl_repo_free(repo);
		fl_store_free(st);
		return FL_EXIT_FAIL;
	}
	if (fl_dispatch_reap_stale(cfg, st) < 0)
		fl_warn("stale runs: %s", fl_error_last());
	r = run_all(cfg, o, m, b, t, st, repo);
	fl_agentapi_stop(api);
	fl_repo_free(repo);
	fl_store_free(st);
	return r;
}

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"machine", required_argument, NULL, 'm'},
		{"benchmark", required_argument, NULL, 'b'},
		{"tree", required_argument, NULL, 't'},
		{"rev", required_argument, NULL, 'r'},
		{"kernel", required_argument, NULL, 'k'},
		{"kernel-image", required_argument, NULL, 'i'},
		{"system-map", required_argument, NULL, 's'},
		{"repeat", required_argument, NULL, 'n'},
		{"timeout", required_argument, NULL, 'T'},
		{"job", required_argument, NULL, 'j'},
		{NULL, 0, NULL, 0},
	};
	struct run_opts o = {0};
	struct fl_config *cfg;
	char *end;
	int c, r;

	optind = 1;
	while ((c = fl_getopt(argc, argv, "", opts)) != -1) {
		switch (c) {
		case 'c':
			o.config = optarg;
			break;
		case 'm':
			o.machine = optarg;
			break;
		case 'b':
			o.bench = optarg;
			break;
		case 't':
			o.tree = optarg;
			break;
		case 'r':
			o.rev = optarg;
			break;
		case 'k':
			o.kernel = optarg;
			break;
		case 'i':
			o.image = optarg;
			break;
		case 's':
			o.map = optarg;
			break;
		case 'n':
			o.repeat = (unsigned)strtoul(optarg, &end, 10);
			if (*end || !o.repeat || o.repeat > 1000) {
				fprintf(stderr, "faultline: --repeat: expected 1-1000, got '%s'\n",
					optarg);
				return FL_EXIT_USAGE;
			}
			break;
		case 'T':
			if (fl_parse_duration(optarg, &o.timeout_ms) || o.timeout_ms <= 0) {
				fprintf(stderr, "faultline: --timeout: %s\n", fl_error_last());
				return FL_EXIT_USAGE;
			}
			break;
		case 'j':
			if (o.njob == MAX_JOB_KEYS) {
				fprintf(stderr, "faultline: at most %d --job keys\n", MAX_JOB_KEYS);
				return FL_EXIT_USAGE;
			}
			o.job[o.njob++] = optarg;
			break;
		default:
			return fl_usage(&fl_cmd_run);
		}
	}
	/* A revision or an image (or neither on a box's own kernel, checked
	 * once the machine is known); --system-map and --kernel go with one. */
	if (optind != argc || (o.rev && o.image) || (o.map && !o.image) || (o.kernel && !o.rev) ||
	    (o.tree && !o.rev))
		return fl_usage(&fl_cmd_run);
	if ((r = fl_load_config(&cfg, o.config)))
		return r;
	r = run_cmd(cfg, &o);
	fl_config_free(cfg);
	return r;
}

const struct fl_command fl_cmd_run = {
    .name = "run",
    .run = cmd_run,
    .usage = "run [--config F] [--machine M] [--benchmark B] [--tree T --rev REV [--kernel K] | "
	     "--kernel-image PATH [--system-map PATH]] [--repeat N] [--timeout DURATION] "
	     "[--job KEY=VALUE]...",
    .summary = "boot a kernel on a machine, run a benchmark, store and print operations per second",
    .help = "options:\n"
	    "  --config F            the configuration (default: the global --config)\n"
	    "  --machine M           the machine (default: the configuration's only one)\n"
	    "  --benchmark B         the benchmark (default: the configuration's only one)\n"
	    "  --tree T              the tree of --rev (default: the only one)\n"
	    "  --rev REV             build this revision (as faultline build) and boot it\n"
	    "  --kernel K            the kernels: entry to build --rev with (default: the\n"
	    "                        benchmark's kernel)\n"
	    "  --kernel-image PATH   boot this prebuilt bzImage instead of building\n"
	    "  --system-map PATH     the System.map of --kernel-image\n"
	    "  --repeat N            runs, 1-1000 (default: the benchmark's repeat)\n"
	    "  --timeout DURATION    a run's deadline (default: computed from the benchmark)\n"
	    "  --job KEY=VALUE       add a key to the agent's job; may be repeated\n"
	    "  -h, --help            this help\n"
	    "\n"
	    "Stores every run and prints operations per second per point.\n"
	    "Exit: 0 runs done, 1 the revision does not build, 2 usage or configuration\n"
	    "error, 4 runtime failure (libvirt, the machine, the store).\n",
};
