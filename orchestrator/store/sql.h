/*
 * store/sql.h - the statement layer every file of store/ speaks instead of
 * a database's own API: a connection (struct fl_sql) and its prepared
 * statements (fl_stmt), each backend behind one ops table (store/sqlite.c,
 * store/pg.c). Values are 64-bit integers, doubles, text and NULL;
 * placeholders are written ?N in SQLite's dialect and each backend takes
 * the SQL it is given to its own (store/pg.c: fl_pg_dialect). Nothing
 * outside store/ includes this.
 */
#ifndef FL_STORE_SQL_H
#define FL_STORE_SQL_H

#include <stddef.h>
#include <stdint.h>

/* What fl_stmt_step returns (the values are SQLite's, so a code can be masked as its own). */
#define FL_SQL_OK	  0
#define FL_SQL_ERROR	  1
#define FL_SQL_BUSY	  5
#define FL_SQL_CONSTRAINT 19
#define FL_SQL_ROW	  100
#define FL_SQL_DONE	  101

/* Column types (fl_stmt_column_type). */
#define FL_SQL_INTEGER 1
#define FL_SQL_FLOAT   2
#define FL_SQL_TEXT    3
#define FL_SQL_NULL    5

typedef struct fl_stmt fl_stmt;
struct fl_sql;

struct fl_sql_ops {
	const char *name;
	void (*close)(struct fl_sql *db);
	/* one or more statements without parameters or rows */
	int (*exec)(struct fl_sql *db, const char *sql);
	int (*prepare)(struct fl_sql *db, fl_stmt **out, const char *sql);
	const char *(*errmsg)(struct fl_sql *db);
	int64_t (*changes)(struct fl_sql *db);
	int (*in_transaction)(struct fl_sql *db);
	/* a write transaction that excludes other writers from its start */
	int (*begin_write)(struct fl_sql *db);
	/* the schema version (0: empty), and setting it inside a transaction */
	int (*version)(struct fl_sql *db, int *v);
	int (*set_version)(struct fl_sql *db, int v);
	/* around all of a store's migrations, and checks before each commits */
	int (*migrate_start)(struct fl_sql *db);
	int (*migrate_end)(struct fl_sql *db);
	int (*migrate_check)(struct fl_sql *db);

	int (*bind_int64)(fl_stmt *s, int i, int64_t v);
	int (*bind_double)(fl_stmt *s, int i, double v);
	int (*bind_text)(fl_stmt *s, int i, const char *t, size_t len);
	int (*bind_null)(fl_stmt *s, int i);
	int (*step)(fl_stmt *s);
	int (*reset)(fl_stmt *s);
	void (*finalize)(fl_stmt *s);
	int (*column_type)(fl_stmt *s, int col);
	int64_t (*column_int64)(fl_stmt *s, int col);
	double (*column_double)(fl_stmt *s, int col);
	const char *(*column_text)(fl_stmt *s, int col);
	size_t (*column_bytes)(fl_stmt *s, int col);
};

struct fl_sql {
	const struct fl_sql_ops *ops;
};

struct fl_stmt {
	const struct fl_sql_ops *ops;
	struct fl_sql *db;
};

/* The backends. fl_sqlite_open: a file, flags store.h's FL_STORE_*; fl_pg_open: a postgresql://
 * URL. */
int fl_sqlite_open(struct fl_sql **out, const char *path, unsigned flags);
int fl_pg_open(struct fl_sql **out, const char *url, unsigned flags);
/* url names a PostgreSQL database (postgresql:// or postgres://) */
int fl_sql_is_pg(const char *url);
/* url with its password (user:PASSWORD@, password=) as *** for messages; a copy */
char *fl_sql_redact(const char *url);
/* SQL in the store's dialect (SQLite's) in PostgreSQL's (store/pg.c); *nparams: its highest ?N,
 * *used (may be NULL): bit N-1 for each ?N it has */
char *fl_pg_dialect(const char *sql, int *nparams, uint64_t *used);

void fl_sql_close(struct fl_sql *db);
int fl_sql_exec(struct fl_sql *db, const char *sql);
int fl_sql_prepare(struct fl_sql *db, fl_stmt **out, const char *sql);
const char *fl_sql_errmsg(struct fl_sql *db);
/* rows changed by the last INSERT, UPDATE or DELETE */
int64_t fl_sql_changes(struct fl_sql *db);
int fl_sql_in_transaction(struct fl_sql *db);

int fl_stmt_bind_int64(fl_stmt *s, int i, int64_t v);
/* NaN binds NULL (as SQLite stores it) */
int fl_stmt_bind_double(fl_stmt *s, int i, double v);
/* t copied; NULL binds NULL */
int fl_stmt_bind_text(fl_stmt *s, int i, const char *t);
int fl_stmt_bind_textn(fl_stmt *s, int i, const char *t, size_t len);
int fl_stmt_bind_null(fl_stmt *s, int i);
/* FL_SQL_ROW, FL_SQL_DONE, or an error (FL_SQL_CONSTRAINT, FL_SQL_ERROR, ...) */
int fl_stmt_step(fl_stmt *s);
/* ready to step again, bindings kept */
int fl_stmt_reset(fl_stmt *s);
void fl_stmt_finalize(fl_stmt *s);
int fl_stmt_column_type(fl_stmt *s, int col);
int64_t fl_stmt_column_int64(fl_stmt *s, int col);
int fl_stmt_column_int(fl_stmt *s, int col);
double fl_stmt_column_double(fl_stmt *s, int col);
/* NULL for SQL NULL; valid until the next step, reset or finalize */
const char *fl_stmt_column_text(fl_stmt *s, int col);
size_t fl_stmt_column_bytes(fl_stmt *s, int col);

#endif
