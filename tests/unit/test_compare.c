/* test_compare.c - the comparison library on synthetic runs: which rows
 * come out, their signs and verdicts, the benchmark's direction, vmstat and
 * profile rows, notes for runs without a profile, and the LKP text shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "compare.h"
#include "error.h"

#define NRUNS 3
#define NSEC  5

/* One side: NRUNS runs of page_fault2 processes at tasks 1 and 2, NSEC
 * per-second samples each, the given mean at tasks=2 (tasks=1 always
 * 100000), with +-1% of deterministic spread. */
struct side {
	struct fl_sample s[NRUNS][2 * 2 * NSEC];
	struct fl_evidence_point pt[NRUNS];
	struct fl_vmstat_rate vm[NRUNS][4];
	struct fl_profile_fn fn[NRUNS][3];
	struct fl_cmp_run runs[NRUNS];
	struct fl_cmp_set set;
};

static double spread = 0.01;

static void make_side(struct side *sd, const char *label, double mean2, double pgfault,
		      double spin_share, int with_profile)
{
	uint64_t seed = (uint64_t)mean2;

	memset(sd, 0, sizeof(*sd));
	for (int r = 0; r < NRUNS; r++) {
		size_t k = 0;

		for (unsigned t = 1; t <= 2; t++)
			for (int i = 0; i < NSEC; i++) {
				double m = t == 1 ? 100000 : mean2;
				double v = m * (1 + spread * (2 * fl_rand_uniform(&seed) - 1));

				sd->s[r][k++] = (struct fl_sample){"per_process_ops", "processes",
								   t, (unsigned)i, v};
				sd->s[r][k++] =
				    (struct fl_sample){"ops", "processes", t, (unsigned)i, v * t};
			}
		sd->vm[r][0] = (struct fl_vmstat_rate){"pgfault", 0, pgfault * (1 + 0.001 * r)};
		sd->vm[r][1] = (struct fl_vmstat_rate){"nr_free_pages", 0, -5000};
		sd->vm[r][2] = (struct fl_vmstat_rate){"pgactivate", 0, 30};
		sd->vm[r][3] = (struct fl_vmstat_rate){"numa_hit", 0, pgfault};
		sd->fn[r][0] = (struct fl_profile_fn){"_raw_spin_lock", 0, spin_share};
		sd->fn[r][1] = (struct fl_profile_fn){"clear_page_erms", 0, 0.5 - spin_share / 2};
		sd->fn[r][2] = (struct fl_profile_fn){"do_page_fault", 0, 0.05};
		sd->pt[r] =
		    (struct fl_evidence_point){.source = FL_EV_RESULT,
					       .test = "page_fault2",
					       .mode = "processes",
					       .tasks = 2,
					       .measured_s = 5,
					       .vm = sd->vm[r],
					       .nvm = 4,
					       .profile = with_profile ? "recorded" : "none",
					       .fn = with_profile ? sd->fn[r] : NULL,
					       .nfn = with_profile ? 3 : 0};
		sd->runs[r] = (struct fl_cmp_run){sd->s[r], k, &sd->pt[r], 1};
	}
	sd->set = (struct fl_cmp_set){label, sd->runs, NRUNS};
}

static const struct fl_cmp_row *find_row(const struct fl_comparison *c, enum fl_cmp_kind kind,
					 const char *what, unsigned tasks)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].kind == kind && c->rows[i].tasks == tasks &&
		    !strcmp(c->rows[i].what, what))
			return &c->rows[i];
	return NULL;
}

static struct side base_side, new_side;

