/*
 * test_pipeline.c - the pipeline's table (service/pipeline.h) on a real
 * store:
 *   - each kind's name, step and successors; the trigger adds compare jobs
 *     only, and a stage cannot add a job its kind is not followed by;
 *   - the key builders give the keys stores in the field have;
 *   - a job added twice is one job; a successor takes its tree, machine
 *     and benchmark from the job that adds it, and points at its tag or
 *     regression, a run job at its parent only;
 *   - the words of classes and verdicts, and their mapping;
 *   - a compare job's rounds are stored with its runs: editing repeat while
 *     the job waits changes the size of its next round, not the rounds of
 *     the runs it has (before, the rounds were recounted with the new
 *     repeat and the next round reused the keys of runs already measured);
 *   - run jobs of a store from before rounds were stored (schema 9) are
 *     numbered into rounds once, as they were counted then.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "lib/error.h"
#include "service/measure.h"
#include "service/pipeline.h"
#include "service/service.h"
#include "store/jobs.h"
#include "store/store.h"
#include "store/watch.h"
#include "testlib.h"

static char dir[64], db[96], yaml[96];
static struct fl_config *cfg;

static int load(unsigned repeat)
{
	fl_config_free(cfg);
	cfg = NULL;
	if (fl_test_write(yaml,
			  "var: %s/var\nstore: { path: %s }\n"
			  "trees: [ { name: t, url: %s/src } ]\n"
			  "kernels: [ { name: small, base: tinyconfig } ]\n"
			  "machines: [ { name: m, backend: command, command: 'echo 1' } ]\n"
			  "benchmarks: [ { name: b, repeat: %u, max_repeat: 20 } ]\n",
			  dir, db, dir, repeat))
		return -1;
	return fl_config_load(&cfg, yaml);
}

static int setup(void **state)
{
	(void)state;
	if (fl_test_tmpdir(dir, sizeof(dir), "pipeline") || fl_test_sh("mkdir %s/src", dir))
		return -1;
	snprintf(db, sizeof(db), "%s/fl.db", dir);
	snprintf(yaml, sizeof(yaml), "%s/fl.yaml", dir);
	return load(2);
}

static int teardown(void **state)
{
	(void)state;
	fl_config_free(cfg);
	return fl_test_rmtree(dir);
}

static void test_table(void **state)
{
	static const char *const names[] = {"compare", "bisect", "revert", "report", "try", "run"};
	static const char *const next[] = {"bisect run", "revert report run", "report run", "",
					   "run", ""};
	struct fl_job from = {0};
	enum fl_job_kind k;

	(void)state;
	for (int i = 0; i < FL_JOB_NKINDS; i++) {
		const struct fl_job_kind_info *info = fl_job_kind_info(i);
		char got[64] = "";

		assert_string_equal(fl_job_kind_name(i), names[i]);
		assert_int_equal(fl_job_kind_parse(names[i], &k), 0);
		assert_int_equal(k, i);
		assert_true(fl_job_kind_is(names[i], i));
		/* every kind but run is stepped; run jobs are the workers' */
		assert_int_equal(info->step != NULL, i != FL_JOB_RUN);
		for (size_t n = 0; n < info->nnext; n++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", n ? " " : "",
				 fl_job_kind_name(info->next[n]));
		assert_string_equal(got, next[i]);
		/* what comes from outside: the trigger's compare jobs, a command's tries */
		assert_int_equal(fl_job_kind_follows(NULL, i), i == FL_JOB_COMPARE || i == FL_JOB_TRY);
		from.kind = (char *)names[i];
		for (int to = 0; to < FL_JOB_NKINDS; to++)
			assert_int_equal(fl_job_kind_follows(&from, to),
					 strstr(next[i], names[to]) != NULL);
	}
	assert_int_equal(fl_job_kind_parse("build", &k), FL_EINVAL);
	assert_string_equal(fl_error_last(),
			    "no job kind 'build' (kinds: compare, bisect, revert, report, try, run)");
	assert_false(fl_job_kind_is("compare", FL_JOB_RUN));
	assert_false(fl_job_kind_is(NULL, FL_JOB_RUN));
}

