/*
 * test_store_run.c - runs in the store (store/run.h): a store made before
 * migration 3 keeps its runs; a run starts 'running' with its owner, keeps
 * its guest facts and records, ends once with its samples only when ok;
 * readers of samples never see a run that is not ok; runs left running by
 * a dead process are found and ended.
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
#include "store/run.h"
#include "store/store.h"
#include "testlib.h"

static char dir[64], db[96];

static int setup(void **state)
{
	(void)state;
	if (fl_test_tmpdir(dir, sizeof(dir), "store-run"))
		return -1;
	snprintf(db, sizeof(db), "%s/fl.db", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return fl_test_rmtree(dir);
}

static const struct fl_sample samples[] = {
    {"ops", "threads", 2, 0, 200000.0, NULL},
    {"ops", "threads", 2, 1, 220000.0, NULL},
    {"per_thread_ops", "threads", 2, 0, 100000.0, NULL},
    {"per_thread_ops", "threads", 2, 1, 110000.0, NULL},
};

static int64_t start_run(fl_store *st, const char *image)
{
	struct fl_run_new rn = {0};
	int64_t machine, run;

	assert_int_equal(fl_store_machine_ensure(st, "numa2", "libvirt", &machine), 0);
	rn.machine_id = machine;
	rn.benchmark = "page_fault2";
	rn.params = "{\"tasks\":\"2\"}";
	rn.kernel_image = image;
	rn.system_map = "/boot/System.map";
	assert_int_equal(fl_store_run_start(st, &rn, &run), 0);
	return run;
}

static void test_old_store_migrates(void **state)
{
	struct fl_run_row row;
	char sql[200];
	sqlite3 *raw;
	fl_store *st;
	int64_t machine, run;

	(void)state;
	FL_TEST_SQLITE_ONLY();
	unlink(db);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), FL_STORE_NO_MIGRATE), 0);
	assert_int_equal(fl_store_migrate(st, 2, NULL), 0);
	assert_int_equal(fl_store_machine_ensure(st, "numa2", "libvirt", &machine), 0);
	fl_store_free(st);
	/* A run as a version-2 store held it, written the way that version did. */
	assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO runs(machine_id, benchmark, status, console) "
		 "VALUES (%lld, 'page_fault2', 'ok', 'console')",
		 (long long)machine);
	assert_int_equal(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
	run = sqlite3_last_insert_rowid(raw);
	sqlite3_close(raw);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), FL_STORE_NO_MIGRATE), 0);
	assert_int_equal(fl_store_migrate(st, 0, NULL), 0);
	assert_int_equal(fl_store_run_get(st, run, &row), 0);
	assert_string_equal(row.status, "ok");
	assert_string_equal(row.benchmark, "page_fault2");
	assert_null(row.domain);
	assert_int_equal(row.nodes, 0);
	fl_store_run_row_release(&row);
	fl_store_free(st);
}

