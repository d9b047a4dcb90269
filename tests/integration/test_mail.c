/*
 * test_mail.c - mail formatting, and delivery to a real SMTP server: the
 * test starts python3-aiosmtpd on a loopback port with a Maildir handler
 * and reads back what arrived; and what goes on the wire, seen by
 * tests/smtplog.py: no bare CR in DATA, no address that adds an SMTP
 * command, and a refusal's reason as the server gave it.
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

/* Sends m to a fresh tests/smtplog.py (opt: its option or NULL) in dir/name; fl_mail_send's result.
 */
static int send_logged(struct fl_mail *m, const char *name, const char *opt, char *logdir, size_t n)
{
	char url[64];
	struct fl_smtp s = {url, NULL, NULL, 20};
	int lport = fl_sink_free_port(), r;
	pid_t pid;

	snprintf(logdir, n, "%s/%s", dir, name);
	pid = fl_smtplog_start(logdir, lport, opt, NULL);
	assert_true(pid > 0);
	snprintf(url, sizeof(url), "smtp://127.0.0.1:%d", lport);
	r = fl_mail_send(&s, m);
	fl_sink_stop(pid);
	return r;
}

/* RFC 5321: CR and LF only as CRLF in DATA; a commit message's bare CR ends a line. */
static void test_bare_cr(void **state)
{
	struct fl_mail m = report();
	char logdir[128], *data;
	size_t len;

	(void)state;
	m.body = "subject line\rsecond\r\nthird\nfourth\r";
	assert_int_equal(send_logged(&m, "bare-cr", NULL, logdir, sizeof(logdir)), 0);
	data = fl_smtplog_file(logdir, "msg-1", &len);
	assert_non_null(data);
	for (size_t i = 0; i < len; i++) {
		if (data[i] == '\r' && (i + 1 == len || data[i + 1] != '\n'))
			fail_msg("a bare CR at byte %zu of DATA", i);
		if (data[i] == '\n' && (i == 0 || data[i - 1] != '\r'))
			fail_msg("a bare LF at byte %zu of DATA", i);
	}
	assert_non_null(strstr(data, "\r\n\r\nsubject line\r\nsecond\r\nthird\r\nfourth\r\n.\r\n"));
	free(data);
}

static void test_address_check(void **state)
{
	static const char *const good[] = {"dev@example.org", "Kernel Dev <dev@example.org>",
					   "\"Dev, Team\" <dev+perf@lists.example.org>"};
	static const char *const bad[] = {
	    "dev@example.org>\r\nRCPT TO:<evil@example.org",
	    "dev@example.org\nBcc: evil@example.org",
	    "dev",
	    "dev@",
	    "@example.org",
	    "a@b@c",
	    "dev @example.org",
	    "Dev <dev@example.org",
	    "Dev <dev@example.org> <evil@example.org>",
	    "<dev@example.org>x",
	    "dev@example.org>",
	};
	char why[160];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (fl_mail_address_check(good[i], why, sizeof(why)))
			fail_msg("'%s' refused: %s", good[i], why);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!fl_mail_address_check(bad[i], why, sizeof(why)))
			fail_msg("'%s' taken for an address", bad[i]);
	assert_int_equal(fl_mail_address_check(bad[0], why, sizeof(why)), FL_EINVAL);
	/* the message shows the CR LF, it does not contain them; kept for
	 * fl_error_last() too */
	assert_non_null(strstr(why, "'dev@example.org>\\r\\nRCPT TO:<evil@example.org'"));
	assert_string_equal(fl_error_last(), why);
}

/* An address with CR LF never reaches the server as a second RCPT TO. */
static void test_no_smtp_injection(void **state)
{
	static const char *const evil[] = {"dev@example.org>\r\nRCPT TO:<evil@example.org"};
	struct fl_mail m = report();
	char logdir[128], *wire;
	size_t len = 0;

	(void)state;
	m.to = evil;
	m.nto = 1;
	assert_int_equal(send_logged(&m, "inject-to", NULL, logdir, sizeof(logdir)), FL_EINVAL);
	assert_non_null(strstr(fl_error_last(), "a control character in it"));
	wire = fl_smtplog_file(logdir, "transcript", &len);
	assert_true(!wire || !strstr(wire, "evil"));
	free(wire);
	m = report();
	m.from = "robot@example.org>\r\nRCPT TO:<evil@example.org";
	assert_int_equal(send_logged(&m, "inject-from", NULL, logdir, sizeof(logdir)), FL_EINVAL);
	wire = fl_smtplog_file(logdir, "transcript", &len);
	assert_true(!wire || !strstr(wire, "evil"));
	free(wire);
}

