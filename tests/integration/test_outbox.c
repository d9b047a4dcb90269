/*
 * test_outbox.c - stored reports reach a real SMTP server: with the server
 * down the report stays pending and is retried after its backoff; once the
 * server is up it is sent, marked sent, and never again. A second report on
 * the same regression threads under the first. A process killed between
 * the server taking the message and its 250 sends it again, as the very
 * same message (tests/smtplog.py holds the 250). Workers sharing a store:
 * a due report is claimed by one, the others pass it by, and the claim of
 * a worker that leaves (or is taken for dead) ends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <time.h>

#include "lib/error.h"
#include "lib/mail.h"
#include "service/outbox.h"
#include "smtpsink.h"
#include "store/jobs.h"
#include "store/store.h"
#include "testlib.h"

static char dir[64], maildir[96], db[96], url[64];
static int port;

static int setup(void **state)
{
	(void)state;
	if (fl_test_tmpdir(dir, sizeof(dir), "outbox"))
		return -1;
	snprintf(maildir, sizeof(maildir), "%s/Maildir", dir);
	snprintf(db, sizeof(db), "%s/fl.db", dir);
	port = fl_sink_free_port();
	snprintf(url, sizeof(url), "smtp://127.0.0.1:%d", port);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return fl_test_rmtree(dir);
}

static void test_backoff(void **state)
{
	(void)state;
	assert_int_equal(fl_outbox_backoff(1), 60);
	assert_int_equal(fl_outbox_backoff(2), 120);
	assert_int_equal(fl_outbox_backoff(3), 240);
	assert_int_equal(fl_outbox_backoff(7), 3600);
	assert_int_equal(fl_outbox_backoff(50), 3600);
}

static const char *const to[] = {"dev@example.org"};

static void test_down_then_up(void **state)
{
	struct fl_smtp smtp = {url, NULL, NULL, 5};
	struct fl_outbox box = {&smtp, "faultline@localhost", to, 1, 0, NULL};
	struct fl_report_new r = {0, "<faultline.regression.1.x@localhost>",
				  "faultline noticed a -25% regression", "body\n"};
	struct fl_report got;
	unsigned sent, failed;
	fl_store *st;
	int64_t id;
	pid_t server;
	size_t n;
	char *mail;

	(void)state;
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	assert_int_equal(fl_store_report_add(st, &r, &id), 0);

	assert_int_equal(fl_outbox_flush(st, &box, 1000, &sent, &failed), 0);
	assert_int_equal(sent, 0);
	assert_int_equal(failed, 1);
	assert_int_equal(fl_store_report_get(st, id, &got), 0);
	assert_string_equal(got.state, "pending");
	assert_int_equal(got.attempts, 1);
	assert_non_null(strstr(got.last_error, url));
	fl_store_report_clear(&got);

	/* Not due again before its backoff. */
	assert_int_equal(fl_outbox_flush(st, &box, 1059, &sent, &failed), 0);
	assert_int_equal(sent + failed, 0);

	server = fl_sink_start(maildir, port);
	assert_true(server > 0);
	assert_int_equal(fl_outbox_flush(st, &box, 1060, &sent, &failed), 0);
	assert_int_equal(sent, 1);
	assert_int_equal(failed, 0);
	assert_int_equal(fl_outbox_flush(st, &box, 99999, &sent, &failed), 0);
	assert_int_equal(sent + failed, 0);
	mail = fl_sink_read(maildir, &n);
	fl_sink_stop(server);
	assert_int_equal(n, 1);
	assert_non_null(strstr(mail, "Subject: faultline noticed a -25% regression\n"));
	free(mail);
	fl_store_free(st);

	/* What was sent stays sent across a reopen. */
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	assert_int_equal(fl_store_report_get(st, id, &got), 0);
	assert_string_equal(got.state, "sent");
	assert_int_equal(got.attempts, 2);
	assert_int_equal(got.sent, 1060);
	fl_store_report_clear(&got);
	assert_int_equal(fl_store_report_get(st, id + 7, &got), FL_ENOTFOUND);
	fl_store_free(st);
}

