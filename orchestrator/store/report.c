/*
 * store/report.c - the reports table: a report is stored before it is sent
 * and marked sent after, so a crash between the two resends at worst one
 * message and never loses one (see store.h).
 */
#include "store/store.h"
#include "store/priv.h"
#include "store/triage.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <stdlib.h>

int fl_store_report_add(fl_store *st, const struct fl_report_new *r, int64_t *id)
{
	return fl_store_report_add_with(st, r, NULL, id);
}

int fl_store_report_add_with(fl_store *st, const struct fl_report_new *r,
			     const struct fl_report_extra *x, int64_t *id)
{
	static const struct fl_report_extra none;
	fl_stmt *stmt;

	/* A follow-up on the same regression threads under its first report
	 * (or under the reply it answers). */
	if (fl_store_prepare(
		st, &stmt,
		"INSERT INTO reports(regression_id, message_id, subject, body, "
		"in_reply_to, recipients, held, attach_name, attach) VALUES (?1, ?2, ?3, "
		"?4, coalesce(?9, (SELECT message_id FROM reports WHERE regression_id = ?1 "
		"ORDER BY id LIMIT 1)), coalesce(?5, (SELECT recipients FROM reports WHERE "
		"regression_id = ?1 ORDER BY id LIMIT 1)), coalesce(?6, (SELECT held "
		"FROM reports WHERE regression_id = ?1 ORDER BY id LIMIT 1)), ?7, ?8) "
		"RETURNING id"))
		return FL_ESTORE;
	fl_store_bind_id(stmt, 1, r->regression_id);
	fl_stmt_bind_text(stmt, 2, r->message_id);
	fl_stmt_bind_text(stmt, 3, r->subject);
	fl_stmt_bind_text(stmt, 4, r->body);
	x = x ? x : &none;
	fl_store_bind_opt(stmt, 5, x->recipients);
	fl_store_bind_opt(stmt, 6, x->held);
	fl_store_bind_opt(stmt, 7, x->attach_name);
	fl_store_bind_opt(stmt, 8, x->attach);
	fl_store_bind_opt(stmt, 9, x->in_reply_to);
	return fl_store_insert_id(st, stmt, "insert report", id);
}

static void read_row(fl_stmt *stmt, struct fl_report *r)
{
	r->id = fl_stmt_column_int64(stmt, 0);
	r->regression_id = fl_stmt_column_int64(stmt, 1);
	r->message_id = fl_store_column_dup(stmt, 2);
	r->in_reply_to = fl_store_column_dup(stmt, 3);
	r->subject = fl_store_column_dup(stmt, 4);
	r->body = fl_store_column_dup(stmt, 5);
	r->state = fl_store_column_dup(stmt, 6);
	r->attempts = fl_stmt_column_int(stmt, 7);
	r->last_error = fl_store_column_dup(stmt, 8);
	r->created = fl_stmt_column_int64(stmt, 9);
	r->sent = fl_stmt_column_int64(stmt, 10);
	r->recipients = fl_store_column_dup(stmt, 11);
	r->held = fl_store_column_dup(stmt, 12);
	r->attach_name = fl_store_column_dup(stmt, 13);
	r->attach = fl_store_column_dup(stmt, 14);
}

#define REPORT_COLUMNS                                                                             \
	"id, coalesce(regression_id, 0), message_id, in_reply_to, subject, body, state, "          \
	"attempts, last_error, created, coalesce(sent, 0), recipients, held, attach_name, attach"

