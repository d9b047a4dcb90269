/*
 * test_lib.c - lib/'s shared helpers: whole files read at once (fs.h), the
 * clocks (time.h) and the stop signals (cancel.h), the last in child
 * processes that are sent real signals; log messages that text from
 * outside cannot split or turn into terminal escapes (log.h).
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/cancel.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "lib/log.h"
#include "lib/time.h"

static void test_read_file(void **state)
{
	char path[] = "/tmp/fl-test-lib-XXXXXX";
	int fd = mkstemp(path);
	fl_buf b = FL_BUF_INIT;

	(void)state;
	assert_true(fd >= 0);
	/* more than one read's chunk, with a NUL inside */
	for (int i = 0; i < 10000; i++)
		assert_int_equal(write(fd, "0123456789\0", 11), 11);
	close(fd);
	fl_buf_adds(&b, "kept:");
	assert_int_equal(fl_read_file(path, &b), 0);
	assert_int_equal(b.len, 5 + 110000);
	assert_memory_equal(b.ptr, "kept:0123456789", 15);
	assert_int_equal(b.ptr[5 + 10], '\0');
	unlink(path);
	fl_buf_reset(&b);
	assert_int_equal(fl_read_file(path, &b), FL_EIO);
	assert_non_null(strstr(fl_error_last(), path));
	assert_non_null(strstr(fl_error_last(), ": cannot open: No such file or directory"));
	assert_int_equal(b.len, 0);
	fl_buf_free(&b);
}

static void test_clocks(void **state)
{
	int64_t wall = fl_wall_ms(), mono = fl_mono_ms(), later;
	struct timespec nap = {0, 20 * 1000000L};

	(void)state;
	/* the wall clock is the epoch's, in ms */
	assert_true(llabs(wall - (int64_t)time(NULL) * 1000) < 2000);
	nanosleep(&nap, NULL);
	later = fl_mono_ms();
	assert_true(later - mono >= 20);
	assert_true(later - mono < 5000);
}

/* Child bodies: set up, say so on fd, wait for the stop, exit with what they saw. */
static void loop_child(int fd, unsigned flags)
{
	fl_cancel_catch(flags);
	if (write(fd, "r", 1) != 1)
		_exit(99);
	while (!fl_cancel_requested())
		usleep(1000);
	/* the signal seen, 100 more when the runs were not told */
	_exit(fl_cancel_requested() + (fl_cancel_runs() ? 0 : 100));
}

static void wait_child(int fd, unsigned flags)
{
	int sig;

	(void)flags;
	fl_cancel_block();
	if (write(fd, "r", 1) != 1)
		_exit(99);
	sig = fl_cancel_wait();
	_exit(sig == fl_cancel_requested() ? sig : 98);
}

/* Forks body, sends sig once it is ready; the child's wait status. */
static int child_stopped_by(void (*body)(int, unsigned), unsigned flags, int sig)
{
	int p[2], status;
	pid_t pid;
	char c;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		body(p[1], flags);
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	kill(pid, sig);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void test_cancel_signals(void **state)
{
	int st;

	(void)state;
	st = child_stopped_by(loop_child, 0, SIGTERM);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), SIGTERM);
	st = child_stopped_by(loop_child, 0, SIGINT);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), SIGINT);
	/* SIGHUP only when asked for: else it ends the process as usual */
	st = child_stopped_by(loop_child, FL_CANCEL_HUP, SIGHUP);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), SIGHUP);
	st = child_stopped_by(loop_child, 0, SIGHUP);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGHUP);
	/* the watch service's way: the command stops, its runs are not told */
	st = child_stopped_by(loop_child, FL_CANCEL_KEEP_RUNS, SIGTERM);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 100 + SIGTERM);
}

/* serve's way: blocked, then waited for; the signal it returns is the flag's too. */
static void test_cancel_wait(void **state)
{
	int st;

	(void)state;
	st = child_stopped_by(wait_child, 0, SIGINT);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), SIGINT);
}

/* What the log calls in fn write to standard error. */
static char *stderr_of(void (*fn)(void))
{
	char path[] = "/tmp/fl-log-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	fl_buf b = FL_BUF_INIT;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	assert_int_equal(fl_read_file(path, &b), 0);
	unlink(path);
	return fl_buf_detach(&b);
}

