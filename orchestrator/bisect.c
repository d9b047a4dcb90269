/*
 * bisect.c - the bisection engine: end point confirmation, posterior search
 * over the culprit position, skip ranges and verification. See bisect.h.
 */
#include "bisect.h"
#include "buf.h"
#include "error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define T_DOF 4.0

struct commit {
	double *v;
	size_t n, alloc;
	int skipped, tried;
};

struct replayed {
	size_t idx, n;
	double *v;
	int skipped;
};

struct fl_bisect {
	size_t n;
	struct fl_bisect_opts o;
	struct commit *c;
	double *post; /* post[c] for positions 1..n-1 */
	double mu_good, mu_bad, sigma;
	int have_post;
	size_t runs, seq;
	struct replayed *rq;
	size_t nrq, rq_next;
	fl_bisect_sample_fn sample;
	fl_bisect_step_fn step;
	void *ctx;
};

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
	o->alpha = 0.01;
	o->init_samples = 8;
	o->max_end_samples = 40;
	o->max_verify_fails = 3;
	o->verify_alpha = 0.05;
	o->verify_samples = 5;
}

int fl_bisect_new(fl_bisect **out, size_t n, const struct fl_bisect_opts *o)
{
	fl_bisect *b;

	*out = NULL;
	if (n < 2)
		return fl_error_set(FL_EINVAL, "bisection needs a good and a bad commit");
	if (o->confidence <= 0 || o->confidence >= 1 || o->alpha <= 0 || o->alpha >= 0.5 ||
	    o->init_samples < 2 || o->max_end_samples < o->init_samples || o->verify_alpha <= 0 ||
	    o->verify_alpha >= 0.5 || o->verify_samples < 2 ||
	    o->verify_samples > o->max_end_samples)
		return fl_error_set(FL_EINVAL, "bisection options out of range");
	b = fl_xcalloc(1, sizeof(*b));
	b->n = n;
	b->o = *o;
	b->c = fl_xcalloc(n, sizeof(*b->c));
	b->post = fl_xcalloc(n, sizeof(*b->post));
	*out = b;
	return 0;
}

void fl_bisect_free(fl_bisect *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		free(b->c[i].v);
	for (size_t i = 0; i < b->nrq; i++)
		free(b->rq[i].v);
	free(b->rq);
	free(b->c);
	free(b->post);
	free(b);
}

void fl_bisect_replay(fl_bisect *b, size_t idx, const double *v, size_t n, int skipped)
{
	struct replayed *r;

	b->rq = fl_xrealloc(b->rq, (b->nrq + 1) * sizeof(*b->rq));
	r = &b->rq[b->nrq++];
	r->idx = idx;
	r->skipped = skipped;
	r->n = skipped ? 0 : n;
	r->v = fl_xmalloc((r->n ? r->n : 1) * sizeof(double));
	memcpy(r->v, v, r->n * sizeof(double));
}

static void add_samples(struct commit *c, const double *v, size_t n)
{
	if (!n)
		return;
	if (c->n + n > c->alloc) {
		c->alloc = (c->n + n) * 2;
		c->v = fl_xrealloc(c->v, c->alloc * sizeof(double));
	}
	memcpy(c->v + c->n, v, n * sizeof(double));
	c->n += n;
}

/* Appends every sample of commit c to a. */
static void collect(struct commit *a, const struct commit *c)
{
	add_samples(a, c->v, c->n);
}

/*
 * Noise model: medians of the good and the bad class, and a pooled robust
 * sigma. The classes start as the end points and grow with the inner
 * commits the last posterior puts on one side with 99% certainty: a model
 * fitted to 8 samples per end misplaces the decision boundary by a good
 * fraction of a sigma, which makes the posterior overconfident.
 */
