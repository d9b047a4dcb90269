/*
 * store-web.c - the read-only queries of the results pages (store-web.h).
 * Every list is one indexed statement with LIMIT/OFFSET; migration 3 in
 * store.c adds the indexes these statements rely on.
 */
#include "store-web.h"
#include "buf.h"
#include "error.h"
#include "store-compare.h"
#include "store-evidence.h"
#include "store-priv.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *col_text(sqlite3_stmt *s, fl_pool *p, int col)
{
	return fl_pool_strdup(p, (const char *)sqlite3_column_text(s, col));
}

/* Commit columns in the order COMMIT_COLS(c, t) selects them. */
#define COMMIT_COLS(c, t)                                                                          \
	"coalesce(" c ".id, 0), " t ".name, " c ".sha, " c ".subject, " c ".author, "              \
	"coalesce(" c ".time, 0)"
#define NCOMMIT_COLS 6

static void read_commit(sqlite3_stmt *s, fl_pool *p, int col, struct fl_web_commit *c)
{
	c->id = sqlite3_column_int64(s, col);
	c->tree = col_text(s, p, col + 1);
	c->sha = col_text(s, p, col + 2);
	c->subject = col_text(s, p, col + 3);
	c->author = col_text(s, p, col + 4);
	c->time = sqlite3_column_int64(s, col + 5);
}

typedef void (*row_fn)(sqlite3_stmt *s, fl_pool *p, void *row);

/*
 * Steps a prepared statement to its end, reading each row into a growing
 * array of 'size'-byte rows; finalizes it. With per_page, the statement
 * fetched one row more than a page: *more says whether it came.
 */
static int collect(fl_store *st, fl_pool *p, sqlite3_stmt *s, size_t size, row_fn fn, void **out,
		   size_t *n, unsigned per_page, int *more, const char *what)
{
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		*out = fl_pool_grow(p, *out, size, *n, &alloc);
		fn(s, p, (char *)*out + *n * size);
		(*n)++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return fl_store_sqlerr(st, what);
	if (more) {
		*more = per_page && *n > per_page;
		if (*more)
			*n = per_page;
	}
	return 0;
}

/* Binds LIMIT per_page + 1 OFFSET (page - 1) * per_page at parameters i, i + 1. */
static void bind_page(sqlite3_stmt *s, int i, unsigned page, unsigned per_page)
{
	sqlite3_bind_int64(s, i, (sqlite3_int64)per_page + 1);
	sqlite3_bind_int64(s, i + 1, (sqlite3_int64)(page ? page - 1 : 0) * per_page);
}

static void bind_opt_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

/* One row expected: FL_ENOTFOUND with msg when there is none. */
static int step_one(fl_store *st, sqlite3_stmt *s, const char *what, const char *msg)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_ROW)
		return 0;
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE)
		return fl_error_set(FL_ENOTFOUND, "%s", msg);
	return fl_store_sqlerr(st, what);
}

/* The row with this id ("SELECT ... WHERE x.id = ?1"), read by fn; FL_ENOTFOUND names it. */
static int get_by_id(fl_store *st, fl_pool *p, const char *sql, int64_t id, row_fn fn, void *out,
		     const char *what)
{
	sqlite3_stmt *s;
	char msg[64];
	int r;

	if (fl_store_prepare(st, &s, sql))
		return FL_ESTORE;
	sqlite3_bind_int64(s, 1, id);
	snprintf(msg, sizeof(msg), "no such %s", what);
	if ((r = step_one(st, s, what, msg)))
		return fl_error_wrap(r, "%s %lld", what, (long long)id);
	fn(s, p, out);
	sqlite3_finalize(s);
	return 0;
}

/* ---- trees and commits ---- */

static void read_commit_row(sqlite3_stmt *s, fl_pool *p, void *row)
{
	read_commit(s, p, 0, row);
}

static int tree_latest(fl_store *st, fl_pool *p, struct fl_web_tree *t, size_t latest)
{
	sqlite3_stmt *s;

	if (fl_store_prepare(
		st, &s,
		"SELECT " COMMIT_COLS(
		    "c",
		    "t") " FROM commits c JOIN trees t ON "
			 "t.id = c.tree_id WHERE c.tree_id = ?1 ORDER BY c.time DESC, c.id DESC "
			 "LIMIT ?2"))
		return FL_ESTORE;
	sqlite3_bind_int64(s, 1, t->id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)latest);
	return collect(st, p, s, sizeof(*t->latest), read_commit_row, (void **)&t->latest,
		       &t->nlatest, 0, NULL, "latest commits");
}

static void read_tree(sqlite3_stmt *s, fl_pool *p, void *row)
{
	struct fl_web_tree *t = row;

	t->id = sqlite3_column_int64(s, 0);
	t->name = col_text(s, p, 1);
	t->url = col_text(s, p, 2);
}

