/*
 * test_run_command.c - the process helper: exit codes, lines to the
 * callback and the log, environment and directory, a missing program, a
 * timeout that kills the child's children too, standard error kept apart
 * or dropped, standard input from /dev/null, and cancelling.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/run-command.h"

struct lines {
	int n;
	char last[256];
};

static void count(void *data, const char *line)
{
	struct lines *l = data;

	l->n++;
	snprintf(l->last, sizeof(l->last), "%s", line);
}

/* The child's environment: the additions replace a variable of the same
 * name (and only that one), the rest is this process's, which stays as it was. */
static void test_env_replaces(void **state)
{
	const char *argv[] = {"sh", "-c", "echo \"$FL_Y $FL_YZ $FL_W\"", NULL};
	const char *env[] = {"FL_Y=new", NULL};
	struct lines l = {0};
	struct fl_child c = {.argv = argv, .env = env, .on_line = count, .data = &l};
	int status;

	(void)state;
	setenv("FL_Y", "old", 1);
	setenv("FL_YZ", "kept", 1);
	setenv("FL_W", "mine", 1);
	assert_int_equal(fl_run_command(&c, &status), 0);
	assert_int_equal(status, 0);
	assert_string_equal(l.last, "new kept mine");
	assert_string_equal(getenv("FL_Y"), "old");
}

static void test_lines_env_dir(void **state)
{
	const char *argv[] = {"sh", "-c", "echo one; echo \"$FL_X\" >&2; printf \"$(pwd)\"", NULL};
	const char *env[] = {"FL_X=two", NULL};
	char log[] = "/tmp/fl-test-run-XXXXXX", buf[256] = "";
	struct lines l = {0};
	struct fl_child c = {.argv = argv, .env = env, .dir = "/tmp", .on_line = count,
			     .data = &l};
	int status, fd = mkstemp(log);
	FILE *f;

	(void)state;
	close(fd);
	c.out_path = log;
	assert_int_equal(fl_run_command(&c, &status), 0);
	assert_int_equal(status, 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.last, "/tmp");
	f = fopen(log, "r");
	assert_int_equal(fread(buf, 1, sizeof(buf) - 1, f), strlen("one\ntwo\n/tmp"));
	fclose(f);
	assert_string_equal(buf, "one\ntwo\n/tmp");
	unlink(log);
}

static void test_status_missing(void **state)
{
	const char *fail[] = {"sh", "-c", "exit 3", NULL};
	const char *none[] = {"fl-no-such-program", NULL};
	struct fl_child c = {.argv = fail};
	char *line;
	int status;

	(void)state;
	assert_int_equal(fl_run_command(&c, &status), 0);
	assert_int_equal(status, 3);
	c.argv = none;
	assert_int_equal(fl_run_command(&c, &status), FL_ENOTFOUND);
	assert_non_null(strstr(fl_error_last(), "cannot run 'fl-no-such-program'"));
	assert_false(fl_which("fl-no-such-program"));
	assert_true(fl_which("sh"));
	assert_int_equal(fl_run_capture_line((const char *[]){"echo", "hello", NULL}, &line), 0);
	assert_string_equal(line, "hello");
	free(line);
	/* fl_run_checked: a failure names the program, its status and what it said */
	assert_int_equal(fl_run_checked((const char *[]){"true", NULL}), 0);
	fail[2] = "echo no room >&2; exit 3";
	assert_int_equal(fl_run_checked(fail), FL_EIO);
	assert_string_equal(fl_error_last(), "'sh' failed (exit 3): no room");
	line = fl_which_path("sh");
	assert_non_null(line);
	assert_non_null(strstr(line, "/sh"));
	free(line);
}

static void test_timeout(void **state)
{
	/* The grandchild holds the pipe open: only killing the group ends it. */
	const char *argv[] = {"sh", "-c", "sleep 30 & sleep 30", NULL};
	struct fl_child c = {.argv = argv, .timeout_ms = 300};
	int status;

	(void)state;
	assert_int_equal(fl_run_command(&c, &status), FL_ETIMEOUT);
	assert_non_null(strstr(fl_error_last(), "timed out after 300 ms"));
}

/* Standard error to nowhere or to ours, standard input from /dev/null. */
static void test_stderr_stdin(void **state)
{
	const char *argv[] = {"sh", "-c", "echo out; echo err >&2; cat; echo done", NULL};
	struct lines l = {0};
	struct fl_child c = {.argv = argv, .on_line = count, .data = &l, .err = FL_ERR_NULL};
	char path[] = "/tmp/fl-test-err-XXXXXX", buf[64] = "";
	int status, fd = mkstemp(path), saved = dup(2);
	FILE *f;

	(void)state;
	assert_int_equal(fl_run_command(&c, &status), 0);
	assert_int_equal(l.n, 2); /* out, done: no err, and cat read nothing */
	assert_string_equal(l.last, "done");
	/* FL_ERR_OURS: the child writes to our fd 2, here a file */
	l = (struct lines){0};
	c.err = FL_ERR_OURS;
	dup2(fd, 2);
	assert_int_equal(fl_run_command(&c, &status), 0);
	dup2(saved, 2);
	close(saved);
	assert_int_equal(l.n, 2);
	f = fopen(path, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	close(fd);
	unlink(path);
	assert_string_equal(buf, "err\n");
}

static int always(void)
{
	return 1;
}

/* A cancel that says stop ends the child's whole group long before it would end. */
static void test_cancel(void **state)
{
	const char *argv[] = {"sh", "-c", "sleep 30 & sleep 30", NULL};
	struct fl_child c = {.argv = argv, .cancel = always};
	time_t t0 = time(NULL);
	int status;

	(void)state;
	assert_int_equal(fl_run_command(&c, &status), 0);
	assert_int_equal(status, 128 + SIGTERM);
	assert_true(time(NULL) - t0 < 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_env_dir),
		cmocka_unit_test(test_env_replaces),
		cmocka_unit_test(test_status_missing),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_stderr_stdin),
		cmocka_unit_test(test_cancel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
