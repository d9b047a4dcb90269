/*
 * bench/bisect-sim.c - the bisection engine against synthetic noisy
 * histories, next to two baselines it implements itself: a single-run
 * bisection (git bisect run with one run per commit) and a fixed 10-repeat
 * bisection (median of 10 runs against the midpoint of the end medians).
 *
 * Every history has values around 100 with noise of scale 1 (Gaussian sigma,
 * Student t3 scale, Gaussian with 5% outliers at +-(5..15) scales, or a
 * right-skewed lognormal of standard deviation 1), so a step of k "standard
 * deviations" is k% slower (throughput, higher better). Null histories have
 * no step; "skip10%" makes 10% of the inner commits untestable. In the
 * "5/run" scenarios one run (one boot) prints 5 samples that share a per-run
 * offset: 80% of the variance is between runs, 20% within a run, so the 5
 * samples are worth little more than one. Everything is seeded: the same
 * arguments print the same table.
 *
 *   bisect-sim [-t TRIALS] [-v] [-L|-M|-P]          the tables (default 200 trials):
 *                                                   all, or linear, merge-shaped or
 *                                                   pass/fail only
 *   bisect-sim [-t TRIALS] [-v] -n N [-z gauss|t3|outl|skew] [-s STEP]
 *              [-k SKIP_FRACTION] [-r SAMPLES_PER_RUN] [-c BETWEEN_RUN_VARIANCE]
 *              [-m MIN_CHANGE_PCT]                  one scenario of your own
 *
 * -v prints every trial the engine got wrong. A baseline run of several
 * samples counts as their mean.
 *
 * Merge-shaped histories (dag_build) run the merge descent (descent.h) and,
 * beside it, the first-parent-only search it replaced; flaky pass/fail
 * tests run the pass/fail model next to git bisect's one believed run per
 * commit.
 */
#include "analysis/bisect.h"
#include "analysis/descent.h"
#include "analysis/stats.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum noise { GAUSS, T3, OUTLIERS, SKEW };
static const char *noise_names[] = {"gauss", "t3", "outl5%", "skew"};

struct scenario {
	size_t n;
	enum noise noise;
	double step, skip; /* in noise scales; fraction of inner commits untestable */
	size_t per_run;	   /* samples one run prints */
	double between;	   /* share of the variance common to one run's samples */
	double min_change; /* fraction, for the engine */
	int trials, verbose;
	int only; /* -T: run this trial alone and print its steps; -1: all */
};

struct history {
	const struct scenario *sc;
	size_t culprit; /* n: none (null history) */
	unsigned char *skip;
	uint64_t rng;
	size_t runs;
	size_t phase_runs[3]; /* the engine's runs by phase, summed over trials */
};

static double noise(struct history *h)
{
	double z = fl_rand_normal(&h->rng), chi = 0;

	switch (h->sc->noise) {
	case T3:
		for (int i = 0; i < 3; i++) {
			double g = fl_rand_normal(&h->rng);

			chi += g * g;
		}
		return z / sqrt(chi / 3);
	case OUTLIERS:
		if (fl_rand_uniform(&h->rng) < 0.05)
			return (fl_rand_uniform(&h->rng) < 0.5 ? -1 : 1) *
			       (5 + 10 * fl_rand_uniform(&h->rng));
		return z;
	case SKEW: /* lognormal, sigma 0.5, centred on its median, scaled to sd 1 */
		return (exp(0.5 * z) - 1) / 0.6039;
	default:
		return z;
	}
}

/* One run of commit i: per_run samples in v. Slower (lower) from the culprit on. */
static void run_values(struct history *h, size_t i, double *v)
{
	const struct scenario *sc = h->sc;
	double base = 100 - (i >= h->culprit ? sc->step : 0), common = 0;

	h->runs++;
	if (sc->per_run == 1) {
		v[0] = base + noise(h);
		return;
	}
	common = sqrt(sc->between) * noise(h);
	for (size_t k = 0; k < sc->per_run; k++)
		v[k] = base + common + sqrt(1 - sc->between) * noise(h);
}

