/*
 * test_machine_command.c - the command backend on a real repository,
 * through the dispatcher (fl_dispatch_run, which keeps the run in the
 * store): numbers on stdout are the run's samples (nothing else is, not
 * even numbers on stderr), FAULTLINE_COMMIT and the checkout are the
 * commit's, exit 125 leaves no run, a failing command is an agent-error
 * with its last stderr line, silence is an agent-error, the timeout kills
 * it, a checkout that cannot be made is an infra-error, and the user's
 * tree is left alone. And the backend alone (fl_machine_run): it hands its
 * facts, its end and its samples to the request's sink and keeps nothing
 * itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <unistd.h>

#include "config/config.h"
#include "dispatch/dispatch.h"
#include "lib/error.h"
#include "machine/machine.h"
#include "build/repo.h"
#include "store/jobs.h"
#include "store/run.h"
#include "store/store.h"
#include "testlib.h"

static char dir[64], c1[41], c2[41], db[96];
static struct fl_config *cfg;
static fl_repo *repo;
static fl_store *st;

#define GIT "cd %s/src && " FL_TEST_GIT

static int setup(void **state)
{
	char path[128];
	FILE *f;

	(void)state;
	if (fl_test_tmpdir(dir, sizeof(dir), "mcmd") ||
	    fl_test_sh("mkdir %s/src && " GIT "init -q && echo 1 > v && " GIT "add v && " GIT
		       "commit -qm one && echo 2 > v && " GIT "commit -qam two",
		       dir, dir, dir, dir, dir) ||
	    fl_test_out(c1, sizeof(c1), "git -C %s/src rev-parse HEAD~1", dir) ||
	    fl_test_out(c2, sizeof(c2), "git -C %s/src rev-parse HEAD", dir))
		return -1;
	snprintf(path, sizeof(path), "%s/fl.yaml", dir);
	snprintf(db, sizeof(db), "%s/fl.db", dir);
	f = fopen(path, "w");
	fprintf(
	    f,
	    "var: %s/var\nstore: { path: %s }\n"
	    "trees: [ { name: t, url: %s/src } ]\n"
	    "machines:\n"
	    "  - { name: ok, backend: command, command: \"echo warming up; cat v; echo ' 2.5 '; "
	    "echo 'x 3'; echo 7 >&2; echo $FAULTLINE_COMMIT > %s/seen\" }\n"
	    "  - { name: skip, backend: command, command: \"echo make: entering >&2; echo "
	    "'x.c:3:1: error: expected ;' >&2; echo make: leaving >&2; exit 125\" }\n"
	    "  - { name: fail, backend: command, command: \"echo 1; echo first >&2; echo 'it "
	    "broke' >&2; exit 3\" }\n"
	    "  - { name: silent, backend: command, command: \"echo no numbers\" }\n"
	    "  - { name: slow, backend: command, command: \"sleep 5; echo 1\", timeout: 200ms }\n"
	    "benchmarks: [ { name: b } ]\n",
	    dir, db, dir, dir);
	fclose(f);
	if (fl_config_load(&cfg, path)) {
		fprintf(stderr, "%s\n", fl_error_last());
		return -1;
	}
	snprintf(path, sizeof(path), "%s/src", dir);
	return fl_repo_open(&repo, "t", path) || fl_store_open(&st, fl_test_store(db), 0);
}

static int teardown(void **state)
{
	(void)state;
	fl_store_free(st);
	fl_repo_free(repo);
	fl_config_free(cfg);
	return fl_test_rmtree(dir);
}

static int run(const char *machine, const char *rev, struct fl_run_result *res)
{
	struct fl_dispatch_req req = {.run = {.cfg = cfg,
					      .machine = fl_config_machine(cfg, machine),
					      .bench = fl_config_benchmark(cfg, "b"),
					      .tree = fl_config_tree(cfg, "t"),
					      .repo = repo,
					      .rev = rev,
					      .label = machine},
				      .store = st};

	return fl_dispatch_run(&req, res);
}

static void test_samples(void **state)
{
	struct fl_run_result res;
	struct fl_sample_row *s;
	char seen[64], q[128], status[32];
	size_t n;

	(void)state;
	assert_int_equal(run("ok", c1, &res), 0);
	assert_int_equal(res.status, FL_RUN_OK);
	assert_true(res.run_id > 0);
	assert_int_equal(res.build_id, 0);
	assert_int_equal(fl_store_run_samples(st, res.run_id, &s, &n), 0);
	assert_int_equal(n, 2); /* "1" (v at c1) and " 2.5 "; not "x 3", not stderr's 7 */
	assert_string_equal(s[0].metric, "value");
	assert_string_equal(s[0].mode, "");
	assert_int_equal(s[0].tasks, 1);
	assert_true(s[0].value == 1 && s[1].value == 2.5);
	assert_int_equal(s[1].seq, 1);
	fl_store_samples_free(s, n);
	snprintf(q, sizeof(q), "SELECT status FROM runs WHERE id = %lld", (long long)res.run_id);
	fl_test_sql_text(db, q, status, sizeof(status));
	assert_string_equal(status, "ok");
	fl_test_out(seen, sizeof(seen), "cat %s/seen", dir);
	assert_string_equal(seen, c1);
	fl_run_result_release(&res);

	/* the next commit in the same private checkout */
	assert_int_equal(run("ok", c2, &res), 0);
	assert_int_equal(fl_store_run_samples(st, res.run_id, &s, &n), 0);
	assert_true(n == 2 && s[0].value == 2);
	fl_store_samples_free(s, n);
	fl_run_result_release(&res);
	/* the user's work tree was never the checkout */
	fl_test_out(seen, sizeof(seen), "cd %s/src && git status --porcelain | wc -l", dir);
	assert_string_equal(seen, "0");
}

