/*
 * store/pg.c - the PostgreSQL backend of the statement layer (see
 * store/sql.h), through libpq: the store's SQL, written in SQLite's
 * dialect, is taken to PostgreSQL's in one place (fl_pg_dialect, and the
 * functions SQLite has and PostgreSQL lacks, made by pg_functions); each
 * statement is prepared once per connection (PQprepare, kept by its text)
 * and run with text parameters (PQexecPrepared), its rows read by step. A
 * write transaction holds one advisory transaction lock (the writers of a
 * store take turns, as SQLite's BEGIN IMMEDIATE makes them), migrations a
 * session lock; lock_timeout bounds every wait as SQLite's busy timeout.
 */
#include "store/sql.h"
#include "store/store.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <ctype.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The advisory locks' keys: the store's writers, and its migrations. */
#define LOCK_WRITE   0x666c7731LL
#define LOCK_MIGRATE 0x666c6d31LL
#define MAX_PARAMS   64
#define CACHE_SLOTS  256

struct prepared {
	char *sql; /* as the store wrote it */
	char name[24];
	int nparams;
	struct prepared *next;
};

struct pg {
	struct fl_sql base;
	PGconn *c;
	char *url;
	int64_t changes;
	char err[1024];
	unsigned nprepared;
	struct prepared *cache[CACHE_SLOTS];
};

struct pg_stmt {
	struct fl_stmt base;
	struct prepared *p;
	char *values[MAX_PARAMS];
	PGresult *res;
	int row, nrows, ran;
};

#define PG(db) ((struct pg *)(db))
#define ST(s)  ((struct pg_stmt *)(s))

static const struct fl_sql_ops pg_ops;

/* ---- the dialect ------------------------------------------------------ */

static int word_at(const char *s, const char *w)
{
	size_t n = strlen(w);

	return !strncasecmp(s, w, n) && !isalnum((unsigned char)s[n]) && s[n] != '_';
}

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* The identifier at s (after spaces) skipped. */
static const char *skip_name(const char *s)
{
	s = skip_space(s);
	while (isalnum((unsigned char)*s) || *s == '_')
		s++;
	return s;
}

/* A + after what b holds is unary: after an operator, a parenthesis or a keyword. */
static int unary_at(const fl_buf *b)
{
	static const char *const words[] = {"AND", "OR",   "WHERE", "ON",   "NOT", "SELECT",
					    "BY",  "WHEN", "THEN",  "ELSE", "IN"};
	const char *s = fl_buf_str(b);
	size_t n = b->len, end;

	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (!n)
		return 1;
	if (!isalnum((unsigned char)s[n - 1]) && s[n - 1] != '_' && s[n - 1] != ')' &&
	    s[n - 1] != '\'' && s[n - 1] != '"')
		return 1;
	end = n;
	while (n && (isalnum((unsigned char)s[n - 1]) || s[n - 1] == '_'))
		n--;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (end - n == strlen(words[i]) && !strncasecmp(s + n, words[i], end - n))
			return 1;
	return 0;
}

/* The keyword that ends what b holds is one of words. */
static int after_word(const fl_buf *b, const char *const *words, size_t nwords)
{
	const char *s = fl_buf_str(b);
	size_t n = b->len, end;

	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	end = n;
	while (n && (isalnum((unsigned char)s[n - 1]) || s[n - 1] == '_'))
		n--;
	for (size_t i = 0; i < nwords; i++)
		if (end - n == strlen(words[i]) && !strncasecmp(s + n, words[i], end - n))
			return 1;
	return 0;
}

/*
 * The literal 1 or 0 at s is a condition of its own, as SQLite takes an
 * integer ("WHERE 1 AND ...", "... AND 1)"): after WHERE, AND, OR, ON or
 * NOT, and before AND, OR, a clause's end or a parenthesis.
 */
static int bool_literal_at(const fl_buf *b, const char *s)
{
	static const char *const before[] = {"WHERE", "AND", "OR", "ON", "NOT"};
	static const char *const after[] = {"AND",   "OR",    "ORDER", "GROUP",  "LIMIT",
					    "UNION", "HAVING", "WINDOW", "EXCEPT", "INTERSECT"};
	const char *t;

	if ((*s != '0' && *s != '1') || isalnum((unsigned char)s[1]) || s[1] == '_' ||
	    s[1] == '.' || !after_word(b, before, sizeof(before) / sizeof(before[0])))
		return 0;
	t = skip_space(s + 1);
	if (!*t || *t == ')' || *t == ';')
		return 1;
	for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++)
		if (word_at(t, after[i]))
			return 1;
	return 0;
}

