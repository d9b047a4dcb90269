/*
 * test_queue.c - the job queue's states and recovery, on a real store and
 * real command machines:
 *   - a job is created once per key; a coordinator waits while a child is
 *     live and is woken when the last one ends, not before;
 *   - recovery after a crash: running and waiting jobs are queued again,
 *     runs in flight (or finished but never recorded by their job) are
 *     deleted with their samples, recorded runs and failed attempts stay;
 *   - run outcomes: ok is done with its run, exit 125 is done untestable,
 *     a failing command is tried 3 times (fl_attempts_job) then done failed
 *     with every attempt's run kept, infra errors take the machine out of
 *     the pool at max_infra_errors and its job waits (blocked) until the
 *     machine is enabled again;
 *   - a bare-metal box that never answers (no daemon at all; the synthetic
 *     kernel of data/fake-kernel built by the real builder; timeout: 2s):
 *     each run publishes an agent job with the kernel's SHA-256 and waits
 *     for the deadline, no longer; it is classified timeout naming the box,
 *     the agent job expires, the run job goes back to the queue; after
 *     max_misses the box is offline, its runs end infra-error at once
 *     without publishing anything, and at max_infra_errors the machine
 *     leaves the pool with its job still queued;
 *   - one queue per SQLite store;
 *   - workers sharing a store (SQLite and PostgreSQL): a coordinator, a
 *     machine, a queued run each go to one claimer; a gone worker's work is
 *     taken over (its running jobs queued again, its unrecorded run deleted
 *     with its samples, its machine released) and it learns it is gone;
 *   - the queue's status is one reading of the store: while another worker
 *     steps coordinators, a waiting one is never seen without the live
 *     child it waits for (a one-pass worker took that for "nothing left
 *     that the others can do" and stopped);
 *   - a run job the queue fails wakes its parent in the same transaction:
 *     the parent is never seen waiting with no live child.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "config/config.h"
#include "lib/error.h"
#include "service/pipeline.h"
#include "service/queue.h"
#include "store/jobs.h"
#include "store/store.h"
#include "testlib.h"

static char dir[64], db[96], head[41], kernel_head[41];
static struct fl_config *cfg;

#define GIT "cd %s/src && " FL_TEST_GIT

static int setup(void **state)
{
	char path[128];

	(void)state;
	if (fl_test_tmpdir(dir, sizeof(dir), "queue") ||
	    fl_test_sh("mkdir %s/src && " GIT "init -q && " GIT "commit -q --allow-empty -m one",
		       dir, dir, dir) ||
	    fl_test_out(head, sizeof(head), "git -C %s/src rev-parse HEAD", dir) ||
	    fl_test_sh("cp -a %s/fake-kernel %s/kernel && cd %s/kernel && " FL_TEST_GIT
		       "init -q && " FL_TEST_GIT "add -A && " FL_TEST_GIT "commit -qm k",
		       FL_TEST_DATA, dir, dir) ||
	    fl_test_out(kernel_head, sizeof(kernel_head), "git -C %s/kernel rev-parse HEAD", dir))
		return -1;
	snprintf(path, sizeof(path), "%s/token", dir);
	if (fl_test_write(path, "token-of-the-box-0123456789\n"))
		return -1;
	snprintf(path, sizeof(path), "%s/fl.yaml", dir);
	snprintf(db, sizeof(db), "%s/fl.db", dir);
	if (fl_test_write(
		path,
		"var: %s/var\nstore: { path: %s }\n"
		"agent_api: { listen: '127.0.0.1:0' }\n"
		"trees: [ { name: t, url: %s/src }, { name: k, url: %s/kernel } ]\n"
		"kernels: [ { name: small, base: tinyconfig } ]\n"
		"machines:\n"
		"  - { name: good, backend: command, command: 'echo 1; echo 2', max_parallel: 2 }\n"
		"  - { name: skip, backend: command, command: 'exit 125' }\n"
		"  - { name: flaky, backend: command, command: 'echo oops >&2; exit 3' }\n"
		"  - { name: infra, backend: command, command: 'echo 1', max_infra_errors: 2 }\n"
		"  - { name: box, backend: baremetal, token_file: %s/token, timeout: 2s,\n"
		"      max_misses: 2, max_infra_errors: 2 }\n"
		"benchmarks:\n"
		"  - { name: b, machines: [good, skip, flaky, infra] }\n"
		"  - { name: pf, test: page_fault1, tasks: [1], duration: 1s, machines: [box] }\n"
		"build: { slots: 1, timeout: 1m, cache_size: 1G }\n",
		dir, db, dir, dir, dir))
		return -1;
	return fl_config_load(&cfg, path);
}

static int teardown(void **state)
{
	(void)state;
	fl_config_free(cfg);
	return fl_test_rmtree(dir);
}

static int64_t add(fl_store *st, enum fl_job_kind kind, const char *key, int64_t parent,
		   const char *machine, const char *rev)
{
	struct fl_job_new j = {.kind = fl_job_kind_name(kind),
			       .state = "queued",
			       .key = key,
			       .parent_id = parent,
			       .tree = "t",
			       .machine = machine,
			       .benchmark = "b",
			       .rev = rev,
			       .role = "x"};
	int64_t id;
	int created;

	assert_int_equal(fl_store_job_add(st, &j, &id, &created), 0);
	return id;
}

static const char *state_of(fl_store *st, int64_t id, char *buf)
{
	struct fl_job j;

	assert_int_equal(fl_store_job_get(st, id, &j), 0);
	strcpy(buf, j.state);
	fl_job_release(&j);
	return buf;
}

static void test_states(void **state)
{
	char path[128], buf[32];
	int64_t parent, a, b, again;
	int created;
	fl_store *st;

	(void)state;
	snprintf(path, sizeof(path), "%s/states.db", dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), 0), 0);
	assert_int_equal(fl_pipeline_prepare(st, cfg), 0);
	parent = add(st, FL_JOB_COMPARE, "p", 0, "good", "");
	a = add(st, FL_JOB_RUN, "p:0", parent, "good", head);
	b = add(st, FL_JOB_RUN, "p:1", parent, "good", head);
	assert_int_equal(fl_store_job_add(st,
					  &(struct fl_job_new){.kind = fl_job_kind_name(FL_JOB_RUN),
							       .state = "queued",
							       .key = "p:0"},
					  &again, &created),
			 0);
	assert_int_equal(again, a);
	assert_int_equal(created, 0);

	assert_int_equal(fl_store_job_start(st, parent, "running", 0), 0);
	assert_int_equal(fl_job_wait(st, parent), 0);
	assert_string_equal(state_of(st, parent, buf), "waiting");
	assert_int_equal(fl_store_job_run_done(st, a, "done", "ok", 0, NULL), 0);
	assert_int_equal(fl_job_wake_parent(st, a), 0);
	assert_string_equal(state_of(st, parent, buf), "waiting"); /* b is still live */
	assert_int_equal(fl_store_job_run_done(st, b, "done", "failed", 0, "exit 3"), 0);
	assert_int_equal(fl_job_wake_parent(st, b), 0);
	assert_string_equal(state_of(st, parent, buf), "queued");
	/* waiting with nothing live is queued at once */
	assert_int_equal(fl_job_wait(st, parent), 0);
	assert_string_equal(state_of(st, parent, buf), "queued");
	assert_int_equal(fl_job_set(st, parent, FL_STATE_DONE, "same", NULL), 0);
	assert_string_equal(state_of(st, parent, buf), "done");
	fl_store_free(st);
}

