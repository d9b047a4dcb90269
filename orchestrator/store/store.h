/*
 * store.h - the store that holds everything faultline knows: an SQLite
 * file, or a PostgreSQL database (store/sql.h's backends).
 *
 * This module owns all SQL: other modules call the functions here and never
 * see a statement or a table. The file is opened in WAL mode with foreign
 * keys on and a busy timeout, and versioned migrations (PRAGMA user_version)
 * are applied on open. Every write that touches more than one row runs in
 * one transaction: a failed write leaves nothing half-done.
 */
#ifndef FL_STORE_H
#define FL_STORE_H

#include <stddef.h>
#include <stdint.h>

typedef struct fl_store fl_store;

enum {
	FL_STORE_READONLY = 1 << 0, /* the web pages: never block the service's writes */
	FL_STORE_NO_MIGRATE = 1 << 1, /* open as is; fl_store_migrate() later */
};

/* path: an SQLite file, created (with its directory) if needed, or a
 * postgresql:// URL (config.h's store.path; docs/config.md). */
int fl_store_open(fl_store **out, const char *path, unsigned flags);
/* 1 when path names an SQLite file, 0 when a database server's URL. */
int fl_store_is_file(const char *path);
void fl_store_free(fl_store *st);

/* The schema version of the open store (or FL_ESTORE), and the newest this
 * build knows. */
int fl_store_version(fl_store *st);
int fl_store_latest_version(void);
/* Applies migrations up to version 'upto' (0 for the newest); *from gets the old version. */
int fl_store_migrate(fl_store *st, int upto, int *from);

/* Explicit transactions for callers that compose several writes (tx: a
 * transaction; fl_store_commit_* are the rows of git commits). */
int fl_store_tx_begin(fl_store *st);
int fl_store_tx_commit(fl_store *st);
void fl_store_tx_rollback(fl_store *st);

/* Trees and commits: rows are created on first sight and found after. */
int fl_store_tree_ensure(fl_store *st, const char *name, const char *url, int64_t *id);
struct fl_commit_info {
	const char *sha; /* full hex */
	const char *subject;
	const char *author;
	int64_t time; /* seconds since the epoch */
};
int fl_store_commit_ensure(fl_store *st, int64_t tree_id, const struct fl_commit_info *c,
			   int64_t *id);
/* A commit's place in its tree's history, the length of its first-parent
 * line, itself included (build/repo.h's fl_repo_depth): the pages order a
 * tree's commits by it. Kept once known (0: left unknown). */
int fl_store_commit_depth(fl_store *st, int64_t id, int64_t depth);
/* 1 when the commit's depth is not stored yet, 0 when it is. */
int fl_store_commit_needs_depth(fl_store *st, int64_t id);

int fl_store_machine_ensure(fl_store *st, const char *name, const char *backend, int64_t *id);

/* Runs and their samples (store/run.c, the one file that writes the runs table). */
struct fl_run_info {
	int64_t build_id; /* 0: none (command backend, prebuilt image) */
	int64_t machine_id;
	const char *benchmark;
	const char *params; /* JSON */
	int64_t job_id;	    /* 0: none; the watch service's run job (store/jobs.h) */
	int64_t commit_id;  /* 0: none; the commit measured, when there is no build */
};
int fl_store_run_create(fl_store *st, const struct fl_run_info *r, int64_t *id);
/* status: ok, boot-failed, panic, timeout, agent-error, infra-error */
int fl_store_run_finish(fl_store *st, int64_t run_id, const char *status, const char *console);

struct fl_sample {
	const char *metric; /* ops_per_sec, per_thread_ops, ... */
	const char *mode;   /* processes, threads, or "" */
	unsigned tasks;
	unsigned seq; /* sample number within the run */
	double value;
	const char *cgroup; /* the point's cgroup context: NULL or "" the root, "child" */
};
/* All of them or none. */
int fl_store_samples_add(fl_store *st, int64_t run_id, const struct fl_sample *s, size_t n);
int fl_store_samples_count(fl_store *st, int64_t run_id, size_t *count);
int fl_store_run_status(fl_store *st, int64_t run_id, char **status);

/*
 * Reports (store/report.c): stored pending before they are sent, marked
 * sent after; a failed attempt is rescheduled, never dropped.
 */
