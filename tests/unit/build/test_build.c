/*
 * test_build.c - the builder on a small synthetic kernel tree
 * (data/fake-kernel, whose Makefile takes the kbuild targets the builder
 * uses): a slot move writes only changed files and make rebuilds only
 * their objects and keeps the .config when no kconfig input changed, a
 * second request is a cache hit, a commit that does not compile is
 * classified build-failed, a fragment option that does not survive
 * olddefconfig is reported (also when a Kconfig change makes it so), the
 * size cap evicts the LRU artifact but not one used within the hour, make
 * runs with ccache in depend mode unless the environment says otherwise,
 * two threads building one commit at once compile it once, a return to a
 * commit near an earlier one is built in that one's object tree and
 * rebuilds only what differs from it (and every image, whatever the trees'
 * history, is a clean build's).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/build.h"
#include "config/config.h"
#include "lib/error.h"
#include "build/repo.h"
#include "lib/run-command.h"
#include "store/store.h"
#include "testlib.h"

static char dir[64];
static char sha[5][41]; /* good, b.c changed, broken, a.c changed, Kconfig without PRINTK */
static struct fl_config *cfg;
static fl_repo *repo;
static fl_store *store;
static char first[512]; /* the artifact of the first build (sha[0], ok) */

__attribute__((format(printf, 1, 2))) static void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

#define GIT "cd %s/src && GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=A " \
	    "GIT_COMMITTER_EMAIL=a@b git -c init.defaultBranch=master "

static void commit(int i, const char *edit)
{
	char rev[8];

	sh("cd %s/src && %s && " GIT "add -A >/dev/null && " GIT "commit -q -m c%d", dir, edit,
	   dir, dir, i);
	snprintf(rev, sizeof(rev), "HEAD");
	assert_int_equal(fl_repo_resolve(repo, rev, sha[i]), 0);
}

static int setup(void **state)
{
	char path[256];
	FILE *f;

	(void)state;
	unsetenv("CCACHE_DIR");
	unsetenv("CCACHE_DEPEND");
	unsetenv("CCACHE_NODEPEND");
	snprintf(dir, sizeof(dir), "/tmp/fl-test-build-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	sh("cp -a %s/fake-kernel %s/src && " GIT "init -q", FL_TEST_DATA, dir, dir);
	sh("printf 'CONFIG_SMP=y\\nCONFIG_PRINTK=y\\n' > %s/ok.config", dir);
	sh("printf 'CONFIG_SMP=y\\nCONFIG_NUMA=y\\n' > %s/numa.config", dir);
	sh("printf 'CONFIG_SMP=y\\n# object trees\\n' > %s/trees.config", dir);
	snprintf(path, sizeof(path), "%s/fl.yaml", dir);
	f = fopen(path, "w");
	fprintf(f, "var: %s/var\n"
		   "trees:\n  - { name: fake, url: %s/src }\n"
		   "kernels:\n"
		   "  - { name: ok, base: tinyconfig, fragments: [%s/ok.config] }\n"
		   "  - { name: numa, base: tinyconfig, fragments: [%s/numa.config] }\n"
		   "  - { name: numa-warn, base: tinyconfig, fragments: [%s/numa.config],\n"
		   "      missing_option: warning }\n"
		   "  - { name: trees, base: tinyconfig, fragments: [%s/trees.config] }\n"
		   "build: { slots: 1, timeout: 1m, cache_size: 10M }\n",
		dir, dir, dir, dir, dir, dir);
	fclose(f);
	if (fl_config_load(&cfg, path)) {
		fprintf(stderr, "%s\n", fl_error_last());
		return -1;
	}
	snprintf(path, sizeof(path), "%s/src", dir);
	if (fl_repo_open(&repo, "fake", path) || fl_store_open(&store, fl_test_store(cfg->store.path), 0))
		return -1;
	commit(0, "true");
	commit(1, "sed -i 's/2/3/' b.c");
	commit(2, "echo 'int broken(void) { return }' > c.c");
	sh("cd %s/src && " GIT "reset -q --hard HEAD~1", dir, dir);
	commit(3, "sed -i 's/1/4/' a.c");
	commit(4, "sed -i '/PRINTK/d' Kconfig.known");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fl_store_free(store);
	fl_repo_free(repo);
	fl_config_free(cfg);
	sh("rm -rf '%s'", dir);
	return 0;
}

static int build(const char *rev, const char *kernel, struct fl_build_result *res)
{
	struct fl_build_req req = {cfg, repo, NULL, rev, fl_config_kernel(cfg, kernel), store};

	return fl_build(&req, res);
}

static time_t mtime(const char *file)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/var/slots/0/src/%s", dir, file);
	assert_int_equal(stat(path, &st), 0);
	return st.st_mtime;
}

