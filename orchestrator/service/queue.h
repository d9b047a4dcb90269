/*
 * queue.h - the watch service's job queue: the policy over the jobs table
 * (store/jobs.h) and the machine pool.
 *
 * Run jobs measure one commit once on one machine (fl_dispatch_run) in a
 * worker thread with its own store connection; a machine runs at most
 * max_parallel of them at a time, oldest job first. How a run ended decides
 * what happens to its job (the dispatcher's rules, dispatch.h: the
 * attempts of fl_attempts_job, the machine's count):
 *   ok          done, the run recorded as the one that counts
 *   untestable  done (result untestable): a bisection skips the commit
 *   infra-error ours, not the commit's: queued again, never a sample; the
 *               machine's count of infra errors in a row grows, and at its
 *               max_infra_errors the machine leaves the pool (state broken,
 *               the reason stored and logged) until "faultline queue enable"
 *   anything else (agent-error, timeout, panic, boot-failed): tried again
 *               up to 3 times in all, then done (result failed), which a
 *               bisection also treats as a skip
 * A run job that ends wakes its parent once none of the parent's children
 * is left.
 *
 * Coordinator jobs (every kind but run, pipeline.h) are stepped in the
 * thread that calls fl_queue_tick() by the step of their kind: a step
 * reads what its children produced, adds jobs (created once, by key), and
 * leaves its job waiting, done or failed in the same transaction as its
 * effects. A step that fails leaves the job failed with the message.
 *
 * Workers: several "faultline watch" processes, on one host or several,
 * may share a PostgreSQL store (an SQLite store has one: a lock file next
 * to it). Each is a row of the store's workers that a thread renews every
 * third of worker.lease. A worker claims what it does: a coordinator by
 * moving it from queued to running (the one whose update changed the row
 * steps it), a machine before its runs (one worker drives a machine at a
 * time; machines.worker_host pins it to the workers of one host, and a
 * worker gives back a machine it left idle), then the machine's oldest
 * queued run (FOR UPDATE SKIP LOCKED on PostgreSQL). A run's end is
 * recorded only while its job is still held by the worker that ran it.
 *
 * A worker is gone when it was not heard of for a lease, or at once when
 * it ran on this host and its process is no more. Every third of a lease
 * each worker looks: a gone worker's work is taken over in one
 * transaction (the runs its jobs had not recorded deleted with their
 * samples, those jobs queued again, its machines released). A worker that
 * finds itself gone (its lease ran out, say the store was out of reach)
 * exits at once with FL_QUEUE_LOST_EXIT: its jobs are already another's.
 *
 * Restart, when no other worker is live (fl_queue_open): runs that were in
 * flight, or that finished without their job recording them, are deleted
 * with their samples and their jobs queued again, so no half-written
 * result is ever counted and no finished run is repeated; coordinators
 * that were running or waiting are stepped again (their steps are
 * idempotent).
 */
#ifndef FL_QUEUE_H
#define FL_QUEUE_H

#include "service/pipeline.h"
#include "store/jobs.h"

#include <stddef.h>
#include <stdint.h>

/* The exit code of a worker that lost its lease: the commands' runtime failure. */
#define FL_QUEUE_LOST_EXIT 4

struct fl_config;

struct fl_queue_opts {
	const struct fl_config *cfg;
	void *ctx; /* passed to every step: the fl_service */
	/* NULL: each kind's step in the pipeline's table; else one per kind
	 * (NULL: jobs of that kind fail), for tests */
	const fl_job_step_fn *steps;
};

typedef struct fl_queue fl_queue;

/* Opens the store (SQLite: takes its lock), enters the machines and this
 * worker, takes over gone workers' work (or recovers when none is live),
 * prepares the store for the pipeline (fl_pipeline_prepare). */
int fl_queue_open(fl_queue **out, const struct fl_queue_opts *o);
/* This worker's name in the store (its claims: outbox.h). */
const char *fl_queue_worker(fl_queue *q);
/* The store connection of the calling thread (steps and the trigger use it). */
fl_store *fl_queue_store(fl_queue *q);
/* Reaps finished runs, steps queued coordinators, starts the runs machines have room for. */
int fl_queue_tick(fl_queue *q);
/* Sleeps until a run finishes or ms pass. */
void fl_queue_wait(fl_queue *q, int64_t ms);

struct fl_queue_status {
	size_t live;	/* jobs not done or failed */
	size_t running; /* runs in worker threads */
	size_t blocked; /* queued runs of machines out of the pool, or pinned to a
			 * host without a live worker */
	size_t failed;	/* jobs that failed since the queue was opened */
	size_t others;	/* the store's other live workers */
	size_t active;	/* jobs running or queued, blocked ones included, in the store */
};
/* Whether the store's live jobs can still end without this worker doing
 * more (a one-pass worker then waits for the others): other workers live,
 * and something running or queued that is not blocked. */
int fl_queue_others_busy(const struct fl_queue_status *s);
void fl_queue_status(fl_queue *q, struct fl_queue_status *s);
/* Waits for the runs in flight, leaves the workers, closes. */
void fl_queue_free(fl_queue *q);

/*
 * "faultline queue retry": a failed job (a coordinator: run jobs are
 * retried through the job they belong to) queued again, in one
 * transaction with the runs that failed it: its run jobs that failed
 * themselves and, for a kind measured in rounds (compare, revert, try),
 * those that ended failed after FL_QUEUE_ATTEMPTS attempts, each with its
 * attempts starting over. Nothing else changes: the next pass of watch
 * steps it as a new job (steps are idempotent, a report is mailed once),
 * so a retry survives a restart and works whether or not watch runs.
 * *runs: the runs queued again. FL_ENOTFOUND: no such job; FL_EINVAL: it
 * did not fail, or is a run job (the message names its parent).
 */
int fl_queue_retry(fl_store *st, int64_t id, unsigned *runs);
/* Every failed coordinator retried so: *jobs of them, *runs runs. */
int fl_queue_retry_failed(fl_store *st, unsigned *jobs, unsigned *runs);

/*
 * Fault injection for the crash tests: with FAULTLINE_CRASH_AT=NAME:N in
 * the environment, the N-th time the process reaches the point NAME it
 * kills itself with SIGKILL, as a power cut would.
 */
void fl_crashpoint(const char *name);

#endif
