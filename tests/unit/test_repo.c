/*
 * test_repo.c - trees through libgit2 on real repositories the test makes
 * with git(1): revisions (annotated tags, short shas), tags in version
 * order, first-parent walks, commit metadata, the paths two commits'
 * trees differ in, bare clone and fetch, and the error that names the tree
 * and the revision.
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

#include "lib/error.h"
#include "build/repo.h"

static char dir[64];

static void sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

#define GIT "cd %s/src && GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL=a@u.th " \
	    "GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@o.m GIT_AUTHOR_DATE='1700000000 +0000' " \
	    "git -c init.defaultBranch=master -c tag.gpgSign=false "

/*
 * master: c1 (v6.1-rc1, annotated) - c2 (v6.1-rc2) - merge of side - c4 (v6.1),
 * plus tags v6.10 and v5.19 to check numeric order.
 */
static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/fl-test-repo-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	sh("mkdir %s/src && " GIT "init -q", dir, dir);
	sh(GIT "commit -q --allow-empty -m 'mm: first' && " GIT "tag -a -m rc1 v6.1-rc1", dir,
	   dir);
	sh(GIT "commit -q --allow-empty -m 'mm: second' && " GIT "tag v6.1-rc2 && " GIT "tag v5.19",
	   dir, dir, dir);
	sh(GIT "checkout -q -b side && " GIT "commit -q --allow-empty -m 'side work' && " GIT
	       "checkout -q master",
	   dir, dir, dir);
	sh(GIT "merge -q --no-ff -m 'Merge side' side && " GIT
	       "commit -q --allow-empty -m 'mm: fourth' && " GIT "tag -a -m rel v6.1 && " GIT
	       "tag v6.10",
	   dir, dir, dir, dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf '%s'", dir);
	return 0;
}

static void out_of(const char *cmd, char *buf, size_t len)
{
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	assert_non_null(fgets(buf, (int)len, p));
	buf[strcspn(buf, "\n")] = '\0';
	pclose(p);
}

static fl_repo *open_src(void)
{
	char path[128];
	fl_repo *r;

	snprintf(path, sizeof(path), "%s/src", dir);
	assert_int_equal(fl_repo_open(&r, "mainline", path), 0);
	return r;
}

static void test_resolve(void **state)
{
	char want[64], cmd[256], sha[41], shortsha[8];
	fl_repo *r = open_src();

	(void)state;
	snprintf(cmd, sizeof(cmd), "git -C %s/src rev-parse v6.1-rc1^{commit}", dir);
	out_of(cmd, want, sizeof(want));
	assert_int_equal(fl_repo_resolve(r, "v6.1-rc1", sha), 0);
	assert_string_equal(sha, want);
	memcpy(shortsha, want, 7);
	shortsha[7] = '\0';
	memset(sha, 0, sizeof(sha));
	assert_int_equal(fl_repo_resolve(r, shortsha, sha), 0);
	assert_string_equal(sha, want);
	assert_int_equal(fl_repo_resolve(r, "v6.1-rc9", sha), FL_ENOTFOUND);
	assert_string_equal(fl_error_last(), "tree 'mainline': unknown revision 'v6.1-rc9'");
	fl_repo_free(r);
}