/*
 * SQLite's SQL, as the store writes it, in PostgreSQL's: ?N and ? become
 * $N; INDEXED BY and WITHOUT ROWID go (the planner chooses, every table has
 * a primary key), and so does a unary + (SQLite's way to keep a column
 * out of an index); a 1 or 0 that stands as a condition is true or false
 * (PostgreSQL wants a boolean there); an INTEGER PRIMARY KEY becomes an
 * identity column, INTEGER bigint and REAL double precision (SQLite's are
 * 64-bit); LIKE is ILIKE (SQLite's LIKE ignores ASCII case). A comment
 * whose text starts with "PG:" becomes the rest of its text: what only
 * PostgreSQL has, such as the row locks of a queue's claims (FOR UPDATE
 * SKIP LOCKED; SQLite's writers take turns on the whole file). String
 * literals and quoted names are copied as they are. *nparams: the highest
 * parameter; *used (may be NULL): bit N-1 set for each ?N the text has.
 */
char *fl_pg_dialect(const char *sql, int *nparams, uint64_t *used)
{
	fl_buf b = FL_BUF_INIT;
	const char *s = sql;
	int next = 0, prev_word = 0;

	*nparams = 0;
	if (used)
		*used = 0;
	while (*s) {
		int at_word = (isalpha((unsigned char)*s) || *s == '_') && !prev_word;

		if (!strncmp(s, "/*PG:", 5) && strstr(s + 5, "*/")) {
			const char *e = strstr(s + 5, "*/");

			fl_buf_add(&b, s + 5, (size_t)(e - s - 5));
			s = e + 2;
			continue;
		}
		if (*s == '\'' || *s == '"') {
			char q = *s;
			const char *e = s + 1;

			while (*e && !(*e == q && e[1] != q))
				e += *e == q ? 2 : 1;
			if (*e)
				e++;
			fl_buf_add(&b, s, (size_t)(e - s));
			s = e;
			prev_word = 0;
			continue;
		}
		if (*s == '?') {
			int n = 0;

			s++;
			if (isdigit((unsigned char)*s))
				n = (int)strtol(s, (char **)&s, 10);
			else
				n = next + 1;
			next = n > next ? n : next;
			if (used && n >= 1 && n <= 64)
				*used |= 1ULL << (n - 1);
			*nparams = next;
			fl_buf_addf(&b, "$%d", n);
			prev_word = 1;
			continue;
		}
		if (!prev_word && bool_literal_at(&b, s)) {
			fl_buf_adds(&b, *s == '1' ? "true" : "false");
			s++;
			prev_word = 1;
			continue;
		}
		if (*s == '+' && (isalpha((unsigned char)s[1]) || s[1] == '_') && unary_at(&b)) {
			s++; /* SQLite's "+x.col": a filter, not an index's column */
			continue;
		}
		if (at_word && word_at(s, "INDEXED") && word_at(skip_space(s + 7), "BY")) {
			s = skip_name(skip_space(s + 7) + 2);
			continue;
		}
		if (at_word && word_at(s, "WITHOUT") && word_at(skip_space(s + 7), "ROWID")) {
			s = skip_space(s + 7) + 5;
			continue;
		}
		if (at_word && word_at(s, "LIKE")) {
			fl_buf_adds(&b, "ILIKE");
			s += 4;
			continue;
		}
		if (at_word && word_at(s, "INTEGER")) {
			const char *t = skip_space(s + 7);

			if (word_at(t, "PRIMARY") && word_at(skip_space(t + 7), "KEY")) {
				fl_buf_adds(&b,
					    "bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY");
				s = skip_space(t + 7) + 3;
			} else {
				fl_buf_adds(&b, "bigint");
				s += 7;
			}
			continue;
		}
		if (at_word && word_at(s, "REAL")) {
			fl_buf_adds(&b, "double precision");
			s += 4;
			continue;
		}
		prev_word = isalnum((unsigned char)*s) || *s == '_' || *s == '$' || *s == '.';
		fl_buf_add(&b, s, 1);
		s++;
	}
	return fl_buf_detach(&b);
}

