/*
 * store/jobs.h - the jobs table (the watch service's restart-safe queue),
 * the machine pool's state, and the runs the jobs made. The SQL lives in
 * store/jobs.c; queue.c is the policy that uses it.
 *
 * A job is created once: its key is unique, and adding a job whose key
 * exists returns the existing one, so a coordinator that is stepped again
 * after a crash creates nothing twice.
 *
 * Kinds are the service's (service/pipeline.h): the store keeps them as
 * rows of job_kinds, which a job's kind must name (fl_store_job_kinds_add),
 * and knows none of them. A job with a parent is a run job: its parent
 * waits for it.
 *
 * What a job is about: a watch tag (tag_id), a regression (regression_id)
 * or a proposed fix (try_id, store/try.h), each a foreign key; a run job is
 * about its parent's.
 *
 * States are the service's words (service/pipeline.h names them and what
 * each means): the store writes the word it is given and matches the words
 * it is given. Beside the word a job row keeps whether the job has ended
 * (jobs.ended, 0 or 1), which the caller says whenever it sets a state that
 * may end a job (fl_store_job_set; fl_store_job_run_done ends one); every
 * other change of state here is between live ones. The store's own
 * statements read ended alone: a coordinator's live children, the run jobs
 * that ended, and the partial indexes of live jobs (jobs_live,
 * jobs_by_worker). Run jobs record the run that counts (run_id) and a
 * result: ok, untestable, failed.
 */
#ifndef FL_STORE_JOBS_H
#define FL_STORE_JOBS_H

#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/* A run job outside the rounds of a comparison (a bisection's step). */
#define FL_JOB_NO_ROUND (-1)

struct fl_job_new {
	const char *kind;  /* a row of job_kinds */
	const char *state; /* the live state it starts in */
	const char *key;
	int64_t parent_id; /* 0: none; a parent waits for its children */
	const char *tree, *machine, *benchmark;
	const char *rev;       /* run jobs: the full sha to measure */
	const char *role;      /* run jobs: base, new, bisect, bad, revert */
	int seq;	       /* order among siblings */
	int round;	       /* run jobs: the round of a comparison, or FL_JOB_NO_ROUND */
	int64_t tag_id;	       /* 0: none; the watch tag it is about */
	int64_t regression_id; /* 0: none; the regression it is about */
	const char *point;     /* run jobs: the points to measure, "MODE:TASKS[:CGROUP],..."; NULL: all */
	int64_t try_id;	       /* 0: none; the try it is about */
};

struct fl_job {
	int64_t id, parent_id, run_id;
	int64_t tag_id, regression_id; /* 0: none */
	char *kind, *key, *state;
	char *tree, *machine, *benchmark, *rev, *role;
	int seq, attempts;
	int round;	      /* FL_JOB_NO_ROUND: none */
	char *result, *error; /* NULL until set */
	char *point;	      /* NULL: every point of the benchmark */
	int64_t try_id;	      /* 0: none */
};
void fl_job_release(struct fl_job *j);
void fl_jobs_free(struct fl_job *j, size_t n);

/* The kinds jobs may have, added once (the service's at its start). */
int fl_store_job_kinds_add(fl_store *st, const char *const *names, size_t n);
/* Adds the job, or finds the one with the same key (*created 0). */
int fl_store_job_add(fl_store *st, const struct fl_job_new *j, int64_t *id, int *created);
int fl_store_job_get(fl_store *st, int64_t id, struct fl_job *j);
/* FL_ENOTFOUND when no job has the key. */
int fl_store_job_find(fl_store *st, const char *key, struct fl_job *j);
/* Jobs in a state, oldest first: of one kind (NULL: any), or with but 1 of
 * every kind but that one. */
int fl_store_jobs_in_state(fl_store *st, const char *state, const char *kind, int but,
			   struct fl_job **out, size_t *n);
/* Children of a job in (seq, id) order. */
int fl_store_jobs_children(fl_store *st, int64_t parent, struct fl_job **out, size_t *n);
/* How many jobs are in each of states[0..n) (up to 8), read in one
 * statement through the state index (jobs_by_state): counts[i] for
 * states[i] (service/pipeline.h: fl_job_counts). */
int fl_store_jobs_counts(fl_store *st, const char *const *states, size_t n, size_t *counts);

/* A live job put in state running (a claimed job's word); attempt counts a
 * run job's tries. */
int fl_store_job_start(fl_store *st, int64_t id, const char *running, int attempt);
/* Sets state (and result, error when not NULL) and whether it has ended
 * (ended 1 stamps the end). */
int fl_store_job_set(fl_store *st, int64_t id, const char *state, int ended, const char *result,
		     const char *error);
/* A run job's end: state done (ended) with its result and the run that counts (0: none). */
int fl_store_job_run_done(fl_store *st, int64_t id, const char *done, const char *result,
			  int64_t run_id, const char *error);
/* The job queued again (state queued, live) as a new one: no attempts,
 * result, error, run or times, held by no worker (what is retried is the
 * service's policy). */