struct fl_report_new {
	int64_t regression_id; /* 0: none */
	const char *message_id;
	const char *subject;
	const char *body;
};
/* What a report may carry besides (fl_store_report_add_with). */
struct fl_report_extra {
	/* NULL: report.to. Lines "to ADDR" and "cc ADDR"; a follow-up without
	 * its own takes its thread's first report's. */
	const char *recipients;
	const char *held; /* hold mode: whom it would have gone to, lines as above */
	const char *attach_name, *attach; /* one text/plain attachment, or NULL */
	const char *in_reply_to;	  /* the mail it answers; NULL: the thread's first report */
};
struct fl_report {
	int64_t id, regression_id;
	char *message_id;
	char *in_reply_to; /* the mail it answers (the first report on the same
			    * regression, or a reply to it), or NULL */
	char *subject, *body;
	char *state; /* pending, sent */
	int attempts;
	char *last_error;
	int64_t created, sent;
	char *recipients, *held, *attach_name, *attach; /* see fl_report_new */
};
int fl_store_report_add(fl_store *st, const struct fl_report_new *r, int64_t *id);
/* The same with recipients and an attachment (x NULL: none). */
int fl_store_report_add_with(fl_store *st, const struct fl_report_new *r,
			     const struct fl_report_extra *x, int64_t *id);
int fl_store_report_get(fl_store *st, int64_t id, struct fl_report *r);
/* The first report on a regression (the thread a follow-up replies in):
 * FL_ENOTFOUND when none was stored. */
int fl_store_report_first(fl_store *st, int64_t regression_id, struct fl_report *r);
/* Pending reports whose next attempt is due at 'now' (seconds), oldest first. */
int fl_store_reports_due(fl_store *st, int64_t now, struct fl_report **out, size_t *n);
/* Every report (regression_id 0) or a regression's, newest first. */
int fl_store_reports_list(fl_store *st, int64_t regression_id, struct fl_report **out, size_t *n);
/* A due report claimed by worker to send it, if it was pending, due at now
 * and nobody's (*claimed); sent and retry end the claim (store/jobs.h: a
 * gone worker's claims end when its work is taken over). */
int fl_store_report_claim(fl_store *st, int64_t id, int64_t now, const char *worker,
			  int *claimed);
int fl_store_report_sent(fl_store *st, int64_t id, int64_t now);
int fl_store_report_retry(fl_store *st, int64_t id, const char *error, int64_t next_attempt);
void fl_store_report_clear(struct fl_report *r);
void fl_store_reports_free(struct fl_report *r, size_t n);

/*
 * Builds (store/build.c), keyed by (commit, config hash, compiler). status:
 * building, ok, build-failed (the commit does not build: untestable),
 * error (our trouble: disk, toolchain, timeout). An evicted artifact keeps
 * its row with artifact NULL.
 */
struct fl_build_row {
	int64_t id;
	char *status;
	char *artifact; /* NULL when evicted or failed */
	char *error;
	int64_t duration_ms;
};
int fl_store_build_find(fl_store *st, int64_t commit_id, const char *config_hash,
			const char *compiler, struct fl_build_row *row);
void fl_store_build_row_release(struct fl_build_row *row);
/* A build's kernel entry, compiler version line and artifact (NULL when
 * evicted), for a report (caller frees the three): FL_ENOTFOUND for none. */
int fl_store_build_about(fl_store *st, int64_t id, char **kernel, char **compiler,
			 char **artifact);
/* Creates the row, or resets an old one, as 'building'. */
int fl_store_build_start(fl_store *st, int64_t commit_id, const char *kernel,
			 const char *config_hash, const char *compiler, int64_t *id);
struct fl_build_outcome {
	const char *status;
	const char *artifact;
	const char *log; /* the log's tail for failures */
	const char *error; /* first error line */
	int64_t duration_ms;
	uint64_t size;
};
int fl_store_build_finish(fl_store *st, int64_t id, const struct fl_build_outcome *o);
int fl_store_build_touch(fl_store *st, int64_t id);
/* Bytes held by artifacts still on disk. */
int fl_store_build_cache_size(fl_store *st, uint64_t *total);
/* The least recently used artifact other than keep_id; FL_ENOTFOUND when none. */
int fl_store_build_lru(fl_store *st, int64_t keep_id, int64_t *id, char **artifact);
int fl_store_build_evicted(fl_store *st, int64_t id);

#endif
