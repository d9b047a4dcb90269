/*
 * test_store.c - the SQLite store: migrations on open, reopening keeps the
 * data, a failed multi-row write leaves nothing behind; a version-9 store
 * with a job of every kind migrates to what jobs are about as foreign keys
 * (migration 10), and the keys hold afterwards, and to whether each job has
 * ended (migration 20); processes that open a new
 * store at the same moment all migrate it, each migration once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/error.h"
#include "testlib.h"
#include "store/bisect.h"
#include "store/jobs.h"
#include "store/sql.h"
#include "store/store.h"
#include "store/watch.h"

static char dir[64], db[96];

/* A full sha of one repeated digit. */
#define WANT_SHA(d) d d d d d d d d d d d d d d d d d d d d d d d d d d d d d d d d d d d d d d d d

static int setup(void **state)
{
	(void)state;
	if (fl_test_tmpdir(dir, sizeof(dir), "store"))
		return -1;
	snprintf(db, sizeof(db), "%s/sub/dir/fl.db", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return fl_test_rmtree(dir);
}

static const char *sha(char c)
{
	static char buf[41];

	memset(buf, c, 40);
	buf[40] = '\0';
	return buf;
}

/* A run with one commit, one machine, ready for samples. */
static int64_t make_run(fl_store *st)
{
	struct fl_commit_info c = {sha('a'), "mm: do things", "A U Thor <a@u.th>", 1700000000};
	struct fl_run_info r = {0};
	int64_t tree, commit, machine, run;

	assert_int_equal(fl_store_tree_ensure(st, "mainline", "/srv/linux", &tree), 0);
	assert_int_equal(fl_store_commit_ensure(st, tree, &c, &commit), 0);
	assert_int_equal(fl_store_machine_ensure(st, "numa2", "libvirt", &machine), 0);
	r.machine_id = machine;
	r.benchmark = "page_fault2";
	r.params = "{\"tasks\":[1,2]}";
	assert_int_equal(fl_store_run_create(st, &r, &run), 0);
	return run;
}

static void test_migrations_on_open(void **state)
{
	fl_store *st;
	int from;

	(void)state;
	assert_int_equal(fl_store_open(&st, fl_test_store(db), FL_STORE_NO_MIGRATE), 0);
	assert_int_equal(fl_store_version(st), 0);
	assert_int_equal(fl_store_migrate(st, 0, &from), 0);
	assert_int_equal(from, 0);
	assert_int_equal(fl_store_version(st), fl_store_latest_version());
	/* Migrating again is a no-op. */
	assert_int_equal(fl_store_migrate(st, 0, &from), 0);
	assert_int_equal(from, fl_store_latest_version());
	fl_store_free(st);
}

static void test_newer_schema_refused(void **state)
{
	fl_store *st;
	sqlite3 *raw;
	char want[256];

	(void)state;
	FL_TEST_SQLITE_ONLY();
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	fl_store_free(st);
	assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
	assert_int_equal(sqlite3_exec(raw, "PRAGMA user_version = 999", NULL, NULL, NULL), 0);
	sqlite3_close(raw);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), FL_EVERSION);
	assert_null(st);
	snprintf(want, sizeof(want), "store %s has schema version 999; this faultline knows up to %d",
		 db, fl_store_latest_version());
	assert_string_equal(fl_error_last(), want);
	unlink(db);
}