static void fit_model(fl_bisect *b)
{
	struct commit g = {0}, d = {0};
	double sg, sb, f = 0;

	collect(&g, &b->c[0]);
	collect(&d, &b->c[b->n - 1]);
	for (size_t i = 1; b->have_post && i + 1 < b->n; i++) {
		f += b->post[i]; /* P(commit i is bad) */
		if (f < 0.01)
			collect(&g, &b->c[i]);
		else if (f > 0.99)
			collect(&d, &b->c[i]);
	}
	b->mu_good = fl_stats_median(g.v, g.n);
	b->mu_bad = fl_stats_median(d.v, d.n);
	sg = 1.4826 * fl_stats_mad(g.v, g.n);
	sb = 1.4826 * fl_stats_mad(d.v, d.n);
	b->sigma = sqrt((sg * sg * g.n + sb * sb * d.n) / (g.n + d.n));
	/* quantised or constant benchmarks have MAD 0: fall back to a tenth of the step */
	if (!(b->sigma > 0))
		b->sigma = fabs(b->mu_bad - b->mu_good) / 10 + 1e-12;
	free(g.v);
	free(d.v);
}

static double t_logpdf(double x, double mu, double sigma)
{
	double z = (x - mu) / sigma;

	return -(T_DOF + 1) / 2 * log1p(z * z / T_DOF);
}

/* post[c] = P(culprit = c | samples), c = 1..n-1, uniform prior. */
static void update_posterior(fl_bisect *b)
{
	size_t n = b->n, c, i;
	double *lg = fl_xcalloc(n, sizeof(double)), *lb = fl_xcalloc(n, sizeof(double));
	double acc, max = -INFINITY, sum = 0, badsum = 0;

	fit_model(b);
	for (i = 1; i + 1 < n; i++)
		for (size_t k = 0; k < b->c[i].n; k++) {
			lg[i] += t_logpdf(b->c[i].v[k], b->mu_good, b->sigma);
			lb[i] += t_logpdf(b->c[i].v[k], b->mu_bad, b->sigma);
		}
	for (i = 1; i + 1 < n; i++)
		badsum += lb[i];
	/* position c: commits 1..c-1 good, c..n-2 bad */
	acc = 0;
	for (c = 1; c < n; c++) {
		b->post[c] = acc + badsum;
		if (c + 1 < n) {
			acc += lg[c];
			badsum -= lb[c];
		}
		if (b->post[c] > max)
			max = b->post[c];
	}
	for (c = 1; c < n; c++)
		sum += (b->post[c] = exp(b->post[c] - max));
	for (c = 1; c < n; c++)
		b->post[c] /= sum;
	b->have_post = 1;
	free(lg);
	free(lb);
}

/* Positions c and c+1 cannot be told apart when commit c is skipped: the
 * block starting at a runs to the first position after a run of skipped commits. */
static size_t block_end(const fl_bisect *b, size_t a)
{
	while (a + 1 < b->n && b->c[a].skipped)
		a++;
	return a;
}

static double best_block(const fl_bisect *b, size_t *first, size_t *last)
{
	double best = -1, m;
	size_t a, e;

	for (a = 1; a < b->n; a = e + 1) {
		e = block_end(b, a);
		m = 0;
		for (size_t c = a; c <= e; c++)
			m += b->post[c];
		if (m > best) {
			best = m;
			*first = a;
			*last = e;
		}
	}
	return best;
}

static int cmp_desc(const void *x, const void *y)
{
	double a = *(const double *)x, d = *(const double *)y;

	return (a < d) - (a > d);
}

static size_t credible_size(const fl_bisect *b)
{
	double *p = fl_xmalloc(b->n * sizeof(double)), acc = 0;
	size_t k = 0;

	memcpy(p, b->post + 1, (b->n - 1) * sizeof(double));
	qsort(p, b->n - 1, sizeof(double), cmp_desc);
	while (k < b->n - 1 && acc < b->o.confidence)
		acc += p[k++];
	free(p);
	return k;
}

static int take_replayed(fl_bisect *b, size_t idx, double **v, size_t *n)
{
	struct replayed *r;

	if (b->rq_next >= b->nrq)
		return -1;
	r = &b->rq[b->rq_next];
	if (r->idx != idx) {
		/* the record diverged from this engine's choices: run for real from here */
		b->rq_next = b->nrq;
		return -1;
	}
	b->rq_next++;
	*n = r->n;
	*v = fl_xmalloc((r->n ? r->n : 1) * sizeof(double));
	memcpy(*v, r->v, r->n * sizeof(double));
	return r->skipped ? FL_BISECT_SKIP : 0;
}

