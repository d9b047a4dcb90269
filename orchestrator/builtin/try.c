/*
 * builtin/try.c - "faultline try": a proposed fix measured against the
 * commit it was made on (and a regression's good commit), as the seed
 * thread's reporter did by hand. The try is stored with its job
 * (store/try.h, service/try.c) and the queue runs it to the end here, as
 * "watch --once" would: a try that is interrupted is finished by the next
 * "faultline watch" (or "faultline try --resume ID"). With --regression the
 * answer is mailed as a reply in the thread of the regression's report.
 */
#include "build/repo.h"
#include "builtin/builtin.h"
#include "config/config.h"
#include "lib/buf.h"
#include "lib/cancel.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "lib/log.h"
#include "lib/mail.h"
#include "service/measure.h"
#include "service/outbox.h"
#include "service/pipeline.h"
#include "service/queue.h"
#include "service/service.h"
#include "store/jobs.h"
#include "store/store.h"
#include "store/try.h"
#include "store/watch.h"

#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct try_opts {
	const char *config, *base, *patch, *rev, *tree, *bench, *machine;
	fl_buf points;
	int64_t regression, resume;
};

/* The options that go together: a fix and what it is measured against, or
 * --resume alone. */
static int check(int argc, char **argv, const struct try_opts *o)
{
	if (optind != argc)
		return fl_arg_error("try", "takes no operand, got '%s'", argv[optind]);
	if (o->resume && (o->patch || o->rev || o->base || o->regression))
		return fl_arg_error("try", "--resume ID takes no --patch, --rev, --base or "
					   "--regression: the try has them");
	if (o->resume)
		return 0;
	if (!o->patch == !o->rev)
		return fl_arg_error("try", "the fix is one of --patch FILE or --rev REV");
	if (!o->base && !o->regression)
		return fl_arg_error("try", "--regression ID or --base REV is needed: what the fix "
					   "is measured against");
	return 0;
}

static int parse(int argc, char **argv, struct try_opts *o)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"base", required_argument, NULL, 'b'},
	    {"patch", required_argument, NULL, 'p'},
	    {"rev", required_argument, NULL, 'r'},
	    {"tree", required_argument, NULL, 't'},
	    {"benchmark", required_argument, NULL, 'B'},
	    {"machine", required_argument, NULL, 'm'},
	    {"point", required_argument, NULL, 'P'},
	    {"regression", required_argument, NULL, 'R'},
	    {"resume", required_argument, NULL, 'S'},
	    {NULL, 0, NULL, 0},
	};
	char *end;
	int c;

	optind = 1;
	while ((c = fl_getopt(argc, argv, "", opts)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'b':
			o->base = optarg;
			break;
		case 'p':
			o->patch = optarg;
			break;
		case 'r':
			o->rev = optarg;
			break;
		case 't':
			o->tree = optarg;
			break;
		case 'B':
			o->bench = optarg;
			break;
		case 'm':
			o->machine = optarg;
			break;
		case 'P':
			fl_buf_addf(&o->points, "%s%s", o->points.len ? "," : "", optarg);
			break;
		case 'R':
		case 'S':
			*(c == 'R' ? &o->regression : &o->resume) = strtoll(optarg, &end, 10);
			if (*end || end == optarg || *(c == 'R' ? &o->regression : &o->resume) <= 0)
				return fl_arg_error("try",
						    "--%s: an id is a positive number, got '%s'",
						    c == 'R' ? "regression" : "resume", optarg);
			break;
		default:
			return FL_EINVAL; /* '?': fl_getopt said what is wrong */
		}
	}
	return check(argc, argv, o);
}

