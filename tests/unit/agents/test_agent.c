/* test_agent.c - fl-agent's job parsing (and the job the orchestrator
 * writes read back through it: proto/jobline.h), cpulists and task placement on
 * made-up topologies; the results store a box's test kernel leaves its
 * records in (written, read back, and read past what an earlier job left
 * on the partition); the table of tests (proto/testdef.h): whole, its
 * checks, and every test of it run for a second in each of its modes; what
 * a test measures where a rate alone would not show it (mmap1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "agents/bench.h"
#include "config/config.h"
#include "lib/error.h"
#include "machine/machine.h"
#include "machine/priv.h"
#include "proto/jobline.h"
#include "proto/record.h"
#include "proto/testdef.h"
#include "agents/results.h"
#include "agents/topo.h"

/* nodes x per_node CPUs numbered node by node, as sysfs lists them. */
static void make_topo(struct fl_topo *t, int nodes, int per_node)
{
	memset(t, 0, sizeof(*t));
	t->nnodes = nodes;
	for (int n = 0; n < nodes; n++)
		for (int c = 0; c < per_node; c++) {
			t->cpu[t->ncpus] = n * per_node + c;
			t->node_of[t->ncpus++] = n;
		}
}

/* The bit of a test in fl_bench_opts.tests. */
static uint64_t bit(const char *name)
{
	for (int i = 0; fl_testdefs[i]; i++)
		if (!strcmp(fl_testdefs[i]->name, name))
			return 1ull << i;
	fail_msg("no test %s in the table", name);
	return 0;
}

static void test_job(void **state)
{
	struct fl_bench_opts o;
	int counts[FL_BENCH_MAX_POINTS];

	(void)state;
	fl_bench_defaults(&o);
	assert_int_equal(fl_bench_parse_job(&o, "# a job\ntest=page_fault2,page_fault3\n"
					       "mode=threads;tasks=1,50%,100%\nwarmup=2s\n"
					       "duration=3\nmemory=16M\nplacement=pack\n"), 0);
	assert_int_equal(o.tests, bit("page_fault2") | bit("page_fault3"));
	assert_int_equal(o.modes[FL_MODE_PROCESSES], 0);
	assert_int_equal(o.modes[FL_MODE_THREADS], 1);
	assert_int_equal(o.warmup_s, 2);
	assert_int_equal(o.duration_s, 3);
	assert_int_equal(o.memsize, 16u << 20);
	assert_int_equal(o.place, FL_PLACE_PACK);
	assert_int_equal(fl_bench_task_counts(&o, 3, counts), 3);
	assert_int_equal(counts[0], 1);
	assert_int_equal(counts[1], 2);	/* 50% of 3 rounds up */
	assert_int_equal(counts[2], 3);
}

static void test_job_errors(void **state)
{
	struct fl_bench_opts o;

	(void)state;
	fl_bench_defaults(&o);
	assert_int_equal(fl_bench_parse_job(&o, "test=page_fault4"), FL_EINVAL);
	assert_string_equal(fl_error_last(), "bad value 'page_fault4' for test");
	assert_int_equal(fl_bench_parse_job(&o, "mode=fibers"), FL_EINVAL);
	assert_int_equal(fl_bench_parse_job(&o, "tasks=0"), FL_EINVAL);
	assert_int_equal(fl_bench_parse_job(&o, "duration=0s"), FL_EINVAL);
	assert_int_equal(fl_bench_parse_job(&o, "memory=12Q"), FL_EINVAL);
	assert_int_equal(fl_bench_parse_job(&o, "placement=heap"), FL_EINVAL);
	assert_string_equal(fl_error_last(), "bad value 'heap' for placement");
	assert_int_equal(fl_bench_parse_job(&o, "colour=blue"), FL_EINVAL);
	assert_string_equal(fl_error_last(), "unknown option 'colour'");
	assert_int_equal(fl_bench_parse_job(&o, "no equals sign"), FL_EINVAL);
	assert_string_equal(fl_error_last(), "job line 'no equals sign' is not key=value");
}