/* One run of commit idx; its samples join the commit's evidence and are
 * also appended to fresh (when given) for a verification. */
static int run_one(fl_bisect *b, enum fl_bisect_phase phase, size_t idx, struct commit *fresh)
{
	struct fl_bisect_step st = {.phase = phase, .idx = idx, .verdict = ""};
	double *v = NULL;
	size_t n = 0, first = 0, last = 0;
	int r, replayed = 1;

	if ((r = take_replayed(b, idx, &v, &n)) < 0) {
		replayed = 0;
		r = b->sample(b->ctx, idx, &v, &n);
		if (r < 0) {
			free(v);
			return r;
		}
		if (r == 0 && !n)
			r = FL_BISECT_SKIP; /* a run that printed nothing tells nothing */
	}
	b->runs++;
	b->c[idx].tried = 1;
	if (r == FL_BISECT_SKIP) {
		b->c[idx].skipped = 1;
		free(v);
		v = NULL;
		n = 0;
	} else {
		add_samples(&b->c[idx], v, n);
		if (fresh)
			add_samples(fresh, v, n);
	}
	st.seq = b->seq++;
	st.v = v;
	st.n = n;
	st.skipped = r == FL_BISECT_SKIP;
	if (phase != FL_PHASE_CONFIRM) {
		update_posterior(b);
		st.confidence = best_block(b, &first, &last);
		st.best = first;
		st.left = credible_size(b);
		if (st.skipped)
			st.verdict = "skip";
		else {
			double bad = 0;

			for (size_t c = 1; c <= idx; c++)
				bad += b->post[c];
			st.verdict = bad > 0.5 ? "bad" : "good";
		}
	}
	if (!replayed && b->step)
		b->step(b->ctx, &st);
	free(v);
	return 0;
}

static int budget_left(const fl_bisect *b)
{
	return b->runs < b->o.max_runs;
}

/*
 * Samples x and y alternately (the one with fewer samples first) until the
 * comparison is decided or both reach max_end_samples; *cmp gets the last
 * comparison. xf/yf collect fresh samples when verifying.
 */
static int compare_pair(fl_bisect *b, enum fl_bisect_phase ph, size_t xi, size_t yi,
			struct commit *xs, struct commit *ys, struct fl_compare *cmp, int *decided)
{
	int verify = ph == FL_PHASE_VERIFY, r;
	size_t least = verify ? b->o.verify_samples : b->o.init_samples;
	double alpha = verify ? b->o.verify_alpha : b->o.alpha;

	*decided = 0;
	for (;;) {
		if (xs->n >= least && ys->n >= least) {
			r = fl_stats_compare(xs->v, xs->n, ys->v, ys->n, alpha, b->o.min_change,
					     b->o.dir, cmp);
			if (r)
				return r;
			if (cmp->verdict != FL_UNKNOWN ||
			    (xs->n >= b->o.max_end_samples && ys->n >= b->o.max_end_samples)) {
				*decided = cmp->verdict != FL_UNKNOWN;
				return 0;
			}
		}
		if (!budget_left(b))
			return 0;
		if (xs->n <= ys->n && xs->n < b->o.max_end_samples)
			r = run_one(b, ph, xi, xs == &b->c[xi] ? NULL : xs);
		else
			r = run_one(b, ph, yi, ys == &b->c[yi] ? NULL : ys);
		if (r)
			return r;
		if (b->c[xi].skipped || b->c[yi].skipped)
			return 0;
	}
}

static int confirm(fl_bisect *b, struct fl_bisect_result *res, int *go_on)
{
	struct fl_compare cmp = {0};
	int decided, r;

	*go_on = 0;
	r = compare_pair(b, FL_PHASE_CONFIRM, 0, b->n - 1, &b->c[0], &b->c[b->n - 1], &cmp,
			 &decided);
	if (r)
		return r;
	if (b->c[0].skipped || b->c[b->n - 1].skipped)
		return fl_error_set(FL_EINVAL, "the %s commit cannot be tested",
				    b->c[0].skipped ? "good" : "bad");
	res->change_pct = cmp.change_pct;
	if (!decided) {
		res->kind = budget_left(b) && cmp.verdict == FL_UNKNOWN &&
				    cmp.change_pct < 100 * b->o.min_change
				? FL_BISECT_NO_REGRESSION
				: FL_BISECT_INCONCLUSIVE;
		return 0;
	}
	if (cmp.verdict == FL_SAME || cmp.change_pct < 100 * b->o.min_change) {
		res->kind = FL_BISECT_NO_REGRESSION;
		return 0;
	}
	*go_on = 1;
	return 0;
}

