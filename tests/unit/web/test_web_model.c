/* test_web_model.c - what the pages compute from the store's rows (web/model.h):
 * a run's points summarised, a history's positions with one value per run
 * (the mean of its samples) and its change points with analysis'
 * defaults, tags in version order and paged, a tag verdict's headline, the
 * choices a run offers, the comparison options, and two commits compared
 * from their rows in a store (runs found by commit and, for older rows, by
 * build), a run's points from all its stored samples, a commit's runs and a
 * job's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/error.h"
#include "store/evidence.h"
#include "store/run.h"
#include "web/model.h"
#include "testlib.h"

static void test_points(void **state)
{
	/* the same point in the root and in a child cgroup: two points */
	const struct fl_view_sample x[] = {
	    {"ops", "threads", 1, 0, 10, ""}, {"ops", "threads", 1, 1, 14, ""},
	    {"ops", "threads", 2, 0, 30, ""}, {"ops", "threads", 2, 0, 50, "child"},
	    {"ops_per_sec", "", 1, 0, 5, ""}, {"ops_per_sec", "", 1, 1, 6, ""},
	    {"ops_per_sec", "", 1, 2, 7, ""},
	};
	fl_pool p = FL_POOL_INIT;
	struct fl_model_point *pts;
	size_t n;

	(void)state;
	fl_model_points(&p, x, 7, &pts, &n);
	assert_int_equal(n, 4);
	assert_string_equal(pts[0].metric, "ops");
	assert_int_equal(pts[0].tasks, 1);
	assert_int_equal(pts[0].n, 2);
	assert_true(pts[0].mean == 12);
	assert_true(fabs(pts[0].sd - sqrt(8)) < 1e-12);
	assert_int_equal(pts[1].tasks, 2);
	assert_true(pts[1].mean == 30 && pts[1].sd == 0);
	assert_string_equal(pts[1].cgroup, "");
	assert_string_equal(pts[2].cgroup, "child");
	assert_true(pts[2].mean == 50);
	assert_string_equal(pts[3].mode, "");
	assert_true(pts[3].mean == 6 && pts[3].sd == 1);
	fl_model_points(&p, x, 0, &pts, &n);
	assert_int_equal(n, 0);
	fl_pool_free(&p);
}

/* k positions of 3 run values each, a 20% drop from position 10 on. */
static void step_series(fl_pool *p, struct fl_model_series *o, size_t k)
{
	memset(o, 0, sizeof(*o));
	o->pts = fl_pool_alloc(p, k * sizeof(*o->pts));
	for (size_t i = 0; i < k; i++) {
		double base = i < 10 ? 1000 : 800;

		o->pts[i].v = fl_pool_alloc(p, 3 * sizeof(double));
		for (size_t r = 0; r < 3; r++)
			o->pts[i].v[r] = base * (1 + 0.002 * (double)((i + r) % 3));
		o->pts[i].n = 3;
	}
	o->n = k;
}

static void test_change_points(void **state)
{
	fl_pool p = FL_POOL_INIT;
	struct fl_model_series o;
	struct fl_cp_opts cp;

	(void)state;
	fl_cp_opts_init(&cp);
	assert_true(cp.alpha == 0.01 && cp.perms == 199 && cp.max == 8 && cp.min_positions == 4);
	step_series(&p, &o, 20);
	assert_int_equal(fl_model_change_points(&p, FL_HIGHER_BETTER, &o), 0);
	assert_int_equal(o.ncps, 1);
	assert_int_equal(o.cps[0].index, 10);
	assert_true(o.cps[0].change_pct > 19 && o.cps[0].change_pct < 21); /* worse */
	assert_true(o.cps[0].p < cp.alpha);
	/* The seed is fixed: the same page shows the same point. */
	double p1 = o.cps[0].p;
	assert_int_equal(fl_model_change_points(&p, FL_HIGHER_BETTER, &o), 0);
	assert_int_equal(o.ncps, 1);
	assert_true(o.cps[0].p == p1);
	/* Lower is better: the same drop is an improvement. */
	assert_int_equal(fl_model_change_points(&p, FL_LOWER_BETTER, &o), 0);
	assert_true(o.cps[0].change_pct < -19);
	/* Too few positions to look. */
	step_series(&p, &o, 3);
	assert_int_equal(fl_model_change_points(&p, FL_HIGHER_BETTER, &o), 0);
	assert_int_equal(o.ncps, 0);
	fl_pool_free(&p);
}

