/*
 * store/agent.h - bare-metal boxes, their agent jobs and the records they
 * upload (tables boxes, agent_jobs, agent_records); the SQL lives in
 * store/agent.c. machine/baremetal.c publishes and follows agent jobs
 * (through dispatch/boxes.c), the agent API (dispatch/agentapi.c) hands
 * them out and takes the uploads; they meet only here, so they may run in
 * different threads or processes.
 *
 * A box row is made the first time the box asks for work. It keeps the
 * facts the box reports (CPUs, nodes, memory, kernel: JSON) and counts the
 * deadlines it missed in a row; at the machine's max_misses it is offline
 * until it is heard from again.
 *
 * An agent job is live (queued, fetched, booting, running) until it ends:
 * uploaded (every record confirmed), failed (the box could not run it),
 * expired (its deadline passed first) or cancelled (its run ended without
 * it). A final state never changes. Records are FLR1 frames (record.h) kept
 * once per (job, seq): an upload sent twice adds nothing.
 */
#ifndef FL_STORE_AGENT_H
#define FL_STORE_AGENT_H

#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/* ---- boxes ---- */

struct fl_box {
	char *name, *state, *facts, *reason; /* facts, reason: NULL when none */
	int64_t last_seen_ms;		     /* 0: never heard from */
	int misses;
};
void fl_box_release(struct fl_box *b);

/* The box was heard from: online, no misses; its facts replaced unless NULL. */
int fl_store_box_seen(fl_store *st, const char *name, const char *facts, int64_t now_ms);
/* FL_ENOTFOUND for a box never heard from. */
int fl_store_box_get(fl_store *st, const char *name, struct fl_box *b);
/* One more missed deadline; at max the box is offline with why (*offline 1). */
int fl_store_box_miss(fl_store *st, const char *name, int max, const char *why, int *offline);

/* ---- agent jobs ---- */

struct fl_agent_file {
	const char *path; /* absolute, on the orchestrator */
	const char *sha256;
	int64_t size;
};

struct fl_agent_job_new {
	const char *box;
	int64_t run_id;
	const char *mode;    /* kexec, current */
	const char *job;     /* the agent's job text (fl.job=) */
	const char *cmdline; /* the kernel command line, without the box's own part */
	struct fl_agent_file kernel, initrd; /* kexec only */
	int64_t created_ms, deadline_ms;     /* wall clock */
};
int fl_store_agent_job_add(fl_store *st, const struct fl_agent_job_new *j, int64_t *id);

struct fl_agent_job {
	int64_t id, run_id;
	char *box, *mode, *job, *cmdline, *state;
	char *kernel_path, *kernel_sha256, *initrd_path, *initrd_sha256; /* NULL: current mode */
	int64_t kernel_size, initrd_size;
	char *progress, *message; /* NULL until said */
	int64_t records;	  /* -1 until the box says how many it has */
	int64_t created_ms, deadline_ms, fetched_ms, progress_ms, finished_ms; /* 0: not yet */
};
void fl_agent_job_release(struct fl_agent_job *j);
/* FL_ENOTFOUND for no such job. */
int fl_store_agent_job_get(fl_store *st, int64_t id, struct fl_agent_job *j);
/* 1 for queued, fetched, booting and running. */
int fl_agent_job_live(const struct fl_agent_job *j);

/*
 * The box's next job: its oldest live job whose deadline has not passed,
 * handed out again until it ends (the box may have rebooted before it
 * started it). A queued one becomes fetched. Live jobs of the box whose run
 * is no longer running (its process died) are cancelled first.
 * FL_ENOTFOUND when there is none.
 */
int fl_store_agent_job_next(fl_store *st, const char *box, int64_t now_ms, struct fl_agent_job *j);
/* The box's word on a live job: state booting or running, and a message. FL_EEXISTS when it ended.
 */
int fl_store_agent_job_progress(fl_store *st, int64_t id, const char *state, const char *message,
				int64_t now_ms);
/* Ends a live job (uploaded, failed, expired, cancelled). FL_EEXISTS when it had ended. */
int fl_store_agent_job_end(fl_store *st, int64_t id, const char *state, const char *message,
			   int64_t records, int64_t now_ms);

/* ---- records ---- */

struct fl_agent_frame {
	uint64_t seq;
	const char *text; /* the whole frame line, without its newline */
	size_t len;
};
/* All of them or none; a (job, seq) already kept is skipped. *added: how many were new. */
int fl_store_agent_records_add(fl_store *st, int64_t job_id, const struct fl_agent_frame *f,
			       size_t n, int64_t now_ms, size_t *added);
/* How many records of the job are kept, and (missing not NULL) the first few seqs below
 * want that are not: "2, 6, 7" (caller frees; "" when none). */
int fl_store_agent_records_count(fl_store *st, int64_t job_id, int64_t want, size_t *n,
				 char **missing);
/* The job's frames in seq order, one per line: the console the box did not have. */
int fl_store_agent_records_text(fl_store *st, int64_t job_id, char **text, size_t *len);

#endif
