/*
 * test_bisect.c - properties of the bisection engine on small seeded
 * histories: it finds the culprit, reports a range around skipped commits,
 * stops at the budget, says "no regression" on flat histories, follows the
 * direction, treats the samples of one run as one run (they share the run's
 * offset), bounds the false culprits of null histories by its error rates,
 * runs the end points again when that is what separates two positions, and
 * counts a worsening from a good side of 0. The pass/fail model: git
 * bisect's runs on a deterministic test, the exact culprit of a flaky one,
 * a bad end that may be good, skips. Resuming is test_descent.c's.
 * Histories are Gaussian (splitmix64 + Box-Muller) around 100, sigma 1;
 * the culprit is placed by the test, so the expected answer is known.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bisect.h"
#include "lib/buf.h"
#include "lib/error.h"

struct sim {
	size_t culprit;
	double step; /* in sigmas; bad commits are worse by this much */
	/* per_run > 1: a run prints per_run samples, an offset of sd `between`
	 * shared by the run plus independent noise of sd `within` each */
	size_t per_run;
	double between, within;
	int lower_better;
	const int *skip; /* skip[i]: commit i cannot be tested, may be NULL */
	uint64_t rng;
	size_t calls;
	int fail;
	size_t nrec; /* steps counted by a test's step callback */
};

static int sim_sample(void *ctx, size_t idx, double **v, size_t *n)
{
	struct sim *s = ctx;
	double shift = idx >= s->culprit ? s->step : 0;

	s->calls++;
	if (s->fail)
		return fl_error_set(FL_EIO, "benchmark exploded");
	if (s->skip && s->skip[idx])
		return FL_BISECT_SKIP;
	if (s->per_run > 1) {
		double base = 100 + s->between * fl_rand_normal(&s->rng) - shift;

		*v = fl_xmalloc(s->per_run * sizeof(double));
		for (size_t k = 0; k < s->per_run; k++)
			(*v)[k] = base + s->within * fl_rand_normal(&s->rng);
		*n = s->per_run;
		return 0;
	}
	*v = fl_xmalloc(sizeof(double));
	(*v)[0] = 100 + fl_rand_normal(&s->rng) + (s->lower_better ? shift : -shift);
	*n = 1;
	return 0;
}

static void run_with(struct sim *s, size_t n, const struct fl_bisect_opts *o,
		     fl_bisect_sample_fn fn, struct fl_bisect_result *res)
{
	fl_bisect *b;

	assert_int_equal(fl_bisect_new(&b, n, o), 0);
	assert_int_equal(fl_bisect_run(b, fn, NULL, s, res), 0);
	assert_int_equal(res->runs, s->calls);
	fl_bisect_free(b);
}

static void run(struct sim *s, size_t n, const struct fl_bisect_opts *o,
		struct fl_bisect_result *res)
{
	run_with(s, n, o, sim_sample, res);
}

static void test_finds_culprit(void **state)
{
	static const size_t sizes[] = {2, 7, 33, 100};
	struct fl_bisect_opts o;
	struct fl_bisect_result res;

	(void)state;
	fl_bisect_opts_init(&o);
	o.min_change = 0.01; /* 1% of 100 = 1 sigma */
	for (size_t k = 0; k < 4; k++)
		for (uint64_t seed = 1; seed <= 10; seed++) {
			struct sim s = {.step = 3, .rng = seed * 1000 + k};

			s.culprit = 1 + (seed * 7919) % (sizes[k] - 1);
			run(&s, sizes[k], &o, &res);
			assert_int_equal(res.kind, FL_BISECT_CULPRIT);
			assert_int_equal(res.first, s.culprit);
			assert_true(res.confidence >= 0.95);
			assert_true(res.change_pct > 1.5 && res.change_pct < 4.5);
		}
}

static void test_lower_better(void **state)
{
	struct fl_bisect_opts o;
	struct fl_bisect_result res;
	struct sim s = {.step = 3, .rng = 5, .culprit = 12, .lower_better = 1};

	(void)state;
	fl_bisect_opts_init(&o);
	o.min_change = 0.01;
	o.dir = FL_LOWER_BETTER;
	run(&s, 40, &o, &res);
	assert_int_equal(res.kind, FL_BISECT_CULPRIT);
	assert_int_equal(res.first, 12);
	/* the same history read as higher-better is an improvement: no regression */
	s = (struct sim){.step = 3, .rng = 5, .culprit = 12, .lower_better = 1};
	o.dir = FL_HIGHER_BETTER;
	run(&s, 40, &o, &res);
	assert_int_equal(res.kind, FL_BISECT_NO_REGRESSION);
}

