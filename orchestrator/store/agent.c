/*
 * store/agent.c - the statements of boxes, agent jobs and their uploaded
 * records (see store/agent.h).
 */
#include "store/agent.h"
#include "store/priv.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <stdlib.h>
#include <string.h>

#define LIVE "('queued', 'fetched', 'booting', 'running')"

static void bind_str(fl_stmt *stmt, int col, const char *s)
{
	fl_stmt_bind_text(stmt, col, s);
}

static int64_t column_ms(fl_stmt *stmt, int col)
{
	return fl_stmt_column_type(stmt, col) == FL_SQL_NULL ? 0 : fl_stmt_column_int64(stmt, col);
}

/* ---- boxes ---------------------------------------------------------- */

void fl_box_release(struct fl_box *b)
{
	free(b->name);
	free(b->state);
	free(b->facts);
	free(b->reason);
	memset(b, 0, sizeof(*b));
}

int fl_store_box_seen(fl_store *st, const char *name, const char *facts, int64_t now_ms)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO boxes(name, facts, last_seen_ms) VALUES (?1, ?2, ?3) "
			     "ON CONFLICT(name) DO UPDATE SET state = 'online', misses = 0, "
			     "reason = NULL, last_seen_ms = ?3, facts = coalesce(?2, boxes.facts)"))
		return FL_ESTORE;
	bind_str(stmt, 1, name);
	bind_str(stmt, 2, facts);
	fl_stmt_bind_int64(stmt, 3, now_ms);
	return fl_store_step_done(st, stmt, "box seen");
}

int fl_store_box_get(fl_store *st, const char *name, struct fl_box *b)
{
	fl_stmt *stmt;
	int r;

	memset(b, 0, sizeof(*b));
	if (fl_store_prepare(st, &stmt,
			     "SELECT name, state, facts, reason, last_seen_ms, misses FROM boxes "
			     "WHERE name = ?1"))
		return FL_ESTORE;
	bind_str(stmt, 1, name);
	if ((r = fl_store_row(st, stmt, "get box")) <= 0)
		return r ? r
			 : fl_error_set(FL_ENOTFOUND, "box '%s' has never asked for work", name);
	b->name = fl_store_column_dup(stmt, 0);
	b->state = fl_store_column_dup(stmt, 1);
	b->facts = fl_store_column_dup(stmt, 2);
	b->reason = fl_store_column_dup(stmt, 3);
	b->last_seen_ms = column_ms(stmt, 4);
	b->misses = fl_stmt_column_int(stmt, 5);
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_box_miss(fl_store *st, const char *name, int max, const char *why, int *offline)
{
	fl_stmt *stmt;
	int rc;

	*offline = 0;
	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO boxes(name, misses) VALUES (?1, 1) "
			     "ON CONFLICT(name) DO UPDATE SET misses = boxes.misses + 1 "
			     "RETURNING misses"))
		return FL_ESTORE;
	bind_str(stmt, 1, name);
	rc = fl_stmt_step(stmt);
	*offline = rc == FL_SQL_ROW && fl_stmt_column_int(stmt, 0) >= max;
	fl_stmt_finalize(stmt);
	if (rc != FL_SQL_ROW)
		return fl_store_sqlerr(st, "box missed a deadline");
	if (!*offline)
		return 0;
	if (fl_store_prepare(st, &stmt,
			     "UPDATE boxes SET state = 'offline', reason = ?2 WHERE name = ?1"))
		return FL_ESTORE;
	bind_str(stmt, 1, name);
	bind_str(stmt, 2, why);
	return fl_store_step_done(st, stmt, "box offline");
}

/* ---- agent jobs ----------------------------------------------------- */

static void bind_file(fl_stmt *stmt, int col, const struct fl_agent_file *f)
{
	bind_str(stmt, col, f->path);
	bind_str(stmt, col + 1, f->sha256);
	if (f->path)
		fl_stmt_bind_int64(stmt, col + 2, f->size);
	else
		fl_stmt_bind_null(stmt, col + 2);
}