static void test_reopen_keeps_data(void **state)
{
	struct fl_sample s[3] = {
		{"ops_per_sec", "threads", 1, 0, 250000.0, NULL},
		{"ops_per_sec", "threads", 1, 1, 251000.0, NULL},
		{"ops_per_sec", "threads", 2, 0, 480000.0, NULL},
	};
	fl_store *st;
	int64_t run, tree;
	size_t n;
	char *status;

	(void)state;
	unlink(db);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	run = make_run(st);
	assert_int_equal(fl_store_samples_add(st, run, s, 3), 0);
	assert_int_equal(fl_store_run_finish(st, run, "ok", "console text"), 0);
	fl_store_free(st);

	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	assert_int_equal(fl_store_samples_count(st, run, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(fl_store_run_status(st, run, &status), 0);
	assert_string_equal(status, "ok");
	free(status);
	/* ensure finds the existing row instead of adding one */
	assert_int_equal(fl_store_tree_ensure(st, "mainline", "/srv/linux", &tree), 0);
	assert_int_equal(tree, 1);
	fl_store_free(st);

	assert_int_equal(fl_store_open(&st, fl_test_store(db), FL_STORE_READONLY), 0);
	assert_int_equal(fl_store_samples_count(st, run, &n), 0);
	assert_int_equal(n, 3);
	fl_store_free(st);
}

static void test_failed_write_rolls_back(void **state)
{
	/* The third sample repeats the first one's key: the whole batch must go. */
	struct fl_sample s[3] = {
		{"ops_per_sec", "processes", 1, 0, 1.0, NULL},
		{"ops_per_sec", "processes", 1, 1, 2.0, NULL},
		{"ops_per_sec", "processes", 1, 0, 3.0, NULL},
	};
	struct fl_sample bad_tasks = {"ops_per_sec", "processes", 0, 5, 1.0, NULL};
	fl_store *st;
	int64_t run;
	size_t n;

	(void)state;
	unlink(db);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	run = make_run(st);
	assert_int_equal(fl_store_samples_add(st, run, s, 3), FL_ESTORE);
	assert_non_null(strstr(fl_error_last(), "sample 3 of 3"));
	assert_true(strstr(fl_error_last(), "UNIQUE constraint failed") ||
		    strstr(fl_error_last(), "duplicate key value violates unique constraint"));
	assert_int_equal(fl_store_samples_count(st, run, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(fl_store_samples_add(st, run, &bad_tasks, 1), FL_ESTORE);
	/* What was stored before a failure survives it. */
	assert_int_equal(fl_store_samples_add(st, run, s, 2), 0);
	assert_int_equal(fl_store_samples_add(st, run, s + 2, 1), FL_ESTORE);
	assert_int_equal(fl_store_samples_count(st, run, &n), 0);
	assert_int_equal(n, 2);
	/* A sample for a run that does not exist violates the foreign key. */
	assert_int_equal(fl_store_samples_add(st, run + 100, s, 1), FL_ESTORE);
	assert_int_equal(fl_store_run_finish(st, run + 100, "ok", ""), FL_ENOTFOUND);
	assert_int_equal(fl_store_run_finish(st, run, "exploded", ""), FL_ESTORE);
	fl_store_free(st);
}

/* SQL on the file with foreign keys on, as the store runs it: SQLITE_OK or the error. */
static int exec_fk(const char *path, const char *sql)
{
	sqlite3 *h;
	int rc;

	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	rc = sqlite3_exec(h, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(h, sql, NULL, NULL, NULL);
	sqlite3_close(h);
	return rc;
}

static void test_migration_10(void **state)
{
	char path[128], buf[512];
	struct fl_job j;
	fl_store *st;
	int from;

	(void)state;
	FL_TEST_SQLITE_ONLY();
	snprintf(path, sizeof(path), "%s/v9.db", dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), FL_STORE_NO_MIGRATE), 0);
	assert_int_equal(fl_store_migrate(st, 9, NULL), 0);
	fl_store_free(st);
	/* a tag compared, its regression bisected, reverted and reported, each
	 * with its runs, and a compare job whose tag is not there */
	assert_int_equal(
	    exec_fk(
		path,
		"INSERT INTO trees(id, name, url) VALUES (1, 't', '/t');"
		"INSERT INTO commits(id, tree_id, sha) VALUES (1, 1, '" WANT_SHA(
		    "1") "'), "
			 "(2, 1, '" WANT_SHA(
			     "2") "');"
				  "INSERT INTO machines(id, name, backend) VALUES (1, 'm', "
				  "'command');"
				  "INSERT INTO watch_tags(id, tree_id, tag, commit_id, baseline, "
				  "baseline_commit, state) VALUES (5, 1, 'v2', 2, 'v1', 1, "
				  "'scheduled');"
				  "INSERT INTO jobs(id, kind, key, state, result, ref_id) VALUES "
				  "(1, 'compare', "
				  "'compare:5:b:m', 'done', 'regression', 5);"
				  "INSERT INTO regressions(id, tree_id, good_commit, bad_commit, "
				  "benchmark, "
				  "machine_id, metric, tasks, change, job_id) VALUES (7, 1, 1, 2, "
				  "'b', 1, 'value', "
				  "1, 30, 1);"
				  "INSERT INTO jobs(id, kind, key, parent_id, role, seq, ref_id, "
				  "state, point) "
				  "VALUES (2, 'run', 'run:compare:1:0', 1, 'base', 0, 5, 'done', "
				  "NULL), "
				  "(3, 'bisect', 'bisect:7', NULL, '', 0, 7, 'done', NULL), "
				  "(4, 'run', 'run:bisection:1:0:x', 3, 'bisect', 0, 7, 'done', "
				  "':1'), "
				  "(5, 'revert', 'revert:7', NULL, '', 0, 7, 'waiting', NULL), "
				  "(6, 'run', 'run:revert:5:0', 5, 'revert', 0, 7, 'queued', "
				  "':1'), "
				  "(7, 'report', 'report:7', NULL, '', 0, 7, 'queued', NULL), "
				  "(8, 'compare', 'compare:99:b:m', NULL, '', 0, 99, 'queued', "
				  "NULL);"
				  "INSERT INTO runs(id, machine_id, benchmark, status, job_id) "
				  "VALUES (1, 1, 'b', "
				  "'ok', 2);"
				  "UPDATE jobs SET run_id = 1 WHERE id = 2;"
				  "INSERT INTO comparisons(job_id, what, base_commit, new_commit, "
				  "benchmark, "
				  "machine_id, metric, tasks, base_runs, new_runs, verdict, class) "
				  "VALUES (1, "
				  "'tag', 1, 2, 'b', 1, 'value', 1, 1, 1, 'unknown', 'unclear');"),
	    SQLITE_OK);

	assert_int_equal(fl_store_open(&st, fl_test_store(path), 0), 0);
	assert_int_equal(fl_store_version(st), fl_store_latest_version());
	assert_int_equal(fl_store_job_get(st, 3, &j), 0);
	assert_string_equal(j.key, "bisect:7");
	assert_int_equal(j.regression_id, 7);
	assert_int_equal(j.tag_id, 0);
	fl_job_release(&j);
	fl_store_free(st);
	fl_test_sql_text(
	    path,
	    "SELECT group_concat(id || ':' || kind || ':' || coalesce(tag_id, '-') || "
	    "':' || coalesce(regression_id, '-') || ':' || coalesce(parent_id, '-') || "
	    "':' || coalesce(round, '-') || ':' || state) FROM (SELECT * FROM jobs "
	    "ORDER BY id)",
	    buf, sizeof(buf));
	assert_string_equal(buf, "1:compare:5:-:-:-:done,2:run:-:-:1:-:done,3:bisect:-:7:-:-:done,"
				 "4:run:-:-:3:-:done,5:revert:-:7:-:-:waiting,"
				 "6:run:-:-:5:-:queued,7:report:-:7:-:-:queued,"
				 "8:compare:-:-:-:-:queued");
	/* whether each job has ended, from the words of the time (migration 20),
	 * and the partial indexes of live jobs on that */
	fl_test_sql_text(path,
			 "SELECT group_concat(id || ':' || ended) FROM (SELECT id, ended FROM jobs "
			 "ORDER BY id)",
			 buf, sizeof(buf));
	assert_string_equal(buf, "1:1,2:1,3:1,4:1,5:0,6:0,7:0,8:0");
	assert_int_equal(fl_test_sql_int(path, "SELECT count(*) FROM sqlite_master WHERE name IN "
					       "('jobs_live', 'jobs_by_worker') AND sql LIKE "
					       "'%WHERE ended = 0'"),
			 2);
	fl_test_sql_text(path,
			 "SELECT group_concat(name) FROM (SELECT name FROM job_kinds "
			 "ORDER BY name)",
			 buf, sizeof(buf));
	assert_string_equal(buf, "bisect,compare,report,revert,run");
	/* what pointed at the jobs still does, and every key holds */
	assert_int_equal(fl_test_sql_int(path, "SELECT count(*) FROM runs r JOIN jobs j ON "
					       "j.id = r.job_id AND j.run_id = r.id"),
			 1);
	assert_int_equal(fl_test_sql_int(path, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	assert_int_equal(fl_test_sql_int(path, "SELECT count(*) FROM sqlite_master WHERE name = "
					       "'jobs' AND sql LIKE '%kind IN%'"),
			 0);
	assert_int_equal(fl_test_sql_int(path, "SELECT count(*) FROM pragma_index_list('jobs') "
					       "WHERE name IN ('jobs_by_state', 'jobs_by_parent', "
					       "'jobs_live', 'jobs_by_tag', 'jobs_by_regression')"),
			 5);
	assert_int_equal(exec_fk(path, "INSERT INTO jobs(kind, key) VALUES ('build', 'x')"),
			 SQLITE_CONSTRAINT);
	assert_int_equal(exec_fk(path, "UPDATE jobs SET tag_id = 6 WHERE id = 1"),
			 SQLITE_CONSTRAINT);
	assert_int_equal(exec_fk(path, "UPDATE jobs SET regression_id = 8 WHERE id = 3"),
			 SQLITE_CONSTRAINT);
	assert_int_equal(exec_fk(path, "DELETE FROM watch_tags WHERE id = 5"), SQLITE_CONSTRAINT);
	assert_int_equal(exec_fk(path, "DELETE FROM jobs WHERE id = 2"), SQLITE_CONSTRAINT);
	assert_int_equal(exec_fk(path, "DELETE FROM job_kinds WHERE name = 'run'"),
			 SQLITE_CONSTRAINT);
	assert_int_equal(exec_fk(path, "UPDATE jobs SET round = -1 WHERE id = 2"),
			 SQLITE_CONSTRAINT);
	assert_int_equal(exec_fk(path, "UPDATE jobs SET round = 0 WHERE id = 2"), SQLITE_OK);

	/* a migration that would leave a key pointing nowhere is not applied */
	snprintf(path, sizeof(path), "%s/v9-broken.db", dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), FL_STORE_NO_MIGRATE), 0);
	assert_int_equal(fl_store_migrate(st, 9, NULL), 0);
	fl_store_free(st);
	assert_int_equal(fl_test_sql_exec(path, "INSERT INTO jobs(id, kind, key, parent_id) VALUES "
						"(1, 'run', 'run:x', 42)"),
			 0);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), FL_STORE_NO_MIGRATE), 0);
	assert_int_equal(fl_store_migrate(st, 0, &from), FL_ESTORE);
	assert_non_null(strstr(fl_error_last(), "migration to version 10"));
	assert_non_null(strstr(fl_error_last(), "jobs row 1 points at no row of jobs"));
	assert_int_equal(fl_store_version(st), 9);
	fl_store_free(st);
}