/*
 * SQLite's functions the store's SQL calls that PostgreSQL has under
 * another name or not at all, made once per database (the migrations'
 * lock held).
 */
static const char pg_functions[] =
    "CREATE OR REPLACE FUNCTION unixepoch() RETURNS bigint LANGUAGE sql STABLE AS "
    "$$SELECT extract(epoch FROM statement_timestamp())::bigint$$;"
    "CREATE TABLE IF NOT EXISTS fl_schema (version integer NOT NULL);";

/* ---- the connection ----------------------------------------------------- */

static const char *set_err(struct pg *p, const char *msg)
{
	size_t n;

	snprintf(p->err, sizeof(p->err), "%s", msg && *msg ? msg : "error");
	n = strlen(p->err);
	while (n && (p->err[n - 1] == '\n' || p->err[n - 1] == ' '))
		p->err[--n] = '\0';
	return p->err;
}

static int result_code(struct pg *p, PGresult *res)
{
	const char *state;

	switch (PQresultStatus(res)) {
	case PGRES_COMMAND_OK:
	case PGRES_TUPLES_OK:
		return 0;
	default:
		set_err(p, res ? PQresultErrorMessage(res) : PQerrorMessage(p->c));
		state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
		if (state && !strncmp(state, "23", 2))
			return FL_SQL_CONSTRAINT;
		if (state && (!strcmp(state, "55P03") || !strcmp(state, "40P01")))
			return FL_SQL_BUSY;
		return FL_SQL_ERROR;
	}
}

static void pg_close(struct fl_sql *db)
{
	struct pg *p = PG(db);

	for (int i = 0; i < CACHE_SLOTS; i++)
		for (struct prepared *q = p->cache[i], *next; q; q = next) {
			next = q->next;
			free(q->sql);
			free(q);
		}
	if (p->c)
		PQfinish(p->c);
	free(p->url);
	free(p);
}

/* Runs SQL already in PostgreSQL's dialect; 0 or an FL_SQL_* code. */
static int run(struct pg *p, const char *sql)
{
	PGresult *res = PQexec(p->c, sql);
	int rc = result_code(p, res);

	PQclear(res);
	return rc;
}

static int pg_exec(struct fl_sql *db, const char *sql)
{
	struct pg *p = PG(db);
	int n, rc;
	char *t = fl_pg_dialect(sql, &n, NULL);

	rc = run(p, t);
	free(t);
	if (rc)
		return fl_error_set(FL_ESTORE, "store %s: %s", p->url, p->err);
	return 0;
}

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h % CACHE_SLOTS;
}

#define UNTYPED (-100)

/*
 * Prepares t as q. A parameter whose type PostgreSQL cannot tell from its
 * place ("?1 IS NULL OR x = ?1", where SQLite needs none) is made text and
 * the text prepared again: UNTYPED.
 */
static int prepare_typed(struct pg *p, struct prepared *q, const char *t, Oid *types)
{
	PGresult *res =
	    PQprepare(p->c, q->name, t, q->nparams > MAX_PARAMS ? 0 : q->nparams, types);
	const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
	const char *dollar = msg ? strchr(msg, '$') : NULL;
	int rc = result_code(p, res), n = dollar ? atoi(dollar + 1) : 0;

	if (rc && state && (!strcmp(state, "42P18") || !strcmp(state, "42P08")) && n >= 1 &&
	    n <= q->nparams && n <= MAX_PARAMS && !types[n - 1]) {
		types[n - 1] = 25;
		rc = UNTYPED;
	}
	PQclear(res);
	return rc;
}

/* The statement of this text prepared on the connection, once. */
static struct prepared *prepared(struct pg *p, const char *sql)
{
	unsigned h = hash(sql);
	struct prepared *q;
	Oid types[MAX_PARAMS] = {0};
	uint64_t used;
	char *t;
	int rc, tx;

