/*
 * test_stats.c - every statistic against values computed independently.
 * Expected values came from python3 (statistics module, itertools) with the
 * textbook formulas, in /tmp/ref.py at the time of writing; the script is
 * reproduced in comments next to each value so it can be re-run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "analysis/stats.h"

#define EPS 1e-9

static void test_summaries(void **state)
{
	/* python3: s=[3,1,4,1,5,9,2,6,5,3,5]; statistics.mean/stdev/median,
	 * median(|v - median|), mean(sorted(s)[2:-2]) */
	static const double s[] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5};

	(void)state;
	assert_float_equal(fl_stats_mean(s, 11), 4.0, EPS);
	assert_float_equal(fl_stats_stddev(s, 11), 2.3664319132398464, EPS);
	assert_float_equal(fl_stats_median(s, 11), 4.0, EPS);
	assert_float_equal(fl_stats_median(s, 10), 3.5, EPS); /* 1,1,2,3,3,4,5,5,6,9 */
	assert_float_equal(fl_stats_mad(s, 11), 1.0, EPS);
	assert_float_equal(fl_stats_trimmed_mean(s, 11, 0.2), 3.857142857142857, EPS);
	assert_float_equal(fl_stats_stddev(s, 1), 0.0, EPS);
	assert_true(isnan(fl_stats_median(s, 0)));
}

static void test_normal(void **state)
{
	(void)state;
	/* python3: statistics.NormalDist().inv_cdf(p) */
	assert_float_equal(fl_stats_norm_quantile(0.975), 1.9599639845400536, 1e-12);
	assert_float_equal(fl_stats_norm_quantile(0.001), -3.090232306167813, 1e-12);
	assert_float_equal(fl_stats_norm_quantile(0.3), -0.5244005127080407, 1e-12);
	assert_float_equal(fl_stats_norm_cdf(1.9599639845400536), 0.975, 1e-12);
}

static void test_mwu_exact(void **state)
{
	/* python3: enumerate all C(11,5) = 462 rank sets; U = sum(ranks0) - 10 */
	static const double x[] = {10.1, 10.4, 9.8, 10.0, 10.3};
	static const double y[] = {11.2, 10.9, 11.5, 10.6, 11.0, 11.3};
	static const double x2[] = {5.0, 6.1, 7.2, 8.0, 6.6};
	static const double y2[] = {6.0, 7.5, 8.1, 8.8, 7.0, 9.1};
	struct fl_mwu t;

	(void)state;
	assert_int_equal(fl_stats_mwu(x, 5, y, 6, &t), 0);
	assert_true(t.exact);
	assert_float_equal(t.u, 0, EPS);
	assert_float_equal(t.p, 2.0 / 462, EPS); /* 0.004329004329 */
	assert_int_equal(fl_stats_mwu(x2, 5, y2, 6, &t), 0);
	assert_float_equal(t.u, 7, EPS);
	assert_float_equal(t.p, 0.1774891774891775, EPS);
	/* symmetric: swapping the samples gives U' = mn - U and the same p */
	assert_int_equal(fl_stats_mwu(y2, 6, x2, 5, &t), 0);
	assert_float_equal(t.u, 23, EPS);
	assert_float_equal(t.p, 0.1774891774891775, EPS);
	assert_int_equal(fl_stats_mwu(x, 0, y, 6, &t), -2);
}

static void test_mwu_ties(void **state)
{
	/* python3: T = sum(t^3 - t over tie groups) = 78; var = mn/12 ((N+1) - T/(N(N-1)))
	 * = 105.22058823529412; z = (|7.5 - 36| - 0.5) / sqrt(var); p = erfc(z / sqrt 2) */
	static const double a[] = {1, 2, 2, 3, 3, 3, 4, 5};
	static const double b[] = {3, 4, 4, 5, 5, 6, 6, 7, 7};
	static const double c[] = {2, 2, 2};
	struct fl_mwu t;

	(void)state;
	assert_int_equal(fl_stats_mwu(a, 8, b, 9, &t), 0);
	assert_false(t.exact);
	assert_float_equal(t.u, 7.5, EPS);
	assert_float_equal(t.p, 0.006340074742489082, 1e-12);
	/* all equal: no evidence at all */
	assert_int_equal(fl_stats_mwu(c, 3, c, 3, &t), 0);
	assert_float_equal(t.p, 1, EPS);
}