/*
 * Migration 11: samples, evidence points and comparisons of a version-10
 * store keep their rows and ids, in the root context (''), the evidence's
 * vmstat still points at its point; regressions gain the column; the same
 * point may then be stored in a child cgroup too, and twice in one context
 * still may not.
 */
static void test_migration_11(void **state)
{
	char path[128], buf[256];
	fl_store *st;

	(void)state;
	FL_TEST_SQLITE_ONLY();
	snprintf(path, sizeof(path), "%s/v10.db", dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), FL_STORE_NO_MIGRATE), 0);
	assert_int_equal(fl_store_migrate(st, 10, NULL), 0);
	fl_store_free(st);
	assert_int_equal(
	    exec_fk(path,
		    "INSERT INTO trees(id, name, url) VALUES (1, 't', '/t');"
		    "INSERT INTO commits(id, tree_id, sha) VALUES (1, 1, '" WANT_SHA(
			"1") "'), (2, 1, '" WANT_SHA("2") "');"
		    "INSERT INTO machines(id, name, backend) VALUES (1, 'm', 'libvirt');"
		    "INSERT INTO runs(id, machine_id, benchmark, status) VALUES (3, 1, 'b', 'ok');"
		    "INSERT INTO samples(id, run_id, metric, mode, tasks, seq, value) VALUES "
		    "(40, 3, 'per_thread_ops', 'threads', 2, 0, 5.5), "
		    "(41, 3, 'per_thread_ops', 'threads', 2, 1, 6.5);"
		    "INSERT INTO evidence_points(id, run_id, test, mode, tasks, measured_s) "
		    "VALUES (9, 3, 'page_fault2', 'threads', 2, 3.0);"
		    "INSERT INTO evidence_vmstat(point_id, name, delta, per_sec) VALUES "
		    "(9, 'pgfault', 30, 10);"
		    "INSERT INTO job_kinds(name) VALUES ('compare');"
		    "INSERT INTO jobs(id, kind, key, state) VALUES (1, 'compare', 'c', 'done');"
		    "INSERT INTO comparisons(id, job_id, what, base_commit, new_commit, "
		    "benchmark, machine_id, metric, mode, tasks, base_runs, new_runs, verdict, "
		    "class) VALUES (12, 1, 'tag', 1, 2, 'b', 1, 'per_thread_ops', 'threads', 2, "
		    "4, 4, 'different', 'regression');"
		    "INSERT INTO regressions(id, tree_id, good_commit, bad_commit, benchmark, "
		    "machine_id, metric, mode, tasks, change, job_id) VALUES (7, 1, 1, 2, 'b', 1, "
		    "'per_thread_ops', 'threads', 2, -50, 1);"),
	    SQLITE_OK);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), 0), 0);
	fl_store_free(st);
	fl_test_sql_text(path,
			 "SELECT group_concat(id || ':' || quote(cgroup)) FROM (SELECT id, cgroup "
			 "FROM samples UNION ALL SELECT id, cgroup FROM evidence_points UNION ALL "
			 "SELECT id, cgroup FROM comparisons UNION ALL SELECT id, cgroup FROM "
			 "regressions ORDER BY id)",
			 buf, sizeof(buf));
	assert_string_equal(buf, "7:'',9:'',12:'',40:'',41:''");
	assert_int_equal(fl_test_sql_int(path, "SELECT count(*) FROM evidence_vmstat v JOIN "
					       "evidence_points p ON p.id = v.point_id AND "
					       "p.run_id = 3"),
			 1);
	assert_int_equal(fl_test_sql_int(path, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	assert_int_equal(fl_test_sql_int(path, "SELECT count(*) FROM pragma_index_list('samples') "
					       "WHERE name = 'samples_by_run'"),
			 1);
	assert_int_equal(exec_fk(path, "INSERT INTO samples(run_id, metric, mode, tasks, cgroup, "
				       "seq, value) VALUES (3, 'per_thread_ops', 'threads', 2, "
				       "'child', 0, 9.5)"),
			 SQLITE_OK);
	assert_int_equal(exec_fk(path, "INSERT INTO samples(run_id, metric, mode, tasks, seq, "
				       "value) VALUES (3, 'per_thread_ops', 'threads', 2, 0, 9.5)"),
			 SQLITE_CONSTRAINT);
	assert_int_equal(exec_fk(path, "INSERT INTO evidence_points(run_id, test, mode, tasks, "
				       "cgroup) VALUES (3, 'page_fault2', 'threads', 2, 'child')"),
			 SQLITE_OK);
	assert_int_equal(exec_fk(path, "INSERT INTO comparisons(job_id, what, base_commit, "
				       "new_commit, benchmark, machine_id, metric, mode, tasks, "
				       "cgroup, base_runs, new_runs, verdict, class) VALUES (1, "
				       "'tag', 1, 2, 'b', 1, 'per_thread_ops', 'threads', 2, "
				       "'child', 4, 4, 'same', 'same')"),
			 SQLITE_OK);
	assert_int_equal(exec_fk(path, "DELETE FROM runs WHERE id = 3"), SQLITE_OK);
	assert_int_equal(fl_test_sql_int(path, "SELECT count(*) FROM samples"), 0);
	assert_int_equal(fl_test_sql_int(path, "SELECT count(*) FROM evidence_vmstat"), 0);
}

/* Migration 13 on a store with a bisection from before: its steps read
 * back without a branch, and a bisection without options is resumed by one
 * without options only (the service's), not by "bisect run"'s. */
static int branch_of_step(void *ctx, const struct fl_bisect_step_rec *r)
{
	*(int *)ctx = r->branch == NULL && r->n == 2;
	return 0;
}

static void test_migration_13(void **state)
{
	char path[128];
	int64_t id, other;
	int resumed, ok = 0;
	fl_store *st;

	(void)state;
	FL_TEST_SQLITE_ONLY();
	snprintf(path, sizeof(path), "%s/v12.db", dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), FL_STORE_NO_MIGRATE), 0);
	assert_int_equal(fl_store_migrate(st, 12, NULL), 0);
	fl_store_free(st);
	assert_int_equal(exec_fk(path, "INSERT INTO bisections(id, good, bad) VALUES (3, 'g', 'b');"
				       "INSERT INTO bisect_steps(bisection_id, seq, commit_sha, "
				       "status, samples) VALUES (3, 0, 'g', 'ok', '[1,2]');"),
			 SQLITE_OK);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), 0), 0);
	assert_int_equal(fl_store_bisect_steps_each(st, 3, branch_of_step, &ok), 0);
	assert_true(ok);
	assert_int_equal(fl_store_bisection_open(st, "g", "b", "{}", &id, &resumed, &other), 0);
	assert_true(!resumed && other == 3 && id != 3);
	assert_int_equal(fl_store_bisection_open(st, "g", "b", NULL, &id, &resumed, &other), 0);
	assert_true(resumed && id == 3);
	fl_store_free(st);
}

