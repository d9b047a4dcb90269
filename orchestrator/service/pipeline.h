/*
 * service/pipeline.h - the watch service's pipeline in one place: its job
 * kinds, their order, the keys of their jobs, and the words of its results.
 *
 *   trigger -> compare -> bisect -> revert -> report
 *                 |          |         |
 *                run        run       run
 *   faultline try -> try (a proposed fix measured; its reply mailed)
 *                     |
 *                    run
 *
 *   trigger  new tags of a tree (trigger.c), one compare job per benchmark
 *            and machine; not a job itself
 *   compare  a tag against its baseline (detect.c): rounds of run jobs,
 *            then a bisect job for a regression
 *   bisect   the regression bisected (autobisect.c): one run job a step,
 *            then a revert job for a culprit, a report job for any other
 *            answer but no regression
 *   revert   the culprit reverted on the tag (revert.c): rounds of run jobs,
 *            then the report job
 *   report   the mail, stored in the outbox (report.c): the end
 *   try      a proposed fix (try.c), added by "faultline try": the patch
 *            applied (libgit2) or the revision taken, rounds of run jobs,
 *            a verdict and, for a regression, a reply in its thread
 *   run      one commit measured once on one machine by the queue's workers
 *            (queue.c), a child its parent waits for
 *
 * pipeline.c's table gives each kind its name (jobs.kind), its step, the
 * kinds its step may add, what its jobs are about and their key. Stages add
 * and find jobs only through fl_service_enqueue() and
 * fl_service_job_find(): nothing else spells a kind or builds a key. The
 * keys are the ones stores in the field have:
 *   compare:TAG:BENCHMARK:MACHINE    bisect:REGRESSION
 *   revert:REGRESSION                report:REGRESSION
 *   try:TRY
 *   run:PARENT_KIND:PARENT:SEQ       a round's run (compare, revert, try)
 *   run:bisection:BISECTION:SEQ:SHA  a bisection step's run
 *
 * The words: a job's states (jobs.state), a comparison's classes
 * (comparisons.class, a compare job's result) and what a page calls them,
 * run jobs' roles, and a revert check's verdicts, each spelled here once.
 */
#ifndef FL_PIPELINE_H
#define FL_PIPELINE_H

#include "analysis/compare.h"
#include "store/jobs.h"

#include <stddef.h>
#include <stdint.h>

struct fl_config;

enum fl_job_kind {
	FL_JOB_COMPARE,
	FL_JOB_BISECT,
	FL_JOB_REVERT,
	FL_JOB_REPORT,
	FL_JOB_TRY,
	FL_JOB_RUN,
	FL_JOB_NKINDS
};

/* A coordinator's step (queue.h has its contract): 0 when it left the job
 * waiting, done or failed; negative with a message to fail the job with. */
typedef int (*fl_job_step_fn)(void *svc, fl_store *st, const struct fl_job *job);

/* A job to add, or to find. A kind reads what its row in the table says. */
struct fl_job_spec {
	const struct fl_job *from;		/* the job whose step adds it; NULL: the trigger */
	const char *tree, *machine, *benchmark; /* NULL: from's */
	int64_t tag_id;				/* compare: the watch tag */
	int64_t regression_id;			/* bisect, revert, report; 0: from's */
	int64_t try_id;				/* try: the tries row */
	/* run jobs, whose parent is from */
	const char *rev, *role, *point; /* point NULL: every point */
	int seq;
	unsigned round;	      /* a round of a comparison (compare, revert) */
	int64_t bisection_id; /* a bisection step's run: its bisection (no round) */
};

enum fl_job_about { FL_ABOUT_TAG, FL_ABOUT_REGRESSION, FL_ABOUT_TRY, FL_ABOUT_PARENT };

struct fl_job_kind_info {
	const char *name;	  /* jobs.kind */
	fl_job_step_fn step;	  /* NULL: run jobs, measured by the queue's workers */
	enum fl_job_kind next[3]; /* the kinds its step may add */
	size_t nnext;
	enum fl_job_about about; /* the row its jobs point at */
	int rounds;		 /* its run jobs come in rounds (repeat x sides) */
	int entry;		 /* added from outside the pipeline (the trigger, a command) */
	/* its jobs' key (caller frees), from a spec with from's fields filled in */
	char *(*key)(const struct fl_job_kind_info *k, const struct fl_job_spec *s);
};

