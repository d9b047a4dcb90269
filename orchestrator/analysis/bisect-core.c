/*
 * bisect-core.c - what the engine's two models share (bisect-core.h): the
 * runs of each commit, one run taken through the sample callback and shown
 * through the step callback with the posterior's view, the blocks skipped
 * commits make, the credible set and the commits worth weighing next. The
 * models (bisect.c: values, passfail.c: pass/fail) build on it; it calls
 * the model only through b->posterior.
 */
#include "analysis/bisect-core.h"
#include "lib/buf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRIM 0.2 /* a run's summary: the 20% trimmed mean of its samples */

static void runs_add(struct runs *r, double y, size_t k)
{
	if (r->n == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 8;
		r->y = fl_xrealloc(r->y, r->alloc * sizeof(double));
		r->k = fl_xrealloc(r->k, r->alloc * sizeof(size_t));
	}
	r->y[r->n] = y;
	r->k[r->n++] = k;
}

/* One run's samples: its summary joins the commit's runs (and fresh, when
 * verifying); its deviations from that summary measure the within-run noise.
 * A deviation from a summary of k samples is smaller than one from the true
 * centre by about sqrt((k - 1) / k); it is scaled back. */
static void add_run(fl_bisect *b, struct runs *r, struct runs *fresh, const double *v, size_t n)
{
	double y = fl_stats_trimmed_mean(v, n, TRIM);

	runs_add(r, y, n);
	if (fresh)
		runs_add(fresh, y, n);
	if (n < 2)
		return;
	if (b->nwres + n > b->awres) {
		b->awres = 2 * (b->nwres + n);
		b->wres = fl_xrealloc(b->wres, b->awres * sizeof(double));
	}
	for (size_t i = 0; i < n; i++)
		b->wres[b->nwres++] = fabs(v[i] - y) * sqrt((double)n / (n - 1));
}

/* Positions c and c+1 cannot be told apart when commit c is skipped: the
 * block starting at a runs to the first position after a run of skipped commits. */
static size_t block_end(const fl_bisect *b, size_t a)
{
	while (a + 1 < b->n && b->c[a].skipped)
		a++;
	return a;
}

double fl_bisect_best_block(const fl_bisect *b, size_t *first, size_t *last)
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
	double *p = fl_xmalloc(b->npos * sizeof(double)), acc = 0;
	size_t k = 0;

	memcpy(p, b->post + 1, b->npos * sizeof(double));
	qsort(p, b->npos, sizeof(double), cmp_desc);
	while (k < b->npos && acc < b->o.confidence)
		acc += p[k++];
	free(p);
	return k;
}

/* Drops NaN and infinite samples, which no statistic survives; the count left. */
static size_t keep_finite(double *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[k++] = v[i];
	return k;
}

/* A run's samples join commit idx's evidence (and fresh, when given): its
 * summary, and for the pass/fail model its outcomes. */
static void take_run(fl_bisect *b, size_t idx, struct runs *fresh, const double *v, size_t n)
{
	add_run(b, &b->c[idx].r, fresh, v, n);
	for (size_t i = 0; i < n; i++)
		if (v[i] != 0)
			b->c[idx].fail++;
		else
			b->c[idx].pass++;
}

void fl_bisect_prior(fl_bisect *b, size_t idx, const double *v, size_t n, int skipped)
{
	double *w = fl_xmalloc((n ? n : 1) * sizeof(double));

	n = skipped ? 0 : n;
	if (n)
		memcpy(w, v, n * sizeof(double));
	n = keep_finite(w, n);
	if (n)
		take_run(b, idx, NULL, w, n);
	else
		b->c[idx].skipped = 1;
	free(w);
}

/* After a run of idx: the posterior's view, for the step callback. */
static void step_view(fl_bisect *b, size_t idx, struct fl_bisect_step *st)
{
	size_t first = 0, last = 0;
	double bad = 0;

	b->posterior(b);
	st->confidence = fl_bisect_best_block(b, &first, &last);
	st->best = first;
	st->left = credible_size(b);
	for (size_t c = 1; c <= idx; c++)
		bad += b->post[c];
	st->verdict = st->skipped ? "skip" : bad > 0.5 ? "bad" : "good";
}

int fl_bisect_run_one(fl_bisect *b, enum fl_bisect_phase phase, size_t idx, struct runs *fresh)
{
	struct fl_bisect_step st = {.phase = phase, .idx = idx, .verdict = ""};
	double *v = NULL;
	size_t n = 0;
	int r;

	r = b->sample(b->ctx, idx, &v, &n);
	if (r < 0) {
		free(v);
		return r;
	}
	n = keep_finite(v, r == 0 ? n : 0);
	if (r == 0 && !n)
		r = FL_BISECT_SKIP; /* a run that printed nothing tells nothing */
	b->runs++;
	b->c[idx].tried = 1;
	if (r == FL_BISECT_SKIP) {
		b->c[idx].skipped = 1;
		free(v);
		v = NULL;
		n = 0;
	} else
		take_run(b, idx, fresh, v, n);
	st.seq = b->seq++;
	st.v = v;
	st.n = n;
	st.skipped = r == FL_BISECT_SKIP;
	if (phase != FL_PHASE_CONFIRM)
		step_view(b, idx, &st);
	if (b->step)
		b->step(b->ctx, &st);
	free(v);
	return 0;
}

int fl_bisect_budget_left(const fl_bisect *b)
{
	return b->runs < b->o.max_runs;
}

size_t fl_bisect_split_untested(const fl_bisect *b, size_t lo, size_t at, double acc, double target)
{
	double best = INFINITY;
	size_t pick = b->n;

	for (size_t i = lo + 1; i < at; i++) {
		acc += b->post[i];
		if (!b->c[i].skipped && !b->c[i].r.n && fabs(acc - target) < best) {
			best = fabs(acc - target);
			pick = i;
		}
	}
	return pick;
}

size_t fl_bisect_candidates(const fl_bisect *b, size_t *cand)
{
	double acc = 0;
	size_t nc = 0;

	for (size_t j = 1; j < b->nsplit; j++) {
		const struct split *sp = &b->split[j];
		size_t at = sp->at < b->n ? sp->at : b->n; /* position n: no culprit */
		size_t mid = fl_bisect_split_untested(b, sp->lo, at, 0, sp->mass / 2);
		size_t med = fl_bisect_split_untested(b, sp->lo, at, acc, 0.5);

		acc += sp->mass;
		cand[nc++] = sp->lo;
		if (mid < b->n)
			cand[nc++] = mid;
		if (med < b->n)
			cand[nc++] = med;
	}
	return nc;
}
