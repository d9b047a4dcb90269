/*
 * test_checkout.c - a directory moved between commits of a real repository:
 * the first move writes every file (modes and symlinks as git has them),
 * the next writes only what differs and removes deleted files, untracked
 * files stay, a lost state file starts over from an empty directory, an
 * unknown commit is named, and the repository's own HEAD, index and work
 * tree are never touched. A first move of thousands of files (written by
 * several threads) gives the tree git archive gives. Blobs are not
 * re-hashed on the way (the repository is local and trusted; hashing
 * every blob was half of a Linux checkout's CPU): a loose object whose
 * content no longer matches its id is written as it is. A private git
 * worktree is git's own, moves, and goes without a trace.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include "build/checkout.h"
#include "lib/error.h"
#include "build/repo.h"
#include "testlib.h"

static char dir[64], c1[41], c2[41];

#define GIT "cd %s/src && " FL_TEST_GIT

static int setup(void **state)
{
	(void)state;
	if (fl_test_tmpdir(dir, sizeof(dir), "checkout"))
		return -1;
	if (fl_test_sh("mkdir -p %s/src/dir && " GIT "init -q && echo 1 > a.txt && echo b > "
		       "dir/b.txt && printf '#!/bin/sh\\n' > run.sh && chmod +x run.sh && ln -s "
		       "a.txt link && " GIT "add -A && " GIT "commit -qm one",
		       dir, dir, dir, dir) ||
	    fl_test_out(c1, sizeof(c1), "git -C %s/src rev-parse HEAD", dir) ||
	    fl_test_sh("cd %s/src && echo 2 > a.txt && git rm -q dir/b.txt && mkdir new && echo c "
		       "> new/c.txt && " GIT "add -A && " GIT "commit -qm two",
		       dir, dir, dir) ||
	    fl_test_out(c2, sizeof(c2), "git -C %s/src rev-parse HEAD", dir))
		return -1;
	/* the user's own state: a dirty work tree on the first commit */
	return fl_test_sh("cd %s/src && git checkout -q %s && echo mine > a.txt && echo u > "
			  "untracked",
			  dir, c1);
}

static int teardown(void **state)
{
	(void)state;
	return fl_test_rmtree(dir);
}

static void read_file(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	buf[fread(buf, 1, n - 1, f)] = '\0';
	fclose(f);
}

static void test_moves(void **state)
{
	char src[128], co[128], st[128], p[256], buf[64], before[256], after[256];
	unsigned written;
	struct stat sb;
	fl_repo *r;

	(void)state;
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(co, sizeof(co), "%s/co/src", dir);
	snprintf(st, sizeof(st), "%s/co/HEAD", dir);
	fl_test_out(before, sizeof(before),
		    "cd %s && echo $(git status --porcelain | md5sum) $(git rev-parse HEAD)", src);
	assert_int_equal(fl_repo_open(&r, "t", src), 0);

	assert_int_equal(fl_checkout(r, co, st, c1, &written), 0);
	assert_int_equal(written, 4);
	snprintf(p, sizeof(p), "%s/a.txt", co);
	read_file(p, buf, sizeof(buf));
	assert_string_equal(buf, "1\n");
	snprintf(p, sizeof(p), "%s/run.sh", co);
	assert_int_equal(stat(p, &sb), 0);
	assert_true(sb.st_mode & S_IXUSR);
	snprintf(p, sizeof(p), "%s/link", co);
	assert_int_equal(readlink(p, buf, sizeof(buf)), 5);
	assert_memory_equal(buf, "a.txt", 5);
	read_file(st, buf, sizeof(buf));
	assert_memory_equal(buf, c1, 40);

	/* an untracked file (a build output) survives the moves */
	assert_int_equal(fl_test_sh("echo x > %s/output", co), 0);
	assert_int_equal(fl_checkout(r, co, st, c2, &written), 0);
	assert_int_equal(written, 3); /* a.txt changed, dir/b.txt removed, new/c.txt added */
	snprintf(p, sizeof(p), "%s/dir/b.txt", co);
	assert_int_equal(access(p, F_OK), -1);
	snprintf(p, sizeof(p), "%s/new/c.txt", co);
	read_file(p, buf, sizeof(buf));
	assert_string_equal(buf, "c\n");
	snprintf(p, sizeof(p), "%s/output", co);
	assert_int_equal(access(p, F_OK), 0);

	/* the same commit again writes nothing */
	assert_int_equal(fl_checkout(r, co, st, c2, &written), 0);
	assert_int_equal(written, 0);

	/* an interrupted move (no state) starts from an empty directory */
	unlink(st);
	assert_int_equal(fl_checkout(r, co, st, c1, &written), 0);
	assert_int_equal(written, 4);
	assert_int_equal(access(p, F_OK), -1);

	assert_int_equal(
	    fl_checkout(r, co, st, "0123456789012345678901234567890123456789", &written),
	    FL_ENOTFOUND);
	assert_non_null(strstr(fl_error_last(), "0123456789012345678901234567890123456789"));
	fl_repo_free(r);

	fl_test_out(after, sizeof(after),
		    "cd %s && echo $(git status --porcelain | md5sum) $(git rev-parse HEAD)", src);
	assert_string_equal(before, after);
	snprintf(p, sizeof(p), "%s/a.txt", src);
	read_file(p, buf, sizeof(buf));
	assert_string_equal(buf, "mine\n");
}