static void test_slot_reuse_and_cache(void **state)
{
	struct fl_build_result res;
	char path[512];
	time_t a;

	(void)state;
	assert_int_equal(build(sha[0], "ok", &res), 0);
	assert_false(res.failed);
	assert_false(res.cached);
	assert_false(res.kconfig_kept);
	assert_int_equal(res.objects, 2);
	snprintf(path, sizeof(path), "%s/bzImage", res.artifact);
	assert_int_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/config", res.artifact);
	assert_int_equal(access(path, F_OK), 0);
	snprintf(first, sizeof(first), "%s", res.artifact);
	fl_build_result_release(&res);
	a = mtime("a.c");
	sleep(1); /* make compares whole seconds on some file systems */

	assert_int_equal(build(sha[1], "ok", &res), 0);
	assert_false(res.cached);
	assert_int_equal(res.files_written, 1);
	assert_int_equal(res.objects, 1);
	assert_true(res.kconfig_kept); /* b.c is no kconfig input */
	assert_int_equal(mtime("a.c"), a);
	fl_build_result_release(&res);

	assert_int_equal(build(sha[0], "ok", &res), 0);
	assert_true(res.cached);
	assert_int_equal(res.objects, 0);
	fl_build_result_release(&res);
}

static void test_failing_commit(void **state)
{
	struct fl_build_result res;

	(void)state;
	assert_int_equal(build(sha[2], "ok", &res), 0);
	assert_true(res.failed);
	assert_null(res.artifact);
	assert_non_null(strstr(res.error, "c.c:1:"));
	assert_non_null(strstr(res.error, "error:"));
	fl_build_result_release(&res);
	/* Recorded: the second request does not build it again. */
	assert_int_equal(build(sha[2], "ok", &res), 0);
	assert_true(res.failed);
	assert_true(res.cached);
	fl_build_result_release(&res);
}

static void test_lost_option(void **state)
{
	struct fl_build_result res;

	(void)state;
	assert_int_equal(build(sha[0], "numa", &res), FL_EINVAL);
	assert_non_null(strstr(fl_error_last(), "CONFIG_NUMA=y requested, got 'is not set'"));
	assert_non_null(strstr(fl_error_last(), "fl.yaml:"));
	fl_build_result_release(&res);
	assert_int_equal(build(sha[0], "numa-warn", &res), 0);
	assert_false(res.failed);
	assert_non_null(res.artifact);
	fl_build_result_release(&res);
}

/* A Kconfig change runs the kconfig steps again: PRINTK is gone, so is the option. */
static void test_kconfig_input_changed(void **state)
{
	struct fl_build_result res;

	(void)state;
	assert_int_equal(build(sha[4], "ok", &res), FL_EINVAL);
	assert_false(res.kconfig_kept);
	assert_non_null(strstr(fl_error_last(), "CONFIG_PRINTK=y requested, got 'is not set'"));
	fl_build_result_release(&res);
}

/*
 * Past the cap the least recently used go, but not one used within the
 * hour (another worker may be booting it): the cap waits for it.
 */
