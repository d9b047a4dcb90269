/*
 * bisect.h - the noise-aware bisection engine over one line of commits,
 * shared by "faultline bisect run" and the kernel pipeline through the
 * merge descent (descent.h), which runs it once per line it searches.
 *
 * Commits are indices 0..n-1 in first-parent order, 0 the known good (older)
 * end, n-1 the bad end. The engine asks a callback for samples of one
 * commit at a time. One call is one run of the benchmark (one boot); the
 * samples of one run share that run's state, so the run, summarised by the
 * 20% trimmed mean of its samples, is the unit of evidence, and its
 * variance is the variance between runs plus the within-run variance over
 * its sample count.
 *
 * 1. Confirm: the ends are compared by a one-sided group-sequential
 *    Mann-Whitney test (looks at init_samples runs per end and half as many
 *    more each time up to max_end_samples, alpha split over the looks); a
 *    bad end not worse by min_change is "no regression". A change is a
 *    fraction of the good side's median; from a median of 0 any worsening
 *    is an infinite fraction (a count going from 0 to 5).
 * 2. Search: a posterior over the culprit position with Student t noise
 *    (4 degrees of freedom, the scale fitted by maximum likelihood to the
 *    commits classified on either side) in which the centres of the good
 *    and the bad side are integrated out for every split, not plugged in.
 *    The next run goes where it is expected to tell the most about the
 *    culprit position (mutual information): usually the posterior median,
 *    sometimes an end point or a commit run before, whose class centre is
 *    what separates two positions.
 * 3. Verify: once one block holds the confidence, fresh runs of its last
 *    commit and of the commit below it, in a one-sided group-sequential
 *    Mann-Whitney test at verify_alpha: a candidate that is not the culprit
 *    passes with probability at most verify_alpha whatever the noise's
 *    shape, so the answer's error is about (1 - confidence) * verify_alpha.
 *    On a history without a regression a culprit needs both a false
 *    confirmation and a false verification: at most alpha * verify_alpha *
 *    max_verify_fails.
 *
 * The pass/fail model (model FL_MODEL_PASS_FAIL, passfail.c) reads every
 * sample as a test outcome instead, 0 pass and anything else fail, as "git
 * bisect run" reads exit codes, and lets the test be flaky: a bad commit's
 * test may pass (false_pass) and a good commit's may fail (false_fail), at
 * rates it does not know. Its posterior over the culprit integrates both
 * rates out under Beta priors (conjugate: exact, per split), the next run
 * goes where it is expected to tell the most about the culprit (a commit
 * run before when only a repeat can tell two positions apart), and it stops
 * once one block holds the confidence. There is no confirmation or
 * verification phase: the ends are taken as good and bad, as git does
 * (unless bad_known is 0, when "the bad end is good" is one more position:
 * no-regression). The default priors expect flakes to be rare: a test that
 * never contradicts itself stops after the runs git bisect makes, and one
 * contradiction raises the estimated rate several times over. Stated rates
 * (false_pass, false_fail) are the priors' means at the weight of ten runs.
 *
 * The engine is deterministic given the samples it receives, so a recorded
 * sequence of runs fed back through the callback makes the same choices:
 * that is how a bisection resumes (descent.h keeps the record).
 */
#ifndef FL_BISECT_H
#define FL_BISECT_H

#include "analysis/stats.h"

#include <stddef.h>

/* Sample callback results besides 0 (samples in *v, malloc'ed, *n >= 1, the
 * engine frees them) and negative FL_E* errors, which abort the bisection. */
#define FL_BISECT_SKIP 1 /* the commit cannot be tested: build or boot failure */

/* One run of commit idx: *n samples of it in *v (per-second samples of one
 * boot, say). */
typedef int (*fl_bisect_sample_fn)(void *ctx, size_t idx, double **v, size_t *n);

enum fl_bisect_phase { FL_PHASE_CONFIRM, FL_PHASE_SEARCH, FL_PHASE_VERIFY };
const char *fl_bisect_phase_name(enum fl_bisect_phase p);

struct fl_bisect_step {
	size_t seq; /* 0, 1, ... over this engine's runs */
	enum fl_bisect_phase phase;
	size_t idx;
	const double *v; /* this run's samples; NULL when skipped */
	size_t n;
	int skipped;
	const char *verdict; /* "good", "bad", "skip", or "" while confirming */
	double confidence;   /* mass of the best block after this step */
	size_t best;	     /* that candidate's first position */
	size_t left;	     /* positions in the smallest set holding the target confidence */
};

/* Called after every new (not replayed) run, to record and show progress. */
typedef void (*fl_bisect_step_fn)(void *ctx, const struct fl_bisect_step *st);

enum fl_bisect_model {
	FL_MODEL_VALUES,    /* samples are measurements (the default) */
	FL_MODEL_PASS_FAIL, /* each sample is an outcome: 0 pass, anything else fail */
};

struct fl_bisect_opts {
	enum fl_bisect_model model;
	enum fl_direction dir;
	double min_change;	 /* fraction of the good median, e.g. 0.05 */
	double confidence;	 /* posterior mass to stop at, default 0.95 */
	size_t max_runs;	 /* budget in callback calls, replayed ones included */
	double alpha;		 /* chance the confirmation calls equal ends different */
	size_t init_samples;	 /* runs at each end before the first comparison */
	size_t max_end_samples;	 /* at most this many runs per end (and per verify side) */
	size_t max_verify_fails; /* give up after this many verifications that failed */
	/* chance a verification passes a commit that equals its parent, and its
	 * first look (raised to the first size at which the test can pass) */
	double verify_alpha;
	size_t verify_samples;
	/* pass/fail model: the expected chance that a bad commit's test passes
	 * and that a good commit's test fails; 0: not known (flakes rare) */
	double false_pass, false_fail;
	/* pass/fail model: 1 when the bad end is bad for certain (git bisect's
	 * convention); 0 when it may be good (a merged branch on its own) */
	int bad_known;
};

/* Defaults: values, higher-better, 5%, 0.95, 200 runs, alpha 0.05, 8, 40, 3,
 * 0.05, 5; rates not known, bad end known. */
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
	/* good -> bad in percent, positive worse: for a culprit or range the
	 * step between the model's good and bad centres (all classified runs),
	 * otherwise the end points' Hodges-Lehmann shift; +-INFINITY from a good
	 * side of 0 */
	double change_pct;
	/* what it is a change of: the model's good and bad centres, or the
	 * ends' medians (values model; NAN before the ends were run) */
	double good_value, bad_value;
	/* pass/fail model: the estimated rates at the answer (posterior means) */
	double false_pass, false_fail;
	size_t runs, commits_tested;
};

typedef struct fl_bisect fl_bisect;

int fl_bisect_new(fl_bisect **out, size_t n, const struct fl_bisect_opts *o);
void fl_bisect_free(fl_bisect *b);
/* A run of commit idx taken before this engine (on another line of the
 * same bisection): evidence from the start, not a run of this engine's. */
void fl_bisect_prior(fl_bisect *b, size_t idx, const double *v, size_t n, int skipped);
int fl_bisect_run(fl_bisect *b, fl_bisect_sample_fn sample, fl_bisect_step_fn step, void *ctx,
		  struct fl_bisect_result *res);

#endif
