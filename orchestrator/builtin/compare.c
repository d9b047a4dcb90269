/*
 * builtin/compare.c - "faultline compare": two kernels (or any two
 * revisions) on one benchmark and machine, from the runs in the store,
 * printed the way LKP's compare prints them (compare.h's text): the same
 * comparison the watch service decides with and the report mails.
 *
 * A side is a revision of the configured tree (a tag, a branch, a short
 * sha: repo.c resolves it), else a commit already in the store by its sha
 * or a prefix, and means its ok runs; or "run:ID[,ID...]", those runs
 * themselves (runs of a prebuilt --kernel-image belong to no commit).
 */
#include "builtin/builtin.h"
#include "lib/buf.h"
#include "analysis/compare.h"
#include "config/config.h"
#include "lib/error.h"
#include "service/measure.h"
#include "service/pipeline.h"
#include "build/repo.h"
#include "store/compare.h"
#include "store/run.h"
#include "store/store.h"

#include <ctype.h>
#include <jansson.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RUNS 1000

struct compare_opts {
	const char *config, *a, *b, *bench, *machine, *tree;
	int json;
};

struct ctx {
	const struct fl_config *cfg;
	const struct compare_opts *o;
	const struct fl_benchmark_conf *bench;
	const struct fl_tree_conf *tree;
	fl_repo *repo;
	int repo_tried;
	char *repo_why;
	fl_store *st;
};

/* A side as the user named it: the runs, and what they are for the header. */
struct side {
	int64_t *ids;
	size_t n;
	char sha[41]; /* "" for run:ID lists */
};