static void test_recover(void **state)
{
	struct fl_sample s[2] = {{"value", "", 1, 0, 1.0, NULL}, {"value", "", 1, 1, 2.0, NULL}};
	char path[128], buf[32], q[160];
	int64_t m, p, inflight, done, unrecorded, r1, r2, r3, r4, r5;
	unsigned requeued, discarded;
	fl_store *st;

	(void)state;
	FL_TEST_SQLITE_ONLY();
	snprintf(path, sizeof(path), "%s/recover.db", dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), 0), 0);
	assert_int_equal(fl_pipeline_prepare(st, cfg), 0);
	assert_int_equal(fl_store_machine_ensure(st, "good", "command", &m), 0);
	p = add(st, FL_JOB_BISECT, "p", 0, "good", "");
	inflight = add(st, FL_JOB_RUN, "r:0", p, "good", head);
	done = add(st, FL_JOB_RUN, "r:1", p, "good", head);
	unrecorded = add(st, FL_JOB_RUN, "r:2", p, "good", head);
	assert_int_equal(fl_store_job_start(st, p, "running", 0), 0);
	assert_int_equal(fl_job_wait(st, p), 0);
	/* a run in flight when the power went: half its samples written */
	assert_int_equal(fl_store_job_start(st, inflight, "running", 1), 0);
	assert_int_equal(
	    fl_store_run_create(st, &(struct fl_run_info){0, m, "b", NULL, inflight, 0}, &r1), 0);
	assert_int_equal(fl_store_samples_add(st, r1, s, 1), 0);
	/* a job done on its second attempt: the failed first one stays as history */
	assert_int_equal(
	    fl_store_run_create(st, &(struct fl_run_info){0, m, "b", NULL, done, 0}, &r2), 0);
	assert_int_equal(fl_store_run_finish(st, r2, "agent-error", "exit 3"), 0);
	assert_int_equal(
	    fl_store_run_create(st, &(struct fl_run_info){0, m, "b", NULL, done, 0}, &r3), 0);
	assert_int_equal(fl_store_samples_add(st, r3, s, 2), 0);
	assert_int_equal(fl_store_run_finish(st, r3, "ok", ""), 0);
	assert_int_equal(fl_store_job_run_done(st, done, "done", "ok", r3, NULL), 0);
	/* a run that finished but whose job never recorded it */
	assert_int_equal(fl_store_job_start(st, unrecorded, "running", 1), 0);
	assert_int_equal(
	    fl_store_run_create(st, &(struct fl_run_info){0, m, "b", NULL, unrecorded, 0}, &r4), 0);
	assert_int_equal(fl_store_samples_add(st, r4, s, 2), 0);
	assert_int_equal(fl_store_run_finish(st, r4, "ok", ""), 0);
	/* a run of another program (no job): not the queue's to touch */
	assert_int_equal(fl_store_run_create(st, &(struct fl_run_info){0, m, "b", NULL, 0, 0}, &r5),
			 0);

	assert_int_equal(fl_store_tx_begin(st), 0);
	assert_int_equal(fl_store_jobs_recover(st, "queued", &requeued, &discarded), 0);
	assert_int_equal(fl_store_tx_commit(st), 0);
	assert_int_equal(requeued, 3); /* the parent and two run jobs */
	assert_int_equal(discarded, 2);
	assert_string_equal(state_of(st, p, buf), "queued");
	assert_string_equal(state_of(st, inflight, buf), "queued");
	assert_string_equal(state_of(st, unrecorded, buf), "queued");
	assert_string_equal(state_of(st, done, buf), "done");
	fl_store_free(st);
	snprintf(q, sizeof(q), "SELECT group_concat(id) FROM (SELECT id FROM runs ORDER BY id)");
	fl_test_sql_text(path, q, buf, sizeof(buf));
	snprintf(q, sizeof(q), "%lld,%lld,%lld", (long long)r2, (long long)r3, (long long)r5);
	assert_string_equal(buf, q);
	snprintf(q, sizeof(q), "SELECT count(*) FROM samples WHERE run_id IN (%lld, %lld)",
		 (long long)r1, (long long)r4);
	assert_int_equal(fl_test_sql_int(path, q), 0);
	snprintf(q, sizeof(q), "SELECT count(*) FROM samples WHERE run_id = %lld", (long long)r3);
	assert_int_equal(fl_test_sql_int(path, q), 2);
}

