/*
 * test_store_agent.c - boxes, agent jobs and uploaded records in a real
 * store (store/agent.h):
 *   - a job is handed out to its own box only, again until it ends, never
 *     after its deadline, and cancelled once its run ended without it;
 *   - progress and ends apply to live jobs only; an end is final;
 *   - records are kept once per (job, seq), and the count names the
 *     missing seqs; the text comes back in seq order;
 *   - a box is offline after max misses in a row and online again, with
 *     no misses, when it is heard from.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "store/agent.h"
#include "store/run.h"
#include "store/store.h"
#include "testlib.h"

static char dir[64];
static fl_store *st;

static int setup(void **state)
{
	char path[128];

	(void)state;
	if (fl_test_tmpdir(dir, sizeof(dir), "store-agent"))
		return -1;
	snprintf(path, sizeof(path), "%s/fl.db", dir);
	return fl_store_open(&st, fl_test_store(path), 0);
}

static int teardown(void **state)
{
	(void)state;
	fl_store_free(st);
	return fl_test_rmtree(dir);
}

static int64_t run_row(void)
{
	struct fl_run_new rn = {0};
	int64_t m, id;

	assert_int_equal(fl_store_machine_ensure(st, "b1", "baremetal", &m), 0);
	rn.machine_id = m;
	rn.benchmark = "b";
	assert_int_equal(fl_store_run_start(st, &rn, &id), 0);
	return id;
}

static int64_t job_for(const char *box, int64_t run, int64_t deadline)
{
	struct fl_agent_job_new j = {.box = box,
				     .run_id = run,
				     .mode = "kexec",
				     .job = "test=page_fault1",
				     .cmdline = "panic=-1",
				     .kernel = {"/k", "aa", 10},
				     .initrd = {"/i", "bb", 20},
				     .created_ms = 1000,
				     .deadline_ms = deadline};
	int64_t id;

	assert_int_equal(fl_store_agent_job_add(st, &j, &id), 0);
	return id;
}

static void test_hand_out(void **state)
{
	struct fl_agent_job j;
	struct fl_run_end end = {.status = "infra-error"};
	int64_t run = run_row(), id = job_for("b1", run, 5000), late = job_for("b3", run, 2000);

	(void)state;
	assert_int_equal(fl_store_agent_job_next(st, "b2", 1500, &j), FL_ENOTFOUND);
	assert_int_equal(fl_store_agent_job_next(st, "b1", 1500, &j), 0);
	assert_int_equal(j.id, id);
	assert_string_equal(j.state, "fetched");
	assert_int_equal(j.fetched_ms, 1500);
	assert_string_equal(j.kernel_sha256, "aa");
	assert_int_equal(j.initrd_size, 20);
	fl_agent_job_release(&j);
	/* handed out again while it lives: the box may have rebooted */
	assert_int_equal(fl_store_agent_job_next(st, "b1", 1600, &j), 0);
	assert_int_equal(j.fetched_ms, 1500);
	fl_agent_job_release(&j);
	assert_int_equal(fl_store_agent_job_next(st, "b3", 2000, &j), FL_ENOTFOUND);
	(void)late;

	assert_int_equal(fl_store_agent_job_progress(st, id, "booting", "kexec", 1700), 0);
	assert_int_equal(fl_store_agent_job_progress(st, id, "flying", NULL, 1700), FL_EINVAL);
	assert_int_equal(fl_store_agent_job_end(st, id, "uploaded", NULL, 3, 1800), 0);
	assert_int_equal(fl_store_agent_job_end(st, id, "expired", NULL, -1, 1900), FL_EEXISTS);
	assert_int_equal(fl_store_agent_job_progress(st, id, "running", NULL, 1900), FL_EEXISTS);
	assert_int_equal(fl_store_agent_job_get(st, id, &j), 0);
	assert_string_equal(j.state, "uploaded");
	assert_int_equal(j.records, 3);
	assert_int_equal(j.finished_ms, 1800);
	assert_false(fl_agent_job_live(&j));
	fl_agent_job_release(&j);
	assert_int_equal(fl_store_agent_job_next(st, "b1", 2000, &j), FL_ENOTFOUND);

	/* a job whose run ended without it is cancelled when its box asks */
	id = job_for("b1", run, 9000);
	assert_int_equal(fl_store_run_end(st, run, &end), 0);
	assert_int_equal(fl_store_agent_job_next(st, "b1", 2000, &j), FL_ENOTFOUND);
	assert_int_equal(fl_store_agent_job_get(st, id, &j), 0);
	assert_string_equal(j.state, "cancelled");
	fl_agent_job_release(&j);
	assert_int_equal(fl_store_agent_job_get(st, 9999, &j), FL_ENOTFOUND);
}

