/*
 * test_dispatch.c - the dispatcher's rules (dispatch.h), on a real store
 * (SQLite, and PostgreSQL as test_dispatch_pg):
 *   - attempts: "faultline run" tries an infra-error three times in all and
 *     any other end once; a run job tries a failure three times and an
 *     infra-error without end; ok and untestable are final;
 *   - the machine pool: max_infra_errors infra errors in a row mark the
 *     machine broken with the last reason, any other end starts the count
 *     over, the rule's writes are the caller's transaction's, and what the
 *     store keeps is the count and state the rule gave it;
 *   - a run tried again: a command machine whose checkout cannot be made
 *     is infra-error three times, each run kept; a failing command once.
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
#include "dispatch/dispatch.h"
#include "lib/error.h"
#include "store/jobs.h"
#include "store/store.h"
#include "testlib.h"

static char dir[64], db[96];
static struct fl_config *cfg;
static fl_repo *repo;
static fl_store *st;

static int setup(void **state)
{
	char path[128];

	(void)state;
	if (fl_test_tmpdir(dir, sizeof(dir), "disp") ||
	    fl_test_sh("mkdir %s/src && cd %s/src && " FL_TEST_GIT "init -q && echo 1 > v && "
		       "cd %s/src && " FL_TEST_GIT "add v && cd %s/src && " FL_TEST_GIT
		       "commit -qm one",
		       dir, dir, dir, dir))
		return -1;
	snprintf(path, sizeof(path), "%s/fl.yaml", dir);
	snprintf(db, sizeof(db), "%s/fl.db", dir);
	if (fl_test_write(path,
			  "var: %s/var\nstore: { path: %s }\n"
			  "trees: [ { name: t, url: %s/src } ]\n"
			  "machines:\n"
			  "  - { name: pool, backend: command, command: 'echo 1', "
			  "max_infra_errors: 3 }\n"
			  "  - { name: nocheckout, backend: command, command: 'echo 1' }\n"
			  "  - { name: fails, backend: command, command: 'exit 3' }\n"
			  "benchmarks: [ { name: b } ]\n",
			  dir, db, dir) ||
	    fl_config_load(&cfg, path)) {
		fprintf(stderr, "%s\n", fl_error_last());
		return -1;
	}
	snprintf(path, sizeof(path), "%s/src", dir);
	if (fl_repo_open(&repo, "t", path) || fl_store_open(&st, fl_test_store(db), 0))
		return -1;
	for (size_t i = 0; i < cfg->nmachines; i++) {
		int64_t id;

		if (fl_store_machine_ensure(st, cfg->machines[i].name, cfg->machines[i].backend,
					    &id))
			return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fl_store_free(st);
	fl_repo_free(repo);
	fl_config_free(cfg);
	return fl_test_rmtree(dir);
}

static void test_attempts(void **state)
{
	(void)state;
	/* faultline run: infra errors three times in all, the rest is the answer */
	assert_true(fl_dispatch_again(&fl_attempts_once, FL_RUN_INFRA_ERROR, 1));
	assert_true(fl_dispatch_again(&fl_attempts_once, FL_RUN_INFRA_ERROR, 2));
	assert_false(fl_dispatch_again(&fl_attempts_once, FL_RUN_INFRA_ERROR, 3));
	assert_false(fl_dispatch_again(&fl_attempts_once, FL_RUN_AGENT_ERROR, 1));
	assert_false(fl_dispatch_again(&fl_attempts_once, FL_RUN_TIMEOUT, 1));
	assert_false(fl_dispatch_again(&fl_attempts_once, FL_RUN_OK, 1));
	assert_false(fl_dispatch_again(&fl_attempts_once, FL_RUN_UNTESTABLE, 1));
	/* a run job: failures three times in all, infra errors until the pool says no */
	assert_true(fl_dispatch_again(&fl_attempts_job, FL_RUN_TIMEOUT, 1));
	assert_true(fl_dispatch_again(&fl_attempts_job, FL_RUN_PANIC, 2));
	assert_false(fl_dispatch_again(&fl_attempts_job, FL_RUN_BOOT_FAILED, 3));
	assert_true(fl_dispatch_again(&fl_attempts_job, FL_RUN_INFRA_ERROR, 3));
	assert_true(fl_dispatch_again(&fl_attempts_job, FL_RUN_INFRA_ERROR, 100));
	assert_false(fl_dispatch_again(&fl_attempts_job, FL_RUN_OK, 1));
	assert_false(fl_dispatch_again(&fl_attempts_job, FL_RUN_UNTESTABLE, 1));
}

/* One run's end through the rule, in a transaction of its own; *broken as it says. */
static void count(const char *machine, enum fl_run_status s, const char *why, int *broken)
{
	assert_int_equal(fl_store_tx_begin(st), 0);
	assert_int_equal(
	    fl_dispatch_machine_count(st, fl_config_machine(cfg, machine), s, why, broken), 0);
	assert_int_equal(fl_store_tx_commit(st), 0);
}