static void test_tags(void **state)
{
	struct fl_view_tag t[] = {{.name = "v6.1"}, {.name = "v6.10"}, {.name = "v6.2-rc1"},
				  {.name = "v6.2"}, {.name = "v6.9"},  {.name = "v6.1-rc3"}};
	size_t n = 6;

	(void)state;
	fl_model_tags_newest(t, &n, 4);
	assert_int_equal(n, 4);
	assert_string_equal(t[0].name, "v6.10");
	assert_string_equal(t[1].name, "v6.9");
	assert_string_equal(t[2].name, "v6.2");
	assert_string_equal(t[3].name, "v6.2-rc1");
	n = 0;
	fl_model_tags_newest(NULL, &n, 4);
	assert_int_equal(n, 0);
}

/* Heads of a branch ("mm@<sha>") after the tags, newest first by time. */
static void test_heads(void **state)
{
	struct fl_view_tag t[] = {
	    {.id = 1, .name = "mm@9aaaaaaaaaaa", .kind = "head", .created = 10},
	    {.id = 2, .name = "v6.2", .kind = "tag", .created = 20},
	    {.id = 3, .name = "mm@1bbbbbbbbbbb", .kind = "head", .created = 30},
	    {.id = 4, .name = "mm@5ccccccccccc", .kind = "head", .created = 30},
	    {.id = 5, .name = "v6.10", .created = 5}};
	size_t n = 5;

	(void)state;
	fl_model_tags_newest(t, &n, 5);
	assert_string_equal(t[0].name, "v6.10");
	assert_string_equal(t[1].name, "v6.2");
	assert_string_equal(t[2].name, "mm@5ccccccccccc");
	assert_string_equal(t[3].name, "mm@1bbbbbbbbbbb");
	assert_string_equal(t[4].name, "mm@9aaaaaaaaaaa");
}

/* A done job's headline among its primary points; a failed job's error only. */
static void test_verdict(void **state)
{
	struct fl_view_verdict_point pts[] = {{"ops", "threads", 1, -3, "regression"},
					      {"ops", "threads", 2, 9, "same"},
					      {"ops", "threads", 4, NAN, "regression"},
					      {"ops", "threads", 8, -7, "regression"},
					      {"ops", "threads", 16, 7, "regression"}};
	struct fl_view_verdict v = {.state = "done",
				    .result = "regression",
				    .error = "old",
				    .change = NAN,
				    .points = pts,
				    .npoints = 5};

	(void)state;
	/* the class decides: its largest change, the first of a tie */
	fl_model_verdict(&v);
	assert_null(v.error);
	assert_int_equal(v.tasks, 8);
	assert_true(v.change == -7);
	/* a class that does not decide: the largest change of any */
	v.result = "same";
	fl_model_verdict(&v);
	assert_int_equal(v.tasks, 2);
	/* a change not stored comes after every stored one */
	pts[1].class = "regression";
	pts[1].change = NAN;
	v.result = "regression";
	v.npoints = 3;
	fl_model_verdict(&v);
	assert_int_equal(v.tasks, 1);
	/* not done: no headline; failed: its error */
	v = (struct fl_view_verdict){
	    .state = "failed", .error = "exit 3", .change = NAN, .points = pts, .npoints = 5};
	fl_model_verdict(&v);
	assert_string_equal(v.error, "exit 3");
	assert_null(v.metric);
	assert_true(isnan(v.change));
	/* a regression's own point stays the headline */
	v = (struct fl_view_verdict){.state = "done",
				     .result = "regression",
				     .regression_id = 4,
				     .metric = "ops",
				     .tasks = 32,
				     .change = -20,
				     .points = pts,
				     .npoints = 5};
	fl_model_verdict(&v);
	assert_int_equal(v.tasks, 32);
}

