/*
 * test_report.c - the report of a regression on a kernel (libvirt) machine,
 * rendered from a store this test fills the way the watch service does: a
 * compare job whose base and new runs measured the tags, a bisection that
 * found the culprit, the bisect job's runs of the culprit and its parent,
 * each run with its guest's facts, environment, samples and evidence. The
 * mail shows the machine as its guest saw it, compare.c's tables (one value
 * per run) with the vmstat and profile sections, and commands to reproduce
 * that name the tree, the revisions and the comparison, with nothing of this
 * host in them (a configuration written in the mail, the attached .config).
 * The report step stores it with that .config as its attachment, the
 * kernel config's name and the compiler said, the subject in the shape
 * "[tree:branch] [subsystem] sha10: metric -N% regression".
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
#include "service/pipeline.h"
#include "service/report.h"
#include "service/service.h"
#include "store/bisect.h"
#include "store/evidence.h"
#include "store/jobs.h"
#include "store/run.h"
#include "store/watch.h"
#include "store/store.h"
#include "testlib.h"

#define GIT   "cd %s/src && " FL_TEST_GIT
#define NRUNS 5

static char dir[64];
static char sha[3][41]; /* good (v1), the culprit's parent, the culprit (v2) */
static struct fl_config *cfg;
static fl_store *st;
static int64_t machine_id, commit_id[3], build_id[3];

/* One ok run of commit k: per_thread_ops at 2 tasks around speed (run
 * means 0.1% apart), five seconds, with pgfault and a profile whose lock
 * share is spin. */
static int64_t add_run(int k, int run, double speed, double spin, int traced)
{
	struct fl_run_new rn = {machine_id, build_id[k], commit_id[k], "pf2", "{}", NULL, NULL, NULL, 0};
	struct fl_run_guest g = {"fl-test", "tcg",
				 "{\"uri\":\"qemu:///system\",\"sockets\":2,\"cores\":1,"
				 "\"threads\":1,\"memory_per_node\":536870912,\"accel\":\"tcg\"}",
				 NULL, 0};
	struct fl_sample s[5];
	struct fl_vmstat_row vm = {"pgfault", (int64_t)(5 * speed), speed};
	struct fl_profile_row fn[2] = {
	    {"_raw_spin_lock", (uint64_t)(1000 * spin), spin},
	    {"clear_page_erms", (uint64_t)(1000 * (0.8 - spin)), 0.8 - spin}};
	struct fl_evidence_row res = {.test = "page_fault2",
				      .mode = "threads",
				      .tasks = 2,
				      .measured_s = 5,
				      .vm = &vm,
				      .nvm = 1,
				      .profile = "recorded"};
	struct fl_evidence_row prof = {.is_profile = 1,
				       .test = "page_fault2",
				       .mode = "threads",
				       .tasks = 2,
				       .profile = "recorded",
				       .profile_samples = 1000,
				       .fn = fn,
				       .nfn = 2};
	/* lock contention: the lruvec lock level everywhere, root_usage only
	 * where the spin share is high (the culprit) */
	struct fl_lock_row lk[2] = {
	    {"root_usage", "symbol", 40000, 40000, 2000000000, 318000,
	     "23442 root_usage_update <- charge_memcg\n18431 root_usage_update <- uncharge_folio"},
	    {"folio_lruvec_lock_irqsave", "caller", 100, 100, 100000, 2000,
	     "100 folio_lruvec_lock_irqsave <- release_pages"}};
	struct fl_evidence_row locks = {.is_locks = 1,
					.test = "page_fault2",
					.mode = "threads",
					.tasks = 2,
					.locks = traced ? "recorded" : "off",
					.lk = spin > 0.3 ? lk : lk + 1,
					.nlk = !traced ? 0 : spin > 0.3 ? 2 : 1};
	struct fl_run_end e = {.status = "ok",
			       .nodes = 2,
			       .cpus = 2,
			       .kernel_release = "6.1.0-fl",
			       .samples = s,
			       .nsamples = 5};
	int64_t id;

	for (unsigned i = 0; i < 5; i++)
		s[i] = (struct fl_sample){"per_thread_ops", "threads", 2, i,
					  speed * (1 + 0.001 * (run - 2) + 0.002 * ((int)i - 2)), NULL};
	assert_int_equal(fl_store_run_start(st, &rn, &id), 0);
	assert_int_equal(fl_store_run_guest(st, id, &g), 0);
	assert_int_equal(fl_store_run_end(st, id, &e), 0);
	assert_int_equal(fl_store_tx_begin(st), 0);
	assert_int_equal(fl_store_evidence_add(st, id, &res), 0);
	assert_int_equal(fl_store_evidence_add(st, id, &prof), 0);
	assert_int_equal(fl_store_evidence_add(st, id, &locks), 0);
	assert_int_equal(fl_store_tx_commit(st), 0);
	return id;
}