int fl_store_job_requeue(fl_store *st, int64_t id, const char *queued);
/* A coordinator waits for its children: state waiting while one of them is
 * live, else queued. */
int fl_store_job_wait(fl_store *st, int64_t id, const char *waiting, const char *queued);
/* The parent of id goes from waiting to queued once none of its children is live. */
int fl_store_job_wake_parent(fl_store *st, int64_t id, const char *waiting, const char *queued);

/*
 * Run jobs stored before rounds were (schema version 10): the children of
 * parent_kind jobs of benchmark without a round, each with its seq and how
 * many roles its siblings have (its parent's children, itself included).
 * The service numbers them (service/pipeline.h: fl_pipeline_prepare).
 */
struct fl_job_unnumbered {
	int64_t id;
	int seq;
	int sides;
};
int fl_store_jobs_unnumbered(fl_store *st, const char *parent_kind, const char *benchmark,
			     struct fl_job_unnumbered **out, size_t *n);
int fl_store_job_set_round(fl_store *st, int64_t id, int round);

/*
 * After a crash (no worker is running), in the caller's transaction: runs
 * of jobs that are not done, in flight or finished but never recorded by
 * their job, are deleted with their samples; every live job not in state
 * queued already is put in it again; no machine is held and no worker is
 * left.
 */
int fl_store_jobs_recover(fl_store *st, const char *queued, unsigned *requeued,
			  unsigned *discarded);

/*
 * Workers: the processes ("faultline watch") sharing the store, each a row
 * it renews while it lives (seen); what makes a worker gone is the
 * service's policy (service/queue.h). A running job is held by the worker
 * that claimed it (jobs.worker), a machine by the worker driving it
 * (machines.worker). Claims are single statements that change a row only
 * when it is free, so two workers never both get it.
 */
struct fl_worker {
	char *name, *host;
	int64_t pid, started, seen;
};
void fl_workers_free(struct fl_worker *w, size_t n);
int fl_store_workers(fl_store *st, struct fl_worker **out, size_t *n);
int fl_store_worker_enter(fl_store *st, const struct fl_worker *w);
/* Renews the worker's row; *alive 0 when it is gone (its work was taken over). */
int fl_store_worker_beat(fl_store *st, const char *name, int64_t now, int *alive);
/*
 * A gone worker's work, for the caller's transaction: the unrecorded runs
 * of the jobs it held (in state running) deleted with their samples, those
 * jobs queued again, its machines released and its reports' claims ended,
 * its row removed.
 */
int fl_store_worker_take_over(fl_store *st, const char *name, const char *running,
			      const char *queued, unsigned *requeued, unsigned *discarded);
/* A worker's clean exit: its machines released, its claims on reports ended, its row removed. */
int fl_store_worker_leave(fl_store *st, const char *name);
/* queued -> running held by worker, if it still was queued (*claimed). */
int fl_store_job_claim(fl_store *st, int64_t id, const char *queued, const char *running,
		       const char *worker, int *claimed);
/* The oldest queued job of kind for machine, claimed (running, held by
 * worker, one more attempt) into j; FL_ENOTFOUND when there is none. */
int fl_store_job_claim_next(fl_store *st, const char *kind, const char *machine, const char *queued,
			    const char *running, const char *worker, struct fl_job *j);
/* Whether the job is in state running held by worker. */
int fl_store_job_held(fl_store *st, int64_t id, const char *running, const char *worker, int *held);
/* The machine for worker, if no other worker holds it (*claimed); released. */
int fl_store_machine_claim(fl_store *st, const char *name, const char *worker, int *claimed);
int fl_store_machine_release(fl_store *st, const char *name, const char *worker);

/* The machine pool: state online or broken, infra errors in a row (dispatch.h's rule). */
struct fl_machine_state {
	char *state, *reason;
	int infra_errors;
};
int fl_store_machine_state(fl_store *st, const char *name, struct fl_machine_state *m);
void fl_machine_state_release(struct fl_machine_state *m);
/*
 * fl_store_machine_state for the caller's write transaction: on PostgreSQL
 * the row stays locked until it ends, so that no other write comes between
 * (SQLite's writers take turns on the whole file).
 */
int fl_store_machine_state_locked(fl_store *st, const char *name, struct fl_machine_state *m);
/* Stores the state, reason and count as given (the rule is the dispatcher's). */
int fl_store_machine_set_state(fl_store *st, const char *name, const struct fl_machine_state *m);
/* Back into the pool. FL_ENOTFOUND for an unknown machine. */
int fl_store_machine_enable(fl_store *st, const char *name);
/* What a backend knows of the machine (JSON: CPUs, memory, ...); *json NULL when none. */
int fl_store_machine_set_facts(fl_store *st, const char *name, const char *json);
int fl_store_machine_facts(fl_store *st, const char *name, char **json);
/* Every machine the store knows, by name. */
int fl_store_machine_names(fl_store *st, char ***names, size_t *n);

/* Runs: the job that made one, and dropping one with its samples. */
int fl_store_run_set_job(fl_store *st, int64_t run_id, int64_t job_id);
int fl_store_run_discard(fl_store *st, int64_t run_id);

#endif