/* The details of a statement's query plan, each followed by " / ". */
static void plan_of(const char *path, const char *sql, char *out, size_t n)
{
	char eqp[1024];
	sqlite3 *h;
	sqlite3_stmt *s;
	size_t len = 0;

	out[0] = '\0';
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	snprintf(eqp, sizeof(eqp), "EXPLAIN QUERY PLAN %s", sql);
	assert_int_equal(sqlite3_prepare_v2(h, eqp, -1, &s, NULL), SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW && len + 1 < n)
		len += (size_t)snprintf(out + len, n - len, "%s / ", sqlite3_column_text(s, 3));
	sqlite3_finalize(s);
	sqlite3_close(h);
}

/* Migration 14: runs_by_job covers the runs that have a job only, and a
 * join from jobs to their runs still uses it after ANALYZE has seen that
 * most runs have none. (On bench/web's store, with the NULLs in the index,
 * SQLite built an automatic index on runs at every bisection page: bench/web
 * shows the time; this checks the index and that it stays usable.) */
static void test_runs_by_job_planned(void **state)
{
	char path[128], plan[2048];
	fl_store *st;

	(void)state;
	FL_TEST_SQLITE_ONLY();
	snprintf(path, sizeof(path), "%s/plan.db", dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), 0), 0);
	fl_store_free(st);
	assert_int_equal(
	    exec_fk(path,
		    "INSERT INTO machines(id, name, backend) VALUES (1, 'm', 'command');"
		    "INSERT OR IGNORE INTO job_kinds(name) VALUES ('run');"
		    "INSERT INTO jobs(id, kind, key) VALUES (1, 'run', 'run:1'), (2, 'run', 'run:2');"
		    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) "
		    "INSERT INTO runs(machine_id, benchmark, job_id) SELECT 1, 'b', CASE WHEN i <= 4 "
		    "THEN 1 + i % 2 END FROM n;"
		    "ANALYZE;"),
	    SQLITE_OK);
	plan_of(path,
		"SELECT count(*) FROM jobs j LEFT JOIN runs r ON r.job_id = j.id WHERE j.id IN (1, 2)",
		plan, sizeof(plan));
	assert_non_null(strstr(plan, "runs_by_job"));
	assert_null(strstr(plan, "AUTOMATIC"));
	assert_int_equal(fl_test_sql_int(path, "SELECT partial FROM pragma_index_list('runs') "
					       "WHERE name = 'runs_by_job'"),
			 1);
}

