/*
 * test_bisect.c - properties of the bisection engine on small seeded
 * histories: it finds the culprit, reports a range around skipped commits,
 * stops at the budget, says "no regression" on flat histories, follows the
 * direction, and resumes from recorded steps without re-running them.
 * Histories are Gaussian (splitmix64 + Box-Muller) around 100, sigma 1;
 * the culprit is placed by the test, so the expected answer is known.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "buf.h"
#include "error.h"

struct sim {
	size_t culprit;
	double step; /* in sigmas; bad commits are worse by this much */
	int lower_better;
	const int *skip; /* skip[i]: commit i cannot be tested, may be NULL */
	uint64_t rng;
	size_t calls;
	int fail;
	/* a record of the steps, for the replay test */
	size_t nrec, rec_idx[512];
	double rec_v[512];
	int rec_skip[512];
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
	*v = fl_xmalloc(sizeof(double));
	(*v)[0] = 100 + fl_rand_normal(&s->rng) + (s->lower_better ? shift : -shift);
	*n = 1;
	return 0;
}

static void sim_record(void *ctx, const struct fl_bisect_step *st)
{
	struct sim *s = ctx;

	if (s->nrec < 512) {
		s->rec_idx[s->nrec] = st->idx;
		s->rec_skip[s->nrec] = st->skipped;
		s->rec_v[s->nrec] = st->n ? st->v[0] : 0;
		s->nrec++;
	}
}

static void run(struct sim *s, size_t n, const struct fl_bisect_opts *o,
		struct fl_bisect_result *res)
{
	fl_bisect *b;

	assert_int_equal(fl_bisect_new(&b, n, o), 0);
	assert_int_equal(fl_bisect_run(b, sim_sample, sim_record, s, res), 0);
	assert_int_equal(res->runs, s->calls);
	fl_bisect_free(b);
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

static void test_resume(void **state)
{
	struct fl_bisect_opts o;
	struct fl_bisect_result full, resumed;
	struct sim s = {.step = 2, .rng = 77, .culprit = 41}, s2;
	size_t keep;
	fl_bisect *b;

	(void)state;
	fl_bisect_opts_init(&o);
	o.min_change = 0.01;
	run(&s, 64, &o, &full);
	assert_int_equal(full.kind, FL_BISECT_CULPRIT);
	assert_true(s.nrec == full.runs && s.nrec > 10);
	/* "crash" after two thirds of the steps; the rest must run for real and
	 * the answer is the same because the remaining samples are the same */
	keep = s.nrec * 2 / 3;
	s2 = (struct sim){.step = 2, .rng = 77, .culprit = 41};
	for (size_t i = 0; i < keep; i++) /* advance the noise stream past the kept steps */
		fl_rand_normal(&s2.rng);
	assert_int_equal(fl_bisect_new(&b, 64, &o), 0);
	for (size_t i = 0; i < keep; i++)
		fl_bisect_replay(b, s.rec_idx[i], &s.rec_v[i], 1, s.rec_skip[i]);
	assert_int_equal(fl_bisect_run(b, sim_sample, NULL, &s2, &resumed), 0);
	fl_bisect_free(b);
	assert_int_equal(s2.calls, full.runs - keep);
	assert_int_equal(resumed.kind, full.kind);
	assert_int_equal(resumed.first, full.first);
	assert_int_equal(resumed.runs, full.runs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_finds_culprit), cmocka_unit_test(test_lower_better),
	    cmocka_unit_test(test_skips),	  cmocka_unit_test(test_budget_and_null),
	    cmocka_unit_test(test_errors),	  cmocka_unit_test(test_resume),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
