/* store/evidence.c - the SQL of evidence_points, evidence_vmstat and evidence_profile
 * (store/evidence.h). */
#include "store/evidence.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "store/priv.h"

#include <stdlib.h>
#include <string.h>

int fl_store_evidence_clear(fl_store *st, int64_t run_id)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt, "DELETE FROM evidence_points WHERE run_id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, run_id);
	return fl_store_step_done(st, stmt, "clear evidence");
}

/* The point's row, created on first sight; a result fills the window, a
 * profile the samples, and either the status. */
static int point_row(fl_store *st, int64_t run_id, const struct fl_evidence_row *pt, int64_t *id)
{
	int result = !pt->is_profile;
	fl_stmt *stmt;

	if (fl_store_prepare(
		st, &stmt,
		"INSERT INTO evidence_points(run_id, test, mode, tasks, measured_s, "
		"profile, profile_samples, cgroup, locks, vmstat_missing) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?10, ?11) "
		"ON CONFLICT (run_id, test, mode, tasks, cgroup) DO UPDATE SET "
		"measured_s = coalesce(excluded.measured_s, evidence_points.measured_s), "
		"profile = CASE WHEN ?9 THEN evidence_points.profile ELSE excluded.profile END, "
		"profile_samples = coalesce(excluded.profile_samples, "
		"evidence_points.profile_samples), "
		"locks = coalesce(excluded.locks, evidence_points.locks), "
		"vmstat_missing = coalesce(excluded.vmstat_missing, evidence_points.vmstat_missing) "
		"RETURNING id"))
		return FL_ESTORE;
	if (pt->is_locks)
		result = 0;
	fl_stmt_bind_int64(stmt, 1, run_id);
	fl_stmt_bind_text(stmt, 2, pt->test);
	fl_stmt_bind_text(stmt, 3, pt->mode);
	fl_stmt_bind_int64(stmt, 4, pt->tasks);
	if (result)
		fl_stmt_bind_double(stmt, 5, pt->measured_s);
	else if (pt->is_profile)
		fl_stmt_bind_int64(stmt, 7, (int64_t)pt->profile_samples);
	fl_stmt_bind_int64(stmt, 9, pt->is_locks);
	if (pt->locks)
		fl_stmt_bind_text(stmt, 10, pt->locks);
	if (pt->vmstat_missing)
		fl_stmt_bind_text(stmt, 11, pt->vmstat_missing);
	fl_stmt_bind_text(stmt, 6, pt->profile ? pt->profile : "none");
	fl_stmt_bind_text(stmt, 8, pt->cgroup ? pt->cgroup : "");
	return fl_store_insert_id(st, stmt, "evidence point", id);
}

static int add_vmstat(fl_store *st, int64_t id, const struct fl_evidence_row *pt)
{
	fl_stmt *stmt;
	int r = 0;

	if (fl_store_prepare(
		st, &stmt,
		"INSERT INTO evidence_vmstat(point_id, name, delta, per_sec) "
		"VALUES (?1, ?2, ?3, ?4) ON CONFLICT (point_id, name) DO UPDATE SET "
		"delta = excluded.delta, per_sec = excluded.per_sec"))
		return FL_ESTORE;
	for (size_t i = 0; i < pt->nvm && !r; i++) {
		fl_stmt_bind_int64(stmt, 1, id);
		fl_stmt_bind_text(stmt, 2, pt->vm[i].name);
		fl_stmt_bind_int64(stmt, 3, pt->vm[i].delta);
		fl_stmt_bind_double(stmt, 4, pt->vm[i].per_sec);
		if (fl_stmt_step(stmt) != FL_SQL_DONE)
			r = fl_store_sqlerr(st, "evidence vmstat");
		fl_stmt_reset(stmt);
	}
	fl_stmt_finalize(stmt);
	return r;
}

static int add_profile(fl_store *st, int64_t id, const struct fl_evidence_row *pt)
{
	fl_stmt *stmt;
	int r = 0;

	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO evidence_profile(point_id, function, samples, share) "
			     "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (point_id, function) DO UPDATE "
			     "SET samples = excluded.samples, share = excluded.share"))
		return FL_ESTORE;
	for (size_t i = 0; i < pt->nfn && !r; i++) {
		fl_stmt_bind_int64(stmt, 1, id);
		fl_stmt_bind_text(stmt, 2, pt->fn[i].name);
		fl_stmt_bind_int64(stmt, 3, (int64_t)pt->fn[i].samples);
		fl_stmt_bind_double(stmt, 4, pt->fn[i].share);
		if (fl_stmt_step(stmt) != FL_SQL_DONE)
			r = fl_store_sqlerr(st, "evidence profile");
		fl_stmt_reset(stmt);
	}
	fl_stmt_finalize(stmt);
	return r;
}