static void test_failures(void **state)
{
	struct fl_run_result res;
	char q[128], status[32];
	long long runs = fl_test_sql_int(db, "SELECT count(*) FROM runs");

	(void)state;
	assert_int_equal(run("skip", c1, &res), 0);
	assert_int_equal(res.status, FL_RUN_UNTESTABLE);
	/* like a build that fails: its first error line is the reason */
	assert_string_equal(res.detail,
			    "exit 125: the commit cannot be tested: x.c:3:1: error: expected ;");
	assert_int_equal(res.run_id, 0);
	assert_int_equal(fl_test_sql_int(db, "SELECT count(*) FROM runs"), runs);
	fl_run_result_release(&res);

	assert_int_equal(run("fail", c1, &res), 0);
	assert_int_equal(res.status, FL_RUN_AGENT_ERROR);
	assert_string_equal(res.detail, "exit 3: it broke");
	snprintf(q, sizeof(q), "SELECT status FROM runs WHERE id = %lld", (long long)res.run_id);
	fl_test_sql_text(db, q, status, sizeof(status));
	assert_string_equal(status, "agent-error");
	snprintf(q, sizeof(q), "SELECT count(*) FROM samples WHERE run_id = %lld",
		 (long long)res.run_id);
	assert_int_equal(fl_test_sql_int(db, q), 0); /* a failed run's numbers do not count */
	fl_run_result_release(&res);

	assert_int_equal(run("silent", c1, &res), 0);
	assert_int_equal(res.status, FL_RUN_AGENT_ERROR);
	assert_string_equal(res.detail, "no number on standard output");
	fl_run_result_release(&res);

	assert_int_equal(run("slow", c1, &res), 0);
	assert_int_equal(res.status, FL_RUN_TIMEOUT);
	assert_non_null(strstr(res.detail, "timed out"));
	fl_run_result_release(&res);

	assert_true(run("ok", "no-such-rev", &res) < 0);
	assert_non_null(strstr(fl_error_last(), "no-such-rev"));
	fl_run_result_release(&res);
}