int fl_web_trees(fl_store *st, fl_pool *p, size_t latest, struct fl_web_tree **out, size_t *n)
{
	sqlite3_stmt *s;
	int r;

	if (fl_store_prepare(st, &s, "SELECT id, name, url FROM trees ORDER BY name"))
		return FL_ESTORE;
	if ((r = collect(st, p, s, sizeof(**out), read_tree, (void **)out, n, 0, NULL, "trees")))
		return r;
	for (size_t i = 0; i < *n; i++)
		if ((r = tree_latest(st, p, &(*out)[i], latest)))
			return r;
	return 0;
}

int fl_web_tree_get(fl_store *st, fl_pool *p, const char *name, size_t latest,
		    struct fl_web_tree *out)
{
	sqlite3_stmt *s;
	int r;

	if (fl_store_prepare(st, &s, "SELECT id, name, url FROM trees WHERE name = ?1"))
		return FL_ESTORE;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	if ((r = step_one(st, s, "tree", "no tree with this name")))
		return fl_error_wrap(r, "tree '%s'", name);
	memset(out, 0, sizeof(*out));
	read_tree(s, p, out);
	sqlite3_finalize(s);
	return tree_latest(st, p, out, latest);
}

static int is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* The hex part of a revision: all of it, or what follows the last "-g". */
static int rev_hex(const char *rev, char hex[65])
{
	const char *h = rev;
	size_t n = strlen(rev);

	if (!is_hex(rev, n)) {
		for (const char *g = strstr(rev, "-g"); g; g = strstr(g + 1, "-g"))
			h = g + 2;
		if (h == rev)
			return 0;
		n = strlen(h);
	}
	if (n < 4 || n > 64 || !is_hex(h, n))
		return 0;
	for (size_t i = 0; i <= n; i++)
		hex[i] = (char)tolower((unsigned char)h[i]);
	return 1;
}

int fl_web_rev_resolve(fl_store *st, fl_pool *p, const char *rev, struct fl_web_commit *out)
{
	struct fl_web_commit *rows;
	sqlite3_stmt *s;
	char hex[65];
	size_t n, len = strlen(rev);
	int r;

	if (!len || len > 100)
		return fl_error_set(FL_EINVAL, "bad revision: %s", len ? "too long" : "empty");
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)rev[i]) && !strchr("._+-", rev[i]))
			return fl_error_set(FL_EINVAL,
					    "bad revision '%s': only letters, digits and . _ + - "
					    "are allowed",
					    rev);
	/* Phase 2: tag names are looked up here first, in the service's tags table. */
	if (!rev_hex(rev, hex))
		return fl_error_set(FL_ENOTFOUND,
				    "unknown revision '%s': name a stored commit by its sha (at "
				    "least 4 hex digits) or a release name ending in -g<sha>",
				    rev);
	if (fl_store_prepare(
		st, &s,
		"SELECT " COMMIT_COLS(
		    "c", "t") " FROM commits c JOIN trees t ON "
			      "t.id = c.tree_id WHERE c.sha >= ?1 AND c.sha < ?1 || 'g' "
			      "ORDER BY c.sha, c.id LIMIT 16"))
		return FL_ESTORE;
	sqlite3_bind_text(s, 1, hex, -1, SQLITE_STATIC);
	if ((r = collect(st, p, s, sizeof(*rows), read_commit_row, (void **)&rows, &n, 0, NULL,
			 "resolve revision")))
		return r;
	if (!n)
		return fl_error_set(FL_ENOTFOUND, "unknown revision '%s': no stored commit matches",
				    rev);
	/* The same commit in several trees is one commit. */
	if (strcmp(rows[0].sha, rows[n - 1].sha))
		return fl_error_set(FL_EINVAL,
				    "ambiguous revision '%s': %.12s and %.12s both match", rev,
				    rows[0].sha, rows[n - 1].sha);
	*out = rows[0];
	return 0;
}

/* ---- runs ---- */

#define RUN_COLS                                                                                   \
	"r.id, r.benchmark, m.name, r.status, r.params, r.started, coalesce(r.finished, 0), "      \
	"coalesce(r.build_id, 0), b.kernel, b.status, " COMMIT_COLS("c", "t")
#define RUN_FROM                                                                                   \
	" FROM runs r JOIN machines m ON m.id = r.machine_id LEFT JOIN builds b ON b.id = "        \
	"r.build_id LEFT JOIN commits c ON c.id = b.commit_id LEFT JOIN trees t ON t.id = "        \
	"c.tree_id "

static void read_run(sqlite3_stmt *s, fl_pool *p, void *row)
{
	struct fl_web_run *r = row;

	r->id = sqlite3_column_int64(s, 0);
	r->benchmark = col_text(s, p, 1);
	r->machine = col_text(s, p, 2);
	r->status = col_text(s, p, 3);
	r->params = col_text(s, p, 4);
	r->started = sqlite3_column_int64(s, 5);
	r->finished = sqlite3_column_int64(s, 6);
	r->build_id = sqlite3_column_int64(s, 7);
	r->kernel = col_text(s, p, 8);
	r->build_status = col_text(s, p, 9);
	read_commit(s, p, 10, &r->commit);
}