static int add_locks(fl_store *st, int64_t id, const struct fl_evidence_row *pt)
{
	fl_stmt *stmt;
	int r = 0;

	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO evidence_locks(point_id, lock, named_by, "
			     "contentions, waits, wait_ns, max_wait_ns, chains) "
			     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (point_id, lock) "
			     "DO UPDATE SET named_by = excluded.named_by, contentions = "
			     "excluded.contentions, waits = excluded.waits, wait_ns = "
			     "excluded.wait_ns, max_wait_ns = excluded.max_wait_ns, chains = "
			     "excluded.chains"))
		return FL_ESTORE;
	for (size_t i = 0; i < pt->nlk && !r; i++) {
		const struct fl_lock_row *l = &pt->lk[i];

		fl_stmt_bind_int64(stmt, 1, id);
		fl_stmt_bind_text(stmt, 2, l->lock);
		fl_stmt_bind_text(stmt, 3, l->named_by ? l->named_by : "symbol");
		fl_stmt_bind_int64(stmt, 4, (int64_t)l->contentions);
		fl_stmt_bind_int64(stmt, 5, (int64_t)l->waits);
		fl_stmt_bind_int64(stmt, 6, (int64_t)l->wait_ns);
		fl_stmt_bind_int64(stmt, 7, (int64_t)l->max_wait_ns);
		fl_stmt_bind_text(stmt, 8, l->chains ? l->chains : "");
		if (fl_stmt_step(stmt) != FL_SQL_DONE)
			r = fl_store_sqlerr(st, "evidence locks");
		fl_stmt_reset(stmt);
	}
	fl_stmt_finalize(stmt);
	return r;
}

int fl_store_evidence_add(fl_store *st, int64_t run_id, const struct fl_evidence_row *pt)
{
	int64_t id;
	int r = point_row(st, run_id, pt, &id);

	if (!r)
		r = pt->is_locks     ? add_locks(st, id, pt)
		    : pt->is_profile ? add_profile(st, id, pt)
				     : add_vmstat(st, id, pt);
	if (r)
		fl_error_wrap(r, "run %lld, %s %s tasks=%u%s%s", (long long)run_id, pt->test,
			      pt->mode, pt->tasks, pt->cgroup && *pt->cgroup ? " cgroup=" : "",
			      pt->cgroup ? pt->cgroup : "");
	return r;
}

int fl_store_evidence_put(fl_store *st, int64_t run_id, const struct fl_evidence_row *pts, size_t n)
{
	int r;

	if ((r = fl_store_tx_begin(st)))
		return r;
	r = fl_store_evidence_clear(st, run_id);
	for (size_t i = 0; i < n && !r; i++)
		r = fl_store_evidence_add(st, run_id, &pts[i]);
	if (!r && !(r = fl_store_tx_commit(st)))
		return 0;
	fl_store_tx_rollback(st);
	return r;
}