	for (q = p->cache[h]; q; q = q->next)
		if (!strcmp(q->sql, sql))
			return q;
	q = fl_xcalloc(1, sizeof(*q));
	t = fl_pg_dialect(sql, &q->nparams, &used);
	/* a parameter the text does not use (SQLite ignores it) is text */
	for (int i = 0; i < q->nparams && i < MAX_PARAMS; i++)
		types[i] = used & (1ULL << i) ? 0 : 25;
	snprintf(q->name, sizeof(q->name), "fl%u", p->nprepared++);
	/* a failed prepare must not end the transaction it is in */
	tx = PQtransactionStatus(p->c) == PQTRANS_INTRANS;
	rc = tx ? run(p, "SAVEPOINT fl_prepare") : 0;
	while (!rc && (rc = prepare_typed(p, q, t, types)) == UNTYPED)
		rc = tx ? run(p, "ROLLBACK TO SAVEPOINT fl_prepare") : 0;
	if (tx) {
		char err[sizeof(p->err)];

		memcpy(err, p->err, sizeof(err));
		run(p, rc ? "ROLLBACK TO SAVEPOINT fl_prepare; RELEASE SAVEPOINT fl_prepare"
			  : "RELEASE SAVEPOINT fl_prepare");
		memcpy(p->err, err, sizeof(err));
	}
	free(t);
	if (rc || q->nparams > MAX_PARAMS) {
		if (!rc)
			set_err(p, "too many parameters");
		free(q);
		return NULL;
	}
	q->sql = fl_xstrdup(sql);
	q->next = p->cache[h];
	p->cache[h] = q;
	return q;
}

static int pg_prepare(struct fl_sql *db, fl_stmt **out, const char *sql)
{
	struct prepared *q = prepared(PG(db), sql);
	struct pg_stmt *s;

	if (!q)
		return FL_SQL_ERROR;
	s = fl_xcalloc(1, sizeof(*s));
	s->base.ops = &pg_ops;
	s->base.db = db;
	s->p = q;
	*out = &s->base;
	return 0;
}

static const char *pg_errmsg(struct fl_sql *db)
{
	return PG(db)->err;
}

static int64_t pg_changes(struct fl_sql *db)
{
	return PG(db)->changes;
}

static int pg_in_transaction(struct fl_sql *db)
{
	return PQtransactionStatus(PG(db)->c) != PQTRANS_IDLE;
}

/*
 * A write transaction: the store's writers take turns, as with SQLite's
 * BEGIN IMMEDIATE (a claim that must skip rows another worker holds locks
 * its rows instead, FOR UPDATE SKIP LOCKED, in its own statement).
 */
static int pg_begin_write(struct fl_sql *db)
{
	struct pg *p = PG(db);
	char sql[96];

	snprintf(sql, sizeof(sql), "BEGIN; SELECT pg_advisory_xact_lock(%lld)", LOCK_WRITE);
	if (run(p, sql)) {
		if (pg_in_transaction(db))
			run(p, "ROLLBACK");
		return fl_error_set(FL_ESTORE, "store %s: begin: %s", p->url, p->err);
	}
	return 0;
}

/* one integer a query returns, into *v; 0 or an FL_SQL_* code */
static int query_int(struct pg *p, const char *sql, int *v)
{
	PGresult *res = PQexec(p->c, sql);
	int rc = result_code(p, res);

	if (!rc && PQntuples(res) == 1)
		*v = atoi(PQgetvalue(res, 0, 0));
	else if (!rc)
		rc = FL_SQL_ERROR;
	PQclear(res);
	return rc;
}

static int pg_version(struct fl_sql *db, int *v)
{
	struct pg *p = PG(db);
	int have = 0;

	*v = -1;
	if (query_int(p, "SELECT (to_regclass('fl_schema') IS NOT NULL)::int", &have))
		return FL_SQL_ERROR;
	if (!have) {
		*v = 0;
		return 0;
	}
	return query_int(p, "SELECT coalesce(max(version), 0) FROM fl_schema", v);
}

static int pg_set_version(struct fl_sql *db, int v)
{
	struct pg *p = PG(db);
	char sql[96];

	snprintf(sql, sizeof(sql), "DELETE FROM fl_schema; INSERT INTO fl_schema VALUES (%d)", v);
	if (run(p, sql))
		return fl_error_set(FL_ESTORE, "store %s: schema version: %s", p->url, p->err);
	return 0;
}

