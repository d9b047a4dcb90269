/*
 * bench.h - the page-fault scalability benchmarks, with will-it-scale's
 * semantics so the numbers compare with what kernel developers quote:
 *
 *   page_fault1  anonymous private mapping, one write per page, munmap, repeat
 *   page_fault2  a private mapping of the task's own unlinked tmpfs file
 *                (copy-on-write faults from the page cache)
 *   page_fault3  the same file mapped shared
 *
 * Each task counts operations (pages touched) in its own cache line of a
 * shared array; the parent reads the array once a second and never touches
 * the tasks otherwise. The options come from the command line in host mode
 * and from the job in guest mode, through the same fl_bench_set().
 *
 * Errors follow proto/error.h: 0 or a negative FL_E* code, the message kept
 * for the caller, who shows it once.
 */
#ifndef FL_BENCH_H
#define FL_BENCH_H

#include <stdint.h>

#include "agents/topo.h"

#define FL_BENCH_MAX_TASKS 1024
#define FL_BENCH_MAX_POINTS 32

enum fl_bench_mode { FL_MODE_PROCESSES, FL_MODE_THREADS };
/* Where a point's tasks run: the agent's own cgroup (the root in a guest),
 * or a child memory cgroup the agent makes (cgroup.h). */
enum fl_bench_cgroup { FL_CGROUP_ROOT, FL_CGROUP_CHILD };

struct fl_bench_opts {
	int tests[3];		/* 1 for each page_faultN to run */
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
	int test;	/* 1..3 */
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

/* Checks that ntasks fit in memory and tmpfs; 0 or FL_EINVAL saying what
 * is available. */
int fl_bench_fits(int test, int ntasks, uint64_t memsize);
/* Runs one point; 0 or a negative code. */
int fl_bench_run(const struct fl_bench_opts *o, const struct fl_topo *t, struct fl_bench_point *pt);
const char *fl_bench_test_name(int test);
const char *fl_bench_mode_name(enum fl_bench_mode m);
const char *fl_bench_cgroup_name(enum fl_bench_cgroup c);

#endif