static void test_tags(void **state)
{
	fl_repo *r = open_src();
	char **tags;
	size_t n;

	(void)state;
	assert_int_equal(fl_repo_tags(r, "v6.*", &tags, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(tags[0], "v6.1-rc1");
	assert_string_equal(tags[1], "v6.1-rc2");
	assert_string_equal(tags[2], "v6.1");
	assert_string_equal(tags[3], "v6.10");
	fl_repo_strv_free(tags, n);
	assert_true(fl_repo_version_cmp("v5.19", "v6.1-rc1") < 0);
	assert_true(fl_repo_version_cmp("v6.1-rc10", "v6.1-rc2") > 0);
	assert_int_equal(fl_repo_version_cmp("v6.1", "v6.1"), 0);
	fl_repo_free(r);
}

static void test_first_parents(void **state)
{
	struct fl_repo_commit c;
	fl_repo *r = open_src();
	char **shas;
	size_t n;

	(void)state;
	/* rc2 .. v6.1 on the first-parent line: the merge and fourth, not side work */
	assert_int_equal(fl_repo_first_parents(r, "v6.1-rc2", "v6.1", &shas, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(fl_repo_commit(r, shas[0], &c), 0);
	assert_string_equal(c.subject, "Merge side");
	fl_repo_commit_release(&c);
	assert_int_equal(fl_repo_commit(r, shas[1], &c), 0);
	assert_string_equal(c.subject, "mm: fourth");
	assert_string_equal(c.author, "A U Thor <a@u.th>");
	assert_int_equal(c.time, 1700000000);
	fl_repo_commit_release(&c);
	fl_repo_strv_free(shas, n);
	assert_int_equal(fl_repo_first_parents(r, "nope", "v6.1", &shas, &n), FL_ENOTFOUND);
	assert_string_equal(fl_error_last(), "tree 'mainline': unknown revision 'nope'");
	fl_repo_free(r);
}

/* Added, changed and removed files between two commits, nothing for the same one. */
static void test_changed_paths(void **state)
{
	char cmd[256], one[64], two[64];
	fl_repo *r = open_src();
	char **paths;
	size_t n;

	(void)state;
	sh(GIT "checkout -q -b files && mkdir -p d && echo a > a.txt && echo k > d/Kconfig && "
	       "echo b > d/b.c && " GIT "add -A && " GIT "commit -q -m one",
	   dir, dir, dir, dir);
	snprintf(cmd, sizeof(cmd), "git -C %s/src rev-parse HEAD", dir);
	out_of(cmd, one, sizeof(one));
	sh(GIT "rm -q a.txt && echo c > d/b.c && mkdir e && echo n > e/new.c && " GIT
	       "add -A && " GIT "commit -q -m two && " GIT "checkout -q master",
	   dir, dir, dir, dir);
	snprintf(cmd, sizeof(cmd), "git -C %s/src rev-parse files", dir);
	out_of(cmd, two, sizeof(two));
	assert_int_equal(fl_repo_changed_paths(r, one, two, &paths, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(paths[0], "a.txt");
	assert_string_equal(paths[1], "d/b.c");
	assert_string_equal(paths[2], "e/new.c");
	fl_repo_strv_free(paths, n);
	assert_int_equal(fl_repo_changed_paths(r, two, two, &paths, &n), 0);
	assert_int_equal(n, 0);
	fl_repo_strv_free(paths, n);
	memset(one, '0', 40);
	assert_int_equal(fl_repo_changed_paths(r, one, two, &paths, &n), FL_ENOTFOUND);
	assert_non_null(strstr(fl_error_last(), "tree 'mainline': no commit 0000000000"));
	fl_repo_free(r);
}

static void test_clone_fetch(void **state)
{
	char url[128], var[128], sha[41];
	fl_repo *r;

	(void)state;
	snprintf(url, sizeof(url), "%s/src", dir);
	snprintf(var, sizeof(var), "%s/var", dir);
	assert_int_equal(fl_repo_clone(&r, "mainline", url, var), 0);
	assert_int_equal(fl_repo_resolve(r, "v6.1", sha), 0);
	assert_int_equal(fl_repo_resolve(r, "v6.2-rc1", sha), FL_ENOTFOUND);
	fl_repo_free(r);
	sh(GIT "commit -q --allow-empty -m 'next' && " GIT "tag v6.2-rc1", dir, dir);
	/* The second time opens the clone; fetch brings the new tag. */
	assert_int_equal(fl_repo_clone(&r, "mainline", url, var), 0);
	assert_int_equal(fl_repo_fetch(r), 0);
	assert_int_equal(fl_repo_resolve(r, "v6.2-rc1", sha), 0);
	fl_repo_free(r);
	assert_int_equal(access("/nonexistent", F_OK), -1);
	assert_int_equal(fl_repo_open(&r, "x", "/nonexistent/repo"), FL_ENOTFOUND);
	assert_non_null(strstr(fl_error_last(), "tree 'x'"));
}

/* A directory is used in place; a URL is cloned into var/trees and fetched. */
static void test_open_tree(void **state)
{
	char path[128], url[160], var[128], trees[160], sha[41];
	fl_repo *r;

	(void)state;
	snprintf(path, sizeof(path), "%s/src", dir);
	snprintf(url, sizeof(url), "file://%s/src", dir);
	snprintf(var, sizeof(var), "%s/var-open", dir);
	snprintf(trees, sizeof(trees), "%s/trees/mainline", var);
	assert_int_equal(fl_repo_open_current(&r, "mainline", path, var), 0);
	assert_int_equal(fl_repo_resolve(r, "v6.1", sha), 0);
	fl_repo_free(r);
	assert_int_equal(access(trees, F_OK), -1);
	assert_int_equal(fl_repo_open_current(&r, "mainline", url, var), 0);
	assert_int_equal(access(trees, F_OK), 0);
	assert_int_equal(fl_repo_resolve(r, "v6.1", sha), 0);
	fl_repo_free(r);
	snprintf(url, sizeof(url), "file://%s/nothing-here", dir);
	r = (fl_repo *)url;
	assert_true(fl_repo_open_current(&r, "other", url, var) < 0);
	assert_null(r);
	assert_non_null(strstr(fl_error_last(), "other"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_resolve),	  cmocka_unit_test(test_tags),
	    cmocka_unit_test(test_first_parents), cmocka_unit_test(test_changed_paths),
	    cmocka_unit_test(test_clone_fetch),	  cmocka_unit_test(test_open_tree),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
