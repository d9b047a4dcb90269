/*
 * dispatch.h - the dispatcher: the one place that keeps a run in the store
 * while a machine backend (machine.h) runs it, and the rules of the runs'
 * attempts and of the machine pool. "faultline run" (builtin/run.c) and
 * the watch service's run jobs (service/queue.c) both run through it.
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

/* How many times in all a run is tried; 0: no limit. */
struct fl_attempts {
	unsigned failures; /* after it failed (agent-error, timeout, panic, boot-failed) */
	unsigned infra;	   /* after an infra-error, which is ours, not the commit's */
};
/* "faultline run": an infra-error is tried again, three times in all;
 * any other end is the answer. */
extern const struct fl_attempts fl_attempts_once;
/* A run job of the watch service: a failure three times in all, then the
 * job is done failed; infra errors without end (the machine's count takes
 * it out of the pool: fl_dispatch_machine_count). */
extern const struct fl_attempts fl_attempts_job;
/*
 * 1 when a run that ended s at its attempt-th try (1 the first) is to be
 * tried again; 0: its end is final (ok and untestable always are).
 */
int fl_dispatch_again(const struct fl_attempts *a, enum fl_run_status s, unsigned attempt);
/* fl_dispatch_run until fl_dispatch_again says no (or runs are told to stop). */
int fl_dispatch_run_attempts(const struct fl_dispatch_req *req, const struct fl_attempts *a,
			     struct fl_run_result *res);

/*
 * The machine pool's rule, in the caller's transaction: a run that ended
 * infra-error counts one more on m in a row, and at m's max_infra_errors
 * the machine is broken with why as the reason; any other end starts the
 * count over. *broken: the machine is out of the pool now.
 */
int fl_dispatch_machine_count(fl_store *st, const struct fl_machine_conf *m, enum fl_run_status s,
			      const char *why, int *broken);

/*
 * Ends the runs this host's dead processes left 'running' (infra-error,
 * "abandoned") and destroys their guests on cfg's machines. Returns how
 * many runs it ended, or a negative FL_E* code.
 */
int fl_dispatch_reap_stale(const struct fl_config *cfg, fl_store *store);

#endif