static void test_skips(void **state)
{
	int skip[30] = {0};
	struct fl_bisect_opts o;
	struct fl_bisect_result res;

	(void)state;
	fl_bisect_opts_init(&o);
	o.min_change = 0.01;
	/* the culprit's two predecessors are skipped: any of 18, 19, 20 can be it */
	skip[18] = skip[19] = 1;
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct sim s = {.step = 4, .rng = seed, .culprit = 20, .skip = skip};

		run(&s, 30, &o, &res);
		assert_int_equal(res.kind, FL_BISECT_RANGE);
		assert_int_equal(res.first, 18);
		assert_int_equal(res.last, 20);
	}
	/* skipped commits away from the culprit do not matter */
	memset(skip, 0, sizeof(skip));
	skip[3] = skip[4] = skip[25] = 1;
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct sim s = {.step = 4, .rng = seed, .culprit = 11, .skip = skip};

		run(&s, 30, &o, &res);
		assert_int_equal(res.kind, FL_BISECT_CULPRIT);
		assert_int_equal(res.first, 11);
	}
}

static void test_budget_and_null(void **state)
{
	struct fl_bisect_opts o;
	struct fl_bisect_result res;
	struct sim s = {.step = 3, .rng = 9, .culprit = 30};

	(void)state;
	fl_bisect_opts_init(&o);
	o.min_change = 0.01;
	o.max_runs = 20; /* 16 go to the end points: not enough to find it */
	run(&s, 64, &o, &res);
	assert_int_equal(res.kind, FL_BISECT_INCONCLUSIVE);
	assert_true(res.runs <= 20);
	/* a flat history with a 5% minimum change: no regression, few runs */
	for (uint64_t seed = 1; seed <= 10; seed++) {
		s = (struct sim){.step = 0, .rng = seed, .culprit = 30};
		o.max_runs = 200;
		o.min_change = 0.05;
		run(&s, 64, &o, &res);
		assert_int_equal(res.kind, FL_BISECT_NO_REGRESSION);
		assert_true(res.runs <= 16);
	}
}

static void test_errors(void **state)
{
	struct fl_bisect_opts o;
	struct fl_bisect_result res;
	struct sim s = {.step = 3, .rng = 9, .culprit = 3, .fail = 1};
	int skip[8] = {1};
	fl_bisect *b;

	(void)state;
	fl_bisect_opts_init(&o);
	assert_int_equal(fl_bisect_new(&b, 1, &o), FL_EINVAL);
	assert_int_equal(fl_bisect_new(&b, 8, &o), 0);
	assert_int_equal(fl_bisect_run(b, sim_sample, NULL, &s, &res), FL_EIO);
	fl_bisect_free(b);
	s = (struct sim){.step = 3, .rng = 9, .culprit = 3, .skip = skip};
	assert_int_equal(fl_bisect_new(&b, 8, &o), 0);
	assert_int_equal(fl_bisect_run(b, sim_sample, NULL, &s, &res), FL_EINVAL);
	assert_string_equal(fl_error_last(), "the good commit cannot be tested");
	fl_bisect_free(b);
}

/*
 * Five samples per run that share the run's offset (sd 1) and vary little
 * within it (sd 0.2) are worth about one sample: an engine that counted them
 * as five would be confident five times too fast. On null histories it must
 * name no culprit, on 2-sigma steps the right one, on seeded histories.
 */
static void test_correlated_runs(void **state)
{
	struct fl_bisect_opts o;
	struct fl_bisect_result res;
	int named = 0;

	(void)state;
	fl_bisect_opts_init(&o);
	o.min_change = 0.005;
	for (uint64_t seed = 1; seed <= 40; seed++) {
		struct sim s = {.step = 0,
				.rng = seed,
				.culprit = 48,
				.per_run = 5,
				.between = 1,
				.within = 0.2};

		run(&s, 48, &o, &res);
		named += res.kind == FL_BISECT_CULPRIT || res.kind == FL_BISECT_RANGE;
	}
	assert_int_equal(named, 0);
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct sim s = {
		    .step = 2, .rng = seed * 31, .per_run = 5, .between = 1, .within = 0.2};

		s.culprit = 1 + (seed * 7919) % 47;
		run(&s, 48, &o, &res);
		assert_int_equal(res.kind, FL_BISECT_CULPRIT);
		assert_int_equal(res.first, s.culprit);
	}
}