int fl_web_runs(fl_store *st, fl_pool *p, const struct fl_web_run_filter *f, unsigned page,
		unsigned per_page, struct fl_web_run **out, size_t *n, int *more)
{
	fl_buf sql = FL_BUF_INIT;
	sqlite3_stmt *s;
	int r;

	/*
	 * The page's ids first, from runs alone (a deep OFFSET then skips ids,
	 * not joined rows), then their rows. Only the conditions asked for, so
	 * "in progress" is answered by the partial index runs_active.
	 */
	fl_buf_adds(&sql, "SELECT " RUN_COLS RUN_FROM "WHERE r.id IN (SELECT id FROM runs WHERE 1");
	if (f->benchmark)
		fl_buf_adds(&sql, " AND benchmark = ?1");
	if (f->machine)
		fl_buf_adds(&sql, " AND machine_id = (SELECT id FROM machines WHERE name = ?2)");
	if (f->status)
		fl_buf_adds(&sql, " AND status = ?3");
	if (f->active)
		fl_buf_adds(&sql, " AND status IN ('queued', 'running')");
	fl_buf_adds(&sql, " ORDER BY id DESC LIMIT ?4 OFFSET ?5) ORDER BY r.id DESC");
	r = fl_store_prepare(st, &s, sql.ptr);
	fl_buf_free(&sql);
	if (r)
		return FL_ESTORE;
	bind_opt_text(s, 1, f->benchmark);
	bind_opt_text(s, 2, f->machine);
	bind_opt_text(s, 3, f->status);
	bind_page(s, 4, page, per_page);
	return collect(st, p, s, sizeof(**out), read_run, (void **)out, n, per_page, more, "runs");
}

int fl_web_run_get(fl_store *st, fl_pool *p, int64_t id, size_t console_tail,
		   struct fl_web_run_detail *out)
{
	sqlite3_stmt *s;
	int r;

	if (fl_store_prepare(st, &s,
			     "SELECT " RUN_COLS ", m.backend, m.facts, length(r.console), "
			     "substr(r.console, -?2)" RUN_FROM "WHERE r.id = ?1"))
		return FL_ESTORE;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)console_tail);
	if ((r = step_one(st, s, "run", "no such run")))
		return fl_error_wrap(r, "run %lld", (long long)id);
	memset(out, 0, sizeof(*out));
	read_run(s, p, &out->run);
	out->backend = col_text(s, p, 10 + NCOMMIT_COLS);
	out->facts = col_text(s, p, 11 + NCOMMIT_COLS);
	out->console_len = (size_t)sqlite3_column_int64(s, 12 + NCOMMIT_COLS);
	out->console = console_tail ? col_text(s, p, 13 + NCOMMIT_COLS) : NULL;
	sqlite3_finalize(s);
	return 0;
}

int fl_web_run_console(fl_store *st, fl_pool *p, int64_t id, const char **console, size_t *len)
{
	sqlite3_stmt *s;
	int r;

	if (fl_store_prepare(st, &s, "SELECT console FROM runs WHERE id = ?1"))
		return FL_ESTORE;
	sqlite3_bind_int64(s, 1, id);
	if ((r = step_one(st, s, "run console", "no such run")))
		return fl_error_wrap(r, "run %lld", (long long)id);
	*console = col_text(s, p, 0);
	*len = *console ? (size_t)sqlite3_column_bytes(s, 0) : 0;
	sqlite3_finalize(s);
	return 0;
}

int fl_web_run_evidence(fl_store *st, fl_pool *p, int64_t id, size_t top,
			struct fl_evidence_point **out, size_t *n)
{
	struct fl_evidence_point *pts;
	size_t npts;
	int r;

	*out = NULL;
	*n = 0;
	if ((r = fl_store_evidence_get(st, id, &pts, &npts)))
		return r;
	*out = fl_pool_alloc(p, (npts + 1) * sizeof(**out));
	for (size_t i = 0; i < npts; i++) {
		struct fl_evidence_point *d = &(*out)[i], *e = &pts[i];

		*d = *e;
		d->test = fl_pool_strdup(p, e->test);
		d->mode = fl_pool_strdup(p, e->mode);
		d->profile = fl_pool_strdup(p, e->profile);
		d->vm = fl_pool_alloc(p, (e->nvm + 1) * sizeof(*d->vm));
		for (size_t k = 0; k < e->nvm; k++)
			d->vm[k] = (struct fl_vmstat_rate){fl_pool_strdup(p, e->vm[k].name),
							   e->vm[k].delta, e->vm[k].per_sec};
		d->nfn = e->nfn < top ? e->nfn : top;
		d->fn = fl_pool_alloc(p, (d->nfn + 1) * sizeof(*d->fn));
		for (size_t k = 0; k < d->nfn; k++)
			d->fn[k] = (struct fl_profile_fn){fl_pool_strdup(p, e->fn[k].name),
							  e->fn[k].samples, e->fn[k].share};
	}
	*n = npts;
	fl_evidence_points_free(pts, npts);
	return 0;
}

