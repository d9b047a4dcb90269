/*
 * store/priv.h - what the store-*.c files share; nothing outside the store
 * includes this (the rest of faultline never sees SQL).
 */
#ifndef FL_STORE_PRIV_H
#define FL_STORE_PRIV_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct fl_store {
	sqlite3 *db;
	char *path;
};

int fl_store_sqlerr(struct fl_store *st, const char *what);
int fl_store_exec(struct fl_store *st, const char *sql);
int fl_store_prepare(struct fl_store *st, sqlite3_stmt **stmt, const char *sql);
int fl_store_step_done(struct fl_store *st, sqlite3_stmt *stmt, const char *what);
/* Binds s as text (copied), or SQL NULL when s is NULL. */
void fl_store_bind_opt(sqlite3_stmt *stmt, int i, const char *s);
/* A text column as a fresh string, NULL for SQL NULL. */
char *fl_store_column_dup(sqlite3_stmt *stmt, int col);
/* "[1,2.5]" (bisect_steps.samples) -> values (caller frees *v); malformed
 * text ends the list where it stops parsing. */
size_t fl_store_parse_numbers(const char *s, double **v);
/* Inserts samples inside the caller's transaction. */
struct fl_sample;
int fl_store_samples_insert(struct fl_store *st, int64_t run_id, const struct fl_sample *s,
			    size_t n);

#endif