static void expect_state(const char *machine, const char *state, int infra, const char *reason)
{
	struct fl_machine_state m;

	assert_int_equal(fl_store_machine_state(st, machine, &m), 0);
	assert_string_equal(m.state, state);
	assert_int_equal(m.infra_errors, infra);
	if (reason)
		assert_string_equal(m.reason ? m.reason : "(none)", reason);
	fl_machine_state_release(&m);
}

static void test_broken_machine(void **state)
{
	int broken = -1;

	(void)state;
	count("pool", FL_RUN_INFRA_ERROR, "libvirt: gone", &broken);
	assert_false(broken);
	count("pool", FL_RUN_INFRA_ERROR, "libvirt: gone", &broken);
	assert_false(broken);
	expect_state("pool", "online", 2, NULL);
	/* a run that reached the commit, ok or not, starts the count over */
	count("pool", FL_RUN_OK, "", &broken);
	assert_false(broken);
	expect_state("pool", "online", 0, NULL);
	count("pool", FL_RUN_INFRA_ERROR, "one", &broken);
	count("pool", FL_RUN_INFRA_ERROR, "two", &broken);
	count("pool", FL_RUN_AGENT_ERROR, "exit 3", &broken);
	expect_state("pool", "online", 0, NULL);

	/* three in a row: out of the pool, with the last one's reason */
	count("pool", FL_RUN_INFRA_ERROR, "one", &broken);
	count("pool", FL_RUN_INFRA_ERROR, "two", &broken);
	assert_false(broken);
	count("pool", FL_RUN_INFRA_ERROR, "disk full", &broken);
	assert_true(broken);
	expect_state("pool", "broken", 3, "disk full");
	/* a run that was in flight meanwhile: still out, its reason the newest */
	count("pool", FL_RUN_INFRA_ERROR, "still full", &broken);
	assert_true(broken);
	expect_state("pool", "broken", 4, "still full");
	/* an ok run in flight resets the count; only "queue enable" brings it back */
	count("pool", FL_RUN_OK, "", &broken);
	assert_true(broken);
	expect_state("pool", "broken", 0, "still full");
	assert_int_equal(fl_store_machine_enable(st, "pool"), 0);
	expect_state("pool", "online", 0, NULL);

	/* the rule's writes are the caller's transaction's */
	assert_int_equal(fl_store_tx_begin(st), 0);
	assert_int_equal(fl_dispatch_machine_count(st, fl_config_machine(cfg, "pool"),
						   FL_RUN_INFRA_ERROR, "x", &broken),
			 0);
	fl_store_tx_rollback(st);
	expect_state("pool", "online", 0, NULL);

	/* the count the store keeps is the one it was given: the rule reads it back */
	{
		struct fl_machine_state m = {"online", NULL, 2};

		assert_int_equal(fl_store_machine_set_state(st, "pool", &m), 0);
	}
	count("pool", FL_RUN_INFRA_ERROR, "third", &broken);
	assert_true(broken);
	expect_state("pool", "broken", 3, "third");
	assert_int_equal(fl_store_machine_enable(st, "pool"), 0);
}

static long long runs_of(const char *machine, const char *status)
{
	char q[256];

	snprintf(q, sizeof(q),
		 "SELECT count(*) FROM runs JOIN machines ON machines.id = runs.machine_id "
		 "WHERE machines.name = '%s' AND runs.status = '%s'",
		 machine, status);
	return fl_test_sql_int(db, q);
}

static void test_run_again(void **state)
{
	struct fl_dispatch_req req = {.run = {.cfg = cfg,
					      .bench = fl_config_benchmark(cfg, "b"),
					      .tree = fl_config_tree(cfg, "t"),
					      .repo = repo,
					      .rev = "HEAD"},
				      .store = st};
	struct fl_run_result res;

	(void)state;
	/* its checkout cannot be made: ours, tried three times, each run kept */
	assert_int_equal(fl_test_sh("mkdir -p %s/var/checkouts && touch "
				    "%s/var/checkouts/nocheckout",
				    dir, dir),
			 0);
	req.run.machine = fl_config_machine(cfg, "nocheckout");
	assert_int_equal(fl_dispatch_run_attempts(&req, &fl_attempts_once, &res), 0);
	assert_int_equal(res.status, FL_RUN_INFRA_ERROR);
	assert_non_null(strstr(res.detail, "cannot check out"));
	fl_run_result_release(&res);
	assert_int_equal(runs_of("nocheckout", "infra-error"), 3);

	/* the commit's failure is the answer at once */
	req.run.machine = fl_config_machine(cfg, "fails");
	assert_int_equal(fl_dispatch_run_attempts(&req, &fl_attempts_once, &res), 0);
	assert_int_equal(res.status, FL_RUN_AGENT_ERROR);
	fl_run_result_release(&res);
	assert_int_equal(runs_of("fails", "agent-error"), 1);

	/* and an ok run once, its samples in the store */
	req.run.machine = fl_config_machine(cfg, "pool");
	assert_int_equal(fl_dispatch_run_attempts(&req, &fl_attempts_once, &res), 0);
	assert_int_equal(res.status, FL_RUN_OK);
	assert_int_equal(runs_of("pool", "ok"), 1);
	fl_run_result_release(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_attempts),
	    cmocka_unit_test(test_broken_machine),
	    cmocka_unit_test(test_run_again),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
