/*
 * store/compare.c - the runs of a comparison from the store (see
 * store/compare.h).
 */
#include "store/compare.h"
#include "lib/error.h"
#include "store/evidence.h"
#include "store/priv.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fl_cmp_side_load(fl_store *st, const char *label, const int64_t *ids, size_t n,
		     int metrics_only, struct fl_cmp_side *out)
{
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->set.label = fl_xstrdup(label);
	out->ids = fl_xcalloc(n + 1, sizeof(*out->ids));
	out->runs = fl_xcalloc(n + 1, sizeof(*out->runs));
	out->rows = fl_xcalloc(n + 1, sizeof(*out->rows));
	out->nrows = fl_xcalloc(n + 1, sizeof(*out->nrows));
	out->samples = fl_xcalloc(n + 1, sizeof(*out->samples));
	out->points = fl_xcalloc(n + 1, sizeof(*out->points));
	out->npoints = fl_xcalloc(n + 1, sizeof(*out->npoints));
	out->set.runs = out->runs;
	for (size_t i = 0; i < n && !r; i++) {
		struct fl_cmp_run *run = &out->runs[i];

		out->ids[i] = ids[i];
		out->set.n = i + 1;
		if ((r = fl_store_run_samples(st, ids[i], &out->rows[i], &out->nrows[i])))
			break;
		out->samples[i] = fl_xcalloc(out->nrows[i] + 1, sizeof(**out->samples));
		for (size_t k = 0; k < out->nrows[i]; k++) {
			const struct fl_sample_row *s = &out->rows[i][k];

			out->samples[i][k] =
			    (struct fl_sample){s->metric, s->mode, s->tasks, s->seq, s->value};
		}
		if (!metrics_only)
			r = fl_store_evidence_get(st, ids[i], &out->points[i], &out->npoints[i]);
		*run = (struct fl_cmp_run){out->samples[i], out->nrows[i], out->points[i],
					   out->npoints[i]};
	}
	if (r)
		fl_cmp_side_release(out);
	return r;
}

void fl_cmp_side_release(struct fl_cmp_side *s)
{
	for (size_t i = 0; i < s->set.n; i++) {
		fl_store_samples_free(s->rows[i], s->nrows[i]);
		free(s->samples[i]);
		fl_evidence_points_free(s->points[i], s->npoints[i]);
	}
	free((char *)s->set.label);
	free(s->ids);
	free(s->runs);
	free(s->rows);
	free(s->nrows);
	free(s->samples);
	free(s->points);
	free(s->npoints);
	memset(s, 0, sizeof(*s));
}

int fl_store_cmp_commit_runs(fl_store *st, const char *sha, const char *benchmark,
			     const char *machine, int64_t **ids, size_t *n)
{
	sqlite3_stmt *stmt;
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*n = 0;
	/*
	 * runs.commit_id since migration 6, or a build's commit for rows
	 * before it: each found by its index (INDEXED BY: a store whose runs
	 * mostly predate commit_id must not make the planner scan them all;
	 * the unary + keep the other terms off the index choice).
	 */
	if (fl_store_prepare(
		st, &stmt,
		"SELECT id FROM runs INDEXED BY runs_by_commit WHERE commit_id IN "
		"(SELECT id FROM commits WHERE sha = ?1) AND benchmark = ?2 AND machine_id = "
		"(SELECT id FROM machines WHERE name = ?3) AND +status = 'ok' "
		"UNION SELECT x.id FROM commits c JOIN builds y ON y.commit_id = c.id JOIN runs x "
		"ON x.build_id = y.id WHERE c.sha = ?1 AND +x.commit_id IS NULL AND "
		"x.benchmark = ?2 AND x.machine_id = (SELECT id FROM machines WHERE name = ?3) "
		"AND +x.status = 'ok' ORDER BY 1"))
		return FL_ESTORE;
	sqlite3_bind_text(stmt, 1, sha, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, benchmark, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, machine, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (*n == cap)
			*ids = fl_xrealloc(*ids, (cap = cap ? 2 * cap : 16) * sizeof(**ids));
		(*ids)[(*n)++] = sqlite3_column_int64(stmt, 0);
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE) {
		free(*ids);
		*ids = NULL;
		*n = 0;
		return fl_store_sqlerr(st, "runs of a commit");
	}
	return 0;
}

int fl_store_cmp_commit_sha(fl_store *st, const char *prefix, char sha[41])
{
	size_t len = strlen(prefix), found = 0;
	char hex[41], first[41] = "";
	sqlite3_stmt *stmt;
	int rc;

	if (len < 4 || len > 40)
		return fl_error_set(FL_ENOTFOUND, "'%s' is not a commit sha (4 to 40 hex digits)",
				    prefix);
	for (size_t i = 0; i <= len; i++) {
		if (i < len && !isxdigit((unsigned char)prefix[i]))
			return fl_error_set(FL_ENOTFOUND, "'%s' is not a commit sha", prefix);
		hex[i] = (char)tolower((unsigned char)prefix[i]);
	}
	if (fl_store_prepare(st, &stmt,
			     "SELECT DISTINCT sha FROM commits WHERE sha >= ?1 AND sha < ?1 || 'g' "
			     "ORDER BY sha LIMIT 2"))
		return FL_ESTORE;
	sqlite3_bind_text(stmt, 1, hex, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(stmt, 0);

		if (!found++)
			snprintf(first, sizeof(first), "%s", s ? s : "");
		else
			snprintf(sha, 41, "%s", s ? s : "");
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return fl_store_sqlerr(st, "commit by sha");
	if (!found)
		return fl_error_set(FL_ENOTFOUND, "no stored commit matches '%s'", prefix);
	if (found > 1)
		return fl_error_set(FL_EINVAL, "'%s' is ambiguous: %.12s and %.12s both match",
				    prefix, first, sha);
	memcpy(sha, first, 41);
	return 0;
}

int fl_store_cmp_run_info(fl_store *st, int64_t id, struct fl_cmp_run_info *out)
{
	sqlite3_stmt *stmt;
	int rc;

	memset(out, 0, sizeof(*out));
	if (fl_store_prepare(st, &stmt,
			     "SELECT r.benchmark, m.name, r.status FROM runs r "
			     "JOIN machines m ON m.id = r.machine_id WHERE r.id = ?1"))
		return FL_ESTORE;
	sqlite3_bind_int64(stmt, 1, id);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		out->benchmark = fl_store_column_dup(stmt, 0);
		out->machine = fl_store_column_dup(stmt, 1);
		out->status = fl_store_column_dup(stmt, 2);
	}
	sqlite3_finalize(stmt);
	if (rc == SQLITE_DONE)
		return fl_error_set(FL_ENOTFOUND, "no run %lld", (long long)id);
	return rc == SQLITE_ROW ? 0 : fl_store_sqlerr(st, "run info");
}

void fl_cmp_run_info_release(struct fl_cmp_run_info *ri)
{
	free(ri->benchmark);
	free(ri->machine);
	free(ri->status);
	memset(ri, 0, sizeof(*ri));
}
