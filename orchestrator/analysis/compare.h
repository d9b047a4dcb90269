/*
 * compare.h - two sets of runs of one benchmark on one machine (base and
 * new) side by side, the way LKP's compare shows kernels: per metric the
 * base value with its %stddev, the %change, the new value with its
 * %stddev, and faultline's statistical verdict; then the vmstat rates of
 * the measured windows; then the kernel functions whose share of the
 * profile moved the most, in percentage points.
 *
 * One data structure for every reader: the CLI and the mail render it as
 * text (fl_comparison_text), the web pages as HTML or JSON from the rows,
 * and the watch service decides with the same rows (detect.c, revert.c), so
 * what a report shows and what the service decided cannot disagree. Pure
 * computation on the runs it is given; the store reads their rows (samples
 * and evidence of the ok runs of a commit, or of given runs) and
 * fl_cmp_side_load (service/measure.h) makes runs of them.
 *
 * The rule: runs are the independent unit. The per-second samples of one
 * run share a boot, a page layout and a placement, so they are correlated;
 * the run-to-run spread is the noise a verdict has to beat. A run's value
 * at a point is the mean of its samples there; a side's value is the mean
 * of its run values, its %stddev their sample standard deviation in percent
 * of that mean, and n the runs that measured the point. The verdict is
 * fl_stats_compare() on the run values, UNKNOWN with fewer than two runs a
 * side (the Mann-Whitney test cannot reach alpha = 0.05 with fewer than
 * four runs a side either: UNKNOWN asks for more runs). vmstat and profile
 * values are likewise means over runs of each run's rate or share.
 */
#ifndef FL_COMPARE_H
#define FL_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "analysis/cgroup.h"
#include "analysis/evidence.h"
#include "analysis/stats.h"

/* One per-second sample of a run. */
struct fl_cmp_sample {
	const char *metric; /* ops_per_sec, per_thread_ops, ... */
	const char *mode;   /* processes, threads, or "" */
	unsigned tasks;
	unsigned seq; /* sample number within the run */
	double value;
	const char *cgroup; /* fl_cgroup_key's; NULL: the root */
};

/* One run as compare sees it: its samples and its evidence. */
struct fl_cmp_run {
	const struct fl_cmp_sample *samples;
	size_t nsamples;
	const struct fl_evidence_point *points;
	size_t npoints;
};

struct fl_cmp_set {
	const char *label; /* "v6.1", a commit id: the column heading */
	const struct fl_cmp_run *runs;
	size_t n;
};

struct fl_cmp_opts {
	enum fl_direction dir; /* of the benchmark's metrics */
	double alpha;	       /* fl_stats_compare's, 0.05 */
	double min_change;     /* fraction, the regression threshold, 0.02 */
	size_t profile_rows;   /* per point, the functions that moved most: 10 */
	double profile_min_pp; /* leave out moves smaller than this, in points: 0.1 */
	double vmstat_min_pct; /* leave out counters that changed less: 1 (%) */
	int metrics_only;      /* no vmstat or profile rows (the service decides) */
};
void fl_cmp_opts_init(struct fl_cmp_opts *o);

/*
 * FL_CMP_LOCK: per contended lock of a point, LKP's lock_stat rows (without
 * a debug kernel: agents/lockstat.h): <lock>.contentions (per second),
 * <lock>.waittime-total (ms of waiting per second of the window) and
 * <lock>.waittime-max (us, the mean over runs of each run's longest wait);
 * ordered across all points: first the locks whose wait time moved beyond
 * the runs' noise (Mann-Whitney at alpha on the wait per run), then the
 * rest, each group by how much the wait time moved (either way), so the
 * culprit's lock (or the one a fix relieves) leads even when another point
 * sorts before its point; only locks whose rows changed
 * (vmstat_min_pct, or seen on one side only), at most profile_rows a point;
 * the contentions row carries the lock's top call chains. FL_CMP_NODE: the
 * per-node rows (LKP's numa-numastat.nodeN.*, numa-vmstat.nodeN.* per
 * second, and numa.nodeN.tasks, the tasks pinned there), only those that
 * changed by vmstat_min_pct or more.
 */