static void read_sample(sqlite3_stmt *s, fl_pool *p, void *row)
{
	struct fl_web_sample *x = row;

	x->metric = col_text(s, p, 0);
	x->mode = col_text(s, p, 1);
	x->tasks = (unsigned)sqlite3_column_int64(s, 2);
	x->seq = (unsigned)sqlite3_column_int64(s, 3);
	x->value = sqlite3_column_double(s, 4);
}

/* Every page of samples, or all of them with per_page 0. */
static int run_samples(fl_store *st, fl_pool *p, int64_t id, unsigned page, unsigned per_page,
		       struct fl_web_sample **out, size_t *n, int *more)
{
	sqlite3_stmt *s;

	if (fl_store_prepare(
		st, &s,
		"SELECT metric, mode, tasks, seq, value FROM samples WHERE run_id = ?1 "
		"ORDER BY metric, mode, tasks, seq LIMIT ?2 OFFSET ?3"))
		return FL_ESTORE;
	sqlite3_bind_int64(s, 1, id);
	if (per_page) {
		bind_page(s, 2, page, per_page);
	} else {
		sqlite3_bind_int64(s, 2, -1);
		sqlite3_bind_int64(s, 3, 0);
	}
	return collect(st, p, s, sizeof(**out), read_sample, (void **)out, n, per_page, more,
		       "samples");
}

int fl_web_run_samples(fl_store *st, fl_pool *p, int64_t id, unsigned page, unsigned per_page,
		       struct fl_web_sample **out, size_t *n, int *more)
{
	return run_samples(st, p, id, page, per_page, out, n, more);
}

static int same_point(const struct fl_web_sample *a, const struct fl_web_sample *b)
{
	return a->tasks == b->tasks && !strcmp(a->metric, b->metric) && !strcmp(a->mode, b->mode);
}

int fl_web_run_points(fl_store *st, fl_pool *p, int64_t id, struct fl_web_point **out, size_t *n)
{
	struct fl_web_sample *x;
	size_t nx, alloc = 0;
	double *v;
	int r;

	*out = NULL;
	*n = 0;
	if ((r = run_samples(st, p, id, 1, 0, &x, &nx, NULL)))
		return r;
	v = fl_pool_alloc(p, (nx ? nx : 1) * sizeof(*v));
	for (size_t i = 0, j; i < nx; i = j) {
		struct fl_web_point *pt;

		for (j = i; j < nx && same_point(&x[i], &x[j]); j++)
			v[j - i] = x[j].value;
		*out = fl_pool_grow(p, *out, sizeof(**out), *n, &alloc);
		pt = &(*out)[(*n)++];
		pt->metric = x[i].metric;
		pt->mode = x[i].mode;
		pt->tasks = x[i].tasks;
		pt->n = j - i;
		pt->mean = fl_stats_mean(v, pt->n);
		pt->sd = fl_stats_stddev(v, pt->n);
	}
	return 0;
}

/* ---- regressions and reports ---- */

#define REGRESSION_SELECT                                                                          \
	"SELECT g.id, t.name, " COMMIT_COLS("gc", "t") ", " COMMIT_COLS(                           \
	    "bc", "t") ", g.benchmark, m.name, g.metric, g.mode, g.tasks, g.change, g.p_value, "   \
		       "g.state, g.created FROM regressions g JOIN trees t ON t.id = g.tree_id "   \
		       "JOIN commits gc ON gc.id = g.good_commit JOIN commits bc ON bc.id = "      \
		       "g.bad_commit JOIN machines m ON m.id = g.machine_id "

static void read_regression(sqlite3_stmt *s, fl_pool *p, void *row)
{
	struct fl_web_regression *g = row;
	int c = 2 + 2 * NCOMMIT_COLS;

	g->id = sqlite3_column_int64(s, 0);
	g->tree = col_text(s, p, 1);
	read_commit(s, p, 2, &g->good);
	read_commit(s, p, 2 + NCOMMIT_COLS, &g->bad);
	g->benchmark = col_text(s, p, c);
	g->machine = col_text(s, p, c + 1);
	g->metric = col_text(s, p, c + 2);
	g->mode = col_text(s, p, c + 3);
	g->tasks = (unsigned)sqlite3_column_int64(s, c + 4);
	g->change = sqlite3_column_double(s, c + 5);
	g->p_value =
	    sqlite3_column_type(s, c + 6) == SQLITE_NULL ? NAN : sqlite3_column_double(s, c + 6);
	g->state = col_text(s, p, c + 7);
	g->created = sqlite3_column_int64(s, c + 8);
}

int fl_web_regressions(fl_store *st, fl_pool *p, const char *state, unsigned page,
		       unsigned per_page, struct fl_web_regression **out, size_t *n, int *more)
{
	sqlite3_stmt *s;

	if (fl_store_prepare(st, &s,
			     state ? REGRESSION_SELECT "WHERE g.state = ?1 ORDER BY g.id DESC "
						       "LIMIT ?2 OFFSET ?3"
				   : REGRESSION_SELECT "ORDER BY g.id DESC LIMIT ?2 OFFSET ?3"))
		return FL_ESTORE;
	bind_opt_text(s, 1, state);
	bind_page(s, 2, page, per_page);
	return collect(st, p, s, sizeof(**out), read_regression, (void **)out, n, per_page, more,
		       "regressions");
}

