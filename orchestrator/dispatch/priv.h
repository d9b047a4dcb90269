/*
 * dispatch/priv.h - what the dispatcher's files share: the kernel a run
 * boots (kernel.c) and the box queue over the store (boxes.c). Nothing
 * outside dispatch/ includes this.
 */
#ifndef FL_DISPATCH_PRIV_H
#define FL_DISPATCH_PRIV_H

#include "dispatch/dispatch.h"
#include "machine/boxes.h"

/* The kernel of a run, its paths absolute (libvirtd and the agent API open them). */
struct fl_dispatch_kernel {
	struct fl_run_kernel k; /* its strings: the members below */
	char *image, *system_map;
};
void fl_dispatch_kernel_release(struct fl_dispatch_kernel *k);

/*
 * The kernel req boots: req->kernel_image with the System.map and config
 * found beside it, or rev built with the benchmark's kernel (build.h),
 * with the commit's rows (*commit_id). 1 when the commit does not build
 * (res says untestable, with its build), 0, or an error.
 */
int fl_dispatch_kernel(const struct fl_dispatch_req *req, struct fl_dispatch_kernel *k,
		       struct fl_run_result *res, int64_t *commit_id);

/*
 * The commit row of sha in req's tree (tree and commit rows created on
 * first sight, with the commit's subject and author from its repository).
 */
int fl_dispatch_commit_row(const struct fl_dispatch_req *req, const char *sha, int64_t *commit_id);

/* The box queue (machine/boxes.h) over the store st. */
struct fl_boxes fl_dispatch_boxes(fl_store *st);

#endif