/* The request as a tries row: names, revisions resolved, the patch read. */
static int prepare(const struct fl_config *cfg, fl_store *st, struct try_opts *o, struct fl_try *t)
{
	const struct fl_benchmark_conf *b;
	const struct fl_machine_conf *m;
	const struct fl_tree_conf *tr;
	struct fl_regression reg = {0};
	char base[41], rev[41];
	fl_repo *repo = NULL;
	fl_buf text = FL_BUF_INIT;
	int r;

	if (o->regression) {
		if ((r = fl_store_regression_get(st, o->regression, &reg)))
			return r;
		o->tree = o->tree ? o->tree : reg.tree;
		o->bench = o->bench ? o->bench : reg.benchmark;
		o->machine = o->machine ? o->machine : reg.machine;
		if (!o->points.len && *reg.mode) {
			char *key = fl_point_key(reg.mode, reg.tasks, reg.cgroup);

			fl_buf_adds(&o->points, key);
			free(key);
		}
	}
	if ((r = fl_pick_names(cfg, &o->bench, &o->machine, &o->tree, &b, &m, &tr)))
		r = fl_error_set(FL_EINVAL, "%s",
				 "the benchmark, machine or tree is not configured");
	else if (!o->bench || !o->machine || !o->tree)
		r = fl_error_set(FL_EINVAL, "name --benchmark, --machine and --tree: the "
					    "configuration has more than one");
	if (!r && o->points.len) {
		struct fl_point_at *v;
		size_t n;

		if (!(r = fl_points_parse(o->points.ptr, &v, &n)))
			free(v);
	}
	if (!r)
		r = fl_repo_open_current(&repo, tr->name, tr->url, cfg->var);
	if (!r)
		r = fl_repo_resolve(repo, o->base ? o->base : reg.bad, base);
	if (!r && o->rev)
		r = fl_repo_resolve(repo, o->rev, rev);
	if (!r && o->patch && fl_read_file(o->patch, &text)) {
		char *why = fl_xstrdup(fl_error_last());

		r = fl_error_set(FL_EINVAL, "--patch: %s", why);
		free(why);
	}
	if (!r) {
		char *copy = fl_xstrdup(o->patch ? o->patch : "");

		*t = (struct fl_try){.regression_id = o->regression,
				     .tree = fl_xstrdup(tr->name),
				     .benchmark = fl_xstrdup(b->name),
				     .machine = fl_xstrdup(m->name),
				     .base_sha = fl_xstrdup(base),
				     .good_sha = o->regression ? fl_xstrdup(reg.good) : NULL,
				     .rev_sha = o->rev ? fl_xstrdup(rev) : NULL,
				     .patch_name = o->patch ? fl_xstrdup(basename(copy)) : NULL,
				     .patch = o->patch ? fl_buf_detach(&text) : NULL,
				     .points = o->points.len ? fl_xstrdup(o->points.ptr) : NULL,
				     .created = (int64_t)time(NULL)};
		free(copy);
	}
	fl_buf_free(&text);
	fl_repo_free(repo);
	fl_regression_release(&reg);
	return r;
}

/* The try and its job, in one transaction: *job_id. */
static int add(fl_store *st, struct fl_try *t, int64_t *job_id)
{
	int r;

	if ((r = fl_store_tx_begin(st)))
		return r;
	if (!(r = fl_pipeline_register(st)) && !(r = fl_store_try_add(st, t, &t->id)))
		r = fl_service_enqueue(st, FL_JOB_TRY,
				       &(struct fl_job_spec){.tree = t->tree,
							     .machine = t->machine,
							     .benchmark = t->benchmark,
							     .regression_id = t->regression_id,
							     .try_id = t->id},
				       job_id);
	if (!r)
		r = fl_store_tx_commit(st);
	if (r)
		fl_store_tx_rollback(st);
	return r;
}

/* The queue until the job is finished (and no run is in flight), the outbox flushed. */
static int drive(const struct fl_config *cfg, int64_t job_id, struct fl_job *job)
{
	struct fl_service svc;
	struct fl_queue_opts qo = {.cfg = cfg, .ctx = &svc};
	struct fl_queue_status s = {0};
	struct fl_smtp smtp;
	struct fl_outbox box;
	fl_queue *q;
	unsigned sent, failed;
	int r, finished = 0;

	fl_service_init(&svc, cfg);
	if ((r = fl_queue_open(&q, &qo))) {
		fl_service_release(&svc);
		return r;
	}
	fl_outbox_init(&box, &smtp, cfg, fl_queue_worker(q));
	while (!r) {
		if (fl_queue_tick(q))
			fl_err("queue: %s", fl_error_last());
		fl_queue_status(q, &s);
		fl_job_release(job);
		if ((r = fl_store_job_get(fl_queue_store(q), job_id, job)))
			break;
		finished = fl_job_ended(job->state);
		if ((finished && !s.running) || fl_cancel_requested() || (!s.live && !s.running))
			break;
		fl_queue_wait(q, 1000);
	}
	if (!r && cfg->report.smtp &&
	    fl_outbox_flush(fl_queue_store(q), &box, (int64_t)time(NULL), &sent, &failed))
		fl_err("outbox: %s", fl_error_last());
	fl_queue_free(q);
	fl_service_release(&svc);
	if (!r && !finished)
		r = fl_error_set(FL_EINVAL, "try job %lld is %s: stopped before it finished",
				 (long long)job_id, job->state);
	return r;
}