static void test_hodges_lehmann(void **state)
{
	/* python3: d = sorted(y - x for all pairs); median(d) = 1.05;
	 * C = floor(30/2 - z * sqrt(5*6*12/12)), z = inv_cdf(0.975): C = 4, d[4], d[25];
	 * z = inv_cdf(0.95): C = 5, d[5] = -0.2, d[24] = 2.5 */
	static const double x2[] = {5.0, 6.1, 7.2, 8.0, 6.6};
	static const double y2[] = {6.0, 7.5, 8.1, 8.8, 7.0, 9.1};
	struct fl_shift s;

	(void)state;
	assert_int_equal(fl_stats_hodges_lehmann(x2, 5, y2, 6, 0.95, &s), 0);
	assert_float_equal(s.shift, 1.05, EPS);
	assert_float_equal(s.lo, -0.5, EPS);
	assert_float_equal(s.hi, 2.7, EPS);
	assert_int_equal(fl_stats_hodges_lehmann(x2, 5, y2, 6, 0.90, &s), 0);
	assert_float_equal(s.lo, -0.2, EPS);
	assert_float_equal(s.hi, 2.5, EPS);
}

static void test_compare(void **state)
{
	static const double x[] = {10.1, 10.4, 9.8, 10.0, 10.3};
	static const double y[] = {11.2, 10.9, 11.5, 10.6, 11.0, 11.3};
	static const double x2[] = {5.0, 6.1, 7.2, 8.0, 6.6};
	static const double y2[] = {6.0, 7.5, 8.1, 8.8, 7.0, 9.1};
	double a[20], b[20];
	struct fl_compare c;

	(void)state;
	/* p = 0.0043 < 0.05 and the interval is far outside +-2% of 10.1 */
	assert_int_equal(fl_stats_compare(x, 5, y, 6, 0.05, 0.02, FL_HIGHER_BETTER, &c), 0);
	assert_int_equal(c.verdict, FL_DIFFERENT);
	assert_true(c.change_pct < 0); /* higher throughput is an improvement */
	assert_int_equal(fl_stats_compare(x, 5, y, 6, 0.05, 0.02, FL_LOWER_BETTER, &c), 0);
	assert_true(c.change_pct > 0);
	/* p = 0.177: neither different nor provably the same */
	assert_int_equal(fl_stats_compare(x2, 5, y2, 6, 0.05, 0.01, FL_HIGHER_BETTER, &c), 0);
	assert_int_equal(c.verdict, FL_UNKNOWN);
	/* a 0.1% shift with tiny spread is inside a 5% band: SAME */
	for (int i = 0; i < 20; i++) {
		a[i] = 100 + 0.01 * ((i * 7) % 20);
		b[i] = a[i] + 0.1;
	}
	assert_int_equal(fl_stats_compare(a, 20, b, 20, 0.05, 0.05, FL_HIGHER_BETTER, &c), 0);
	assert_int_equal(c.verdict, FL_SAME);
	assert_int_equal(fl_stats_compare(a, 20, b, 20, 0.7, 0.05, FL_HIGHER_BETTER, &c), -2);
}

static void test_change_points(void **state)
{
	/* 24 positions of 3 values each, N(100, 1) from splitmix64 seed 7, and
	 * +6 (a 6-sigma step) from position 15 on: the step was put there by hand. */
	double v[24][3];
	struct fl_series_point s[24];
	struct fl_change_point cp[4];
	uint64_t rng = 7;
	size_t n, i;

	(void)state;
	for (i = 0; i < 24; i++) {
		for (int j = 0; j < 3; j++)
			v[i][j] = 100 + fl_rand_normal(&rng) + (i >= 15 ? 6 : 0);
		s[i].v = v[i];
		s[i].n = 3;
	}
	assert_int_equal(fl_stats_change_points(s, 24, 0.01, 199, 42, FL_LOWER_BETTER, cp, 4, &n),
			 0);
	assert_int_equal(n, 1);
	assert_int_equal(cp[0].index, 15);
	assert_true(cp[0].p <= 0.01);
	assert_float_equal(cp[0].change_pct, 6.0, 1.5);
	/* the same input and seed give the same p */
	{
		struct fl_change_point again[4];
		size_t n2;

		fl_stats_change_points(s, 24, 0.01, 199, 42, FL_LOWER_BETTER, again, 4, &n2);
		assert_float_equal(again[0].p, cp[0].p, 0);
	}
	/* remove the step: nothing is found */
	for (i = 15; i < 24; i++)
		for (int j = 0; j < 3; j++)
			v[i][j] -= 6;
	assert_int_equal(fl_stats_change_points(s, 24, 0.01, 199, 42, FL_LOWER_BETTER, cp, 4, &n),
			 0);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_summaries),	   cmocka_unit_test(test_normal),
	    cmocka_unit_test(test_mwu_exact),	   cmocka_unit_test(test_mwu_ties),
	    cmocka_unit_test(test_hodges_lehmann), cmocka_unit_test(test_compare),
	    cmocka_unit_test(test_change_points),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