static void test_regression_rows(void **state)
{
	struct fl_cmp_opts o;
	struct fl_comparison *c;
	const struct fl_cmp_row *r;

	(void)state;
	/* The 3.17 shape: -25% at 2 tasks, the spinlock from 10% to 68%. */
	make_side(&base_side, "v3.16", 100000, 200000, 0.10, 1);
	make_side(&new_side, "v3.17-rc2", 75000, 150000, 0.68, 1);
	fl_cmp_opts_init(&o);
	assert_int_equal(fl_compare("page_fault2", &base_side.set, &new_side.set, &o, &c), 0);
	assert_int_equal(c->base_runs, 3);
	/* Metrics first: per_process_ops before ops, tasks ascending. */
	assert_int_equal(c->rows[0].kind, FL_CMP_METRIC);
	assert_string_equal(c->rows[0].name, "page_fault2.processes.per_process_ops");
	assert_int_equal(c->rows[0].tasks, 1);
	assert_int_equal(c->rows[1].tasks, 2);
	assert_string_equal(c->rows[2].what, "ops");

	r = find_row(c, FL_CMP_METRIC, "per_process_ops", 1);
	assert_int_equal(r->verdict, FL_SAME);
	assert_false(r->regression);
	assert_true(r->change > -2 && r->change < 2);
	assert_int_equal(r->base.n, NRUNS * NSEC);

	r = find_row(c, FL_CMP_METRIC, "per_process_ops", 2);
	assert_int_equal(r->verdict, FL_DIFFERENT);
	assert_true(r->regression);
	assert_true(r->change > -26 && r->change < -24);
	assert_true(r->p < 0.001);
	assert_true(r->base.stddev_pct > 0.1 && r->base.stddev_pct < 1);
	assert_true(r->new_.value > 74000 && r->new_.value < 76000);

	/* vmstat: per second, key counters kept, gauges left out, an unmoved
	 * minor counter left out. */
	r = find_row(c, FL_CMP_VMSTAT, "pgfault", 2);
	assert_non_null(r);
	assert_string_equal(r->name, "page_fault2.processes.vmstat.pgfault/s");
	assert_true(r->change > -25.1 && r->change < -24.9);
	assert_int_equal(r->base.n, NRUNS);
	assert_non_null(find_row(c, FL_CMP_VMSTAT, "numa_hit", 2));
	assert_null(find_row(c, FL_CMP_VMSTAT, "nr_free_pages", 2));
	assert_null(find_row(c, FL_CMP_VMSTAT, "pgactivate", 2));

	/* Profile: biggest move first, in percentage points. */
	r = find_row(c, FL_CMP_PROFILE, "_raw_spin_lock", 2);
	assert_non_null(r);
	assert_true(r->change > 57.99 && r->change < 58.01);
	assert_true(r->base.value > 9.99 && r->base.value < 10.01);
	assert_ptr_equal(r, find_row(c, FL_CMP_PROFILE, "clear_page_erms", 2) - 1);
	assert_true(find_row(c, FL_CMP_PROFILE, "clear_page_erms", 2)->change < -28);
	/* do_page_fault did not move: not a row. */
	assert_null(find_row(c, FL_CMP_PROFILE, "do_page_fault", 2));
	assert_int_equal(c->rows[c->nrows - 1].kind, FL_CMP_PROFILE);
	assert_int_equal(c->nnotes, 0);
	fl_comparison_free(c);

	/* Lower-better: the same drop is an improvement, not a regression. */
	o.dir = FL_LOWER_BETTER;
	assert_int_equal(fl_compare("page_fault2", &base_side.set, &new_side.set, &o, &c), 0);
	r = find_row(c, FL_CMP_METRIC, "per_process_ops", 2);
	assert_int_equal(r->verdict, FL_DIFFERENT);
	assert_false(r->regression);
	fl_comparison_free(c);
}

static void test_no_profile(void **state)
{
	struct fl_cmp_opts o;
	struct fl_comparison *c;

	(void)state;
	make_side(&base_side, "base", 100000, 200000, 0.10, 1);
	make_side(&new_side, "new", 100000, 200000, 0.10, 0);
	fl_cmp_opts_init(&o);
	assert_int_equal(fl_compare("page_fault2", &base_side.set, &new_side.set, &o, &c), 0);
	assert_null(find_row(c, FL_CMP_PROFILE, "_raw_spin_lock", 2));
	assert_int_equal(c->nnotes, 1);
	assert_non_null(strstr(c->notes[0], "no profile in new"));
	assert_non_null(strstr(c->notes[0], "CONFIG_PROFILING"));
	/* Everything else is still compared. */
	assert_int_equal(find_row(c, FL_CMP_METRIC, "per_process_ops", 2)->verdict, FL_SAME);
	assert_non_null(find_row(c, FL_CMP_VMSTAT, "pgfault", 2));
	fl_comparison_free(c);
}