static void key_is(enum fl_job_kind k, const struct fl_job_spec *s, const char *want)
{
	char *key = fl_job_key(k, s);

	assert_string_equal(key, want);
	free(key);
}

/* The keys stores in the field have (trigger.c, detect.c, autobisect.c,
 * revert.c and measure.c built them before the table did). */
static void test_keys(void **state)
{
	struct fl_job compare = {.id = 12,
				 .kind = "compare",
				 .benchmark = "page_fault2",
				 .machine = "numa2",
				 .tag_id = 7};
	struct fl_job bisect = {.id = 13, .kind = "bisect", .regression_id = 3};
	struct fl_job revert = {.id = 14, .kind = "revert", .regression_id = 3};
	const char *sha = "0123456789abcdef0123456789abcdef01234567";

	(void)state;
	key_is(FL_JOB_COMPARE,
	       &(struct fl_job_spec){.tag_id = 7, .benchmark = "page_fault2", .machine = "numa2"},
	       "compare:7:page_fault2:numa2");
	key_is(FL_JOB_BISECT, &(struct fl_job_spec){.from = &compare, .regression_id = 3},
	       "bisect:3");
	key_is(FL_JOB_REVERT, &(struct fl_job_spec){.from = &bisect}, "revert:3");
	key_is(FL_JOB_REPORT, &(struct fl_job_spec){.from = &bisect}, "report:3");
	key_is(FL_JOB_REPORT, &(struct fl_job_spec){.regression_id = 3}, "report:3");
	key_is(FL_JOB_RUN, &(struct fl_job_spec){.from = &compare, .seq = 5, .round = 2},
	       "run:compare:12:5");
	key_is(FL_JOB_RUN, &(struct fl_job_spec){.from = &revert, .seq = 0}, "run:revert:14:0");
	key_is(FL_JOB_TRY, &(struct fl_job_spec){.try_id = 9}, "try:9");
	key_is(FL_JOB_RUN,
	       &(struct fl_job_spec){.from = &bisect, .seq = 6, .rev = sha, .bisection_id = 4},
	       "run:bisection:4:6:0123456789abcdef0123456789abcdef01234567");
}

/* A tree, a tag and its baseline on two commits. */
static int64_t make_tag(fl_store *st, const char *tag)
{
	struct fl_commit_info base = {"1111111111111111111111111111111111111111", "base", "A", 1};
	struct fl_commit_info tip = {"2222222222222222222222222222222222222222", "tip", "A", 2};
	struct fl_watch_tag_new w = {.tag = tag, .baseline = "v0", .state = "scheduled"};
	int64_t id;

	assert_int_equal(fl_store_tree_ensure(st, "t", "/src", &w.tree_id), 0);
	assert_int_equal(fl_store_commit_ensure(st, w.tree_id, &base, &w.baseline_commit), 0);
	assert_int_equal(fl_store_commit_ensure(st, w.tree_id, &tip, &w.commit_id), 0);
	assert_int_equal(fl_store_watch_tag_add(st, &w, &id), 0);
	return id;
}