static void test_claims(void **state)
{
	struct fl_sample s[1] = {{"value", "", 1, 0, 1.0, NULL}};
	struct fl_worker a = {"a:1:1", "a", 1, 1, 100}, b = {"b:2:1", "b", 2, 1, 100};
	struct fl_worker *ws;
	struct fl_job ja, jb, none;
	char path[128], buf[32], q[128];
	int64_t m, p, r1, r2, run;
	unsigned requeued, discarded;
	int got, alive;
	size_t n;
	fl_store *st;

	(void)state;
	snprintf(path, sizeof(path), "%s/claims.db", dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), 0), 0);
	assert_int_equal(fl_pipeline_prepare(st, cfg), 0);
	assert_int_equal(fl_store_machine_ensure(st, "good", "command", &m), 0);
	p = add(st, FL_JOB_BISECT, "p", 0, "good", "");
	r1 = add(st, FL_JOB_RUN, "r:1", p, "good", head);
	r2 = add(st, FL_JOB_RUN, "r:2", p, "good", head);
	assert_int_equal(fl_store_worker_enter(st, &a), 0);
	assert_int_equal(fl_store_worker_enter(st, &b), 0);

	/* a coordinator: the first claim takes it, the second finds it taken */
	assert_int_equal(fl_store_job_claim(st, p, "queued", "running", a.name, &got), 0);
	assert_int_equal(got, 1);
	assert_int_equal(fl_store_job_claim(st, p, "queued", "running", b.name, &got), 0);
	assert_int_equal(got, 0);
	/* a machine: one worker at a time, the other's once given back */
	assert_int_equal(fl_store_machine_claim(st, "good", a.name, &got), 0);
	assert_int_equal(got, 1);
	assert_int_equal(fl_store_machine_claim(st, "good", b.name, &got), 0);
	assert_int_equal(got, 0);
	assert_int_equal(fl_store_machine_release(st, "good", a.name), 0);
	assert_int_equal(fl_store_machine_claim(st, "good", b.name, &got), 0);
	assert_int_equal(got, 1);
	assert_int_equal(fl_store_machine_release(st, "good", b.name), 0);
	assert_int_equal(fl_store_machine_claim(st, "good", a.name, &got), 0);
	assert_int_equal(got, 1);
	/* queued runs: oldest first, each to one worker, one attempt more */
	assert_int_equal(
	    fl_store_job_claim_next(st, "run", "good", "queued", "running", a.name, &ja), 0);
	assert_int_equal(ja.id, r1);
	assert_int_equal(ja.attempts, 1);
	assert_string_equal(ja.state, "running");
	assert_int_equal(
	    fl_store_job_claim_next(st, "run", "good", "queued", "running", b.name, &jb), 0);
	assert_int_equal(jb.id, r2);
	assert_int_equal(
	    fl_store_job_claim_next(st, "run", "good", "queued", "running", a.name, &none),
	    FL_ENOTFOUND);
	assert_int_equal(fl_store_job_held(st, r1, "running", a.name, &got), 0);
	assert_int_equal(got, 1);
	assert_int_equal(fl_store_job_held(st, r1, "running", b.name, &got), 0);
	assert_int_equal(got, 0);
	/* a's run in flight, half written, when a dies */
	assert_int_equal(fl_store_run_create(st, &(struct fl_run_info){0, m, "b", NULL, r1, 0}, &run),
			 0);
	assert_int_equal(fl_store_samples_add(st, run, s, 1), 0);
	assert_int_equal(fl_store_tx_begin(st), 0);
	assert_int_equal(
	    fl_store_worker_take_over(st, a.name, "running", "queued", &requeued, &discarded), 0);
	assert_int_equal(fl_store_tx_commit(st), 0);
	assert_int_equal(requeued, 2); /* the coordinator and the run */
	assert_int_equal(discarded, 1);
	assert_string_equal(state_of(st, p, buf), "queued");
	assert_string_equal(state_of(st, r1, buf), "queued");
	assert_string_equal(state_of(st, r2, buf), "running"); /* b's, untouched */
	snprintf(q, sizeof(q), "SELECT count(*) FROM samples WHERE run_id = %lld", (long long)run);
	assert_int_equal(fl_test_sql_int(path, q), 0);
	assert_int_equal(fl_test_sql_int(path, "SELECT count(*) FROM runs"), 0);
	/* a learns it is gone; b is not; a's machine is free */
	assert_int_equal(fl_store_worker_beat(st, a.name, 200, &alive), 0);
	assert_int_equal(alive, 0);
	assert_int_equal(fl_store_worker_beat(st, b.name, 200, &alive), 0);
	assert_int_equal(alive, 1);
	assert_int_equal(fl_store_machine_claim(st, "good", b.name, &got), 0);
	assert_int_equal(got, 1);
	assert_int_equal(fl_store_workers(st, &ws, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ws[0].name, b.name);
	assert_int_equal(ws[0].seen, 200);
	fl_workers_free(ws, n);
	fl_job_release(&ja);
	fl_job_release(&jb);
	fl_store_free(st);
}

