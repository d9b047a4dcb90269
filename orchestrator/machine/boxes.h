/*
 * machine/boxes.h - the box queue as the baremetal backend reaches it: the
 * agent jobs it publishes for a box, their state as the box moves them
 * through the agent API, the box's own state and facts, the records the
 * box uploaded. The backend waits on the queue; the agent API (another
 * thread, or another process sharing the store) hands the job to the box
 * and takes its uploads. docs/baremetal.md has the whole flow.
 *
 * The dispatcher implements it over the store (dispatch/boxes.c) and
 * hands it down with each run (fl_run_req.boxes): a call up through
 * function pointers, listed in docs/architecture.md. Every op returns 0 or
 * a negative FL_E* code with the message kept.
 */
#ifndef FL_MACHINE_BOXES_H
#define FL_MACHINE_BOXES_H

#include <stddef.h>
#include <stdint.h>

/* A file the box downloads: its path on this host, SHA-256 and size. */
struct fl_box_file {
	const char *path;
	const char *sha256;
	int64_t size;
};

/* An agent job to publish for a box. */
struct fl_box_job_new {
	const char *box;
	int64_t run_id;
	const char *mode;		   /* kexec, current */
	const char *job;		   /* the agent's job text (fl.job=) */
	const char *cmdline;		   /* the kernel command line, without the box's own part */
	struct fl_box_file kernel, initrd; /* kexec only */
	int64_t created_ms, deadline_ms;   /* wall clock */
};

/* An agent job as the queue has it now. */
struct fl_box_job {
	char *state;		  /* queued, fetched, booting, running, uploaded, failed, ... */
	int live;		  /* not ended yet */
	char *progress, *message; /* NULL until said */
	int64_t created_ms, fetched_ms, progress_ms; /* 0: not yet */
};
void fl_box_job_release(struct fl_box_job *j);

/* A box as it was last heard from. */
struct fl_box_seen {
	char *state;  /* online, offline */
	char *reason; /* why offline; may be NULL */
	char *facts;  /* JSON the box reported; may be NULL */
	int64_t last_seen_ms;
};
void fl_box_seen_release(struct fl_box_seen *b);

struct fl_boxes_ops {
	/* The box; FL_ENOTFOUND for one never heard from. */
	int (*box)(void *ctx, const char *name, struct fl_box_seen *b);
	/* Publishes the job: the box gets it when it next asks for work. */
	int (*publish)(void *ctx, const struct fl_box_job_new *j, int64_t *id);
	int (*job)(void *ctx, int64_t id, struct fl_box_job *j);
	/* Ends a live job (expired, cancelled); FL_EEXISTS when it had ended. */
	int (*end)(void *ctx, int64_t id, const char *state, const char *message, int64_t now_ms);
	/* One more missed deadline; at max the box is offline with why (*offline 1). */
	int (*miss)(void *ctx, const char *box, int max, const char *why, int *offline);
	/* The job's uploaded frames in seq order, one per line (caller frees). */
	int (*records)(void *ctx, int64_t id, char **text, size_t *len);
};

struct fl_boxes {
	const struct fl_boxes_ops *ops;
	void *ctx;
};

#endif