static void test_enqueue(void **state)
{
	const char *sha = "1111111111111111111111111111111111111111";
	struct fl_job compare, bisect, run;
	int64_t tag, id, again, reg, bid, rid, machine;
	char path[128];
	fl_store *st;

	(void)state;
	snprintf(path, sizeof(path), "%s/enqueue.db", dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), 0), 0);
	tag = make_tag(st, "v1");
	assert_int_equal(
	    fl_service_enqueue(
		st, FL_JOB_COMPARE,
		&(struct fl_job_spec){.tree = "t", .machine = "m", .benchmark = "b", .tag_id = tag},
		&id),
	    0);
	assert_int_equal(
	    fl_service_enqueue(
		st, FL_JOB_COMPARE,
		&(struct fl_job_spec){.tree = "t", .machine = "m", .benchmark = "b", .tag_id = tag},
		&again),
	    0);
	assert_int_equal(again, id);
	assert_int_equal(fl_store_job_get(st, id, &compare), 0);
	assert_string_equal(compare.kind, "compare");
	assert_int_equal(compare.tag_id, tag);
	assert_int_equal(compare.regression_id, 0);

	/* only the pipeline's order: no revert straight after a comparison */
	assert_int_equal(
	    fl_service_enqueue(st, FL_JOB_REVERT, &(struct fl_job_spec){.from = &compare}, &again),
	    FL_EINVAL);
	assert_string_equal(fl_error_last(), "a revert job does not come after compare");
	assert_int_equal(fl_service_enqueue(st, FL_JOB_BISECT, &(struct fl_job_spec){0}, &again),
			 FL_EINVAL);
	assert_string_equal(fl_error_last(), "a bisect job does not come after the trigger");

	/* a regression of the comparison and its bisect job, which inherits the rest */
	assert_int_equal(fl_store_machine_ensure(st, "m", "command", &machine), 0);
	assert_int_equal(
	    fl_store_regression_add(
		st,
		&(struct fl_regression_new){id, 1, 1, 2, machine, "b", "value", "", 1, -10, 0.01, NULL},
		&reg),
	    0);
	assert_int_equal(
	    fl_service_enqueue(st, FL_JOB_BISECT,
			       &(struct fl_job_spec){.from = &compare, .regression_id = reg}, &bid),
	    0);
	assert_int_equal(fl_service_job_find(st, FL_JOB_BISECT,
					     &(struct fl_job_spec){.regression_id = reg}, &bisect),
			 0);
	assert_int_equal(bisect.id, bid);
	assert_string_equal(bisect.tree, "t");
	assert_string_equal(bisect.machine, "m");
	assert_string_equal(bisect.benchmark, "b");
	assert_int_equal(bisect.regression_id, reg);
	assert_int_equal(bisect.tag_id, 0);
	assert_int_equal(bisect.parent_id, 0);
	assert_int_equal(fl_service_job_find(st, FL_JOB_REVERT,
					     &(struct fl_job_spec){.regression_id = reg}, &run),
			 FL_ENOTFOUND);

	/* a bisection step's run: a child, no round, about its parent only */
	assert_int_equal(
	    fl_service_enqueue(
		st, FL_JOB_RUN,
		&(struct fl_job_spec){
		    .from = &bisect, .rev = sha, .role = "bisect", .seq = 2, .bisection_id = 9},
		&rid),
	    0);
	assert_int_equal(fl_store_job_get(st, rid, &run), 0);
	assert_string_equal(run.key, "run:bisection:9:2:1111111111111111111111111111111111111111");
	assert_int_equal(run.parent_id, bid);
	assert_int_equal(run.round, FL_JOB_NO_ROUND);
	assert_int_equal(run.regression_id, 0);
	assert_int_equal(run.tag_id, 0);
	assert_string_equal(run.machine, "m");
	fl_job_release(&run);

	/* the store takes no kind the service has not registered */
	assert_int_not_equal(
	    fl_store_job_add(st,
			     &(struct fl_job_new){.kind = "build", .state = "queued", .key = "b:1"},
			     &again, NULL),
	    0);
	fl_job_release(&bisect);
	fl_job_release(&compare);
	fl_store_free(st);
}

static void test_words(void **state)
{
	static const struct {
		enum fl_cmp_class c;
		const char *name, *word;
		int decides;
	} want[] = {{FL_CMP_REGRESSION, "regression", "worse", 1},
		    {FL_CMP_IMPROVEMENT, "improvement", "better", 1},
		    {FL_CMP_SAME, "same", "same", 0},
		    {FL_CMP_UNCLEAR, "unclear", "unclear", 0}};
	enum fl_cmp_class c;

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_string_equal(fl_class_name(want[i].c), want[i].name);
		assert_string_equal(fl_class_word(want[i].c), want[i].word);
		assert_int_equal(fl_class_parse(want[i].name, &c), 0);
		assert_int_equal(c, want[i].c);
		assert_string_equal(fl_class_name_word(want[i].name), want[i].word);
		assert_int_equal(fl_class_decides(want[i].name), want[i].decides);
		assert_string_equal(fl_verdict_word("done", want[i].name), want[i].word);
	}
	assert_int_equal(fl_class_parse("worse", &c), FL_EINVAL);
	assert_string_equal(fl_class_name_word("restores"), "restores");
	assert_false(fl_class_decides("worse"));
	assert_string_equal(fl_verdict_word("queued", NULL), "running");
	assert_string_equal(fl_verdict_word("waiting", NULL), "running");
	assert_string_equal(fl_verdict_word("running", NULL), "running");
	assert_string_equal(fl_verdict_word("failed", "regression"), "failed");
	assert_string_equal(fl_verdict_word("done", NULL), "unclear");
}

