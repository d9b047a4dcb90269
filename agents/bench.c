/*
 * bench.c - the options, the tasks of a point (started, pinned, stopped;
 * what they do is their test's, proto/testdef.h) and the sampling parent
 * (see bench.h).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agents/bench.h"
#include "proto/error.h"
#include "proto/jobline.h"

/* One counter per 128 bytes: adjacent-line prefetch on x86 pairs lines, and
 * tasks sharing a pair would measure cache-line bouncing, not page faults. */
#define COUNTER_STRIDE (128 / sizeof(uint64_t))

_Static_assert(FL_TESTDEF_PROCESSES == 1u << FL_MODE_PROCESSES &&
		   FL_TESTDEF_THREADS == 1u << FL_MODE_THREADS,
	       "a test's modes are bits of enum fl_bench_mode");

const char *fl_bench_mode_name(enum fl_bench_mode m)
{
	return m == FL_MODE_THREADS ? "threads" : "processes";
}

const char *fl_bench_cgroup_name(enum fl_bench_cgroup c)
{
	return c == FL_CGROUP_CHILD ? "child" : "root";
}

void fl_bench_defaults(struct fl_bench_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->tests = 1;
	o->modes[FL_MODE_PROCESSES] = 1;
	o->cgroups[FL_CGROUP_ROOT] = 1;
	o->ntask_specs = 1;
	o->task_spec[0] = 1;
	o->warmup_s = 1;
	o->duration_s = 5;
	o->memsize = 128ull << 20;	/* will-it-scale's MEMSIZE */
	o->place = FL_PLACE_SPREAD;
	o->locks = 0; /* on for a guest's PID 1 (guest.c) */
}

/* Calls fn on each comma-separated item of s. */
static int each_item(const char *s, int (*fn)(struct fl_bench_opts *, const char *),
		     struct fl_bench_opts *o)
{
	char buf[512], *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (fn(o, t))
			return -1;
	return 0;
}

static int add_test(struct fl_bench_opts *o, const char *t)
{
	for (int i = 0; fl_testdefs[i]; i++)
		if (!strcmp(t, fl_testdefs[i]->name))
			return o->tests |= 1ull << i, 0;
	return -1;
}

static int add_mode(struct fl_bench_opts *o, const char *t)
{
	if (!strcmp(t, "processes"))
		o->modes[FL_MODE_PROCESSES] = 1;
	else if (!strcmp(t, "threads"))
		o->modes[FL_MODE_THREADS] = 1;
	else
		return -1;
	return 0;
}

static int add_cgroup(struct fl_bench_opts *o, const char *t)
{
	if (!strcmp(t, "root"))
		o->cgroups[FL_CGROUP_ROOT] = 1;
	else if (!strcmp(t, "child"))
		o->cgroups[FL_CGROUP_CHILD] = 1;
	else
		return -1;
	return 0;
}

static int add_tasks(struct fl_bench_opts *o, const char *t)
{
	char *end;
	long v = strtol(t, &end, 10);

	if (end == t || v <= 0 || o->ntask_specs >= FL_BENCH_MAX_POINTS)
		return -1;
	if (!strcmp(end, "%") && v <= 1000)
		o->task_spec[o->ntask_specs++] = (int)-v;
	else if (!*end && v <= FL_BENCH_MAX_TASKS)
		o->task_spec[o->ntask_specs++] = (int)v;
	else
		return -1;
	return 0;
}

static int set_list(struct fl_bench_opts *o, const char *key, const char *val)
{
	if (!strcmp(key, FL_JOB_TEST)) {
		o->tests = 0;
		return each_item(val, add_test, o);
	}
	if (!strcmp(key, FL_JOB_MODE)) {
		memset(o->modes, 0, sizeof(o->modes));
		return each_item(val, add_mode, o);
	}
	if (!strcmp(key, FL_JOB_CGROUP)) {
		memset(o->cgroups, 0, sizeof(o->cgroups));
		return each_item(val, add_cgroup, o);
	}
	o->ntask_specs = 0;
	return each_item(val, add_tasks, o);
}