/* A done run job under parent, measuring commit k, whose run is run_id. */
static void add_run_job(int64_t parent, const char *role, int k, int seq, int64_t run_id)
{
	char key[64];
	struct fl_job_new j = {.kind = fl_job_kind_name(FL_JOB_RUN),
			       .state = "queued",
			       .key = key,
			       .parent_id = parent,
			       .tree = "linux",
			       .machine = "numa2",
			       .benchmark = "pf2",
			       .rev = sha[k],
			       .role = role,
			       .seq = seq};
	int64_t id;

	snprintf(key, sizeof(key), "run:%lld:%d", (long long)parent, seq);
	assert_int_equal(fl_store_job_add(st, &j, &id, NULL), 0);
	assert_int_equal(fl_store_job_run_done(st, id, "done", "ok", run_id, NULL), 0);
}

static int setup(void **state)
{
	char path[128];
	FILE *f;

	(void)state;
	if (fl_test_tmpdir(dir, sizeof(dir), "report") ||
	    fl_test_sh("mkdir %s/src && " GIT "init -q && " GIT
		       "commit -q --allow-empty -m one && " GIT "tag v1 && " GIT
		       "commit -q --allow-empty -m two && " GIT
		       "commit -q --allow-empty -m 'mm: memcontrol: use root_mem_cgroup "
		       "res_counter' && " GIT "tag v2",
		       dir, dir, dir, dir, dir, dir, dir) ||
	    fl_test_out(sha[0], 41, GIT "rev-parse v1", dir) ||
	    fl_test_out(sha[1], 41, GIT "rev-parse v2^", dir) ||
	    fl_test_out(sha[2], 41, GIT "rev-parse v2", dir))
		return -1;
	snprintf(path, sizeof(path), "%s/fl.yaml", dir);
	f = fopen(path, "w");
	fprintf(f,
		"var: %s/var\nstore: { path: %s/fl.db }\n"
		"trees: [ { name: linux, url: %s/src, tags: ['v*'] } ]\n"
		"kernels: [ { name: small, base: tinyconfig } ]\n"
		"machines: [ { name: numa2, backend: libvirt, uri: 'qemu:///system', accel: auto,"
		" sockets: 2, memory_per_node: 512M } ]\n"
		"benchmarks: [ { name: pf2, test: page_fault2, modes: [threads], tasks: [2],"
		" repeat: %d } ]\n"
		"report: { url: 'http://results.example' }\n",
		dir, dir, dir, NRUNS);
	fclose(f);
	if (fl_config_load(&cfg, path))
		return -1;
	return fl_store_open(&st, fl_test_store(cfg->store.path), 0) || fl_pipeline_prepare(st, cfg);
}

static int teardown(void **state)
{
	(void)state;
	fl_store_free(st);
	fl_config_free(cfg);
	return fl_test_rmtree(dir);
}

