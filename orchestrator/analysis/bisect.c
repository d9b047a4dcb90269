/*
 * bisect.c - the bisection engine's entry points and the values model: end
 * point confirmation, posterior search over the culprit position, skip
 * ranges and verification. See bisect.h; what both models share (runs,
 * priors, skipped blocks, the credible set) is bisect-core.c, the pass/fail
 * model passfail.c.
 *
 * The unit of evidence is a run (one callback call), summarised by the 20%
 * trimmed mean of its samples: the samples of one run share the state of one
 * boot, so five of them are worth much less than five runs. A run's summary
 * has the variance between runs plus the within-run variance over its sample
 * count, so runs of different lengths are weighed accordingly.
 */
#include "analysis/bisect-core.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define T_DOF 4.0

const char *fl_bisect_phase_name(enum fl_bisect_phase p)
{
	return p == FL_PHASE_CONFIRM ? "confirm" : p == FL_PHASE_SEARCH ? "search" : "verify";
}

const char *fl_bisect_kind_name(enum fl_bisect_kind k)
{
	static const char *names[] = {"culprit", "range", "no-regression", "inconclusive"};

	return names[k];
}

void fl_bisect_opts_init(struct fl_bisect_opts *o)
{
	o->dir = FL_HIGHER_BETTER;
	o->min_change = 0.05;
	o->confidence = 0.95;
	o->max_runs = 200;
	o->alpha = 0.05;
	o->init_samples = 8;
	o->max_end_samples = 40;
	o->max_verify_fails = 3;
	o->verify_alpha = 0.05;
	o->verify_samples = 5;
	o->model = FL_MODEL_VALUES;
	o->false_pass = o->false_fail = 0;
	o->bad_known = 1;
}

static void update_posterior(fl_bisect *b);

int fl_bisect_new(fl_bisect **out, size_t n, const struct fl_bisect_opts *o)
{
	fl_bisect *b;

	*out = NULL;
	if (n < 2)
		return fl_error_set(FL_EINVAL, "bisection needs a good and a bad commit");
	if (o->confidence <= 0 || o->confidence >= 1 || o->alpha <= 0 || o->alpha >= 0.5 ||
	    o->init_samples < 2 || o->max_end_samples < o->init_samples || o->verify_alpha <= 0 ||
	    o->verify_alpha >= 0.5 || o->verify_samples < 2 ||
	    o->verify_samples > o->max_end_samples || o->false_pass < 0 || o->false_pass >= 1 ||
	    o->false_fail < 0 || o->false_fail >= 1)
		return fl_error_set(FL_EINVAL, "bisection options out of range");
	b = fl_xcalloc(1, sizeof(*b));
	b->n = n;
	b->o = *o;
	b->npos = o->model == FL_MODEL_PASS_FAIL && !o->bad_known ? n : n - 1;
	b->posterior = o->model == FL_MODEL_PASS_FAIL ? fl_passfail_posterior : update_posterior;
	b->c = fl_xcalloc(n, sizeof(*b->c));
	b->post = fl_xcalloc(n + 1, sizeof(*b->post));
	b->split = fl_xcalloc(n + 1, sizeof(*b->split));
	*out = b;
	return 0;
}

static void runs_free(struct runs *r)
{
	free(r->y);
	free(r->k);
}

void fl_bisect_free(fl_bisect *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		runs_free(&b->c[i].r);
	free(b->c);
	free(b->post);
	free(b->split);
	free(b->wres);
	free(b);
}

/* A run of k samples has a summary whose scale is scale * run_factor(k). */
static double run_factor(const fl_bisect *b, size_t k)
{
	return sqrt(1 - b->within + b->within * b->kbar / (double)k);
}

/* A class of runs assumed to share one centre (the good or the bad side). */
struct group {
	double *y, *h; /* summaries, and their scale factors */
	size_t n, alloc;
};