/* "run:12,13": the ids, or FL_EINVAL naming what is wrong. */
static int parse_runs(const char *opt, const char *spec, struct side *s)
{
	const char *p = spec + 4;

	s->ids = fl_xcalloc(MAX_RUNS, sizeof(*s->ids));
	for (;;) {
		char *end;
		long long id;

		errno = 0;
		id = isdigit((unsigned char)*p) ? strtoll(p, &end, 10) : 0;
		if (errno || id <= 0 || (*end && *end != ',') || s->n == MAX_RUNS)
			return fl_error_set(FL_EINVAL,
					    "%s %s: expected run:ID[,ID...], at most %d positive "
					    "run ids",
					    opt, spec, MAX_RUNS);
		for (size_t i = 0; i < s->n; i++)
			if (s->ids[i] == id)
				return fl_error_set(FL_EINVAL, "%s %s: run %lld named twice", opt,
						    spec, id);
		s->ids[s->n++] = id;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/* Each named run exists, is ok, and is of the benchmark on the machine. */
static int check_runs(struct ctx *x, const char *opt, const struct side *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct fl_run_info_row ri;
		int r = fl_store_run_info(x->st, s->ids[i], &ri);

		if (r == FL_ENOTFOUND)
			return fl_error_set(FL_EINVAL, "%s: no run %lld in the store", opt,
					    (long long)s->ids[i]);
		if (r)
			return r;
		if (strcmp(ri.benchmark, x->o->bench) || strcmp(ri.machine, x->o->machine) ||
		    strcmp(ri.status, "ok"))
			r = fl_error_set(FL_EINVAL,
					 "%s: run %lld is %s of %s on %s, not an ok run of "
					 "%s on %s",
					 opt, (long long)s->ids[i], ri.status, ri.benchmark,
					 ri.machine, x->o->bench, x->o->machine);
		fl_store_run_info_release(&ri);
		if (r)
			return r;
	}
	return 0;
}

/* The tree as this host has it, opened once: never cloned or fetched (the
 * runs compared are of commits it had), so a revision it lacks is looked
 * up in the store. NULL (and x->repo_why) when it cannot be opened. */
static fl_repo *repo(struct ctx *x)
{
	if (!x->repo_tried && x->tree) {
		x->repo_tried = 1;
		if (fl_repo_open_existing(&x->repo, x->tree->name, x->tree->url, x->cfg->var))
			x->repo_why = fl_xstrdup(fl_error_last());
	}
	return x->repo;
}

/* A revision to a full sha: the tree's answer first, then the store's. */
static int resolve_rev(struct ctx *x, const char *opt, const char *rev, char sha[41])
{
	fl_repo *r = repo(x);
	char *why;
	int rc;

	if (r && !fl_repo_resolve(r, rev, sha))
		return 0;
	why = r ? fl_xstrdup(fl_error_last()) : x->repo_why ? fl_xstrdup(x->repo_why) : NULL;
	rc = fl_store_cmp_commit_sha(x->st, rev, sha);
	if (rc == FL_ENOTFOUND || rc == FL_EINVAL)
		rc = fl_error_set(FL_EINVAL, "%s %s: %s%s%s", opt, rev, why ? why : "",
				  why ? "; in the store: " : "", fl_error_last());
	free(why);
	return rc;
}

static int load_side(struct ctx *x, const char *opt, const char *rev, struct side *s)
{
	int r;

	if (!strncmp(rev, "run:", 4)) {
		if ((r = parse_runs(opt, rev, s)))
			return r;
		return check_runs(x, opt, s);
	}
	if ((r = resolve_rev(x, opt, rev, s->sha)) ||
	    (r = fl_store_commit_runs(x->st, s->sha, x->o->bench, x->o->machine, &s->ids, &s->n)))
		return r;
	if (!s->n)
		return fl_error_set(FL_EINVAL,
				    "%s %s (%.12s): no ok runs of %s on %s in the store; "
				    "faultline run makes them",
				    opt, rev, s->sha, x->o->bench, x->o->machine);
	return 0;
}

static void header(const char *name, const char *rev, const struct side *s)
{
	printf("%s %s", name, rev);
	if (*s->sha && (strlen(rev) < 12 || strncmp(rev, s->sha, strlen(rev))))
		printf(" = %.12s", s->sha);
	printf(": %zu run%s (", s->n, s->n == 1 ? "" : "s");
	for (size_t i = 0; i < s->n; i++)
		printf("%s%lld", i ? " " : "", (long long)s->ids[i]);
	printf(")\n");
}

static const char *const kind_names[] = {"metric", "vmstat", "profile"};

static json_t *side_json(const char *rev, const struct side *s)
{
	json_t *ids = json_array();

	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(ids, json_integer(s->ids[i]));
	return json_pack("{s:s, s:o, s:o}", "rev", rev, "sha",
			 *s->sha ? json_string(s->sha) : json_null(), "runs", ids);
}

static json_t *value_json(const struct fl_cmp_value *v)
{
	return json_pack("{s:f, s:f, s:f, s:I}", "mean", v->value, "stddev", v->stddev,
			 "stddev_pct", v->stddev_pct, "runs", (json_int_t)v->n);
}

/* The comparison as one JSON object: the sides and their runs, every row
 * with both values and, for metric rows, the verdict, p, the shift and the
 * class (regression, improvement, same, unclear), the notes. */
static void print_json(const struct ctx *x, const struct side *a, const struct side *b,
		       const struct fl_comparison *c)
{
	json_t *o = json_object(), *rows = json_array(), *notes = json_array();

	json_object_set_new(o, "benchmark", json_string(x->o->bench));
	json_object_set_new(o, "machine", json_string(x->o->machine));
	json_object_set_new(o, "base", side_json(x->o->a, a));
	json_object_set_new(o, "new", side_json(x->o->b, b));
	json_object_set_new(o, "regressed", json_boolean(fl_comparison_regressed(c)));
	for (size_t i = 0; i < c->nrows; i++) {
		const struct fl_cmp_row *r = &c->rows[i];
		json_t *row = json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:o, s:o, s:f}", "kind",
					kind_names[r->kind], "name", r->name, "mode", r->mode,
					"tasks", (int)r->tasks, "cgroup", *r->cgroup ? r->cgroup : "root",
					"what", r->what, "base", value_json(&r->base), "new",
					value_json(&r->new_), "change", r->change);

		if (r->kind == FL_CMP_METRIC) {
			json_object_set_new(row, "verdict", json_string(fl_verdict_name(r->verdict)));
			json_object_set_new(row, "p", json_real(r->p));
			json_object_set_new(row, "shift_pct", json_real(r->shift_pct));
			json_object_set_new(row, "class", json_string(fl_class_name(r->cls)));
		}
		json_array_append_new(rows, row);
	}
	for (size_t i = 0; i < c->nnotes; i++)
		json_array_append_new(notes, json_string(c->notes[i]));
	json_object_set_new(o, "rows", rows);
	json_object_set_new(o, "notes", notes);
	json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(o);
}