/* A refusal keeps the server's own words: libcurl alone says "RCPT failed: 550". */
static void test_refusals_say_why(void **state)
{
	struct fl_mail m = report();
	char logdir[128];

	(void)state;
	assert_int_equal(send_logged(&m, "refuse-rcpt", "--refuse-rcpt", logdir, sizeof(logdir)),
			 FL_EIO);
	assert_non_null(strstr(fl_error_last(), "the server said: 550 5.1.1 <dev@example.org>: "
						"Recipient address rejected: no such user here"));
	assert_int_equal(send_logged(&m, "refuse-data", "--refuse-data", logdir, sizeof(logdir)),
			 FL_EIO);
	assert_non_null(strstr(fl_error_last(), "the server said: 554 5.7.1 Message rejected: "
						"it looks like spam to us"));
}

/* Cc and the .config attached: both recipients in the envelope, two MIME
 * parts, the attachment's name made header-safe; control characters of a
 * commit message (a terminal escape, a C1 CSI, a byte that is not UTF-8)
 * do not reach the reader. */
static void test_cc_attachment_sanitised(void **state)
{
	static const char *const cc[] = {"\"Doe, John\" <john@example.org>"};
	struct fl_mail m = report();
	char logdir[128], *data, *text;
	size_t len;

	(void)state;
	m.cc = cc;
	m.ncc = 1;
	m.body = "culprit: \x1b[31mred\x1b[0m \xc2\x9b"
		 "2J and \xff, \xc2\xb1 kept\n";
	m.attach_name = "config-1a2b\r\nX: y";
	m.attach = "CONFIG_SMP=y\n# CONFIG_MEMCG is not set\n";
	text = fl_mail_format(&m);
	assert_non_null(strstr(text, "Cc: \"Doe, John\" <john@example.org>\r\n"));
	assert_non_null(
	    strstr(text, "Content-Type: multipart/mixed; boundary=\"faultline-part-0-"));
	assert_non_null(strstr(text, "culprit: [31mred[0m 2J and ?, \xc2\xb1 kept\r\n"));
	assert_null(strstr(text, "\x1b"));
	assert_non_null(strstr(text,
			       "Content-Type: text/plain; charset=UTF-8; "
			       "name=\"config-1a2b__X__y\"\r\nContent-Disposition: attachment; "
			       "filename=\"config-1a2b__X__y\"\r\n"));
	assert_non_null(strstr(
	    text, "\r\n\r\nCONFIG_SMP=y\r\n# CONFIG_MEMCG is not set\r\n--faultline-part-0-"));
	free(text);
	assert_int_equal(send_logged(&m, "attach", NULL, logdir, sizeof(logdir)), 0);
	data = fl_smtplog_file(logdir, "transcript", &len);
	assert_non_null(strstr(data, "RCPT TO:<dev@example.org>\r\n"));
	assert_non_null(strstr(data, "RCPT TO:<john@example.org>\r\n"));
	free(data);

	/* and through aiosmtpd into a Maildir: one message, both parts as sent */
	{
		char box[160], url[64], *got;
		struct fl_smtp s = {url, NULL, NULL, 20};
		int p2 = fl_sink_free_port();
		pid_t sink;
		size_t n;

		snprintf(box, sizeof(box), "%s/Maildir-attach", dir);
		sink = fl_sink_start(box, p2);
		assert_true(sink > 0);
		snprintf(url, sizeof(url), "smtp://127.0.0.1:%d", p2);
		assert_int_equal(fl_mail_send(&s, &m), 0);
		got = fl_sink_read(box, &n);
		fl_sink_stop(sink);
		assert_int_equal(n, 1);
		assert_non_null(strstr(got, "Cc: \"Doe, John\" <john@example.org>\n"));
		assert_non_null(strstr(got, "X-RcptTo: dev@example.org, list@example.org, "
					    "john@example.org\n"));
		assert_non_null(strstr(got, "filename=\"config-1a2b__X__y\"\n"));
		assert_non_null(strstr(
		    got, "\n\nCONFIG_SMP=y\n# CONFIG_MEMCG is not set\n--faultline-part-0-"));
		free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_header_values_are_one_line),
	    cmocka_unit_test(test_format),
	    cmocka_unit_test(test_send_to_real_server),
	    cmocka_unit_test(test_server_down),
	    cmocka_unit_test(test_message_ids_differ),
	    cmocka_unit_test(test_bare_cr),
	    cmocka_unit_test(test_address_check),
	    cmocka_unit_test(test_no_smtp_injection),
	    cmocka_unit_test(test_refusals_say_why),
	    cmocka_unit_test(test_cc_attachment_sanitised),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