static void test_kernel_machine_report(void **state)
{
	struct fl_service svc;
	int64_t tree, compare_job, bisect_job, reg, bid, first_culprit_run = 0;
	struct fl_job_new cj = {.kind = fl_job_kind_name(FL_JOB_COMPARE),
				.state = "queued",
				.key = "compare:1",
				.tree = "linux",
				.machine = "numa2",
				.benchmark = "pf2"};
	struct fl_job compare;
	char *subject, *body, want[512];
	int resumed, seq = 0;

	(void)state;
	assert_int_equal(fl_store_tree_ensure(st, "linux", cfg->trees[0].url, &tree), 0);
	for (int k = 0; k < 3; k++) {
		struct fl_commit_info c = {sha[k], "a change", "A. Developer", 0};

		assert_int_equal(fl_store_commit_ensure(st, tree, &c, &commit_id[k]), 0);
	}
	assert_int_equal(fl_store_machine_ensure(st, "numa2", "libvirt", &machine_id), 0);
	/* each commit's build, its artifact with the .config */
	for (int k = 0; k < 3; k++) {
		char art[128], path[160];
		FILE *f;

		snprintf(art, sizeof(art), "%s/var/artifacts/%d", dir, k);
		snprintf(path, sizeof(path), "%s/config", art);
		assert_int_equal(fl_test_sh("mkdir -p %s", art), 0);
		f = fopen(path, "w");
		fprintf(f, "# Linux/x86 6.1.0 Kernel Configuration\nCONFIG_SMP=y\nCONFIG_MEMCG=%s\n",
			k ? "y" : "n");
		fclose(f);
		assert_int_equal(fl_store_build_start(st, commit_id[k], "small", "cafe", "gcc (Debian "
				 "12.2.0-14) 12.2.0", &build_id[k]), 0);
		assert_int_equal(fl_store_build_finish(st, build_id[k],
						       &(struct fl_build_outcome){.status = "ok",
										 .artifact = art}),
				 0);
	}
	/* the tags: v1 against v2, five runs each, -25% */
	assert_int_equal(fl_store_job_add(st, &cj, &compare_job, NULL), 0);
	for (int run = 0; run < NRUNS; run++) {
		add_run_job(compare_job, "base", 0, seq++, add_run(0, run, 100000, 0.10, 1));
		add_run_job(compare_job, "new", 2, seq++, add_run(2, run, 75000, 0.68, 1));
	}
	struct fl_regression_new g = {
	    compare_job, tree, commit_id[0], commit_id[2], machine_id, "pf2", "per_thread_ops",
	    "threads",	 2,    -25.0,	     0.0079, NULL};
	assert_int_equal(fl_store_regression_add(st, &g, &reg), 0);
	/* the bisection: the culprit, measured against its parent */
	assert_int_equal(fl_store_regression_bisection(st, reg, sha[0], sha[2], &bid, &resumed), 0);
	assert_int_equal(fl_store_bisection_finish(st, bid, "culprit", sha[2], 0.99), 0);
	/* the bisect job as the compare step adds it, which the report finds by its key */
	assert_int_equal(fl_store_job_get(st, compare_job, &compare), 0);
	assert_int_equal(
	    fl_service_enqueue(st, FL_JOB_BISECT,
			       &(struct fl_job_spec){.from = &compare, .regression_id = reg},
			       &bisect_job),
	    0);
	fl_job_release(&compare);
	for (int run = 0; run < NRUNS; run++) {
		int64_t c = add_run(2, run, 76000, 0.66, 0);

		first_culprit_run = first_culprit_run ? first_culprit_run : c;
		add_run_job(bisect_job, "bisect", 1, seq++, add_run(1, run, 101000, 0.11, 0));
		add_run_job(bisect_job, "bisect", 2, seq++, c);
	}

	fl_service_init(&svc, cfg);
	assert_int_equal(fl_report_render(&svc, st, reg, &subject, &body), 0);
	fprintf(stderr, "%s\n%s", subject, body);
	/* the first line: the regression's headline, the tags' change every page shows;
	 * the culprit against its parent (compare.c's row) a second number, said so */
	assert_non_null(strstr(body, "faultline noticed a -25.0% regression of "
				     "pf2.threads.per_thread_ops due to commit:"));
	assert_non_null(strstr(body, "The culprit against its parent: -24.8%, on the bisection's "
				     "runs of the two (5 + 5), on the same machine.\n"));
	/* the machine as the culprit's first run saw it */
	assert_non_null(strstr(body, "on test machine: numa2: 2 sockets, 2 NUMA nodes, 2 CPUs, 1G "
				     "memory, accelerator tcg (libvirt qemu:///system)\n"));
	snprintf(want, sizeof(want), "as the guest of run %lld saw it, kernel 6.1.0-fl",
		 (long long)first_culprit_run);
	assert_non_null(strstr(body, want));
	/* the culprit's table, then the tags': one value per run, five a side */
	assert_non_null(strstr(body, "pf2.threads.per_thread_ops tasks=2  DIFFERENT p=0.0079 "
				     "n=5+5  REGRESSION\n"));
	assert_non_null(strstr(body,
			       "    101000           -24.8%      76000        "
			       "pf2.threads.per_thread_ops tasks=2  DIFFERENT p=0.0079 n=5+5  "
			       "REGRESSION\n"));
	assert_non_null(strstr(body, "    100000           -25.0%      75000        "
				     "pf2.threads.per_thread_ops tasks=2"));
	/* vmstat and profile sections of both tables */
	assert_non_null(strstr(body, "    101000           -24.8%      76000        "
				     "pf2.threads.vmstat.pgfault/s tasks=2\n"));
	assert_non_null(strstr(body, "     11.00            +55.0      66.00        "
				     "pf2.threads.profile._raw_spin_lock tasks=2\n"));
	assert_non_null(strstr(body, "     69.00            -55.0      14.00        "
				     "pf2.threads.profile.clear_page_erms tasks=2\n"));
	assert_non_null(strstr(body, "     10.00            +58.0      68.00        "
				     "pf2.threads.profile._raw_spin_lock tasks=2\n"));
	assert_null(strstr(body, "carry no vmstat or profile records"));
	/* the lock that got hot, named, counted, timed, with its chains: in
	 * the tags' table and in its own section; the bisection's runs did not
	 * trace (pipeline.h), and the culprit's table says so */
	assert_non_null(strstr(body, "# no lock contention in "));
	assert_non_null(strstr(body, ": not traced on this run (see bench/README.md, lockcost)\n"));
	assert_non_null(strstr(body, "      0.00                        8000        "
				     "pf2.threads.lock_stat.root_usage.contentions/s tasks=2\n"
				     "                                  chain: 23442 root_usage_update "
				     "<- charge_memcg\n"));
	snprintf(want, sizeof(want),
		 "\nlock contention (lock:contention_begin/end tracepoints, %s against %s, "
		 "the locks whose wait time moved beyond the runs' noise first):\n"
		 "  root_usage (threads tasks=2): 0 -> 8000 contentions/s, waiting 0.0 -> 400.0 "
		 "ms/s, longest wait 0 -> 318 us\n"
		 "    chain: 23442 root_usage_update <- charge_memcg\n"
		 "    chain: 18431 root_usage_update <- uncharge_folio\n\nBisection",
		 sha[2], sha[0]);
	if (!strstr(body, want))
		fail_msg("no lock section like\n%s\nin\n%s", want, body);
	/* the level lruvec lock is not a row */
	assert_null(strstr(body, "lock_stat.folio_lruvec_lock_irqsave"));
	/* the kernel config and the compiler of the culprit's first run */
	snprintf(want, sizeof(want),
		 "kernel config: small (the .config is attached as config-%.10s)\ncompiler: gcc "
		 "(Debian 12.2.0-14) 12.2.0\n",
		 sha[2]);
	assert_non_null(strstr(body, want));
	assert_non_null(strstr(body, "| Reported-by: faultline@localhost\n| Closes: "
				     "http://results.example/regression/1\n"));
	/* commands a recipient runs: the configuration written in the mail, none of this host */
	assert_non_null(strstr(body, "\tcat >repro.yaml <<-'EOF'\n"));
	snprintf(want, sizeof(want), "\t  - { name: \"small\", base: ./config-%.10s }", sha[2]);
	assert_non_null(strstr(body, want));
	assert_non_null(strstr(body, "\t  - { name: \"numa2\", backend: libvirt, sockets: 2, "
				     "cores: 1, threads: 1, memory_per_node: 512M }\n"));
	assert_non_null(strstr(body, "test: page_fault2, modes: [\"threads\"], tasks: [2]"));
	snprintf(want, sizeof(want), "\tfaultline build --config repro.yaml --tree linux --rev %s\n",
		 sha[2]);
	assert_non_null(strstr(body, want));
	snprintf(want, sizeof(want),
		 "\tfaultline run --config repro.yaml --machine numa2 --benchmark pf2 --tree linux "
		 "--rev %s --repeat %d\n",
		 sha[1], NRUNS);
	assert_non_null(strstr(body, want));
	snprintf(want, sizeof(want),
		 "\tfaultline compare --config repro.yaml --a %s --b %s --benchmark pf2 --machine "
		 "numa2\n",
		 sha[1], sha[2]);
	assert_non_null(strstr(body, want));
	assert_non_null(strstr(body, "\tfl-agent bench --test page_fault2 --mode threads --tasks 2 "
				     "--warmup 2s --duration 5s --memory 128M --placement spread\n"));
	/* the tree has no public URL: said, and no local path instead */
	assert_non_null(strstr(body, "the tree 'linux' has no public URL"));
	assert_null(strstr(body, dir));
	assert_null(strstr(body, "git clone"));
	snprintf(want, sizeof(want), "[linux] [mm] %.10s: pf2.threads.per_thread_ops -25.0%% "
		 "regression", sha[2]);
	assert_string_equal(subject, want);
	free(subject);
	free(body);

	/* the report step: stored with the .config attached, to report.to (none here) */
	{
		struct fl_job bj, rj;
		struct fl_report rep;
		int64_t report_job;

		assert_int_equal(fl_store_job_get(st, bisect_job, &bj), 0);
		assert_int_equal(
		    fl_service_enqueue(st, FL_JOB_REPORT,
				       &(struct fl_job_spec){.from = &bj, .regression_id = reg},
				       &report_job),
		    0);
		assert_int_equal(fl_store_job_get(st, report_job, &rj), 0);
		assert_int_equal(fl_report_step(&svc, st, &rj), 0);
		assert_int_equal(fl_store_report_first(st, reg, &rep), 0);
		snprintf(want, sizeof(want), "config-%.10s", sha[2]);
		assert_string_equal(rep.attach_name, want);
		assert_non_null(strstr(rep.attach, "CONFIG_MEMCG=y\n"));
		/* hold mode, the default: whom it would have reached is kept and said */
		assert_non_null(rep.held);
		assert_non_null(strstr(rep.held, "to \"A U Thor\" <a@u.th>\ncc \"C\" <c@o.m>\n"));
		assert_null(rep.recipients); /* report.to is empty: the outbox's list */
		assert_non_null(strstr(rep.body, "[held: report.routing is 'hold'"));
		fl_store_report_clear(&rep);
		fl_job_release(&bj);
		fl_job_release(&rj);
	}
	fl_service_release(&svc);
	return;
	free(subject);
	free(body);
	fl_service_release(&svc);
}

/* The subject's [subsystem]: the culprit subject's first "word: " prefix. */
static void test_subsystem(void **state)
{
	static const char *const cases[][2] = {
	    {"mm: memcontrol: use root_mem_cgroup res_counter", "mm"},
	    {"x86/mm: flush less", "x86/mm"},
	    {"drm/i915/gt: fix a leak", "drm/i915/gt"},
	    {"Revert \"mm: slower\"", NULL},
	    {"fix a bug: now", NULL},
	    {"mm:no space after the colon", NULL},
	    {"Merge branch 'akpm'", NULL},
	    {"evil\r\nBcc: x: y", NULL},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = fl_report_subsystem(cases[i][0]);

		if (cases[i][1])
			assert_string_equal(got, cases[i][1]);
		else
			assert_null(got);
		free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_subsystem),
	    cmocka_unit_test(test_kernel_machine_report),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