static int pg_migrate_start(struct fl_sql *db)
{
	struct pg *p = PG(db);
	char sql[64];

	snprintf(sql, sizeof(sql), "SELECT pg_advisory_lock(%lld)", LOCK_MIGRATE);
	if (run(p, sql) || run(p, pg_functions))
		return fl_error_set(FL_ESTORE, "store %s: migrations: %s", p->url, p->err);
	return 0;
}

static int pg_migrate_end(struct fl_sql *db)
{
	struct pg *p = PG(db);
	char sql[64];

	snprintf(sql, sizeof(sql), "SELECT pg_advisory_unlock(%lld)", LOCK_MIGRATE);
	if (run(p, sql))
		return fl_error_set(FL_ESTORE, "store %s: migrations: %s", p->url, p->err);
	return 0;
}

/* PostgreSQL checks foreign keys at every statement */
static int pg_migrate_check(struct fl_sql *db)
{
	(void)db;
	return 0;
}

/* ---- statements --------------------------------------------------------- */

static int set_value(fl_stmt *st, int i, char *v)
{
	struct pg_stmt *s = ST(st);

	if (i < 1 || i > s->p->nparams) {
		free(v);
		return FL_SQL_ERROR;
	}
	free(s->values[i - 1]);
	s->values[i - 1] = v;
	return 0;
}

static int pg_bind_int64(fl_stmt *st, int i, int64_t v)
{
	return set_value(st, i, fl_xasprintf("%lld", (long long)v));
}

static int pg_bind_double(fl_stmt *st, int i, double v)
{
	if (v > 1e308 * 10)
		return set_value(st, i, fl_xstrdup("Infinity"));
	if (v < -1e308 * 10)
		return set_value(st, i, fl_xstrdup("-Infinity"));
	return set_value(st, i, fl_xasprintf("%.17g", v));
}

static int pg_bind_text(fl_stmt *st, int i, const char *t, size_t len)
{
	return set_value(st, i, fl_xstrndup(t, len));
}

static int pg_bind_null(fl_stmt *st, int i)
{
	return set_value(st, i, NULL);
}

static int pg_step(fl_stmt *st)
{
	struct pg_stmt *s = ST(st);
	struct pg *p = PG(st->db);
	int rc;

	if (s->ran)
		return ++s->row < s->nrows ? FL_SQL_ROW : FL_SQL_DONE;
	s->res = PQexecPrepared(p->c, s->p->name, s->p->nparams, (const char *const *)s->values,
				NULL, NULL, 0);
	s->ran = 1;
	if ((rc = result_code(p, s->res))) {
		s->nrows = 0;
		return rc;
	}
	p->changes = atoll(PQcmdTuples(s->res));
	s->nrows = PQntuples(s->res);
	s->row = 0;
	return s->nrows ? FL_SQL_ROW : FL_SQL_DONE;
}

static int pg_reset(fl_stmt *st)
{
	struct pg_stmt *s = ST(st);

	PQclear(s->res);
	s->res = NULL;
	s->ran = s->row = s->nrows = 0;
	return 0;
}

static void pg_finalize(fl_stmt *st)
{
	struct pg_stmt *s = ST(st);

	pg_reset(st);
	for (int i = 0; i < MAX_PARAMS; i++)
		free(s->values[i]);
	free(s);
}

static int is_null(struct pg_stmt *s, int col)
{
	return !s->res || s->row >= s->nrows || col >= PQnfields(s->res) ||
	       PQgetisnull(s->res, s->row, col);
}

#define OID_BOOL 16

static const char *pg_column_text(fl_stmt *st, int col)
{
	struct pg_stmt *s = ST(st);
	const char *v;

	if (is_null(s, col))
		return NULL;
	v = PQgetvalue(s->res, s->row, col);
	if (PQftype(s->res, col) == OID_BOOL) /* SQLite's booleans are 1 and 0 */
		return *v == 't' ? "1" : "0";
	return v;
}