static void group_add(struct group *g, const fl_bisect *b, const struct runs *r)
{
	if (g->n + r->n > g->alloc) {
		g->alloc = 2 * (g->n + r->n);
		g->y = fl_xrealloc(g->y, g->alloc * sizeof(double));
		g->h = fl_xrealloc(g->h, g->alloc * sizeof(double));
	}
	for (size_t i = 0; i < r->n; i++) {
		g->y[g->n] = r->y[i];
		g->h[g->n++] = run_factor(b, r->k[i]);
	}
}

static double t_weight(double z)
{
	return (T_DOF + 1) / (T_DOF + z * z);
}

/* Maximum-likelihood centre of y[0..n) under Student t noise of the given
 * scale (iteratively reweighted means), starting from mu. */
static double t_centre(const double *y, const double *h, size_t n, double scale, double mu)
{
	for (int it = 0; it < 200; it++) {
		double sw = 0, swy = 0, next;

		for (size_t i = 0; i < n; i++) {
			double s = scale * h[i], w = t_weight((y[i] - mu) / s) / (s * s);

			sw += w;
			swy += w * y[i];
		}
		next = swy / sw;
		if (fabs(next - mu) <= 1e-7 * scale)
			return next;
		mu = next;
	}
	return mu;
}

/* Maximum-likelihood scale of the residuals e (scaled by h) under Student t. */
static double t_scale(const double *e, const double *h, size_t n, double scale)
{
	for (int it = 0; it < 200; it++) {
		double ss = 0, next;

		for (size_t i = 0; i < n; i++) {
			double z = e[i] / (scale * h[i]);

			ss += t_weight(z) * z * z;
		}
		next = scale * sqrt(ss / n);
		if (fabs(next - scale) <= 1e-7 * scale || !(next > 0))
			return next;
		scale = next;
	}
	return scale;
}

/* Which class each inner commit belongs to: -1 good, 1 bad, 0 unsure. The
 * end points always; inner commits the last posterior puts on one side of
 * the culprit with 99% certainty. */
static int class_of(const fl_bisect *b, size_t i, double bad_before)
{
	if (i == 0)
		return -1;
	if (i == b->n - 1)
		return 1;
	if (!b->have_post)
		return 0;
	return bad_before + b->post[i] < 0.01 ? -1 : bad_before + b->post[i] > 0.99 ? 1 : 0;
}

static void fill_classes(const fl_bisect *b, struct group *g, struct group *d)
{
	double f = 0;

	g->n = d->n = 0;
	for (size_t i = 0; i < b->n; i++) {
		int cl = class_of(b, i, f);

		if (i > 0 && i + 1 < b->n)
			f += b->post[i];
		if (cl)
			group_add(cl < 0 ? g : d, b, &b->c[i].r);
	}
}

/* Residuals of both classes from their centres, into e (absolute values). */
static void residuals(const fl_bisect *b, const struct group *g, const struct group *d, double *e,
		      double *h)
{
	for (size_t i = 0; i < g->n; i++) {
		e[i] = fabs(g->y[i] - b->mu_good);
		h[i] = g->h[i];
	}
	for (size_t i = 0; i < d->n; i++) {
		e[g->n + i] = fabs(d->y[i] - b->mu_bad);
		h[g->n + i] = d->h[i];
	}
}

/* A robust starting scale: MAD, else the mean deviation (mostly identical
 * values), else a tenth of the step (constant benchmarks). */
static double start_scale(const fl_bisect *b, const double *e, size_t n)
{
	double s = 1.4826 * fl_stats_median(e, n);

	if (!(s > 0))
		s = 1.2533 * fl_stats_mean(e, n);
	if (!(s > 0))
		s = fabs(b->mu_bad - b->mu_good) / 10;
	if (!(s > 0))
		s = 1e-9 * (fabs(b->mu_good) + 1);
	return s;
}

/* The within-run deviations give sigma_w; the harmonic mean of the run
 * lengths is the typical k. */
static double fit_within(fl_bisect *b)
{
	double inv = 0;
	size_t k = 0;

	for (size_t i = 0; i < b->n; i++)
		for (size_t j = 0; j < b->c[i].r.n; j++, k++)
			inv += 1.0 / (double)b->c[i].r.k[j];
	b->kbar = k ? (double)k / inv : 1;
	return b->nwres ? 1.4826 * fl_stats_median(b->wres, b->nwres) : 0;
}

