/* test_symbols.c - System.map parsing and profile buckets per function on a
 * synthetic map: boundaries, names sharing an address, addresses outside
 * kernel text, junk lines, and a profile from another kernel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lib/error.h"
#include "analysis/symbols.h"
#include "testlib.h"

#define BASE 0xffffffff81000000ull

/* 0x400 bytes of text: 256 buckets of 4 bytes. Not sorted, as a map
 * concatenated by hand might not be; markers share addresses with code. */
static const char map[] = "ffffffff81000000 T _stext\n"
			  "ffffffff81000000 T _text\n"
			  "ffffffff81000000 T startup_64\n"
			  "ffffffff81000040 t secondary_startup_64\n"
			  "ffffffff81000100 T do_page_fault\n"
			  "ffffffff81000100 D a_data_symbol\n"
			  "ffffffff81000200 T __lock_text_start\n"
			  "ffffffff81000200 T _raw_spin_unlock\n"
			  "ffffffff81000180 T _raw_spin_lock\n"
			  "ffffffff810001a0 W weak_function\n"
			  "ffffffff81000300 t last_function\n"
			  "ffffffff81000380 ? __nosave_begin\n" /* as in Linux 6.1's */
			  "ffffffff81000400 T _etext\n"
			  "ffffffff81000400 T _sinittext\n"
			  "ffffffff81000500 T an_init_function\n"
			  "0000000000000000 A __per_cpu_start\n";

static fl_symbols *load_map(void)
{
	fl_symbols *s;

	assert_int_equal(fl_symbols_parse(&s, map, strlen(map), "map"), 0);
	return s;
}

static void test_lookup_boundaries(void **state)
{
	fl_symbols *s = load_map();
	uint64_t off;

	(void)state;
	assert_int_equal(fl_symbols_stext(s), BASE);
	assert_int_equal(fl_symbols_etext(s), BASE + 0x400);
	/* _stext, _text and startup_64 share an address: the function wins. */
	assert_string_equal(fl_symbols_lookup(s, BASE, &off), "startup_64");
	assert_int_equal(off, 0);
	assert_string_equal(fl_symbols_lookup(s, BASE + 0x3f, &off), "startup_64");
	assert_int_equal(off, 0x3f);
	assert_string_equal(fl_symbols_lookup(s, BASE + 0x40, NULL), "secondary_startup_64");
	/* First byte, last byte, and exactly at the next symbol. */
	assert_string_equal(fl_symbols_lookup(s, BASE + 0x100, &off), "do_page_fault");
	assert_int_equal(off, 0);
	assert_string_equal(fl_symbols_lookup(s, BASE + 0x17f, &off), "do_page_fault");
	assert_int_equal(off, 0x7f);
	assert_string_equal(fl_symbols_lookup(s, BASE + 0x180, &off), "_raw_spin_lock");
	assert_int_equal(off, 0);
	assert_string_equal(fl_symbols_lookup(s, BASE + 0x1a0, NULL), "weak_function");
	/* The marker was listed first; the function still wins. */
	assert_string_equal(fl_symbols_lookup(s, BASE + 0x200, NULL), "_raw_spin_unlock");
	assert_string_equal(fl_symbols_lookup(s, BASE + 0x3ff, NULL), "last_function");
	/* Markers and data are no functions: 7 distinct text addresses. */
	assert_int_equal(fl_symbols_count(s), 7);
	fl_symbols_free(s);
}

static void test_lookup_outside_text(void **state)
{
	fl_symbols *s = load_map();
	uint64_t off = 99;

	(void)state;
	assert_string_equal(fl_symbols_lookup(s, BASE - 1, &off), FL_SYM_UNKNOWN);
	assert_int_equal(off, 0);
	assert_string_equal(fl_symbols_lookup(s, 0, NULL), FL_SYM_UNKNOWN);
	/* _etext itself, init text after it, module space. */
	assert_string_equal(fl_symbols_lookup(s, BASE + 0x400, NULL), FL_SYM_MODULE);
	assert_string_equal(fl_symbols_lookup(s, BASE + 0x500, NULL), FL_SYM_MODULE);
	assert_string_equal(fl_symbols_lookup(s, 0xffffffffa0001234ull, NULL), FL_SYM_MODULE);
	fl_symbols_free(s);
}

static void test_profile_by_function(void **state)
{
	fl_symbols *s = load_map();
	/* bucket = offset / 4. 0x17c is do_page_fault's last bucket, 0x180
	 * _raw_spin_lock's first; 255 is where the kernel clamps hits outside
	 * the text. */
	const struct fl_profile_bucket b[] = {
	    {0, 3}, {0x100 / 4, 5}, {0x17c / 4, 2}, {0x180 / 4, 10}, {255, 4}, {0x300 / 4, 0},
	};
	struct fl_profile_desc p = {4, 256, 25, 1, b, 6};
	struct fl_profile_fn *f;
	size_t n;

	(void)state;
	assert_int_equal(fl_profile_by_function(s, &p, &f, &n), 0);
	assert_int_equal(n, 5);
	assert_string_equal(f[0].name, "_raw_spin_lock");
	assert_int_equal(f[0].samples, 10);
	assert_true(f[0].share > 0.3999 && f[0].share < 0.4001);
	assert_string_equal(f[1].name, "do_page_fault");
	assert_int_equal(f[1].samples, 7);
	assert_string_equal(f[2].name, FL_SYM_MODULE);
	assert_int_equal(f[2].samples, 4);
	assert_string_equal(f[3].name, "startup_64");
	assert_string_equal(f[4].name, FL_SYM_DROPPED);
	assert_int_equal(f[4].samples, 1);
	fl_profile_fns_free(f, n);

	/* Without a total the shares are of the buckets given. */
	p.total = 0;
	p.dropped = 0;
	assert_int_equal(fl_profile_by_function(s, &p, &f, &n), 0);
	assert_int_equal(n, 4);
	assert_true(f[0].share > 10.0 / 24 - 1e-9 && f[0].share < 10.0 / 24 + 1e-9);
	fl_profile_fns_free(f, n);
	fl_symbols_free(s);
}