static void test_eviction(void **state)
{
	struct fl_build_result res, old, again;
	uint64_t cap = cfg->build.cache_size;

	(void)state;
	assert_int_equal(build(sha[1], "ok", &old), 0);
	assert_true(old.cached);
	sh("touch -d '2 hours ago' %s/var/artifacts/* && touch %s", dir, old.artifact);
	cfg->build.cache_size = 1; /* keeps only the newest, and what is in use */
	assert_int_equal(build(sha[3], "ok", &res), 0);
	assert_false(res.cached);
	/* the failed kconfig run before left no stamp: it runs again */
	assert_false(res.kconfig_kept);
	assert_int_equal(access(res.artifact, F_OK), 0);
	assert_int_equal(access(first, F_OK), -1); /* the least recently used */
	assert_int_equal(access(old.artifact, F_OK), 0); /* used just now: kept */

	sh("touch -d '2 hours ago' %s", old.artifact);
	assert_int_equal(build(sha[0], "ok", &again), 0);
	assert_false(again.cached); /* evicted above */
	assert_int_equal(access(old.artifact, F_OK), -1);
	assert_int_equal(access(res.artifact, F_OK), 0); /* built a moment ago */
	fl_build_result_release(&again);
	fl_build_result_release(&res);
	fl_build_result_release(&old);
	cfg->build.cache_size = cap;
	/* Evicted: built again, in the same slot. */
	assert_int_equal(build(sha[1], "ok", &res), 0);
	assert_false(res.cached);
	assert_non_null(res.artifact);
	fl_build_result_release(&res);
}

/*
 * The CCACHE_* settings and CC the fake kernel's last make of the config
 * ran with (its ccache.env).
 */
static char *ccache_env(const char *config_hash)
{
	char path[512], last[512] = "", *text = malloc(4096);
	struct timespec newest = {0};
	struct stat st;
	FILE *f;
	size_t n;

	for (int k = 0; k < 16; k++) { /* the object tree the build used: the newest file */
		snprintf(path, sizeof(path), "%s/var/slots/0/obj-%s-%d/ccache.env", dir,
			 config_hash, k);
		if (!stat(path, &st) && (st.st_mtim.tv_sec > newest.tv_sec ||
					 (st.st_mtim.tv_sec == newest.tv_sec &&
					  st.st_mtim.tv_nsec > newest.tv_nsec))) {
			newest = st.st_mtim;
			memcpy(last, path, sizeof(last));
		}
	}
	f = fopen(last, "r");
	assert_non_null(f);
	n = fread(text, 1, 4095, f);
	text[n] = 0;
	fclose(f);
	return text;
}

/*
 * Depend mode (no second preprocessing on a miss) unless CCACHE_NODEPEND
 * asks for ccache's default; the cache is the var's.
 */
static void test_ccache_depend_mode(void **state)
{
	struct fl_build_result res;
	char *env, want[128];

	(void)state;
	sh("rm -rf %s/var/artifacts/*", dir);
	assert_int_equal(build(sha[0], "ok", &res), 0);
	assert_false(res.cached);
	env = ccache_env(res.config_hash);
	assert_non_null(strstr(env, "CCACHE_DEPEND=1\n"));
	snprintf(want, sizeof(want), "CCACHE_DIR=%s/var/ccache\n", dir);
	assert_non_null(strstr(env, want));
	free(env);
	fl_build_result_release(&res);

	sh("rm -rf %s/var/artifacts/*", dir);
	setenv("CCACHE_NODEPEND", "1", 1);
	assert_int_equal(build(sha[0], "ok", &res), 0);
	unsetenv("CCACHE_NODEPEND");
	assert_false(res.cached);
	env = ccache_env(res.config_hash);
	assert_null(strstr(env, "CCACHE_DEPEND"));
	assert_non_null(strstr(env, "CCACHE_NODEPEND=1\n"));
	free(env);
	fl_build_result_release(&res);
}

