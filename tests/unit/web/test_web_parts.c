/*
 * test_web_parts.c - the pieces of the results pages that need no server:
 * the layout template (slots filled, unknown and unclosed slots refused
 * with file:line), the request pool, and JSON strings from untrusted text
 * (invalid UTF-8 becomes U+FFFD, so the API always sends valid JSON).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/pool.h"
#include "testlib.h"
#include "web/template.h"
#include "web/web.h"

static const char *const slots[] = {"title", "body", "version", NULL};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_template(void **state)
{
	char dir[64], path[128];
	const char *values[] = {"T &amp; co", "<p>x</p>", NULL};
	struct fl_tmpl *t;
	fl_buf out = FL_BUF_INIT;

	(void)state;
	assert_int_equal(fl_test_tmpdir(dir, sizeof(dir), "tmpl"), 0);
	snprintf(path, sizeof(path), "%s/layout.html", dir);
	write_file(path, "<title>{{title}}</title>\n<main>{{body}}</main>{{version}}{{title}}");
	assert_int_equal(fl_tmpl_load(&t, path, slots), 0);
	fl_tmpl_render(t, &out, values);
	/* values go in as given (already escaped by the page), an absent one is empty */
	assert_string_equal(out.ptr, "<title>T &amp; co</title>\n<main><p>x</p></main>T &amp; co");
	fl_tmpl_free(t);

	write_file(path, "<p>\n\n{{body}} {{bdoy}}</p>");
	assert_int_equal(fl_tmpl_load(&t, path, slots), FL_EINVAL);
	assert_null(t);
	assert_non_null(strstr(fl_error_last(), "layout.html:3: unknown slot 'bdoy'"));
	write_file(path, "<p>{{body</p>");
	assert_int_equal(fl_tmpl_load(&t, path, slots), FL_EINVAL);
	assert_non_null(strstr(fl_error_last(), "layout.html:1: unclosed slot"));
	unlink(path);
	assert_int_equal(fl_tmpl_load(&t, path, slots), FL_EIO);
	assert_non_null(strstr(fl_error_last(), "cannot open"));
	fl_buf_free(&out);
	fl_test_rmtree(dir);
}

static void test_pool(void **state)
{
	fl_pool p = FL_POOL_INIT;
	int *arr = NULL;
	size_t alloc = 0;
	char *big;

	(void)state;
	for (int i = 0; i < 10000; i++) {
		arr = fl_pool_grow(&p, arr, sizeof(int), (size_t)i, &alloc);
		arr[i] = i;
	}
	for (int i = 0; i < 10000; i++)
		assert_int_equal(arr[i], i);
	assert_string_equal(fl_pool_strdup(&p, "abc"), "abc");
	assert_null(fl_pool_strdup(&p, NULL));
	big = fl_pool_alloc(&p, 100000);
	assert_int_equal(big[99999], 0);
	assert_int_equal((uintptr_t)fl_pool_alloc(&p, 3) % _Alignof(max_align_t), 0);
	fl_pool_free(&p);
	assert_null(p.head);
}

static void test_json_strings(void **state)
{
	json_t *j;

	(void)state;
	j = fl_web_json_str("ok \xc3\xa9");
	assert_string_equal(json_string_value(j), "ok \xc3\xa9");
	json_decref(j);
	/* a lone byte, an overlong '/', a surrogate, a truncated sequence */
	j = fl_web_json_str("a\xff"
			    "b\xc0\xaf"
			    "c\xed\xa0\x80"
			    "d\xe2\x82");
	assert_string_equal(json_string_value(j), "a\xef\xbf\xbd"
						  "b\xef\xbf\xbd\xef\xbf\xbd"
						  "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
						  "d\xef\xbf\xbd\xef\xbf\xbd");
	json_decref(j);
	assert_true(json_is_null(fl_web_json_str(NULL)));
	assert_true(json_is_null(fl_web_json_num(0.0 / 0.0)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_template),
	    cmocka_unit_test(test_pool),
	    cmocka_unit_test(test_json_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