int fl_web_regression_get(fl_store *st, fl_pool *p, int64_t id, struct fl_web_regression *out)
{
	return get_by_id(st, p, REGRESSION_SELECT "WHERE g.id = ?1", id, read_regression, out,
			 "regression");
}

#define REPORT_SELECT                                                                              \
	"SELECT id, coalesce(regression_id, 0), message_id, in_reply_to, subject, body, state, "   \
	"attempts, last_error, created, coalesce(sent, 0), next_attempt FROM reports "

static void read_report(sqlite3_stmt *s, fl_pool *p, void *row)
{
	struct fl_web_report *r = row;

	r->id = sqlite3_column_int64(s, 0);
	r->regression_id = sqlite3_column_int64(s, 1);
	r->message_id = col_text(s, p, 2);
	r->in_reply_to = col_text(s, p, 3);
	r->subject = col_text(s, p, 4);
	r->body = col_text(s, p, 5);
	r->state = col_text(s, p, 6);
	r->attempts = sqlite3_column_int(s, 7);
	r->last_error = col_text(s, p, 8);
	r->created = sqlite3_column_int64(s, 9);
	r->sent = sqlite3_column_int64(s, 10);
	r->next_attempt = sqlite3_column_int64(s, 11);
}

int fl_web_report_get(fl_store *st, fl_pool *p, int64_t id, struct fl_web_report *out)
{
	return get_by_id(st, p, REPORT_SELECT "WHERE id = ?1", id, read_report, out, "report");
}

int fl_web_reports_of(fl_store *st, fl_pool *p, int64_t regression_id, struct fl_web_report **out,
		      size_t *n)
{
	sqlite3_stmt *s;

	if (fl_store_prepare(st, &s, REPORT_SELECT "WHERE regression_id = ?1 ORDER BY id"))
		return FL_ESTORE;
	sqlite3_bind_int64(s, 1, regression_id);
	return collect(st, p, s, sizeof(**out), read_report, (void **)out, n, 0, NULL,
		       "reports of a regression");
}

/* ---- bisections ---- */

/* The stored commit with this sha (any tree), joined as c and t. */
#define COMMIT_BY_SHA(sha)                                                                         \
	" LEFT JOIN commits c ON c.id = (SELECT id FROM commits WHERE sha = " sha " ORDER BY id "  \
	"LIMIT 1) LEFT JOIN trees t ON t.id = c.tree_id "

#define BISECTION_SELECT                                                                           \
	"SELECT b.id, coalesce(b.regression_id, 0), b.good, b.bad, b.state, b.result, "            \
	"b.confidence, b.created, coalesce(b.finished, 0), (SELECT count(*) FROM bisect_steps s "  \
	"WHERE s.bisection_id = b.id), b.culprit, " COMMIT_COLS(                                   \
	    "c", "t") " FROM bisections b" COMMIT_BY_SHA("b.culprit")

static void read_bisection(sqlite3_stmt *s, fl_pool *p, void *row)
{
	struct fl_web_bisection *b = row;

	b->id = sqlite3_column_int64(s, 0);
	b->regression_id = sqlite3_column_int64(s, 1);
	b->good = col_text(s, p, 2);
	b->bad = col_text(s, p, 3);
	b->state = col_text(s, p, 4);
	b->result = col_text(s, p, 5);
	b->confidence =
	    sqlite3_column_type(s, 6) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 6);
	b->created = sqlite3_column_int64(s, 7);
	b->finished = sqlite3_column_int64(s, 8);
	b->nsteps = (size_t)sqlite3_column_int64(s, 9);
	read_commit(s, p, 11, &b->culprit);
	b->culprit.sha = col_text(s, p, 10); /* the sha even when the commit is not stored */
}

int fl_web_bisections(fl_store *st, fl_pool *p, const struct fl_web_bisect_filter *f, unsigned page,
		      unsigned per_page, struct fl_web_bisection **out, size_t *n, int *more)
{
	fl_buf sql = FL_BUF_INIT;
	sqlite3_stmt *s;
	int r;

	fl_buf_adds(&sql, BISECTION_SELECT "WHERE 1");
	if (f->state)
		fl_buf_adds(&sql, " AND b.state = ?1");
	if (f->regression_id)
		fl_buf_adds(&sql, " AND b.regression_id = ?2");
	fl_buf_adds(&sql, " ORDER BY b.id DESC LIMIT ?3 OFFSET ?4");
	r = fl_store_prepare(st, &s, sql.ptr);
	fl_buf_free(&sql);
	if (r)
		return FL_ESTORE;
	bind_opt_text(s, 1, f->state);
	sqlite3_bind_int64(s, 2, f->regression_id);
	bind_page(s, 3, page, per_page);
	return collect(st, p, s, sizeof(**out), read_bisection, (void **)out, n, per_page, more,
		       "bisections");
}