/* Migration 20: with many jobs ended, the queue's statements on live jobs
 * read the partial indexes on jobs.ended (the live list, a gone worker's
 * jobs) and the counts by state the state index, as they did on the words. */
static void test_jobs_planned(void **state)
{
	char path[128], plan[2048];
	fl_store *st;

	(void)state;
	FL_TEST_SQLITE_ONLY();
	snprintf(path, sizeof(path), "%s/jobplan.db", dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), 0), 0);
	fl_store_free(st);
	assert_int_equal(
	    exec_fk(path, "INSERT OR IGNORE INTO job_kinds(name) VALUES ('run');"
			  "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE "
			  "i < 3000) INSERT INTO jobs(kind, key, state, ended, worker) SELECT "
			  "'run', 'run:' || i, CASE WHEN i > 2990 THEN 'queued' ELSE 'done' END, "
			  "i <= 2990, 'w' || (i % 3) FROM n;"
			  "ANALYZE;"),
	    SQLITE_OK);
	plan_of(path, "SELECT id FROM jobs WHERE 1 AND ended = 0 ORDER BY id DESC LIMIT 10", plan,
		sizeof(plan));
	assert_non_null(strstr(plan, "jobs_live"));
	plan_of(path, "UPDATE jobs SET state = ?3 WHERE worker = ?1 AND ended = 0 AND state = ?2",
		plan, sizeof(plan));
	assert_non_null(strstr(plan, "jobs_by_worker"));
	plan_of(path, "SELECT state, count(*) FROM jobs WHERE state IN (?1, ?2, ?3) GROUP BY state",
		plan, sizeof(plan));
	assert_non_null(strstr(plan, "COVERING INDEX jobs_by_state"));
}

