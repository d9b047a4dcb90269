/*
 * store.c - the store: its connection (an SQLite file or PostgreSQL,
 * store/sql.h), the statement helpers the store's files share
 * (store/priv.h), applying the migrations (their list and texts are
 * store/migrations.c's), and the statements of trees, commits and machines
 * (see store.h). Every other group of tables has its file next to this one
 * (runs and samples: store/run.c), never elsewhere.
 */
#include "store/store.h"
#include "store/priv.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/fs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

int fl_store_sqlerr(fl_store *st, const char *what)
{
	return fl_error_set(FL_ESTORE, "store %s: %s: %s", st->path, what, fl_sql_errmsg(st->db));
}

int fl_store_exec(fl_store *st, const char *sql)
{
	return fl_sql_exec(st->db, sql) ? FL_ESTORE : 0;
}

int fl_store_prepare(fl_store *st, fl_stmt **stmt, const char *sql)
{
	if (fl_sql_prepare(st->db, stmt, sql))
		return fl_store_sqlerr(st, "prepare");
	return 0;
}

/* Steps a statement that returns no row, then finalizes it. */
int fl_store_step_done(fl_store *st, fl_stmt *stmt, const char *what)
{
	int rc = fl_stmt_step(stmt);
	int r = rc == FL_SQL_DONE || rc == FL_SQL_ROW ? 0 : fl_store_sqlerr(st, what);

	fl_stmt_finalize(stmt);
	return r;
}

int fl_store_row(fl_store *st, fl_stmt *stmt, const char *what)
{
	int rc = fl_stmt_step(stmt);

	if (rc == FL_SQL_ROW)
		return 1;
	fl_stmt_finalize(stmt);
	return rc == FL_SQL_DONE ? 0 : fl_store_sqlerr(st, what);
}

int fl_store_insert_id(fl_store *st, fl_stmt *stmt, const char *what, int64_t *id)
{
	int rc = fl_stmt_step(stmt);
	int r = rc == FL_SQL_ROW ? 0 : fl_store_sqlerr(st, what);

	if (!r)
		*id = fl_stmt_column_int64(stmt, 0);
	fl_stmt_finalize(stmt);
	return r;
}

void fl_store_bind_opt(fl_stmt *stmt, int i, const char *s)
{
	fl_stmt_bind_text(stmt, i, s);
}

void fl_store_bind_id(fl_stmt *stmt, int i, int64_t id)
{
	if (id)
		fl_stmt_bind_int64(stmt, i, id);
	else
		fl_stmt_bind_null(stmt, i);
}

char *fl_store_column_dup(fl_stmt *stmt, int col)
{
	const char *t = fl_stmt_column_text(stmt, col);

	return t ? fl_xstrdup(t) : NULL;
}

int fl_store_version(fl_store *st)
{
	int v;

	if (st->db->ops->version(st->db, &v))
		return fl_store_sqlerr(st, "schema version");
	return v;
}

/*
 * A write transaction that holds the store's write lock from its start
 * (SQLite: BEGIN IMMEDIATE; PostgreSQL: store/pg.c). The one place for the
 * claims of many workers to take their locks when they come.
 */
int fl_store_tx_begin(fl_store *st)
{
	return st->db->ops->begin_write(st->db) ? FL_ESTORE : 0;
}

int fl_store_tx_commit(fl_store *st)
{
	return fl_store_exec(st, "COMMIT");
}

void fl_store_tx_rollback(fl_store *st)
{
	if (fl_sql_in_transaction(st->db))
		fl_sql_exec(st->db, "ROLLBACK");
}

/* Migration i's text for the store's backend. */
static const char *migration_sql(fl_store *st, int i)
{
	return fl_store_migration(i, !strcmp(st->db->ops->name, "postgresql"));
}

/*
 * The next migration up to upto, in one transaction; *v: the version then.
 * The version is read under the write lock: another process opening the
 * store at the same time may have applied the migration meanwhile.
 */
static int migrate_one(fl_store *st, int upto, int *v)
{
	const struct fl_sql_ops *ops = st->db->ops;

	if (fl_store_tx_begin(st))
		return FL_ESTORE;
	if ((*v = fl_store_version(st)) < 0 || *v >= upto) {
		fl_store_tx_rollback(st);
		return *v < 0 ? FL_ESTORE : 0;
	}
	if (fl_store_exec(st, migration_sql(st, *v)) || ops->migrate_check(st->db) ||
	    ops->set_version(st->db, *v + 1)) {
		fl_error_wrap(FL_ESTORE, "migration to version %d", *v + 1);
		fl_store_tx_rollback(st);
		return FL_ESTORE;
	}
	if (fl_store_tx_commit(st))
		return FL_ESTORE;
	(*v)++;
	return 0;
}

int fl_store_migrate(fl_store *st, int upto, int *from)
{
	int v = fl_store_version(st), latest = fl_store_latest_version(), r = 0;

	if (from)
		*from = v;
	if (upto <= 0 || upto > latest)
		upto = latest;
	if (v < 0)
		return FL_ESTORE;
	if (v > latest)
		return fl_error_set(FL_EVERSION,
				    "store %s has schema version %d; this faultline knows up to %d",
				    st->path, v, latest);
	if (v >= upto)
		return 0;
	if (st->db->ops->migrate_start(st->db))
		return FL_ESTORE;
	while (v < upto && !r)
		r = migrate_one(st, upto, &v);
	if (st->db->ops->migrate_end(st->db))
		return FL_ESTORE;
	return r;
}