/*
 * The noise model, fitted to the good and the bad class: the class centres
 * and the scale of a typical run by Student t maximum likelihood (with the
 * factor n / (n - 2) for the two fitted centres), the within-run share of
 * the variance from the deviations inside runs. The classes grow with the
 * classified inner commits: a model fitted to 8 runs per end misjudges the
 * centres and the scale by a good fraction, which makes the posterior
 * overconfident.
 */
static void fit_model(fl_bisect *b)
{
	struct group g = {0}, d = {0};
	double sigma_w = fit_within(b), *e, *h, start;
	size_t n;

	b->within = 0;
	fill_classes(b, &g, &d);
	n = g.n + d.n;
	e = fl_xmalloc(n * sizeof(double));
	h = fl_xmalloc(n * sizeof(double));
	b->mu_good = fl_stats_median(g.y, g.n);
	b->mu_bad = fl_stats_median(d.y, d.n);
	residuals(b, &g, &d, e, h);
	b->scale = start = start_scale(b, e, n);
	for (int it = 0; it < 3; it++) {
		if (sigma_w > 0)
			b->within = fmin(1, sigma_w * sigma_w / (b->kbar * b->scale * b->scale));
		fill_classes(b, &g, &d);
		b->mu_good = t_centre(g.y, g.h, g.n, b->scale, b->mu_good);
		b->mu_bad = t_centre(d.y, d.h, d.n, b->scale, b->mu_bad);
		residuals(b, &g, &d, e, h);
		/* t maximum likelihood shrinks to 0 when most values are identical */
		b->scale = fmax(t_scale(e, h, n, b->scale), start / 2);
	}
	b->scale *= sqrt((double)n / (double)(n - 2));
	free(e);
	free(h);
	free(g.y);
	free(g.h);
	free(d.y);
	free(d.h);
}

/* log of the integral over the centre mu of prod t(y_i | mu, scale h_i), up
 * to terms every split of the history shares (Laplace's method, with the
 * expected information); *mu is the start and gets the maximiser, *spread
 * the scale of a new typical run's predictive distribution. */
static double group_evidence(const fl_bisect *b, const double *y, const double *h, size_t n,
			     double *mu, double *spread)
{
	double ll = 0, info = 0;

	*mu = t_centre(y, h, n, b->scale, *mu);
	for (size_t i = 0; i < n; i++) {
		double s = b->scale * h[i], z = (y[i] - *mu) / s;

		ll -= (T_DOF + 1) / 2 * log1p(z * z / T_DOF);
		info += 1 / (s * s);
	}
	*spread = sqrt(b->scale * b->scale + 1 / info);
	return ll - 0.5 * log(info);
}

/*
 * post[c] = P(culprit = c | runs), uniform prior over positions 1..n-1. The
 * centres of the good and the bad side are integrated out for every split
 * (not plugged in), so a split is judged with the uncertainty of what
 * "good" and "bad" look like. Positions between two tested commits share
 * one split, so the work grows with the tested commits, not with n.
 */
static void update_posterior(fl_bisect *b)
{
	struct group all = {0};
	size_t *off = fl_xmalloc((b->n + 1) * sizeof(size_t)), m = 0, prev = 0;
	double *ll = fl_xcalloc(b->n, sizeof(double)), max = -INFINITY, sum = 0, mu;
	struct split *sp = b->split;

	fit_model(b);
	/* split j: the tested commits before the j-th one good, the rest bad */
	for (size_t i = 0; i < b->n; i++)
		if (b->c[i].r.n) {
			if (m) {
				sp[m].lo = prev;
				sp[m].at = i;
			}
			prev = i;
			off[m++] = all.n;
			group_add(&all, b, &b->c[i].r);
		}
	mu = b->mu_good;
	for (size_t j = 1; j < m; j++) {
		ll[j] = group_evidence(b, all.y, all.h, off[j], &mu, &sp[j].spread[0]);
		sp[j].mu[0] = mu;
	}
	mu = b->mu_bad;
	for (size_t j = m; j-- > 1;) {
		ll[j] += group_evidence(b, all.y + off[j], all.h + off[j], all.n - off[j], &mu,
					&sp[j].spread[1]);
		sp[j].mu[1] = mu;
		max = fmax(max, ll[j]);
	}
	for (size_t j = 1; j < m; j++) {
		sp[j].mass = exp(ll[j] - max) * (double)(sp[j].at - sp[j].lo);
		sum += sp[j].mass;
	}
	for (size_t j = 1; j < m; j++) {
		sp[j].mass /= sum;
		for (size_t c = sp[j].lo + 1; c <= sp[j].at; c++)
			b->post[c] = exp(ll[j] - max) / sum;
	}
	b->nsplit = m;
	b->have_post = 1;
	free(ll);
	free(off);
	free(all.y);
	free(all.h);
}