/* The untested commit to run next: the posterior median (P(bad) nearest
 * 1/2), among commits that are not skipped; ties go to fewer samples. */
static size_t choose(const fl_bisect *b)
{
	double f = 0, dist, best = INFINITY;
	size_t pick = 0;

	for (size_t i = 1; i + 1 < b->n; i++) {
		f += b->post[i];
		if (b->c[i].skipped)
			continue;
		dist = fabs(f - 0.5);
		if (dist < best - 1e-12 ||
		    (fabs(dist - best) <= 1e-12 && b->c[i].n < b->c[pick].n)) {
			best = dist;
			pick = i;
		}
	}
	return pick;
}

static size_t last_testable_below(const fl_bisect *b, size_t i)
{
	while (i > 0 && b->c[i].skipped)
		i--;
	return i;
}

/* Fresh samples of the bad side of the block against the commit below it. */
static int verify(fl_bisect *b, size_t first, size_t last, int *ok, double *change)
{
	struct commit px = {0}, cy = {0};
	struct fl_compare cmp = {0};
	size_t parent = last_testable_below(b, first - 1);
	int decided, r;

	*ok = 0;
	r = compare_pair(b, FL_PHASE_VERIFY, parent, last, &px, &cy, &cmp, &decided);
	if (!r && decided && cmp.verdict == FL_DIFFERENT &&
	    cmp.change_pct >= 100 * b->o.min_change) {
		*ok = 1;
		*change = cmp.change_pct;
	}
	free(px.v);
	free(cy.v);
	return r;
}

static int search(fl_bisect *b, struct fl_bisect_result *res)
{
	size_t first = 1, last = 1, fails = 0, pick;
	double conf, change = 0;
	int ok, r;

	for (;;) {
		update_posterior(b);
		conf = best_block(b, &first, &last);
		res->first = first;
		res->last = last;
		res->confidence = conf;
		if (conf >= b->o.confidence) {
			if ((r = verify(b, first, last, &ok, &change)))
				return r;
			update_posterior(b);
			conf = best_block(b, &res->first, &res->last);
			if (ok && res->first == first && res->last == last &&
			    conf >= b->o.confidence) {
				res->kind = first == last ? FL_BISECT_CULPRIT : FL_BISECT_RANGE;
				res->confidence = conf;
				res->change_pct = change;
				return 0;
			}
			if (!ok && ++fails >= b->o.max_verify_fails)
				break;
		}
		if (!budget_left(b))
			break;
		pick = choose(b);
		if (!pick) /* every commit in between is skipped: verify the whole range */
			pick = last_testable_below(b, b->n - 2);
		if (!pick) {
			res->kind = FL_BISECT_RANGE;
			return 0;
		}
		if ((r = run_one(b, FL_PHASE_SEARCH, pick, NULL)))
			return r;
	}
	res->kind = FL_BISECT_INCONCLUSIVE;
	return 0;
}

int fl_bisect_run(fl_bisect *b, fl_bisect_sample_fn sample, fl_bisect_step_fn step, void *ctx,
		  struct fl_bisect_result *res)
{
	int go_on, r;

	memset(res, 0, sizeof(*res));
	b->sample = sample;
	b->step = step;
	b->ctx = ctx;
	r = confirm(b, res, &go_on);
	if (!r && go_on) {
		double endpoints = res->change_pct;

		r = search(b, res);
		if (res->kind != FL_BISECT_CULPRIT && res->kind != FL_BISECT_RANGE)
			res->change_pct = endpoints;
	}
	res->runs = b->runs;
	for (size_t i = 0; i < b->n; i++)
		res->commits_tested += b->c[i].tried;
	return r;
}