/* The orchestrator's job for a benchmark, read by the agent: the same run. */
static void test_job_round_trip(void **state)
{
	char *modes[] = {"processes", "threads"};
	struct fl_task_count tasks[] = {{1, 0}, {50, 1}, {100, 1}};
	struct fl_benchmark_conf b = {.name = "pf", .test = "page_fault2", .modes = modes,
				      .nmodes = 2, .tasks = tasks, .ntasks = 3,
				      .warmup_ms = 1500, .duration_ms = 3000,
				      .memory_per_task = 3ULL << 20, .placement = "pack"};
	const char *extra[] = {"hang=1", NULL};
	struct fl_run_req req = {.bench = &b, .job_extra = extra};
	struct fl_bench_opts o;
	int counts[FL_BENCH_MAX_POINTS];
	char *job;

	(void)state;
	assert_int_equal(fl_machine_job(&req, &job), 0);
	/* one word on the kernel command line */
	assert_null(strpbrk(job, " \t\n\"'"));
	fl_bench_defaults(&o);
	assert_int_equal(fl_bench_parse_job(&o, job), 0);
	assert_int_equal(o.tests, bit("page_fault2"));
	assert_int_equal(o.modes[FL_MODE_PROCESSES], 1);
	assert_int_equal(o.modes[FL_MODE_THREADS], 1);
	assert_int_equal(fl_bench_task_counts(&o, 4, counts), 3);
	assert_int_equal(counts[0], 1);
	assert_int_equal(counts[1], 2);
	assert_int_equal(counts[2], 4);
	assert_int_equal(o.warmup_s, 2); /* whole seconds, rounded up */
	assert_int_equal(o.duration_s, 3);
	assert_int_equal(o.memsize, 3ULL << 20);
	assert_int_equal(o.place, FL_PLACE_PACK);
	assert_true(o.timeout_s > 0);
	assert_int_equal(o.hang, 1);
	free(job);

	/* what the line cannot carry is refused on the writing side */
	extra[0] = "note=two words";
	assert_int_equal(fl_machine_job(&req, &job), FL_EINVAL);
	assert_non_null(strstr(fl_error_last(), "job key 'note=two words'"));
	extra[0] = "x;y=1";
	assert_int_equal(fl_machine_job(&req, &job), FL_EINVAL);
}

/* The agent's watchdog: twice the job's length and room to start, times
 * what a TCG guest with more vCPUs than the host has cores is slower by
 * (8 sockets on 2 cores ran out of a 42 s watchdog with lock tracing). */
static void test_job_watchdog(void **state)
{
	char *modes[] = {"processes"};
	struct fl_task_count tasks[] = {{4, 0}};
	struct fl_benchmark_conf b = {.name = "pf", .test = "page_fault2", .modes = modes,
				      .nmodes = 1, .tasks = tasks, .ntasks = 1,
				      .warmup_ms = 1000, .duration_ms = 3000,
				      .memory_per_task = 32ULL << 20, .placement = "spread"};
	struct fl_machine_conf m = {.name = "numa8", .backend = "libvirt", .accel = "tcg",
				    .sockets = 8, .cores = 1, .threads = 1};
	struct fl_run_req req = {.bench = &b};
	long host = sysconf(_SC_NPROCESSORS_ONLN), slow = host >= 8 ? 1 : (8 + host - 1) / host;
	struct fl_bench_opts o;
	char *job;

	(void)state;
	assert_int_equal(fl_machine_job(&req, &job), 0);
	fl_bench_defaults(&o);
	assert_int_equal(fl_bench_parse_job(&o, job), 0);
	assert_int_equal(o.timeout_s, 2 * (1 + 3 + 2) + 30);
	free(job);
	req.machine = &m;
	assert_int_equal(fl_machine_job(&req, &job), 0);
	fl_bench_defaults(&o);
	assert_int_equal(fl_bench_parse_job(&o, job), 0);
	assert_int_equal(o.timeout_s, 42 * slow);
	free(job);
	m.accel = "kvm";
	assert_int_equal(fl_machine_job(&req, &job), 0);
	fl_bench_defaults(&o);
	assert_int_equal(fl_bench_parse_job(&o, job), 0);
	assert_int_equal(o.timeout_s, 42);
	free(job);
	/* as many vCPUs as the host has cores: no slower */
	m.accel = "tcg";
	m.sockets = (unsigned)host;
	assert_int_equal(fl_machine_job(&req, &job), 0);
	fl_bench_defaults(&o);
	assert_int_equal(fl_bench_parse_job(&o, job), 0);
	assert_int_equal(o.timeout_s, 42);
	free(job);
}

/* A benchmark measured in the root and in a child memory cgroup: the job
 * names the contexts, the hierarchy and the limits, the agent reads them
 * back; a benchmark in the root only says nothing of cgroups (the line
 * agents that predate contexts read). */