int fl_web_bisection_get(fl_store *st, fl_pool *p, int64_t id, struct fl_web_bisection *out)
{
	return get_by_id(st, p, BISECTION_SELECT "WHERE b.id = ?1", id, read_bisection, out,
			 "bisection");
}

static void read_step(sqlite3_stmt *s, fl_pool *p, void *row)
{
	struct fl_web_step *x = row;
	double *v, *copy;

	x->seq = (size_t)sqlite3_column_int64(s, 0);
	x->status = col_text(s, p, 2);
	x->n = fl_store_parse_numbers((const char *)sqlite3_column_text(s, 3), &v);
	copy = fl_pool_alloc(p, (x->n ? x->n : 1) * sizeof(*v));
	memcpy(copy, v, x->n * sizeof(*v));
	free(v);
	x->v = copy;
	x->verdict = col_text(s, p, 4);
	x->confidence = sqlite3_column_double(s, 5);
	x->created = sqlite3_column_int64(s, 6);
	read_commit(s, p, 7, &x->commit);
	x->commit.sha = col_text(s, p, 1);
}

int fl_web_bisect_steps(fl_store *st, fl_pool *p, int64_t id, struct fl_web_step **out, size_t *n)
{
	sqlite3_stmt *s;

	if (fl_store_prepare(
		st, &s,
		"SELECT s.seq, s.commit_sha, s.status, s.samples, coalesce(s.verdict, "
		"''), coalesce(s.confidence, 0), s.created, " COMMIT_COLS(
		    "c",
		    "t") " FROM bisect_steps s" COMMIT_BY_SHA("s.commit_sha") "WHERE "
									      "s.bisection_id = ?1 "
									      "ORDER BY s.seq"))
		return FL_ESTORE;
	sqlite3_bind_int64(s, 1, id);
	return collect(st, p, s, sizeof(**out), read_step, (void **)out, n, 0, NULL,
		       "bisect steps");
}

/* ---- comparisons and series ---- */

static int machine_id(fl_store *st, const char *name, int64_t *id)
{
	sqlite3_stmt *s;
	int r;

	if (fl_store_prepare(st, &s, "SELECT id FROM machines WHERE name = ?1"))
		return FL_ESTORE;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	if ((r = step_one(st, s, "machine", "no machine with this name")))
		return fl_error_wrap(r, "machine '%s'", name);
	*id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return 0;
}

/* Each of a comparison's strings and rows, in the pool. */
static void pool_comparison(fl_pool *p, const struct fl_comparison *c, struct fl_web_compare *out)
{
	out->rows = fl_pool_alloc(p, (c->nrows + 1) * sizeof(*out->rows));
	for (size_t i = 0; i < c->nrows; i++) {
		struct fl_cmp_row *r = &out->rows[i];

		*r = c->rows[i];
		r->mode = fl_pool_strdup(p, r->mode);
		r->what = fl_pool_strdup(p, r->what);
		r->name = fl_pool_strdup(p, r->name);
		out->nmetric += r->kind == FL_CMP_METRIC;
		out->nvmstat += r->kind == FL_CMP_VMSTAT;
		out->nprofile += r->kind == FL_CMP_PROFILE;
	}
	out->nrows = c->nrows;
	out->notes = fl_pool_alloc(p, (c->nnotes + 1) * sizeof(*out->notes));
	for (size_t i = 0; i < c->nnotes; i++)
		out->notes[i] = fl_pool_strdup(p, c->notes[i]);
	out->nnotes = c->nnotes;
}

static int has_evidence(const struct fl_cmp_side *s)
{
	for (size_t i = 0; i < s->set.n; i++)
		if (s->runs[i].npoints)
			return 1;
	return 0;
}

/* Both sides' runs read and compared; rows only when both have runs. */
static int compare_sides(fl_store *st, fl_pool *p, const struct fl_web_compare_req *q,
			 const int64_t *ia, const int64_t *ib, struct fl_web_compare *out)
{
	struct fl_cmp_side sa = {0}, sb = {0};
	struct fl_comparison *c = NULL;
	struct fl_cmp_opts o;
	int r;

	fl_cmp_opts_init(&o);
	o.alpha = q->alpha;
	o.min_change = q->min_change;
	o.dir = q->dir;
	if (!(r = fl_cmp_side_load(st, q->a, ia, out->a_runs, 0, &sa)) &&
	    !(r = fl_cmp_side_load(st, q->b, ib, out->b_runs, 0, &sb)) &&
	    !(r = fl_compare(q->benchmark, &sa.set, &sb.set, &o, &c))) {
		pool_comparison(p, c, out);
		out->has_evidence = has_evidence(&sa) || has_evidence(&sb);
	}
	fl_comparison_free(c);
	fl_cmp_side_release(&sa);
	fl_cmp_side_release(&sb);
	return r;
}