/* 3000 files in nested directories, an executable and a symlink among them. */
static void test_first_move_in_shares(void **state)
{
	char big[128], co[128], st[128], sha[41], p[256];
	unsigned written;
	struct stat sb;
	fl_repo *r;

	(void)state;
	snprintf(big, sizeof(big), "%s/big", dir);
	snprintf(co, sizeof(co), "%s/co-big/src", dir);
	snprintf(st, sizeof(st), "%s/co-big/HEAD", dir);
	assert_int_equal(
	    fl_test_sh("mkdir -p %s && cd %s && for d in $(seq 30); do "
		       "mkdir -p d$d/sub; for f in $(seq 50); do echo $d.$f > d$d/f$f; "
		       "echo $f > d$d/sub/g$f; done; done && printf '#!/bin/sh\n' > "
		       "d7/sub/run && chmod +x d7/sub/run && ln -s ../d1/f1 d30/link && "
		       "git init -q && git add -A && " FL_TEST_GIT "commit -qm big",
		       big, big),
	    0);
	assert_int_equal(fl_test_out(sha, sizeof(sha), "git -C %s rev-parse HEAD", big), 0);
	assert_int_equal(fl_repo_open(&r, "big", big), 0);
	assert_int_equal(fl_checkout(r, co, st, sha, &written), 0);
	fl_repo_free(r);
	assert_int_equal(written, 3002);
	snprintf(p, sizeof(p), "%s/d7/sub/run", co);
	assert_int_equal(stat(p, &sb), 0);
	assert_true(sb.st_mode & S_IXUSR);
	assert_int_equal(fl_test_sh("mkdir %s/ref && git -C %s archive HEAD | tar -x -C %s/ref && "
				    "diff -r --no-dereference %s/ref %s",
				    dir, big, dir, dir, co),
			 0);
}

/*
 * A commit whose blob "a" (content "1") is stored as the loose object of
 * another blob of the same size ("2"): with libgit2's strict hash
 * verification (its default) reading it fails with "object hash
 * mismatch"; faultline turns the verification off, so the checkout
 * succeeds and writes what the object store holds.
 */
static void test_blobs_not_rehashed(void **state)
{
	char src[128], co[128], st[128], sha[41], p[256], buf[16];
	unsigned written;
	fl_repo *r;

	(void)state;
	snprintf(src, sizeof(src), "%s/corrupt", dir);
	snprintf(co, sizeof(co), "%s/co-corrupt/src", dir);
	snprintf(st, sizeof(st), "%s/co-corrupt/HEAD", dir);
	assert_int_equal(
	    fl_test_sh("mkdir -p %s && cd %s && git init -q && echo 1 > a && " FL_TEST_GIT
		       "add a && " FL_TEST_GIT "commit -qm one && "
		       "a=$(git rev-parse HEAD:a) && b=$(echo 2 | git hash-object -w --stdin) && "
		       "o=.git/objects && chmod u+w $o/${a%%${a#??}}/${a#??} && "
		       "cp $o/${b%%${b#??}}/${b#??} $o/${a%%${a#??}}/${a#??} && "
		       "test \"$(git cat-file blob $a)\" = 2",
		       src, src),
	    0);
	assert_int_equal(fl_test_out(sha, sizeof(sha), "git -C %s rev-parse HEAD", src), 0);
	assert_int_equal(fl_repo_open(&r, "corrupt", src), 0);
	assert_int_equal(fl_checkout(r, co, st, sha, &written), 0);
	fl_repo_free(r);
	assert_int_equal(written, 1);
	snprintf(p, sizeof(p), "%s/a", co);
	read_file(p, buf, sizeof(buf));
	assert_string_equal(buf, "2\n");
}

/* A private worktree: git's own (a .git, HEAD detached at the commit),
 * moved by checkout, removed with git's record of it by free; the
 * repository's HEAD, index and dirty work tree stay as they were. */
static void test_worktree(void **state)
{
	char src[128], p[256], buf[64], head[41];
	fl_worktree *wt;
	fl_repo *r;

	(void)state;
	snprintf(src, sizeof(src), "%s/src", dir);
	assert_int_equal(fl_repo_open(&r, "src", src), 0);
	assert_int_equal(fl_worktree_add(&wt, r, c2), 0);
	snprintf(p, sizeof(p), "%s/a.txt", fl_worktree_dir(wt));
	read_file(p, buf, sizeof(buf));
	assert_string_equal(buf, "2\n");
	assert_int_equal(
	    fl_test_out(head, sizeof(head), "git -C %s rev-parse HEAD", fl_worktree_dir(wt)), 0);
	assert_string_equal(head, c2);
	assert_int_equal(fl_worktree_checkout(wt, c1), 0);
	read_file(p, buf, sizeof(buf));
	assert_string_equal(buf, "1\n");
	assert_int_equal(fl_worktree_checkout(wt, c1), 0);
	assert_int_equal(
	    fl_test_out(head, sizeof(head), "git -C %s rev-parse HEAD", fl_worktree_dir(wt)), 0);
	assert_string_equal(head, c1);
	assert_int_equal(fl_worktree_checkout(wt, "0123456789012345678901234567890123456789"),
			 FL_EIO);
	assert_non_null(strstr(fl_error_last(), "cannot check out 012345678901"));
	snprintf(p, sizeof(p), "%s", fl_worktree_dir(wt));
	fl_worktree_free(wt);
	assert_int_equal(access(p, F_OK), -1);
	assert_int_equal(fl_test_sh("test \"$(git -C %s worktree list | wc -l)\" = 1", src), 0);
	/* the user's own state is untouched */
	snprintf(p, sizeof(p), "%s/a.txt", src);
	read_file(p, buf, sizeof(buf));
	assert_string_equal(buf, "mine\n");
	assert_int_equal(fl_test_out(head, sizeof(head), "git -C %s rev-parse HEAD", src), 0);
	assert_string_equal(head, c1);
	fl_repo_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_moves),
	    cmocka_unit_test(test_first_move_in_shares),
	    cmocka_unit_test(test_blobs_not_rehashed),
	    cmocka_unit_test(test_worktree),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