/* A coordinator for the test: four run jobs once, then done when they are. */
static int steps;

static int test_step(void *ctx, fl_store *st, const struct fl_job *job)
{
	static const char *const machines[] = {"good", "skip", "flaky", "infra"};
	int64_t id;

	(void)ctx;
	steps++;
	if (steps > 1)
		return fl_job_set(st, job->id, FL_STATE_DONE, "checked", NULL);
	for (int i = 0; i < 4; i++) {
		char key[32];

		snprintf(key, sizeof(key), "run:test:%d", i);
		fl_store_job_add(st,
				 &(struct fl_job_new){.kind = fl_job_kind_name(FL_JOB_RUN),
						      .state = "queued",
						      .key = key,
						      .parent_id = job->id,
						      .tree = "t",
						      .machine = machines[i],
						      .benchmark = "b",
						      .rev = i == 3 ? "no-such-rev" : head,
						      .role = "x",
						      .seq = i},
				 &id, NULL);
	}
	return fl_job_wait(st, job->id);
}

static void run_until_idle(fl_queue *q, struct fl_queue_status *s)
{
	for (int i = 0; i < 200; i++) {
		assert_int_equal(fl_queue_tick(q), 0);
		fl_queue_status(q, s);
		if (!s->running)
			return;
		fl_queue_wait(q, 1000);
	}
	fail_msg("the queue never went idle");
}