/*
 * Group-sequential tests: a decision is taken only at looks, at first runs
 * per side and then half as many more each time, up to max_end_samples.
 * Each look spends an equal share of the error rate (Bonferroni), so the
 * rate of a wrong decision over all looks stays below the level asked for,
 * however many looks it takes.
 */
static size_t next_look(const fl_bisect *b, size_t m)
{
	size_t next = m + (m + 1) / 2;

	return next < b->o.max_end_samples ? next : b->o.max_end_samples;
}

static size_t count_looks(const fl_bisect *b, size_t first)
{
	size_t looks = 1;

	for (size_t m = first; m < b->o.max_end_samples; m = next_look(b, m))
		looks++;
	return looks;
}

/* The first look, from m runs per side on, at which the test can reject at
 * all: m runs per side that do not differ separate completely with
 * probability 1 / C(2m, m), the smallest p-value there is. */
static size_t first_look(const fl_bisect *b, size_t m, double alpha)
{
	for (; m < b->o.max_end_samples; m++) {
		double c = 1;

		for (size_t i = 1; i <= m; i++)
			c = c * (double)(m + i) / (double)i;
		if (1 / c < alpha / (double)count_looks(b, m))
			break;
	}
	return m;
}

/* Whether the posterior still puts the verified block first. */
static int still_best(const fl_bisect *b)
{
	size_t first = 0, last = 0;

	fl_bisect_best_block(b, &first, &last);
	return first == b->vfirst && last == b->vlast;
}

/* Runs x and y alternately (the one with fewer runs first) until both have
 * at least m runs; *stopped when the budget ran out or one was skipped, or
 * while verifying when the fresh runs moved the posterior's best block
 * elsewhere: the verification of a candidate the evidence no longer
 * prefers would only spend runs (stopping never makes it pass). */
static int sample_to(fl_bisect *b, enum fl_bisect_phase ph, size_t xi, size_t yi, struct runs *xs,
		     struct runs *ys, size_t m, int *stopped)
{
	int r;

	*stopped = 0;
	while (xs->n < m || ys->n < m) {
		if (!fl_bisect_budget_left(b) || b->c[xi].skipped || b->c[yi].skipped) {
			*stopped = 1;
			return 0;
		}
		if (xs->n <= ys->n && xs->n < m)
			r = fl_bisect_run_one(b, ph, xi, xs == &b->c[xi].r ? NULL : xs);
		else
			r = fl_bisect_run_one(b, ph, yi, ys == &b->c[yi].r ? NULL : ys);
		if (r)
			return r;
		if (ph == FL_PHASE_VERIFY && !still_best(b)) {
			*stopped = 1;
			return 0;
		}
	}
	*stopped = b->c[xi].skipped || b->c[yi].skipped;
	return 0;
}

/* A change of d (bad - good) as a worsening relative to base: > 0 is
 * worse. From a base of 0 any change is an infinite fraction: a count that
 * goes from 0 to 5 is worse by more than any min_change. */
static double relative_worsening(const fl_bisect *b, double base, double d)
{
	double w = b->o.dir == FL_HIGHER_BETTER ? -d : d;

	base = fabs(base);
	if (base > 0)
		return w / base;
	return w > 0 ? INFINITY : w < 0 ? -INFINITY : 0;
}

