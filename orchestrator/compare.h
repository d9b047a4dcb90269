/*
 * compare.h - two sets of runs of one benchmark on one machine (base and
 * new) side by side, the way LKP's compare shows kernels: per metric the
 * base value with its %stddev, the %change, the new value with its
 * %stddev, and faultline's statistical verdict; then the vmstat rates of
 * the measured windows; then the kernel functions whose share of the
 * profile moved the most, in percentage points.
 *
 * One data structure for every reader: the CLI and the mail render it as
 * text (fl_comparison_text), the web pages as HTML or JSON from the rows.
 * Pure computation on the runs it is given (samples from the store's
 * samples table, evidence from store-evidence.h); reading "the ok runs of
 * commit X on machine M for benchmark B" from the store comes with the run
 * path that writes them.
 *
 * Values: a metric's value is the mean of every per-second sample of the
 * side's runs, pooled, and its %stddev their sample standard deviation in
 * percent of the mean; the verdict is fl_stats_compare() on the same pooled
 * samples (as bisection decides). vmstat and profile values are means over
 * the side's runs of each run's rate or share; %stddev is across runs.
 */
#ifndef FL_COMPARE_H
#define FL_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "evidence.h"
#include "stats.h"
#include "store.h"

/* One run as compare sees it: its samples and its evidence. */
struct fl_cmp_run {
	const struct fl_sample *samples;
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
};
void fl_cmp_opts_init(struct fl_cmp_opts *o);

enum fl_cmp_kind { FL_CMP_METRIC, FL_CMP_VMSTAT, FL_CMP_PROFILE };

struct fl_cmp_value {
	double value;
	double stddev_pct; /* 0 when n < 2 */
	size_t n;	   /* samples (metric) or runs (vmstat, profile) behind it */
};

struct fl_cmp_row {
	enum fl_cmp_kind kind;
	char *mode; /* processes, threads, or "" */
	unsigned tasks;
	char *what; /* metric (per_thread_ops), counter (pgfault), or function */
	char *name; /* LKP-style full name: page_fault2.threads.per_thread_ops,
		     * page_fault2.threads.vmstat.pgfault/s,
		     * page_fault2.threads.profile._raw_spin_lock */
	struct fl_cmp_value base, new_;
	/* Metric and vmstat rows: 100 * (new - base) / |base| (0 when base is
	 * 0). Profile rows: new - base in percentage points of the profile. */
	double change;
	/* Metric rows only. */
	enum fl_verdict verdict;
	double p;
	int regression; /* DIFFERENT, and worse in the benchmark's direction */
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
 * Compares new with base. Rows exist for every (metric, mode, tasks) of
 * either side; a side without samples for it has n = 0 and the verdict is
 * UNKNOWN. FL_EINVAL when a side has no runs.
 */
int fl_compare(const char *benchmark, const struct fl_cmp_set *base, const struct fl_cmp_set *new_,
	       const struct fl_cmp_opts *o, struct fl_comparison **out);
void fl_comparison_free(struct fl_comparison *c);

/* LKP's column shape, one row a line, notes after a blank line. */
void fl_comparison_text(const struct fl_comparison *c, fl_buf *out);

#endif