const struct fl_job_kind_info *fl_job_kind_info(enum fl_job_kind k);
const char *fl_job_kind_name(enum fl_job_kind k);
/* 0 with *k, or FL_EINVAL naming the kinds there are. */
int fl_job_kind_parse(const char *name, enum fl_job_kind *k);
/* Whether name is kind k's. */
int fl_job_kind_is(const char *name, enum fl_job_kind k);
/* Whether a step of from's kind may add a job of kind to; from NULL: whether
 * the trigger or a command may (the kinds marked entry). */
int fl_job_kind_follows(const struct fl_job *from, enum fl_job_kind to);

/*
 * A job's states (jobs.state). The service names them; the store keeps the
 * word it is given and, beside it, whether the job has ended (jobs.ended),
 * which its own statements read (a coordinator's live children, the
 * partial indexes of live jobs).
 *   queued   runnable: a worker or a coordinator's step may claim it
 *   running  claimed by a worker (jobs.worker) or a step
 *   waiting  a coordinator whose run jobs are not all ended
 *   done, failed   ended
 */
enum fl_job_state {
	FL_STATE_QUEUED,
	FL_STATE_RUNNING,
	FL_STATE_WAITING,
	FL_STATE_DONE,
	FL_STATE_FAILED,
	FL_JOB_NSTATES
};
const char *fl_job_state_name(enum fl_job_state s);
/* 0 with *s, or FL_EINVAL naming the states there are. */
int fl_job_state_parse(const char *name, enum fl_job_state *s);
/* Whether a job in state s has ended: done or failed. */
int fl_job_state_ended(enum fl_job_state s);
/* Whether a stored state (jobs.state) is s; is one that has ended. */
int fl_job_is(const char *state, enum fl_job_state s);
int fl_job_ended(const char *state);

/* The store's job statements with the service's words. A job's state set,
 * its end stamped when s ends it (fl_store_job_set). */
int fl_job_set(fl_store *st, int64_t id, enum fl_job_state s, const char *result,
	       const char *error);
/* A coordinator waits for its run jobs: waiting, or queued again at once when
 * none of them is live. */
int fl_job_wait(fl_store *st, int64_t id);
/* The parent of run job id, waiting, is queued again once none of its
 * children is live. */
int fl_job_wake_parent(fl_store *st, int64_t id);
/* How many jobs are in each state, read in one statement: a job that moves
 * while it is read is counted once. Three counts read one after the other
 * could see a coordinator waiting but miss the child it waits for (queued
 * after the first count, running after the second). With ended 0, done and
 * failed are left 0 and only the live jobs' entries of the state index are
 * read, however many jobs have ended (the queue reads this at every turn). */
struct fl_job_counts {
	size_t queued, running, waiting, done, failed;
};
int fl_job_counts(fl_store *st, int ended, struct fl_job_counts *c);

/* The key a job of kind gets (caller frees). */
char *fl_job_key(enum fl_job_kind kind, const struct fl_job_spec *s);
/*
 * Adds a job of kind, or finds the one with its key (created once): *id
 * either way. FL_EINVAL when from's step may not add that kind.
 */
int fl_service_enqueue(fl_store *st, enum fl_job_kind kind, const struct fl_job_spec *s,
		       int64_t *id);
/* The job of kind s names (its key): FL_ENOTFOUND when there is none. */
int fl_service_job_find(fl_store *st, enum fl_job_kind kind, const struct fl_job_spec *s,
			struct fl_job *out);

/* Every kind a row of the store's job_kinds (what a job's kind must name). */
int fl_pipeline_register(fl_store *st);
/*
 * At the service's start (fl_queue_open): fl_pipeline_register(), and the
 * run jobs stored before rounds were (schema 10) numbered into theirs the
 * way rounds were counted then: seq / (sides x the benchmark's repeat in
 * cfg), once.
 */