static void test_profile_not_this_kernel(void **state)
{
	fl_symbols *s = load_map();
	const struct fl_profile_bucket b[] = {{300, 1}};
	struct fl_profile_desc p = {4, 300, 0, 0, b, 0};
	struct fl_profile_fn *f;
	size_t n;

	(void)state;
	assert_int_equal(fl_profile_by_function(s, &p, &f, &n), FL_EINVAL);
	assert_non_null(strstr(fl_error_last(), "not this kernel's map"));
	p.nbuckets = 256;
	p.n = 1;
	assert_int_equal(fl_profile_by_function(s, &p, &f, &n), FL_EINVAL);
	assert_non_null(strstr(fl_error_last(), "bucket 300"));
	p.step = 3;
	assert_int_equal(fl_profile_by_function(s, &p, &f, &n), FL_EINVAL);
	assert_non_null(strstr(fl_error_last(), "power of two"));
	fl_symbols_free(s);
}

static void expect_bad(const char *text, const char *what)
{
	fl_symbols *s = (fl_symbols *)1;

	assert_int_equal(fl_symbols_parse(&s, text, strlen(text), "System.map"), FL_EINVAL);
	assert_null(s);
	if (!strstr(fl_error_last(), what))
		fail_msg("'%s' not in '%s'", what, fl_error_last());
}

static void test_junk(void **state)
{
	(void)state;
	expect_bad("ffffffff81000000 T _stext\nthis is not a symbol\n", "System.map:2: expected");
	expect_bad("ffffffff81000000 T _stext\nffffffff81000010 T\n", "System.map:2:");
	expect_bad("ffffffff81000000 T _stext\nffffffff8100zz10 T f\n", "System.map:2:");
	expect_bad("ffffffff81000000 TT _stext\n", "System.map:1:");
	/* Debian's placeholder map. */
	expect_bad("ffffffffffffffff B The real System.map is in the linux-image-<version>-dbg "
		   "package\n",
		   "System.map:1:");
	expect_bad("ffffffff81000000 T _stext\nffffffff81000010 T f\n", "no _etext");
	expect_bad("ffffffff81000010 T f\nffffffff81000400 T _etext\n", "no _stext");
	expect_bad("ffffffff81000400 T _stext\nffffffff81000000 T _etext\n", "not above");
	expect_bad("", "no _stext");
}

static void test_load_file(void **state)
{
	char dir[64], path[128];
	fl_symbols *s;
	FILE *f;

	(void)state;
	assert_int_equal(fl_test_tmpdir(dir, sizeof(dir), "symbols"), 0);
	snprintf(path, sizeof(path), "%s/System.map", dir);
	assert_int_equal(fl_symbols_load(&s, path), FL_EIO);
	assert_non_null(strstr(fl_error_last(), path));
	f = fopen(path, "w");
	/* CRLF line ends and a blank line are fine. */
	fputs(
	    "ffffffff81000000 T _stext\r\n\nffffffff81000008 t f\r\nffffffff81000010 T _etext\r\n",
	    f);
	fclose(f);
	assert_int_equal(fl_symbols_load(&s, path), 0);
	assert_string_equal(fl_symbols_lookup(s, 0xffffffff8100000full, NULL), "f");
	assert_string_equal(fl_symbols_lookup(s, 0xffffffff81000007ull, NULL), "_stext");
	fl_symbols_free(s);
	fl_test_rmtree(dir);
}

/* The running kernel's names, as offsets from _stext (fl-agent's ksyms). */
static void test_from_offsets(void **state)
{
	const struct fl_symbol v[] = {
	    {0x180, "_raw_spin_lock"},
	    {0x100, "__lock_text_start"},
	    {0x100, "do_page_fault"},
	};
	const struct fl_profile_bucket b[] = {{0x100 / 4, 3}, {0x184 / 4, 5}};
	struct fl_profile_desc p = {4, 256, 0, 0, b, 2};
	struct fl_profile_fn *f;
	fl_symbols *s;
	size_t n;

	(void)state;
	assert_int_equal(fl_symbols_from_offsets(&s, 0x400, v, 3), 0);
	assert_int_equal(fl_symbols_stext(s), 0);
	assert_string_equal(fl_symbols_lookup(s, 0x17f, NULL), "do_page_fault");
	assert_string_equal(fl_symbols_lookup(s, 0x3ff, NULL), "_raw_spin_lock");
	assert_string_equal(fl_symbols_lookup(s, 0x400, NULL), FL_SYM_MODULE);
	assert_string_equal(fl_symbols_lookup(s, 0xff, NULL), FL_SYM_UNKNOWN);
	assert_int_equal(fl_profile_by_function(s, &p, &f, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(f[0].name, "_raw_spin_lock");
	assert_string_equal(f[1].name, "do_page_fault");
	fl_profile_fns_free(f, n);
	fl_symbols_free(s);
	assert_int_equal(fl_symbols_from_offsets(&s, 0x100, v, 3), FL_EINVAL);
	assert_null(s);
	assert_non_null(strstr(fl_error_last(), "entry 0 is past the text"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lookup_boundaries),
	    cmocka_unit_test(test_lookup_outside_text),
	    cmocka_unit_test(test_profile_by_function),
	    cmocka_unit_test(test_profile_not_this_kernel),
	    cmocka_unit_test(test_junk),
	    cmocka_unit_test(test_load_file),
	    cmocka_unit_test(test_from_offsets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