/* Worsening from x to y as a fraction of x's median: > 0 is worse. */
static double worsening(const fl_bisect *b, const struct runs *x, double shift)
{
	return relative_worsening(b, fl_stats_median(x->y, x->n), shift);
}

/* One look of a one-sided comparison of y against x, on run summaries:
 * *worse when y is worse than x at level alpha, by at least need (a
 * fraction of x); *ucb gets the most worsening the 1 - 2 alpha interval of
 * the shift allows and *change the Hodges-Lehmann estimate. */
static int look(const fl_bisect *b, const struct runs *x, const struct runs *y, double alpha,
		double need, int *worse, double *ucb, double *change)
{
	struct fl_mwu t;
	struct fl_shift s;
	int r;

	if ((r = fl_stats_mwu(x->y, x->n, y->y, y->n, &t)) ||
	    (r = fl_stats_hodges_lehmann(x->y, x->n, y->y, y->n, 1 - 2 * alpha, &s)))
		return r;
	*change = worsening(b, x, s.shift);
	*ucb = fmax(worsening(b, x, s.lo), worsening(b, x, s.hi));
	*worse = *change > 0 && *change >= need && t.p / 2 < alpha;
	return 0;
}

/*
 * A group-sequential one-sided test of y against x: looks at first runs per
 * side and then half as many more each time up to max_end_samples, each
 * spending alpha / looks (Bonferroni), so that over all looks x and y that
 * do not differ are called different with probability at most alpha.
 * Stops at the first look that finds y worse by need or more (*worse), or
 * rules out that y is worse by futile or more, or at the budget.
 */
static int sequential(fl_bisect *b, enum fl_bisect_phase ph, size_t xi, size_t yi, struct runs *xs,
		      struct runs *ys, size_t first, double alpha, double need, double futile,
		      int *worse, double *change)
{
	size_t m = first_look(b, first, alpha);
	int stopped, r;

	alpha /= (double)count_looks(b, m);
	*worse = 0;
	*change = 0;
	for (;;) {
		double ucb;

		if ((r = sample_to(b, ph, xi, yi, xs, ys, m, &stopped)) || stopped)
			return r;
		if ((r = look(b, xs, ys, alpha, need, worse, &ucb, change)) || *worse ||
		    ucb < futile || m >= b->o.max_end_samples)
			return r;
		m = next_look(b, m);
	}
}

/*
 * The end points: is bad worse than good by min_change? Futile once the
 * interval rules out a worsening of min_change: the same, better, or too
 * small to matter. Undecided at the most runs per end with an estimate below
 * min_change is "no regression" too; out of budget before that, undecided.
 */
static int confirm(fl_bisect *b, struct fl_bisect_result *res, int *go_on)
{
	int worse, r;
	double change;

	*go_on = 0;
	r = sequential(b, FL_PHASE_CONFIRM, 0, b->n - 1, &b->c[0].r, &b->c[b->n - 1].r,
		       b->o.init_samples, b->o.alpha, b->o.min_change, b->o.min_change, &worse,
		       &change);
	res->change_pct = 100 * change;
	if (r)
		return r;
	if (b->c[0].skipped || b->c[b->n - 1].skipped)
		return fl_error_set(FL_EINVAL, "the %s commit cannot be tested",
				    b->c[0].skipped ? "good" : "bad");
	if (worse) {
		*go_on = 1;
		return 0;
	}
	res->kind = fl_bisect_budget_left(b) && change < b->o.min_change ? FL_BISECT_NO_REGRESSION
							       : FL_BISECT_INCONCLUSIVE;
	return 0;
}

#define GRID 128

/* Student t densities of the predictive distributions of every split and
 * side on one grid of run values, with their entropies. */
struct predictive {
	double *dens; /* [(j * 2 + side) * GRID + g] */
	double *ent;  /* [j * 2 + side] */
	double step;
};

