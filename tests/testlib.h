/*
 * testlib.h - what the C tests share: a scratch directory per test program,
 * removed with everything in it at the end; shell commands (git(1) makes
 * the repositories the tests work on); one value out of a SQLite file.
 */
#ifndef FL_TESTLIB_H
#define FL_TESTLIB_H

#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The integer a query on a SQLite file returns (-1 on error). */
static inline long long fl_test_sql_int(const char *db, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *s;
	long long v = -1;

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

/* Runs SQL on a SQLite file (what a test does behind the program's back); 0 or -1. */
static inline int fl_test_sql_exec(const char *db, const char *sql)
{
	sqlite3 *h;
	int r;

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