int fl_web_compare(fl_store *st, fl_pool *p, const struct fl_web_compare_req *q,
		   struct fl_web_compare *out)
{
	int64_t *ia = NULL, *ib = NULL;
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = fl_web_rev_resolve(st, p, q->a, &out->a)) ||
	    (r = fl_web_rev_resolve(st, p, q->b, &out->b)) ||
	    (r = machine_id(st, q->machine, &out->machine_id)))
		return r;
	if (!(r = fl_store_cmp_commit_runs(st, out->a.sha, q->benchmark, q->machine, &ia,
					   &out->a_runs)) &&
	    !(r = fl_store_cmp_commit_runs(st, out->b.sha, q->benchmark, q->machine, &ib,
					   &out->b_runs)) &&
	    out->a_runs && out->b_runs)
		r = compare_sides(st, p, q, ia, ib, out);
	free(ia);
	free(ib);
	return r;
}

int fl_web_compare_runs(fl_store *st, fl_pool *p, int64_t commit_id, const char *benchmark,
			int64_t machine_id, unsigned page, unsigned per_page,
			struct fl_web_run **out, size_t *n, int *more)
{
	sqlite3_stmt *s;

	/* the runs store-compare.c compares: runs.commit_id, or the build's commit */
	if (fl_store_prepare(
		st, &s,
		"SELECT " RUN_COLS RUN_FROM "WHERE r.id IN (SELECT id FROM runs INDEXED BY "
					    "runs_by_commit WHERE commit_id = ?1 AND "
		"benchmark = ?2 AND machine_id = ?3 UNION SELECT x.id FROM builds y JOIN "
		"runs x ON x.build_id = y.id WHERE y.commit_id = ?1 AND +x.commit_id "
		"IS NULL AND x.benchmark = ?2 AND x.machine_id = ?3) "
		"ORDER BY r.id DESC LIMIT ?4 OFFSET ?5"))
		return FL_ESTORE;
	sqlite3_bind_int64(s, 1, commit_id);
	sqlite3_bind_text(s, 2, benchmark, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, machine_id);
	bind_page(s, 4, page, per_page);
	return collect(st, p, s, sizeof(**out), read_run, (void **)out, n, per_page, more,
		       "runs of a kernel");
}

/* The newest ok run of the tree (optionally of a benchmark and machine). */
static int newest_run(fl_store *st, fl_pool *p, int64_t tree, const char *benchmark,
		      const char *machine, int64_t *run, const char **bench_out,
		      const char **machine_out)
{
	sqlite3_stmt *s;
	int rc;

	if (fl_store_prepare(
		st, &s,
		"SELECT r.id, r.benchmark, m.name FROM commits c JOIN builds b ON "
		"b.commit_id = c.id JOIN runs r ON r.build_id = b.id JOIN machines m ON "
		"m.id = r.machine_id WHERE c.tree_id = ?1 AND r.status = 'ok' AND "
		"(?2 IS NULL OR r.benchmark = ?2) AND (?3 IS NULL OR m.name = ?3) "
		"ORDER BY c.time DESC, c.id DESC, r.id DESC LIMIT 1"))
		return FL_ESTORE;
	sqlite3_bind_int64(s, 1, tree);
	bind_opt_text(s, 2, benchmark);
	bind_opt_text(s, 3, machine);
	*run = 0;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*run = sqlite3_column_int64(s, 0);
		*bench_out = col_text(s, p, 1);
		*machine_out = col_text(s, p, 2);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : fl_store_sqlerr(st, "newest run");
}