static void test_job_cgroups(void **state)
{
	char *modes[] = {"threads"}, *contexts[] = {"root", "child"};
	struct fl_task_count tasks[] = {{2, 0}};
	struct fl_benchmark_conf b = {.name = "pf", .test = "page_fault2", .modes = modes,
				      .nmodes = 1, .tasks = tasks, .ntasks = 1,
				      .warmup_ms = 1000, .duration_ms = 3000,
				      .memory_per_task = 32ULL << 20, .placement = "spread",
				      .cgroups = contexts, .ncgroups = 2, .cgroup_version = "v1",
				      .memory_max = 512ULL << 20, .memory_high = 256ULL << 20};
	struct fl_run_req req = {.bench = &b};
	struct fl_bench_opts o;
	char *job;

	(void)state;
	assert_int_equal(fl_machine_points(&b), 2);
	assert_int_equal(fl_machine_job(&req, &job), 0);
	assert_non_null(strstr(job, ";cgroup=root,child;cgroup_version=v1;memory_max=512M;"
				    "memory_high=256M;"));
	fl_bench_defaults(&o);
	assert_int_equal(o.cgroups[FL_CGROUP_ROOT], 1);
	assert_int_equal(o.cgroups[FL_CGROUP_CHILD], 0);
	assert_int_equal(fl_bench_parse_job(&o, job), 0);
	assert_int_equal(o.cgroups[FL_CGROUP_ROOT], 1);
	assert_int_equal(o.cgroups[FL_CGROUP_CHILD], 1);
	assert_int_equal(o.cgroup_v1, 1);
	assert_int_equal(o.memory_max, 512ULL << 20);
	assert_int_equal(o.memory_high, 256ULL << 20);
	free(job);

	contexts[0] = "child";
	b.ncgroups = 1;
	b.cgroup_version = NULL;
	b.memory_max = b.memory_high = 0;
	assert_int_equal(fl_machine_job(&req, &job), 0);
	assert_non_null(strstr(job, ";cgroup=child;"));
	assert_null(strstr(job, "memory_max"));
	fl_bench_defaults(&o);
	assert_int_equal(fl_bench_parse_job(&o, job), 0);
	assert_int_equal(o.cgroups[FL_CGROUP_ROOT], 0);
	assert_int_equal(o.cgroups[FL_CGROUP_CHILD], 1);
	assert_int_equal(o.cgroup_v1, 0);
	free(job);

	contexts[0] = "root";
	assert_int_equal(fl_machine_job(&req, &job), 0);
	assert_null(strstr(job, "cgroup"));
	free(job);
	b.ncgroups = 0;
	assert_int_equal(fl_machine_points(&b), 1);

	fl_bench_defaults(&o);
	assert_int_equal(fl_bench_parse_job(&o, "cgroup=grandchild"), FL_EINVAL);
	assert_int_equal(fl_bench_parse_job(&o, "cgroup_version=v3"), FL_EINVAL);
	assert_int_equal(fl_bench_parse_job(&o, "memory_max=lots"), FL_EINVAL);
	assert_string_equal(fl_bench_cgroup_name(FL_CGROUP_CHILD), "child");
}

static int see(void *arg, const char *key, const char *value)
{
	char *seen = arg;

	if (!strcmp(key, "stop"))
		return 7;
	snprintf(seen + strlen(seen), 256 - strlen(seen), "[%s:%s]", key, value);
	return 0;
}