static void job_result(const char *key, char *out, size_t n)
{
	char q[256];

	snprintf(q, sizeof(q),
		 "SELECT state || ' ' || coalesce(result, '-') || ' ' || attempts FROM jobs "
		 "WHERE key = '%s'",
		 key);
	fl_test_sql_text(db, q, out, n);
}

static void test_outcomes(void **state)
{
	const fl_job_step_fn only[FL_JOB_NKINDS] = {[FL_JOB_COMPARE] = test_step};
	struct fl_queue_opts o = {.cfg = cfg, .steps = only};
	struct fl_queue_status s;
	struct fl_machine_state ms;
	char buf[128];
	fl_queue *q, *second;

	(void)state;
	assert_int_equal(fl_queue_open(&q, &o), 0);
	assert_int_equal(fl_queue_open(&second, &o), FL_EEXISTS);
	assert_non_null(strstr(fl_error_last(), "another faultline watch"));
	add(fl_queue_store(q), FL_JOB_COMPARE, "test", 0, "good", "");
	run_until_idle(q, &s);

	job_result("run:test:0", buf, sizeof(buf));
	assert_string_equal(buf, "done ok 1");
	assert_int_equal(fl_test_sql_int(db,
					 "SELECT count(*) FROM samples JOIN runs ON runs.id = "
					 "samples.run_id JOIN jobs ON jobs.run_id = runs.id AND "
					 "runs.job_id = jobs.id WHERE jobs.key = 'run:test:0'"),
			 2);
	job_result("run:test:1", buf, sizeof(buf));
	assert_string_equal(buf, "done untestable 1");
	job_result("run:test:2", buf, sizeof(buf));
	assert_string_equal(buf, "done failed 3");
	assert_int_equal(fl_test_sql_int(db,
					 "SELECT count(*) FROM runs WHERE status = "
					 "'agent-error' AND job_id = (SELECT id FROM jobs WHERE "
					 "key = 'run:test:2')"),
			 3);
	fl_test_sql_text(db, "SELECT error FROM jobs WHERE key = 'run:test:2'", buf, sizeof(buf));
	assert_string_equal(buf, "exit 3: oops");

	/* two infra errors: the machine is out, its job waits, the parent too */
	job_result("run:test:3", buf, sizeof(buf));
	assert_string_equal(buf, "queued - 2");
	assert_int_equal(fl_store_machine_state(fl_queue_store(q), "infra", &ms), 0);
	assert_string_equal(ms.state, "broken");
	assert_int_equal(ms.infra_errors, 2);
	assert_non_null(strstr(ms.reason, "no-such-rev"));
	fl_machine_state_release(&ms);
	assert_int_equal(s.blocked, 1);
	assert_int_equal(s.live, 2);
	assert_int_equal(steps, 1);
	job_result("test", buf, sizeof(buf));
	assert_string_equal(buf, "waiting - 0");

	/* back in the pool: tried again, out again after two more */
	assert_int_equal(fl_store_machine_enable(fl_queue_store(q), "infra"), 0);
	run_until_idle(q, &s);
	job_result("run:test:3", buf, sizeof(buf));
	assert_string_equal(buf, "queued - 4");
	assert_int_equal(s.blocked, 1);
	fl_queue_free(q);

	/* a machine that is gone from the configuration fails its jobs, and the parent goes on */
	assert_int_equal(fl_test_sql_exec(db, "UPDATE jobs SET machine = 'gone' WHERE key = "
					      "'run:test:3'"),
			 0);
	assert_int_equal(fl_queue_open(&q, &o), 0);
	run_until_idle(q, &s);
	job_result("run:test:3", buf, sizeof(buf));
	assert_string_equal(buf, "failed - 4");
	job_result("test", buf, sizeof(buf));
	assert_string_equal(buf, "done checked 0");
	assert_int_equal(s.live, 0);
	assert_int_equal(steps, 2);
	fl_queue_free(q);
}