static void test_records(void **state)
{
	struct fl_agent_frame f[] = {{0, "FLR1 0 a", 8},
				     {1, "FLR1 1 b", 8},
				     {2, "FLR1 2 c", 8},
				     {3, "FLR1 3 d", 8},
				     {5, "FLR1 5 f", 8}};
	int64_t id = job_for("b1", run_row(), 5000);
	size_t added, n;
	char *missing, *text;

	(void)state;
	assert_int_equal(fl_store_agent_records_add(st, id, f + 2, 1, 1, &added), 0);
	assert_int_equal(added, 1);
	assert_int_equal(fl_store_agent_records_add(st, id, f, 3, 1, &added), 0);
	assert_int_equal(added, 2);
	assert_int_equal(fl_store_agent_records_add(st, id, f, 3, 1, &added), 0);
	assert_int_equal(added, 0);
	assert_int_equal(fl_store_agent_records_add(st, id, f + 4, 1, 1, &added), 0);
	assert_int_equal(fl_store_agent_records_count(st, id, 7, &n, &missing), 0);
	assert_int_equal(n, 4);
	assert_string_equal(missing, "3, 4, 6");
	free(missing);
	assert_int_equal(fl_store_agent_records_add(st, id, f + 3, 1, 1, &added), 0);
	assert_int_equal(fl_store_agent_records_count(st, id, 4, &n, &missing), 0);
	assert_int_equal(n, 5);
	assert_string_equal(missing, "");
	free(missing);
	assert_int_equal(fl_store_agent_records_text(st, id, &text, &n), 0);
	assert_string_equal(text, "FLR1 0 a\nFLR1 1 b\nFLR1 2 c\nFLR1 3 d\nFLR1 5 f\n");
	assert_int_equal(n, strlen(text));
	free(text);
}

static void test_boxes(void **state)
{
	struct fl_box b;
	int offline;

	(void)state;
	assert_int_equal(fl_store_box_get(st, "bx", &b), FL_ENOTFOUND);
	assert_int_equal(fl_store_box_seen(st, "bx", "{\"cpus\":8}", 100), 0);
	assert_int_equal(fl_store_box_miss(st, "bx", 2, "missed one", &offline), 0);
	assert_false(offline);
	assert_int_equal(fl_store_box_miss(st, "bx", 2, "missed two", &offline), 0);
	assert_true(offline);
	assert_int_equal(fl_store_box_get(st, "bx", &b), 0);
	assert_string_equal(b.state, "offline");
	assert_string_equal(b.reason, "missed two");
	assert_int_equal(b.misses, 2);
	assert_string_equal(b.facts, "{\"cpus\":8}");
	fl_box_release(&b);
	/* heard from again: online, facts kept when it sends none */
	assert_int_equal(fl_store_box_seen(st, "bx", NULL, 200), 0);
	assert_int_equal(fl_store_box_get(st, "bx", &b), 0);
	assert_string_equal(b.state, "online");
	assert_int_equal(b.misses, 0);
	assert_null(b.reason);
	assert_int_equal(b.last_seen_ms, 200);
	assert_string_equal(b.facts, "{\"cpus\":8}");
	fl_box_release(&b);
	/* a box never heard from can miss too */
	assert_int_equal(fl_store_box_miss(st, "never", 1, "never asked", &offline), 0);
	assert_true(offline);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hand_out),
	    cmocka_unit_test(test_records),
	    cmocka_unit_test(test_boxes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
