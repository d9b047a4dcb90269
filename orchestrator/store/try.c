/* store/try.c - the SQL of the tries table (see store/try.h). */
#include "store/try.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "store/priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void fl_try_release(struct fl_try *t)
{
	char **s[] = {&t->tree,	      &t->benchmark,  &t->machine, &t->base_sha, &t->good_sha,
		      &t->rev_sha,    &t->patch_name, &t->patch,   &t->points,	 &t->state,
		      &t->commit_sha, &t->ref,	      &t->subject, &t->conflict, &t->error,
		      &t->verdict,    &t->summary,	      &t->purpose, &t->tag};

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		free(*s[i]);
	memset(t, 0, sizeof(*t));
}

int fl_store_try_add(fl_store *st, const struct fl_try *t, int64_t *id)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO tries(tree, regression_id, benchmark, machine, base_sha, "
			     "good_sha, rev_sha, patch_name, patch, points, created, purpose, tag) "
			     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
			     "coalesce(?12, 'fix'), ?13) RETURNING id"))
		return FL_ESTORE;
	fl_stmt_bind_text(stmt, 1, t->tree);
	fl_store_bind_id(stmt, 2, t->regression_id);
	fl_stmt_bind_text(stmt, 3, t->benchmark);
	fl_stmt_bind_text(stmt, 4, t->machine);
	fl_stmt_bind_text(stmt, 5, t->base_sha);
	fl_store_bind_opt(stmt, 6, t->good_sha);
	fl_store_bind_opt(stmt, 7, t->rev_sha);
	fl_store_bind_opt(stmt, 8, t->patch_name);
	fl_store_bind_opt(stmt, 9, t->patch);
	fl_store_bind_opt(stmt, 10, t->points);
	fl_stmt_bind_int64(stmt, 11, t->created);
	fl_store_bind_opt(stmt, 12, t->purpose);
	fl_store_bind_opt(stmt, 13, t->tag);
	return fl_store_insert_id(st, stmt, "add try", id);
}

int fl_store_try_get(fl_store *st, int64_t id, struct fl_try *t)
{
	fl_stmt *stmt;
	int rc;

	memset(t, 0, sizeof(*t));
	if (fl_store_prepare(
		st, &stmt,
		"SELECT id, coalesce(regression_id, 0), tree, benchmark, machine, "
		"base_sha, good_sha, rev_sha, patch_name, patch, points, state, "
		"commit_sha, ref, subject, conflict, error, verdict, recovered_pct, "
		"coalesce(report_id, 0), created, coalesce(finished, 0), summary, purpose, tag "
		"FROM tries "
		"WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	if ((rc = fl_store_row(st, stmt, "try")) <= 0)
		return rc ? rc : fl_error_set(FL_ENOTFOUND, "no try %lld", (long long)id);
	t->id = fl_stmt_column_int64(stmt, 0);
	t->regression_id = fl_stmt_column_int64(stmt, 1);
	t->tree = fl_store_column_dup(stmt, 2);
	t->benchmark = fl_store_column_dup(stmt, 3);
	t->machine = fl_store_column_dup(stmt, 4);
	t->base_sha = fl_store_column_dup(stmt, 5);
	t->good_sha = fl_store_column_dup(stmt, 6);
	t->rev_sha = fl_store_column_dup(stmt, 7);
	t->patch_name = fl_store_column_dup(stmt, 8);
	t->patch = fl_store_column_dup(stmt, 9);
	t->points = fl_store_column_dup(stmt, 10);
	t->state = fl_store_column_dup(stmt, 11);
	t->commit_sha = fl_store_column_dup(stmt, 12);
	t->ref = fl_store_column_dup(stmt, 13);
	t->subject = fl_store_column_dup(stmt, 14);
	t->conflict = fl_store_column_dup(stmt, 15);
	t->error = fl_store_column_dup(stmt, 16);
	t->verdict = fl_store_column_dup(stmt, 17);
	t->recovered_pct =
	    fl_stmt_column_type(stmt, 18) == FL_SQL_NULL ? NAN : fl_stmt_column_double(stmt, 18);
	t->report_id = fl_stmt_column_int64(stmt, 19);
	t->created = fl_stmt_column_int64(stmt, 20);
	t->finished = fl_stmt_column_int64(stmt, 21);
	t->summary = fl_store_column_dup(stmt, 22);
	t->purpose = fl_store_column_dup(stmt, 23);
	t->tag = fl_store_column_dup(stmt, 24);
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_try_candidate(fl_store *st, int64_t id, const char *state, const char *commit_sha,
			   const char *ref, const char *subject, const char *conflict,
			   const char *error)
{
	fl_stmt *stmt;

	if (fl_store_prepare(
		st, &stmt,
		"UPDATE tries SET state = ?2, commit_sha = ?3, ref = ?4, subject = ?5, "
		"conflict = ?6, error = ?7 WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	fl_stmt_bind_text(stmt, 2, state);
	fl_store_bind_opt(stmt, 3, commit_sha);
	fl_store_bind_opt(stmt, 4, ref);
	fl_store_bind_opt(stmt, 5, subject);
	fl_store_bind_opt(stmt, 6, conflict);
	fl_store_bind_opt(stmt, 7, error);
	return fl_store_step_done(st, stmt, "try candidate");
}

int fl_store_try_conclude(fl_store *st, int64_t id, const char *verdict, double recovered_pct,
			  const char *summary, int64_t report_id, int64_t now)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "UPDATE tries SET verdict = ?2, recovered_pct = ?3, report_id = ?4, "
			     "finished = ?5, summary = ?6 WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	fl_stmt_bind_text(stmt, 2, verdict);
	if (isnan(recovered_pct))
		fl_stmt_bind_null(stmt, 3);
	else
		fl_stmt_bind_double(stmt, 3, recovered_pct);
	fl_store_bind_id(stmt, 4, report_id);
	fl_stmt_bind_int64(stmt, 5, now);
	fl_store_bind_opt(stmt, 6, summary);
	return fl_store_step_done(st, stmt, "conclude try");
}

int fl_store_tries_of(fl_store *st, int64_t regression_id, int64_t **ids, size_t *n)
{
	fl_stmt *stmt;
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*n = 0;
	if (fl_store_prepare(st, &stmt,
			     "SELECT id FROM tries WHERE regression_id = ?1 ORDER BY id"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, regression_id);
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 8;
			*ids = fl_xrealloc(*ids, cap * sizeof(**ids));
		}
		(*ids)[(*n)++] = fl_stmt_column_int64(stmt, 0);
	}
	fl_stmt_finalize(stmt);
	if (rc != FL_SQL_DONE) {
		free(*ids);
		*ids = NULL;
		*n = 0;
		return fl_store_sqlerr(st, "tries of a regression");
	}
	return 0;
}

int fl_store_try_fixcheck_find(fl_store *st, int64_t regression_id, const char *tag, int64_t *id)
{
	fl_stmt *stmt;
	int rc;

	*id = 0;
	if (fl_store_prepare(st, &stmt,
			     "SELECT id FROM tries WHERE regression_id = ?1 AND purpose = 'fixcheck' "
			     "AND tag = ?2"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, regression_id);
	fl_stmt_bind_text(stmt, 2, tag);
	if ((rc = fl_store_row(st, stmt, "fixcheck try")) <= 0)
		return rc;
	*id = fl_stmt_column_int64(stmt, 0);
	fl_stmt_finalize(stmt);
	return 0;
}