/* One thread's build with its own store and repository handles. */
struct racer {
	const char *store;
	const char *rev;
	struct fl_build_result res;
	int r;
};

static void *race(void *arg)
{
	struct racer *t = arg;
	char path[256];
	fl_store *st;
	fl_repo *rp;

	snprintf(path, sizeof(path), "%s/src", dir);
	t->r = -100;
	if (fl_repo_open(&rp, "fake", path))
		return NULL;
	if (!fl_store_open(&st, t->store, 0)) {
		struct fl_build_req req = {cfg, rp, NULL, t->rev, fl_config_kernel(cfg, "numa-warn"),
					   st};

		t->r = fl_build(&req, &t->res);
		fl_store_free(st);
	}
	fl_repo_free(rp);
	return NULL;
}

/*
 * Two workers of one process build one commit at once: one compiles, the
 * other waits for the artifact's lock and finds it; both end with the same
 * artifact and no temporary directory is left.
 */
static void test_one_build_per_artifact(void **state)
{
	struct racer t[2] = {{fl_test_store(cfg->store.path), sha[3], {0}, 0},
			     {fl_test_store(cfg->store.path), sha[3], {0}, 0}};
	pthread_t th[2];
	char marker[128], cmd[256];

	(void)state;
	snprintf(marker, sizeof(marker), "%s/compiles", dir);
	setenv("FL_FAKE_MARKER", marker, 1);
	setenv("FL_FAKE_SLEEP", "2", 1);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, race, &t[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	unsetenv("FL_FAKE_MARKER");
	unsetenv("FL_FAKE_SLEEP");
	assert_int_equal(t[0].r, 0);
	assert_int_equal(t[1].r, 0);
	assert_int_equal(t[0].res.cached + t[1].res.cached, 1);
	assert_non_null(t[0].res.artifact);
	assert_string_equal(t[0].res.artifact, t[1].res.artifact);
	snprintf(cmd, sizeof(cmd), "test $(wc -l < %s) -eq 1", marker);
	sh("%s", cmd);
	sh("test -z \"$(find %s/var/artifacts -name '.tmp-*')\"", dir);
	fl_build_result_release(&t[0].res);
	fl_build_result_release(&t[1].res);
}

/* Commits the edit (a shell command run in the tree) on the tree's HEAD. */
static void commit_to(char out[41], const char *edit)
{
	sh("cd %s/src && %s && " GIT "add -A >/dev/null && " GIT "commit -q --allow-empty -m t", dir,
	   edit, dir, dir);
	assert_int_equal(fl_repo_resolve(repo, "HEAD", out), 0);
}

/*
 * Builds rev with the kernel "trees" (its artifact removed first, so it is
 * built) and compares its image with a clean make of the same commit in a
 * directory of its own. The objects the build compiled.
 */
static int last_kept;	     /* the last build_checked's kconfig_kept */
static char last_hash[64]; /* and its config hash */

static unsigned build_checked(const char *rev)
{
	struct fl_build_result res;
	unsigned n;

	sh("rm -rf %s/var/artifacts/* %s/ref && mkdir %s/ref", dir, dir, dir);
	assert_int_equal(build(rev, "trees", &res), 0);
	assert_false(res.cached);
	assert_false(res.failed);
	sh("git -C %s/src archive %s | tar -x -C %s/ref && make -s -C %s/ref O=%s/ref/obj "
	   "tinyconfig >/dev/null && make -s -C %s/ref O=%s/ref/obj CC=gcc bzImage >/dev/null && "
	   "cmp %s/ref/obj/arch/x86/boot/bzImage %s/bzImage",
	   dir, rev, dir, dir, dir, dir, dir, dir, res.artifact);
	n = res.objects;
	last_kept = res.kconfig_kept;
	snprintf(last_hash, sizeof(last_hash), "%s", res.config_hash);
	fl_build_result_release(&res);
	return n;
}

/* How many object trees the slot has for the config. */
static int trees_of(const char *config_hash)
{
	char path[512];
	int n = 0;

	for (; n < 16; n++) {
		snprintf(path, sizeof(path), "%s/var/slots/0/obj-%s-%d", dir, config_hash, n);
		if (access(path, F_OK))
			break;
	}
	return n;
}

/*
 * bench/build's sequence on the fake kernel: A (the host's first build of
 * its config: no ccache), then B (a header most objects include, two
 * commits on) goes to a copy of A's object tree, and the
 * revert of B is built in A's tree, rebuilding the one file that differs
 * from A (with one tree it rebuilt every object including the header,
 * which the slot's checkout had rewritten). Then builds over commits
 * that share files' texts in many combinations, in an order that moves
 * the slot back and forth: each image is a clean build's.
 */
static void test_object_trees(void **state)
{
	char t0[41], t1[41], t2[41], rv[41], k[6][41], edit[512], hash[64], *env;
	static const int order[] = {3, 0, 5, 1, 4, 2, 0, 3, 5, 2, 1, 4};
	struct fl_build_result res;

	(void)state;
	sh("cd %s/src && git checkout -q -b trees %s", dir, sha[0]);
	commit_to(t0, "mkdir -p include && echo '#define V 1' > include/fake.h && "
		      "for f in a b d; do printf '#include \"include/fake.h\"\\nint %s(void) "
		      "{ return V; }\\n' $f > $f.c; done && "
		      "echo 'int e(void) { return 5; }' > e.c && echo 'int f(void) { return 6; }' > f.c");
	commit_to(t1, "sed -i 's/5/50/' e.c");
	commit_to(t2, "echo '#define V 2' > include/fake.h");
	commit_to(rv, "git revert --no-commit HEAD");

	assert_int_equal(build_checked(t0), 5);
	env = ccache_env(last_hash); /* the host's first build of the config: no ccache */
	assert_null(strstr(env, "/ccache-bin/"));
	assert_null(strstr(env, "CCACHE_"));
	free(env);
	/* in a copy of t0's tree: 4 of 5 differ (and CC has the same name under ccache) */
	assert_int_equal(build_checked(t2), 4);
	assert_true(last_kept);			/* with t0's .config */
	env = ccache_env(last_hash);
	if (fl_which("ccache")) /* ccache for every later build */
		assert_non_null(strstr(env, "/ccache-bin/"));
	free(env);
	assert_int_equal(build_checked(rv), 1); /* t0's tree: e.c alone differs */
	assert_int_equal(mtime("include/fake.h"), 946684800); /* t0's text again: old */
	assert_int_equal(build(t0, "trees", &res), 0);
	snprintf(hash, sizeof(hash), "%s", res.config_hash);
	fl_build_result_release(&res);
	assert_int_equal(trees_of(hash), 2);

	for (int i = 0; i < 6; i++) {
		snprintf(edit, sizeof(edit),
			 "git checkout -q %s && echo '#define V %d' > include/fake.h && "
			 "echo 'int f(void) { return %d; }' > f.c && "
			 "echo 'int e(void) { return %d; }' > e.c",
			 t0, 1 + (i & 1), 6 + ((i >> 1) & 1), 5 + (i >= 4));
		commit_to(k[i], edit);
	}
	for (size_t i = 0; i < sizeof(order) / sizeof(*order); i++)
		build_checked(k[order[i]]);
	assert_true(trees_of(hash) <= 3); /* build.object_trees */
	sh("cd %s/src && git checkout -q master", dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_reuse_and_cache),
		cmocka_unit_test(test_failing_commit),
		cmocka_unit_test(test_lost_option),
		cmocka_unit_test(test_kconfig_input_changed),
		cmocka_unit_test(test_eviction),
		cmocka_unit_test(test_ccache_depend_mode),
		cmocka_unit_test(test_one_build_per_artifact),
		cmocka_unit_test(test_object_trees),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
