/* store/sql.c - the statement layer's calls, each to its backend's op (see store/sql.h). */
#include "store/sql.h"
#include "lib/buf.h"

#include <string.h>

int fl_sql_is_pg(const char *url)
{
	return url && (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11));
}

char *fl_sql_redact(const char *url)
{
	const char *auth = fl_sql_is_pg(url) ? strstr(url, "://") + 3 : NULL;
	const char *end = auth ? auth + strcspn(auth, "/?") : NULL;
	const char *at = auth ? memchr(auth, '@', (size_t)(end - auth)) : NULL;
	const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
	const char *pw = auth ? strstr(end, "password=") : NULL;
	fl_buf b = FL_BUF_INIT;

	if (!colon && !pw)
		return fl_xstrdup(url);
	if (colon)
		fl_buf_add(&b, url, (size_t)(colon + 1 - url));
	fl_buf_adds(&b, colon ? "***" : "");
	if (!pw) {
		fl_buf_adds(&b, colon ? at : url);
		return fl_buf_detach(&b);
	}
	if (colon)
		fl_buf_add(&b, at, (size_t)(pw - at));
	else
		fl_buf_add(&b, url, (size_t)(pw - url));
	fl_buf_addf(&b, "password=***%s", pw + strcspn(pw, "&"));
	return fl_buf_detach(&b);
}

void fl_sql_close(struct fl_sql *db)
{
	if (db)
		db->ops->close(db);
}

int fl_sql_exec(struct fl_sql *db, const char *sql)
{
	return db->ops->exec(db, sql);
}

int fl_sql_prepare(struct fl_sql *db, fl_stmt **out, const char *sql)
{
	*out = NULL;
	return db->ops->prepare(db, out, sql);
}

const char *fl_sql_errmsg(struct fl_sql *db)
{
	return db->ops->errmsg(db);
}

int64_t fl_sql_changes(struct fl_sql *db)
{
	return db->ops->changes(db);
}

int fl_sql_in_transaction(struct fl_sql *db)
{
	return db->ops->in_transaction(db);
}

int fl_stmt_bind_int64(fl_stmt *s, int i, int64_t v)
{
	return s->ops->bind_int64(s, i, v);
}

int fl_stmt_bind_double(fl_stmt *s, int i, double v)
{
	return v != v ? s->ops->bind_null(s, i) : s->ops->bind_double(s, i, v);
}

int fl_stmt_bind_text(fl_stmt *s, int i, const char *t)
{
	return t ? s->ops->bind_text(s, i, t, strlen(t)) : s->ops->bind_null(s, i);
}

int fl_stmt_bind_textn(fl_stmt *s, int i, const char *t, size_t len)
{
	return t ? s->ops->bind_text(s, i, t, len) : s->ops->bind_null(s, i);
}

int fl_stmt_bind_null(fl_stmt *s, int i)
{
	return s->ops->bind_null(s, i);
}

int fl_stmt_step(fl_stmt *s)
{
	return s->ops->step(s);
}

int fl_stmt_reset(fl_stmt *s)
{
	return s->ops->reset(s);
}

void fl_stmt_finalize(fl_stmt *s)
{
	if (s)
		s->ops->finalize(s);
}

int fl_stmt_column_type(fl_stmt *s, int col)
{
	return s->ops->column_type(s, col);
}

int64_t fl_stmt_column_int64(fl_stmt *s, int col)
{
	return s->ops->column_int64(s, col);
}

int fl_stmt_column_int(fl_stmt *s, int col)
{
	return (int)s->ops->column_int64(s, col);
}

double fl_stmt_column_double(fl_stmt *s, int col)
{
	return s->ops->column_double(s, col);
}

const char *fl_stmt_column_text(fl_stmt *s, int col)
{
	return s->ops->column_text(s, col);
}

size_t fl_stmt_column_bytes(fl_stmt *s, int col)
{
	return s->ops->column_bytes(s, col);
}
