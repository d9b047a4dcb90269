/*
 * measure.h - what the comparison steps of the watch service (detect.c,
 * revert.c) and the report share: rounds of run jobs, the runs each role
 * produced, the options they compare with, and a side of a comparison read
 * from the store (fl_cmp_side_load, which "faultline compare" and the
 * compare page use too). The comparison itself is compare.h's (one value
 * per run, see there), on the rows store/compare.h reads. (A bisection gets
 * the samples of each run as they are, see autobisect.c.)
 */
#ifndef FL_MEASURE_H
#define FL_MEASURE_H

#include "analysis/compare.h"
#include "analysis/stats.h"
#include "config/config.h"
#include "service/pipeline.h"
#include "store/compare.h"
#include "store/jobs.h"
#include "store/watch.h"

#include <stddef.h>
#include <stdint.h>


/* One measured point: a metric at a mode, a task count and a cgroup context. */
struct fl_point {
	const char *metric, *mode; /* borrowed */
	unsigned tasks;
	const char *cgroup; /* NULL or "": the root (compare.h) */
};

/* The primary metric of a benchmark: per_thread_ops, per_process_ops, value. */
int fl_measure_primary(const char *metric);
/* "page_fault2.threads.4.per_thread_ops", "page_fault2.threads.4.child.per_thread_ops",
 * "bench.value"; without the task count "page_fault2.threads.child.per_thread_ops"
 * (caller frees). */
char *fl_point_name(const char *benchmark, const struct fl_point *p, int with_tasks);

/* What a role of a coordinator's run jobs produced. */
struct fl_role_runs {
	int64_t *ids; /* runs that count (ok) */
	size_t n;
	unsigned tried, untestable, failed, live;
	const char *last_error; /* points into the jobs */
};
void fl_role_runs(const struct fl_job *children, size_t n, enum fl_run_role role,
		  struct fl_role_runs *out);
void fl_role_runs_release(struct fl_role_runs *r);

/*
 * Adds parent's next round: repeat times one run job per side, interleaved
 * (base, new, base, new...); each measures point (fl_point_key) or, when
 * NULL, every point of the benchmark. The round is one past the highest of
 * the children's (0 for the first) and is stored with its jobs, whose seqs
 * follow the children's: a repeat changed in between changes the size of
 * the next round only. *round: the round added.
 */
struct fl_round_side {
	enum fl_run_role role;
	const char *rev;
};
int fl_measure_add_round(fl_store *st, const struct fl_job *parent, const struct fl_job *children,
			 size_t nchildren, const struct fl_round_side *sides, size_t nsides,
			 unsigned repeat, const char *point, unsigned *round);

/*
 * A run job's point: "threads:2", "threads:2:child" in a child cgroup
 * (caller frees); NULL for a benchmark without modes (a command's numbers
 * are its one point). A job may measure several: the keys separated by
 * ',' ("threads:2,threads:2:child", what "faultline try --point" and a
 * root-and-child comparison ask for).
 */
char *fl_point_key(const char *mode, unsigned tasks, const char *cgroup);
#define FL_POINTS_MAX 32
struct fl_point_at {
	char mode[32];
	unsigned tasks;
	char cgroup[16]; /* "" (the root) or "child" */
};
/* A key or a list of them: 0 with *out (caller frees) and *n, or FL_EINVAL
 * naming the key that is not MODE:TASKS[:root|child]. */
int fl_points_parse(const char *list, struct fl_point_at **out, size_t *n);
/* Whether (mode, tasks, cgroup) is among v[0..n). */
int fl_points_has(const struct fl_point_at *v, size_t n, const char *mode, unsigned tasks,
		  const char *cgroup);
/* The benchmark narrowed to points: their modes, task counts and cgroup
 * contexts (the agent measures each mode at each count in each context,
 * so points that are no product bring a few more); b shares the
 * benchmark's strings, v's and the storage here. */
struct fl_narrow_bench {
	struct fl_benchmark_conf b;
	char *modes[FL_POINTS_MAX];
	struct fl_task_count tasks[FL_POINTS_MAX];
	char *cgroups[FL_POINTS_MAX];
};
void fl_point_bench(const struct fl_benchmark_conf *b, const struct fl_point_at *v, size_t n,
		    struct fl_narrow_bench *out);
/* fl_measure_add_round and the parent waiting for it, in one transaction
 * (what a coordinator's step does when it needs more runs): *round. */
int fl_measure_next_round(fl_store *st, const struct fl_job *parent,
			  const struct fl_job *children, size_t nchildren,
			  const struct fl_round_side *sides, size_t nsides, unsigned repeat,
			  const char *point, unsigned *round);
/* Runs a comparison may grow to, per side. */
unsigned fl_measure_max_runs(const struct fl_benchmark_conf *b);

/* compare.h's options the way the service decides: alpha is
 * 1 - regression.confidence, min_change regression.min_change, the
 * benchmark's direction. */
void fl_measure_cmp_opts(const struct fl_config *cfg, const struct fl_benchmark_conf *b,
			 struct fl_cmp_opts *o);
enum fl_direction fl_measure_direction(const struct fl_benchmark_conf *b);
/* A metric row of a comparison as the comparisons table keeps it (what:
 * tag, revert-bad, revert-base); its strings point into row. */
struct fl_watch_comparison fl_measure_comparison(const char *what, int64_t base_commit,
						 int64_t new_commit, const char *benchmark,
						 int64_t machine_id, const struct fl_cmp_row *row);

/* One side of a comparison: the rows of its runs as the store reads them,
 * and compare.h's view of them (set, what fl_compare() takes). */
struct fl_cmp_side {
	struct fl_cmp_set set; /* label is a copy */
	int64_t *ids;	       /* the runs, in set.runs order */
	struct fl_cmp_run *runs;
	struct fl_sample_row **rows;
	size_t *nrows;
	struct fl_cmp_sample **samples; /* views of rows */
	struct fl_evidence_row **erows;
	size_t *nerows;
	struct fl_evidence_point **points; /* views of erows */
};

/*
 * Loads runs ids[0..n) as a side labelled label; evidence too unless
 * metrics_only. A run that is not ok is FL_EINVAL naming it (samples of a
 * failed run never count). n may be 0 (an empty side).
 */
int fl_cmp_side_load(fl_store *st, const char *label, const int64_t *ids, size_t n,
		     int metrics_only, struct fl_cmp_side *out);
void fl_cmp_side_release(struct fl_cmp_side *s);

#endif
