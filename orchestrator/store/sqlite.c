/*
 * store/sqlite.c - the SQLite backend of the statement layer (see
 * store/sql.h): a store file in WAL mode, the schema version in
 * user_version, BEGIN IMMEDIATE for a write transaction, and why a file
 * cannot be used in words an operator can act on.
 */
#include "store/sql.h"
#include "store/store.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

struct lite {
	struct fl_sql base;
	sqlite3 *h;
	char *path;
};

struct lite_stmt {
	struct fl_stmt base;
	sqlite3_stmt *s;
};

#define H(db) (((struct lite *)(db))->h)
#define S(st) (((struct lite_stmt *)(st))->s)

static const struct fl_sql_ops lite_ops;

static void lite_close(struct fl_sql *db)
{
	struct lite *l = (struct lite *)db;

	sqlite3_close_v2(l->h);
	free(l->path);
	free(l);
}

static int lite_exec(struct fl_sql *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(H(db), sql, NULL, NULL, &msg) != SQLITE_OK) {
		int r = fl_error_set(FL_ESTORE, "store %s: %s", ((struct lite *)db)->path,
				     msg ? msg : "error");

		sqlite3_free(msg);
		return r;
	}
	return 0;
}

static int lite_prepare(struct fl_sql *db, fl_stmt **out, const char *sql)
{
	sqlite3_stmt *s;
	struct lite_stmt *ls;

	if (sqlite3_prepare_v2(H(db), sql, -1, &s, NULL) != SQLITE_OK)
		return FL_SQL_ERROR;
	ls = fl_xcalloc(1, sizeof(*ls));
	ls->base.ops = &lite_ops;
	ls->base.db = db;
	ls->s = s;
	*out = &ls->base;
	return 0;
}

static const char *lite_errmsg(struct fl_sql *db)
{
	return sqlite3_errmsg(H(db));
}

static int64_t lite_changes(struct fl_sql *db)
{
	return sqlite3_changes(H(db));
}

static int lite_in_transaction(struct fl_sql *db)
{
	return !sqlite3_get_autocommit(H(db));
}

static int lite_begin_write(struct fl_sql *db)
{
	return lite_exec(db, "BEGIN IMMEDIATE");
}

static int lite_version(struct fl_sql *db, int *v)
{
	sqlite3_stmt *s;
	int rc;

	*v = -1;
	if (sqlite3_prepare_v2(H(db), "PRAGMA user_version", -1, &s, NULL) != SQLITE_OK)
		return FL_SQL_ERROR;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : FL_SQL_ERROR;
}

static int lite_set_version(struct fl_sql *db, int v)
{
	char pragma[64];

	snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", v);
	return lite_exec(db, pragma);
}

/* a migration may rebuild a table others point at (SQLite's way of
 * changing a constraint): keys are checked once it is done instead */
static int lite_migrate_start(struct fl_sql *db)
{
	return lite_exec(db, "PRAGMA foreign_keys = OFF");
}

static int lite_migrate_end(struct fl_sql *db)
{
	return lite_exec(db, "PRAGMA foreign_keys = ON");
}

/* The first row a foreign key points from to nothing: 0 when there is none. */
static int lite_migrate_check(struct fl_sql *db)
{
	struct lite *l = (struct lite *)db;
	sqlite3_stmt *s;
	int rc, r = 0;

	if (sqlite3_prepare_v2(l->h, "PRAGMA foreign_key_check", -1, &s, NULL) != SQLITE_OK)
		return fl_error_set(FL_ESTORE, "store %s: foreign key check: %s", l->path,
				    sqlite3_errmsg(l->h));
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		r = fl_error_set(FL_ESTORE, "store %s: %s row %lld points at no row of %s", l->path,
				 (const char *)sqlite3_column_text(s, 0),
				 (long long)sqlite3_column_int64(s, 1),
				 (const char *)sqlite3_column_text(s, 2));
	else if (rc != SQLITE_DONE)
		r = fl_error_set(FL_ESTORE, "store %s: foreign key check: %s", l->path,
				 sqlite3_errmsg(l->h));
	sqlite3_finalize(s);
	return r;
}

static int lite_bind_int64(fl_stmt *st, int i, int64_t v)
{
	return sqlite3_bind_int64(S(st), i, v);
}

static int lite_bind_double(fl_stmt *st, int i, double v)
{
	return sqlite3_bind_double(S(st), i, v);
}

static int lite_bind_text(fl_stmt *st, int i, const char *t, size_t len)
{
	return sqlite3_bind_text(S(st), i, t, (int)len, SQLITE_TRANSIENT);
}

static int lite_bind_null(fl_stmt *st, int i)
{
	return sqlite3_bind_null(S(st), i);
}

static int lite_step(fl_stmt *st)
{
	int rc = sqlite3_step(S(st));

	return rc == SQLITE_ROW || rc == SQLITE_DONE ? rc : rc & 0xff;
}

static int lite_reset(fl_stmt *st)
{
	return sqlite3_reset(S(st));
}

static void lite_finalize(fl_stmt *st)
{
	sqlite3_finalize(S(st));
	free(st);
}

static int lite_column_type(fl_stmt *st, int col)
{
	switch (sqlite3_column_type(S(st), col)) {
	case SQLITE_INTEGER:
		return FL_SQL_INTEGER;
	case SQLITE_FLOAT:
		return FL_SQL_FLOAT;
	case SQLITE_NULL:
		return FL_SQL_NULL;
	default:
		return FL_SQL_TEXT;
	}
}

