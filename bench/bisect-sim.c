/*
 * bench/bisect-sim.c - the bisection engine against synthetic noisy
 * histories, next to two baselines it implements itself: a single-run
 * bisection (git bisect run with one run per commit) and a fixed 10-repeat
 * bisection (median of 10 runs against the midpoint of the end medians).
 *
 * Every history has values around 100 with noise of scale 1 (Gaussian sigma,
 * Student t3 scale, or Gaussian with 5% outliers at +-(5..15) scales), so a
 * step of k "standard deviations" is k% slower (throughput, higher better).
 * Null histories have no step; "skip10" makes 10% of the inner commits
 * untestable. Everything is seeded: the same arguments print the same table.
 *
 *   bisect-sim [TRIALS]      (default 200 per scenario)
 */
#include "bisect.h"
#include "buf.h"
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum noise { GAUSS, T3, OUTLIERS };
static const char *noise_names[] = {"gauss", "t3", "outl5%"};

struct history {
	size_t n, culprit; /* culprit n: none (null history) */
	double step;
	enum noise noise;
	unsigned char *skip;
	uint64_t rng;
	size_t runs;
};

static double noise(struct history *h)
{
	double z = fl_rand_normal(&h->rng), chi = 0;

	if (h->noise == T3) {
		for (int i = 0; i < 3; i++) {
			double g = fl_rand_normal(&h->rng);

			chi += g * g;
		}
		return z / sqrt(chi / 3);
	}
	if (h->noise == OUTLIERS && fl_rand_uniform(&h->rng) < 0.05)
		return (fl_rand_uniform(&h->rng) < 0.5 ? -1 : 1) *
		       (5 + 10 * fl_rand_uniform(&h->rng));
	return z;
}

static double value(struct history *h, size_t i)
{
	h->runs++;
	return 100 - (i >= h->culprit ? h->step : 0) + noise(h);
}

static int engine_sample(void *ctx, size_t idx, double **v, size_t *n)
{
	struct history *h = ctx;

	if (h->skip[idx]) {
		h->runs++;
		return FL_BISECT_SKIP;
	}
	*v = fl_xmalloc(sizeof(double));
	(*v)[0] = value(h, idx);
	*n = 1;
	return 0;
}

struct outcome {
	int kind; /* 0 culprit, 1 range or none found, 2 no regression/inconclusive */
	size_t first, culprit, runs, tested; /* a range is first..culprit */
};

static double median_of(struct history *h, size_t i, int reps)
{
	double v[16];

	for (int k = 0; k < reps; k++)
		v[k] = value(h, i);
	return fl_stats_median(v, reps);
}

/* Classic bisection: good/bad by the side of the end-point midpoint;
 * skipped commits are stepped over like git bisect skip does. */
static struct outcome baseline(struct history *h, int reps)
{
	struct outcome o = {0};
	size_t lo = 0, hi = h->n - 1, mid, tested = 2;
	double thr = (median_of(h, 0, reps) + median_of(h, h->n - 1, reps)) / 2;

	while (hi - lo > 1) {
		size_t base = lo + (hi - lo) / 2, d;

		mid = 0;
		for (d = 0; d < hi - lo; d++) {
			size_t c1 = base + d, c2 = base - d;

			if (c1 < hi && !h->skip[c1]) {
				mid = c1;
				break;
			}
			if (c2 > lo && c2 < hi && !h->skip[c2]) {
				mid = c2;
				break;
			}
			if (c1 < hi) {
				h->runs++;
				tested++;
			}
		}
		if (!mid) { /* only skipped commits left between lo and hi */
			o.kind = 1;
			o.first = lo + 1;
			break;
		}
		tested++;
		if (median_of(h, mid, reps) < thr)
			hi = mid;
		else
			lo = mid;
	}
	o.culprit = hi;
	o.runs = h->runs;
	o.tested = tested;
	return o;
}

static struct outcome engine(struct history *h)
{
	struct fl_bisect_opts opts;
	struct fl_bisect_result r;
	struct outcome o = {0};
	fl_bisect *b;