/* Another worker's coordinators, one after the other: claimed; a child
 * added and the parent waiting (one transaction); the child run and ended
 * with its parent woken (one transaction); the parent done. Each state
 * lasts long enough for the reader to see it (2 ms). */
struct lives {
	fl_store *st;
	int rounds, err;
	char why[256]; /* the store's error when err */
	atomic_int done;
};

static int one_life(fl_store *st, int i)
{
	char key[32], child[40];
	int64_t p, c;
	int got;

	snprintf(key, sizeof(key), "life:%d", i);
	snprintf(child, sizeof(child), "life:%d:run", i);
	if (fl_store_job_add(st,
			     &(struct fl_job_new){.kind = fl_job_kind_name(FL_JOB_COMPARE),
						  .state = "queued",
						  .key = key,
						  .tree = "t",
						  .machine = "good",
						  .benchmark = "b"},
			     &p, &got) ||
	    fl_store_job_claim(st, p, "queued", "running", "other:1:1", &got) || !got ||
	    usleep(2000) || fl_store_tx_begin(st) ||
	    fl_store_job_add(st,
			     &(struct fl_job_new){.kind = fl_job_kind_name(FL_JOB_RUN),
						  .state = "queued",
						  .key = child,
						  .parent_id = p,
						  .tree = "t",
						  .machine = "good",
						  .benchmark = "b",
						  .rev = head,
						  .role = "x"},
			     &c, &got) ||
	    fl_job_wait(st, p) || fl_store_tx_commit(st) || usleep(2000) ||
	    fl_store_job_start(st, c, "running", 1) || fl_store_tx_begin(st) ||
	    fl_store_job_run_done(st, c, "done", "ok", 0, NULL) || fl_job_wake_parent(st, c) ||
	    fl_store_tx_commit(st) ||
	    fl_store_job_claim(st, p, "queued", "running", "other:1:1", &got) || !got)
		return -1;
	return fl_job_set(st, p, FL_STATE_DONE, "checked", NULL);
}

static void *lives_main(void *arg)
{
	struct lives *l = arg;

	for (int i = 0; i < l->rounds && !l->err; i++)
		if ((l->err = one_life(l->st, i)))
			snprintf(l->why, sizeof(l->why), "life %d: %s", i, fl_error_last());
	atomic_store(&l->done, 1);
	return NULL;
}