static void say_hostile(void)
{
	/* a request path as the agent API logged it: %0d%0a and %1b decoded */
	fl_warn("agent api: 127.0.0.1 \"GET %s\" refused (401)",
		"/x\r\nrun 1: ok after 1.0 s\x1b[31m\x7f");
	fl_info("conflicts in:\nperf.conf\n");
	fl_err("1 tree could not be read");
	fl_verbose("not shown at the default level");
}

/* "2026-12-04T15:20:01.123Z ": an ISO-8601 UTC time to the millisecond, within
 * the seconds around the call. */
static void check_time(const char *line, time_t before, time_t after)
{
	struct tm tm = {0};
	const char *rest = strptime(line, "%Y-%m-%dT%H:%M:%S", &tm);
	time_t t;

	assert_non_null(rest);
	assert_true(rest[0] == '.' && isdigit((unsigned char)rest[1]) &&
		    isdigit((unsigned char)rest[2]) && isdigit((unsigned char)rest[3]) &&
		    rest[4] == 'Z' && rest[5] == ' ');
	t = timegm(&tm);
	assert_true(t >= before && t <= after);
}

/* One line a message, each with its time and level; no text in a message
 * starts a line of its own or reaches the terminal raw. */
static void test_log_one_message(void **state)
{
	time_t before = time(NULL);
	char *out = stderr_of(say_hostile), *line[4] = {0}, *save = NULL;
	time_t after = time(NULL);
	size_t n = 0;

	(void)state;
	assert_null(strchr(out, '\r'));
	assert_null(strchr(out, '\x1b'));
	for (char *l = strtok_r(out, "\n", &save); l && n < 4; l = strtok_r(NULL, "\n", &save))
		line[n++] = l;
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++)
		check_time(line[i], before, after);
	assert_string_equal(line[0] + 25, "warning agent api: 127.0.0.1 \"GET /x\\x0d\\n"
					  "run 1: ok after 1.0 s\\x1b[31m\\x7f\" refused (401)");
	assert_string_equal(line[1] + 25, "info conflicts in:\\nperf.conf");
	assert_string_equal(line[2] + 25, "error 1 tree could not be read");
	free(out);
}

static void say_verbose(void)
{
	fl_log_set_level(FL_LOG_VERBOSE);
	fl_verbose("detail");
	fl_log_set_level(FL_LOG_QUIET);
	fl_info("progress");
	fl_warn("still said");
	fl_log_set_level(FL_LOG_INFO);
}

static void test_log_levels(void **state)
{
	char *out = stderr_of(say_verbose);

	(void)state;
	assert_non_null(strstr(out, "Z debug detail\n"));
	assert_null(strstr(out, "progress"));
	assert_non_null(strstr(out, "Z warning still said\n"));
	free(out);
}

static void say_status(void)
{
	struct fl_log_repeat r = {0};

	for (int i = 0; i < 12; i++) /* a build's minutes: the same status */
		fl_info_changed(&r, 600000, "watch: %d jobs to do", 9);
	fl_info_changed(&r, 600000, "watch: %d jobs to do", 8); /* changed: said */
	fl_info_changed(&r, 0, "watch: %d jobs to do", 8);     /* due again: said */
	fl_info_reset(&r);
}

/* A status line is said when it changes or when it is due, not every time. */
static void test_log_changed(void **state)
{
	char *out = stderr_of(say_status);
	size_t lines = 0;

	(void)state;
	for (char *p = out; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 3);
	assert_non_null(strstr(out, "Z info watch: 9 jobs to do\n"));
	assert_non_null(strstr(out, "Z info watch: 8 jobs to do\n"));
	free(out);
}

/* The plurals of the log lines: 1 commit, 2 commits, 0 commits. */
static void test_plural(void **state)
{
	char b[64];

	(void)state;
	for (size_t n = 0; n < 3; n++) {
		snprintf(b, sizeof(b), "%zu commit%s left", n, FL_S(n));
		assert_string_equal(b, n == 0 ? "0 commits left" : n == 1 ? "1 commit left"
									  : "2 commits left");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_read_file),	    cmocka_unit_test(test_clocks),
	    cmocka_unit_test(test_cancel_signals),  cmocka_unit_test(test_cancel_wait),
	    cmocka_unit_test(test_log_one_message), cmocka_unit_test(test_log_levels),
	    cmocka_unit_test(test_plural),	    cmocka_unit_test(test_log_changed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