static void predictive_init(const fl_bisect *b, struct predictive *pd)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t m = b->nsplit;

	for (size_t j = 1; j < m; j++)
		for (int sd = 0; sd < 2; sd++) {
			lo = fmin(lo, b->split[j].mu[sd] - 8 * b->split[j].spread[sd]);
			hi = fmax(hi, b->split[j].mu[sd] + 8 * b->split[j].spread[sd]);
		}
	pd->step = (hi - lo) / (GRID - 1);
	pd->dens = fl_xmalloc(m * 2 * GRID * sizeof(double));
	pd->ent = fl_xcalloc(m * 2, sizeof(double));
	for (size_t j = 1; j < m; j++)
		for (int sd = 0; sd < 2; sd++) {
			double *d = pd->dens + (j * 2 + sd) * GRID, sum = 0;

			for (int g = 0; g < GRID; g++) {
				double z = (lo + g * pd->step - b->split[j].mu[sd]) /
					   b->split[j].spread[sd];

				sum += d[g] = pow(1 + z * z / T_DOF, -(T_DOF + 1) / 2);
			}
			for (int g = 0; g < GRID; g++) {
				d[g] /= sum;
				if (d[g] > 0)
					pd->ent[j * 2 + sd] -= d[g] * log(d[g]);
			}
		}
}

/*
 * The information (in nats) one more run of commit i is expected to give
 * about the culprit position: the entropy of its predictive distribution
 * (mixed over the posterior) less the expected entropy given the position.
 * Commit i is on the bad side of every position up to it.
 */
static double info_gain(const fl_bisect *b, const struct predictive *pd, size_t i)
{
	double mix[GRID] = {0}, cond = 0, h = 0;

	for (size_t j = 1; j < b->nsplit; j++) {
		const struct split *sp = &b->split[j];
		double wb = 0, w[2];

		if (sp->mass < 1e-12) /* below what the entropies resolve */
			continue;
		if (i >= sp->at)
			wb = sp->mass;
		else if (i > sp->lo)
			for (size_t c = sp->lo + 1; c <= i; c++)
				wb += b->post[c];
		w[0] = sp->mass - wb;
		w[1] = wb;
		for (int sd = 0; sd < 2; sd++) {
			const double *d = pd->dens + (j * 2 + sd) * GRID;

			if (w[sd] <= 0)
				continue;
			cond += w[sd] * pd->ent[j * 2 + sd];
			for (int g = 0; g < GRID; g++)
				mix[g] += w[sd] * d[g];
		}
	}
	for (int g = 0; g < GRID; g++)
		if (mix[g] > 0)
			h -= mix[g] * log(mix[g]);
	return h - cond;
}

/*
 * The commit to run next: the one whose run is expected to tell the most
 * about the culprit position. Candidates are the commits already run
 * (their class centres can still be uncertain: more runs of an end point
 * can be what separates two positions), the untested commit at the
 * posterior median, and the one at the middle of each interval between
 * tested commits. n when nothing can be run.
 */
static size_t choose(const fl_bisect *b)
{
	struct predictive pd;
	double best = -1;
	size_t pick = b->n, *cand = fl_xmalloc((3 * b->nsplit + 2) * sizeof(size_t)), nc = 0;

	nc = fl_bisect_candidates(b, cand);
	cand[nc++] = b->n - 1;
	predictive_init(b, &pd);
	for (size_t k = 0; k < nc; k++) {
		double g;

		if (b->c[cand[k]].skipped)
			continue;
		g = info_gain(b, &pd, cand[k]);
		if (g > best + 1e-9 || (g > best - 1e-9 && cand[k] < pick)) {
			best = g;
			pick = cand[k];
		}
	}
	free(pd.dens);
	free(pd.ent);
	free(cand);
	return pick;
}

static size_t last_testable_below(const fl_bisect *b, size_t i)
{
	while (i > 0 && b->c[i].skipped)
		i--;
	return i;
}

/* The step between the good and the bad centre of the model, as a fraction
 * of the good one: > 0 is worse. Fitted to all runs of the classified
 * commits, it is more precise than any one pair of commits. */
static double model_change(const fl_bisect *b)
{
	return relative_worsening(b, b->mu_good, b->mu_bad - b->mu_good);
}