/* Run roles and revert verdicts: the names stored in jobs.role, reverts.verdict. */
static void test_roles_and_revert_verdicts(void **state)
{
	static const char *const roles[] = {"base", "new", "bisect", "bad", "revert", "fix"};
	static const char *const verdicts[] = {"restores", "partial", "no-effect", "unclear",
					       "untestable"};
	enum fl_revert_verdict v;

	(void)state;
	assert_int_equal(FL_ROLE_BASE, 0);
	for (int r = FL_ROLE_BASE; r <= FL_ROLE_FIX; r++)
		assert_string_equal(fl_role_name((enum fl_run_role)r), roles[r]);
	for (int i = FL_REVERT_RESTORES; i <= FL_REVERT_UNTESTABLE; i++) {
		assert_string_equal(fl_revert_verdict_name((enum fl_revert_verdict)i), verdicts[i]);
		assert_int_equal(fl_revert_verdict_parse(verdicts[i], &v), 0);
		assert_int_equal(v, i);
	}
	assert_int_equal(fl_revert_verdict_parse("regression", &v), FL_EINVAL);
	assert_int_equal(fl_revert_verdict_parse(NULL, &v), FL_EINVAL);
	for (int i = 0; i < FL_TRY_NVERDICTS; i++) {
		enum fl_try_verdict t;

		assert_int_equal(fl_try_verdict_parse(fl_try_verdict_name(i), &t), 0);
		assert_int_equal(t, i);
	}
	assert_string_equal(fl_try_verdict_words(FL_TRY_WORSE), "makes it worse");
	assert_string_equal(fl_try_verdict_name(FL_TRY_NO_EFFECT), "no-effect");
}

/* A run job's points: the keys stores have, a cgroup context after the
 * count, lists, and the benchmark narrowed to them. */
static void test_points(void **state)
{
	const struct fl_benchmark_conf *b = &cfg->benchmarks[0];
	struct fl_narrow_bench nb;
	struct fl_point_at *v;
	char *key;
	size_t n;

	(void)state;
	key = fl_point_key("threads", 2, NULL);
	assert_string_equal(key, "threads:2");
	free(key);
	key = fl_point_key("threads", 2, "root");
	assert_string_equal(key, "threads:2");
	free(key);
	key = fl_point_key("threads", 2, "child");
	assert_string_equal(key, "threads:2:child");
	free(key);
	assert_null(fl_point_key("", 1, NULL));
	assert_int_equal(fl_points_parse("threads:2,threads:2:child,processes:1:root,threads:2", &v,
					 &n),
			 0);
	assert_int_equal(n, 3);
	assert_true(fl_points_has(v, n, "threads", 2, ""));
	assert_true(fl_points_has(v, n, "threads", 2, "child"));
	assert_true(fl_points_has(v, n, "processes", 1, "root"));
	assert_false(fl_points_has(v, n, "processes", 1, "child"));
	fl_point_bench(b, v, n, &nb);
	assert_int_equal(nb.b.nmodes, 2);
	assert_string_equal(nb.b.modes[0], "threads");
	assert_int_equal(nb.b.ntasks, 2);
	assert_int_equal(nb.b.tasks[1].value, 1);
	assert_int_equal(nb.b.ncgroups, 2);
	assert_string_equal(nb.b.cgroups[0], "root");
	assert_string_equal(nb.b.cgroups[1], "child");
	assert_string_equal(nb.b.name, b->name);
	free(v);
	assert_int_equal(fl_points_parse("threads:2:grandchild", &v, &n), FL_EINVAL);
	assert_string_equal(fl_error_last(),
			    "point 'threads:2:grandchild': no cgroup context 'grandchild' (root, child)");
	assert_int_equal(fl_points_parse("threads", &v, &n), FL_EINVAL);
	assert_int_equal(fl_points_parse("threads:0", &v, &n), FL_EINVAL);
	assert_int_equal(fl_points_parse("threads:2,", &v, &n), FL_EINVAL);
}