int fl_store_agent_job_add(fl_store *st, const struct fl_agent_job_new *j, int64_t *id)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO agent_jobs(box, run_id, mode, job, cmdline, kernel_path, "
			     "kernel_sha256, kernel_size, initrd_path, initrd_sha256, initrd_size, "
			     "created_ms, deadline_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
			     "?10, ?11, ?12, ?13) RETURNING id"))
		return FL_ESTORE;
	bind_str(stmt, 1, j->box);
	fl_stmt_bind_int64(stmt, 2, j->run_id);
	bind_str(stmt, 3, j->mode);
	bind_str(stmt, 4, j->job);
	bind_str(stmt, 5, j->cmdline);
	bind_file(stmt, 6, &j->kernel);
	bind_file(stmt, 9, &j->initrd);
	fl_stmt_bind_int64(stmt, 12, j->created_ms);
	fl_stmt_bind_int64(stmt, 13, j->deadline_ms);
	return fl_store_insert_id(st, stmt, "add agent job", id);
}

void fl_agent_job_release(struct fl_agent_job *j)
{
	free(j->box);
	free(j->mode);
	free(j->job);
	free(j->cmdline);
	free(j->state);
	free(j->kernel_path);
	free(j->kernel_sha256);
	free(j->initrd_path);
	free(j->initrd_sha256);
	free(j->progress);
	free(j->message);
	memset(j, 0, sizeof(*j));
}

int fl_agent_job_live(const struct fl_agent_job *j)
{
	static const char *const live[] = {"queued", "fetched", "booting", "running"};

	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]); i++)
		if (j->state && !strcmp(j->state, live[i]))
			return 1;
	return 0;
}

#define JOB_COLUMNS                                                                                \
	"id, run_id, box, mode, job, cmdline, state, kernel_path, kernel_sha256, kernel_size, "    \
	"initrd_path, initrd_sha256, initrd_size, progress, message, records, created_ms, "        \
	"deadline_ms, fetched_ms, progress_ms, finished_ms"

static void read_job(fl_stmt *stmt, struct fl_agent_job *j)
{
	char **text[] = {&j->box,   &j->mode,	     &j->job,	       &j->cmdline,
			 &j->state, &j->kernel_path, &j->kernel_sha256};

	j->id = fl_stmt_column_int64(stmt, 0);
	j->run_id = fl_stmt_column_int64(stmt, 1);
	for (int i = 0; i < 7; i++)
		*text[i] = fl_store_column_dup(stmt, 2 + i);
	j->kernel_size = fl_stmt_column_int64(stmt, 9);
	j->initrd_path = fl_store_column_dup(stmt, 10);
	j->initrd_sha256 = fl_store_column_dup(stmt, 11);
	j->initrd_size = fl_stmt_column_int64(stmt, 12);
	j->progress = fl_store_column_dup(stmt, 13);
	j->message = fl_store_column_dup(stmt, 14);
	j->records =
	    fl_stmt_column_type(stmt, 15) == FL_SQL_NULL ? -1 : fl_stmt_column_int64(stmt, 15);
	j->created_ms = column_ms(stmt, 16);
	j->deadline_ms = column_ms(stmt, 17);
	j->fetched_ms = column_ms(stmt, 18);
	j->progress_ms = column_ms(stmt, 19);
	j->finished_ms = column_ms(stmt, 20);
}

/* Steps a SELECT of JOB_COLUMNS: 0 with the row, FL_ENOTFOUND, or a store error. */
static int one_job(fl_store *st, fl_stmt *stmt, struct fl_agent_job *j, const char *what)
{
	int r = fl_store_row(st, stmt, what);

	memset(j, 0, sizeof(*j));
	if (r <= 0)
		return r ? r : FL_ENOTFOUND;
	read_job(stmt, j);
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_agent_job_get(fl_store *st, int64_t id, struct fl_agent_job *j)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt, "SELECT " JOB_COLUMNS " FROM agent_jobs WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	r = one_job(st, stmt, j, "get agent job");
	return r == FL_ENOTFOUND ? fl_error_set(FL_ENOTFOUND, "no agent job %lld", (long long)id)
				 : r;
}

