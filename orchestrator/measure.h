/*
 * measure.h - runs read back for decisions: the comparison steps of the
 * watch service (detect.c, revert.c) and the report measure in rounds of
 * run jobs and decide on one value per run.
 *
 * Why one value per run: the samples of one run (one per measured second)
 * share a boot, a page layout and a placement, so they are correlated; the
 * run-to-run spread is the noise a verdict has to beat. A run's value at a
 * point is the mean of its samples there. (A bisection gets the samples of
 * each run as they are, see autobisect.c.)
 */
#ifndef FL_MEASURE_H
#define FL_MEASURE_H

#include "stats.h"
#include "store-jobs.h"
#include "store-run.h"

#include <stddef.h>
#include <stdint.h>

struct fl_config;
struct fl_benchmark_conf;

/* One measured point: a metric at a mode and a task count. */
struct fl_point {
	const char *metric, *mode; /* point into a runset's samples */
	unsigned tasks;
};

/* The primary metric of a benchmark: per_thread_ops, per_process_ops, value. */
int fl_measure_primary(const char *metric);
/* "page_fault2.threads.4.per_thread_ops", "bench.value" (caller frees). */
char *fl_point_name(const char *benchmark, const struct fl_point *p, int with_tasks);

/* The ok runs of a set, with their samples. */
struct fl_runset {
	size_t n;
	int64_t *ids;
	struct fl_sample_row **s;
	size_t *ns;
};
int fl_runset_load(fl_store *st, const int64_t *ids, size_t n, struct fl_runset *rs);
void fl_runset_release(struct fl_runset *rs);
/* The points of a and b (b may be NULL), sorted; the array is the caller's, the strings are not. */
size_t fl_runset_points(const struct fl_runset *a, const struct fl_runset *b,
			struct fl_point **out);
/* One value per run that measured p (its mean there); caller frees *v. */
size_t fl_runset_values(const struct fl_runset *rs, const struct fl_point *p, double **v);
/* The samples of run i at p, in order; caller frees *v. */
size_t fl_runset_samples(const struct fl_runset *rs, size_t i, const struct fl_point *p,
			 double **v);

/* What a role of a coordinator's run jobs produced. */
struct fl_role_runs {
	int64_t *ids; /* runs that count (ok) */
	size_t n;
	unsigned tried, untestable, failed, live;
	const char *last_error; /* points into the jobs */
};
void fl_role_runs(const struct fl_job *children, size_t n, const char *role,
		  struct fl_role_runs *out);
void fl_role_runs_release(struct fl_role_runs *r);

/* Adds round k: repeat times one run job per side, interleaved (base, new, base, new...). */
struct fl_round_side {
	const char *role, *rev;
};
int fl_measure_add_round(fl_store *st, const struct fl_job *parent, const char *tree,
			 const struct fl_round_side *sides, size_t nsides, unsigned repeat,
			 unsigned round);
/* Runs a comparison may grow to, per side. */
unsigned fl_measure_max_runs(const struct fl_benchmark_conf *b);

/* A comparison of two value sets the way the service decides: alpha is
 * 1 - regression.confidence, min_change regression.min_change. */
struct fl_verdict_ext {
	struct fl_compare cmp; /* change_pct positive is worse */
	double base_mean, base_sd, new_mean, new_sd;
	double change;	   /* as measured: 100 * (new - base) / base */
	const char *class; /* regression, improvement, same, unclear */
};
int fl_measure_compare(const struct fl_config *cfg, enum fl_direction dir, const double *base,
		       size_t nb, const double *new, size_t nn, struct fl_verdict_ext *out);
enum fl_direction fl_measure_direction(const struct fl_benchmark_conf *b);

#endif