static int has_str(const char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

/* Task counts in increasing order, each once. */
static void add_tasks(fl_pool *p, struct fl_web_series *o, unsigned tasks, size_t *alloc)
{
	size_t i = 0;

	while (i < o->ntasks && o->tasks_list[i] < tasks)
		i++;
	if (i < o->ntasks && o->tasks_list[i] == tasks)
		return;
	o->tasks_list = fl_pool_grow(p, o->tasks_list, sizeof(unsigned), o->ntasks, alloc);
	memmove(&o->tasks_list[i + 1], &o->tasks_list[i], (o->ntasks - i) * sizeof(unsigned));
	o->tasks_list[i] = tasks;
	o->ntasks++;
}

/* What the run offers (metrics, modes, task counts), and the defaults taken from it. */
static int series_choices(fl_store *st, fl_pool *p, int64_t run, const struct fl_web_series_req *q,
			  struct fl_web_series *o)
{
	struct fl_web_point *pts;
	size_t n, am = 0, ao = 0, at = 0;
	int r;

	if ((r = fl_web_run_points(st, p, run, &pts, &n)))
		return r;
	for (size_t i = 0; i < n; i++) {
		if (!has_str(o->metrics, o->nmetrics, pts[i].metric)) {
			o->metrics = fl_pool_grow(p, o->metrics, sizeof(char *), o->nmetrics, &am);
			o->metrics[o->nmetrics++] = pts[i].metric;
		}
		if (!has_str(o->modes, o->nmodes, pts[i].mode)) {
			o->modes = fl_pool_grow(p, o->modes, sizeof(char *), o->nmodes, &ao);
			o->modes[o->nmodes++] = pts[i].mode;
		}
		add_tasks(p, o, pts[i].tasks, &at);
	}
	o->metric = q->metric					      ? q->metric
		    : has_str(o->metrics, o->nmetrics, "ops_per_sec") ? "ops_per_sec"
		    : o->nmetrics				      ? o->metrics[0]
								      : "ops_per_sec";
	o->mode = q->mode ? q->mode : o->nmodes ? o->modes[0] : "";
	o->tasks = q->tasks ? q->tasks : o->ntasks ? o->tasks_list[o->ntasks - 1] : 1;
	return 0;
}

static int series_commits(fl_store *st, fl_pool *p, int64_t tree, int64_t machine,
			  const struct fl_web_series_req *q, struct fl_web_series *o)
{
	struct fl_web_commit *c;
	sqlite3_stmt *s;
	size_t n;
	int r;

	if (fl_store_prepare(
		st, &s,
		"SELECT " COMMIT_COLS(
		    "c", "t") " FROM commits c JOIN trees t ON t.id = "
			      "c.tree_id WHERE c.tree_id = ?1 AND EXISTS (SELECT 1 FROM builds b "
			      "JOIN runs r ON r.build_id = b.id WHERE b.commit_id = c.id AND "
			      "r.benchmark = ?2 AND r.machine_id = ?3 AND r.status = 'ok') "
			      "ORDER BY c.time DESC, c.id DESC LIMIT ?4 OFFSET ?5"))
		return FL_ESTORE;
	sqlite3_bind_int64(s, 1, tree);
	sqlite3_bind_text(s, 2, o->benchmark, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, machine);
	bind_page(s, 4, q->page, q->per_page);
	if ((r = collect(st, p, s, sizeof(*c), read_commit_row, (void **)&c, &n, q->per_page,
			 &o->more, "series commits")))
		return r;
	o->pts = fl_pool_alloc(p, (n ? n : 1) * sizeof(*o->pts));
	if (fl_store_prepare(st, &s,
			     "SELECT avg(s.value) FROM builds b JOIN runs r ON r.build_id = b.id "
			     "JOIN samples s ON s.run_id = r.id WHERE b.commit_id = ?1 AND "
			     "r.benchmark = ?2 AND r.machine_id = ?3 AND r.status = 'ok' AND "
			     "s.metric = ?4 AND s.mode = ?5 AND s.tasks = ?6 GROUP BY r.id "
			     "ORDER BY r.id"))
		return FL_ESTORE;
	/* Oldest first; commits without this metric leave no position. */
	for (size_t i = n; i-- > 0;) {
		struct fl_web_series_point *pt = &o->pts[o->n];
		size_t alloc = 0;
		int rc;

		sqlite3_bind_int64(s, 1, c[i].id);
		sqlite3_bind_text(s, 2, o->benchmark, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 3, machine);
		sqlite3_bind_text(s, 4, o->metric, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 5, o->mode, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 6, o->tasks);
		pt->commit = c[i];
		pt->n = 0;
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			pt->v = fl_pool_grow(p, pt->v, sizeof(double), pt->n, &alloc);
			pt->v[pt->n++] = sqlite3_column_double(s, 0);
		}
		sqlite3_reset(s);
		if (rc != SQLITE_DONE) {
			sqlite3_finalize(s);
			return fl_store_sqlerr(st, "series values");
		}
		if (pt->n)
			o->n++;
	}
	sqlite3_finalize(s);
	return 0;
}

/* E-divisive on the page's positions: at most 8 points, a fixed seed so a page is stable. */
static int series_change_points(fl_pool *p, const struct fl_web_series_req *q,
				struct fl_web_series *o)
{
	struct fl_series_point *sp;

	if (o->n < 4)
		return 0;
	sp = fl_pool_alloc(p, o->n * sizeof(*sp));
	for (size_t i = 0; i < o->n; i++) {
		sp[i].v = o->pts[i].v;
		sp[i].n = o->pts[i].n;
	}
	o->cps = fl_pool_alloc(p, 8 * sizeof(*o->cps));
	return fl_stats_change_points(sp, o->n, 0.01, 199, 0x5eed, q->dir, o->cps, 8, &o->ncps);
}

int fl_web_series(fl_store *st, fl_pool *p, const struct fl_web_series_req *q,
		  struct fl_web_series *o)
{
	struct fl_web_tree t;
	int64_t run, machine;
	int r;

	memset(o, 0, sizeof(*o));
	o->benchmark = q->benchmark;
	o->machine = q->machine;
	if ((r = fl_web_tree_get(st, p, q->tree, 0, &t)) ||
	    (r = newest_run(st, p, t.id, q->benchmark, q->machine, &run, &o->benchmark,
			    &o->machine)))
		return r;
	if (!run) /* nothing measured yet: an empty series */
		return 0;
	if ((r = machine_id(st, o->machine, &machine)) || (r = series_choices(st, p, run, q, o)) ||
	    (r = series_commits(st, p, t.id, machine, q, o)))
		return r;
	return series_change_points(p, q, o);
}
