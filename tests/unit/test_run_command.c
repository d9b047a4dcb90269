/*
 * test_run_command.c - the process helper: exit codes, lines to the
 * callback and the log, environment and directory, a missing program, and
 * a timeout that kills the child's children too.
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

#include "error.h"
#include "run-command.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_env_dir),
		cmocka_unit_test(test_status_missing),
		cmocka_unit_test(test_timeout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