static void on_step(void *ctx, const struct fl_bisect_step *st)
{
	struct history *h = ctx;

	h->phase_runs[st->phase]++;
	if (h->sc->only < 0)
		return;
	printf("    %3zu %-7s commit %4zu %s", st->seq, fl_bisect_phase_name(st->phase), st->idx,
	       st->skipped ? "skip" : "");
	for (size_t k = 0; k < st->n && k < 5; k++)
		printf(" %7.2f", st->v[k]);
	printf("  %-4s best %zu p=%.3f left %zu\n", st->verdict, st->best, st->confidence,
	       st->left);
}

static int engine_sample(void *ctx, size_t idx, double **v, size_t *n)
{
	struct history *h = ctx;

	if (h->skip[idx]) {
		h->runs++;
		return FL_BISECT_SKIP;
	}
	*v = fl_xmalloc(h->sc->per_run * sizeof(double));
	run_values(h, idx, *v);
	*n = h->sc->per_run;
	return 0;
}

struct outcome {
	int kind; /* 0 culprit, 1 range or none found, 2 no regression/inconclusive */
	size_t first, culprit, runs, tested; /* a range is first..culprit */
};

static double median_of(struct history *h, size_t i, int reps)
{
	double m[16], v[64];

	for (int k = 0; k < reps; k++) {
		run_values(h, i, v);
		m[k] = fl_stats_mean(v, h->sc->per_run);
	}
	return fl_stats_median(m, reps);
}

/* Classic bisection: good/bad by the side of the end-point midpoint;
 * skipped commits are stepped over like git bisect skip does. */
static struct outcome baseline(struct history *h, int reps)
{
	struct outcome o = {0};
	size_t lo = 0, hi = h->sc->n - 1, mid, tested = 2;
	double thr = (median_of(h, 0, reps) + median_of(h, hi, reps)) / 2;

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

static struct outcome engine(struct history *h, struct fl_bisect_result *r)
{
	struct fl_bisect_opts opts;
	struct outcome o = {0};
	fl_bisect *b;