/* Live jobs of the box whose run ended without them (its process died) are nobody's any more. */
static int cancel_orphans(fl_store *st, const char *box, int64_t now_ms)
{
	fl_stmt *stmt;

	if (fl_store_prepare(
		st, &stmt,
		"UPDATE agent_jobs SET state = 'cancelled', finished_ms = ?2, message = "
		"'its run ended without it' WHERE box = ?1 AND state IN " LIVE
		" AND run_id NOT IN (SELECT id FROM runs WHERE status = 'running')"))
		return FL_ESTORE;
	bind_str(stmt, 1, box);
	fl_stmt_bind_int64(stmt, 2, now_ms);
	return fl_store_step_done(st, stmt, "cancel orphaned agent jobs");
}

static int oldest_live(fl_store *st, const char *box, int64_t now_ms, struct fl_agent_job *j)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "SELECT " JOB_COLUMNS
			     " FROM agent_jobs WHERE box = ?1 AND state IN " LIVE
			     " AND deadline_ms > ?2 ORDER BY id LIMIT 1"))
		return FL_ESTORE;
	bind_str(stmt, 1, box);
	fl_stmt_bind_int64(stmt, 2, now_ms);
	return one_job(st, stmt, j, "next agent job");
}

static int mark_fetched(fl_store *st, struct fl_agent_job *j, int64_t now_ms)
{
	fl_stmt *stmt;

	if (fl_store_prepare(
		st, &stmt,
		"UPDATE agent_jobs SET state = 'fetched', fetched_ms = ?2 WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, j->id);
	fl_stmt_bind_int64(stmt, 2, now_ms);
	free(j->state);
	j->state = fl_xstrdup("fetched");
	j->fetched_ms = now_ms;
	return fl_store_step_done(st, stmt, "hand out agent job");
}

int fl_store_agent_job_next(fl_store *st, const char *box, int64_t now_ms, struct fl_agent_job *j)
{
	int r;

	memset(j, 0, sizeof(*j));
	if (fl_store_tx_begin(st))
		return FL_ESTORE;
	r = cancel_orphans(st, box, now_ms);
	if (!r)
		r = oldest_live(st, box, now_ms, j);
	if (!r && !strcmp(j->state, "queued"))
		r = mark_fetched(st, j, now_ms);
	if ((!r || r == FL_ENOTFOUND) && !fl_store_tx_commit(st))
		return r;
	fl_agent_job_release(j);
	fl_store_tx_rollback(st);
	return r && r != FL_ENOTFOUND ? r : FL_ESTORE;
}

/*
 * An UPDATE of one live job with ?1 id, ?2 state, ?3 message, ?4 records
 * (NULL when negative), ?5 now: FL_EEXISTS when the job is not live.
 */
static int update_live(fl_store *st, const char *sql, int64_t id, const char *state,
		       const char *message, int64_t records, int64_t now_ms, const char *what)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt, sql))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	bind_str(stmt, 2, state);
	bind_str(stmt, 3, message);
	if (records >= 0)
		fl_stmt_bind_int64(stmt, 4, records);
	fl_stmt_bind_int64(stmt, 5, now_ms);
	r = fl_store_step_done(st, stmt, what);
	if (!r && !fl_sql_changes(st->db))
		r = fl_error_set(FL_EEXISTS, "agent job %lld has ended", (long long)id);
	return r;
}

int fl_store_agent_job_progress(fl_store *st, int64_t id, const char *state, const char *message,
				int64_t now_ms)
{
	if (strcmp(state, "booting") && strcmp(state, "running"))
		return fl_error_set(FL_EINVAL, "progress state '%s': expected booting or running",
				    state);
	return update_live(st,
			   "UPDATE agent_jobs SET state = ?2, progress = ?3, progress_ms = ?5 "
			   "WHERE id = ?1 AND state IN " LIVE,
			   id, state, message, -1, now_ms, "agent job progress");
}