static int pg_column_type(fl_stmt *st, int col)
{
	struct pg_stmt *s = ST(st);

	if (is_null(s, col))
		return FL_SQL_NULL;
	switch (PQftype(s->res, col)) {
	case 16: /* bool */
	case 20: /* int8 */
	case 21: /* int2 */
	case 23: /* int4 */
		return FL_SQL_INTEGER;
	case 700:  /* float4 */
	case 701:  /* float8 */
	case 1700: /* numeric */
		return FL_SQL_FLOAT;
	default:
		return FL_SQL_TEXT;
	}
}

static int64_t pg_column_int64(fl_stmt *st, int col)
{
	const char *v = pg_column_text(st, col);

	if (!v)
		return 0;
	/* SQLite truncates a real read as an integer */
	return strpbrk(v, ".eEnN") ? (int64_t)strtod(v, NULL) : strtoll(v, NULL, 10);
}

static double pg_column_double(fl_stmt *st, int col)
{
	const char *v = pg_column_text(st, col);

	return v ? strtod(v, NULL) : 0.0;
}

static size_t pg_column_bytes(fl_stmt *st, int col)
{
	struct pg_stmt *s = ST(st);

	return is_null(s, col) ? 0 : (size_t)PQgetlength(s->res, s->row, col);
}

static const struct fl_sql_ops pg_ops = {
    .name = "postgresql",
    .close = pg_close,
    .exec = pg_exec,
    .prepare = pg_prepare,
    .errmsg = pg_errmsg,
    .changes = pg_changes,
    .in_transaction = pg_in_transaction,
    .begin_write = pg_begin_write,
    .version = pg_version,
    .set_version = pg_set_version,
    .migrate_start = pg_migrate_start,
    .migrate_end = pg_migrate_end,
    .migrate_check = pg_migrate_check,
    .bind_int64 = pg_bind_int64,
    .bind_double = pg_bind_double,
    .bind_text = pg_bind_text,
    .bind_null = pg_bind_null,
    .step = pg_step,
    .reset = pg_reset,
    .finalize = pg_finalize,
    .column_type = pg_column_type,
    .column_int64 = pg_column_int64,
    .column_double = pg_column_double,
    .column_text = pg_column_text,
    .column_bytes = pg_column_bytes,
};

static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

/*
 * The database keeps text as SQLite does: bytes as given (a console is
 * not always UTF-8) and ordered byte by byte. 0 or an error that says how
 * to make such a database.
 */
static int check_database(struct pg *p, const char *url)
{
	PGresult *res = PQexec(p->c, "SELECT pg_encoding_to_char(encoding), datcollate FROM "
				     "pg_database WHERE datname = current_database()");
	int ok = result_code(p, res) == 0 && PQntuples(res) == 1 &&
		 !strcmp(PQgetvalue(res, 0, 0), "SQL_ASCII") &&
		 (!strcmp(PQgetvalue(res, 0, 1), "C") || !strcmp(PQgetvalue(res, 0, 1), "POSIX"));

	PQclear(res);
	if (ok)
		return 0;
	return fl_error_set(FL_ESTORE,
			    "store %s: the database must keep text as bytes in byte order "
			    "(CREATE DATABASE ... TEMPLATE template0 ENCODING 'SQL_ASCII' "
			    "LC_COLLATE 'C' LC_CTYPE 'C')",
			    url);
}

int fl_pg_open(struct fl_sql **out, const char *url, unsigned flags)
{
	struct pg *p = fl_xcalloc(1, sizeof(*p));
	int r = 0;

	*out = NULL;
	p->base.ops = &pg_ops;
	p->url = fl_sql_redact(url); /* for messages */
	p->c = PQconnectdb(url);
	if (PQstatus(p->c) != CONNECTION_OK)
		r = fl_error_set(FL_ESTORE, "store %s: cannot connect: %s", p->url,
				 set_err(p, PQerrorMessage(p->c)));
	else {
		PQsetNoticeProcessor(p->c, quiet, NULL);
		if (run(p, "SET lock_timeout = '10s'; SET client_min_messages = warning") ||
		    (flags & FL_STORE_READONLY && run(p, "SET default_transaction_read_only = on")))
			r = fl_error_set(FL_ESTORE, "store %s: %s", p->url, p->err);
		else
			r = check_database(p, p->url);
	}
	if (r) {
		pg_close(&p->base);
		return r;
	}
	*out = &p->base;
	return 0;
}