/* An ok run of value v measured by run job job. */
static void finish(fl_store *st, int64_t job, int64_t machine, double v)
{
	struct fl_sample s = {"value", "", 1, 0, v, NULL};
	int64_t run;

	assert_int_equal(
	    fl_store_run_create(
		st, &(struct fl_run_info){.machine_id = machine, .benchmark = "b", .job_id = job},
		&run),
	    0);
	assert_int_equal(fl_store_samples_add(st, run, &s, 1), 0);
	assert_int_equal(fl_store_run_finish(st, run, "ok", ""), 0);
	assert_int_equal(fl_store_job_run_done(st, job, "done", "ok", run, NULL), 0);
}

static void step(fl_store *st, int64_t id)
{
	struct fl_service svc;
	struct fl_job job;

	fl_service_init(&svc, cfg);
	assert_int_equal(fl_store_job_get(st, id, &job), 0);
	assert_int_equal(fl_detect_step(&svc, st, &job), 0);
	fl_job_release(&job);
	fl_service_release(&svc);
}

/* The run jobs of job from the from-th on end ok, with noisy values. */
static void finish_runs(fl_store *st, int64_t job, size_t from, int64_t machine)
{
	/* noisy enough that a few runs a side decide nothing */
	static const double v[] = {100, 140, 121, 92, 133, 104, 97, 128, 115, 109};
	struct fl_job *kids;
	size_t n;

	assert_int_equal(fl_store_jobs_children(st, job, &kids, &n), 0);
	for (size_t i = from; i < n; i++)
		finish(st, kids[i].id, machine, v[i % 10]);
	fl_jobs_free(kids, n);
}

/* The run jobs of job as round:seq:role, in seq order. */
static void runs_of(int64_t job, char *buf, size_t size)
{
	char q[256];

	snprintf(q, sizeof(q),
		 "SELECT group_concat(round || ':' || seq || ':' || role) FROM (SELECT * FROM "
		 "jobs WHERE parent_id = %lld AND key = 'run:compare:' || parent_id || ':' || seq "
		 "ORDER BY seq)",
		 (long long)job);
	fl_test_sql_text(db, q, buf, size);
}

static void test_rounds_kept(void **state)
{
	char buf[256];
	int64_t tag, id, machine;
	fl_store *st;

	(void)state;
	FL_TEST_SQLITE_ONLY();
	assert_int_equal(load(2), 0);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	assert_int_equal(fl_store_machine_ensure(st, "m", "command", &machine), 0);
	tag = make_tag(st, "v1");
	assert_int_equal(
	    fl_service_enqueue(
		st, FL_JOB_COMPARE,
		&(struct fl_job_spec){.tree = "t", .machine = "m", .benchmark = "b", .tag_id = tag},
		&id),
	    0);
	step(st, id); /* round 0: repeat 2, base and new */
	runs_of(id, buf, sizeof(buf));
	assert_string_equal(buf, "0:0:base,0:1:new,0:2:base,0:3:new");
	finish_runs(st, id, 0, machine);

	/* repeat edited while the job waits: the next round is 3 a side */
	assert_int_equal(load(3), 0);
	step(st, id);
	runs_of(id, buf, sizeof(buf));
	assert_string_equal(buf, "0:0:base,0:1:new,0:2:base,0:3:new,1:4:base,1:5:new,1:6:base,"
				 "1:7:new,1:8:base,1:9:new");

	/* back to 2: round 2 has 2 a side, the rounds before stay as they are */
	finish_runs(st, id, 4, machine);
	assert_int_equal(load(2), 0);
	step(st, id);
	runs_of(id, buf, sizeof(buf));
	assert_string_equal(buf, "0:0:base,0:1:new,0:2:base,0:3:new,1:4:base,1:5:new,1:6:base,"
				 "1:7:new,1:8:base,1:9:new,2:10:base,2:11:new,2:12:base,2:13:new");
	fl_store_free(st);
}