	fl_bisect_opts_init(&opts);
	opts.min_change = 0.005; /* half a standard deviation */
	if (fl_bisect_new(&b, h->n, &opts) || fl_bisect_run(b, engine_sample, NULL, h, &r)) {
		fprintf(stderr, "bisect-sim: engine error\n");
		exit(1);
	}
	fl_bisect_free(b);
	o.kind = r.kind == FL_BISECT_CULPRIT ? 0 : r.kind == FL_BISECT_RANGE ? 1 : 2;
	o.first = r.first;
	o.culprit = r.kind == FL_BISECT_RANGE ? r.last : r.first;
	o.runs = r.runs;
	o.tested = r.commits_tested;
	return o;
}

struct tally {
	size_t trials, exact, named; /* named: any culprit claimed */
	size_t range_ok, other;	     /* a range holding the culprit; no answer at all */
	double *runs, *tested;
};

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double pct(double *v, size_t n, double q)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return v[(size_t)floor(q * (n - 1) + 0.5)];
}

static void tally_add(struct tally *t, const struct history *h, struct outcome o)
{
	t->runs[t->trials] = (double)o.runs;
	t->tested[t->trials] = (double)o.tested;
	t->trials++;
	if (o.kind == 0) {
		t->named++;
		t->exact += o.culprit == h->culprit;
	} else if (o.kind == 1 && o.first <= h->culprit && h->culprit <= o.culprit)
		t->range_ok++;
	else if (o.kind == 2)
		t->other++;
}

static void tally_print(const char *who, struct tally *t, int null)
{
	size_t n = t->trials;

	printf("  %-9s %s %6.1f%%  wrong %5.1f%%  range %5.1f%%  none %5.1f%%  "
	       "runs %5.0f / %5.0f  commits %4.0f / %4.0f\n",
	       who, null ? "false culprits" : "exact culprit ",
	       100.0 * (null ? t->named : t->exact) / n, 100.0 * (t->named - t->exact) / n,
	       100.0 * t->range_ok / n, 100.0 * t->other / n, pct(t->runs, n, 0.5),
	       pct(t->runs, n, 0.9), pct(t->tested, n, 0.5), pct(t->tested, n, 0.9));
}

static void scenario(size_t n, enum noise nz, double step, int skips, int trials)
{
	struct tally t[3];
	const char *who[] = {"engine", "single", "fixed-10"};
	uint64_t seed = n * 1000003 + nz * 101 + (uint64_t)(step * 7) + skips * 13;

	for (int k = 0; k < 3; k++) {
		t[k] = (struct tally){0};
		t[k].runs = fl_xcalloc(trials, sizeof(double));
		t[k].tested = fl_xcalloc(trials, sizeof(double));
	}
	for (int i = 0; i < trials; i++) {
		struct history h = {.n = n, .step = step, .noise = nz};
		uint64_t hs = seed * 7919 + i;

		h.skip = fl_xcalloc(n, 1);
		h.culprit = step > 0 ? 1 + fl_rand_next(&hs) % (n - 1) : n;
		for (size_t c = 1; skips && c + 1 < n; c++)
			h.skip[c] = fl_rand_uniform(&hs) < 0.10;
		for (int k = 0; k < 3; k++) {
			struct outcome o;

			h.rng = hs + 17 * k;
			h.runs = 0;
			o = k == 0 ? engine(&h) : baseline(&h, k == 1 ? 1 : 10);
			tally_add(&t[k], &h, o);
		}
		free(h.skip);
	}
	printf("n=%-4zu %-6s step=%s%s  (%d trials; runs and commits: median / p90)\n", n,
	       noise_names[nz],
	       step > 0 ? (step == 1   ? "1sd"
			   : step == 2 ? "2sd"
				       : "4sd")
			: "null",
	       skips ? " skip10%" : "", trials);
	for (int k = 0; k < 3; k++) {
		tally_print(who[k], &t[k], step == 0);
		free(t[k].runs);
		free(t[k].tested);
	}
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = {32, 256, 1024};
	static const double steps[] = {1, 2, 4, 0};
	int trials = argc > 1 ? atoi(argv[1]) : 200;

	if (trials < 1) {
		fprintf(stderr, "usage: bisect-sim [TRIALS]\n");
		return 2;
	}
	for (size_t s = 0; s < 3; s++) {
		for (int nz = GAUSS; nz <= OUTLIERS; nz++)
			for (size_t k = 0; k < 4; k++)
				scenario(sizes[s], nz, steps[k], 0, trials);
		scenario(sizes[s], GAUSS, 2, 1, trials);
		scenario(sizes[s], GAUSS, 0, 1, trials);
	}
	return 0;
}