int fl_store_agent_job_end(fl_store *st, int64_t id, const char *state, const char *message,
			   int64_t records, int64_t now_ms)
{
	return update_live(st,
			   "UPDATE agent_jobs SET state = ?2, message = ?3, records = ?4, "
			   "finished_ms = ?5 WHERE id = ?1 AND state IN " LIVE,
			   id, state, message, records, now_ms, "end agent job");
}

/* ---- records -------------------------------------------------------- */

int fl_store_agent_records_add(fl_store *st, int64_t job_id, const struct fl_agent_frame *f,
			       size_t n, int64_t now_ms, size_t *added)
{
	fl_stmt *stmt;
	int r = 0;

	*added = 0;
	if (fl_store_tx_begin(st))
		return FL_ESTORE;
	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO agent_records(job_id, seq, frame, received_ms) "
			     "VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING")) {
		fl_store_tx_rollback(st);
		return FL_ESTORE;
	}
	for (size_t i = 0; i < n && !r; i++) {
		fl_stmt_reset(stmt);
		fl_stmt_bind_int64(stmt, 1, job_id);
		fl_stmt_bind_int64(stmt, 2, (int64_t)f[i].seq);
		fl_stmt_bind_textn(stmt, 3, f[i].text, f[i].len);
		fl_stmt_bind_int64(stmt, 4, now_ms);
		if (fl_stmt_step(stmt) != FL_SQL_DONE)
			r = fl_store_sqlerr(st, "add agent record");
		else
			*added += (size_t)fl_sql_changes(st->db);
	}
	fl_stmt_finalize(stmt);
	if (!r && !(r = fl_store_tx_commit(st)))
		return 0;
	fl_store_tx_rollback(st);
	*added = 0;
	return r;
}

int fl_store_agent_records_count(fl_store *st, int64_t job_id, int64_t want, size_t *n,
				 char **missing)
{
	fl_stmt *stmt;
	fl_buf b = FL_BUF_INIT;
	int64_t expect = 0;
	int rc, listed = 0;

	*n = 0;
	if (missing)
		*missing = NULL;
	if (fl_store_prepare(st, &stmt,
			     "SELECT seq FROM agent_records WHERE job_id = ?1 "
			     "ORDER BY seq"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, job_id);
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		int64_t seq = fl_stmt_column_int64(stmt, 0);

		for (; expect < seq && expect < want && listed < 10; expect++, listed++)
			fl_buf_addf(&b, "%s%lld", b.len ? ", " : "", (long long)expect);
		expect = seq + 1;
		(*n)++;
	}
	fl_stmt_finalize(stmt);
	for (; expect < want && listed < 10; expect++, listed++)
		fl_buf_addf(&b, "%s%lld", b.len ? ", " : "", (long long)expect);
	if (rc != FL_SQL_DONE) {
		fl_buf_free(&b);
		return fl_store_sqlerr(st, "count agent records");
	}
	if (missing)
		*missing = fl_buf_detach(&b);
	else
		fl_buf_free(&b);
	return 0;
}

int fl_store_agent_records_text(fl_store *st, int64_t job_id, char **text, size_t *len)
{
	fl_stmt *stmt;
	fl_buf b = FL_BUF_INIT;
	int rc;

	*text = NULL;
	*len = 0;
	if (fl_store_prepare(st, &stmt,
			     "SELECT frame FROM agent_records WHERE job_id = ?1 ORDER BY seq"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, job_id);
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		fl_buf_add(&b, fl_stmt_column_text(stmt, 0), fl_stmt_column_bytes(stmt, 0));
		fl_buf_addch(&b, '\n');
	}
	fl_stmt_finalize(stmt);
	if (rc != FL_SQL_DONE) {
		fl_buf_free(&b);
		return fl_store_sqlerr(st, "agent records");
	}
	*len = b.len;
	*text = fl_buf_detach(&b);
	return 0;
}