static int exit_code(const struct fl_try *t, const struct fl_job *job)
{
	enum fl_try_verdict v;

	if (fl_job_is(job->state, FL_STATE_FAILED) || fl_try_verdict_parse(t->verdict, &v))
		return FL_EXIT_FAIL;
	if (v == FL_TRY_UNCLEAR)
		return FL_EXIT_INCONCLUSIVE;
	if (v == FL_TRY_CONFLICT || v == FL_TRY_UNTESTABLE || v == FL_TRY_ERROR)
		return FL_EXIT_NO;
	return FL_EXIT_OK;
}

static int cmd_try(int argc, char **argv)
{
	struct try_opts o = {.points = FL_BUF_INIT};
	struct fl_config *cfg;
	struct fl_try t = {0};
	struct fl_job job = {0}, found = {0};
	fl_store *st = NULL;
	int64_t job_id = 0;
	int code, r;

	if (parse(argc, argv, &o)) {
		fl_buf_free(&o.points);
		return fl_usage(&fl_cmd_try);
	}
	if ((code = fl_load_config(&cfg, o.config))) {
		fl_buf_free(&o.points);
		return code;
	}
	fl_cancel_catch(FL_CANCEL_KEEP_RUNS);
	r = fl_store_open(&st, cfg->store.path, 0);
	if (!r && o.resume) {
		char key[64];

		snprintf(key, sizeof(key), "try:%lld", (long long)o.resume);
		if (!(r = fl_store_job_find(st, key, &found)))
			job_id = found.id;
		fl_job_release(&found);
	} else if (!r && !(r = prepare(cfg, st, &o, &t)) && !(r = add(st, &t, &job_id))) {
		fl_info("try %lld: queued as job %lld (%s on %s, base %.12s)", (long long)t.id,
			(long long)job_id, t.benchmark, t.machine, t.base_sha);
	}
	fl_try_release(&t);
	if (!r)
		r = drive(cfg, job_id, &job);
	if (!r)
		r = fl_store_try_get(st, job.try_id, &t);
	if (r) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		code = r == FL_EINVAL || r == FL_ENOTFOUND ? FL_EXIT_USAGE : FL_EXIT_FAIL;
	} else {
		if (t.summary)
			fputs(t.summary, stdout);
		else
			printf("try %lld: %s: %s\n", (long long)t.id, job.state,
			       job.error ? job.error : "");
		code = exit_code(&t, &job);
	}
	fl_try_release(&t);
	fl_job_release(&job);
	fl_store_free(st);
	fl_config_free(cfg);
	fl_buf_free(&o.points);
	return code;
}

const struct fl_command fl_cmd_try = {
    .name = "try",
    .run = cmd_try,
    .usage =
	"try [--config F] (--regression ID [--base REV] | --base REV) (--patch FILE | --rev REV) "
	"[--tree T] [--benchmark B] [--machine M] [--point MODE:TASKS[:CGROUP]]... | "
	"try --resume ID",
    .summary = "measure a proposed fix against its base (and a regression's good commit); "
	       "reply in the regression's thread",
    .help = "options:\n"
	    "  --config F                 the configuration (default: the global --config)\n"
	    "  --regression ID            the regression the fix is for (its tree, benchmark,\n"
	    "                             machine, point and good commit are the defaults)\n"
	    "  --base REV                 apply and measure against this revision (default:\n"
	    "                             the regression's bad commit)\n"
	    "  --patch FILE               the fix: a git format-patch series or a plain diff\n"
	    "  --rev REV                  the fix: a revision measured as it is\n"
	    "  --tree T                   the tree (default: the regression's, or the only one)\n"
	    "  --benchmark B              the benchmark (default: the regression's)\n"
	    "  --machine M                the machine (default: the regression's)\n"
	    "  --point MODE:TASKS[:CGROUP] a point to measure; may be repeated\n"
	    "  --resume ID                finish an interrupted try\n"
	    "  -h, --help                 this help\n"
	    "\n"
	    "Exit: 0 a verdict, 1 the patch does not apply or the fix could not be\n"
	    "measured, 2 usage error, 3 unclear, 4 runtime failure.\n",
};
