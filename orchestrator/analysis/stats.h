/*
 * stats.h - the statistics faultline decides with: robust summaries, the
 * Mann-Whitney U test, the Hodges-Lehmann shift with its confidence interval,
 * a DIFFERENT / SAME / UNKNOWN verdict, and E-divisive change points.
 *
 * Pure functions: no I/O, no global state. Inputs are never modified (the
 * functions sort private copies). Benchmarks are noisy and not normal, so
 * everything that decides is rank based or median based.
 */
#ifndef FL_STATS_H
#define FL_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Which way is better: throughput is higher-better, latency lower-better. */
enum fl_direction { FL_HIGHER_BETTER = 0, FL_LOWER_BETTER = 1 };

double fl_stats_mean(const double *x, size_t n);
/* Sample standard deviation (n - 1); 0 for n < 2. */
double fl_stats_stddev(const double *x, size_t n);
double fl_stats_median(const double *x, size_t n);
/* Median absolute deviation from the median, unscaled (multiply by 1.4826
 * for a normal-consistent sigma). */
double fl_stats_mad(const double *x, size_t n);
/* Mean after dropping floor(frac * n) values at each end; frac in [0, 0.5). */
double fl_stats_trimmed_mean(const double *x, size_t n, double frac);

/* Standard normal CDF and its inverse (Acklam, refined by one Newton step). */
double fl_stats_norm_cdf(double z);
double fl_stats_norm_quantile(double p);

struct fl_mwu {
	double u;  /* U of the first sample: pairs (x, y) with x > y, ties count 1/2 */
	double p;  /* two-sided p-value */
	int exact; /* 1: exact distribution, 0: normal approximation */
};

/* Exact when both samples have at most FL_MWU_EXACT_MAX values and there are
 * no ties; otherwise the normal approximation with tie correction and a
 * continuity correction of 1/2. */
#define FL_MWU_EXACT_MAX 20
int fl_stats_mwu(const double *x, size_t nx, const double *y, size_t ny, struct fl_mwu *out);

/* Hodges-Lehmann estimate of the shift y - x (median of all pairwise
 * differences) with a distribution-free confidence interval of level conf
 * (the Moses interval from the Mann-Whitney critical value). */
struct fl_shift {
	double shift, lo, hi;
};
int fl_stats_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny, double conf,
			    struct fl_shift *out);

enum fl_verdict { FL_UNKNOWN = 0, FL_DIFFERENT = 1, FL_SAME = 2 };
const char *fl_verdict_name(enum fl_verdict v);

struct fl_compare {
	enum fl_verdict verdict;
	double p;	   /* Mann-Whitney two-sided p */
	struct fl_shift s; /* y - x, 1 - 2 alpha interval */
	double change_pct; /* 100 * shift / |median x|, signed so positive is worse */
};

/*
 * Compares y (candidate) with x (baseline). min_change is a fraction of the
 * baseline median (0.05 for 5%). SAME is an equivalence test (two one-sided
 * tests in interval form): the 1 - 2 alpha interval of the shift lies inside
 * +-min_change. Otherwise DIFFERENT when p < alpha, else UNKNOWN: the caller
 * should take more samples.
 */
int fl_stats_compare(const double *x, size_t nx, const double *y, size_t ny, double alpha,
		     double min_change, enum fl_direction dir, struct fl_compare *out);

/* A series: one set of values per position (per tag, per commit). */
struct fl_series_point {
	const double *v;
	size_t n;
};

struct fl_change_point {
	size_t index;	      /* the first position of the new segment */
	double before, after; /* medians of the segments either side */
	double change_pct;    /* 100 * (after - before) / |before|, positive worse */
	double p;	      /* permutation p-value */
};

/*
 * E-divisive means (Matteson and James 2014, alpha = 1) on the per-position
 * medians, with binary segmentation: the split that maximises the energy
 * statistic is kept when its permutation p-value (perms permutations from a
 * splitmix64 stream seeded with seed: the same input gives the same answer)
 * is below alpha. Fills up to max points sorted by index; *n gets the count.
 * O(k^3) per permutation for k positions: meant for series up to a few
 * hundred positions.
 */
int fl_stats_change_points(const struct fl_series_point *s, size_t k, double alpha, int perms,
			   uint64_t seed, enum fl_direction dir, struct fl_change_point *out,
			   size_t max, size_t *n);

/*
 * The settings of a change-point search where nothing else sets them (the
 * tree page's history, web/model.c), from fl_cp_opts_init: alpha 0.01, 199
 * permutations, a fixed seed (the same history shows the same points each
 * time it is drawn), at most 8 points, and no search in fewer than 4
 * positions (too few for any split to reach alpha).
 */
struct fl_cp_opts {
	double alpha;
	int perms;
	uint64_t seed;
	size_t max;	      /* points at most */
	size_t min_positions; /* fewer positions: no points */
};
void fl_cp_opts_init(struct fl_cp_opts *o);

/* splitmix64: a small deterministic PRNG shared by the tests and the bench. */
uint64_t fl_rand_next(uint64_t *state);
double fl_rand_uniform(uint64_t *state); /* (0, 1) */
double fl_rand_normal(uint64_t *state);

#endif
