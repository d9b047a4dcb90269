/*
 * queue.h - the watch service's job queue: the policy over the jobs table
 * (store/jobs.h) and the machine pool.
 *
 * Run jobs measure one commit once on one machine (fl_machine_run) in a
 * worker thread with its own store connection; a machine runs at most
 * max_parallel of them at a time, oldest job first. How a run ended decides
 * what happens to its job:
 *   ok          done, the run recorded as the one that counts
 *   untestable  done (result untestable): a bisection skips the commit
 *   infra-error ours, not the commit's: queued again, never a sample; the
 *               machine's count of infra errors in a row grows, and at its
 *               max_infra_errors the machine leaves the pool (state broken,
 *               the reason stored and logged) until "faultline queue enable"
 *   anything else (agent-error, timeout, panic, boot-failed): tried again
 *               up to FL_QUEUE_ATTEMPTS times in all, then done (result
 *               failed), which a bisection also treats as a skip
 * A run job that ends wakes its parent once none of the parent's children
 * is left.
 *
 * Coordinator jobs (every kind but run, pipeline.h) are stepped in the
 * thread that calls fl_queue_tick() by the step of their kind: a step
 * reads what its children produced, adds jobs (created once, by key), and
 * leaves its job waiting, done or failed in the same transaction as its
 * effects. A step that fails leaves the job failed with the message.
 *
 * Restart (fl_queue_open, one service per store: a lock file next to it):
 * runs that were in flight, or that finished without their job recording
 * them, are deleted with their samples and their jobs queued again, so no
 * half-written result is ever counted and no finished run is repeated;
 * coordinators that were running or waiting are stepped again (their
 * steps are idempotent).
 */
#ifndef FL_QUEUE_H
#define FL_QUEUE_H

#include "service/pipeline.h"
#include "store/jobs.h"

#include <stddef.h>
#include <stdint.h>

#define FL_QUEUE_ATTEMPTS 3

struct fl_config;

struct fl_queue_opts {
	const struct fl_config *cfg;
	void *ctx; /* passed to every step: the fl_service */
	/* NULL: each kind's step in the pipeline's table; else one per kind
	 * (NULL: jobs of that kind fail), for tests */
	const fl_job_step_fn *steps;
};

typedef struct fl_queue fl_queue;

/* Takes the service lock, opens the store, enters the machines, recovers,
 * prepares the store for the pipeline (fl_pipeline_prepare). */
int fl_queue_open(fl_queue **out, const struct fl_queue_opts *o);
/* The store connection of the calling thread (steps and the trigger use it). */
fl_store *fl_queue_store(fl_queue *q);
/* Reaps finished runs, steps queued coordinators, starts the runs machines have room for. */
int fl_queue_tick(fl_queue *q);
/* Sleeps until a run finishes or ms pass. */
void fl_queue_wait(fl_queue *q, int64_t ms);

struct fl_queue_status {
	size_t live;	/* jobs not done or failed */
	size_t running; /* runs in worker threads */
	size_t blocked; /* queued runs of machines out of the pool */
	size_t failed;	/* jobs that failed since the queue was opened */
};
void fl_queue_status(fl_queue *q, struct fl_queue_status *s);
/* Waits for the runs in flight, then closes. */
void fl_queue_free(fl_queue *q);

/*
 * Fault injection for the crash tests: with FAULTLINE_CRASH_AT=NAME:N in
 * the environment, the N-th time the process reaches the point NAME it
 * kills itself with SIGKILL, as a power cut would.
 */
void fl_crashpoint(const char *name);

#endif