static void test_status_one_read(void **state)
{
	/* the kinds the store is to know; nothing ticks the queue here */
	const fl_job_step_fn only[FL_JOB_NKINDS] = {[FL_JOB_COMPARE] = test_step};
	struct fl_queue_opts o = {.cfg = cfg, .steps = only};
	struct lives l = {.rounds = 200};
	struct fl_queue_status s;
	unsigned reads = 0, stranded = 0;
	char path[128], *conf_store = cfg->store.path;
	const char *store;
	pthread_t th;
	fl_queue *q;

	(void)state;
	/* a store of its own: PostgreSQL's in the _pg run */
	snprintf(path, sizeof(path), "%s/status.db", dir);
	store = fl_test_store(path);
	cfg->store.path = (char *)store;
	assert_int_equal(fl_queue_open(&q, &o), 0); /* its heartbeat reads it too */
	assert_int_equal(fl_store_open(&l.st, store, 0), 0);
	assert_int_equal(pthread_create(&th, NULL, lives_main, &l), 0);
	while (!atomic_load(&l.done)) {
		fl_queue_status(q, &s);
		reads++;
		stranded += s.live && !s.active;
	}
	pthread_join(th, NULL);
	if (l.err)
		fail_msg("%s", l.why);
	print_message("queue status: %u reads, %u saw a waiting job without its live child\n",
		      reads, stranded);
	assert_int_equal(stranded, 0);
	fl_queue_status(q, &s);
	assert_int_equal(s.live, 0);
	fl_store_free(l.st);
	fl_queue_free(q);
	cfg->store.path = conf_store;
}

/* Reads the job counts on a connection of its own while another thread's queue works. */
struct counter {
	fl_store *st;
	atomic_int stop;
	unsigned reads, stranded;
	int err;
};

static void *counter_main(void *arg)
{
	struct counter *c = arg;

	while (!atomic_load(&c->stop) && !c->err) {
		struct fl_job_counts n;

		if ((c->err = fl_job_counts(c->st, 0, &n)))
			break;
		c->reads++;
		c->stranded += n.waiting && !n.queued && !n.running;
	}
	return NULL;
}

static int finish_step(void *ctx, fl_store *st, const struct fl_job *job)
{
	(void)ctx;
	return fl_job_set(st, job->id, FL_STATE_DONE, "checked", NULL);
}

/*
 * A run job the queue fails (its machine is no longer in the configuration)
 * wakes its waiting parent in the same transaction: a reader never sees the
 * parent waiting while none of its children is live.
 */
static void test_fail_wakes_parent(void **state)
{
	const fl_job_step_fn only[FL_JOB_NKINDS] = {[FL_JOB_COMPARE] = finish_step};
	struct fl_queue_opts o = {.cfg = cfg, .steps = only};
	struct counter c = {0};
	char path[128], *conf_store = cfg->store.path;
	const char *store;
	pthread_t th;
	fl_queue *q;
	fl_store *st;

	(void)state;
	snprintf(path, sizeof(path), "%s/fail.db", dir);
	store = fl_test_store(path);
	cfg->store.path = (char *)store;
	assert_int_equal(fl_queue_open(&q, &o), 0);
	st = fl_queue_store(q);
	assert_int_equal(fl_store_open(&c.st, store, 0), 0);
	assert_int_equal(pthread_create(&th, NULL, counter_main, &c), 0);
	for (int i = 0; i < 300; i++) {
		char key[32], child[40];
		struct fl_job j;
		int64_t p;

		snprintf(key, sizeof(key), "stray:%d", i);
		snprintf(child, sizeof(child), "stray:%d:run", i);
		/* the parent waits for a run on a machine the configuration lost */
		assert_int_equal(fl_store_tx_begin(st), 0);
		p = add(st, FL_JOB_COMPARE, key, 0, "good", "");
		add(st, FL_JOB_RUN, child, p, "gone", head);
		assert_int_equal(fl_store_job_start(st, p, "running", 0), 0);
		assert_int_equal(fl_job_wait(st, p), 0);
		assert_int_equal(fl_store_tx_commit(st), 0);
		/* the tick fails the run, and steps the parent it woke to its end */
		assert_int_equal(fl_queue_tick(q), 0);
		assert_int_equal(fl_store_job_find(st, child, &j), 0);
		assert_string_equal(j.state, "failed");
		fl_job_release(&j);
		assert_int_equal(fl_store_job_find(st, key, &j), 0);
		assert_string_equal(j.state, "done");
		fl_job_release(&j);
	}
	atomic_store(&c.stop, 1);
	pthread_join(th, NULL);
	fl_store_free(c.st);
	fl_queue_free(q);
	cfg->store.path = conf_store;
	assert_int_equal(c.err, 0);
	print_message("job counts: %u reads, %u saw a waiting job without a live child\n", c.reads,
		      c.stranded);
	assert_int_equal(c.stranded, 0);
}