	fl_bisect_opts_init(&opts);
	opts.min_change = h->sc->min_change;
	if (fl_bisect_new(&b, h->sc->n, &opts) || fl_bisect_run(b, engine_sample, on_step, h, r)) {
		fprintf(stderr, "bisect-sim: engine error\n");
		exit(1);
	}
	fl_bisect_free(b);
	o.kind = r->kind == FL_BISECT_CULPRIT ? 0 : r->kind == FL_BISECT_RANGE ? 1 : 2;
	o.first = r->first;
	o.culprit = r->kind == FL_BISECT_RANGE ? r->last : r->first;
	o.runs = r->runs;
	o.tested = r->commits_tested;
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

static int tally_add(struct tally *t, const struct history *h, struct outcome o)
{
	int right = 0;

	t->runs[t->trials] = (double)o.runs;
	t->tested[t->trials] = (double)o.tested;
	t->trials++;
	if (o.kind == 0) {
		t->named++;
		t->exact += right = o.culprit == h->culprit;
	} else if (o.kind == 1 && o.first <= h->culprit && h->culprit <= o.culprit)
		t->range_ok += right = 1;
	else if (o.kind == 2)
		t->other++;
	return right;
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

static void scenario(const struct scenario *sc)
{
	struct tally t[3];
	const char *who[] = {"engine", "single", "fixed-10"};
	size_t phase_runs[3] = {0}, beside_skip = 0;
	uint64_t seed = sc->n * 1000003 + sc->noise * 101 + (uint64_t)(sc->step * 7) +
			(uint64_t)(sc->skip * 130) + sc->per_run * 31;
	size_t n = sc->n;

	for (int k = 0; k < 3; k++) {
		t[k] = (struct tally){0};
		t[k].runs = fl_xcalloc(sc->trials, sizeof(double));
		t[k].tested = fl_xcalloc(sc->trials, sizeof(double));
	}
	for (int i = 0; i < sc->trials; i++) {
		struct history h = {.sc = sc};
		struct fl_bisect_result r;
		uint64_t hs = seed * 7919 + i;

		h.skip = fl_xcalloc(n, 1);
		h.culprit = sc->step > 0 ? 1 + fl_rand_next(&hs) % (n - 1) : n;
		for (size_t c = 1; c + 1 < n; c++)
			h.skip[c] = sc->skip > 0 && fl_rand_uniform(&hs) < sc->skip;
		/* then no one can name it alone: the answer is a range */
		beside_skip += h.culprit < n && (h.skip[h.culprit - 1] || h.skip[h.culprit]);
		if (sc->only >= 0 && i != sc->only)
			continue;
		for (int k = 0; k < 3; k++) {
			struct outcome o;
			int right;

			h.rng = hs + 17 * k;
			h.runs = 0;
			o = k == 0 ? engine(&h, &r) : baseline(&h, k == 1 ? 1 : 10);
			for (int p = 0; k == 0 && p < 3; p++)
				phase_runs[p] += h.phase_runs[p];
			right = tally_add(&t[k], &h, o);
			if (k == 0 && (sc->only >= 0 ||
				       (sc->verbose && !right && (sc->step > 0 || o.kind == 0))))
				printf("    trial %d: culprit %zu, engine %s %zu..%zu p=%.3f "
				       "runs %zu commits %zu\n",
				       i, h.culprit, fl_bisect_kind_name(r.kind), r.first, r.last,
				       r.confidence, r.runs, r.commits_tested);
		}
		free(h.skip);
	}
	printf("n=%-4zu %-6s step=", n, noise_names[sc->noise]);
	if (sc->step > 0)
		printf("%gsd", sc->step);
	else
		printf("null");
	if (sc->skip > 0)
		printf(" skip%g%%", 100 * sc->skip);
	if (sc->per_run > 1)
		printf(" %zu/run (%g%% between runs)", sc->per_run, 100 * sc->between);
	printf("  (%d trials; runs and commits: median / p90)\n", sc->trials);
	if (sc->skip > 0 && sc->step > 0)
		printf("  the culprit is next to an untestable commit in %.1f%% of trials\n",
		       100.0 * beside_skip / sc->trials);
	if (sc->only >= 0)
		return;
	for (int k = 0; k < 3; k++) {
		tally_print(who[k], &t[k], sc->step == 0);
		free(t[k].runs);
		free(t[k].tested);
	}
	printf("  engine runs by phase (mean): confirm %.1f, search %.1f, verify %.1f\n",
	       (double)phase_runs[0] / sc->trials, (double)phase_runs[1] / sc->trials,
	       (double)phase_runs[2] / sc->trials);
	fflush(stdout);
}

/* A 2-sd step and a null history of the same kind. */
static void step_and_null(struct scenario *sc)
{
	sc->step = 2;
	scenario(sc);
	sc->step = 0;
	scenario(sc);
}

/* ---- merge-shaped histories: the merge descent (descent.h) ------------------- */

/*
 * Mainline's shape between two tags: a first-parent line of topic branches
 * of 5-10 commits merged by maintainers, 1-3 direct commits between merges,
 * each branch forked from the line's tip or a commit or two before it.
 * "nested": a third of the branches merge a sub-branch of 3-6 commits of
 * their own first. "skip10%": 10% of the commits inside branches (not their
 * tips) are untestable. The culprit is a uniformly drawn non-merge commit
 * (inside a branch for most), or for "evil" a merge of the line whose
 * branch alone does not regress (a semantic conflict): only the merge and
 * what follows it are slow. A commit is slow when it reaches the culprit.
 */
enum shape { FLAT, NESTED, SKIPS, EVIL, NULLH };
static const char *shape_names[] = {"merges", "nested merges", "merges skip10%", "evil merge",
				    "merges null"};

struct dag_history {
	struct fl_dag g;
	char *slow, *skip, *merge;
	size_t culprit; /* g.n: none */
	uint64_t rng;
	size_t runs;
};

static size_t dag_commit(struct dag_history *h, size_t parent)
{
	char sha[41];
	size_t x;

	snprintf(sha, sizeof(sha), "c%05zu", h->g.n);
	x = fl_dag_add(&h->g, sha, 0);
	fl_dag_add_parent(&h->g, x, parent);
	return x;
}

static size_t dag_merge(struct dag_history *h, size_t first, size_t second)
{
	size_t m = dag_commit(h, first);

	fl_dag_add_parent(&h->g, m, second);
	return m;
}

static size_t uniform_in(uint64_t *rng, size_t lo, size_t hi)
{
	return lo + fl_rand_next(rng) % (hi - lo + 1);
}

/* A branch of k commits from base; its tip. */
static size_t dag_branch(struct dag_history *h, size_t base, size_t k)
{
	size_t t = base;

	while (k--)
		t = dag_commit(h, t);
	return t;
}

static void dag_build(struct dag_history *h, enum shape sh, size_t merges)
{
	size_t tip, *line = fl_xmalloc((merges * 4 + 8) * sizeof(size_t)), nline = 0;
	size_t nodes_max;

	memset(&h->g, 0, sizeof(h->g));
	tip = fl_dag_add(&h->g, "c00000", 1); /* the good tag */
	line[nline++] = tip;
	for (size_t m = 0; m < merges; m++) {
		size_t base, t, direct = uniform_in(&h->rng, 1, 3);

		while (direct--)
			line[nline++] = tip = dag_commit(h, tip);
		base = line[nline - 1 - uniform_in(&h->rng, 0, nline > 2 ? 2 : nline - 1)];
		t = dag_branch(h, base, uniform_in(&h->rng, 5, 10));
		if (sh == NESTED && fl_rand_uniform(&h->rng) < 1.0 / 3) {
			size_t sub = dag_branch(h, t, uniform_in(&h->rng, 3, 6));

			t = dag_commit(h, t);
			t = dag_merge(h, t, sub);
			t = dag_commit(h, t);
		}
		line[nline++] = tip = dag_merge(h, tip, t);
	}
	line[nline++] = tip = dag_commit(h, tip);
	h->g.bad = tip;
	nodes_max = h->g.n;
	h->slow = fl_xcalloc(nodes_max, 1);
	h->skip = fl_xcalloc(nodes_max, 1);
	h->merge = fl_xcalloc(nodes_max, 1);
	for (size_t i = 0; i < h->g.n; i++)
		h->merge[i] = h->g.nodes[i].nparents > 1;
	h->culprit = h->g.n;
	if (sh == EVIL) { /* a merge of the line, not the first */
		size_t k = 0, want;

		for (size_t i = 0; i < nline; i++)
			k += h->merge[line[i]];
		want = uniform_in(&h->rng, 1, k - 1);
		for (size_t i = 0, j = 0; i < nline; i++)
			if (h->merge[line[i]] && j++ == want)
				h->culprit = line[i];
	} else if (sh != NULLH) {
		do
			h->culprit = uniform_in(&h->rng, 1, h->g.n - 1);
		while (h->merge[h->culprit]);
	}
	/* nodes come after their parents: slowness flows forward in index order */
	for (size_t i = 1; i < h->g.n; i++) {
		const struct fl_dag_node *nd = &h->g.nodes[i];

		h->slow[i] = i == h->culprit;
		for (size_t p = 0; p < nd->nparents; p++)
			h->slow[i] |= h->slow[nd->parents[p]];
	}
	if (sh == SKIPS) { /* inside branches: not on the line, not a branch tip */
		char *on_line = fl_xcalloc(h->g.n, 1), *tipc = fl_xcalloc(h->g.n, 1);

		for (size_t i = 0; i < nline; i++)
			on_line[line[i]] = 1;
		for (size_t i = 0; i < h->g.n; i++)
			for (size_t p = 1; p < h->g.nodes[i].nparents; p++)
				tipc[h->g.nodes[i].parents[p]] = 1;
		for (size_t i = 1; i < h->g.n; i++)
			h->skip[i] = !on_line[i] && !tipc[i] && !h->merge[i] &&
				     fl_rand_uniform(&h->rng) < 0.1;
		free(on_line);
		free(tipc);
	}
	free(line);
}

static size_t node_of(const char *sha)
{
	return strtoul(sha + 1, NULL, 10);
}

static int dag_sample(void *ctx, const char *sha, size_t seq, double **v, size_t *n)
{
	struct dag_history *h = ctx;
	size_t x = node_of(sha);

	(void)seq;
	h->runs++;
	if (h->skip[x])
		return FL_BISECT_SKIP;
	*v = fl_xmalloc(sizeof(double));
	(*v)[0] = 100 - (h->slow[x] ? 2 : 0) + fl_rand_normal(&h->rng);
	*n = 1;
	return 0;
}

/* Whether a range first..last of one line holds x: last's first parents down to first. */
static int range_holds(const struct fl_dag *g, size_t first, size_t last, size_t x)
{
	for (size_t y = last;; y = g->nodes[y].parents[0]) {
		if (y == x)
			return 1;
		if (y == first || !g->nodes[y].nparents || g->nodes[y].outside)
			return 0;
	}
}

struct first_parent_ctx {
	struct dag_history *h;
	size_t *line;
};

static int fp_sample(void *ctx, size_t idx, double **v, size_t *n)
{
	struct first_parent_ctx *f = ctx;

	return dag_sample(f->h, f->h->g.nodes[f->line[idx]].sha, 0, v, n);
}

/* The old search, bad's first-parent line only: whether it names the culprit. */
static int first_parent_only(struct dag_history *h, const struct fl_bisect_opts *o)
{
	size_t *line = fl_xmalloc(h->g.n * sizeof(size_t)), k = 0;
	struct first_parent_ctx f = {h, line};
	struct fl_bisect_result r;
	fl_bisect *b;
	int right;

	for (size_t y = h->g.bad;; y = h->g.nodes[y].parents[0]) {
		line[k++] = y;
		if (h->g.nodes[y].outside)
			break;
	}
	for (size_t i = 0; i < k / 2; i++) {
		size_t t = line[i];

		line[i] = line[k - 1 - i];
		line[k - 1 - i] = t;
	}
	if (fl_bisect_new(&b, k, o) || fl_bisect_run(b, fp_sample, NULL, &f, &r))
		exit(1);
	right = r.kind == FL_BISECT_CULPRIT && line[r.first] == h->culprit;
	fl_bisect_free(b);
	free(line);
	return right;
}

static void dag_scenario(enum shape sh, size_t merges, int trials)
{
	struct tally t = {0};
	size_t fp_right = 0, merge_named = 0, beside = 0, commits = 0, depth = 0;
	uint64_t seed = 4242 + sh * 131 + merges;

	t.runs = fl_xcalloc(trials, sizeof(double));
	t.tested = fl_xcalloc(trials, sizeof(double));
	for (int i = 0; i < trials; i++) {
		struct dag_history h = {.rng = seed * 7919 + i};
		struct fl_descent_result r;
		struct fl_bisect_opts o;
		struct outcome oc = {0};
		fl_descent *d;
		size_t first, last;

		dag_build(&h, sh, merges);
		commits += fl_dag_range_size(&h.g);
		fl_bisect_opts_init(&o);
		o.min_change = 0.005;
		if (fl_descent_new(&d, &h.g, &o) ||
		    fl_descent_run(d, &(struct fl_descent_ops){dag_sample, NULL, NULL}, &h, &r)) {
			fprintf(stderr, "bisect-sim: descent error: %s\n", fl_error_last());
			exit(1);
		}
		first = r.first ? node_of(r.first) : 0;
		last = r.last ? node_of(r.last) : 0;
		oc.kind = r.kind == FL_BISECT_CULPRIT ? 0 : r.kind == FL_BISECT_RANGE ? 1 : 2;
		oc.culprit = first;
		oc.runs = r.runs;
		oc.tested = r.commits_tested;
		if (oc.kind == 1) { /* a range: right when it holds the culprit */
			int holds = range_holds(&h.g, first, last, h.culprit);

			oc.first = holds ? h.culprit : 1;
			oc.culprit = holds ? h.culprit : 0;
		}
		tally_add(&t, &(struct history){.culprit = h.culprit}, oc);
		merge_named += oc.kind == 0 && h.merge[first] && first != h.culprit;
		depth += oc.kind == 0 && first == h.culprit ? r.depth : 0;
		if (h.culprit < h.g.n) {
			const struct fl_dag_node *c = &h.g.nodes[h.culprit];

			beside += h.skip[c->parents[0]];
			for (size_t x = 0; x < h.g.n; x++)
				beside += h.skip[x] && h.g.nodes[x].nparents &&
					  h.g.nodes[x].parents[0] == h.culprit;
		}
		h.rng = seed * 31 + i;
		fp_right += sh != NULLH && first_parent_only(&h, &o);
		fl_descent_free(d);
		fl_dag_release(&h.g);
		free(h.slow);
		free(h.skip);
		free(h.merge);
	}
	printf("%-15s %2zu merges, %3.0f commits (%d trials; runs, commits: median / p90)\n",
	       shape_names[sh], merges, (double)commits / trials, trials);
	if (sh == SKIPS)
		printf("  the culprit is next to an untestable commit in %.1f%% of trials\n",
		       100.0 * beside / trials);
	tally_print("descent", &t, sh == NULLH);
	if (sh != NULLH)
		printf("  a merge named instead %.1f%%; first-parent search only: exact %.1f%%; "
		       "mean depth of exact answers %.2f\n",
		       100.0 * merge_named / trials, 100.0 * fp_right / trials,
		       t.exact ? (double)depth / t.exact : 0);
	free(t.runs);
	free(t.tested);
	fflush(stdout);
}

/* ---- flaky pass/fail tests: the pass/fail model ---------------------------------- */

struct pf_history {
	size_t culprit;
	double false_pass, false_fail;
	uint64_t rng;
	size_t runs;
};

static int pf_outcome(struct pf_history *h, size_t idx)
{
	double u = fl_rand_uniform(&h->rng);

	h->runs++;
	return idx >= h->culprit ? u >= h->false_pass : u < h->false_fail;
}

static int pf_sample(void *ctx, size_t idx, double **v, size_t *n)
{
	*v = fl_xmalloc(sizeof(double));
	(*v)[0] = pf_outcome(ctx, idx);
	*n = 1;
	return 0;
}

/* git bisect run: one run per commit, believed. */
static size_t git_bisect(struct pf_history *h, size_t n)
{
	size_t lo = 0, hi = n - 1;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (pf_outcome(h, mid))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* stated: the rates the engine is told, as a multiple of the true ones (0: not stated) */
static void pf_scenario(size_t n, double fp, double ff, double stated, int trials)
{
	struct tally t = {0}, g = {0};
	uint64_t seed =
	    n * 977 + (uint64_t)(fp * 1000) + (uint64_t)(ff * 100) + (uint64_t)(stated * 10);
	double rate_p = 0, rate_f = 0;

	t.runs = fl_xcalloc(trials, sizeof(double));
	t.tested = fl_xcalloc(trials, sizeof(double));
	g.runs = fl_xcalloc(trials, sizeof(double));
	g.tested = fl_xcalloc(trials, sizeof(double));
	for (int i = 0; i < trials; i++) {
		uint64_t hs = seed * 7919 + i;
		struct pf_history h = {.culprit = 1 + fl_rand_next(&hs) % (n - 1),
				       .false_pass = fp,
				       .false_fail = ff,
				       .rng = hs};
		struct fl_bisect_opts o;
		struct fl_bisect_result r;
		struct outcome oc = {0};
		fl_bisect *b;
		size_t c;

		fl_bisect_opts_init(&o);
		o.model = FL_MODEL_PASS_FAIL;
		o.false_pass = stated * fp;
		o.false_fail = stated * ff;
		if (fl_bisect_new(&b, n, &o) || fl_bisect_run(b, pf_sample, NULL, &h, &r))
			exit(1);
		fl_bisect_free(b);
		oc.kind = r.kind == FL_BISECT_CULPRIT ? 0 : r.kind == FL_BISECT_RANGE ? 1 : 2;
		oc.culprit = r.first;
		oc.runs = r.runs;
		oc.tested = r.commits_tested;
		tally_add(&t, &(struct history){.culprit = h.culprit}, oc);
		rate_p += r.false_pass;
		rate_f += r.false_fail;
		h.runs = 0;
		c = git_bisect(&h, n);
		tally_add(
		    &g, &(struct history){.culprit = h.culprit},
		    (struct outcome){.kind = 0, .culprit = c, .runs = h.runs, .tested = h.runs});
	}
	printf("n=%-4zu pass/fail, false pass %g%%, false fail %g%%, ", n, 100 * fp, 100 * ff);
	if (stated > 0)
		printf("rates stated as %g%% and %g%%", 100 * stated * fp, 100 * stated * ff);
	else
		printf("rates not stated");
	printf(" (%d trials)\n", trials);
	tally_print("engine", &t, 0);
	tally_print("git", &g, 0);
	printf("  estimated rates (mean): false pass %.1f%%, false fail %.1f%%\n",
	       100 * rate_p / trials, 100 * rate_f / trials);
	free(t.runs);
	free(t.tested);
	free(g.runs);
	free(g.tested);
	fflush(stdout);
}

static void merge_tables(int trials)
{
	static const size_t merges[] = {4, 12};

	for (size_t k = 0; k < 2; k++)
		for (int sh = FLAT; sh <= NULLH; sh++)
			dag_scenario(sh, merges[k], trials);
}

static void flaky_tables(int trials)
{
	static const size_t sizes[] = {32, 256, 1024};

	for (size_t k = 0; k < 3; k++) {
		pf_scenario(sizes[k], 0, 0, 0, trials);
		pf_scenario(sizes[k], 0.2, 0.05, 1, trials);
		pf_scenario(sizes[k], 0.2, 0.05, 0.5, trials);
		pf_scenario(sizes[k], 0.2, 0.05, 0, trials);
	}
}

static int usage(void)
{
	fprintf(stderr,
		"usage: bisect-sim [-t TRIALS] [-v] [-L | -M | -P] [-n N [-z gauss|t3|outl|skew] "
		"[-s STEP] [-k SKIP] [-r PER_RUN] [-c BETWEEN] [-m MIN_CHANGE_PCT]]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = {32, 256, 1024};
	static const double steps[] = {1, 2, 4, 0};
	struct scenario sc = {.noise = GAUSS,
			      .step = 2,
			      .per_run = 1,
			      .between = 0.8,
			      .min_change = 0.005,
			      .trials = 200,
			      .only = -1};
	int c, tables = 'A';

	while ((c = getopt(argc, argv, "t:vn:z:s:k:r:c:m:T:LMP")) != -1) {
		if (c == 'L' || c == 'M' || c == 'P')
			tables = c;
		else if (c == 't')
			sc.trials = atoi(optarg);
		else if (c == 'T')
			sc.only = atoi(optarg);
		else if (c == 'v')
			sc.verbose = 1;
		else if (c == 'n')
			sc.n = strtoul(optarg, NULL, 10);
		else if (c == 'z') {
			for (sc.noise = GAUSS; sc.noise <= SKEW; sc.noise++)
				if (!strncmp(optarg, noise_names[sc.noise], strlen(optarg)))
					break;
			if (sc.noise > SKEW)
				return usage();
		} else if (c == 's')
			sc.step = atof(optarg);
		else if (c == 'k')
			sc.skip = atof(optarg);
		else if (c == 'r')
			sc.per_run = strtoul(optarg, NULL, 10);
		else if (c == 'c')
			sc.between = atof(optarg);
		else if (c == 'm')
			sc.min_change = atof(optarg) / 100;
		else
			return usage();
	}
	if (optind < argc && sc.trials == 200) /* the old form: bisect-sim TRIALS */
		sc.trials = atoi(argv[optind++]);
	if (sc.trials < 1 || optind < argc || sc.per_run < 1 || sc.per_run > 64 || sc.between < 0 ||
	    sc.between > 1 || (sc.n && sc.n < 2) || sc.min_change <= 0)
		return usage();
	if (sc.per_run == 1)
		sc.between = 1;
	if (sc.n) {
		scenario(&sc);
		return 0;
	}
	if (tables == 'A' || tables == 'M')
		merge_tables(sc.trials);
	if (tables == 'A' || tables == 'P')
		flaky_tables(sc.trials);
	for (size_t s = 0; s < 3 && (tables == 'A' || tables == 'L'); s++) {
		sc.n = sizes[s];
		for (int nz = GAUSS; nz <= OUTLIERS; nz++)
			for (size_t k = 0; k < 4; k++) {
				sc.noise = nz;
				sc.step = steps[k];
				scenario(&sc);
			}
		sc.noise = GAUSS;
		sc.skip = 0.1;
		step_and_null(&sc);
		sc.skip = 0;
		sc.per_run = 5;
		sc.between = 0.8;
		step_and_null(&sc);
		sc.per_run = 1;
		sc.between = 1;
	}
	return 0;
}