static int compare(struct ctx *x, struct side *a, struct side *b)
{
	struct fl_cmp_side sa = {0}, sb = {0};
	struct fl_comparison *c = NULL;
	struct fl_cmp_opts opts;
	fl_buf out = FL_BUF_INIT;
	int r;

	fl_measure_cmp_opts(x->cfg, x->bench, &opts);
	if ((r = fl_cmp_side_load(x->st, x->o->a, a->ids, a->n, 0, &sa)) ||
	    (r = fl_cmp_side_load(x->st, x->o->b, b->ids, b->n, 0, &sb)) ||
	    (r = fl_compare(x->o->bench, &sa.set, &sb.set, &opts, &c)))
		goto out;
	r = fl_comparison_regressed(c);
	if (x->o->json) {
		print_json(x, a, b, c);
		goto out;
	}
	printf("%s on %s\n", x->o->bench, x->o->machine);
	header("base", x->o->a, a);
	header("new ", x->o->b, b);
	printf("\n");
	fl_comparison_text(c, &out);
	fputs(fl_buf_str(&out), stdout);
out:
	fl_buf_free(&out);
	fl_comparison_free(c);
	fl_cmp_side_release(&sa);
	fl_cmp_side_release(&sb);
	return r;
}

static int compare_cmd(const struct fl_config *cfg, struct compare_opts *o)
{
	struct ctx x = {.cfg = cfg, .o = o};
	const struct fl_machine_conf *machine;
	struct side a = {0}, b = {0};
	int r;

	if ((r = fl_pick_names(cfg, &o->bench, &o->machine, &o->tree, &x.bench, &machine, &x.tree)))
		return r;
	if (!o->bench || !o->machine)
		return fl_usage(&fl_cmd_compare);
	if (fl_store_open(&x.st, cfg->store.path, FL_STORE_READONLY)) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		return FL_EXIT_FAIL;
	}
	if (!(r = load_side(&x, "--a", o->a, &a)) && !(r = load_side(&x, "--b", o->b, &b)))
		r = compare(&x, &a, &b);
	if (r < 0)
		fprintf(stderr, "faultline: %s\n", fl_error_last());
	free(a.ids);
	free(b.ids);
	fl_repo_free(x.repo);
	free(x.repo_why);
	fl_store_free(x.st);
	if (r < 0)
		return r == FL_EINVAL ? FL_EXIT_USAGE : FL_EXIT_FAIL;
	return r ? FL_EXIT_NO : FL_EXIT_OK;
}

static int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"a", required_argument, NULL, 'a'},
		{"b", required_argument, NULL, 'b'},
		{"benchmark", required_argument, NULL, 'B'},
		{"machine", required_argument, NULL, 'm'},
		{"tree", required_argument, NULL, 't'},
		{"json", no_argument, NULL, 'j'},
		{NULL, 0, NULL, 0},
	};
	struct compare_opts o = {0};
	struct fl_config *cfg;
	int c, r;

	optind = 1;
	while ((c = fl_getopt(argc, argv, "", opts)) != -1) {
		switch (c) {
		case 'c':
			o.config = optarg;
			break;
		case 'a':
			o.a = optarg;
			break;
		case 'b':
			o.b = optarg;
			break;
		case 'B':
			o.bench = optarg;
			break;
		case 'm':
			o.machine = optarg;
			break;
		case 't':
			o.tree = optarg;
			break;
		case 'j':
			o.json = 1;
			break;
		default:
			return fl_usage(&fl_cmd_compare);
		}
	}
	if (optind != argc || !o.a || !o.b || !*o.a || !*o.b)
		return fl_usage(&fl_cmd_compare);
	if ((r = fl_load_config(&cfg, o.config)))
		return r;
	r = compare_cmd(cfg, &o);
	fl_config_free(cfg);
	return r;
}

const struct fl_command fl_cmd_compare = {
    .name = "compare",
    .run = cmd_compare,
    .usage =
	"compare [--config F] --a REV --b REV [--benchmark B] [--machine M] [--tree T] [--json]",
    .summary = "two revisions (or run:ID,... lists) side by side from the stored runs, LKP's way",
    .help = "options:\n"
	    "  --config F       the configuration (default: the global --config)\n"
	    "  --a REV          the base side: a tag or sha of tree T, or run:ID,ID,...\n"
	    "  --b REV          the new side, the same way\n"
	    "  --benchmark B    the benchmark (default: the configuration's only one)\n"
	    "  --machine M      the machine (default: the configuration's only one)\n"
	    "  --tree T         the tree the revisions belong to (default: the only one)\n"
	    "  --json           print the comparison (the sides, their runs, every row with\n"
	    "                   both values, verdict, p and class) as one JSON object\n"
	    "  -h, --help       this help\n"
	    "\n"
	    "Compares the stored runs of the two sides, one value per run, per point:\n"
	    "the means, their spread, the change, the verdict (Mann-Whitney p) and, for a\n"
	    "regression, REGRESSION; then vmstat and profile deltas. Exit: 0, 1 when a\n"
	    "metric row is a REGRESSION, 2 usage or configuration error, 4 runtime failure.\n",
};
