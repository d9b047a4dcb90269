/*
 * bench.h - the scalability benchmarks' options and their sampling parent.
 * What each test's tasks do is the table's (proto/testdef.h, one file per
 * test in agents/tests/); this file starts a point's tasks, pinned as
 * placement says, as processes or threads, and measures them.
 *
 * Each task counts operations (what its test says one is) in its own cache
 * line of a shared array; the parent reads the array once a second and
 * never touches the tasks otherwise. The options come from the command
 * line in host mode and from the job in guest mode, through the same
 * fl_bench_set().
 *
 * Errors follow proto/error.h: 0 or a negative FL_E* code, the message kept
 * for the caller, who shows it once.
 */
#ifndef FL_BENCH_H
#define FL_BENCH_H

#include <stdint.h>

#include "agents/topo.h"
#include "proto/testdef.h"

#define FL_BENCH_MAX_TASKS 1024
#define FL_BENCH_MAX_POINTS 32

/* The bit of each in fl_testdef.modes is 1 << mode. */
enum fl_bench_mode { FL_MODE_PROCESSES, FL_MODE_THREADS };
/* Where a point's tasks run: the agent's own cgroup (the root in a guest),
 * or a child memory cgroup the agent makes (cgroup.h). */
enum fl_bench_cgroup { FL_CGROUP_ROOT, FL_CGROUP_CHILD };

struct fl_bench_opts {
	uint64_t tests;		/* bit i: the table's test i runs (default: the first) */
	int modes[2];		/* by enum fl_bench_mode */
	int cgroups[2];		/* by enum fl_bench_cgroup; the root only by default */
	int cgroup_v1;		/* the child in a cgroup v1 memory hierarchy */
	uint64_t memory_max, memory_high;	/* the child's limits; 0: none */
	int ntask_specs;
	int task_spec[FL_BENCH_MAX_POINTS];	/* > 0 absolute, < 0 percent */
	int warmup_s, duration_s;
	uint64_t memsize;	/* bytes per task */
	enum fl_place place;
	int json;		/* host mode: one JSON object per line */
	int records;		/* host mode: FLR1 frames */
	/* guest job only */
	int timeout_s;		/* watchdog; 0 derives it from the run */
	int hang;		/* test hook: the job never ends */
	/* lock contention per window (lockstat.h): 1 on (the default), 0 off,
	 * 2 cost: each point untraced, traced, traced, untraced */
	int locks;
};

void fl_bench_defaults(struct fl_bench_opts *o);
/* key=value from a job or --key value from the command line; 0 or FL_EINVAL. */
int fl_bench_set(struct fl_bench_opts *o, const char *key, const char *val);
/* Parses a job text (proto/jobline.h); 0 or FL_EINVAL. */
int fl_bench_parse_job(struct fl_bench_opts *o, const char *text);
/* Whether each test of o runs in each of its modes with its parameters
 * (fl_testdef_check); 0 or FL_EINVAL. */
int fl_bench_check(const struct fl_bench_opts *o);
/* Resolves task_spec against ncpus into counts; returns how many. */
int fl_bench_task_counts(const struct fl_bench_opts *o, int ncpus, int *counts);

/*
 * Called right before the first measured second and right after the last,
 * while the tasks run, so what is read around them (/proc/vmstat,
 * /proc/profile) covers exactly the seconds the samples do: no warm-up,
 * no task start-up or teardown.
 */
struct fl_bench_window {
	void (*begin)(void *arg);
	void (*end)(void *arg);
	void *arg;
};

/* One measured point: a test, a mode, a task count, a cgroup context. */
struct fl_bench_point {
	const struct fl_testdef *test;
	enum fl_bench_mode mode;
	int ntasks;
	enum fl_bench_cgroup cgroup;
	int nsamples;
	double samples[600];	/* total ops/s of each measured second */
	uint64_t *task_ops;	/* per task, over the measured seconds */
	int *task_cpu;
	double average, per_task_min, per_task_max;
	double measured_s;	/* wall-clock seconds from begin to end */
	const struct fl_bench_window *window;	/* may be NULL */
};

/* Emits a finished JSON object for each point (and errors) somewhere. */
typedef void (*fl_bench_emit_fn)(void *arg, const char *json);

/* Checks that ntasks of test fit in memory and tmpfs (its ram_copies and
 * tmp_copies of memsize each); 0 or FL_EINVAL saying what is available. */
int fl_bench_fits(const struct fl_testdef *test, int ntasks, uint64_t memsize);
/* Runs one point; 0 or a negative code. */
int fl_bench_run(const struct fl_bench_opts *o, const struct fl_topo *t, struct fl_bench_point *pt);
const char *fl_bench_mode_name(enum fl_bench_mode m);
const char *fl_bench_cgroup_name(enum fl_bench_cgroup c);

#endif