/* The line's own rules: separators, comments, value formats, refusals. */
static void test_jobline(void **state)
{
	struct fl_jobline j = {.len = 0};
	char why[128], seen[256], big[FL_JOB_MAX];
	uint64_t bytes;
	int s;

	(void)state;
	assert_int_equal(fl_jobline_add(&j, FL_JOB_TEST, "page_fault1"), 0);
	assert_int_equal(fl_jobline_add_size(&j, FL_JOB_MEMORY, 1536), 0);
	assert_int_equal(fl_jobline_add_size(&j, FL_JOB_MEMORY, 1000), 0);
	assert_int_equal(fl_jobline_add_seconds(&j, FL_JOB_WARMUP, 7), 0);
	assert_int_equal(fl_jobline_add(&j, "a key", "v"), -1);
	assert_int_equal(fl_jobline_add(&j, "k=", "v"), -1);
	assert_int_equal(fl_jobline_add(&j, "k", "it's"), -1);
	assert_int_equal(fl_jobline_add(&j, "k", ""), -1);
	assert_int_equal(fl_jobline_add_item(&j, "novalue"), -1);
	/* too long for either side: refused whole, the job as it was */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(fl_jobline_add(&j, "k", big), -1);
	big[sizeof(big) - 100] = '\0';
	assert_int_equal(fl_jobline_add(&j, "k", big), 0);
	j.text[j.len = strlen("test=page_fault1;memory=1536;memory=1000;warmup=7s")] = '\0';
	assert_string_equal(j.text, "test=page_fault1;memory=1536;memory=1000;warmup=7s");
	assert_int_equal(j.len, strlen(j.text));

	seen[0] = '\0';
	assert_int_equal(fl_jobline_parse("  # c\n;;x=1\n\ty=a=b;", see, seen, why, sizeof(why)),
			 0);
	assert_string_equal(seen, "[x:1][y:a=b]");
	assert_int_equal(fl_jobline_parse("x=1;stop=1;y=2", see, seen, why, sizeof(why)), 7);
	assert_int_equal(fl_jobline_parse("x", see, seen, why, sizeof(why)), -1);
	assert_string_equal(why, "job line 'x' is not key=value");
	assert_int_equal(fl_jobline_seconds("3600s", &s), 0);
	assert_int_equal(s, 3600);
	assert_int_equal(fl_jobline_seconds("3601", &s), -1);
	assert_int_equal(fl_jobline_seconds("2m", &s), -1);
	assert_int_equal(fl_jobline_bytes("2G", &bytes), 0);
	assert_int_equal(bytes, 2ULL << 30);
	assert_int_equal(fl_jobline_bytes("1536", &bytes), 0);
	assert_int_equal(bytes, 1536);
	assert_int_equal(fl_jobline_bytes("0", &bytes), -1);
	assert_int_equal(fl_jobline_bytes("2MB", &bytes), -1);
}

static void test_cpulist(void **state)
{
	int ids[16];

	(void)state;
	assert_int_equal(fl_cpulist_parse("0-3,8,10-11\n", ids, 16), 7);
	assert_int_equal(ids[4], 8);
	assert_int_equal(ids[6], 11);
	assert_int_equal(fl_cpulist_parse("", ids, 16), 0);
	assert_int_equal(fl_cpulist_parse("3-1", ids, 16), FL_EINVAL);
	assert_string_equal(fl_error_last(), "cpulist '3-1' is not a list of CPUs");
	assert_int_equal(fl_cpulist_parse("0-20", ids, 16), FL_EINVAL);
}

static void test_place_two_nodes(void **state)
{
	struct fl_topo t;
	int cpus[6];

	(void)state;
	make_topo(&t, 2, 2);	/* node0: 0,1  node1: 2,3 */
	fl_place_tasks(&t, FL_PLACE_SPREAD, 4, cpus);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[1], 2);
	assert_int_equal(cpus[2], 1);
	assert_int_equal(cpus[3], 3);
	fl_place_tasks(&t, FL_PLACE_PACK, 6, cpus);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[1], 1);
	assert_int_equal(cpus[2], 2);
	assert_int_equal(cpus[4], 0);	/* oversubscribed: wraps around */
	fl_place_tasks(&t, FL_PLACE_NONE, 2, cpus);
	assert_int_equal(cpus[0], -1);
}

static void test_place_uneven(void **state)
{
	struct fl_topo t;
	int cpus[5];

	(void)state;
	/* node0: 0, node1: 1,2,3, node2: 4 */
	memset(&t, 0, sizeof(t));
	t.nnodes = 3;
	t.ncpus = 5;
	for (int i = 0; i < 5; i++)
		t.cpu[i] = i;
	t.node_of[0] = 0;
	t.node_of[1] = t.node_of[2] = t.node_of[3] = 1;
	t.node_of[4] = 2;
	fl_place_tasks(&t, FL_PLACE_SPREAD, 5, cpus);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[1], 1);
	assert_int_equal(cpus[2], 4);
	assert_int_equal(cpus[3], 2);
	assert_int_equal(cpus[4], 3);
}

static void test_place_one_node(void **state)
{
	struct fl_topo t;
	int cpus[3];

	(void)state;
	make_topo(&t, 1, 3);
	fl_place_tasks(&t, FL_PLACE_SPREAD, 3, cpus);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[1], 1);
	assert_int_equal(cpus[2], 2);
}

