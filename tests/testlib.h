/*
 * testlib.h - what the C tests share: a scratch directory per test program,
 * removed with everything in it at the end; shell commands (git(1) makes
 * the repositories the tests work on); one value out of a store; the store a
 * test keeps at a path, or a PostgreSQL database of its own for that path
 * when the tests run on PostgreSQL (label pg, tests/pg-run.sh).
 */
#ifndef FL_TESTLIB_H
#define FL_TESTLIB_H

#include "store/sql.h"

#include <libpq-fe.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* git with a fixed identity and date, so commits are the same on every run. */
#define FL_TEST_GIT                                                                                \
	"GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL=a@u.th GIT_COMMITTER_NAME=C "                 \
	"GIT_COMMITTER_EMAIL=c@o.m GIT_AUTHOR_DATE='1700000000 +0000' "                            \
	"GIT_COMMITTER_DATE='1700000000 +0000' git -c init.defaultBranch=master "                  \
	"-c tag.gpgSign=false -c commit.gpgSign=false "

/* Creates /tmp/fl-<tag>-XXXXXX into dir (at least 64 bytes); 0 or -1. */
static inline int fl_test_tmpdir(char *dir, size_t n, const char *tag)
{
	snprintf(dir, n, "/tmp/fl-%s-XXXXXX", tag);
	return mkdtemp(dir) ? 0 : -1;
}

static inline int fl_test_rmtree(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

/*
 * fork() for a child that starts a server or a browser for a test: the
 * child gets SIGKILL when the test process dies, however it dies (an ASan
 * abort, a crash, ctest's kill), so that it never outlives the test; the
 * test stops it itself when it ends normally. Kept across exec. (The
 * signal comes when the forking thread ends: fork from the main thread.)
 */
static inline pid_t fl_test_fork(void)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent) /* the parent died before the prctl */
			_exit(127);
	}
	return pid;
}

