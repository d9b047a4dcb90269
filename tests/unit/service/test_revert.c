/*
 * test_revert.c - the revert check's git part on a real repository: a
 * culprit that reverts cleanly on top of a later commit gives a commit with
 * the culprit's change undone and the later change kept, the same sha every
 * time, kept by a private ref while no branch or HEAD moves; a culprit
 * whose lines were changed again conflicts and the files are named; a
 * merge reverts against its first parent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/error.h"
#include "build/repo.h"
#include "service/revert.h"
#include "testlib.h"

static char dir[64];

#define GIT "cd %s/src && " FL_TEST_GIT

static void commit(const char *edit, const char *msg)
{
	assert_int_equal(fl_test_sh("cd %s/src && %s && " GIT "add -A && " GIT "commit -qm '%s'",
				    dir, edit, dir, dir, msg),
			 0);
}

static int setup(void **state)
{
	(void)state;
	if (fl_test_tmpdir(dir, sizeof(dir), "revert"))
		return -1;
	return fl_test_sh(
	    "mkdir %s/src && " GIT "init -q && printf '1\\n2\\n3\\n4\\n5\\n6\\n7\\n' > f && "
	    "echo x > other && " GIT "add -A && " GIT "commit -qm base && " GIT "tag base",
	    dir, dir, dir, dir, dir);
}

static int teardown(void **state)
{
	(void)state;
	return fl_test_rmtree(dir);
}

static void rev(const char *r, char sha[41])
{
	assert_int_equal(fl_test_out(sha, 41, "git -C %s/src rev-parse %s", dir, r), 0);
}

static void test_clean_and_conflict(void **state)
{
	char culprit[41], clean[41], later[41], sha[41], again[41], buf[256], head[41];
	char *conflicts;
	fl_repo *r;

	(void)state;
	commit("sed -i 's/^2$/two/' f", "mm: slow down line two");
	rev("HEAD", culprit);
	commit("sed -i 's/^6$/six/' f && echo y > other", "later work");
	rev("HEAD", clean);
	assert_int_equal(fl_test_sh("cd %s/src && git branch -q keep", dir), 0);
	commit("sed -i 's/^two$/TWO/' f", "touch line two again");
	rev("HEAD", later);
	assert_int_equal(fl_test_out(buf, sizeof(buf), "git -C %s/src rev-parse HEAD", dir), 0);
	memcpy(head, buf, 41);
	snprintf(buf, sizeof(buf), "%s/src", dir);
	assert_int_equal(fl_repo_open(&r, "t", buf), 0);

	assert_int_equal(
	    fl_revert_commit(r, culprit, clean, "refs/faultline/revert/1", sha, &conflicts), 0);
	assert_null(conflicts);
	assert_int_equal(
	    fl_test_out(buf, sizeof(buf), "git -C %s/src show %s:f | tr '\\n' ' '", dir, sha), 0);
	assert_string_equal(buf, "1 2 3 4 5 six 7 ");
	assert_int_equal(fl_test_out(buf, sizeof(buf), "git -C %s/src rev-parse %s^", dir, sha), 0);
	assert_string_equal(buf, clean);
	assert_int_equal(
	    fl_test_out(buf, sizeof(buf), "git -C %s/src log -1 --format=%%s %s", dir, sha), 0);
	assert_string_equal(buf, "Revert \"mm: slow down line two\"");
	assert_int_equal(fl_test_out(buf, sizeof(buf),
				     "git -C %s/src rev-parse "
				     "refs/faultline/revert/1",
				     dir),
			 0);
	assert_string_equal(buf, sha);
	/* made again after a crash: the very same commit */
	assert_int_equal(
	    fl_revert_commit(r, culprit, clean, "refs/faultline/revert/1", again, &conflicts), 0);
	assert_string_equal(again, sha);

	assert_int_equal(
	    fl_revert_commit(r, culprit, later, "refs/faultline/revert/2", sha, &conflicts), 1);
	assert_string_equal(conflicts, "f\n");
	free(conflicts);
	assert_int_equal(fl_test_sh("git -C %s/src rev-parse -q --verify refs/faultline/revert/2 "
				    ">/dev/null",
				    dir),
			 256); /* no ref for a revert that did not apply */

	assert_int_equal(fl_revert_commit(r, "0000000000000000000000000000000000000001", later,
					  "refs/faultline/revert/3", sha, &conflicts),
			 FL_ENOTFOUND);
	fl_repo_free(r);
	/* nothing of the user's moved */
	assert_int_equal(fl_test_out(buf, sizeof(buf), "git -C %s/src rev-parse HEAD", dir), 0);
	assert_string_equal(buf, head);
	assert_int_equal(
	    fl_test_out(buf, sizeof(buf), "git -C %s/src status --porcelain | wc -l", dir), 0);
	assert_string_equal(buf, "0");
}

static void test_merge(void **state)
{
	char merge[41], sha[41], buf[256], *conflicts;
	fl_repo *r;

	(void)state;
	assert_int_equal(
	    fl_test_sh("cd %s/src && git checkout -q -b side base && echo new > side "
		       "&& " GIT "add side && " GIT "commit -qm side && git checkout -q "
		       "master && " GIT "merge -q --no-ff -m 'Merge side' side && echo z "
		       "> other && " GIT "commit -qam after",
		       dir, dir, dir, dir, dir),
	    0);
	rev("HEAD~1", merge);
	snprintf(buf, sizeof(buf), "%s/src", dir);
	assert_int_equal(fl_repo_open(&r, "t", buf), 0);
	rev("HEAD", buf);
	assert_int_equal(
	    fl_revert_commit(r, merge, buf, "refs/faultline/revert/4", sha, &conflicts), 0);
	/* the side branch's file is gone, the later change stays */
	assert_int_not_equal(fl_test_sh("git -C %s/src cat-file -e %s:side 2>/dev/null", dir, sha),
			     0);
	assert_int_equal(fl_test_out(buf, sizeof(buf), "git -C %s/src show %s:other", dir, sha), 0);
	assert_string_equal(buf, "z");
	fl_repo_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_clean_and_conflict),
	    cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