static void test_results(void **state)
{
	char path[] = "/tmp/fl-results-XXXXXX", *frames;
	struct fl_record_writer w;
	struct fl_results r;
	uint64_t job;
	size_t len;
	FILE *f;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(fl_results_open(&r, path, 42, 0), 0);
	fl_record_writer_init(&w, fl_results_append, &r);
	assert_int_equal(fl_record_write(&w, "{\"type\":\"env\"}", 14), 0);
	assert_int_equal(fl_record_write(&w, "{\"type\":\"done\"}", 15), 0);
	fl_results_close(&r);
	assert_int_equal(fl_results_read(path, &job, &frames, &len), 0);
	assert_int_equal(job, 42);
	assert_non_null(strstr(frames, "FLR1 0 14 "));
	assert_non_null(strstr(frames, "FLR1 1 15 "));
	assert_int_equal(len, strlen(frames));
	free(frames);

	/* A partition: this job's frames, the NUL, then an older job's frames. */
	f = fopen(path, "w");
	fprintf(f, "FLRS1 job=7\nFLR1 0 2 00000000 {}\n");
	fputc('\0', f);
	fprintf(f, "FLR1 1 2 00000000 {}\nFLR1 2 2 00000000 {}\n");
	fclose(f);
	assert_int_equal(fl_results_read(path, &job, &frames, &len), 0);
	assert_int_equal(job, 7);
	assert_string_equal(frames, "FLR1 0 2 00000000 {}\n");
	free(frames);

	/* Never written: no header, no results. */
	f = fopen(path, "w");
	fprintf(f, "whatever the disk held\n");
	fclose(f);
	assert_int_equal(fl_results_read(path, &job, &frames, &len), 1);
	assert_null(frames);
	unlink(path);
	assert_int_equal(fl_results_read(path, &job, &frames, &len), FL_ENOTFOUND);
	assert_non_null(strstr(fl_error_last(), "No such file"));
	assert_int_equal(fl_results_open(&r, "/nonexistent/dir/store", 1, 0), FL_EIO);
	assert_non_null(strstr(fl_error_last(), "results store /nonexistent/dir/store: "));
}

/* Every test of the table says what it is and how it runs, under the name
 * its table line gives it, once. */
static void test_table(void **state)
{
	size_t n = 0;

	(void)state;
	for (; fl_testdefs[n]; n++) {
		const struct fl_testdef *t = fl_testdefs[n];

		assert_non_null(fl_testdef_names[n]);
		assert_string_equal(t->name, fl_testdef_names[n]);
		assert_ptr_equal(fl_testdef_find(t->name), t);
		assert_true(t->about && *t->about && t->op && *t->op);
		assert_true(t->modes && !(t->modes & ~(FL_TESTDEF_PROCESSES | FL_TESTDEF_THREADS)));
		assert_non_null(t->run);
		assert_true(t->ram_copies + t->tmp_copies > 0 || !t->open);
		for (size_t k = 0; k < n; k++)
			assert_string_not_equal(fl_testdefs[k]->name, t->name);
	}
	assert_null(fl_testdef_names[n]);
	assert_true(n >= 1 && n <= FL_TESTDEF_MAX);
	assert_null(fl_testdef_find("page_fault9"));
	assert_null(fl_testdef_find(NULL));
}

static int at_least_1m(const struct fl_testdef_params *p)
{
	return p->memory < (1 << 20) ? fl_error_set(FL_EINVAL, "under 1M") : 0;
}

