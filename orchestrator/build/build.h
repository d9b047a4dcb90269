/*
 * build.h - kernel builds: slots, kconfig, make, and the artifact cache.
 *
 * A slot is var/slots/<n>/src, a source directory moved from commit to
 * commit by checkout.c (only the files that differ are written), plus up
 * to build.object_trees object directories (O=) per kernel config,
 * var/slots/<n>/obj-<config hash>-<k>: a build uses the one where make
 * rebuilds the fewest objects, or a copy of it (objtree.h), and its
 * .config is kept while no kconfig input changes (build.c). make compiles
 * through ccache, but for the host's first build of a config (build.c).
 * Artifacts live in <build.artifacts>/<sha>-<config hash>-<compiler hash>/
 * (bzImage, System.map, config, build.log, duration_ms; build.artifacts is
 * var/artifacts by default) and are indexed by the store, which evicts the
 * least recently used past the size cap. That directory may be shared by
 * every worker (artifacts.h): one of them builds a commit, the others wait
 * for it and find its artifact.
 */
#ifndef FL_BUILD_H
#define FL_BUILD_H

#include <stdint.h>

#include "build/repo.h"
#include "store/store.h"

struct fl_config;
struct fl_kernel_conf;

struct fl_build_req {
	const struct fl_config *cfg; /* var, build.{slots,jobs,timeout_ms,cache_size,artifacts} */
	fl_repo *repo;
	const char *tree_url; /* for the store's trees row */
	const char *rev;
	const struct fl_kernel_conf *kernel;
	fl_store *store;
};

struct fl_build_result {
	int64_t build_id;
	char sha[41];
	char *artifact;	 /* directory; NULL for a failed build */
	int cached;	 /* served from the cache, nothing built */
	int failed;	 /* the commit does not build: status build-failed */
	char *error;	 /* first error line of a failed build */
	unsigned objects; /* objects make built (kbuild's "  CC  x.o" lines) */
	unsigned files_written; /* source files the slot move wrote or removed */
	int kconfig_kept;	/* no kconfig input changed: the slot's .config was kept */
	int64_t duration_ms;
	/* where a build's time went (0 for a cache hit): wall ms of the slot's
	 * checkout, of the kconfig steps and of make bzImage, and the CPU ms
	 * (user + sys) of the build's thread and of the processes it waited for */
	int64_t checkout_ms, kconfig_ms, make_ms, cpu_ms;
	char *config_hash;
};

/*
 * Builds req->rev with req->kernel, or finds it in the cache. A commit that
 * fails to compile is not an error: returns 0 with res->failed set (and
 * the build recorded). Errors are ours: FL_EINVAL for a fragment option
 * that did not survive (missing_option: error), FL_ENOTFOUND for a missing
 * toolchain, FL_EIO for a full disk, FL_ETIMEOUT.
 */
int fl_build(const struct fl_build_req *req, struct fl_build_result *res);

/* The stored commit id (sha in repo) gets its place in the history
 * (fl_repo_depth, fl_store_commit_depth) unless it has it already. */
int fl_build_commit_depth(fl_store *st, fl_repo *repo, const char *sha, int64_t id);
void fl_build_result_release(struct fl_build_result *res);

/*
 * Checks that every option the fragments ask for is in config as asked.
 * Returns the number of lost options; each is described on its own line
 * in *report ("CONFIG_NUMA=y requested, got 'is not set'"), caller frees.
 */
int fl_kconfig_check(const char *config, const char *const *fragments, size_t n,
		     char **report);

#endif