/* Runs of different lengths: every third run prints 8 samples, the others
 * one. The model weighs a long run's mean by its smaller variance. */
static int mixed_sample(void *ctx, size_t idx, double **v, size_t *n)
{
	struct sim *s = ctx;
	size_t k = s->calls % 3 == 0 ? 8 : 1;
	double base = 100 + 0.5 * fl_rand_normal(&s->rng) - (idx >= s->culprit ? s->step : 0);

	s->calls++;
	*v = fl_xmalloc(k * sizeof(double));
	for (size_t i = 0; i < k; i++)
		(*v)[i] = base + 0.9 * fl_rand_normal(&s->rng);
	*n = k;
	return 0;
}

/* Ten seeded histories of n commits from proto (culprit and rng set per
 * seed): every one must end with the right culprit. */
static void expect_culprits(fl_bisect_sample_fn fn, size_t n, double min_change, struct sim proto)
{
	struct fl_bisect_opts o;
	struct fl_bisect_result res;

	fl_bisect_opts_init(&o);
	o.min_change = min_change;
	for (uint64_t seed = 1; seed <= 10; seed++) {
		struct sim s = proto;

		s.rng = seed * 101;
		s.culprit = 1 + (seed * 37) % (n - 1);
		run_with(&s, n, &o, fn, &res);
		assert_int_equal(res.kind, FL_BISECT_CULPRIT);
		assert_int_equal(res.first, s.culprit);
		assert_true(res.change_pct > 0.6 * s.step && res.change_pct < 1.4 * s.step);
	}
}

static void test_mixed_run_lengths(void **state)
{
	(void)state;
	expect_culprits(mixed_sample, 40, 0.005, (struct sim){.step = 2});
}

/*
 * A null history that gets past the confirmation (alpha 0.4: the ends differ
 * by chance four times in ten) can only end with a culprit when a
 * verification passes a commit that equals its parent: at most verify_alpha
 * per verification, at most max_verify_fails of them. Over 300 seeds that
 * bounds the culprits named by 0.4 * 3 * 0.05 = 6%, 18 of 300, whatever
 * the posterior believed.
 */
static void test_null_false_culprits(void **state)
{
	struct fl_bisect_opts o;
	struct fl_bisect_result res;
	int named = 0, searched = 0;

	(void)state;
	fl_bisect_opts_init(&o);
	o.min_change = 0.0001;
	o.alpha = 0.4;
	for (uint64_t seed = 1; seed <= 300; seed++) {
		struct sim s = {.step = 0, .rng = seed * 7, .culprit = 16};

		run(&s, 16, &o, &res);
		named += res.kind == FL_BISECT_CULPRIT || res.kind == FL_BISECT_RANGE;
		searched += res.runs > 2 * o.max_end_samples || res.kind != FL_BISECT_NO_REGRESSION;
	}
	assert_true(searched > 30); /* the confirmation did let many through */
	assert_true(named <= 18);
}

/*
 * The good end's first eight runs happen to read high (101.85 where the
 * good commits read 100): commits 1 and 2 (100) then sit half way between
 * the ends (bad reads 98.15), and more runs of them cannot tell whether
 * they are good. More runs of the good end can, and the engine must find
 * that out rather than run commit 2 until the budget is gone. Noise sd 0.3.
 */
static int biased_end_sample(void *ctx, size_t idx, double **v, size_t *n)
{
	struct sim *s = ctx;
	double centre = idx >= s->culprit ? 98.15 : idx == 0 && s->calls < 16 ? 101.85 : 100;

	s->calls++;
	*v = fl_xmalloc(sizeof(double));
	(*v)[0] = centre + 0.3 * fl_rand_normal(&s->rng);
	*n = 1;
	return 0;
}

/* nrec counts the runs of an end point while searching */
static void count_end_runs(void *ctx, const struct fl_bisect_step *st)
{
	struct sim *s = ctx;

	if (st->phase == FL_PHASE_SEARCH && (st->idx == 0 || st->idx == 3))
		s->nrec++;
}

