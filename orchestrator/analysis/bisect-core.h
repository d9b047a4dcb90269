/*
 * bisect-core.h - what the engine's two models share inside analysis/:
 * the engine's state, one run of a commit, the blocks skipped commits make
 * and the credible set (bisect-core.c). bisect.c is the values model and
 * the engine's entry points, passfail.c the pass/fail model; both use the
 * core, and the core reaches the model only through b->posterior. Nothing
 * outside the engine includes this.
 */
#ifndef FL_BISECT_CORE_H
#define FL_BISECT_CORE_H

#include "analysis/bisect.h"

struct runs {
	double *y; /* each run's summary */
	size_t *k; /* its number of samples */
	size_t n, alloc;
};

struct commit {
	struct runs r;
	size_t pass, fail; /* pass/fail model: its outcomes */
	int skipped, tried;
};

/* Split j of the tested commits t_0 < ... < t_m: t_0..t_{j-1} good, the rest
 * bad, i.e. the culprit is one of the positions lo+1..at. With it, what a
 * new run would look like on either side ([0] good, [1] bad): the centre
 * and the scale of its predictive distribution. */
struct split {
	size_t lo, at;
	double mass;
	double mu[2], spread[2];
};

struct fl_bisect {
	size_t n;
	struct fl_bisect_opts o;
	struct commit *c;
	/* post[c] = P(culprit = c), positions 1..npos: npos is n - 1, or n
	 * when the pass/fail model may find the bad end good (position n:
	 * no culprit in this history) */
	double *post;
	size_t npos;
	int have_post;
	/* the noise model: class centres, the scale of a typical run's summary,
	 * the within-run share of that variance and the typical sample count */
	double mu_good, mu_bad, scale, within, kbar;
	double *wres; /* |deviation| of every sample from its run's summary */
	size_t nwres, awres;
	struct split *split; /* split[1..nsplit) of the last posterior */
	size_t nsplit;
	size_t vfirst, vlast; /* the block being verified */
	size_t runs, seq;
	void (*posterior)(fl_bisect *b); /* the model's: post[], split[], have_post */
	fl_bisect_sample_fn sample;
	fl_bisect_step_fn step;
	void *ctx;
};

/* One run of commit idx; its samples join the commit's evidence and are
 * also added to fresh (when given) for a verification. */
int fl_bisect_run_one(fl_bisect *b, enum fl_bisect_phase phase, size_t idx, struct runs *fresh);
/* The block of positions with the most posterior mass (positions a commit
 * skipped between them cannot tell apart): its mass, *first..*last. */
double fl_bisect_best_block(const fl_bisect *b, size_t *first, size_t *last);
/* The untested commit that splits positions lo+1..at (posterior mass from
 * acc on) nearest the target mass, skipped ones left out; n if none. */
size_t fl_bisect_split_untested(const fl_bisect *b, size_t lo, size_t at, double acc,
				double target);
/* The commits worth weighing for the next run, into cand (room for
 * 3 * nsplit): each split's lowest tested commit, and the untested ones at
 * the middle of its interval and at the posterior median. Their count. */
size_t fl_bisect_candidates(const fl_bisect *b, size_t *cand);
int fl_bisect_budget_left(const fl_bisect *b);

/* The pass/fail model (passfail.c): its posterior, and its search. */
void fl_passfail_posterior(fl_bisect *b);
int fl_passfail_search(fl_bisect *b, struct fl_bisect_result *res);

#endif
