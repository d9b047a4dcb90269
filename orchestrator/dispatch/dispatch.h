/*
 * dispatch.h - the dispatcher: the one place that keeps a run in the store
 * while a machine backend (machine.h) runs it. "faultline run"
 * (builtin/run.c) and the watch service's run jobs (service/queue.c) both
 * run through it.
 *
 * fl_dispatch_run() gets the run ready (on kernel machines the kernel,
 * built through build.h or a prebuilt image found with its System.map and
 * config beside it, and the agent's job; for a command the commit), makes
 * the commit's rows and the run row ('running', owned by this host and
 * process), and hands the run to the backend with a sink that stores what
 * it hands back as it comes: every agent record, the guest's facts, the
 * machine's facts, the end with the samples of an ok run; then the run's
 * evidence (vmstat rates, profiles, locks per point) from its stored
 * records. The caller reads the samples back through the store: a crash
 * after the call loses nothing, a crash during it leaves a run that is not
 * 'ok' (fl_dispatch_reap_stale ends it, the queue redoes its job). A run
 * that ends untestable is not kept (a commit that does not build has no
 * run row either). Bare-metal runs reach the box queue of the store
 * through dispatch/boxes.c, which the agent API (agentapi.h) serves.
 */
#ifndef FL_DISPATCH_H
#define FL_DISPATCH_H

#include "machine/machine.h"
#include "store/store.h"

#include <stdint.h>

struct fl_dispatch_req {
	/*
	 * What runs and where: cfg, machine, bench; tree, repo and rev (or
	 * none, on a box that measures its own kernel); label, job_extra,
	 * deadline_ms. The dispatcher fills the rest (sha, kernel, job,
	 * run_id, sink, boxes).
	 */
	struct fl_run_req run;
	fl_store *store;
	/* On kernel machines, instead of rev: a prebuilt image (its System.map optional). */
	const char *kernel_image;
	const char *system_map;
	/* The watch service's run job (store/jobs.h), recorded on the run so
	 * that a restart can tell the runs a crash interrupted; 0: none. */
	int64_t job_id;
};

/*
 * One run of req (machine.h's contract for res). Negative FL_E* codes are
 * for a request that cannot be carried out at all (bad arguments, the
 * store unwritable, no toolchain to build with), with the reason in
 * fl_error_last(); a run row made before it was known ends infra-error.
 */
int fl_dispatch_run(const struct fl_dispatch_req *req, struct fl_run_result *res);

/*
 * Ends the runs this host's dead processes left 'running' (infra-error,
 * "abandoned") and destroys their guests on cfg's machines. Returns how
 * many runs it ended, or a negative FL_E* code.
 */
int fl_dispatch_reap_stale(const struct fl_config *cfg, fl_store *store);

#endif
