/*
 * dispatch/kernel.c - the kernel a run boots (dispatch/priv.h): a revision
 * built through build.h with the benchmark's kernel, or a prebuilt image
 * with the System.map and config found beside it; and the rows of the
 * commit a run measures. It sits with the dispatcher, not with the
 * backends, because building writes the store (the build's row, the
 * artifact cache's) and the run row keeps what was found: a backend only
 * boots what it is given.
 */
#include "dispatch/priv.h"
#include "build/build.h"
#include "config/config.h"
#include "lib/error.h"
#include "store/store.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void fl_dispatch_kernel_release(struct fl_dispatch_kernel *k)
{
	free(k->image);
	free(k->system_map);
	memset(k, 0, sizeof(*k));
}

static int file_exists(const char *path)
{
	return path && !access(path, R_OK);
}

/*
 * A file next to a kernel image: <dir>/<plain> (faultline's artifacts,
 * bzImage with config and System.map) or <dir>/<prefix>-<version> for a
 * distribution's vmlinuz-<version>. NULL when neither exists.
 */
static char *beside_image(const char *image, const char *plain, const char *prefix)
{
	char *copy = fl_xstrdup(image), *dir = dirname(copy), *path;
	const char *base = strrchr(image, '/') ? strrchr(image, '/') + 1 : image;
	const char *dash = strchr(base, '-');

	path = fl_xasprintf("%s/%s", dir, plain);
	if (!file_exists(path) && dash) {
		free(path);
		path = fl_xasprintf("%s/%s%s", dir, prefix, dash);
	}
	if (!file_exists(path)) {
		free(path);
		path = NULL;
	}
	free(copy);
	return path;
}

/* 1 when the kernel's .config has CONFIG_PROFILING=y: boot it with profile=2. */
static int has_profiling(const char *config)
{
	char line[256];
	FILE *f = config ? fopen(config, "r") : NULL;
	int yes = 0;

	if (!f)
		return 0;
	while (!yes && fgets(line, sizeof(line), f))
		yes = !strcmp(line, "CONFIG_PROFILING=y\n");
	fclose(f);
	return yes;
}

/* The prebuilt image: absolute paths, its config and System.map when beside it. */
static int prebuilt(const struct fl_dispatch_req *req, struct fl_dispatch_kernel *x)
{
	char abs[PATH_MAX], *config;

	if (!realpath(req->kernel_image, abs))
		return fl_error_set(FL_EINVAL, "kernel image %s: %s", req->kernel_image,
				    strerror(errno));
	x->image = fl_xstrdup(abs);
	if (req->system_map && !realpath(req->system_map, abs))
		return fl_error_set(FL_EINVAL, "System.map %s: %s", req->system_map,
				    strerror(errno));
	x->system_map =
	    req->system_map ? fl_xstrdup(abs) : beside_image(x->image, "System.map", "System.map");
	config = beside_image(x->image, "config", "config");
	x->k.profile = has_profiling(config);
	x->k.prebuilt = 1;
	free(config);
	return 0;
}

/* 1 when the commit does not build (res filled: untestable), 0 built, or an error. */
static int build_kernel(const struct fl_dispatch_req *req, struct fl_run_result *res,
			struct fl_dispatch_kernel *x, int64_t *commit_id)
{
	const struct fl_run_req *run = &req->run;
	const struct fl_kernel_conf *k =
	    run->bench->kernel ? fl_config_kernel(run->cfg, run->bench->kernel) : NULL;
	struct fl_build_result b;
	char abs[PATH_MAX];
	int r;

	if (!k)
		return fl_error_set(FL_EINVAL, "benchmark '%s' names no kernel to build",
				    run->bench->name);
	if (!run->repo)
		return fl_error_set(FL_EINVAL, "a run of revision %s needs its tree", run->rev);
	struct fl_build_req breq = {run->cfg, run->repo, run->tree ? run->tree->url : NULL,
				    run->rev, k,	 req->store};

	if ((r = fl_build(&breq, &b)))
		return r;
	res->build_id = b.build_id;
	if (b.failed) {
		res->status = FL_RUN_UNTESTABLE;
		res->detail = fl_xasprintf("build-failed: %s", b.error ? b.error : "make failed");
		fl_build_result_release(&b);
		return 1;
	}
	r = fl_dispatch_commit_row(req, b.sha, commit_id);
	if (!r && !realpath(b.artifact, abs))
		r = fl_error_set(FL_EIO, "artifact %s: %s", b.artifact, strerror(errno));
	if (!r) {
		char *config = fl_xasprintf("%s/config", abs);

		x->image = fl_xasprintf("%s/bzImage", abs);
		x->system_map = fl_xasprintf("%s/System.map", abs);
		x->k.profile = has_profiling(config);
		free(config);
	}
	fl_build_result_release(&b);
	return r;
}

int fl_dispatch_kernel(const struct fl_dispatch_req *req, struct fl_dispatch_kernel *k,
		       struct fl_run_result *res, int64_t *commit_id)
{
	int r;

	memset(k, 0, sizeof(*k));
	*commit_id = 0;
	r = req->kernel_image ? prebuilt(req, k) : build_kernel(req, res, k, commit_id);
	k->k.image = k->image;
	k->k.system_map = k->system_map;
	return r;
}

int fl_dispatch_commit_row(const struct fl_dispatch_req *req, const char *sha, int64_t *commit_id)
{
	const struct fl_run_req *run = &req->run;
	struct fl_repo_commit c;
	struct fl_commit_info ci;
	int64_t tree_id;
	int r;

	if ((r = fl_repo_commit(run->repo, sha, &c)))
		return r;
	ci = (struct fl_commit_info){c.sha, c.subject, c.author, c.time};
	r = fl_store_tree_ensure(req->store, fl_repo_name(run->repo),
				 run->tree && run->tree->url ? run->tree->url : "", &tree_id);
	if (!r)
		r = fl_store_commit_ensure(req->store, tree_id, &ci, commit_id);
	if (!r)
		r = fl_build_commit_depth(req->store, run->repo, c.sha, *commit_id);
	fl_repo_commit_release(&c);
	return r;
}
