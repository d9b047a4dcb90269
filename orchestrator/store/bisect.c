/*
 * store/bisect.c - the SQL of bisections and bisect_steps (store/bisect.h).
 * Samples are kept as a JSON array of numbers, written with %.17g so they
 * read back bit for bit: a resumed bisection must see the very same values
 * to make the same decisions.
 */
#include "store/bisect.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "store/priv.h"

#include <stdlib.h>
#include <string.h>

/* An UPDATE of bisection id (?1). */
static int update_one(fl_store *st, const char *sql, int64_t id, const char *what)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt, sql))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	return fl_store_step_done(st, stmt, what);
}

/* The newest unfinished bisection of good..bad, with options or with any
 * other (same 0 / 1); 0 in *id when there is none. */
static int find_unfinished(fl_store *st, const char *good, const char *bad, const char *options,
			   int same, int64_t *id)
{
	fl_stmt *stmt;
	int rc;

	if (fl_store_prepare(st, &stmt,
			     same ? "SELECT id FROM bisections WHERE good = ?1 AND bad = ?2 AND "
				    "state IN ('running', 'stopped') AND coalesce(options, '') = "
				    "coalesce(?3, '') ORDER BY id DESC LIMIT 1"
				  : "SELECT id FROM bisections WHERE good = ?1 AND bad = ?2 AND "
				    "state IN ('running', 'stopped') AND coalesce(options, '') <> "
				    "coalesce(?3, '') ORDER BY id DESC LIMIT 1"))
		return FL_ESTORE;
	fl_stmt_bind_text(stmt, 1, good);
	fl_stmt_bind_text(stmt, 2, bad);
	fl_store_bind_opt(stmt, 3, options);
	*id = 0;
	if ((rc = fl_store_row(st, stmt, "find bisection")) <= 0)
		return rc;
	*id = fl_stmt_column_int64(stmt, 0);
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_bisection_open(fl_store *st, const char *good, const char *bad, const char *options,
			    int64_t *id, int *resumed, int64_t *other)
{
	fl_stmt *stmt;
	int r;

	if ((r = find_unfinished(st, good, bad, options, 0, other)) ||
	    (r = find_unfinished(st, good, bad, options, 1, id)))
		return r;
	*resumed = *id != 0;
	if (*resumed)
		return update_one(st, "UPDATE bisections SET state = 'running' WHERE id = ?1",
					*id, "resume bisection");
	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO bisections(good, bad, options) VALUES (?1, ?2, ?3) "
			     "RETURNING id"))
		return FL_ESTORE;
	fl_stmt_bind_text(stmt, 1, good);
	fl_stmt_bind_text(stmt, 2, bad);
	fl_store_bind_opt(stmt, 3, options);
	return fl_store_insert_id(st, stmt, "create bisection", id);
}

int fl_store_bisection_stop(fl_store *st, int64_t id)
{
	return update_one(st,
				"UPDATE bisections SET state = 'stopped' WHERE id = ?1 AND "
				"state = 'running'",
				id, "stop bisection");
}

int fl_store_bisect_step_add(fl_store *st, int64_t id, const struct fl_bisect_step_rec *r)
{
	fl_buf json = FL_BUF_INIT;
	fl_stmt *stmt;
	int ret;

	fl_buf_addch(&json, '[');
	for (size_t i = 0; i < r->n; i++)
		fl_buf_addf(&json, "%s%.17g", i ? "," : "", r->v[i]);
	fl_buf_addch(&json, ']');
	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO bisect_steps(bisection_id, seq, commit_sha, status, "
			     "samples, verdict, confidence, remaining, best, phase, branch) VALUES "
			     "(?1, ?2, ?3, ?4, ?5, ?6, ?7, nullif(?8, 0), ?9, ?10, ?11)")) {
		fl_buf_free(&json);
		return FL_ESTORE;
	}
	fl_stmt_bind_int64(stmt, 1, id);
	fl_stmt_bind_int64(stmt, 2, (int64_t)r->seq);
	fl_stmt_bind_text(stmt, 3, r->sha);
	fl_stmt_bind_text(stmt, 4, r->skipped ? "skip" : "ok");
	fl_stmt_bind_text(stmt, 5, json.ptr);
	fl_stmt_bind_text(stmt, 6, r->verdict ? r->verdict : "");
	fl_stmt_bind_double(stmt, 7, r->confidence);
	fl_stmt_bind_int64(stmt, 8, (int64_t)r->remaining);
	fl_stmt_bind_text(stmt, 9, r->best);
	fl_stmt_bind_text(stmt, 10, r->phase);
	fl_store_bind_opt(stmt, 11, r->branch);
	ret = fl_store_step_done(st, stmt, "record bisect step");
	fl_buf_free(&json);
	return ret;
}

size_t fl_store_parse_numbers(const char *s, double **v)
{
	size_t n = 0, alloc = 4;
	char *end;

	*v = fl_xmalloc(alloc * sizeof(double));
	if (*s == '[')
		s++;
	while (*s && *s != ']') {
		double x = strtod(s, &end);

		if (end == s)
			break;
		if (n == alloc)
			*v = fl_xrealloc(*v, (alloc *= 2) * sizeof(double));
		(*v)[n++] = x;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

int fl_store_bisect_steps_each(fl_store *st, int64_t id, fl_store_step_fn fn, void *ctx)
{
	fl_stmt *stmt;
	int rc, r = 0;

	if (fl_store_prepare(st, &stmt,
			     "SELECT seq, commit_sha, status, samples, coalesce(verdict, ''), "
			     "coalesce(confidence, 0), branch, phase, best FROM bisect_steps WHERE "
			     "bisection_id = ?1 ORDER BY seq"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	while (!r && (rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		struct fl_bisect_step_rec rec = {0};
		double *v;

		rec.seq = (size_t)fl_stmt_column_int64(stmt, 0);
		rec.sha = fl_stmt_column_text(stmt, 1);
		rec.skipped = !strcmp(fl_stmt_column_text(stmt, 2), "skip");
		rec.n = fl_store_parse_numbers(fl_stmt_column_text(stmt, 3), &v);
		rec.v = v;
		rec.verdict = fl_stmt_column_text(stmt, 4);
		rec.confidence = fl_stmt_column_double(stmt, 5);
		rec.branch = fl_stmt_column_text(stmt, 6);
		rec.phase = fl_stmt_column_text(stmt, 7);
		rec.best = fl_stmt_column_text(stmt, 8);
		r = fn(ctx, &rec);
		free(v);
	}
	if (!r && rc != FL_SQL_DONE)
		r = fl_store_sqlerr(st, "read bisect steps");
	fl_stmt_finalize(stmt);
	return r;
}

int fl_store_bisection_finish(fl_store *st, int64_t id, const char *result, const char *culprit,
			      double confidence)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "UPDATE bisections SET state = 'finished', result = ?2, culprit = ?3, "
			     "confidence = ?4, finished = unixepoch() WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	fl_stmt_bind_text(stmt, 2, result);
	if (culprit)
		fl_stmt_bind_text(stmt, 3, culprit);
	else
		fl_stmt_bind_null(stmt, 3);
	fl_stmt_bind_double(stmt, 4, confidence);
	return fl_store_step_done(st, stmt, "finish bisection");
}