/* system() of a formatted command; its exit status. */
static inline int fl_test_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int fl_test_sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* Writes a formatted text file (a configuration, a token); 0 or -1. */
static inline int fl_test_write(const char *path, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline int fl_test_write(const char *path, const char *fmt, ...)
{
	FILE *f = fopen(path, "w");
	va_list ap;
	int r;

	if (!f)
		return -1;
	va_start(ap, fmt);
	r = vfprintf(f, fmt, ap) < 0;
	va_end(ap);
	return fclose(f) || r ? -1 : 0;
}

/* The first line a command prints, without its newline, into out. */
static inline int fl_test_out(char *out, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline int fl_test_out(char *out, size_t n, const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	out[0] = '\0';
	if (!(p = popen(cmd, "r")))
		return -1;
	if (!fgets(out, (int)n, p))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return pclose(p);
}

/*
 * The tests on PostgreSQL: tests/pg-run.sh sets FL_TEST_PG (the cluster,
 * postgresql://.../postgres) and FL_TEST_PG_PREFIX (the names of this
 * test's databases, which it drops afterwards).
 */
struct fl_test_pg_map {
	char path[512];
	char url[512];
	int gen;
};

/* On PostgreSQL: cmocka's skip() for a test of SQLite's own ways (its files, query plans). */
#define FL_TEST_SQLITE_ONLY()                                                                      \
	do {                                                                                       \
		if (getenv("FL_TEST_PG_PREFIX") && *getenv("FL_TEST_PG_PREFIX"))                   \
			skip();                                                                    \
	} while (0)
static struct fl_test_pg_map fl_test_pg_maps[128];

/* One SQL statement (in the store's dialect) on a PostgreSQL database; its
 * first value into out (may be NULL); 0 or -1. */
static inline int fl_test_pg_sql(const char *url, const char *sql, char *out, size_t n)
{
	PGconn *c = PQconnectdb(url);
	PGresult *res = NULL;
	int np, r = -1;
	char *t = fl_pg_dialect(sql, &np, NULL);

	if (out && n)
		out[0] = '\0';
	if (PQstatus(c) == CONNECTION_OK) {
		res = PQexec(c, t);
		r = PQresultStatus(res) == PGRES_COMMAND_OK ||
			    PQresultStatus(res) == PGRES_TUPLES_OK
			? 0
			: -1;
		if (r)
			fprintf(stderr, "fl_test_pg_sql: %s: %s", sql, PQresultErrorMessage(res));
		if (!r && out && n && PQntuples(res) > 0 && PQftype(res, 0) == 16 /* bool */)
			snprintf(out, n, "%d", *PQgetvalue(res, 0, 0) == 't');
		else if (!r && out && n && PQntuples(res) > 0)
			snprintf(out, n, "%s", PQgetvalue(res, 0, 0));
	}
	PQclear(res);
	PQfinish(c);
	free(t);
	return r;
}

static inline struct fl_test_pg_map *fl_test_pg_map_of(const char *path)
{
	for (size_t i = 0; i < sizeof(fl_test_pg_maps) / sizeof(fl_test_pg_maps[0]); i++)
		if (fl_test_pg_maps[i].path[0] && !strcmp(fl_test_pg_maps[i].path, path))
			return &fl_test_pg_maps[i];
	return NULL;
}

/* The database a path was given, or NULL (SQLite, or a path never given). */
static inline const char *fl_test_pg_of(const char *path)
{
	struct fl_test_pg_map *m = fl_test_pg_map_of(path);

	return m ? m->url : NULL;
}

/*
 * The store a test keeps at path: path itself, or on PostgreSQL a database
 * for it, made on first use. An empty file at path stands for the
 * database: once the test removed it (its directory), the path's next
 * store is a fresh database, as a fresh SQLite file would be. Processes
 * that share a path (forked) share its database.
 */
static inline const char *fl_test_store(const char *path)
{
	const char *base = getenv("FL_TEST_PG"), *prefix = getenv("FL_TEST_PG_PREFIX");
	unsigned h = 2166136261u;
	struct fl_test_pg_map *m;
	char sql[256], name[128], got[16];
	const char *slash;
	FILE *f;

	if (!base || !*base || !prefix || !*prefix)
		return path;
	if ((m = fl_test_pg_map_of(path)) && !access(path, F_OK))
		return m->url;
	for (size_t i = 0; !m && i < sizeof(fl_test_pg_maps) / sizeof(fl_test_pg_maps[0]); i++)
		if (!fl_test_pg_maps[i].path[0])
			m = &fl_test_pg_maps[i];
	if (!m)
		abort();
	for (const char *p = path; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	m->gen++;
	snprintf(name, sizeof(name), "%s_%08x_%d", prefix, h, m->gen);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM pg_database WHERE datname = '%s'", name);
	if (fl_test_pg_sql(base, sql, got, sizeof(got)))
		abort();
	if (!strcmp(got, "0")) { /* a forked sibling may make it at the same time */
		char create[160];

		snprintf(create, sizeof(create), "CREATE DATABASE %s", name);
		if (fl_test_pg_sql(base, create, NULL, 0) &&
		    (fl_test_pg_sql(base, sql, got, sizeof(got)) || strcmp(got, "1")))
			abort();
	}
	if ((slash = strrchr(path, '/')) && slash != path)
		fl_test_sh("mkdir -p '%.*s'", (int)(slash - path), path);
	if ((f = fopen(path, "a")))
		fclose(f);
	slash = strrchr(base, '/');
	snprintf(m->path, sizeof(m->path), "%s", path);
	snprintf(m->url, sizeof(m->url), "%.*s/%s", (int)(slash - base), base, name);
	return m->url;
}

/* The integer a query on a store returns (-1 on error). */
static inline long long fl_test_sql_int(const char *db, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *s;
	long long v = -1;
	char out[64];

	if (fl_test_pg_of(db))
		return fl_test_pg_sql(fl_test_pg_of(db), sql, out, sizeof(out)) ? -1 : atoll(out);

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(h, sql, -1, &s, NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW)
			v = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	}
	sqlite3_close(h);
	return v;
}

/* Runs SQL on a store (what a test does behind the program's back); 0 or -1. */
static inline int fl_test_sql_exec(const char *db, const char *sql)
{
	sqlite3 *h;
	int r;

	if (fl_test_pg_of(db))
		return fl_test_pg_sql(fl_test_pg_of(db), sql, NULL, 0);
	if (sqlite3_open(db, &h) != SQLITE_OK)
		return -1;
	sqlite3_busy_timeout(h, 10000);
	r = sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
	sqlite3_close(h);
	return r;
}

/* The text a query returns, into out ("" for none). */
static inline void fl_test_sql_text(const char *db, const char *sql, char *out, size_t n)
{
	sqlite3 *h;
	sqlite3_stmt *s;

	out[0] = '\0';
	if (fl_test_pg_of(db)) {
		fl_test_pg_sql(fl_test_pg_of(db), sql, out, n);
		return;
	}
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return;
	if (sqlite3_prepare_v2(h, sql, -1, &s, NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
			snprintf(out, n, "%s", (const char *)sqlite3_column_text(s, 0));
		sqlite3_finalize(s);
	}
	sqlite3_close(h);
}

#endif
