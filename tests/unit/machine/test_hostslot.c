/*
 * test_hostslot.c - guest slots per host: max_parallel holders at once,
 * across processes; a waiter waits (and stops when told to) rather than
 * failing; a dead holder frees its slot; admission counts the memory other
 * holders reserved, and a released slot reserves nothing.
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
#include <sys/wait.h>
#include <unistd.h>

#include "lib/error.h"
#include "machine/hostslot.h"
#include "testlib.h"

#define HOST "qemu:///system"
#define MiB  (1ULL << 20)

static char dir[64];
static int polls;

static int setup(void **state)
{
	(void)state;
	return fl_test_tmpdir(dir, sizeof(dir), "hostslot");
}

static int teardown(void **state)
{
	(void)state;
	return fl_test_rmtree(dir);
}

/* Stops a waiter after a few polls (about a second). */
static int stop_soon(void)
{
	return ++polls > 5;
}

static int fixed_memory(void *arg, uint64_t *avail)
{
	*avail = *(uint64_t *)arg;
	return 0;
}

static void test_max_parallel(void **state)
{
	fl_hostslot *a, *b, *c;

	(void)state;
	assert_int_equal(fl_hostslot_acquire(&a, dir, HOST, 2, "run 1", NULL), 0);
	assert_int_equal(fl_hostslot_acquire(&b, dir, HOST, 2, "run 2", NULL), 0);
	assert_int_not_equal(fl_hostslot_index(a), fl_hostslot_index(b));
	/* Both taken: the third waits until told to stop, holding nothing. */
	polls = 0;
	assert_int_equal(fl_hostslot_acquire(&c, dir, HOST, 2, "run 3", stop_soon), 1);
	assert_null(c);
	assert_true(polls > 5);
	/* Another host has its own slots. */
	assert_int_equal(fl_hostslot_acquire(&c, dir, "qemu+ssh://b/system", 1, "run 4", NULL), 0);
	fl_hostslot_release(c);
	fl_hostslot_release(a);
	assert_int_equal(fl_hostslot_acquire(&c, dir, HOST, 2, "run 3", stop_soon), 0);
	fl_hostslot_release(b);
	fl_hostslot_release(c);
}

static void test_across_processes_and_death(void **state)
{
	int ready[2], status;
	fl_hostslot *s;
	pid_t pid;
	char ch;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	if (pid == 0) {
		fl_hostslot *held;

		if (fl_hostslot_acquire(&held, dir, HOST, 1, "child", NULL))
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		pause(); /* killed holding the slot */
		_exit(0);
	}
	assert_int_equal(read(ready[0], &ch, 1), 1);
	polls = 0;
	assert_int_equal(fl_hostslot_acquire(&s, dir, HOST, 1, "parent", stop_soon), 1);
	/* The holder dies without releasing: the kernel drops its lock. */
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	polls = 0;
	assert_int_equal(fl_hostslot_acquire(&s, dir, HOST, 1, "parent", stop_soon), 0);
	fl_hostslot_release(s);
	close(ready[0]);
	close(ready[1]);
}

static void test_admission_by_memory(void **state)
{
	uint64_t avail = 2048 * MiB;
	fl_hostslot *a, *b;

	(void)state;
	assert_int_equal(fl_hostslot_acquire(&a, dir, HOST, 2, "run 1", NULL), 0);
	assert_int_equal(fl_hostslot_acquire(&b, dir, HOST, 2, "run 2", NULL), 0);
	assert_int_equal(fl_hostslot_admit(a, 1024 * MiB, fixed_memory, &avail, 60000, NULL), 0);
	/* 2048 available less 1024 reserved by run 1 cannot hold 1024 + overhead. */
	polls = 0;
	assert_int_equal(fl_hostslot_admit(b, 1024 * MiB, fixed_memory, &avail, 60000, stop_soon),
			 1);
	/* Nor can waiting forever: the wait has a bound. */
	assert_int_equal(fl_hostslot_admit(b, 1024 * MiB, fixed_memory, &avail, 300, NULL),
			 FL_ETIMEOUT);
	assert_non_null(strstr(fl_error_last(), "1024 MiB reserved by other guests"));
	/* A smaller guest fits beside it. */
	assert_int_equal(fl_hostslot_admit(b, 512 * MiB, fixed_memory, &avail, 60000, NULL), 0);
	fl_hostslot_release(b);
	fl_hostslot_release(a);
	/* Released slots reserve nothing: the next holder sees all of it. */
	assert_int_equal(fl_hostslot_acquire(&a, dir, HOST, 2, "run 3", NULL), 0);
	assert_int_equal(fl_hostslot_acquire(&b, dir, HOST, 2, "run 4", NULL), 0);
	assert_int_equal(fl_hostslot_admit(b, 1536 * MiB, fixed_memory, &avail, 60000, NULL), 0);
	fl_hostslot_release(a);
	fl_hostslot_release(b);
}

static int failing_memory(void *arg, uint64_t *avail)
{
	(void)arg;
	(void)avail;
	return fl_error_set(FL_EIO, "libvirt: gone");
}

static void test_memory_error_is_returned(void **state)
{
	fl_hostslot *a;

	(void)state;
	assert_int_equal(fl_hostslot_acquire(&a, dir, HOST, 1, "run 1", NULL), 0);
	assert_int_equal(fl_hostslot_admit(a, MiB, failing_memory, NULL, 60000, NULL), FL_EIO);
	assert_string_equal(fl_error_last(), "libvirt: gone");
	fl_hostslot_release(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_max_parallel),
		cmocka_unit_test(test_across_processes_and_death),
		cmocka_unit_test(test_admission_by_memory),
		cmocka_unit_test(test_memory_error_is_returned),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