static void test_tag_page(void **state)
{
	struct fl_view_position pts[] = {{.tag = "v6.3"}, {.tag = "v6.1"}, {.tag = "v6.10"},
					 {.tag = "v6.2"}, {.tag = "v6.3"}, {.tag = "v6.4"}};
	struct fl_model_series_req q = {.page = 1, .per_page = 3};
	size_t first, n;
	int more;

	(void)state;
	/* Oldest first, each name once, the newest per_page of them. */
	fl_model_tag_page(&q, pts, 6, &first, &n, &more);
	assert_int_equal(n, 3);
	assert_true(more);
	assert_string_equal(pts[first].tag, "v6.3");
	assert_string_equal(pts[first + 2].tag, "v6.10");
	/* Page 2: what is left, no more after it. */
	q.page = 2;
	fl_model_tag_page(&q, pts, 5, &first, &n, &more);
	assert_int_equal(n, 2);
	assert_false(more);
	assert_string_equal(pts[first].tag, "v6.1");
	assert_string_equal(pts[first + 1].tag, "v6.2");
	q.page = 3;
	fl_model_tag_page(&q, pts, 5, &first, &n, &more);
	assert_int_equal(n, 0);
}

/* A position's values: one per run, the mean of its samples, in run order;
 * a position whose runs have no sample at the point is left out. */
static void test_position_values(void **state)
{
	const struct fl_view_position pts[] = {{.tag = "v6.1"}, {.tag = "v6.2"}, {.tag = "v6.3"}};
	const struct fl_view_position_sample x[] = {{0, 4, 10}, {0, 4, 14}, {0, 7, 30},
						    {2, 9, 1},	{2, 9, 2},  {2, 9, 6}};
	struct fl_model_position *out;
	fl_pool p = FL_POOL_INIT;
	size_t n;

	(void)state;
	fl_model_position_values(&p, pts, 3, x, 6, &out, &n);
	assert_int_equal(n, 2);
	assert_string_equal(out[0].tag, "v6.1");
	assert_int_equal(out[0].n, 2);
	assert_true(out[0].v[0] == 12 && out[0].v[1] == 30);
	assert_string_equal(out[1].tag, "v6.3");
	assert_int_equal(out[1].n, 1);
	assert_true(out[1].v[0] == 3);
	fl_model_position_values(&p, pts, 3, NULL, 0, &out, &n);
	assert_int_equal(n, 0);
	fl_pool_free(&p);
}

static void test_choices(void **state)
{
	const struct fl_model_point pts[] = {{"ops", "processes", 4, 0, 0, 1, ""},
					     {"ops_per_sec", "processes", 1, 0, 0, 1, ""},
					     {"ops_per_sec", "threads", 2, 0, 0, 1, ""}};
	struct fl_model_series_req q = {0};
	struct fl_model_series o = {0};
	fl_pool p = FL_POOL_INIT;

	(void)state;
	fl_model_series_choices(&p, pts, 3, &q, &o);
	assert_int_equal(o.nmetrics, 2);
	assert_int_equal(o.nmodes, 2);
	assert_int_equal(o.ntasks, 3);
	assert_int_equal(o.tasks_list[0], 1);
	assert_int_equal(o.tasks_list[2], 4);
	/* ops_per_sec over the first metric, the first mode, the largest task count. */
	assert_string_equal(o.metric, "ops_per_sec");
	assert_string_equal(o.mode, "processes");
	assert_int_equal(o.tasks, 4);
	memset(&o, 0, sizeof(o));
	q = (struct fl_model_series_req){.metric = "ops", .mode = "threads", .tasks = 2};
	fl_model_series_choices(&p, pts, 3, &q, &o);
	assert_string_equal(o.metric, "ops");
	assert_string_equal(o.mode, "threads");
	assert_int_equal(o.tasks, 2);
	fl_pool_free(&p);
}