static void test_run_life(void **state)
{
	struct fl_run_guest g = {"fl-host-1-1", "tcg", "{\"sockets\":2}", "/var/runs/1/console.log",
				 1700000000000};
	struct fl_run_end e = {0};
	struct fl_sample_row *s;
	struct fl_run_row row;
	fl_store *st;
	int64_t run;
	size_t n;

	(void)state;
	unlink(db);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	run = start_run(st, "/boot/vmlinuz");
	assert_int_equal(fl_store_run_get(st, run, &row), 0);
	assert_string_equal(row.status, "running");
	assert_string_equal(row.kernel_image, "/boot/vmlinuz");
	assert_int_equal(row.build_id, 0);
	fl_store_run_row_release(&row);
	assert_int_equal(fl_store_run_guest(st, run, &g), 0);
	assert_int_equal(fl_store_run_record_add(st, run, 0, "env", "{\"type\":\"env\"}", 14), 0);
	assert_int_equal(
	    fl_store_run_record_add(st, run, 1, "profile", "{\"type\":\"profile\"}x", 18), 0);
	/* A replayed record is not an error and not a second row. */
	assert_int_equal(fl_store_run_record_add(st, run, 1, "profile", "{}", 2), 0);
	/* In flight, the samples are not for reading. */
	assert_int_equal(fl_store_run_samples(st, run, &s, &n), FL_EINVAL);
	assert_string_equal(fl_error_last(), "run 1 is running: its samples are not used");

	e.status = "ok";
	e.nodes = 2;
	e.cpus = 2;
	e.kernel_release = "6.1.0";
	e.agent_ms = 1700000002500;
	e.first_sample_ms = 1700000004000;
	e.ended_ms = 1700000009000;
	e.samples = samples;
	e.nsamples = 4;
	e.console_tail = "reboot: Power down";
	assert_int_equal(fl_store_run_end(st, run, &e), 0);
	/* A run ends once. */
	assert_int_equal(fl_store_run_end(st, run, &e), FL_EEXISTS);
	assert_int_equal(fl_store_run_get(st, run, &row), 0);
	assert_string_equal(row.status, "ok");
	assert_string_equal(row.domain, "fl-host-1-1");
	assert_string_equal(row.accel, "tcg");
	assert_string_equal(row.kernel_release, "6.1.0");
	assert_int_equal(row.nodes, 2);
	assert_true(row.first_sample_ms - row.created_ms == 4000);
	assert_true(row.ended_ms == 1700000009000);
	fl_store_run_row_release(&row);
	assert_int_equal(fl_store_run_samples(st, run, &s, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(s[0].metric, "ops");
	assert_string_equal(s[3].metric, "per_thread_ops");
	assert_int_equal(s[3].seq, 1);
	assert_true(s[3].value == 110000.0);
	fl_store_samples_free(s, n);
	fl_store_free(st);
}

static void test_not_ok_keeps_no_samples(void **state)
{
	struct fl_run_end e = {.status = "panic", .detail = "Kernel panic - not syncing: x"};
	struct fl_sample_row *s;
	fl_store *st;
	int64_t run;
	size_t n;

	(void)state;
	unlink(db);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	run = start_run(st, NULL);
	e.samples = samples;
	e.nsamples = 4;
	assert_int_equal(fl_store_run_end(st, run, &e), FL_EINVAL);
	assert_string_equal(fl_error_last(),
			    "run 1: samples of a run that is panic are never kept");
	e.samples = NULL;
	e.nsamples = 0;
	assert_int_equal(fl_store_run_end(st, run, &e), 0);
	assert_int_equal(fl_store_samples_count(st, run, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(fl_store_run_samples(st, run, &s, &n), FL_EINVAL);
	assert_string_equal(fl_error_last(), "run 1 is panic: its samples are not used");
	assert_int_equal(fl_store_run_samples(st, run + 1, &s, &n), FL_ENOTFOUND);
	/* A status the schema does not know is refused, and the run stays as it was. */
	run = start_run(st, NULL);
	e.status = "exploded";
	assert_int_equal(fl_store_run_end(st, run, &e), FL_ESTORE);
	fl_store_free(st);
}

static void test_stale_runs(void **state)
{
	struct fl_run_owner *o;
	struct fl_run_row row;
	char host[256] = "";
	fl_store *st;
	int64_t a, b;
	size_t n;

	(void)state;
	unlink(db);
	gethostname(host, sizeof(host) - 1);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	a = start_run(st, NULL);
	b = start_run(st, NULL);
	assert_int_equal(fl_store_run_abandon(st, b, "abandoned: process 1 ended"), 0);
	assert_int_equal(fl_store_runs_in_flight(st, &o, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(o[0].id, a);
	assert_string_equal(o[0].host, host);
	assert_int_equal(o[0].pid, (int)getpid());
	fl_store_run_owners_free(o, n);
	assert_int_equal(fl_store_run_get(st, b, &row), 0);
	assert_string_equal(row.status, "infra-error");
	assert_string_equal(row.detail, "abandoned: process 1 ended");
	fl_store_run_row_release(&row);
	/* A run that already ended is not abandoned over its status. */
	assert_int_equal(fl_store_run_abandon(st, b, "again"), FL_EEXISTS);
	fl_store_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_old_store_migrates),
		cmocka_unit_test(test_run_life),
		cmocka_unit_test(test_not_ok_keeps_no_samples),
		cmocka_unit_test(test_stale_runs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