static void test_box_never_answers(void **state)
{
	struct fl_queue_opts o = {.cfg = cfg};
	struct fl_machine_state ms;
	struct fl_queue_status s;
	char buf[512];
	int64_t id;
	fl_queue *q;

	(void)state;
	assert_int_equal(fl_queue_open(&q, &o), 0);
	assert_int_equal(fl_store_job_add(fl_queue_store(q),
					  &(struct fl_job_new){.kind = fl_job_kind_name(FL_JOB_RUN),
							       .state = "queued",
							       .key = "run:box",
							       .tree = "k",
							       .machine = "box",
							       .benchmark = "pf",
							       .rev = kernel_head,
							       .role = "new",
							       .point = "threads:1"},
					  &id, NULL),
			 0);
	run_until_idle(q, &s);
	/* a job for one point measures only it: the box was offered threads at 1 task */
	fl_test_sql_text(db, "SELECT group_concat(DISTINCT job) FROM agent_jobs", buf, sizeof(buf));
	assert_non_null(strstr(buf, ";mode=threads;tasks=1;"));

	/* two timeouts, then two infra errors on the offline box, every one the job's */
	fl_test_sql_text(db, "SELECT group_concat(status) FROM (SELECT status FROM runs WHERE "
			     "job_id = (SELECT id FROM jobs WHERE key = 'run:box') ORDER BY id)",
			 buf, sizeof(buf));
	assert_string_equal(buf, "timeout,timeout,infra-error,infra-error");
	fl_test_sql_text(db, "SELECT detail FROM runs WHERE status = 'timeout' ORDER BY id LIMIT 1",
			 buf, sizeof(buf));
	assert_non_null(strstr(buf, "deadline of 2 s passed after 0 of 1 points: box 'box' never "
				    "asked for the job"));
	assert_int_equal(fl_test_sql_int(db, "SELECT count(*) FROM runs WHERE status = 'timeout' "
					     "AND build_id IS NOT NULL AND commit_id IS NOT NULL"),
			 2);
	/* each timeout published a job with the built kernel; both expired */
	fl_test_sql_text(db, "SELECT group_concat(state) FROM agent_jobs", buf, sizeof(buf));
	assert_string_equal(buf, "expired,expired");
	assert_int_equal(fl_test_sql_int(db, "SELECT count(*) FROM agent_jobs WHERE "
					     "length(kernel_sha256) = 64 AND kernel_size > 0 AND "
					     "length(initrd_sha256) = 64 AND mode = 'kexec'"),
			 2);
	fl_test_sql_text(db, "SELECT state || ' ' || misses FROM boxes WHERE name = 'box'", buf,
			 sizeof(buf));
	assert_string_equal(buf, "offline 2");
	fl_test_sql_text(db, "SELECT detail FROM runs WHERE status = 'infra-error' ORDER BY id DESC "
			     "LIMIT 1",
			 buf, sizeof(buf));
	assert_non_null(strstr(buf, "box 'box' is offline: 2 missed deadlines in a row"));

	/* the job is back in the queue, waiting for its machine, not lost */
	job_result("run:box", buf, sizeof(buf));
	assert_string_equal(buf, "queued - 4");
	assert_int_equal(fl_store_machine_state(fl_queue_store(q), "box", &ms), 0);
	assert_string_equal(ms.state, "broken");
	assert_non_null(strstr(ms.reason, "offline"));
	fl_machine_state_release(&ms);
	assert_int_equal(s.blocked, 1);
	fl_queue_free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_states),
	    cmocka_unit_test(test_recover),
	    cmocka_unit_test(test_claims),
	    cmocka_unit_test(test_outcomes),
	    cmocka_unit_test(test_box_never_answers),
	    cmocka_unit_test(test_status_one_read),
	    cmocka_unit_test(test_fail_wakes_parent),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
