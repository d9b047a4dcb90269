/*
 * test_svg.c - the plots carry every series, point, error bar and marker,
 * escape their labels, and are well-formed XML (checked with python3's
 * xml.etree, an independent parser).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "web/svg.h"

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void assert_well_formed(const char *svg)
{
	char path[64], cmd[160];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/fl-svg-%d.svg", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(svg, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import sys,xml.etree.ElementTree as E; E.parse(sys.argv[1])' %s",
		 path);
	assert_int_equal(system(cmd), 0);
	unlink(path);
}

static void test_scalability_plot(void **state)
{
	double x[] = {1, 2, 4, 8}, a[] = {250e3, 480e3, 900e3, 1.6e6}, b[] = {240e3, 300e3, 310e3,
									    320e3};
	double ea[] = {10e3, 12e3, 20e3, 30e3}, eb[] = {8e3, 9e3, 9e3, 10e3};
	struct fl_svg_series s[] = {{"v6.1-fl0 <base>", x, a, ea, 4, 0}, {"v6.1-fl1", x, b, eb, 4, 0}};
	struct fl_svg_plot p = {.title = "page_fault2 threads",
				.xlabel = "tasks",
				.ylabel = "ops/s",
				.series = s,
				.nseries = 2};
	fl_buf out = FL_BUF_INIT;

	(void)state;
	fl_svg_lines(&out, &p);
	assert_int_equal(count(out.ptr, "<polyline"), 2);
	assert_int_equal(count(out.ptr, "<circle"), 8);
	assert_int_equal(count(out.ptr, "class='err'"), 8);
	assert_int_equal(count(out.ptr, "<g class='series'"), 2);
	assert_non_null(strstr(out.ptr, "data-label='v6.1-fl0 &lt;base&gt;'"));
	assert_null(strstr(out.ptr, "<base>"));
	/* y runs to 1.63M: ticks every 200k, so 1.6M and 800k are labelled. */
	assert_non_null(strstr(out.ptr, ">1.6M</text>"));
	assert_non_null(strstr(out.ptr, ">800k</text>"));
	assert_well_formed(out.ptr);
	fl_buf_free(&out);
}

static void test_tags_with_change_point(void **state)
{
	double x[] = {0, 1, 2, 3}, y[] = {5, 5.1, 3.9, 4.0}, mark = 1.5;
	const char *names[] = {"v6.0", "v6.1-rc1", "v6.1-rc2", "v6.1"};
	struct fl_svg_series s = {"ops", x, y, NULL, 4, 0};
	struct fl_svg_plot p = {.title = "trend",
				.xlabel = "tag",
				.ylabel = "ops/s",
				.series = &s,
				.nseries = 1,
				.marks = &mark,
				.nmarks = 1,
				.xnames = names,
				.nxnames = 4,
				.width = 500,
				.height = 300};
	fl_buf out = FL_BUF_INIT;

	(void)state;
	fl_svg_lines(&out, &p);
	assert_int_equal(count(out.ptr, "class='mark'"), 1);
	assert_int_equal(count(out.ptr, "class='err'"), 0);
	assert_non_null(strstr(out.ptr, ">v6.1-rc2</text>"));
	assert_non_null(strstr(out.ptr, "width='500' height='300'"));
	assert_well_formed(out.ptr);
	fl_buf_free(&out);
}

static void test_strip_and_empty(void **state)
{
	double g0[] = {1, 2, 3}, g1[] = {2};
	const double *vals[] = {g0, g1};
	const char *groups[] = {"1a2b3c4 & co", "5d6e7f8"};
	size_t counts[] = {3, 1};
	struct fl_svg_plot empty = {0};
	fl_buf out = FL_BUF_INIT;

	(void)state;
	fl_svg_strip(&out, groups, vals, counts, 2, 400);
	assert_int_equal(count(out.ptr, "<circle"), 4);
	assert_non_null(strstr(out.ptr, "1a2b3c4 &amp; co"));
	/* the scale runs from the smallest to the largest sample */
	assert_non_null(strstr(out.ptr, "text-anchor='middle'>1</text>"));
	assert_non_null(strstr(out.ptr, "text-anchor='end'>3</text>"));
	assert_well_formed(out.ptr);
	fl_buf_reset(&out);
	fl_svg_lines(&out, &empty);
	assert_int_equal(count(out.ptr, "<polyline"), 0);
	assert_well_formed(out.ptr);
	fl_buf_free(&out);
}

/* The y coordinate of the first circle. */
static double first_cy(const char *svg)
{
	const char *c = strstr(svg, "<circle");

	assert_non_null(c);
	c = strstr(c, "cy='");
	assert_non_null(c);
	return atof(c + 4);
}