static void test_informative_end_runs(void **state)
{
	struct fl_bisect_opts o;
	struct fl_bisect_result res;
	struct sim s = {.rng = 3, .culprit = 3};
	fl_bisect *b;

	(void)state;
	fl_bisect_opts_init(&o);
	o.min_change = 0.005;
	assert_int_equal(fl_bisect_new(&b, 4, &o), 0);
	assert_int_equal(fl_bisect_run(b, biased_end_sample, count_end_runs, &s, &res), 0);
	fl_bisect_free(b);
	assert_int_equal(res.kind, FL_BISECT_CULPRIT);
	assert_int_equal(res.first, 3);
	assert_true(s.nrec > 0); /* an end point was run again while searching */
	assert_true(res.runs < 100);
}

/* Benchmarks that print the same number every time (counted events), or
 * whole numbers with noise: many ties, a MAD of 0, and still the culprit. */
static int quantised_sample(void *ctx, size_t idx, double **v, size_t *n)
{
	struct sim *s = ctx;
	double x = 100 - (idx >= s->culprit ? s->step : 0);

	s->calls++;
	*v = fl_xmalloc(sizeof(double));
	(*v)[0] = s->within > 0 ? round(x + s->within * fl_rand_normal(&s->rng)) : x;
	*n = 1;
	return 0;
}

static void test_quantised(void **state)
{
	(void)state;
	/* exact values, then whole numbers with noise of sd 1.5; a step of 5 */
	expect_culprits(quantised_sample, 30, 0.01, (struct sim){.step = 5});
	expect_culprits(quantised_sample, 30, 0.01, (struct sim){.step = 5, .within = 1.5});
}

/*
 * A count that goes from 0 to 5 (errors, lower better): a good side whose
 * median is 0 makes any worsening an infinite fraction, which is a
 * regression at any min_change (it was "no-regression", change +0.0%).
 */
static int count_sample(void *ctx, size_t idx, double **v, size_t *n)
{
	struct sim *s = ctx;

	s->calls++;
	*v = fl_xmalloc(sizeof(double));
	(*v)[0] = idx >= s->culprit ? 5 + (double)(fl_rand_next(&s->rng) % 3) : 0;
	*n = 1;
	return 0;
}

static void test_zero_baseline(void **state)
{
	struct fl_bisect_opts o;
	struct fl_bisect_result res;

	(void)state;
	fl_bisect_opts_init(&o);
	o.dir = FL_LOWER_BETTER;
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct sim s = {.rng = seed, .culprit = 3 + seed};

		run_with(&s, 20, &o, count_sample, &res);
		assert_int_equal(res.kind, FL_BISECT_CULPRIT);
		assert_int_equal(res.first, s.culprit);
		assert_true(isinf(res.change_pct) && res.change_pct > 0);
		assert_true(res.good_value == 0 && res.bad_value >= 5);
	}
	/* read as higher-better, the same counts improve: no regression */
	o.dir = FL_HIGHER_BETTER;
	{
		struct sim s = {.rng = 9, .culprit = 7};

		run_with(&s, 20, &o, count_sample, &res);
		assert_int_equal(res.kind, FL_BISECT_NO_REGRESSION);
	}
}

/* ---- the pass/fail model ---- */

/* A test that fails from the culprit on: after it a run passes with
 * probability `step` (false pass), before it fails with `within` (false
 * fail); both 0: deterministic. */
static int pf_sample(void *ctx, size_t idx, double **v, size_t *n)
{
	struct sim *s = ctx;
	double u = fl_rand_uniform(&s->rng);

	s->calls++;
	if (s->skip && s->skip[idx])
		return FL_BISECT_SKIP;
	*v = fl_xmalloc(sizeof(double));
	(*v)[0] = idx >= s->culprit ? u >= s->step : u < s->within;
	*n = 1;
	return 0;
}

static void pf_opts(struct fl_bisect_opts *o)
{
	fl_bisect_opts_init(o);
	o->model = FL_MODEL_PASS_FAIL;
}

/*
 * A deterministic test needs no more runs than git bisect: at most
 * ceil(log2(n - 1)) for n - 1 candidate commits, every culprit position of
 * several history lengths, and the answer is exact.
 */
