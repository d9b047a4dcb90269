/*
 * bisect.h - the noise-aware bisection engine, shared by "faultline bisect
 * run" and the kernel pipeline.
 *
 * Commits are indices 0..n-1 in first-parent order, 0 the known good (older)
 * end, n-1 the known bad end. The engine asks a callback for samples of one
 * commit at a time (one call is one run of the benchmark) and keeps a
 * posterior over the culprit position c (commits >= c are bad): each sample
 * is weighed by its likelihood under the good and the bad distribution,
 * Student t with 4 degrees of freedom around the end points' medians, so
 * outliers and heavy tails do not flip a decision. It always tests the
 * commit whose good/bad outcome is least certain (the posterior median, the
 * most informative single test), stops when one candidate holds the
 * required confidence, and verifies it against its parent with fresh
 * samples before reporting.
 *
 * The engine is deterministic given the samples it receives, so a recorded
 * sequence of steps can be replayed (fl_bisect_replay) to resume after a
 * crash without running anything twice.
 */
#ifndef FL_BISECT_H
#define FL_BISECT_H

#include "stats.h"

#include <stddef.h>

/* Sample callback results besides 0 (samples in *v, malloc'ed, *n >= 1, the
 * engine frees them) and negative FL_E* errors, which abort the bisection. */
#define FL_BISECT_SKIP 1 /* the commit cannot be tested: build or boot failure */

typedef int (*fl_bisect_sample_fn)(void *ctx, size_t idx, double **v, size_t *n);

enum fl_bisect_phase { FL_PHASE_CONFIRM, FL_PHASE_SEARCH, FL_PHASE_VERIFY };
const char *fl_bisect_phase_name(enum fl_bisect_phase p);

struct fl_bisect_step {
	size_t seq; /* 0, 1, ... over the whole bisection, replayed steps included */
	enum fl_bisect_phase phase;
	size_t idx;
	const double *v; /* this run's samples; NULL when skipped */
	size_t n;
	int skipped;
	const char *verdict; /* "good", "bad", "skip", or "" while confirming */
	double confidence;   /* mass of the best candidate after this step */
	size_t best;	     /* that candidate's first position */
	size_t left;	     /* positions in the smallest set holding the target confidence */
};

/* Called after every new (not replayed) run, to record and show progress. */
typedef void (*fl_bisect_step_fn)(void *ctx, const struct fl_bisect_step *st);

struct fl_bisect_opts {
	enum fl_direction dir;
	double min_change;	 /* fraction of the good median, e.g. 0.05 */
	double confidence;	 /* posterior mass to stop at, default 0.95 */
	size_t max_runs;	 /* budget in callback calls, replayed ones included */
	double alpha;		 /* significance of the end point and verify tests */
	size_t init_samples;	 /* samples at each end before the first comparison */
	size_t max_end_samples;	 /* at most this many per end (and per verify side) */
	size_t max_verify_fails; /* give up after this many refuted candidates */
	/* The verification of a candidate that already holds the confidence is a
	 * check against a wrong noise model, not the whole evidence: it may use a
	 * looser level and start from fewer fresh samples per side. */
	double verify_alpha;
	size_t verify_samples;
};

/* Defaults: higher-better, 5%, 0.95, 200 runs, alpha 0.01, 8, 40, 3, 0.05, 5. */
void fl_bisect_opts_init(struct fl_bisect_opts *o);

enum fl_bisect_kind {
	FL_BISECT_CULPRIT,
	FL_BISECT_RANGE, /* the culprit is first..last, separated by skipped commits */
	FL_BISECT_NO_REGRESSION,
	FL_BISECT_INCONCLUSIVE,
};
const char *fl_bisect_kind_name(enum fl_bisect_kind k);

struct fl_bisect_result {
	enum fl_bisect_kind kind;
	size_t first, last; /* culprit: first == last */
	double confidence;
	double
	    change_pct; /* good -> bad end points (verified pair for a culprit), positive worse */
	size_t runs, commits_tested;
};

typedef struct fl_bisect fl_bisect;

int fl_bisect_new(fl_bisect **out, size_t n, const struct fl_bisect_opts *o);
void fl_bisect_free(fl_bisect *b);
/* Queues a recorded step (idx, its samples, or skipped) to be used instead
 * of calling the callback when the engine asks for that commit next. */
void fl_bisect_replay(fl_bisect *b, size_t idx, const double *v, size_t n, int skipped);
int fl_bisect_run(fl_bisect *b, fl_bisect_sample_fn sample, fl_bisect_step_fn step, void *ctx,
		  struct fl_bisect_result *res);

#endif
