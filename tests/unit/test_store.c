/*
 * test_store.c - the SQLite store: migrations on open, reopening keeps the
 * data, a failed multi-row write leaves nothing behind.
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
#include <unistd.h>

#include "lib/error.h"
#include "testlib.h"
#include "store/store.h"

static char dir[64], db[96];

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
	assert_int_equal(fl_store_open(&st, db, FL_STORE_NO_MIGRATE), 0);
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
	assert_int_equal(fl_store_open(&st, db, 0), 0);
	fl_store_free(st);
	assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
	assert_int_equal(sqlite3_exec(raw, "PRAGMA user_version = 999", NULL, NULL, NULL), 0);
	sqlite3_close(raw);
	assert_int_equal(fl_store_open(&st, db, 0), FL_EVERSION);
	assert_null(st);
	snprintf(want, sizeof(want), "store %s has schema version 999; this faultline knows up to %d",
		 db, fl_store_latest_version());
	assert_string_equal(fl_error_last(), want);
	unlink(db);
}

static void test_reopen_keeps_data(void **state)
{
	struct fl_sample s[3] = {
		{"ops_per_sec", "threads", 1, 0, 250000.0},
		{"ops_per_sec", "threads", 1, 1, 251000.0},
		{"ops_per_sec", "threads", 2, 0, 480000.0},
	};
	fl_store *st;
	int64_t run, tree;
	size_t n;
	char *status;

	(void)state;
	unlink(db);
	assert_int_equal(fl_store_open(&st, db, 0), 0);
	run = make_run(st);
	assert_int_equal(fl_store_samples_add(st, run, s, 3), 0);
	assert_int_equal(fl_store_run_finish(st, run, "ok", "console text"), 0);
	fl_store_free(st);

	assert_int_equal(fl_store_open(&st, db, 0), 0);
	assert_int_equal(fl_store_samples_count(st, run, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(fl_store_run_status(st, run, &status), 0);
	assert_string_equal(status, "ok");
	free(status);
	/* ensure finds the existing row instead of adding one */
	assert_int_equal(fl_store_tree_ensure(st, "mainline", "/srv/linux", &tree), 0);
	assert_int_equal(tree, 1);
	fl_store_free(st);

	assert_int_equal(fl_store_open(&st, db, FL_STORE_READONLY), 0);
	assert_int_equal(fl_store_samples_count(st, run, &n), 0);
	assert_int_equal(n, 3);
	fl_store_free(st);
}

static void test_failed_write_rolls_back(void **state)
{
	/* The third sample repeats the first one's key: the whole batch must go. */
	struct fl_sample s[3] = {
		{"ops_per_sec", "processes", 1, 0, 1.0},
		{"ops_per_sec", "processes", 1, 1, 2.0},
		{"ops_per_sec", "processes", 1, 0, 3.0},
	};
	struct fl_sample bad_tasks = {"ops_per_sec", "processes", 0, 5, 1.0};
	fl_store *st;
	int64_t run;
	size_t n;

	(void)state;
	unlink(db);
	assert_int_equal(fl_store_open(&st, db, 0), 0);
	run = make_run(st);
	assert_int_equal(fl_store_samples_add(st, run, s, 3), FL_ESTORE);
	assert_non_null(strstr(fl_error_last(), "sample 3 of 3"));
	assert_non_null(strstr(fl_error_last(), "UNIQUE constraint failed"));
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

static void test_unwritable_place(void **state)
{
	fl_store *st;

	(void)state;
	assert_int_equal(fl_store_open(&st, "/proc/fl-nope/fl.db", 0), FL_EIO);
	assert_non_null(strstr(fl_error_last(), "store /proc/fl-nope/fl.db: cannot create"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_migrations_on_open),
		cmocka_unit_test(test_newer_schema_refused),
		cmocka_unit_test(test_reopen_keeps_data),
		cmocka_unit_test(test_failed_write_rolls_back),
		cmocka_unit_test(test_unwritable_place),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