/* A schema-9 store with a comparison of three rounds (repeat 1), a revert
 * check of two and a bisection's runs; the service numbers them at its start. */
static void test_legacy_rounds(void **state)
{
	char path[128], buf[128];
	fl_store *st;

	(void)state;
	FL_TEST_SQLITE_ONLY();
	snprintf(path, sizeof(path), "%s/legacy.db", dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), FL_STORE_NO_MIGRATE), 0);
	assert_int_equal(fl_store_migrate(st, 9, NULL), 0);
	assert_int_equal(make_tag(st, "v1"), 1);
	fl_store_free(st);
	assert_int_equal(
	    fl_test_sql_exec(
		path,
		"INSERT INTO jobs(id, kind, key, benchmark, ref_id) VALUES (1, 'compare', "
		"'compare:1:b:m', 'b', 1), (2, 'bisect', 'bisect:1', 'b', 1), (3, 'revert', "
		"'revert:1', 'b', 1);"
		"WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < 5) "
		"INSERT INTO jobs(kind, key, parent_id, benchmark, role, seq, ref_id) SELECT "
		"'run', 'run:compare:1:' || n, 1, 'b', CASE n % 2 WHEN 0 THEN 'base' ELSE 'new' "
		"END, n, 1 FROM s UNION ALL SELECT 'run', 'run:revert:3:' || n, 3, 'b', CASE n % 3 "
		"WHEN 0 THEN 'base' WHEN 1 THEN 'bad' ELSE 'revert' END, n, 1 FROM s UNION ALL "
		"SELECT 'run', 'run:bisection:1:' || n || ':x', 2, 'b', 'bisect', n, 1 FROM s"),
	    0);
	assert_int_equal(load(1), 0);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), 0), 0);
	assert_int_equal(fl_pipeline_prepare(st, cfg), 0);
	fl_store_free(st);
	fl_test_sql_text(path,
			 "SELECT group_concat(coalesce(round, '-')) FROM (SELECT round FROM jobs "
			 "WHERE parent_id IS NOT NULL ORDER BY parent_id, seq)",
			 buf, sizeof(buf));
	assert_string_equal(buf, "0,0,1,1,2,2,-,-,-,-,-,-,0,0,0,1,1,1");
	/* numbered once: a later start with another repeat changes nothing */
	assert_int_equal(load(3), 0);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), 0), 0);
	assert_int_equal(fl_pipeline_prepare(st, cfg), 0);
	fl_store_free(st);
	assert_int_equal(fl_test_sql_int(path, "SELECT sum(round) FROM jobs"), 9);
}

/* Which runs trace lock contention: all but bisection steps. */
static void test_roles_trace_locks(void **state)
{
	(void)state;
	assert_true(fl_role_traces_locks(fl_role_name(FL_ROLE_BASE)));
	assert_true(fl_role_traces_locks(fl_role_name(FL_ROLE_NEW)));
	assert_true(fl_role_traces_locks(fl_role_name(FL_ROLE_BAD)));
	assert_true(fl_role_traces_locks(fl_role_name(FL_ROLE_REVERT)));
	assert_true(fl_role_traces_locks(fl_role_name(FL_ROLE_FIX)));
	assert_false(fl_role_traces_locks(fl_role_name(FL_ROLE_BISECT)));
	assert_true(fl_role_traces_locks(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_keys),
	    cmocka_unit_test(test_enqueue),
	    cmocka_unit_test(test_words),
	    cmocka_unit_test(test_rounds_kept),
	    cmocka_unit_test(test_legacy_rounds),
	    cmocka_unit_test(test_roles_and_revert_verdicts),
	    cmocka_unit_test(test_roles_trace_locks),
	    cmocka_unit_test(test_points),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