int fl_store_is_file(const char *path)
{
	return !fl_sql_is_pg(path);
}

/* The backend the location names: a postgresql:// URL, or an SQLite file. */
static int open_backend(fl_store *st, const char *path, unsigned flags)
{
	if (fl_sql_is_pg(path))
		return fl_pg_open(&st->db, path, flags);
	if (!(flags & FL_STORE_READONLY) && fl_mkdir_parent(path))
		return fl_error_wrap(FL_EIO, "store %s", path);
	return fl_sqlite_open(&st->db, path, flags);
}

int fl_store_open(fl_store **out, const char *path, unsigned flags)
{
	fl_store *st;
	int r, v;

	*out = NULL;
	st = fl_xcalloc(1, sizeof(*st));
	st->path = fl_sql_redact(path); /* for messages */
	r = open_backend(st, path, flags);
	if (!r && !(flags & (FL_STORE_NO_MIGRATE | FL_STORE_READONLY)))
		r = fl_store_migrate(st, 0, NULL);
	if (!r && (flags & FL_STORE_READONLY) &&
	    (v = fl_store_version(st)) != fl_store_latest_version())
		r = fl_error_set(FL_EVERSION,
				 "store %s has schema version %d, expected %d (run "
				 "'faultline db migrate')",
				 path, v, fl_store_latest_version());
	if (r) {
		fl_store_free(st);
		return r;
	}
	*out = st;
	return 0;
}

void fl_store_free(fl_store *st)
{
	if (!st)
		return;
	fl_sql_close(st->db);
	free(st->path);
	free(st);
}

/* INSERT ... ON CONFLICT DO NOTHING, then SELECT id: one statement pair per kind of row. */
static int ensure_row(fl_store *st, const char *insert, const char *select, const char *a,
		      const char *b, int64_t *id)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt, insert))
		return FL_ESTORE;
	fl_stmt_bind_text(stmt, 1, a);
	fl_stmt_bind_text(stmt, 2, b);
	if ((r = fl_store_step_done(st, stmt, "insert")))
		return r;
	if (fl_store_prepare(st, &stmt, select))
		return FL_ESTORE;
	fl_stmt_bind_text(stmt, 1, a);
	if (fl_stmt_step(stmt) != FL_SQL_ROW) {
		fl_stmt_finalize(stmt);
		return fl_store_sqlerr(st, "select");
	}
	*id = fl_stmt_column_int64(stmt, 0);
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_tree_ensure(fl_store *st, const char *name, const char *url, int64_t *id)
{
	return ensure_row(st, "INSERT INTO trees(name, url) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
			  "SELECT id FROM trees WHERE name = ?1", name, url, id);
}

int fl_store_commit_depth(fl_store *st, int64_t id, int64_t depth)
{
	fl_stmt *stmt;
	int r;

	if (depth <= 0)
		return 0;
	if (fl_store_prepare(st, &stmt,
			     "UPDATE commits SET depth = ?2 WHERE id = ?1 AND depth IS NULL"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	fl_stmt_bind_int64(stmt, 2, depth);
	if ((r = fl_store_step_done(st, stmt, "commit depth")))
		return fl_error_wrap(r, "commit %lld", (long long)id);
	return 0;
}

int fl_store_commit_needs_depth(fl_store *st, int64_t id)
{
	fl_stmt *stmt;
	int rc;

	if (fl_store_prepare(st, &stmt, "SELECT depth IS NULL FROM commits WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	if ((rc = fl_store_row(st, stmt, "commit depth")) <= 0)
		return rc ? rc
			  : fl_error_set(FL_ENOTFOUND, "commit %lld: no such commit",
					 (long long)id);
	rc = fl_stmt_column_int(stmt, 0);
	fl_stmt_finalize(stmt);
	return rc;
}

int fl_store_machine_ensure(fl_store *st, const char *name, const char *backend, int64_t *id)
{
	return ensure_row(st,
			  "INSERT INTO machines(name, backend) VALUES (?1, ?2) "
			  "ON CONFLICT DO NOTHING",
			  "SELECT id FROM machines WHERE name = ?1", name, backend, id);
}

int fl_store_commit_ensure(fl_store *st, int64_t tree_id, const struct fl_commit_info *c,
			   int64_t *id)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO commits(tree_id, sha, subject, author, time) "
			     "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, tree_id);
	fl_stmt_bind_text(stmt, 2, c->sha);
	fl_stmt_bind_text(stmt, 3, c->subject ? c->subject : "");
	fl_stmt_bind_text(stmt, 4, c->author ? c->author : "");
	fl_stmt_bind_int64(stmt, 5, c->time);
	if ((r = fl_store_step_done(st, stmt, "insert commit")))
		return fl_error_wrap(r, "commit %s", c->sha);
	if (fl_store_prepare(st, &stmt, "SELECT id FROM commits WHERE tree_id = ?1 AND sha = ?2"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, tree_id);
	fl_stmt_bind_text(stmt, 2, c->sha);
	r = fl_stmt_step(stmt) == FL_SQL_ROW ? 0 : fl_store_sqlerr(st, "select commit");
	if (!r)
		*id = fl_stmt_column_int64(stmt, 0);
	fl_stmt_finalize(stmt);
	return r;
}