static int read_vmstat(fl_store *st, int64_t id, struct fl_evidence_row *pt)
{
	fl_stmt *stmt;
	size_t cap = 0;
	int rc;

	if (fl_store_prepare(st, &stmt,
			     "SELECT name, delta, per_sec FROM evidence_vmstat WHERE point_id = ?1 "
			     "ORDER BY name"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		if (pt->nvm == cap) {
			cap = cap ? 2 * cap : 64;
			pt->vm = fl_xrealloc(pt->vm, cap * sizeof(*pt->vm));
		}
		pt->vm[pt->nvm++] = (struct fl_vmstat_row){fl_store_column_dup(stmt, 0),
							   fl_stmt_column_int64(stmt, 1),
							   fl_stmt_column_double(stmt, 2)};
	}
	fl_stmt_finalize(stmt);
	return rc == FL_SQL_DONE ? 0 : fl_store_sqlerr(st, "read evidence vmstat");
}

static int read_profile(fl_store *st, int64_t id, struct fl_evidence_row *pt)
{
	fl_stmt *stmt;
	size_t cap = 0;
	int rc;

	if (fl_store_prepare(st, &stmt,
			     "SELECT function, samples, share FROM evidence_profile "
			     "WHERE point_id = ?1 ORDER BY samples DESC, function"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		if (pt->nfn == cap) {
			cap = cap ? 2 * cap : 64;
			pt->fn = fl_xrealloc(pt->fn, cap * sizeof(*pt->fn));
		}
		pt->fn[pt->nfn++] = (struct fl_profile_row){fl_store_column_dup(stmt, 0),
							    (uint64_t)fl_stmt_column_int64(stmt, 1),
							    fl_stmt_column_double(stmt, 2)};
	}
	fl_stmt_finalize(stmt);
	return rc == FL_SQL_DONE ? 0 : fl_store_sqlerr(st, "read evidence profile");
}

static int read_locks(fl_store *st, int64_t id, struct fl_evidence_row *pt)
{
	fl_stmt *stmt;
	size_t cap = 0;
	int rc;

	if (fl_store_prepare(st, &stmt,
			     "SELECT lock, named_by, contentions, waits, wait_ns, max_wait_ns, chains "
			     "FROM evidence_locks WHERE point_id = ?1 ORDER BY wait_ns DESC, lock"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		if (pt->nlk == cap) {
			cap = cap ? 2 * cap : 16;
			pt->lk = fl_xrealloc(pt->lk, cap * sizeof(*pt->lk));
		}
		pt->lk[pt->nlk++] = (struct fl_lock_row){fl_store_column_dup(stmt, 0),
							 fl_store_column_dup(stmt, 1),
							 (uint64_t)fl_stmt_column_int64(stmt, 2),
							 (uint64_t)fl_stmt_column_int64(stmt, 3),
							 (uint64_t)fl_stmt_column_int64(stmt, 4),
							 (uint64_t)fl_stmt_column_int64(stmt, 5),
							 fl_store_column_dup(stmt, 6)};
	}
	fl_stmt_finalize(stmt);
	return rc == FL_SQL_DONE ? 0 : fl_store_sqlerr(st, "read evidence locks");
}

int fl_store_evidence_get(fl_store *st, int64_t run_id, struct fl_evidence_row **pts, size_t *n)
{
	struct fl_evidence_row *v = NULL;
	fl_stmt *stmt;
	size_t cap = 0, k = 0;
	int rc, r = 0;

	*pts = NULL;
	*n = 0;
	if (fl_store_prepare(st, &stmt,
			     "SELECT id, test, mode, tasks, coalesce(measured_s, 0), profile, "
			     "coalesce(profile_samples, 0), cgroup, locks, vmstat_missing "
			     "FROM evidence_points WHERE "
			     "run_id = ?1 ORDER BY test, mode, tasks, cgroup"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, run_id);
	while (!r && (rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		struct fl_evidence_row *pt;
		int64_t id = fl_stmt_column_int64(stmt, 0);

		if (k == cap) {
			cap = cap ? 2 * cap : 16;
			v = fl_xrealloc(v, cap * sizeof(*v));
		}
		pt = &v[k++];
		memset(pt, 0, sizeof(*pt));
		pt->test = fl_store_column_dup(stmt, 1);
		pt->mode = fl_store_column_dup(stmt, 2);
		pt->tasks = (unsigned)fl_stmt_column_int64(stmt, 3);
		pt->measured_s = fl_stmt_column_double(stmt, 4);
		pt->profile = fl_store_column_dup(stmt, 5);
		pt->profile_samples = (uint64_t)fl_stmt_column_int64(stmt, 6);
		pt->cgroup = fl_store_column_dup(stmt, 7);
		if (fl_stmt_column_type(stmt, 8) != FL_SQL_NULL)
			pt->locks = fl_store_column_dup(stmt, 8);
		if (fl_stmt_column_type(stmt, 9) != FL_SQL_NULL)
			pt->vmstat_missing = fl_store_column_dup(stmt, 9);
		r = read_vmstat(st, id, pt);
		if (!r)
			r = read_profile(st, id, pt);
		if (!r)
			r = read_locks(st, id, pt);
	}
	if (!r && rc != FL_SQL_DONE)
		r = fl_store_sqlerr(st, "read evidence points");
	fl_stmt_finalize(stmt);
	if (r) {
		fl_store_evidence_free(v, k);
		return fl_error_wrap(r, "run %lld", (long long)run_id);
	}
	*pts = v;
	*n = k;
	return 0;
}

void fl_store_evidence_free(struct fl_evidence_row *pts, size_t n)
{
	for (size_t i = 0; pts && i < n; i++) {
		struct fl_evidence_row *pt = &pts[i];

		free(pt->test);
		free(pt->mode);
		free(pt->cgroup);
		free(pt->profile);
		for (size_t k = 0; k < pt->nvm; k++)
			free(pt->vm[k].name);
		free(pt->vm);
		for (size_t k = 0; k < pt->nfn; k++)
			free(pt->fn[k].name);
		free(pt->fn);
		free(pt->locks);
		free(pt->vmstat_missing);
		for (size_t k = 0; k < pt->nlk; k++) {
			free(pt->lk[k].lock);
			free(pt->lk[k].named_by);
			free(pt->lk[k].chains);
		}
		free(pt->lk);
	}
	free(pts);
}