/* One check for both sides: the modes a test runs in, its parameters. */
static void test_testdef_check(void **state)
{
	const struct fl_testdef threads_only = {.name = "t1",
						.about = "a",
						.op = "o",
						.modes = FL_TESTDEF_THREADS,
						.check = at_least_1m};
	const struct fl_testdef_params small = {.memory = 4096}, big = {.memory = 1 << 20};
	struct fl_bench_opts o;

	(void)state;
	assert_int_equal(fl_testdef_check(&threads_only, "threads", &big), 0);
	assert_int_equal(fl_testdef_check(&threads_only, "processes", NULL), FL_EINVAL);
	assert_string_equal(fl_error_last(), "t1 does not run as processes (only as threads)");
	assert_int_equal(fl_testdef_check(&threads_only, "fibers", NULL), FL_EINVAL);
	assert_string_equal(fl_error_last(), "unknown mode 'fibers' (processes or threads)");
	assert_int_equal(fl_testdef_check(&threads_only, NULL, &small), FL_EINVAL);
	assert_string_equal(fl_error_last(), "t1: under 1M");
	assert_int_equal(fl_testdef_check(&threads_only, NULL, NULL), 0);

	/* the agent checks its job with it: page_fault1 maps at least a page */
	fl_bench_defaults(&o);
	assert_int_equal(fl_bench_parse_job(&o, "test=page_fault1;mode=processes,threads"), 0);
	assert_int_equal(fl_bench_check(&o), 0);
	assert_int_equal(fl_bench_parse_job(&o, "memory=1K"), 0);
	assert_int_equal(fl_bench_check(&o), FL_EINVAL);
	assert_non_null(strstr(fl_error_last(), "page_fault1: 1024 bytes per task is less than a "
						"page"));
}

/* A point of one task for one second, no warm-up, unpinned, on one CPU. */
struct short_point {
	struct fl_topo t;
	struct fl_bench_opts o;
	struct fl_bench_point pt;
	uint64_t ops[1];
	int cpu[1];
};

static void short_point(struct short_point *s, const struct fl_testdef *test,
			enum fl_bench_mode mode, uint64_t memory)
{
	memset(s, 0, sizeof(*s));
	make_topo(&s->t, 1, 1);
	fl_bench_defaults(&s->o);
	s->o.warmup_s = 0;
	s->o.duration_s = 1;
	s->o.memsize = memory;
	s->o.place = FL_PLACE_NONE;
	s->pt = (struct fl_bench_point){
	    .test = test, .mode = mode, .ntasks = 1, .task_ops = s->ops, .task_cpu = s->cpu};
}

/* Each test of the table runs, in each mode it has: one task, one second,
 * its operations counted. A new test is run here without a line of its own. */
static void test_every_test_runs(void **state)
{
	static struct short_point s;

	(void)state;
	for (int i = 0; fl_testdefs[i]; i++)
		for (int m = 0; m < 2; m++) {
			if (!(fl_testdefs[i]->modes & 1u << m))
				continue;
			short_point(&s, fl_testdefs[i], (enum fl_bench_mode)m, 1 << 20);
			if (fl_bench_run(&s.o, &s.t, &s.pt))
				fail_msg("%s %s: %s", s.pt.test->name,
					 fl_bench_mode_name(s.pt.mode), fl_error_last());
			assert_int_equal(s.pt.nsamples, 1);
			if (!(s.pt.average > 0 && s.ops[0] > 0))
				fail_msg("%s %s counted no operation", s.pt.test->name,
					 fl_bench_mode_name(s.pt.mode));
		}
}

/* mmap1 counts mmap and munmap pairs and touches none of the memory it
 * maps: as threads of this process, its second makes tens of thousands of
 * pairs of 64M each and hardly a page fault (the agent's own few), where
 * touching the pages would fault each. */
static void test_mmap1(void **state)
{
	static struct short_point s;
	struct rusage before, after;
	long faults;

	(void)state;
	assert_non_null(fl_testdef_find("mmap1"));
	short_point(&s, fl_testdef_find("mmap1"), FL_MODE_THREADS, 64 << 20);
	assert_int_equal(getrusage(RUSAGE_SELF, &before), 0);
	assert_int_equal(fl_bench_run(&s.o, &s.t, &s.pt), 0);
	assert_int_equal(getrusage(RUSAGE_SELF, &after), 0);
	faults = after.ru_minflt - before.ru_minflt;
	if (s.ops[0] < 1000 || (uint64_t)faults * 10 > s.ops[0])
		fail_msg("mmap1: %llu pairs, %ld page faults", (unsigned long long)s.ops[0],
			 faults);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job),
		cmocka_unit_test(test_job_errors),
		cmocka_unit_test(test_job_round_trip),
		cmocka_unit_test(test_job_watchdog),
		cmocka_unit_test(test_job_cgroups),
		cmocka_unit_test(test_jobline),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_place_two_nodes),
		cmocka_unit_test(test_place_uneven),
		cmocka_unit_test(test_place_one_node),
		cmocka_unit_test(test_results),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_testdef_check),
		cmocka_unit_test(test_every_test_runs),
		cmocka_unit_test(test_mmap1),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