static void test_infra(void **state)
{
	struct fl_run_result res;
	char q[128], status[32];

	(void)state;
	/* the checkout directory cannot be made: ours, not the commit's */
	assert_int_equal(
	    fl_test_sh("rm -rf %s/var/checkouts/silent && touch %s/var/checkouts/silent", dir, dir),
	    0);
	assert_int_equal(run("silent", c1, &res), 0);
	assert_int_equal(res.status, FL_RUN_INFRA_ERROR);
	assert_non_null(strstr(res.detail, "cannot check out"));
	snprintf(q, sizeof(q), "SELECT status FROM runs WHERE id = %lld", (long long)res.run_id);
	fl_test_sql_text(db, q, status, sizeof(status));
	assert_string_equal(status, "infra-error");
	fl_run_result_release(&res);
	assert_string_equal(fl_run_status_name(FL_RUN_UNTESTABLE), "untestable");
	assert_string_equal(fl_run_status_name(FL_RUN_INFRA_ERROR), "infra-error");
}

/* What a sink was handed. */
struct handed {
	int records, guests, ends;
	char facts[512], console[512];
	enum fl_run_status status;
	double values[4];
	size_t nsamples;
};

static int record(void *arg, uint64_t seq, const char *type, const char *json, size_t len)
{
	(void)seq, (void)type, (void)json, (void)len;
	((struct handed *)arg)->records++;
	return 0;
}

static int guest(void *arg, const struct fl_machine_guest *g)
{
	(void)g;
	((struct handed *)arg)->guests++;
	return 0;
}

static int facts(void *arg, const char *json)
{
	struct handed *h = arg;

	snprintf(h->facts, sizeof(h->facts), "%s", json);
	return 0;
}

static int end(void *arg, const struct fl_machine_end *e)
{
	struct handed *h = arg;

	h->ends++;
	h->status = e->status;
	snprintf(h->console, sizeof(h->console), "%s", e->console ? e->console : "");
	h->nsamples = e->nsamples;
	for (size_t i = 0; i < e->nsamples && i < 4; i++)
		h->values[i] = e->samples[i].value;
	return 0;
}

static void test_sink(void **state)
{
	struct handed h = {0};
	const struct fl_run_sink sink = {record, guest, facts, end, &h};
	struct fl_run_req req = {.cfg = cfg,
				 .machine = fl_config_machine(cfg, "ok"),
				 .bench = fl_config_benchmark(cfg, "b"),
				 .tree = fl_config_tree(cfg, "t"),
				 .repo = repo,
				 .rev = c2,
				 .sha = c2,
				 .run_id = 4242,
				 .sink = &sink};
	long long runs = fl_test_sql_int(db, "SELECT count(*) FROM runs");
	struct fl_run_result res;

	(void)state;
	assert_int_equal(fl_machine_run(&req, &res), 0);
	assert_int_equal(res.status, FL_RUN_OK);
	assert_int_equal(res.run_id, 4242);
	assert_int_equal(h.ends, 1);
	assert_int_equal(h.status, FL_RUN_OK);
	assert_int_equal(h.nsamples, 2);
	assert_true(h.values[0] == 2 && h.values[1] == 2.5);
	assert_non_null(strstr(h.console, "warming up"));
	assert_non_null(strstr(h.console, "--- stderr ---\n7"));
	assert_non_null(strstr(h.facts, "\"cpus\":"));
	assert_int_equal(h.records + h.guests, 0); /* no agent, no guest */
	/* nothing of it in the store: keeping it is the dispatcher's */
	assert_int_equal(fl_test_sql_int(db, "SELECT count(*) FROM runs"), runs);
	fl_run_result_release(&res);

	/* untestable is handed over like any end; the dispatcher drops it */
	memset(&h, 0, sizeof(h));
	req.machine = fl_config_machine(cfg, "skip");
	assert_int_equal(fl_machine_run(&req, &res), 0);
	assert_int_equal(res.status, FL_RUN_UNTESTABLE);
	assert_int_equal(h.ends, 1);
	assert_int_equal(h.status, FL_RUN_UNTESTABLE);
	assert_int_equal(h.nsamples, 0);
	fl_run_result_release(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_samples),
	    cmocka_unit_test(test_failures),
	    cmocka_unit_test(test_infra),
	    cmocka_unit_test(test_sink),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