static void test_cmp_opts(void **state)
{
	struct fl_cmp_opts o, d;

	(void)state;
	fl_cmp_opts_init(&d);
	fl_model_cmp_opts(NULL, "page_fault2", &o);
	assert_true(o.alpha == d.alpha && o.min_change == d.min_change);
	assert_int_equal(o.dir, FL_HIGHER_BETTER);
}

/* ---- two commits compared from a store ---- */

static char dir[64];
static fl_store *st;
static int64_t machine, commit[2];

/* An ok run of commit k whose per_thread_ops samples are around mean. With
 * by_build, the older way: a row of the commit's build, no runs.commit_id. */
static int64_t add_run(int k, double mean, int by_build)
{
	struct fl_sample s[3];
	int64_t id, build;

	for (unsigned i = 0; i < 3; i++)
		s[i] = (struct fl_sample){"per_thread_ops", "threads", 2, i,
					  mean * (1 + 0.001 * ((int)i - 1)), NULL};
	if (by_build) {
		struct fl_run_info ri = {0, machine, "pf2", "{}", 0, 0};

		assert_int_equal(fl_store_build_start(st, commit[k], "k", "h", "gcc", &build), 0);
		ri.build_id = build;
		assert_int_equal(fl_store_run_create(st, &ri, &id), 0);
		assert_int_equal(fl_store_samples_add(st, id, s, 3), 0);
		assert_int_equal(fl_store_run_finish(st, id, "ok", ""), 0);
	} else {
		struct fl_run_new rn = {.machine_id = machine,
					.commit_id = commit[k],
					.benchmark = "pf2",
					.params = "{}"};
		struct fl_run_end e = {.status = "ok", .samples = s, .nsamples = 3};

		assert_int_equal(fl_store_run_start(st, &rn, &id), 0);
		assert_int_equal(fl_store_run_end(st, id, &e), 0);
	}
	return id;
}

static void add_evidence(int64_t run, double pgfault)
{
	struct fl_vmstat_row vm = {"pgfault", (int64_t)(5 * pgfault), pgfault};
	struct fl_evidence_row res = {.test = "pf2",
				      .mode = "threads",
				      .tasks = 2,
				      .measured_s = 5,
				      .vm = &vm,
				      .nvm = 1,
				      .profile = "none"};

	assert_int_equal(fl_store_evidence_put(st, run, &res, 1), 0);
}

static int setup_store(void **state)
{
	const struct fl_commit_info c[2] = {
	    {"aaaa000000000000000000000000000000000001", "base", "a", 1},
	    {"bbbb000000000000000000000000000000000002", "new", "a", 2}};
	char path[128];
	int64_t tree;

	(void)state;
	if (fl_test_tmpdir(dir, sizeof(dir), "webmodel"))
		return -1;
	snprintf(path, sizeof(path), "%s/fl.db", dir);
	if (fl_store_open(&st, fl_test_store(path), 0) || fl_store_tree_ensure(st, "mainline", "u", &tree) ||
	    fl_store_machine_ensure(st, "vm", "libvirt", &machine) ||
	    fl_store_commit_ensure(st, tree, &c[0], &commit[0]) ||
	    fl_store_commit_ensure(st, tree, &c[1], &commit[1]))
		return -1;
	return 0;
}

static int teardown_store(void **state)
{
	(void)state;
	fl_store_free(st);
	fl_test_rmtree(dir);
	return 0;
}

