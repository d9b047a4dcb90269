/*
 * test_repo.c - trees through libgit2 on real repositories the test makes
 * with git(1): revisions (annotated tags, short shas), tags in version
 * order, first-parent walks, commit metadata, the paths two commits'
 * trees differ in, bare clone and fetch, the repository a subdirectory is
 * in, and the error that names the tree and the revision.
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

__attribute__((format(printf, 1, 2))) static void sh(const char *fmt, ...)
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

/* The index of a node by its commit's subject. */
static size_t node_of(fl_repo *r, const struct fl_dag *g, const char *subject)
{
	struct fl_repo_commit c;

	for (size_t i = 0; i < g->n; i++) {
		int hit;

		assert_int_equal(fl_repo_commit(r, g->nodes[i].sha, &c), 0);
		hit = !strcmp(c.subject, subject);
		fl_repo_commit_release(&c);
		if (hit)
			return i;
	}
	fail_msg("no node '%s'", subject);
	return 0;
}

static void test_range(void **state)
{
	const char *goods[] = {"v6.1-rc2"}, *two[] = {"v6.1-rc1", "side"}, *bad[] = {"v6.1"};
	fl_repo *r = open_src();
	struct fl_dag g;
	size_t fourth, merge, side, second;

	(void)state;
	/* rc2..v6.1: the merge, fourth and the side work; rc2 (second) outside */
	assert_int_equal(fl_repo_range(r, "v6.1", goods, 1, &g), 0);
	assert_int_equal(g.n, 4);
	assert_int_equal(fl_dag_range_size(&g), 3);
	fourth = node_of(r, &g, "mm: fourth");
	merge = node_of(r, &g, "Merge side");
	side = node_of(r, &g, "side work");
	second = node_of(r, &g, "mm: second");
	assert_int_equal(g.bad, fourth);
	assert_true(g.nodes[second].outside && !g.nodes[side].outside);
	assert_int_equal(g.nodes[fourth].nparents, 1);
	assert_int_equal(g.nodes[fourth].parents[0], merge);
	assert_int_equal(g.nodes[merge].nparents, 2);
	assert_int_equal(g.nodes[merge].parents[0], second); /* first parent first */
	assert_int_equal(g.nodes[merge].parents[1], side);
	assert_int_equal(g.nodes[side].parents[0], second);
	fl_dag_release(&g);
	/* several goods, one off the first-parent line: what side reaches is out */
	assert_int_equal(fl_repo_range(r, "v6.1", two, 2, &g), 0);
	assert_int_equal(fl_dag_range_size(&g), 2); /* merge, fourth */
	assert_true(g.nodes[node_of(r, &g, "side work")].outside);
	assert_true(g.nodes[node_of(r, &g, "mm: second")].outside);
	fl_dag_release(&g);
	/* a good that is not an ancestor, an unknown one, bad itself */
	assert_int_equal(fl_repo_range(r, "v6.1-rc2", bad, 1, &g), FL_EINVAL);
	assert_string_equal(fl_error_last(),
			    "tree 'mainline': good 'v6.1' is not an ancestor of bad 'v6.1-rc2'");
	assert_int_equal(fl_repo_range(r, "v6.1", (const char *[]){"nope"}, 1, &g), FL_ENOTFOUND);
	assert_string_equal(fl_error_last(), "tree 'mainline': unknown revision 'nope'");
	assert_int_equal(fl_repo_range(r, "v6.1", bad, 1, &g), FL_EINVAL);
	fl_repo_free(r);
}

/*
 * A commit's place in the history: its first-parent line's length, what
 * git rev-list --first-parent --count says, whatever the commit times (all
 * of this history has one author date); the pages order commits by it.
 */
static void test_depth(void **state)
{
	static const char *const revs[] = {"v6.1-rc1", "v6.1-rc2", "side", "v6.1^", "v6.1"};
	static const int64_t want[] = {1, 2, 3, 3, 4};
	fl_repo *r = open_src();
	char cmd[256], out[32];
	int64_t depth;

	(void)state;
	for (size_t i = 0; i < sizeof(revs) / sizeof(revs[0]); i++) {
		assert_int_equal(fl_repo_depth(r, revs[i], &depth), 0);
		assert_int_equal(depth, want[i]);
		snprintf(cmd, sizeof(cmd), "git -C %s/src rev-list --first-parent --count '%s'", dir,
			 revs[i]);
		out_of(cmd, out, sizeof(out));
		assert_int_equal(depth, atoll(out));
	}
	assert_int_equal(fl_repo_depth(r, "nope", &depth), FL_ENOTFOUND);
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
	   dir, dir, dir);
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

/* The merge base of two branches is git merge-base's; of a commit and its
 * descendant, the commit; an unknown revision names the tree. */
static void test_merge_base(void **state)
{
	char path[128], base[41], want[64], buf[128];
	fl_repo *r;

	(void)state;
	snprintf(path, sizeof(path), "%s/src", dir);
	assert_int_equal(fl_repo_open(&r, "mainline", path), 0);
	snprintf(buf, sizeof(buf), "cd %.40s && git merge-base side v6.1", path);
	out_of(buf, want, sizeof(want));
	assert_int_equal(fl_repo_merge_base(r, "side", "v6.1", base), 0);
	assert_string_equal(base, want);
	assert_int_equal(fl_repo_merge_base(r, "v6.1", "side", base), 0);
	assert_string_equal(base, want);
	assert_int_equal(fl_repo_resolve(r, "v6.1-rc2", want), 0);
	assert_int_equal(fl_repo_merge_base(r, "v6.1-rc2", "v6.1", base), 0);
	assert_string_equal(base, want);
	snprintf(buf, sizeof(buf), "nosuch");
	assert_int_equal(fl_repo_merge_base(r, buf, "v6.1", base), FL_ENOTFOUND);
	assert_non_null(strstr(fl_error_last(), "tree 'mainline': unknown revision 'nosuch'"));
	fl_repo_free(r);
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

/* The repository a directory is in, found from a subdirectory of its work
 * tree as git finds it; a directory outside any repository is said so. */
static void test_discover(void **state)
{
	char path[128], sha[41];
	fl_repo *r;

	(void)state;
	sh("mkdir -p %s/src/sub/deeper %s/plain", dir, dir);
	snprintf(path, sizeof(path), "%s/src/sub/deeper", dir);
	assert_int_equal(fl_repo_discover(&r, path), 0);
	assert_string_equal(fl_repo_name(r), path);
	assert_int_equal(fl_repo_resolve(r, "v6.1", sha), 0);
	fl_repo_free(r);
	snprintf(path, sizeof(path), "%s/plain", dir);
	r = (fl_repo *)path;
	assert_int_equal(fl_repo_discover(&r, path), FL_ENOTFOUND);
	assert_null(r);
	assert_non_null(strstr(fl_error_last(), "plain is not a git repository"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_resolve),	  cmocka_unit_test(test_tags),
	    cmocka_unit_test(test_range),	  cmocka_unit_test(test_depth),
	    cmocka_unit_test(test_changed_paths), cmocka_unit_test(test_clone_fetch),
	    cmocka_unit_test(test_merge_base),	  cmocka_unit_test(test_open_tree),
	    cmocka_unit_test(test_discover),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