/* Rows a regression needs, written directly: no stage makes them yet. */
static void make_regression(void)
{
	sqlite3 *raw;

	assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
	assert_int_equal(
	    sqlite3_exec(raw,
			 "INSERT INTO trees(id, name, url) VALUES (9, 't', '/x');"
			 "INSERT INTO commits(id, tree_id, sha) VALUES "
			 "(1, 9, printf('%040d', 1)), (2, 9, printf('%040d', 2));"
			 "INSERT INTO machines(id, name, backend) VALUES (3, 'm', 'command');"
			 "INSERT INTO regressions(id, tree_id, good_commit, bad_commit, "
			 "benchmark, machine_id, metric, tasks, change) VALUES "
			 "(5, 9, 1, 2, 'b', 3, 'ops', 1, -0.25);",
			 NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(raw);
}

static void test_follow_up_threads(void **state)
{
	struct fl_report_new first = {5, "<first@localhost>", "regression", "b\n"};
	struct fl_report_new again = {5, "<again@localhost>", "Re: regression", "b\n"};
	struct fl_report_new other = {0, "<other@localhost>", "other", "b\n"};
	struct fl_report got;
	fl_store *st;
	int64_t a, b, c;

	(void)state;
	FL_TEST_SQLITE_ONLY();
	unlink(db);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	make_regression();
	assert_int_equal(fl_store_report_add(st, &first, &a), 0);
	assert_int_equal(fl_store_report_add(st, &again, &b), 0);
	assert_int_equal(fl_store_report_add(st, &other, &c), 0);
	assert_int_equal(fl_store_report_get(st, a, &got), 0);
	assert_null(got.in_reply_to);
	fl_store_report_clear(&got);
	assert_int_equal(fl_store_report_get(st, b, &got), 0);
	assert_string_equal(got.in_reply_to, "<first@localhost>");
	fl_store_report_clear(&got);
	assert_int_equal(fl_store_report_get(st, c, &got), 0);
	assert_null(got.in_reply_to);
	fl_store_report_clear(&got);
	/* The same Message-ID twice is refused: a report is stored once. */
	assert_int_equal(fl_store_report_add(st, &first, &a), FL_ESTORE);
	fl_store_free(st);
}

static void test_one_sender(void **state)
{
	struct fl_report_new r = {0, "<faultline.regression.3.x@localhost>", "claimed", "body\n"};
	struct fl_report *due;
	size_t n;
	int64_t id;
	int got;
	fl_store *st;

	(void)state;
	unlink(db);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	assert_int_equal(fl_store_report_add(st, &r, &id), 0);
	assert_int_equal(fl_store_report_claim(st, id, INT64_MAX / 2, "a", &got), 0);
	assert_int_equal(got, 1);
	assert_int_equal(fl_store_report_claim(st, id, INT64_MAX / 2, "b", &got), 0);
	assert_int_equal(got, 0);
	assert_int_equal(fl_store_reports_due(st, INT64_MAX / 2, &due, &n), 0);
	assert_int_equal(n, 0); /* a's, not due for anyone else */
	fl_store_reports_free(due, n);
	assert_int_equal(fl_store_worker_leave(st, "a"), 0);
	assert_int_equal(fl_store_report_claim(st, id, INT64_MAX / 2, "b", &got), 0);
	assert_int_equal(got, 1);
	fl_store_free(st);
}

/*
 * Killed after the server took the message but before its 250: the next
 * start sends it again (SMTP delivers at least once), and the copy is the
 * same message byte for byte, Message-ID and Date included, so readers fold
 * the two. The Date was the time of sending, which made the copy differ.
 */
static void test_killed_before_250(void **state)
{
	struct fl_smtp smtp = {url, NULL, NULL, 60};
	struct fl_outbox box = {&smtp, "faultline@localhost", to, 1, 0, NULL};
	struct fl_report_new r = {0, "<faultline.regression.9.kill@localhost>", "killed", "body\n"};
	char logdir[128], *first, *second;
	int64_t id, now = (int64_t)time(NULL);
	size_t n1 = 0, n2 = 0;
	struct fl_report got;
	unsigned sent, failed;
	pid_t server, child;
	fl_store *st;

	(void)state;
	unlink(db);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	assert_int_equal(fl_store_report_add(st, &r, &id), 0);
	fl_store_free(st);
	snprintf(logdir, sizeof(logdir), "%s/killed", dir);
	server = fl_smtplog_start(logdir, port, "--hold-first", "60");
	assert_true(server > 0);
	if (!(child = fl_test_fork())) {
		if (fl_store_open(&st, fl_test_store(db), 0))
			_exit(3);
		fl_outbox_flush(st, &box, now + 10, &sent, &failed);
		_exit(4); /* not reached: killed while the server holds its 250 */
	}
	for (int i = 0; i < 200 && fl_test_sh("test -e %s/taken-1", logdir) != 0; i++)
		usleep(50 * 1000);
	assert_int_equal(fl_test_sh("test -e %s/taken-1", logdir), 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	assert_int_equal(fl_outbox_flush(st, &box, now + 300, &sent, &failed), 0);
	assert_int_equal(sent, 1);
	assert_int_equal(fl_outbox_flush(st, &box, now + 9999, &sent, &failed), 0);
	assert_int_equal(sent + failed, 0);
	assert_int_equal(fl_store_report_get(st, id, &got), 0);
	assert_string_equal(got.state, "sent");
	fl_store_report_clear(&got);
	fl_store_free(st);
	fl_sink_stop(server);
	first = fl_smtplog_file(logdir, "msg-1", &n1);
	second = fl_smtplog_file(logdir, "msg-2", &n2);
	assert_non_null(first);
	assert_non_null(second);
	assert_non_null(strstr(first, "Message-ID: <faultline.regression.9.kill@localhost>\r\n"));
	assert_int_equal(n1, n2);
	assert_memory_equal(first, second, n1);
	assert_null(fl_smtplog_file(logdir, "msg-3", &n1));
	free(first);
	free(second);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_backoff),
	    cmocka_unit_test(test_down_then_up),
	    cmocka_unit_test(test_follow_up_threads),
	    cmocka_unit_test(test_one_sender),
	    cmocka_unit_test(test_killed_before_250),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
