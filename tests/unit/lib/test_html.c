/* test_html.c - untrusted text cannot become markup. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/html.h"

static void test_text(void **state)
{
	fl_buf b = FL_BUF_INIT;

	(void)state;
	fl_html_text(&b, "mm: <script>alert('x')</script> & \"more\"");
	assert_string_equal(fl_buf_str(&b), "mm: &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; "
					    "&amp; &quot;more&quot;");
	fl_buf_free(&b);
}

static void test_addf_escapes_every_string(void **state)
{
	fl_buf b = FL_BUF_INIT;

	(void)state;
	fl_html_addf(&b, "<td title=\"%s\">%s</td>%S %d %u %lld %zu %.1f 100%%", "a\"b", "<i>",
		     "<b>raw</b>", -3, 4u, 5LL, (size_t)6, 2.25);
	assert_string_equal(fl_buf_str(&b), "<td title=\"a&quot;b\">&lt;i&gt;</td><b>raw</b> -3 4 "
					    "5 6 2.2 100%");
	fl_buf_free(&b);
}

static void test_url_component(void **state)
{
	fl_buf b = FL_BUF_INIT;

	(void)state;
	fl_html_url_component(&b, "v6.1-rc1 & <x>/~");
	assert_string_equal(fl_buf_str(&b), "v6.1-rc1%20%26%20%3Cx%3E%2F~");
	fl_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_addf_escapes_every_string),
		cmocka_unit_test(test_url_component),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