/* A 2% change fills the axis: it spans the data, not zero to the top (issue 23). */
static void test_axis_shows_a_relative_change(void **state)
{
	double x[] = {0, 1, 2, 3}, y[] = {250e3, 251e3, 245e3, 245.5e3};
	const char *names[] = {"v6.0", "v6.1-rc1", "v6.1-rc2", "v6.1"};
	struct fl_svg_series s = {"ops", x, y, NULL, 4, 0};
	struct fl_svg_plot p = {.xlabel = "tag",
				.series = &s,
				.nseries = 1,
				.xnames = names,
				.nxnames = 4,
				.ref = 250e3,
				.reflabel = "v6.0"};
	fl_buf out = FL_BUF_INIT;
	double hi, lo;
	const char *c;

	(void)state;
	fl_svg_lines(&out, &p);
	/* no tick at zero, and the two levels far apart on the screen */
	assert_null(strstr(out.ptr, ">0</text>"));
	hi = first_cy(out.ptr);
	c = strstr(out.ptr, "<circle");
	c = strstr(c + 1, "<circle");
	c = strstr(c + 1, "<circle");
	lo = first_cy(c);
	assert_true(lo - hi > 150); /* of 296 pixels */
	/* the right axis says the change against the reference */
	assert_non_null(strstr(out.ptr, "class='rel'"));
	assert_non_null(strstr(out.ptr, ">-2.0%</text>"));
	assert_non_null(strstr(out.ptr, "% against v6.0"));
	assert_well_formed(out.ptr);
	fl_buf_free(&out);
}

/* One task count, one run (no spread: NAN): a dot inside the plot, not an empty frame. */
static void test_single_point(void **state)
{
	double x[] = {2}, y[] = {48e3}, e[] = {NAN};
	struct fl_svg_series s[] = {{"v6.1", x, y, e, 1, 0}, {"linear", x, y, NULL, 1, 1}};
	struct fl_svg_plot p = {.xlabel = "tasks", .series = s, .nseries = 2};
	fl_buf out = FL_BUF_INIT;
	const char *c;
	double cx, cy;

	(void)state;
	fl_svg_lines(&out, &p);
	assert_int_equal(count(out.ptr, "<circle"), 1); /* the reference line has no dots */
	assert_null(strstr(out.ptr, "nan"));
	assert_int_equal(count(out.ptr, "class='err'"), 0);
	c = strstr(out.ptr, "<circle");
	cx = atof(strstr(c, "cx='") + 4);
	cy = first_cy(out.ptr);
	assert_true(cx > 335 && cx < 355); /* the middle of 60..630 */
	assert_true(cy > 24 && cy < 320);
	assert_non_null(strstr(out.ptr, "stroke-dasharray='6 4'"));
	assert_well_formed(out.ptr);
	fl_buf_free(&out);
}

/* A command's numbers near 1000 (issue 39): the bisection page's strip said
 * "1.0098k" and an axis clipped it; labels keep to the resolution they need. */
static void test_labels_near_a_thousand(void **state)
{
	const double a[] = {920.4, 931.0}, b[] = {1009.8, 1019.2};
	const double *vals[] = {a, b};
	const char *groups[] = {"bad", "good"};
	size_t counts[] = {2, 2};
	double x[] = {0, 1, 2}, y[] = {1001.5, 1004.2, 1009.8};
	struct fl_svg_series s = {"value", x, y, NULL, 3, 0};
	struct fl_svg_plot p = {
	    .title = "t", .xlabel = "step", .ylabel = "value", .series = &s, .nseries = 1};
	fl_buf out = FL_BUF_INIT;

	(void)state;
	fl_svg_strip(&out, groups, vals, counts, 2, 400);
	assert_non_null(strstr(out.ptr, ">920</text>"));
	assert_non_null(strstr(out.ptr, ">1019</text>"));
	assert_non_null(strstr(out.ptr, "x='398' y='")); /* ends inside the picture */
	fl_buf_reset(&out);
	fl_svg_lines(&out, &p);
	assert_non_null(strstr(out.ptr, ">1004</text>"));
	assert_null(strstr(out.ptr, "k</text>"));
	assert_well_formed(out.ptr);
	fl_buf_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scalability_plot),
	    cmocka_unit_test(test_tags_with_change_point),
	    cmocka_unit_test(test_strip_and_empty),
	    cmocka_unit_test(test_axis_shows_a_relative_change),
	    cmocka_unit_test(test_single_point),
	    cmocka_unit_test(test_labels_near_a_thousand),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