/* Migration 15 on a store with a tag from before: the tag stays a tag (the
 * first pass's count of tags sees it), heads of a branch are found newest
 * first, skipped ones too, and the time of the last scheduled one. */
static void test_migration_15(void **state)
{
	struct fl_commit_info c1 = {"1111111111111111111111111111111111111111", "one", "A", 1};
	struct fl_commit_info c2 = {"2222222222222222222222222222222222222222", "two", "A", 2};
	struct fl_watch_tag_new h = {.tag = "mm@111111111111", .state = "skipped", .kind = "head",
				     .ref = "mm"};
	struct fl_watch_head last;
	int64_t tree, id, tested;
	char path[128];
	size_t n;
	int found;
	fl_store *st;

	(void)state;
	FL_TEST_SQLITE_ONLY();
	snprintf(path, sizeof(path), "%s/v14.db", dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), FL_STORE_NO_MIGRATE), 0);
	assert_int_equal(fl_store_migrate(st, 14, NULL), 0);
	fl_store_free(st);
	assert_int_equal(exec_fk(path, "INSERT INTO trees(id, name, url) VALUES (1, 't', '/t');"
				       "INSERT INTO watch_tags(tree_id, tag, state) VALUES "
				       "(1, 'v1', 'skipped');"),
			 SQLITE_OK);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), 0), 0);
	assert_int_equal(fl_test_sql_int(path, "SELECT count(*) FROM watch_tags WHERE kind = 'tag'"),
			 1);
	assert_int_equal(fl_store_tree_ensure(st, "t", "/t", &tree), 0);
	assert_int_equal(tree, 1);
	assert_int_equal(fl_store_watch_head_last(st, tree, "mm", &last, &found, &tested), 0);
	assert_true(!found && !tested);
	h.tree_id = tree;
	assert_int_equal(fl_store_commit_ensure(st, tree, &c1, &h.commit_id), 0);
	assert_int_equal(fl_store_watch_tag_add(st, &h, &id), 0);
	assert_int_equal(fl_store_watch_head_last(st, tree, "mm", &last, &found, &tested), 0);
	assert_true(found && !tested);
	assert_string_equal(last.name, "mm@111111111111");
	assert_string_equal(last.sha, c1.sha);
	fl_watch_head_release(&last);
	h.tag = "mm@222222222222";
	h.state = "scheduled";
	h.baseline = "mm@111111111111";
	h.baseline_commit = h.commit_id;
	assert_int_equal(fl_store_commit_ensure(st, tree, &c2, &h.commit_id), 0);
	assert_int_equal(fl_store_watch_tag_add(st, &h, &id), 0);
	assert_int_equal(fl_store_watch_head_last(st, tree, "mm", &last, &found, &tested), 0);
	assert_true(found && tested > 0);
	assert_string_equal(last.name, "mm@222222222222");
	assert_string_equal(last.state, "scheduled");
	fl_watch_head_release(&last);
	/* another branch has none; heads are not tags */
	assert_int_equal(fl_store_watch_head_last(st, tree, "other", &last, &found, &tested), 0);
	assert_true(!found && !tested);
	assert_int_equal(fl_store_watch_tags_count(st, tree, &n), 0);
	assert_int_equal(n, 1);
	fl_store_free(st);
}