int fl_bench_set(struct fl_bench_opts *o, const char *key, const char *val)
{
	int r;

	if (!strcmp(key, FL_JOB_TEST) || !strcmp(key, FL_JOB_MODE) || !strcmp(key, FL_JOB_TASKS) ||
	    !strcmp(key, FL_JOB_CGROUP))
		r = set_list(o, key, val);
	else if (!strcmp(key, FL_JOB_CGROUP_VERSION))
		r = !strcmp(val, "v1") ? (o->cgroup_v1 = 1, 0) :
		    !strcmp(val, "v2") ? (o->cgroup_v1 = 0, 0) : -1;
	else if (!strcmp(key, FL_JOB_MEMORY_MAX))
		r = fl_jobline_bytes(val, &o->memory_max);
	else if (!strcmp(key, FL_JOB_MEMORY_HIGH))
		r = fl_jobline_bytes(val, &o->memory_high);
	else if (!strcmp(key, FL_JOB_WARMUP))
		r = fl_jobline_seconds(val, &o->warmup_s);
	else if (!strcmp(key, FL_JOB_DURATION))
		r = fl_jobline_seconds(val, &o->duration_s) || o->duration_s < 1 ||
		    o->duration_s > 600 ? -1 : 0;
	else if (!strcmp(key, FL_JOB_TIMEOUT))
		r = fl_jobline_seconds(val, &o->timeout_s);
	else if (!strcmp(key, FL_JOB_MEMORY))
		r = fl_jobline_bytes(val, &o->memsize);
	else if (!strcmp(key, FL_JOB_PLACEMENT))
		r = fl_place_parse(val, &o->place);
	else if (!strcmp(key, FL_JOB_HANG))
		r = (o->hang = !strcmp(val, "1"), 0);
	else if (!strcmp(key, FL_JOB_LOCKS))
		r = !strcmp(val, "on") ? (o->locks = 1, 0) : !strcmp(val, "off") ? (o->locks = 0, 0)
		    : !strcmp(val, "cost") ? (o->locks = 2, 0) : -1;
	else
		return fl_error_set(FL_EINVAL, "unknown option '%s'", key);
	if (r || (!strcmp(key, FL_JOB_TEST) && !o->tests) ||
	    (!strcmp(key, FL_JOB_MODE) && !(o->modes[0] | o->modes[1])) ||
	    (!strcmp(key, FL_JOB_CGROUP) && !(o->cgroups[0] | o->cgroups[1])) ||
	    (!strcmp(key, FL_JOB_TASKS) && !o->ntask_specs))
		return fl_error_set(FL_EINVAL, "bad value '%s' for %s", val, key);
	return 0;
}

static int set_item(void *arg, const char *key, const char *val)
{
	return fl_bench_set(arg, key, val);
}

int fl_bench_parse_job(struct fl_bench_opts *o, const char *text)
{
	char why[256];
	int r = fl_jobline_parse(text, set_item, o, why, sizeof(why));

	/* -1 is the line's own refusal; fl_bench_set's codes come back as they are */
	if (r == -1)
		return fl_error_set(FL_EINVAL, "%s", why[0] ? why : "the job cannot be read");
	return r;
}

int fl_bench_check(const struct fl_bench_opts *o)
{
	const struct fl_testdef_params p = {.memory = o->memsize};
	int r;

	for (int i = 0; fl_testdefs[i]; i++)
		for (int m = 0; m < 2 && (o->tests >> i & 1); m++)
			if (o->modes[m] &&
			    (r = fl_testdef_check(fl_testdefs[i], fl_bench_mode_name(m), &p)))
				return r;
	return 0;
}

int fl_bench_task_counts(const struct fl_bench_opts *o, int ncpus, int *counts)
{
	for (int i = 0; i < o->ntask_specs; i++) {
		int s = o->task_spec[i];

		/* Percentages round up: 50% of 3 CPUs is 2 tasks, never 0. */
		counts[i] = s > 0 ? s : (-s * ncpus + 99) / 100;
		if (counts[i] < 1)
			counts[i] = 1;
		if (counts[i] > FL_BENCH_MAX_TASKS)
			counts[i] = FL_BENCH_MAX_TASKS;
	}
	return o->ntask_specs;
}