enum fl_cmp_kind { FL_CMP_METRIC, FL_CMP_VMSTAT, FL_CMP_PROFILE, FL_CMP_LOCK, FL_CMP_NODE };

struct fl_cmp_value {
	double value;	   /* the mean of the run values */
	double stddev;	   /* their sample standard deviation; 0 when n < 2 */
	double stddev_pct; /* in percent of |value|; 0 when n < 2 or value is 0 */
	size_t n;	   /* runs behind it */
};

/*
 * What a metric row means for the service: a regression (improvement) is a
 * DIFFERENT verdict whose shift is at least min_change worse (better); any
 * other DIFFERENT or SAME is same; UNKNOWN is unclear.
 */
enum fl_cmp_class { FL_CMP_UNCLEAR, FL_CMP_SAME, FL_CMP_REGRESSION, FL_CMP_IMPROVEMENT };
/* (Their names, comparisons.class, and the words pages use are the
 * service's: service/pipeline.h.) */

struct fl_cmp_row {
	enum fl_cmp_kind kind;
	char *mode; /* processes, threads, or "" */
	unsigned tasks;
	char *cgroup; /* "" (the root) or "child" */
	char *what; /* metric (per_thread_ops), counter (pgfault), or function */
	char *name; /* LKP-style full name: page_fault2.threads.per_thread_ops,
		     * page_fault2.threads.vmstat.pgfault/s,
		     * page_fault2.threads.profile._raw_spin_lock */
	struct fl_cmp_value base, new_;
	/* Metric and vmstat rows: 100 * (new - base) / |base| (0 when base is
	 * 0, and the text leaves it blank). Profile rows: new - base in
	 * percentage points of the profile. */
	double change;
	/* Metric rows only. */
	enum fl_verdict verdict;
	double p;	  /* Mann-Whitney, two-sided; 1 without a test */
	double shift_pct; /* Hodges-Lehmann shift in % of the base median, positive worse */
	enum fl_cmp_class cls;
	/* Lock rows: the lock's name, and on its contentions row its top call
	 * chains (the new side's, else the base's), "COUNT fn <- caller" a line;
	 * NULL otherwise. */
	char *lock, *chains;
};

struct fl_comparison {
	char *benchmark, *base_label, *new_label;
	size_t base_runs, new_runs;
	struct fl_cmp_row *rows; /* metrics, then vmstat, then profile rows */
	size_t nrows;
	char **notes; /* "no profile in new for threads tasks=2: none", ... */
	size_t nnotes;
};

/*
 * Compares new with base. Rows exist for every (metric, mode, tasks, cgroup) of
 * either side; a side without samples for it has n = 0 and the verdict is
 * UNKNOWN. FL_EINVAL when a side has no runs.
 */
int fl_compare(const char *benchmark, const struct fl_cmp_set *base, const struct fl_cmp_set *new_,
	       const struct fl_cmp_opts *o, struct fl_comparison **out);
void fl_comparison_free(struct fl_comparison *c);
/* The row of kind at (mode, tasks, cgroup), what, or NULL. */
const struct fl_cmp_row *fl_comparison_find(const struct fl_comparison *c, enum fl_cmp_kind kind,
					    const char *mode, unsigned tasks, const char *cgroup,
					    const char *what);
/* 1 when a metric row is a regression. */
int fl_comparison_regressed(const struct fl_comparison *c);

/* LKP's column shape, one row a line (its point after the name: tasks=2,
 * cgroup=child for a child context; metric rows end with the verdict, p,
 * the runs a side and REGRESSION or improvement), a blank line between the
 * metric, vmstat and profile sections, notes after a blank line. */
void fl_comparison_text(const struct fl_comparison *c, fl_buf *out);
/* A lock row's chains, a line each: INDENT "chain: COUNT fn <- caller ...". */
void fl_comparison_chains_text(const char *chains, const char *indent, fl_buf *out);

#endif