/* Two "faultline run" on a new store: each migration is applied by one of
 * them, the other finds it done (it read the version before waiting for the
 * write lock, and used to apply the migration again). */
static void test_concurrent_migrations(void **state)
{
	enum { NPROC = 6, ROUNDS = 4 };
	char path[128];

	(void)state;
	for (int round = 0; round < ROUNDS; round++) {
		int go[2], failed = 0;
		pid_t pid[NPROC];

		snprintf(path, sizeof(path), "%s/race-%d.db", dir, round);
		fl_test_store(path); /* on PostgreSQL: one database for all, made before */
		assert_int_equal(pipe(go), 0);
		for (int i = 0; i < NPROC; i++) {
			pid[i] = fork();
			assert_true(pid[i] >= 0);
			if (pid[i] == 0) {
				fl_store *st;
				char c;
				int r;

				close(go[1]);
				r = read(go[0], &c, 1) < 0; /* all start when the pipe closes */
				r = r || fl_store_open(&st, fl_test_store(path), 0);
				if (r)
					fprintf(stderr, "child %d: %s\n", i, fl_error_last());
				else
					fl_store_free(st);
				_exit(r);
			}
		}
		close(go[0]);
		close(go[1]);
		for (int i = 0; i < NPROC; i++) {
			int status;

			assert_int_equal(waitpid(pid[i], &status, 0), pid[i]);
			failed += !WIFEXITED(status) || WEXITSTATUS(status);
		}
		assert_int_equal(failed, 0);
		assert_int_equal(fl_test_sql_int(path, fl_test_pg_of(path)
							   ? "SELECT max(version) FROM fl_schema"
							   : "PRAGMA user_version"),
				 fl_store_latest_version());
	}
}