/*
 * Fresh runs of the bad side of the block against the commit below it: a
 * candidate that is not the culprit (it and its parent differ by nothing)
 * passes with probability at most verify_alpha, whatever the noise's shape,
 * because the test is rank based and the runs are new. It is refuted early
 * once the interval rules out half the step the model sees between good and
 * bad (a single culprit carries all of it) or min_change. When the block
 * spans the whole history, the confirmation has compared exactly this pair.
 */
static int verify(fl_bisect *b, size_t first, size_t last, int *ok)
{
	struct runs px = {0}, cy = {0};
	size_t parent = last_testable_below(b, first - 1);
	double change, futile = fabs(model_change(b)) / 2;
	int r;

	/* from a good centre of 0 the model's step is infinite: no half of it */
	futile = isfinite(futile) ? fmax(futile, b->o.min_change) : b->o.min_change;

	*ok = parent == 0 && last == b->n - 1;
	if (*ok)
		return 0;
	b->vfirst = first;
	b->vlast = last;
	r = sequential(b, FL_PHASE_VERIFY, parent, last, &px, &cy, b->o.verify_samples,
		       b->o.verify_alpha, 0, futile, ok, &change);
	runs_free(&px);
	runs_free(&cy);
	return r;
}

static int search(fl_bisect *b, struct fl_bisect_result *res)
{
	size_t first = 1, last = 1, fails = 0, pick;
	double conf;
	int ok, r;

	for (;;) {
		update_posterior(b);
		conf = fl_bisect_best_block(b, &first, &last);
		res->first = first;
		res->last = last;
		res->confidence = conf;
		if (conf >= b->o.confidence) {
			if ((r = verify(b, first, last, &ok)))
				return r;
			update_posterior(b);
			conf = fl_bisect_best_block(b, &res->first, &res->last);
			if (ok && res->first == first && res->last == last &&
			    conf >= b->o.confidence) {
				res->kind = first == last ? FL_BISECT_CULPRIT : FL_BISECT_RANGE;
				res->confidence = conf;
				res->change_pct = 100 * model_change(b);
				res->good_value = b->mu_good;
				res->bad_value = b->mu_bad;
				return 0;
			}
			/* every verification is a chance for a wrong candidate to
			 * pass: their number is bounded */
			if (++fails >= b->o.max_verify_fails)
				break;
		}
		if (!fl_bisect_budget_left(b))
			break;
		pick = choose(b);
		if (pick == b->n) /* cannot happen: the end points are never skipped */
			break;
		if ((r = fl_bisect_run_one(b, FL_PHASE_SEARCH, pick, NULL)))
			return r;
	}
	res->kind = FL_BISECT_INCONCLUSIVE;
	return 0;
}

/* The ends' medians, what the change between the ends is a change of. */
static void end_values(const fl_bisect *b, struct fl_bisect_result *res)
{
	const struct runs *g = &b->c[0].r, *d = &b->c[b->n - 1].r;

	res->good_value = g->n ? fl_stats_median(g->y, g->n) : NAN;
	res->bad_value = d->n ? fl_stats_median(d->y, d->n) : NAN;
}

static int values_run(fl_bisect *b, struct fl_bisect_result *res)
{
	int go_on, r = confirm(b, res, &go_on);

	end_values(b, res);
	if (!r && go_on) {
		double endpoints = res->change_pct;

		r = search(b, res);
		if (res->kind != FL_BISECT_CULPRIT && res->kind != FL_BISECT_RANGE) {
			res->change_pct = endpoints;
			end_values(b, res);
		}
	}
	return r;
}

int fl_bisect_run(fl_bisect *b, fl_bisect_sample_fn sample, fl_bisect_step_fn step, void *ctx,
		  struct fl_bisect_result *res)
{
	int r;

	memset(res, 0, sizeof(*res));
	b->sample = sample;
	b->step = step;
	b->ctx = ctx;
	if (b->o.model == FL_MODEL_PASS_FAIL)
		r = fl_passfail_search(b, res);
	else
		r = values_run(b, res);
	res->runs = b->runs;
	for (size_t i = 0; i < b->n; i++)
		res->commits_tested += b->c[i].tried;
	return r;
}