static void test_passfail_deterministic(void **state)
{
	static const size_t sizes[] = {2, 3, 4, 5, 8, 9, 17, 33, 64, 100};
	struct fl_bisect_opts o;
	struct fl_bisect_result res;

	(void)state;
	pf_opts(&o);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(*sizes); k++) {
		size_t n = sizes[k], bound = 0;

		while (((size_t)1 << bound) < n - 1)
			bound++;
		for (size_t c = 1; c < n; c++) {
			struct sim s = {.culprit = c, .rng = c};

			run_with(&s, n, &o, pf_sample, &res);
			assert_int_equal(res.kind, FL_BISECT_CULPRIT);
			assert_int_equal(res.first, c);
			assert_true(res.runs <= bound);
			assert_true(res.confidence >= 0.95);
		}
	}
}

/* A flaky test, 20% false passes after the culprit and 5% false fails
 * before it, with the rates stated: the exact culprit in at least 90% of
 * 40 seeded histories, at the confidence asked for. */
static void test_passfail_flaky(void **state)
{
	struct fl_bisect_opts o;
	struct fl_bisect_result res;
	int exact = 0;

	(void)state;
	pf_opts(&o);
	o.false_pass = 0.2;
	o.false_fail = 0.05;
	for (uint64_t seed = 1; seed <= 40; seed++) {
		struct sim s = {.step = 0.2, .within = 0.05, .rng = seed * 77};

		s.culprit = 1 + (seed * 7919) % 63;
		run_with(&s, 64, &o, pf_sample, &res);
		assert_true(res.kind == FL_BISECT_CULPRIT || res.kind == FL_BISECT_INCONCLUSIVE);
		exact += res.kind == FL_BISECT_CULPRIT && res.first == s.culprit;
		if (res.kind == FL_BISECT_CULPRIT)
			assert_true(res.confidence >= 0.95);
	}
	assert_true(exact >= 36);
}

/*
 * A branch's tip that passes, with the bad end not known: no regression;
 * one that fails: its culprit. And one contradiction in an otherwise
 * consistent test (the good end failed once before): the estimated false
 * fail rate rises far above the reliable prior's, and the answer is still
 * exact.
 */
static void test_passfail_unknown_bad_end(void **state)
{
	struct fl_bisect_opts o;
	struct fl_bisect_result res;
	struct sim s = {.culprit = 40, .rng = 3};

	(void)state;
	pf_opts(&o);
	o.bad_known = 0;
	run_with(&s, 30, &o, pf_sample, &res);
	assert_int_equal(res.kind, FL_BISECT_NO_REGRESSION);
	/* and one whose tip fails: its culprit */
	s = (struct sim){.culprit = 12, .rng = 3};
	run_with(&s, 30, &o, pf_sample, &res);
	assert_int_equal(res.kind, FL_BISECT_CULPRIT);
	assert_int_equal(res.first, 12);
	pf_opts(&o);
	s = (struct sim){.culprit = 9, .rng = 3};
	{
		fl_bisect *b;

		assert_int_equal(fl_bisect_new(&b, 30, &o), 0);
		fl_bisect_prior(b, 0, (double[]){1}, 1, 0);
		assert_int_equal(fl_bisect_run(b, pf_sample, NULL, &s, &res), 0);
		fl_bisect_free(b);
	}
	assert_int_equal(res.kind, FL_BISECT_CULPRIT);
	assert_int_equal(res.first, 9);
	assert_true(res.false_fail > 0.01);
}

/* Untestable commits next to the culprit: a range, as in the values model. */
static void test_passfail_skips(void **state)
{
	int skip[30] = {0};
	struct fl_bisect_opts o;
	struct fl_bisect_result res;
	struct sim s = {.culprit = 20, .rng = 1, .skip = skip};

	(void)state;
	skip[18] = skip[19] = 1;
	pf_opts(&o);
	run_with(&s, 30, &o, pf_sample, &res);
	assert_int_equal(res.kind, FL_BISECT_RANGE);
	assert_int_equal(res.first, 18);
	assert_int_equal(res.last, 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_finds_culprit),
	    cmocka_unit_test(test_lower_better),
	    cmocka_unit_test(test_skips),
	    cmocka_unit_test(test_budget_and_null),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_correlated_runs),
	    cmocka_unit_test(test_mixed_run_lengths),
	    cmocka_unit_test(test_null_false_culprits),
	    cmocka_unit_test(test_informative_end_runs),
	    cmocka_unit_test(test_quantised),
	    cmocka_unit_test(test_zero_baseline),
	    cmocka_unit_test(test_passfail_deterministic),
	    cmocka_unit_test(test_passfail_flaky),
	    cmocka_unit_test(test_passfail_unknown_bad_end),
	    cmocka_unit_test(test_passfail_skips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