/* A PostgreSQL URL's password never shows in a message (nothing listens on port 1). */
/* What only PostgreSQL has is written in a comment SQLite skips, and taken out of it for PostgreSQL. */
static void test_pg_only_clause(void **state)
{
	int np;
	char *t = fl_pg_dialect("SELECT id FROM jobs WHERE kind = ?1 ORDER BY id LIMIT 1 "
				"/*PG: FOR UPDATE SKIP LOCKED*/ -- '/*PG: no*/'",
				&np, NULL);

	(void)state;
	assert_string_equal(t, "SELECT id FROM jobs WHERE kind = $1 ORDER BY id LIMIT 1 "
			       " FOR UPDATE SKIP LOCKED -- '/*PG: no*/'");
	assert_int_equal(np, 1);
	free(t);
}

static void test_url_password_hidden(void **state)
{
	fl_store *st;

	(void)state;
	assert_int_equal(fl_store_open(&st, "postgresql://fl:s3cret@127.0.0.1:1/x", 0), FL_ESTORE);
	assert_null(strstr(fl_error_last(), "s3cret"));
	assert_non_null(strstr(fl_error_last(), "store postgresql://fl:***@127.0.0.1:1/x: cannot connect"));
	assert_int_equal(fl_store_open(&st, "postgresql://127.0.0.1:1/x?user=fl&password=s3cret&a=b", 0),
			 FL_ESTORE);
	assert_null(strstr(fl_error_last(), "s3cret"));
	assert_non_null(strstr(fl_error_last(), "x?user=fl&password=***&a=b: cannot connect"));
}

/* fl_pg_dialect: SQLite's integer conditions ("WHERE 1 AND ...", a macro's
 * "AND 1") as PostgreSQL's booleans; an integer as a value stays one. */
static void test_pg_dialect_conditions(void **state)
{
	static const char *const cases[][2] = {
	    {"SELECT id FROM runs WHERE 1 AND status = ?1 ORDER BY id",
	     "SELECT id FROM runs WHERE true AND status = $1 ORDER BY id"},
	    {"SELECT id FROM t WHERE 1 ORDER BY id DESC LIMIT 1",
	     "SELECT id FROM t WHERE true ORDER BY id DESC LIMIT 1"},
	    {"SELECT x FROM (SELECT x FROM t WHERE a IN (?1) AND 1 UNION ALL SELECT 1 FROM u "
	     "WHERE b AND 1)",
	     "SELECT x FROM (SELECT x FROM t WHERE a IN ($1) AND true UNION ALL SELECT 1 FROM u "
	     "WHERE b AND true)"},
	    {"SELECT 1 FROM t WHERE 0", "SELECT 1 FROM t WHERE false"},
	    {"SELECT 1 FROM t WHERE x = 1 AND y = 0 OR z IN (1, 0) LIMIT 1 OFFSET 0",
	     "SELECT 1 FROM t WHERE x = 1 AND y = 0 OR z IN (1, 0) LIMIT 1 OFFSET 0"},
	    {"SELECT 1 FROM t WHERE 1 = ?1 AND 10 AND 1.5", "SELECT 1 FROM t WHERE 1 = $1 AND 10 AND 1.5"},
	    {"SELECT 'WHERE 1' FROM t", "SELECT 'WHERE 1' FROM t"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n;
		char *t = fl_pg_dialect(cases[i][0], &n, NULL);

		assert_string_equal(t, cases[i][1]);
		free(t);
	}
}

static void test_unwritable_place(void **state)
{
	fl_store *st;

	(void)state;
	FL_TEST_SQLITE_ONLY();
	assert_int_equal(fl_store_open(&st, fl_test_store("/proc/fl-nope/fl.db"), 0), FL_EIO);
	assert_non_null(strstr(fl_error_last(), "store /proc/fl-nope/fl.db: cannot create"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_migrations_on_open),
	    cmocka_unit_test(test_newer_schema_refused),
	    cmocka_unit_test(test_reopen_keeps_data),
	    cmocka_unit_test(test_failed_write_rolls_back),
	    cmocka_unit_test(test_migration_10),
	    cmocka_unit_test(test_migration_11),
	    cmocka_unit_test(test_migration_13),
	    cmocka_unit_test(test_runs_by_job_planned),
	    cmocka_unit_test(test_jobs_planned),
	    cmocka_unit_test(test_migration_15),
	    cmocka_unit_test(test_concurrent_migrations),
	    cmocka_unit_test(test_pg_only_clause),
	    cmocka_unit_test(test_url_password_hidden),
	    cmocka_unit_test(test_unwritable_place),
	    cmocka_unit_test(test_pg_dialect_conditions),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