static int64_t lite_column_int64(fl_stmt *st, int col)
{
	return sqlite3_column_int64(S(st), col);
}

static double lite_column_double(fl_stmt *st, int col)
{
	return sqlite3_column_double(S(st), col);
}

static const char *lite_column_text(fl_stmt *st, int col)
{
	return (const char *)sqlite3_column_text(S(st), col);
}

static size_t lite_column_bytes(fl_stmt *st, int col)
{
	return (size_t)sqlite3_column_bytes(S(st), col);
}

static const struct fl_sql_ops lite_ops = {
    .name = "sqlite",
    .close = lite_close,
    .exec = lite_exec,
    .prepare = lite_prepare,
    .errmsg = lite_errmsg,
    .changes = lite_changes,
    .in_transaction = lite_in_transaction,
    .begin_write = lite_begin_write,
    .version = lite_version,
    .set_version = lite_set_version,
    .migrate_start = lite_migrate_start,
    .migrate_end = lite_migrate_end,
    .migrate_check = lite_migrate_check,
    .bind_int64 = lite_bind_int64,
    .bind_double = lite_bind_double,
    .bind_text = lite_bind_text,
    .bind_null = lite_bind_null,
    .step = lite_step,
    .reset = lite_reset,
    .finalize = lite_finalize,
    .column_type = lite_column_type,
    .column_int64 = lite_column_int64,
    .column_double = lite_column_double,
    .column_text = lite_column_text,
    .column_bytes = lite_column_bytes,
};

/*
 * WAL mode, once for the file. Processes that create the store at the same
 * moment all ask for it, and SQLite answers some of them busy at once
 * rather than through the busy handler (each would wait for the other's
 * lock): those ask again, for as long as the busy timeout.
 */
static int set_wal(struct lite *l)
{
	int rc;

	for (int waited = 0;; waited += 10) {
		rc = sqlite3_exec(l->h, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
		if ((rc & 0xff) != SQLITE_BUSY || waited >= 10000)
			break;
		sqlite3_sleep(10);
	}
	return rc == SQLITE_OK ? 0
			       : fl_error_set(FL_ESTORE, "store %s: WAL mode: %s", l->path,
					      sqlite3_errmsg(l->h));
}

/* The directory of path is on a read-only filesystem. */
static int on_read_only_fs(const char *path)
{
	char *dir = fl_xstrdup(path), *slash = strrchr(dir, '/');
	struct statvfs vfs;
	int ro;

	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	ro = !statvfs(slash ? dir : ".", &vfs) && (vfs.f_flag & ST_RDONLY);
	free(dir);
	return ro;
}

/*
 * Why SQLite cannot use the file, in words an operator can act on: not a
 * database, or on a read-only filesystem (SQLite writes next to a store in
 * WAL mode, its -wal and -shm files, even to read it), or SQLite's reason.
 */
static int unusable(struct lite *l, const char *path)
{
	int code = l->h ? sqlite3_errcode(l->h) & 0xff : SQLITE_NOMEM;
	const char *msg = l->h ? sqlite3_errmsg(l->h) : "out of memory";
	struct stat sb;

	if (stat(path, &sb) && errno == ENOENT)
		return fl_error_set(FL_ESTORE,
				    "store %s: no such file ('faultline db init' makes it)", path);
	if (code == SQLITE_NOTADB)
		return fl_error_set(FL_ESTORE, "store %s: not a faultline store (%s)", path, msg);
	if (on_read_only_fs(path))
		return fl_error_set(
		    FL_ESTORE,
		    "store %s: cannot use it (%s): it is on a read-only filesystem "
		    "(SQLite writes beside a store, its -wal and -shm files, even to "
		    "read it)",
		    path, msg);
	return fl_error_set(FL_ESTORE, "store %s: cannot use it: %s", path, msg);
}

static int lite_setup(struct lite *l, const char *path, unsigned flags)
{
	int r = 0, v;

	sqlite3_busy_timeout(l->h, 10000);
	/* the first read shows whether the file can be used at all */
	if (lite_version(&l->base, &v))
		return unusable(l, path);
	/* SQLite opens a file it cannot write read-only, and says so at the first write */
	if (!(flags & FL_STORE_READONLY) && sqlite3_db_readonly(l->h, "main") == 1)
		return fl_error_set(FL_ESTORE, "store %s: cannot write it%s", path,
				    on_read_only_fs(path) ? ": it is on a read-only filesystem"
							  : " (its permissions?)");
	r = lite_exec(&l->base, "PRAGMA foreign_keys = ON");
	if (!r && !(flags & FL_STORE_READONLY))
		r = set_wal(l);
	if (!r && !(flags & FL_STORE_READONLY))
		r = lite_exec(&l->base, "PRAGMA synchronous = NORMAL");
	return r;
}

int fl_sqlite_open(struct fl_sql **out, const char *path, unsigned flags)
{
	struct lite *l = fl_xcalloc(1, sizeof(*l));
	int oflags = flags & FL_STORE_READONLY ? SQLITE_OPEN_READONLY
					       : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	int r;

	*out = NULL;
	l->base.ops = &lite_ops;
	l->path = fl_xstrdup(path);
	if (sqlite3_open_v2(path, &l->h, oflags | SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK)
		r = unusable(l, path);
	else
		r = lite_setup(l, path, flags);
	if (r) {
		lite_close(&l->base);
		return r;
	}
	*out = &l->base;
	return 0;
}
