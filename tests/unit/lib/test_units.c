/* test_units.c - sizes, durations and percentages, both ways; release names
 * in version order (lib/version.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/error.h"
#include "lib/units.h"
#include "lib/version.h"

static void test_sizes(void **state)
{
	uint64_t b;
	char out[32];

	(void)state;
	assert_int_equal(fl_parse_size("4096", &b), 0);
	assert_int_equal(b, 4096);
	assert_int_equal(fl_parse_size("256M", &b), 0);
	assert_int_equal(b, 256ULL << 20);
	assert_int_equal(fl_parse_size("2G", &b), 0);
	assert_int_equal(b, 2ULL << 30);
	assert_int_equal(fl_parse_size("256MB", &b), FL_EINVAL);
	assert_string_equal(fl_error_last(), "expected a size like 256M or 2G, got '256MB'");
	assert_int_equal(fl_parse_size("-1M", &b), FL_EINVAL);
	assert_int_equal(fl_parse_size("", &b), FL_EINVAL);
	assert_int_equal(fl_parse_size("99999999999999T", &b), FL_EINVAL);
	fl_format_size(256ULL << 20, out, sizeof(out));
	assert_string_equal(out, "256M");
	fl_format_size(1536ULL << 10, out, sizeof(out));
	assert_string_equal(out, "1536K");
	fl_format_size(1000, out, sizeof(out));
	assert_string_equal(out, "1000");
}

static void test_durations(void **state)
{
	int64_t ms;
	char out[32];

	(void)state;
	assert_int_equal(fl_parse_duration("5s", &ms), 0);
	assert_int_equal(ms, 5000);
	assert_int_equal(fl_parse_duration("10m", &ms), 0);
	assert_int_equal(ms, 600000);
	assert_int_equal(fl_parse_duration("250ms", &ms), 0);
	assert_int_equal(ms, 250);
	assert_int_equal(fl_parse_duration("2h", &ms), 0);
	assert_int_equal(ms, 7200000);
	assert_int_equal(fl_parse_duration("5", &ms), FL_EINVAL);
	assert_string_equal(fl_error_last(), "expected a duration like 5s or 10m, got '5'");
	assert_int_equal(fl_parse_duration("1.5s", &ms), FL_EINVAL);
	fl_format_duration(600000, out, sizeof(out));
	assert_string_equal(out, "10m");
	fl_format_duration(1500, out, sizeof(out));
	assert_string_equal(out, "1500ms");
}

static void test_percent(void **state)
{
	double f;
	char out[32];

	(void)state;
	assert_int_equal(fl_parse_percent("2%", &f), 0);
	assert_true(f > 0.0199999 && f < 0.0200001);
	assert_int_equal(fl_parse_percent("2.5%", &f), 0);
	assert_true(f > 0.0249999 && f < 0.0250001);
	assert_int_equal(fl_parse_percent("2", &f), FL_EINVAL);
	assert_int_equal(fl_parse_percent("%", &f), FL_EINVAL);
	fl_format_percent(0.025, out, sizeof(out));
	assert_string_equal(out, "2.5%");
}

static void test_version_order(void **state)
{
	(void)state;
	assert_true(fl_version_cmp("v5.19", "v6.1-rc1") < 0);
	assert_true(fl_version_cmp("v6.1-rc10", "v6.1-rc2") > 0);
	assert_true(fl_version_cmp("v6.1-rc2", "v6.1") < 0);
	assert_true(fl_version_cmp("v6.1", "v6.1-rc2") > 0);
	assert_true(fl_version_cmp("v6.10", "v6.9") > 0);
	assert_true(fl_version_cmp("v6.1", "v6.1.1") < 0);
	assert_int_equal(fl_version_cmp("v6.1", "v6.1"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_version_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