/* The report the query (one id parameter) finds; FL_ENOTFOUND saying what is missing. */
static int report_one(fl_store *st, const char *sql, int64_t id, struct fl_report *r,
		      const char *missing)
{
	fl_stmt *stmt;
	int rc;

	if (fl_store_prepare(st, &stmt, sql))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	if ((rc = fl_store_row(st, stmt, "read report")) <= 0)
		return rc ? rc : fl_error_set(FL_ENOTFOUND, "%s %lld", missing, (long long)id);
	read_row(stmt, r);
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_report_get(fl_store *st, int64_t id, struct fl_report *r)
{
	return report_one(st, "SELECT " REPORT_COLUMNS " FROM reports WHERE id = ?1", id, r,
			  "no report");
}

int fl_store_report_first(fl_store *st, int64_t regression_id, struct fl_report *r)
{
	return report_one(st,
			  "SELECT " REPORT_COLUMNS " FROM reports WHERE regression_id = ?1 "
			  "ORDER BY id LIMIT 1",
			  regression_id, r, "no report on regression");
}

int fl_store_report_by_message_id(fl_store *st, const char *mid, struct fl_report *r)
{
	fl_stmt *stmt;
	int rc;

	if (fl_store_prepare(st, &stmt,
			     "SELECT " REPORT_COLUMNS " FROM reports WHERE message_id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_text(stmt, 1, mid);
	if ((rc = fl_store_row(st, stmt, "report by Message-ID")) <= 0)
		return rc ? rc : fl_error_set(FL_ENOTFOUND, "no report with Message-ID %s", mid);
	read_row(stmt, r);
	fl_stmt_finalize(stmt);
	return 0;
}

/* The reports the query (one integer parameter) finds, in its order. */
static int report_many(fl_store *st, const char *sql, int64_t arg, struct fl_report **out,
		       size_t *n, const char *what)
{
	fl_stmt *stmt;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (fl_store_prepare(st, &stmt, sql))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, arg);
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 8;
			*out = fl_xrealloc(*out, alloc * sizeof(**out));
		}
		read_row(stmt, &(*out)[(*n)++]);
	}
	fl_stmt_finalize(stmt);
	if (rc != FL_SQL_DONE) {
		fl_store_reports_free(*out, *n);
		*out = NULL;
		*n = 0;
		return fl_store_sqlerr(st, what);
	}
	return 0;
}

int fl_store_reports_due(fl_store *st, int64_t now, struct fl_report **out, size_t *n)
{
	return report_many(st,
			   "SELECT " REPORT_COLUMNS " FROM reports WHERE state = 'pending' AND "
			   "next_attempt <= ?1 AND worker IS NULL ORDER BY id",
			   now, out, n, "pending reports");
}

int fl_store_reports_list(fl_store *st, int64_t regression_id, struct fl_report **out, size_t *n)
{
	return report_many(st,
			   "SELECT " REPORT_COLUMNS " FROM reports WHERE ?1 = 0 OR regression_id = "
			   "?1 ORDER BY id DESC",
			   regression_id, out, n, "list reports");
}

int fl_store_report_claim(fl_store *st, int64_t id, int64_t now, const char *worker,
			  int *claimed)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt,
			     "UPDATE reports SET worker = ?3 WHERE id = ?1 AND state = 'pending' AND "
			     "next_attempt <= ?2 AND worker IS NULL"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	fl_stmt_bind_int64(stmt, 2, now);
	fl_stmt_bind_text(stmt, 3, worker);
	if ((r = fl_store_step_done(st, stmt, "claim report")))
		return r;
	*claimed = fl_sql_changes(st->db) > 0;
	return 0;
}

int fl_store_report_sent(fl_store *st, int64_t id, int64_t now)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "UPDATE reports SET state = 'sent', sent = ?2, attempts = attempts + 1, "
			     "last_error = NULL, worker = NULL WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	fl_stmt_bind_int64(stmt, 2, now);
	return fl_store_step_done(st, stmt, "mark report sent");
}

int fl_store_report_retry(fl_store *st, int64_t id, const char *error, int64_t next_attempt)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "UPDATE reports SET attempts = attempts + 1, last_error = ?2, "
			     "next_attempt = ?3, worker = NULL WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	fl_stmt_bind_text(stmt, 2, error);
	fl_stmt_bind_int64(stmt, 3, next_attempt);
	return fl_store_step_done(st, stmt, "reschedule report");
}

void fl_store_report_clear(struct fl_report *r)
{
	free(r->message_id);
	free(r->in_reply_to);
	free(r->subject);
	free(r->body);
	free(r->state);
	free(r->last_error);
	free(r->recipients);
	free(r->held);
	free(r->attach_name);
	free(r->attach);
}

void fl_store_reports_free(struct fl_report *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fl_store_report_clear(&r[i]);
	free(r);
}