int fl_pipeline_prepare(fl_store *st, const struct fl_config *cfg);

/* ---- words ---- */

/* regression, improvement, same, unclear: comparisons.class, a compare job's result. */
const char *fl_class_name(enum fl_cmp_class c);
/* 0 with *c, or FL_EINVAL. */
int fl_class_parse(const char *name, enum fl_cmp_class *c);
/* What a page calls a class: worse, better, same, unclear. */
const char *fl_class_word(enum fl_cmp_class c);
/* A stored class's page word; any other text as it is. */
const char *fl_class_name_word(const char *name);
/* Whether a compare job's class is decided by its rows of that class
 * (regression, improvement): a page shows the largest change among them. */
int fl_class_decides(const char *name);
/* What a page calls a compare job: its class's word once done, running
 * before (queued, running, waiting), failed. */
const char *fl_verdict_word(const char *state, const char *result);

/* What a run job measures (jobs.role): a comparison's baseline and new
 * tag, a bisection step, a revert check's bad tag and revert commit; a
 * try's base is "bad", its regression's good commit "base", the fix "fix". */
enum fl_run_role {
	FL_ROLE_BASE,
	FL_ROLE_NEW,
	FL_ROLE_BISECT,
	FL_ROLE_BAD,
	FL_ROLE_REVERT,
	FL_ROLE_FIX
};
const char *fl_role_name(enum fl_run_role r);
/* What the log calls a run job's role: its name, but in a try's runs the
 * words of the try's answer (its base "base", the regression's good commit
 * "good"), so that one commit is not "base" in the log and another in the
 * answer. */
const char *fl_role_word(const struct fl_job *run);
/*
 * 1 when runs of role (a name) trace lock contention (agents/lockstat.h):
 * the runs whose evidence reports and pages show (a tag comparison's base
 * and new, a revert check's, a try's); 0 for bisection steps, which decide
 * on throughput alone: under heavy contention the tracing costs more than
 * the 3% a step's measurement may lose (bench/README.md, lockcost), and
 * their runs carry "locks=off" in their job (and their params).
 */
int fl_role_traces_locks(const char *role);

/* A revert check's verdict (reverts.verdict, a revert job's result). */
enum fl_revert_verdict {
	FL_REVERT_RESTORES,   /* back to the baseline's throughput */
	FL_REVERT_PARTIAL,    /* better than the tag, still worse than the baseline */
	FL_REVERT_NO_EFFECT,  /* not better than the tag */
	FL_REVERT_UNCLEAR,    /* no answer within the runs budget */
	FL_REVERT_UNTESTABLE, /* the revert commit could not be measured */
};
const char *fl_revert_verdict_name(enum fl_revert_verdict v);
/* 0 with *v, or FL_EINVAL. */
int fl_revert_verdict_parse(const char *name, enum fl_revert_verdict *v);

/* A try's verdict (tries.verdict, a try job's result). */
enum fl_try_verdict {
	FL_TRY_RESTORES,   /* a regression's drop undone: not worse than its good commit */
	FL_TRY_PARTIAL,	   /* better than the base, still worse than the good commit */
	FL_TRY_NO_EFFECT,  /* level with the base */
	FL_TRY_WORSE,	   /* worse than the base */
	FL_TRY_BETTER,	   /* better than the base (a try without a regression) */
	FL_TRY_UNCLEAR,	   /* no answer within the runs budget */
	FL_TRY_UNTESTABLE, /* the fix does not build or cannot be measured */
	FL_TRY_CONFLICT,   /* the patch does not apply */
	FL_TRY_ERROR,	   /* the patch cannot be read, or the repository failed */
	FL_TRY_NVERDICTS
};
const char *fl_try_verdict_name(enum fl_try_verdict v);
/* What a mail says: "restores", "partly restores", "no effect", "makes it worse", ... */
const char *fl_try_verdict_words(enum fl_try_verdict v);
/* 0 with *v, or FL_EINVAL. */
int fl_try_verdict_parse(const char *name, enum fl_try_verdict *v);

#endif