static long long meminfo_kb(const char *field)
{
	char line[256];
	long long v = -1;
	size_t n = strlen(field);
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':') {
			v = atoll(line + n + 1);
			break;
		}
	fclose(f);
	return v;
}

int fl_bench_fits(const struct fl_testdef *test, int ntasks, uint64_t memsize)
{
	uint64_t need = test->ram_copies * memsize * (uint64_t)ntasks;
	uint64_t tmp = test->tmp_copies * memsize * (uint64_t)ntasks;
	long long avail = meminfo_kb("MemAvailable");
	struct statvfs vfs;

	if (avail < 0)
		avail = meminfo_kb("MemFree");
	/* Leave a tenth for the kernel and the agent: an OOM kill would lose
	 * the whole run, a refusal loses one point. */
	if (avail >= 0 && need > (uint64_t)avail * 1024 / 10 * 9)
		return fl_error_set(FL_EINVAL,
				    "%s with %d tasks needs %llu MiB, only %lld MiB available "
				    "(use a smaller memory= per task)",
				    test->name, ntasks, (unsigned long long)(need >> 20),
				    avail >> 10);
	if (tmp && !statvfs("/tmp", &vfs) && tmp > (uint64_t)vfs.f_bavail * vfs.f_frsize)
		return fl_error_set(
		    FL_EINVAL, "%s with %d tasks needs %llu MiB in /tmp, only %llu MiB free",
		    test->name, ntasks, (unsigned long long)(tmp >> 20),
		    (unsigned long long)((uint64_t)vfs.f_bavail * vfs.f_frsize >> 20));
	return 0;
}

/* ---- the tasks ------------------------------------------------------- */

struct task {
	struct fl_testdef_task t; /* what its test's open, run and close get */
	int cpu;
};

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *thread_main(void *arg)
{
	struct task *t = arg;

	pin(t->cpu);
	t->t.test->run(&t->t);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t sum_counters(volatile uint64_t *c, int n, uint64_t *each)
{
	uint64_t s = 0;

	for (int i = 0; i < n; i++) {
		each[i] = c[(size_t)i * COUNTER_STRIDE];
		s += each[i];
	}
	return s;
}

/* Sleeps to an absolute deadline so sampling does not drift. */
static void sleep_until(struct timespec *next)
{
	next->tv_sec += 1;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL) == EINTR)
		;
}

static void sample(const struct fl_bench_opts *o, struct fl_bench_point *pt,
		   volatile uint64_t *counters, uint64_t *start, uint64_t *now)
{
	struct timespec next;
	uint64_t prev, cur;
	double tfirst, tprev, tcur;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (int s = 0; s < o->warmup_s; s++)
		sleep_until(&next);
	if (pt->window && pt->window->begin) {
		pt->window->begin(pt->window->arg);
		/* the seconds count from when the hook is done: installing the
		 * lock tracing took seconds on a loaded TCG host, and every
		 * deadline already past made a sample of a few microseconds */
		clock_gettime(CLOCK_MONOTONIC, &next);
	}
	prev = sum_counters(counters, pt->ntasks, start);
	tprev = tfirst = now_s();
	for (int s = 0; s < o->duration_s && s < 600; s++) {
		sleep_until(&next);
		cur = sum_counters(counters, pt->ntasks, now);
		tcur = now_s();
		/* Scale by the real interval: a late wake-up is not a slower kernel. */
		pt->samples[pt->nsamples++] = (double)(cur - prev) / (tcur - tprev);
		prev = cur;
		tprev = tcur;
	}
	pt->measured_s = tprev - tfirst;
	if (pt->window && pt->window->end)
		pt->window->end(pt->window->arg);
}

static void summarise(const struct fl_bench_opts *o, struct fl_bench_point *pt,
		      const uint64_t *start, const uint64_t *end)
{
	double sum = 0;

	for (int i = 0; i < pt->nsamples; i++)
		sum += pt->samples[i];
	pt->average = pt->nsamples ? sum / pt->nsamples : 0;
	for (int i = 0; i < pt->ntasks; i++) {
		double r;

		pt->task_ops[i] = end[i] - start[i];
		r = (double)pt->task_ops[i] / o->duration_s;
		if (i == 0 || r < pt->per_task_min)
			pt->per_task_min = r;
		if (i == 0 || r > pt->per_task_max)
			pt->per_task_max = r;
	}
}