static void test_compare(void **state)
{
	struct fl_model_compare_req q = {NULL, "aaaa", "bbbb", "pf2", "vm", {0}, 0};
	struct fl_model_compare c;
	const struct fl_cmp_row *row;
	fl_pool p = FL_POOL_INIT;

	(void)state;
	fl_cmp_opts_init(&q.opts);
	/* Nothing measured yet: the commits and the machine, no rows. */
	assert_int_equal(fl_model_compare(st, &p, &q, &c), 0);
	assert_string_equal(c.a.subject, "base");
	assert_int_equal(c.a_runs + c.b_runs + c.nrows, 0);

	/* Five runs a side, one of them an older row found by its build, one
	 * with vmstat evidence; new is 10% slower. */
	for (int i = 0; i < 4; i++) {
		add_run(0, 1000 + i, i == 3);
		add_run(1, 900 + i, 0);
	}
	add_evidence(add_run(0, 1001, 0), 1000);
	add_evidence(add_run(1, 901, 0), 2000);
	assert_int_equal(fl_model_compare(st, &p, &q, &c), 0);
	assert_int_equal(c.a_runs, 5);
	assert_int_equal(c.b_runs, 5);
	assert_int_equal(c.nmetric, 1);
	assert_int_equal(c.nvmstat, 1);
	assert_true(c.has_evidence);
	row = &c.rows[0];
	assert_string_equal(row->what, "per_thread_ops");
	assert_int_equal(row->tasks, 2);
	assert_int_equal(row->base.n, 5);
	assert_true(row->change < -9.5 && row->change > -10.5);
	assert_int_equal(row->verdict, FL_DIFFERENT);
	assert_int_equal(row->cls, FL_CMP_REGRESSION);

	/* A machine the store does not know is named. */
	q.machine = "nosuch";
	assert_int_equal(fl_model_compare(st, &p, &q, &c), FL_ENOTFOUND);
	assert_non_null(strstr(fl_error_last(), "nosuch"));
	fl_pool_free(&p);
}

/* A run's points from all its samples (no page: every row, on PostgreSQL
 * too, where SQLite's LIMIT -1 was an error). */
static void test_run_points_stored(void **state)
{
	struct fl_model_point *pt;
	fl_pool p = FL_POOL_INIT;
	size_t n;

	(void)state;
	assert_int_equal(fl_model_run_points(st, &p, add_run(0, 1000, 0), &pt, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(pt[0].metric, "per_thread_ops");
	assert_int_equal(pt[0].n, 3);
	assert_true(fabs(pt[0].mean - 1000) < 1e-9);
	fl_pool_free(&p);
}

/* A commit's runs, paged, and a job's runs of a commit: their SQL names
 * every subquery in FROM (PostgreSQL 15 wants an alias). */
static void test_commit_runs_stored(void **state)
{
	struct fl_view_run *runs;
	fl_pool p = FL_POOL_INIT;
	int64_t a = add_run(0, 1000, 0), b = add_run(0, 1000, 1), *ids;
	size_t n;
	int more;

	(void)state;
	assert_int_equal(fl_view_commit_run_list(st, &p, "aaaa000000000000000000000000000000000001",
						 1, 10, &runs, &n, &more),
			 0);
	assert_int_equal(n, 2);
	assert_true(runs[0].id == b && runs[1].id == a && !more);
	assert_int_equal(fl_view_job_commit_runs(st, 0, "aaaa000000000000000000000000000000000001",
						 "pf2", "vm", &ids, &n),
			 0);
	assert_int_equal(n, 0);
	free(ids);
	fl_pool_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_points),
	    cmocka_unit_test(test_change_points),
	    cmocka_unit_test(test_tags),
	    cmocka_unit_test(test_heads),
	    cmocka_unit_test(test_verdict),
	    cmocka_unit_test(test_tag_page),
	    cmocka_unit_test(test_position_values),
	    cmocka_unit_test(test_choices),
	    cmocka_unit_test(test_cmp_opts),
	    cmocka_unit_test_setup_teardown(test_compare, setup_store, teardown_store),
	    cmocka_unit_test_setup_teardown(test_run_points_stored, setup_store, teardown_store),
	    cmocka_unit_test_setup_teardown(test_commit_runs_stored, setup_store, teardown_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