static void test_missing_side(void **state)
{
	struct fl_cmp_opts o;
	struct fl_comparison *c;
	struct fl_cmp_set none = {"v6.2", NULL, 0};
	const struct fl_cmp_row *r;

	(void)state;
	make_side(&base_side, "base", 100000, 200000, 0.10, 1);
	make_side(&new_side, "new", 90000, 200000, 0.10, 1);
	fl_cmp_opts_init(&o);
	assert_int_equal(fl_compare("page_fault2", &base_side.set, &none, &o, &c), FL_EINVAL);
	assert_non_null(strstr(fl_error_last(), "no runs of v6.2"));
	/* A task count only one side ran: a row without a verdict. */
	new_side.runs[0].nsamples = 10; /* run 0 keeps only tasks=1 */
	new_side.set.n = 1;
	assert_int_equal(fl_compare("page_fault2", &base_side.set, &new_side.set, &o, &c), 0);
	r = find_row(c, FL_CMP_METRIC, "per_process_ops", 2);
	assert_int_equal(r->new_.n, 0);
	assert_int_equal(r->verdict, FL_UNKNOWN);
	assert_false(r->regression);
	fl_comparison_free(c);
}

static void test_text(void **state)
{
	struct fl_cmp_opts o;
	struct fl_comparison *c;
	fl_buf out = FL_BUF_INIT;
	const char *t;

	(void)state;
	make_side(&base_side, "v3.16", 100000, 200000, 0.10, 1);
	make_side(&new_side, "v3.17-rc2", 75000, 150000, 0.68, 1);
	fl_cmp_opts_init(&o);
	assert_int_equal(fl_compare("page_fault2", &base_side.set, &new_side.set, &o, &c), 0);
	fl_comparison_text(c, &out);
	t = fl_buf_str(&out);
	print_message("%s", t);
	assert_non_null(strstr(t, "v3.16            v3.17-rc2\n"
				  "---------------- ---------------------------\n"
				  "         %stddev     %change         %stddev\n"));
	/* Values, their spread, the change and the verdict in LKP's columns. */
	assert_non_null(
	    strstr(t, "     99963           -25.1%      74918        "
		      "page_fault2.processes.per_process_ops tasks=2  DIFFERENT p=1.3e-08  "
		      "REGRESSION\n"));
	assert_non_null(strstr(t, "     10.00            +58.0      68.00        "
				  "page_fault2.processes.profile._raw_spin_lock tasks=2\n"));
	assert_non_null(strstr(t, "    200200           -25.0%     150150        "
				  "page_fault2.processes.vmstat.pgfault/s tasks=2\n"));
	/* Sections apart: a blank line before vmstat and before the profile. */
	assert_non_null(strstr(t, "REGRESSION\n\n    200000"));
	fl_buf_free(&out);
	fl_comparison_free(c);

	/* +-10% of spread shows as LKP's "± N%" next to the values. */
	spread = 0.10;
	make_side(&base_side, "v3.16", 100000, 200000, 0.10, 1);
	spread = 0.01;
	assert_int_equal(fl_compare("page_fault2", &base_side.set, &new_side.set, &o, &c), 0);
	fl_comparison_text(c, &out);
	t = fl_buf_str(&out);
	assert_non_null(strstr(t, " \xc2\xb1  5%    "));
	assert_true(c->rows[1].base.stddev_pct > 4 && c->rows[1].base.stddev_pct < 7);
	fl_buf_free(&out);
	fl_comparison_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_regression_rows),
	    cmocka_unit_test(test_no_profile),
	    cmocka_unit_test(test_missing_side),
	    cmocka_unit_test(test_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