static int start_tasks(struct fl_bench_point *pt, struct task *tasks, pid_t *pids,
		       pthread_t *threads)
{
	for (int i = 0; i < pt->ntasks; i++) {
		if (pt->mode == FL_MODE_THREADS) {
			if (pthread_create(&threads[i], NULL, thread_main, &tasks[i]))
				return -1;
			continue;
		}
		pids[i] = fork();
		if (pids[i] < 0)
			return -1;
		if (pids[i] == 0) {
			pin(tasks[i].cpu);
			tasks[i].t.test->run(&tasks[i].t);
			_exit(0);
		}
	}
	return 0;
}

static void stop_tasks(struct fl_bench_point *pt, int started, pid_t *pids,
		       pthread_t *threads, volatile int *stop)
{
	*stop = 1;
	for (int i = 0; i < started; i++) {
		if (pt->mode == FL_MODE_THREADS) {
			pthread_join(threads[i], NULL);
		} else if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
		}
	}
}

int fl_bench_run(const struct fl_bench_opts *o, const struct fl_topo *t, struct fl_bench_point *pt)
{
	size_t csize = (size_t)pt->ntasks * COUNTER_STRIDE * sizeof(uint64_t) + sizeof(int);
	struct task *tasks = calloc((size_t)pt->ntasks, sizeof(*tasks));
	pid_t *pids = calloc((size_t)pt->ntasks, sizeof(*pids));
	pthread_t *threads = calloc((size_t)pt->ntasks, sizeof(*threads));
	uint64_t *start = calloc((size_t)pt->ntasks, sizeof(uint64_t));
	uint64_t *end = calloc((size_t)pt->ntasks, sizeof(uint64_t));
	const struct fl_testdef_params params = {.memory = o->memsize};
	volatile uint64_t *counters = MAP_FAILED;
	volatile int *stop;
	int err, started = 0, opened = 0;

	pt->nsamples = 0;
	pt->measured_s = 0;
	if (!tasks || !pids || !threads || !start || !end || !pt->task_ops || !pt->task_cpu) {
		err = fl_error_set(FL_ERROR, "out of memory");
		goto out;
	}
	if ((err = fl_bench_fits(pt->test, pt->ntasks, o->memsize)))
		goto out;
	/* Shared so forked tasks count where the parent reads. */
	counters = mmap(NULL, csize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (counters == MAP_FAILED) {
		err = fl_error_set(FL_EIO, "mmap counters: %s", strerror(errno));
		goto out;
	}
	stop = (volatile int *)(counters + (size_t)pt->ntasks * COUNTER_STRIDE);
	fl_place_tasks(t, o->place, pt->ntasks, pt->task_cpu);
	for (int i = 0; i < pt->ntasks; i++, opened++) {
		tasks[i] = (struct task){.t = {.test = pt->test,
					       .params = &params,
					       .ops = counters + (size_t)i * COUNTER_STRIDE,
					       .stop = pt->mode == FL_MODE_THREADS ? stop : NULL,
					       .fd = -1},
					 .cpu = pt->task_cpu[i]};
		if (pt->test->open && (err = pt->test->open(&tasks[i].t)))
			goto out_files;
	}
	if (start_tasks(pt, tasks, pids, threads)) {
		err = fl_error_set(FL_EIO, "starting tasks: %s", strerror(errno));
		for (started = 0; started < pt->ntasks && (pt->mode == FL_MODE_THREADS ?
		     threads[started] != 0 : pids[started] > 0); started++)
			;
		stop_tasks(pt, started, pids, threads, stop);
		goto out_files;
	}
	sample(o, pt, counters, start, end);
	stop_tasks(pt, pt->ntasks, pids, threads, stop);
	summarise(o, pt, start, end);
	err = 0;
out_files:
	for (int i = 0; i < opened && pt->test->close; i++)
		pt->test->close(&tasks[i].t);
	munmap((void *)counters, csize);
out:
	free(tasks);
	free(pids);
	free(threads);
	free(start);
	free(end);
	return err;
}
