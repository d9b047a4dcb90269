/*
 * test_mail.c - mail formatting, and delivery to a real SMTP server: the
 * test starts python3-aiosmtpd on a loopback port with a Maildir handler
 * and reads back what arrived.
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

#include "lib/buf.h"
#include "lib/error.h"
#include "testlib.h"
#include "lib/mail.h"
#include "smtpsink.h"

static char dir[64], maildir[96];
static int port;
static pid_t server;

static int setup(void **state)
{
	(void)state;
	if (fl_test_tmpdir(dir, sizeof(dir), "mail"))
		return -1;
	snprintf(maildir, sizeof(maildir), "%s/Maildir", dir);
	port = fl_sink_free_port();
	server = fl_sink_start(maildir, port);
	return server > 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	fl_sink_stop(server);
	return fl_test_rmtree(dir);
}

static const char *const to[] = {"Kernel Dev <dev@example.org>", "list@example.org"};

static struct fl_mail report(void)
{
	struct fl_mail m = {
	    .from = "faultline <faultline@localhost>",
	    .to = to,
	    .nto = 2,
	    .subject = "[mm] 1a2b3c4d: page_fault2.threads -24.6% regression\r\nBcc: evil@x",
	    .body = "faultline noticed a -24.6% regression\n.\nend\n",
	    .message_id = "<faultline.regression.1.abc@localhost>",
	    .in_reply_to = NULL,
	    .date = 1700000000,
	};
	return m;
}

static void test_header_values_are_one_line(void **state)
{
	char *v;

	(void)state;
	v = fl_mail_header_value("mm: fix\r\nBcc: evil@example.org\n\tX");
	assert_string_equal(v, "mm: fix Bcc: evil@example.org X");
	free(v);
	v = fl_mail_header_value("\r\n  lead");
	assert_string_equal(v, "  lead");
	free(v);
}

static void test_format(void **state)
{
	struct fl_mail m = report();
	char *text;

	(void)state;
	text = fl_mail_format(&m);
	assert_non_null(strstr(text, "Subject: [mm] 1a2b3c4d: page_fault2.threads -24.6% "
				     "regression Bcc: evil@x\r\n"));
	assert_null(strstr(text, "\r\nBcc:"));
	assert_non_null(strstr(text, "Date: Tue, 14 Nov 2023 22:13:20 +0000\r\n"));
	assert_non_null(strstr(text, "Message-ID: <faultline.regression.1.abc@localhost>\r\n"));
	assert_null(strstr(text, "In-Reply-To"));
	assert_non_null(strstr(text, "To: Kernel Dev <dev@example.org>, list@example.org\r\n"));
	assert_non_null(
	    strstr(text, "\r\n\r\nfaultline noticed a -24.6% regression\r\n.\r\nend\r\n"));
	free(text);
	m.subject = "mm: r\xc3\xa9gression";
	m.in_reply_to = "<first@localhost>";
	text = fl_mail_format(&m);
	/* base64("mm: régression") */
	assert_non_null(strstr(text, "Subject: =?UTF-8?B?bW06IHLDqWdyZXNzaW9u?=\r\n"));
	assert_non_null(strstr(text, "In-Reply-To: <first@localhost>\r\n"));
	assert_non_null(strstr(text, "References: <first@localhost>\r\n"));
	free(text);
}

static void test_send_to_real_server(void **state)
{
	struct fl_mail m = report();
	char url[64], *got;
	struct fl_smtp s = {url, NULL, NULL, 20};
	size_t n;

	(void)state;
	snprintf(url, sizeof(url), "smtp://127.0.0.1:%d", port);
	m.in_reply_to = "<first@localhost>";
	assert_int_equal(fl_mail_send(&s, &m), 0);
	got = fl_sink_read(maildir, &n);
	assert_int_equal(n, 1);
	assert_non_null(strstr(got, "Subject: [mm] 1a2b3c4d: page_fault2.threads -24.6% "
				    "regression Bcc: evil@x\n"));
	assert_null(strstr(got, "\nBcc:"));
	assert_non_null(strstr(got, "In-Reply-To: <first@localhost>\n"));
	assert_non_null(strstr(got, "Message-ID: <faultline.regression.1.abc@localhost>\n"));
	/* The lone dot survived the SMTP transparency rules. */
	assert_non_null(strstr(got, "regression\n.\nend\n"));
	free(got);
}

static void test_server_down(void **state)
{
	struct fl_mail m = report();
	char url[64];
	struct fl_smtp s = {url, NULL, NULL, 5};
	int dead = port + 1;

	(void)state;
	while (fl_sink_port_open(dead))
		dead++;
	snprintf(url, sizeof(url), "smtp://127.0.0.1:%d", dead);
	assert_int_equal(fl_mail_send(&s, &m), FL_EIO);
	assert_non_null(strstr(fl_error_last(), url));
}

static void test_message_ids_differ(void **state)
{
	char *a = fl_mail_message_id("regression", 7, "localhost");
	char *b = fl_mail_message_id("regression", 8, "localhost");

	(void)state;
	assert_non_null(strstr(a, "<faultline.regression.7."));
	assert_non_null(strstr(a, "@localhost>"));
	assert_string_not_equal(a, b);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_header_values_are_one_line), cmocka_unit_test(test_format),
	    cmocka_unit_test(test_send_to_real_server),	       cmocka_unit_test(test_server_down),
	    cmocka_unit_test(test_message_ids_differ),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
