/*
 * store/priv.h - what the files of store/ share; nothing outside the store
 * includes this (the rest of faultline never sees SQL): the connection (a
 * backend of store/sql.h), the
 * statement helpers, and the rules of a table that the queries of other
 * files take from its owner rather than spell again.
 */
#ifndef FL_STORE_PRIV_H
#define FL_STORE_PRIV_H

#include "store/sql.h"

#include <stddef.h>
#include <stdint.h>

struct fl_store {
	struct fl_sql *db;
	char *path;
};

/* Migration i (it brings schema version i to i + 1, store/migrations.c) in the
 * store's dialect, or PostgreSQL's own text for pg where it has one. */
const char *fl_store_migration(int i, int pg);

int fl_store_sqlerr(struct fl_store *st, const char *what);
int fl_store_exec(struct fl_store *st, const char *sql);
int fl_store_prepare(struct fl_store *st, fl_stmt **stmt, const char *sql);
int fl_store_step_done(struct fl_store *st, fl_stmt *stmt, const char *what);
/*
 * Steps a statement that reads one row at most: 1 with the row (the caller
 * reads its columns, then finalizes stmt), 0 when there is none, or a
 * negative store error naming what; stmt is finalized unless there is a row.
 * The one way the store's files read a single row; whether none is an error
 * (FL_ENOTFOUND and what to say) is the caller's.
 */
int fl_store_row(struct fl_store *st, fl_stmt *stmt, const char *what);
/* Steps an INSERT ... RETURNING id, reads the id, finalizes it. */
int fl_store_insert_id(struct fl_store *st, fl_stmt *stmt, const char *what, int64_t *id);
/* Binds s as text (copied), or SQL NULL when s is NULL. */
void fl_store_bind_opt(fl_stmt *stmt, int i, const char *s);
/* Binds an id, or SQL NULL for 0 (no row). */
void fl_store_bind_id(fl_stmt *stmt, int i, int64_t id);
/* A text column as a fresh string, NULL for SQL NULL. */
char *fl_store_column_dup(fl_stmt *stmt, int col);
/* "[1,2.5]" (bisect_steps.samples) -> values (caller frees *v); malformed
 * text ends the list where it stops parsing. */
size_t fl_store_parse_numbers(const char *s, double **v);

/*
 * Runs (store/run.c owns the table). A run belongs to the commit in
 * runs.commit_id, or for rows written before the run path kept it, to its
 * build's commit: FL_RUN_COMMIT(r, b) is that commit for run r joined to
 * its build b, FL_RUNS_OF_COMMIT(c, cond) the ids of the runs of the
 * commits c (an SQL list: "?1", "SELECT id FROM commits WHERE sha = ?1")
 * for which cond holds (on the run, alias x). Each branch goes through its
 * index: INDEXED BY because a store whose runs mostly predate commit_id
 * must not make the planner scan them all, and the unary + keeps
 * "commit_id IS NULL" a filter rather than a walk of runs_by_commit (write
 * + before x's other columns in cond that should not pick the index).
 */
#define FL_RUN_COMMIT(r, b) "coalesce(" r ".commit_id, " b ".commit_id)"
#define FL_RUNS_OF_COMMIT(c, cond)                                                                 \
	"SELECT x.id FROM runs x INDEXED BY runs_by_commit WHERE x.commit_id IN (" c ") AND " cond \
	" UNION ALL SELECT x.id FROM builds y JOIN runs x ON x.build_id = y.id WHERE "             \
	"y.commit_id IN (" c ") AND +x.commit_id IS NULL AND " cond
/* The states of a run in progress (the partial index runs_active is on
 * exactly "status IN " FL_RUN_ACTIVE). */
#define FL_RUN_ACTIVE "('queued', 'running')"

/*
 * Jobs (store/jobs.c owns the table; service/queue.c the policy): the
 * states are the service's words (service/pipeline.h); what the store's
 * statements read is whether a job has ended (jobs.ended, 1) or is live (0;
 * the partial index jobs_live is on exactly FL_JOB_LIVE). A job with a
 * parent is a run job (store/jobs.h): FL_JOB_RUNS(j) counts the run jobs of
 * coordinator j (an alias), FL_JOB_RUNS_ENDED(j) those that ended. The
 * kinds are the service's too: a page that wants a job of one kind is given
 * its name.
 */
#define FL_JOB_LIVE    "ended = 0"
#define FL_JOB_RUNS(j) "(SELECT count(*) FROM jobs k WHERE k.parent_id = " j ".id)"
#define FL_JOB_RUNS_ENDED(j)                                                                       \
	"(SELECT count(*) FROM jobs k WHERE k.parent_id = " j ".id AND k.ended = 1)"
/* The watch tag w of job j, a compare job's (a LEFT JOIN). */
#define FL_JOB_TAG(j, w) " LEFT JOIN watch_tags " w " ON " w ".id = " j ".tag_id "

/* Inserts samples inside the caller's transaction. */
struct fl_sample;
int fl_store_samples_insert(struct fl_store *st, int64_t run_id, const struct fl_sample *s,
			    size_t n);

#endif
