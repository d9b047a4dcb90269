/*
 * builtin/build.c - "faultline build --tree T --rev REV --kernel K": build
 * one kernel (or find it in the artifact cache), show progress on stderr
 * and print the artifact directory on stdout.
 */
#include "builtin/builtin.h"
#include "build/build.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/log.h"
#include "build/repo.h"
#include "store/store.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static int report(const struct fl_build_result *res)
{
	if (res->failed) {
		fprintf(stderr, "faultline: %.12s: build-failed%s: %s\n", res->sha,
			res->cached ? " (recorded earlier)" : "", res->error ? res->error : "");
		return FL_EXIT_NO;
	}
	fl_info("build: %.12s: %s, %u objects, %lld ms", res->sha,
		res->cached ? "cache hit" : "built", res->objects, (long long)res->duration_ms);
	printf("%s\n", res->artifact);
	return FL_EXIT_OK;
}

static int run_build(struct fl_config *cfg, const char *tree, const char *rev,
		     const char *kernel)
{
	const struct fl_tree_conf *t = fl_config_tree(cfg, tree);
	const struct fl_kernel_conf *k = fl_config_kernel(cfg, kernel);
	struct fl_build_result res;
	fl_repo *repo = NULL;
	fl_store *st = NULL;
	int r;

	if (!t || !k) {
		fprintf(stderr, "faultline: %s: no %s '%s'\n", cfg->path, t ? "kernel" : "tree",
			t ? kernel : tree);
		return FL_EXIT_USAGE;
	}
	if ((r = fl_repo_open_current(&repo, t->name, t->url, cfg->var)) ||
	    (r = fl_store_open(&st, cfg->store.path, 0))) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		fl_repo_free(repo);
		return FL_EXIT_FAIL;
	}
	struct fl_build_req req = {cfg, repo, t->url, rev, k, st};

	r = fl_build(&req, &res);
	if (r) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		r = r == FL_EINVAL ? FL_EXIT_USAGE : FL_EXIT_FAIL;
	} else {
		r = report(&res);
	}
	fl_build_result_release(&res);
	fl_store_free(st);
	fl_repo_free(repo);
	return r;
}

static int cmd_build(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"tree", required_argument, NULL, 't'},
		{"rev", required_argument, NULL, 'r'},
		{"kernel", required_argument, NULL, 'k'},
		{NULL, 0, NULL, 0},
	};
	const char *config = NULL, *tree = NULL, *rev = NULL, *kernel = NULL;
	struct fl_config *cfg;
	int c, r;

	optind = 1;
	while ((c = fl_getopt(argc, argv, "", opts)) != -1) {
		if (c == 'c')
			config = optarg;
		else if (c == 't')
			tree = optarg;
		else if (c == 'r')
			rev = optarg;
		else if (c == 'k')
			kernel = optarg;
		else
			return fl_usage(&fl_cmd_build);
	}
	if (optind != argc || !rev)
		return fl_usage(&fl_cmd_build);
	if ((r = fl_load_config(&cfg, config)))
		return r;
	/* The only tree or kernel is the default, as for benchmarks. */
	if (!tree && cfg->ntrees == 1)
		tree = cfg->trees[0].name;
	if (!kernel && cfg->nkernels == 1)
		kernel = cfg->kernels[0].name;
	r = tree && kernel ? run_build(cfg, tree, rev, kernel) : fl_usage(&fl_cmd_build);
	fl_config_free(cfg);
	return r;
}

const struct fl_command fl_cmd_build = {
    .name = "build",
    .run = cmd_build,
    .usage = "build [--config F] [--tree T] --rev REV [--kernel K]",
    .summary = "build a kernel, or find it in the artifact cache; prints the artifact directory",
    .help = "options:\n"
	    "  --config F     the configuration (default: the global --config, ./faultline.yaml)\n"
	    "  --tree T       the tree to build from (default: the configuration's only tree)\n"
	    "  --rev REV      the revision to build: a tag, a branch or a sha (required)\n"
	    "  --kernel K     the kernels: entry that says how (default: the only one)\n"
	    "  -h, --help     this help\n"
	    "\n"
	    "Prints the artifact directory (bzImage, System.map, .config). A build that\n"
	    "is already in the artifact cache is not built again.\n"
	    "Exit: 0 built or cached, 1 the commit does not build, 2 usage or\n"
	    "configuration error, 4 runtime failure.\n",
};
