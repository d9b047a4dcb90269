/*
 * store/build.c - the statements of the builds table (see store.h): the
 * artifact cache's index, its LRU order and the record of failed builds.
 */
#include "store/store.h"
#include "store/priv.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <stdlib.h>

int fl_store_build_find(fl_store *st, int64_t commit_id, const char *config_hash,
			const char *compiler, struct fl_build_row *row)
{
	fl_stmt *stmt;
	int rc;

	if (fl_store_prepare(st, &stmt,
			     "SELECT id, status, artifact, error, duration_ms FROM builds "
			     "WHERE commit_id = ?1 AND config_hash = ?2 AND compiler = ?3"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, commit_id);
	fl_stmt_bind_text(stmt, 2, config_hash);
	fl_stmt_bind_text(stmt, 3, compiler);
	if ((rc = fl_store_row(st, stmt, "find build")) <= 0)
		return rc ? rc : fl_error_set(FL_ENOTFOUND, "no build");
	row->id = fl_stmt_column_int64(stmt, 0);
	row->status = fl_store_column_dup(stmt, 1);
	row->artifact = fl_store_column_dup(stmt, 2);
	row->error = fl_store_column_dup(stmt, 3);
	row->duration_ms = fl_stmt_column_int64(stmt, 4);
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_build_about(fl_store *st, int64_t id, char **kernel, char **compiler,
			 char **artifact)
{
	fl_stmt *stmt;
	int rc;

	*kernel = *compiler = *artifact = NULL;
	if (fl_store_prepare(st, &stmt, "SELECT kernel, compiler, artifact FROM builds WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	if ((rc = fl_store_row(st, stmt, "build")) <= 0)
		return rc ? rc : fl_error_set(FL_ENOTFOUND, "no build %lld", (long long)id);
	*kernel = fl_store_column_dup(stmt, 0);
	*compiler = fl_store_column_dup(stmt, 1);
	*artifact = fl_store_column_dup(stmt, 2);
	fl_stmt_finalize(stmt);
	return 0;
}

void fl_store_build_row_release(struct fl_build_row *row)
{
	free(row->status);
	free(row->artifact);
	free(row->error);
	row->status = row->artifact = row->error = NULL;
}

int fl_store_build_start(fl_store *st, int64_t commit_id, const char *kernel,
			 const char *config_hash, const char *compiler, int64_t *id)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO builds(commit_id, kernel, config_hash, compiler, status) "
			     "VALUES (?1, ?2, ?3, ?4, 'building') "
			     "ON CONFLICT (commit_id, config_hash, compiler) DO UPDATE SET "
			     "status = 'building', artifact = NULL, log = NULL, error = NULL, "
			     "kernel = excluded.kernel, last_used = unixepoch() RETURNING id"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, commit_id);
	fl_stmt_bind_text(stmt, 2, kernel);
	fl_stmt_bind_text(stmt, 3, config_hash);
	fl_stmt_bind_text(stmt, 4, compiler);
	return fl_store_insert_id(st, stmt, "start build", id);
}

int fl_store_build_finish(fl_store *st, int64_t id, const struct fl_build_outcome *o)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "UPDATE builds SET status = ?2, artifact = ?3, log = ?4, error = ?5, "
			     "duration_ms = ?6, size = ?7, last_used = unixepoch() WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	fl_stmt_bind_text(stmt, 2, o->status);
	fl_stmt_bind_text(stmt, 3, o->artifact);
	fl_stmt_bind_text(stmt, 4, o->log);
	fl_stmt_bind_text(stmt, 5, o->error);
	fl_stmt_bind_int64(stmt, 6, o->duration_ms);
	fl_stmt_bind_int64(stmt, 7, (int64_t)o->size);
	return fl_store_step_done(st, stmt, "finish build");
}

int fl_store_build_touch(fl_store *st, int64_t id)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt, "UPDATE builds SET last_used = unixepoch() WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	return fl_store_step_done(st, stmt, "touch build");
}

int fl_store_build_cache_size(fl_store *st, uint64_t *total)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt, "SELECT coalesce(sum(size), 0) FROM builds "
					"WHERE artifact IS NOT NULL"))
		return FL_ESTORE;
	r = fl_stmt_step(stmt) == FL_SQL_ROW ? 0 : fl_store_sqlerr(st, "cache size");
	if (!r)
		*total = (uint64_t)fl_stmt_column_int64(stmt, 0);
	fl_stmt_finalize(stmt);
	return r;
}

int fl_store_build_lru(fl_store *st, int64_t keep_id, int64_t *id, char **artifact)
{
	fl_stmt *stmt;
	int rc;

	if (fl_store_prepare(st, &stmt, "SELECT id, artifact FROM builds WHERE artifact IS NOT NULL "
					"AND id != ?1 ORDER BY last_used, id LIMIT 1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, keep_id);
	if ((rc = fl_store_row(st, stmt, "lru build")) <= 0)
		return rc ? rc : FL_ENOTFOUND;
	*id = fl_stmt_column_int64(stmt, 0);
	*artifact = fl_store_column_dup(stmt, 1);
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_build_evicted(fl_store *st, int64_t id)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt, "UPDATE builds SET artifact = NULL, size = 0 WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	return fl_store_step_done(st, stmt, "evict build");
}
