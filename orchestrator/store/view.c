/*
 * store/view.c - the read-only views of the store (store/view.h), what the
 * results pages show. Every list is one indexed statement with
 * LIMIT/OFFSET; migrations 4 and 7 (store/migrations.c) add the indexes
 * these statements rely on.
 */
#include "store/view.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "store/priv.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *col_text(fl_stmt *s, fl_pool *p, int col)
{
	return fl_pool_strdup(p, fl_stmt_column_text(s, col));
}

/* A REAL column, NAN for NULL (SQLite stores a bound NAN as NULL). */
static double col_num(fl_stmt *s, int col)
{
	return fl_stmt_column_type(s, col) == FL_SQL_NULL ? NAN : fl_stmt_column_double(s, col);
}

/* Commit columns in the order COMMIT_COLS(c, t) selects them. */
#define COMMIT_COLS(c, t)                                                                          \
	"coalesce(" c ".id, 0), " t ".name, " c ".sha, " c ".subject, " c ".author, "              \
	"coalesce(" c ".time, 0)"
#define NCOMMIT_COLS 6

/*
 * A tree's commits in history order, newest first: by their place on the
 * first-parent line (commits.depth, migration 16), then, for rows stored
 * without it (NULL sorts last in DESC), by commit time; the id breaks ties.
 * The index commits_by_depth(tree_id, depth, time) answers it in order.
 */
#define HISTORY_DESC(c) " ORDER BY " c ".depth DESC, " c ".time DESC, " c ".id DESC"
/*
 * Commit c (SQL) is in its tree's history: not a commit faultline made
 * itself, kept alive by a private ref (a revert check's
 * refs/faultline/revert/N, a try's refs/faultline/try/N), which would
 * otherwise pass for the tree's newest commit.
 */
#define IN_HISTORY(c)                                                                              \
	"NOT EXISTS (SELECT 1 FROM reverts v WHERE v.commit_sha = " c ".sha) AND NOT EXISTS "      \
	"(SELECT 1 FROM tries y WHERE y.commit_sha = " c ".sha)"

static void read_commit(fl_stmt *s, fl_pool *p, int col, struct fl_view_commit *c)
{
	c->id = fl_stmt_column_int64(s, col);
	c->tree = col_text(s, p, col + 1);
	c->sha = col_text(s, p, col + 2);
	c->subject = col_text(s, p, col + 3);
	c->author = col_text(s, p, col + 4);
	c->time = fl_stmt_column_int64(s, col + 5);
}

typedef void (*row_fn)(fl_stmt *s, fl_pool *p, void *row);

/*
 * Steps a prepared statement to its end, reading each row into a growing
 * array of 'size'-byte rows. collect() finalizes it; with per_page, the
 * statement fetched one row more than a page: *more says whether it came.
 */
static int read_rows(fl_store *st, fl_pool *p, fl_stmt *s, size_t size, row_fn fn, void **out,
		     size_t *n, const char *what)
{
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	while ((rc = fl_stmt_step(s)) == FL_SQL_ROW) {
		*out = fl_pool_grow(p, *out, size, *n, &alloc);
		fn(s, p, (char *)*out + *n * size);
		(*n)++;
	}
	rc = rc == FL_SQL_DONE ? 0 : fl_store_sqlerr(st, what);
	fl_stmt_reset(s); /* ready for the next binding */
	return rc;
}

static int collect(fl_store *st, fl_pool *p, fl_stmt *s, size_t size, row_fn fn, void **out,
		   size_t *n, unsigned per_page, int *more, const char *what)
{
	int r = read_rows(st, p, s, size, fn, out, n, what);

	fl_stmt_finalize(s);
	if (r)
		return r;
	if (more) {
		*more = per_page && *n > per_page;
		if (*more)
			*n = per_page;
	}
	return 0;
}

/* Binds LIMIT per_page + 1 OFFSET (page - 1) * per_page at parameters i, i + 1. */
static void bind_page(fl_stmt *s, int i, unsigned page, unsigned per_page)
{
	fl_stmt_bind_int64(s, i, (int64_t)per_page + 1);
	fl_stmt_bind_int64(s, i + 1, (int64_t)(page ? page - 1 : 0) * per_page);
}

/* The row with this id ("SELECT ... WHERE x.id = ?1"), read by fn; FL_ENOTFOUND names it. */
static int get_by_id(fl_store *st, fl_pool *p, const char *sql, int64_t id, row_fn fn, void *out,
		     const char *what)
{
	fl_stmt *s;
	int r;

	if (fl_store_prepare(st, &s, sql))
		return FL_ESTORE;
	fl_stmt_bind_int64(s, 1, id);
	if ((r = fl_store_row(st, s, what)) <= 0)
		return fl_error_wrap(r ? r : fl_error_set(FL_ENOTFOUND, "no such %s", what),
				     "%s %lld", what, (long long)id);
	fn(s, p, out);
	fl_stmt_finalize(s);
	return 0;
}

/* ---- trees, tags and commits ---- */

static void read_commit_row(fl_stmt *s, fl_pool *p, void *row)
{
	read_commit(s, p, 0, row);
}

static int tree_latest(fl_store *st, fl_pool *p, struct fl_view_tree *t, size_t latest)
{
	fl_stmt *s;

	if (fl_store_prepare(st, &s,
			     "SELECT " COMMIT_COLS(
				 "c", "t") " FROM commits c JOIN trees t ON "
					   "t.id = c.tree_id WHERE c.tree_id = ?1 AND " IN_HISTORY(
					       "c") HISTORY_DESC("c") " LIMIT ?2"))
		return FL_ESTORE;
	fl_stmt_bind_int64(s, 1, t->id);
	fl_stmt_bind_int64(s, 2, (int64_t)latest);
	return collect(st, p, s, sizeof(*t->latest), read_commit_row, (void **)&t->latest,
		       &t->nlatest, 0, NULL, "latest commits");
}

static void read_verdict(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_verdict *v = row;

	v->job_id = fl_stmt_column_int64(s, 0);
	v->benchmark = col_text(s, p, 1);
	v->machine = col_text(s, p, 2);
	v->state = col_text(s, p, 3);
	v->result = col_text(s, p, 4);
	v->error = col_text(s, p, 5);
	v->runs_total = (size_t)fl_stmt_column_int64(s, 6);
	v->runs_done = (size_t)fl_stmt_column_int64(s, 7);
	v->regression_id = fl_stmt_column_int64(s, 8);
	v->change = NAN;
	if (v->regression_id) { /* the regression's own point and change: its headline */
		v->metric = col_text(s, p, 9);
		v->mode = col_text(s, p, 10);
		v->tasks = (unsigned)fl_stmt_column_int64(s, 11);
		v->change = col_num(s, 12);
	}
}

static void read_verdict_point(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_verdict_point *x = row;

	x->metric = col_text(s, p, 0);
	x->mode = col_text(s, p, 1);
	x->tasks = (unsigned)fl_stmt_column_int64(s, 2);
	x->change = col_num(s, 3);
	x->class = col_text(s, p, 4);
}

/* A tag's compare jobs, and a job's primary points: prepared once for all the tags of a tree. */
struct verdict_stmts {
	fl_stmt *jobs, *points;
};

static int tag_verdicts(fl_store *st, fl_pool *p, const struct verdict_stmts *vs,
			struct fl_view_tag *tag)
{
	int r;

	fl_stmt_bind_int64(vs->jobs, 1, tag->id);
	if ((r = read_rows(st, p, vs->jobs, sizeof(*tag->verdicts), read_verdict,
			   (void **)&tag->verdicts, &tag->nverdicts, "tag verdicts")))
		return r;
	for (size_t i = 0; i < tag->nverdicts; i++) {
		struct fl_view_verdict *v = &tag->verdicts[i];

		if (v->regression_id)
			continue;
		fl_stmt_bind_int64(vs->points, 1, v->job_id);
		if ((r = read_rows(st, p, vs->points, sizeof(*v->points), read_verdict_point,
				   (void **)&v->points, &v->npoints, "verdict points")))
			return r;
	}
	return 0;
}

static int verdicts_prepare(fl_store *st, struct verdict_stmts *vs)
{
	if (fl_store_prepare(st, &vs->jobs,
			     "SELECT j.id, j.benchmark, j.machine, j.state, j.result, "
			     "j.error, " FL_JOB_RUNS("j") ", " FL_JOB_RUNS_ENDED(
				 "j") ", coalesce(g.id, 0), g.metric, g.mode, g.tasks, g.change "
				      "FROM jobs j LEFT JOIN regressions g ON g.job_id = j.id "
				      "WHERE j.tag_id = ?1 ORDER BY j.benchmark, j.machine, j.id"))
		return FL_ESTORE;
	if (fl_store_prepare(st, &vs->points,
			     "SELECT metric, mode, tasks, change, class FROM comparisons WHERE "
			     "job_id = ?1 AND what = 'tag' AND is_primary = 1 ORDER BY id")) {
		fl_stmt_finalize(vs->jobs);
		return FL_ESTORE;
	}
	return 0;
}

static void read_tag(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_tag *t = row;

	t->id = fl_stmt_column_int64(s, 0);
	t->name = col_text(s, p, 1);
	t->state = col_text(s, p, 2);
	t->note = col_text(s, p, 3);
	t->baseline = col_text(s, p, 4);
	t->created = fl_stmt_column_int64(s, 5);
	read_commit(s, p, 6, &t->commit);
	read_commit(s, p, 6 + NCOMMIT_COLS, &t->base);
	t->kind = col_text(s, p, 6 + 2 * NCOMMIT_COLS);
	t->tree = t->commit.tree;
}

/* Every tag of the tree, in no order: the model orders them (and takes the
 * newest few) before their verdicts are read (fl_view_tag_verdicts). */
static int tree_tags(fl_store *st, fl_pool *p, struct fl_view_tree *t, size_t latest)
{
	fl_stmt *s;
	int r;

	if (!latest)
		return 0;
	if (fl_store_prepare(
		st, &s,
		"SELECT w.id, w.tag, w.state, w.note, w.baseline, w.created, " COMMIT_COLS(
		    "c",
		    "t") ", " COMMIT_COLS("bc",
					  "t") ", w.kind FROM watch_tags w JOIN trees t ON t.id = "
					       "w.tree_id LEFT JOIN commits c ON c.id = "
					       "w.commit_id LEFT JOIN commits bc ON bc.id = "
					       "w.baseline_commit WHERE w.tree_id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(s, 1, t->id);
	if ((r = collect(st, p, s, sizeof(*t->tags), read_tag, (void **)&t->tags, &t->ntags, 0,
			 NULL, "tags")))
		return r;
	for (size_t i = 0; i < t->ntags; i++)
		t->tags[i].tree = t->name;
	return 0;
}

int fl_view_tag_verdicts(fl_store *st, fl_pool *p, struct fl_view_tag *tags, size_t n)
{
	struct verdict_stmts vs;
	int r = 0;

	if (!n)
		return 0;
	if (verdicts_prepare(st, &vs))
		return FL_ESTORE;
	for (size_t i = 0; i < n && !r; i++)
		r = tag_verdicts(st, p, &vs, &tags[i]);
	fl_stmt_finalize(vs.jobs);
	fl_stmt_finalize(vs.points);
	return r;
}

static void read_tree(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_tree *t = row;

	t->id = fl_stmt_column_int64(s, 0);
	t->name = col_text(s, p, 1);
	t->url = col_text(s, p, 2);
}

int fl_view_trees(fl_store *st, fl_pool *p, size_t latest, struct fl_view_tree **out, size_t *n)
{
	fl_stmt *s;
	int r;

	if (fl_store_prepare(st, &s, "SELECT id, name, url FROM trees ORDER BY name"))
		return FL_ESTORE;
	if ((r = collect(st, p, s, sizeof(**out), read_tree, (void **)out, n, 0, NULL, "trees")))
		return r;
	for (size_t i = 0; i < *n; i++)
		if ((r = tree_latest(st, p, &(*out)[i], latest)) ||
		    (r = tree_tags(st, p, &(*out)[i], latest)))
			return r;
	return 0;
}

int fl_view_tree_get(fl_store *st, fl_pool *p, const char *name, size_t latest,
		     struct fl_view_tree *out)
{
	fl_stmt *s;
	int r;

	if (fl_store_prepare(st, &s, "SELECT id, name, url FROM trees WHERE name = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_text(s, 1, name);
	if ((r = fl_store_row(st, s, "tree")) <= 0)
		return fl_error_wrap(r ? r : fl_error_set(FL_ENOTFOUND, "no tree with this name"),
				     "tree '%s'", name);
	memset(out, 0, sizeof(*out));
	read_tree(s, p, out);
	fl_stmt_finalize(s);
	if ((r = tree_latest(st, p, out, latest)))
		return r;
	return tree_tags(st, p, out, latest);
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

static int rev_chars(const char *rev)
{
	for (; *rev; rev++)
		if (!isalnum((unsigned char)*rev) && !strchr("._+-/", *rev))
			return 0;
	return 1;
}

static int rev_shape(const char *rev)
{
	size_t len = strlen(rev);

	return !strstr(rev, "..") && !strstr(rev, "//") && rev[0] != '/' && rev[len - 1] != '/';
}

int fl_view_rev_ok(const char *rev)
{
	size_t len = strlen(rev);

	return len && len <= 100 && rev_chars(rev) && rev_shape(rev);
}

/* Letters, digits, . _ + - and / between them (tags such as "release/v1"). */
static int rev_check(const char *rev)
{
	size_t len = strlen(rev);

	if (!len || len > 100)
		return fl_error_set(FL_EINVAL, "bad revision: %s", len ? "too long" : "empty");
	if (!rev_chars(rev))
		return fl_error_set(FL_EINVAL,
				    "bad revision '%s': only letters, digits and . _ + - / are "
				    "allowed",
				    rev);
	if (!rev_shape(rev))
		return fl_error_set(FL_EINVAL, "bad revision '%s': not a tag or commit name", rev);
	return 0;
}

/* The stored commits a revision's candidates (rows) name: one, or an error naming two. */
static int rev_one(const char *rev, const char *hint, const struct fl_view_commit *rows, size_t n,
		   struct fl_view_commit *out)
{
	/* The same commit in several trees is one commit. */
	if (strcmp(rows[0].sha, rows[n - 1].sha))
		return fl_error_set(FL_EINVAL,
				    "ambiguous revision '%s': %.12s (tree %s) and %.12s (tree %s) "
				    "both match; %s",
				    rev, rows[0].sha, rows[0].tree, rows[n - 1].sha,
				    rows[n - 1].tree, hint);
	*out = rows[0];
	return 0;
}

/* The commits a tag names, as a tested tag or as a baseline, in any tree. */
static int rev_tag(fl_store *st, fl_pool *p, const char *tree, const char *rev,
		   struct fl_view_commit **rows, size_t *n)
{
	fl_stmt *s;

	if (fl_store_prepare(
		st, &s,
		"SELECT " COMMIT_COLS("c", "t") " FROM watch_tags w JOIN commits c ON c.id = "
						"w.commit_id JOIN trees t ON t.id = c.tree_id "
						"WHERE w.tag = ?1 AND (?2 IS NULL OR t.name = ?2) "
						"UNION SELECT " COMMIT_COLS(
						    "c", "t") " FROM watch_tags w JOIN commits c "
							      "ON c.id = w.baseline_commit JOIN "
							      "trees t ON t.id = c.tree_id WHERE "
							      "w.baseline = ?1 AND (?2 IS NULL OR "
							      "t.name = ?2) ORDER BY 3 LIMIT 16"))
		return FL_ESTORE;
	fl_stmt_bind_text(s, 1, rev);
	fl_store_bind_opt(s, 2, tree);
	return collect(st, p, s, sizeof(**rows), read_commit_row, (void **)rows, n, 0, NULL,
		       "resolve tag");
}

int fl_view_rev_resolve(fl_store *st, fl_pool *p, const char *tree, const char *rev,
			struct fl_view_commit *out)
{
	struct fl_view_commit *rows;
	fl_stmt *s;
	char hex[65];
	size_t n;
	int r;

	if ((r = rev_check(rev)) || (r = rev_tag(st, p, tree, rev, &rows, &n)))
		return r;
	if (n)
		return rev_one(rev,
			       "the tag is on both: name the tree (tree=) or the commit by its sha",
			       rows, n, out);
	if (!rev_hex(rev, hex))
		return fl_error_set(
		    FL_ENOTFOUND,
		    "unknown revision '%s'%s%s: no tested tag has this name; name a "
		    "stored commit by its sha (at least 4 hex digits) or a release "
		    "name ending in -g<sha>",
		    rev, tree ? " in tree " : "", tree ? tree : "");
	if (fl_store_prepare(
		st, &s,
		"SELECT " COMMIT_COLS(
		    "c", "t") " FROM commits c JOIN trees t ON "
			      "t.id = c.tree_id WHERE c.sha >= ?1 AND c.sha < ?1 || 'g' "
			      "AND (?2 IS NULL OR t.name = ?2) ORDER BY c.sha, c.id LIMIT 16"))
		return FL_ESTORE;
	fl_stmt_bind_text(s, 1, hex);
	fl_store_bind_opt(s, 2, tree);
	if ((r = collect(st, p, s, sizeof(*rows), read_commit_row, (void **)&rows, &n, 0, NULL,
			 "resolve revision")))
		return r;
	if (!n)
		return fl_error_set(
		    FL_ENOTFOUND,
		    "unknown revision '%s'%s%s: no tested tag or stored commit matches", rev,
		    tree ? " in tree " : "", tree ? tree : "");
	return rev_one(rev, "give more digits", rows, n, out);
}

static void read_name(fl_stmt *s, fl_pool *p, void *row)
{
	*(const char **)row = col_text(s, p, 0);
}

int fl_view_commit_tags(fl_store *st, fl_pool *p, int64_t commit_id, const char ***out, size_t *n)
{
	fl_stmt *s;

	if (fl_store_prepare(st, &s,
			     "SELECT tag FROM watch_tags WHERE commit_id = ?1 UNION SELECT "
			     "baseline FROM watch_tags WHERE baseline_commit = ?1 AND baseline "
			     "IS NOT NULL"))
		return FL_ESTORE;
	fl_stmt_bind_int64(s, 1, commit_id);
	return collect(st, p, s, sizeof(**out), read_name, (void **)out, n, 0, NULL, "commit tags");
}

/* ---- runs ---- */

#define RUN_COLS                                                                                   \
	"r.id, r.benchmark, m.name, r.status, r.params, r.started, coalesce(r.finished, 0), "      \
	"coalesce(r.build_id, 0), b.kernel, b.status, " COMMIT_COLS("c",                           \
								    "t") ", r.detail, "            \
									 "coalesce(r.job_id, 0)"
#define NRUN_COLS (12 + NCOMMIT_COLS)
/* A run's commit: runs.commit_id, or its build's for rows without it. */
#define RUN_FROM                                                                                   \
	" FROM runs r JOIN machines m ON m.id = r.machine_id LEFT JOIN builds b ON b.id = "        \
	"r.build_id LEFT JOIN commits c ON c.id = " FL_RUN_COMMIT("r", "b") " LEFT JOIN trees t "  \
									    "ON t.id = c.tree_id "

static void read_run(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_run *r = row;

	r->id = fl_stmt_column_int64(s, 0);
	r->benchmark = col_text(s, p, 1);
	r->machine = col_text(s, p, 2);
	r->status = col_text(s, p, 3);
	r->params = col_text(s, p, 4);
	r->started = fl_stmt_column_int64(s, 5);
	r->finished = fl_stmt_column_int64(s, 6);
	r->build_id = fl_stmt_column_int64(s, 7);
	r->kernel = col_text(s, p, 8);
	r->build_status = col_text(s, p, 9);
	read_commit(s, p, 10, &r->commit);
	r->detail = col_text(s, p, 10 + NCOMMIT_COLS);
	r->job_id = fl_stmt_column_int64(s, 11 + NCOMMIT_COLS);
}

/* A list's condition: cond (with ?N for value) added when value is not NULL, or when set. */
struct cond {
	const char *cond, *value;
	int set;
};

/*
 * A page of a list, newest first: the page's ids first, from the table
 * alone (a deep OFFSET then skips ids, not joined rows), then their rows
 * (select ends in "WHERE x.id IN (SELECT id FROM table WHERE 1"). Only the
 * conditions asked for, so "in progress" is answered by a partial index
 * (runs_active, jobs_live). Values bind at 1..nc, the page after them.
 */
static int list_page(fl_store *st, fl_pool *p, const char *select, const char *alias,
		     const struct cond *c, size_t nc, unsigned page, unsigned per_page, size_t size,
		     row_fn fn, void **out, size_t *n, int *more, const char *what)
{
	fl_buf sql = FL_BUF_INIT;
	fl_stmt *s;
	int r;

	fl_buf_adds(&sql, select);
	for (size_t i = 0; i < nc; i++)
		if (c[i].value || c[i].set)
			fl_buf_addf(&sql, " AND %s", c[i].cond);
	fl_buf_addf(&sql, " ORDER BY id DESC LIMIT ?%zu OFFSET ?%zu) ORDER BY %s.id DESC", nc + 1,
		    nc + 2, alias);
	r = fl_store_prepare(st, &s, sql.ptr);
	fl_buf_free(&sql);
	if (r)
		return FL_ESTORE;
	for (size_t i = 0; i < nc; i++)
		fl_store_bind_opt(s, (int)i + 1, c[i].value);
	bind_page(s, (int)nc + 1, page, per_page);
	return collect(st, p, s, size, fn, out, n, per_page, more, what);
}

int fl_view_runs(fl_store *st, fl_pool *p, const struct fl_view_run_filter *f, unsigned page,
		 unsigned per_page, struct fl_view_run **out, size_t *n, int *more)
{
	const struct cond c[] = {
	    {"benchmark = ?1", f->benchmark, 0},
	    {"machine_id = (SELECT id FROM machines WHERE name = ?2)", f->machine, 0},
	    {"status = ?3", f->status, 0},
	    {"status IN " FL_RUN_ACTIVE, NULL, f->active},
	};

	return list_page(
	    st, p, "SELECT " RUN_COLS RUN_FROM "WHERE r.id IN (SELECT id FROM runs WHERE 1", "r", c,
	    4, page, per_page, sizeof(**out), read_run, (void **)out, n, more, "runs");
}

static void read_job_run(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_run *r = row;

	read_run(s, p, r);
	r->role = col_text(s, p, NRUN_COLS);
}

int fl_view_job_commit_runs(fl_store *st, int64_t job_id, const char *sha, const char *benchmark,
			    const char *machine, int64_t **ids, size_t *n)
{
	fl_stmt *s;
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*n = 0;
	if (fl_store_prepare(
		st, &s,
		"SELECT id FROM (" FL_RUNS_OF_COMMIT(
		    "SELECT id FROM commits WHERE sha = ?2",
		    "x.benchmark = ?3 AND x.machine_id = (SELECT id FROM machines WHERE name = "
		    "?4) AND +x.status = 'ok' AND x.job_id IN (SELECT id FROM jobs WHERE "
		    "parent_id = ?1)") ") AS o ORDER BY 1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(s, 1, job_id);
	fl_stmt_bind_text(s, 2, sha);
	fl_stmt_bind_text(s, 3, benchmark);
	fl_stmt_bind_text(s, 4, machine);
	while ((rc = fl_stmt_step(s)) == FL_SQL_ROW) {
		if (*n == cap)
			*ids = fl_xrealloc(*ids, (cap = cap ? 2 * cap : 16) * sizeof(**ids));
		(*ids)[(*n)++] = fl_stmt_column_int64(s, 0);
	}
	fl_stmt_finalize(s);
	if (rc != FL_SQL_DONE) {
		free(*ids);
		*ids = NULL;
		*n = 0;
		return fl_store_sqlerr(st, "runs of a job's commit");
	}
	return 0;
}

int fl_view_job_runs(fl_store *st, fl_pool *p, int64_t parent_job, unsigned page, unsigned per_page,
		     struct fl_view_run **out, size_t *n, int *more)
{
	fl_stmt *s;

	if (fl_store_prepare(
		st, &s,
		"SELECT " RUN_COLS ", j.role" RUN_FROM "JOIN jobs j ON j.id = r.job_id "
		"WHERE r.id IN (SELECT x.id FROM runs x WHERE x.job_id IN (SELECT id FROM "
		"jobs WHERE parent_id = ?1) ORDER BY +x.id DESC LIMIT ?2 OFFSET ?3) "
		"ORDER BY r.id DESC"))
		return FL_ESTORE;
	fl_stmt_bind_int64(s, 1, parent_job);
	bind_page(s, 2, page, per_page);
	return collect(st, p, s, sizeof(**out), read_job_run, (void **)out, n, per_page, more,
		       "runs of a job");
}

static void read_run_detail(fl_stmt *s, fl_pool *p, struct fl_view_run_detail *d, int c)
{
	d->backend = col_text(s, p, c);
	d->facts = col_text(s, p, c + 1);
	d->console_len = (size_t)fl_stmt_column_int64(s, c + 2);
	d->console = col_text(s, p, c + 3);
	d->console_path = col_text(s, p, c + 4);
	d->label = col_text(s, p, c + 5);
	d->domain = col_text(s, p, c + 6);
	d->kernel_image = col_text(s, p, c + 7);
	d->nodes = fl_stmt_column_int(s, c + 8);
	d->cpus = fl_stmt_column_int(s, c + 9);
	d->kernel_release = col_text(s, p, c + 10);
	d->accel = col_text(s, p, c + 11);
	d->machine_facts = col_text(s, p, c + 12);
	d->created_ms = fl_stmt_column_int64(s, c + 13);
	d->agent_ms = fl_stmt_column_int64(s, c + 14);
	d->first_sample_ms = fl_stmt_column_int64(s, c + 15);
	d->ended_ms = fl_stmt_column_int64(s, c + 16);
	d->job_kind = col_text(s, p, c + 17);
	d->job_role = col_text(s, p, c + 18);
	d->job_state = col_text(s, p, c + 19);
	d->job_attempts = fl_stmt_column_int(s, c + 20);
	d->job_parent = fl_stmt_column_int64(s, c + 21);
}

int fl_view_run_get(fl_store *st, fl_pool *p, int64_t id, size_t console_tail,
		    struct fl_view_run_detail *out)
{
	fl_stmt *s;
	int r;

	if (fl_store_prepare(
		st, &s,
		"SELECT " RUN_COLS ", m.backend, m.facts, length(r.console), CASE WHEN ?2 > 0 "
		"THEN substr(r.console, -?2) END, r.console_path, r.label, r.domain, "
		"r.kernel_image, coalesce(r.nodes, 0), coalesce(r.cpus, 0), r.kernel_release, "
		"r.accel, r.machine_facts, coalesce(r.created_ms, 0), coalesce(r.agent_ms, 0), "
		"coalesce(r.first_sample_ms, 0), coalesce(r.ended_ms, 0), j.kind, j.role, "
		"j.state, coalesce(j.attempts, 0), coalesce(j.parent_id, 0)" RUN_FROM
		"LEFT JOIN jobs j ON j.id = r.job_id WHERE r.id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(s, 1, id);
	fl_stmt_bind_int64(s, 2, (int64_t)console_tail);
	if ((r = fl_store_row(st, s, "run")) <= 0)
		return fl_error_wrap(r ? r : fl_error_set(FL_ENOTFOUND, "no such run"), "run %lld",
				     (long long)id);
	memset(out, 0, sizeof(*out));
	read_run(s, p, &out->run);
	read_run_detail(s, p, out, NRUN_COLS);
	fl_stmt_finalize(s);
	return 0;
}

int fl_view_run_console(fl_store *st, fl_pool *p, int64_t id, const char **console, size_t *len,
			const char **console_path)
{
	fl_stmt *s;
	int r;

	if (fl_store_prepare(st, &s, "SELECT console, console_path FROM runs WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(s, 1, id);
	if ((r = fl_store_row(st, s, "run console")) <= 0)
		return fl_error_wrap(r ? r : fl_error_set(FL_ENOTFOUND, "no such run"), "run %lld",
				     (long long)id);
	*console = col_text(s, p, 0);
	*len = *console ? fl_stmt_column_bytes(s, 0) : 0;
	*console_path = col_text(s, p, 1);
	fl_stmt_finalize(s);
	return 0;
}

int fl_view_run_evidence(fl_store *st, fl_pool *p, int64_t id, size_t top,
			 struct fl_evidence_row **out, size_t *n)
{
	struct fl_evidence_row *pts;
	size_t npts;
	int r;

	*out = NULL;
	*n = 0;
	if ((r = fl_store_evidence_get(st, id, &pts, &npts)))
		return r;
	*out = fl_pool_alloc(p, (npts + 1) * sizeof(**out));
	for (size_t i = 0; i < npts; i++) {
		struct fl_evidence_row *d = &(*out)[i], *e = &pts[i];

		*d = *e;
		d->test = fl_pool_strdup(p, e->test);
		d->mode = fl_pool_strdup(p, e->mode);
		d->cgroup = fl_pool_strdup(p, e->cgroup);
		d->profile = fl_pool_strdup(p, e->profile);
		d->vm = fl_pool_alloc(p, (e->nvm + 1) * sizeof(*d->vm));
		for (size_t k = 0; k < e->nvm; k++)
			d->vm[k] = (struct fl_vmstat_row){fl_pool_strdup(p, e->vm[k].name),
							  e->vm[k].delta, e->vm[k].per_sec};
		d->locks = e->locks ? fl_pool_strdup(p, e->locks) : NULL;
		d->vmstat_missing = e->vmstat_missing ? fl_pool_strdup(p, e->vmstat_missing) : NULL;
		d->lk = fl_pool_alloc(p, (e->nlk + 1) * sizeof(*d->lk));
		for (size_t k = 0; k < e->nlk; k++)
			d->lk[k] = (struct fl_lock_row){fl_pool_strdup(p, e->lk[k].lock),
							fl_pool_strdup(p, e->lk[k].named_by),
							e->lk[k].contentions,
							e->lk[k].waits,
							e->lk[k].wait_ns,
							e->lk[k].max_wait_ns,
							fl_pool_strdup(p, e->lk[k].chains)};
		d->nfn = e->nfn < top ? e->nfn : top;
		d->fn = fl_pool_alloc(p, (d->nfn + 1) * sizeof(*d->fn));
		for (size_t k = 0; k < d->nfn; k++)
			d->fn[k] = (struct fl_profile_row){fl_pool_strdup(p, e->fn[k].name),
							   e->fn[k].samples, e->fn[k].share};
	}
	*n = npts;
	fl_store_evidence_free(pts, npts);
	return 0;
}

static void read_sample(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_sample *x = row;

	x->metric = col_text(s, p, 0);
	x->mode = col_text(s, p, 1);
	x->tasks = (unsigned)fl_stmt_column_int64(s, 2);
	x->seq = (unsigned)fl_stmt_column_int64(s, 3);
	x->value = fl_stmt_column_double(s, 4);
	x->cgroup = col_text(s, p, 5);
}

int fl_view_run_samples(fl_store *st, fl_pool *p, int64_t id, unsigned page, unsigned per_page,
			struct fl_view_sample **out, size_t *n, int *more)
{
	fl_stmt *s;

	if (fl_store_prepare(
		st, &s,
		"SELECT metric, mode, tasks, seq, value, cgroup FROM samples WHERE run_id = ?1 "
		"ORDER BY metric, mode, tasks, cgroup, seq LIMIT ?2 OFFSET ?3"))
		return FL_ESTORE;
	fl_stmt_bind_int64(s, 1, id);
	if (per_page) {
		bind_page(s, 2, page, per_page);
	} else {
		/* all of them: SQLite's -1 (no bound) is an error on PostgreSQL */
		fl_stmt_bind_int64(s, 2, INT64_MAX);
		fl_stmt_bind_int64(s, 3, 0);
	}
	return collect(st, p, s, sizeof(**out), read_sample, (void **)out, n, per_page, more,
		       "samples");
}

/* ---- regressions and reports ---- */

#define REGRESSION_SELECT                                                                          \
	"SELECT g.id, t.name, " COMMIT_COLS("gc", "t") ", " COMMIT_COLS(                           \
	    "bc", "t") ", g.benchmark, m.name, g.metric, g.mode, g.tasks, g.change, g.p_value, "   \
		       "g.state, g.created, coalesce(g.job_id, 0), w.tag, w.baseline, "            \
		       "coalesce(xb.id, 0), coalesce(cc.id, 0), ct.name, xb.culprit, cc.subject, " \
		       "cc.author, coalesce(cc.time, 0) "                                          \
		       "FROM regressions g JOIN trees t ON t.id = g.tree_id JOIN commits gc ON "   \
		       "gc.id = g.good_commit JOIN commits bc ON bc.id = g.bad_commit JOIN "       \
		       "machines m ON m.id = g.machine_id LEFT JOIN bisections xb ON "             \
		       "xb.regression_id = g.id LEFT JOIN commits cc ON cc.id = (SELECT id FROM "  \
		       "commits WHERE sha = xb.culprit ORDER BY id LIMIT 1) "                      \
		       "LEFT JOIN trees ct ON ct.id = cc.tree_id LEFT JOIN jobs j ON j.id = "      \
		       "g.job_id" FL_JOB_TAG("j", "w")

static void read_regression(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_regression *g = row;
	int c = 2 + 2 * NCOMMIT_COLS;

	g->id = fl_stmt_column_int64(s, 0);
	g->tree = col_text(s, p, 1);
	read_commit(s, p, 2, &g->good);
	read_commit(s, p, 2 + NCOMMIT_COLS, &g->bad);
	g->benchmark = col_text(s, p, c);
	g->machine = col_text(s, p, c + 1);
	g->metric = col_text(s, p, c + 2);
	g->mode = col_text(s, p, c + 3);
	g->tasks = (unsigned)fl_stmt_column_int64(s, c + 4);
	g->change = fl_stmt_column_double(s, c + 5);
	g->p_value = col_num(s, c + 6);
	g->state = col_text(s, p, c + 7);
	g->created = fl_stmt_column_int64(s, c + 8);
	g->job_id = fl_stmt_column_int64(s, c + 9);
	g->tag = col_text(s, p, c + 10);
	g->baseline = col_text(s, p, c + 11);
	g->bisection_id = fl_stmt_column_int64(s, c + 12);
	read_commit(s, p, c + 13, &g->culprit);
}

int fl_view_regressions(fl_store *st, fl_pool *p, const char *state, unsigned page,
			unsigned per_page, struct fl_view_regression **out, size_t *n, int *more)
{
	fl_stmt *s;

	if (fl_store_prepare(st, &s,
			     state ? REGRESSION_SELECT "WHERE g.state = ?1 ORDER BY g.id DESC "
						       "LIMIT ?2 OFFSET ?3"
				   : REGRESSION_SELECT "ORDER BY g.id DESC LIMIT ?2 OFFSET ?3"))
		return FL_ESTORE;
	fl_store_bind_opt(s, 1, state);
	bind_page(s, 2, page, per_page);
	return collect(st, p, s, sizeof(**out), read_regression, (void **)out, n, per_page, more,
		       "regressions");
}

int fl_view_regression_get(fl_store *st, fl_pool *p, int64_t id, struct fl_view_regression *out)
{
	return get_by_id(st, p, REGRESSION_SELECT "WHERE g.id = ?1", id, read_regression, out,
			 "regression");
}

#define REPORT_SELECT                                                                              \
	"SELECT id, coalesce(regression_id, 0), message_id, in_reply_to, subject, body, state, "   \
	"attempts, last_error, created, coalesce(sent, 0), next_attempt FROM reports "

static void read_report(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_report *r = row;

	r->id = fl_stmt_column_int64(s, 0);
	r->regression_id = fl_stmt_column_int64(s, 1);
	r->message_id = col_text(s, p, 2);
	r->in_reply_to = col_text(s, p, 3);
	r->subject = col_text(s, p, 4);
	r->body = col_text(s, p, 5);
	r->state = col_text(s, p, 6);
	r->attempts = fl_stmt_column_int(s, 7);
	r->last_error = col_text(s, p, 8);
	r->created = fl_stmt_column_int64(s, 9);
	r->sent = fl_stmt_column_int64(s, 10);
	r->next_attempt = fl_stmt_column_int64(s, 11);
}

int fl_view_report_get(fl_store *st, fl_pool *p, int64_t id, struct fl_view_report *out)
{
	return get_by_id(st, p, REPORT_SELECT "WHERE id = ?1", id, read_report, out, "report");
}

int fl_view_reports_of(fl_store *st, fl_pool *p, int64_t regression_id, struct fl_view_report **out,
		       size_t *n)
{
	fl_stmt *s;

	if (fl_store_prepare(st, &s, REPORT_SELECT "WHERE regression_id = ?1 ORDER BY id"))
		return FL_ESTORE;
	fl_stmt_bind_int64(s, 1, regression_id);
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
	    "c", "t") ", coalesce(ls.remaining, 0), ls.best, ls.phase, ls.confidence, b.summary "  \
		      "FROM bisections b" COMMIT_BY_SHA("b.culprit") LATEST_STEP("b.id")

/* The newest step past confirming the ends (it has a verdict and a confidence), as ls. */
#define LATEST_STEP(bisection)                                                                     \
	" LEFT JOIN bisect_steps ls ON ls.id = (SELECT id FROM bisect_steps WHERE bisection_id "   \
	"= " bisection " AND verdict != '' ORDER BY seq DESC LIMIT 1) "

static void read_bisection(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_bisection *b = row;

	b->id = fl_stmt_column_int64(s, 0);
	b->regression_id = fl_stmt_column_int64(s, 1);
	b->good = col_text(s, p, 2);
	b->bad = col_text(s, p, 3);
	b->state = col_text(s, p, 4);
	b->result = col_text(s, p, 5);
	b->confidence = col_num(s, 6);
	b->created = fl_stmt_column_int64(s, 7);
	b->finished = fl_stmt_column_int64(s, 8);
	b->nsteps = (size_t)fl_stmt_column_int64(s, 9);
	read_commit(s, p, 11, &b->culprit);
	b->culprit.sha = col_text(s, p, 10); /* the sha even when the commit is not stored */
	b->remaining = (size_t)fl_stmt_column_int64(s, 11 + NCOMMIT_COLS);
	b->best = col_text(s, p, 12 + NCOMMIT_COLS);
	b->phase = col_text(s, p, 13 + NCOMMIT_COLS);
	b->last_confidence = col_num(s, 14 + NCOMMIT_COLS);
	b->summary = col_text(s, p, 15 + NCOMMIT_COLS);
}

int fl_view_bisections(fl_store *st, fl_pool *p, const struct fl_view_bisect_filter *f,
		       unsigned page, unsigned per_page, struct fl_view_bisection **out, size_t *n,
		       int *more)
{
	fl_buf sql = FL_BUF_INIT;
	fl_stmt *s;
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
	fl_store_bind_opt(s, 1, f->state);
	fl_stmt_bind_int64(s, 2, f->regression_id);
	bind_page(s, 3, page, per_page);
	return collect(st, p, s, sizeof(**out), read_bisection, (void **)out, n, per_page, more,
		       "bisections");
}

int fl_view_bisection_get(fl_store *st, fl_pool *p, int64_t id, struct fl_view_bisection *out)
{
	return get_by_id(st, p, BISECTION_SELECT "WHERE b.id = ?1", id, read_bisection, out,
			 "bisection");
}

/* The run job j of step s: the one its bisection b's job (of kind ?2) made for it. */
#define STEP_RUN_JOB                                                                               \
	"LEFT JOIN jobs bj ON bj.regression_id = b.regression_id AND bj.kind = ?2 LEFT JOIN "      \
	"jobs j ON j.parent_id = bj.id AND j.seq = s.seq AND j.rev = s.commit_sha "
/* Step columns, then its run job and one of the job's runs (a row per run). */
#define STEP_SELECT                                                                                \
	"SELECT s.seq, s.commit_sha, s.status, s.samples, coalesce(s.verdict, ''), "               \
	"coalesce(s.confidence, 0), s.created, coalesce(s.remaining, 0), s.best, s.phase, "        \
	"coalesce(j.id, 0), j.state, j.result, j.error, coalesce(j.attempts, 0), "                 \
	"coalesce(r.id, 0), r.status, r.detail, rb.status, " COMMIT_COLS(                          \
	    "c", "t") " FROM bisect_steps s JOIN bisections b ON b.id = "                          \
		      "s.bisection_id" COMMIT_BY_SHA("s.commit_sha") STEP_RUN_JOB                  \
	    "LEFT JOIN runs r ON r.job_id = j.id LEFT JOIN builds rb ON rb.id = r.build_id "

static void read_step(fl_stmt *s, fl_pool *p, struct fl_view_step *x)
{
	double *v, *copy;

	x->seq = (size_t)fl_stmt_column_int64(s, 0);
	x->status = col_text(s, p, 2);
	x->n = fl_store_parse_numbers(fl_stmt_column_text(s, 3), &v);
	copy = fl_pool_alloc(p, (x->n ? x->n : 1) * sizeof(*v));
	memcpy(copy, v, x->n * sizeof(*v));
	free(v);
	x->v = copy;
	x->verdict = col_text(s, p, 4);
	x->confidence = fl_stmt_column_double(s, 5);
	x->created = fl_stmt_column_int64(s, 6);
	x->remaining = (size_t)fl_stmt_column_int64(s, 7);
	x->best = col_text(s, p, 8);
	x->phase = col_text(s, p, 9);
	x->job_id = fl_stmt_column_int64(s, 10);
	x->job_state = col_text(s, p, 11);
	x->job_result = col_text(s, p, 12);
	x->job_error = col_text(s, p, 13);
	x->job_attempts = fl_stmt_column_int(s, 14);
	read_commit(s, p, 19, &x->commit);
	x->commit.sha = col_text(s, p, 1);
}

static void add_step_run(fl_stmt *s, fl_pool *p, struct fl_view_step *x, size_t *alloc)
{
	struct fl_view_step_run *r;

	x->runs = fl_pool_grow(p, x->runs, sizeof(*x->runs), x->nruns, alloc);
	r = &x->runs[x->nruns++];
	r->id = fl_stmt_column_int64(s, 15);
	r->status = col_text(s, p, 16);
	r->detail = col_text(s, p, 17);
	r->build_status = col_text(s, p, 18);
}

int fl_view_bisect_steps(fl_store *st, fl_pool *p, int64_t id, const char *bisect_kind,
			 struct fl_view_step **out, size_t *n)
{
	size_t alloc = 0, runs_alloc = 0;
	fl_stmt *s;
	int rc;

	if (fl_store_prepare(st, &s, STEP_SELECT "WHERE s.bisection_id = ?1 ORDER BY s.seq, r.id"))
		return FL_ESTORE;
	fl_stmt_bind_int64(s, 1, id);
	fl_stmt_bind_text(s, 2, bisect_kind);
	*out = NULL;
	*n = 0;
	while ((rc = fl_stmt_step(s)) == FL_SQL_ROW) {
		size_t seq = (size_t)fl_stmt_column_int64(s, 0);

		if (!*n || (*out)[*n - 1].seq != seq) {
			*out = fl_pool_grow(p, *out, sizeof(**out), *n, &alloc);
			read_step(s, p, &(*out)[(*n)++]);
			runs_alloc = 0;
		}
		if (fl_stmt_column_int64(s, 15))
			add_step_run(s, p, &(*out)[*n - 1], &runs_alloc);
	}
	fl_stmt_finalize(s);
	return rc == FL_SQL_DONE ? 0 : fl_store_sqlerr(st, "bisect steps");
}

/* ---- the watch service: comparisons, revert checks, jobs, machines ---- */

static void read_comparison(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_comparison *x = row;

	x->what = col_text(s, p, 0);
	x->base_sha = col_text(s, p, 1);
	x->new_sha = col_text(s, p, 2);
	x->metric = col_text(s, p, 3);
	x->mode = col_text(s, p, 4);
	x->tasks = (unsigned)fl_stmt_column_int64(s, 5);
	x->is_primary = fl_stmt_column_int(s, 6);
	x->base_runs = (size_t)fl_stmt_column_int64(s, 7);
	x->new_runs = (size_t)fl_stmt_column_int64(s, 8);
	x->base_mean = col_num(s, 9);
	x->base_sd = col_num(s, 10);
	x->new_mean = col_num(s, 11);
	x->new_sd = col_num(s, 12);
	x->change = col_num(s, 13);
	x->p = col_num(s, 14);
	x->verdict = col_text(s, p, 15);
	x->class = col_text(s, p, 16);
}

int fl_view_comparisons(fl_store *st, fl_pool *p, int64_t job_id, struct fl_view_comparison **out,
			size_t *n)
{
	fl_stmt *s;

	if (fl_store_prepare(
		st, &s,
		"SELECT x.what, bc.sha, nc.sha, x.metric, x.mode, x.tasks, x.is_primary, "
		"x.base_runs, x.new_runs, x.base_mean, x.base_stddev, x.new_mean, x.new_stddev, "
		"x.change, x.p_value, x.verdict, x.class FROM comparisons x LEFT JOIN commits bc "
		"ON bc.id = x.base_commit LEFT JOIN commits nc ON nc.id = x.new_commit WHERE "
		"x.job_id = ?1 ORDER BY x.what, x.is_primary DESC, x.metric, x.mode, x.tasks"))
		return FL_ESTORE;
	fl_stmt_bind_int64(s, 1, job_id);
	return collect(st, p, s, sizeof(**out), read_comparison, (void **)out, n, 0, NULL,
		       "comparisons");
}

/* "a\nb\n" -> {"a", "b"}: the conflicting files, one per line. */
static void split_lines(fl_pool *p, const char *text, const char ***out, size_t *n)
{
	size_t alloc = 0;

	*out = NULL;
	*n = 0;
	for (const char *l = text; l && *l;) {
		size_t len = strcspn(l, "\n");
		char *line;

		if (len) {
			line = fl_pool_alloc(p, len + 1);
			memcpy(line, l, len);
			*out = fl_pool_grow(p, *out, sizeof(char *), *n, &alloc);
			(*out)[(*n)++] = line;
		}
		l += len + (l[len] == '\n');
	}
}

static void read_revert(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_revert *v = row;

	v->id = fl_stmt_column_int64(s, 0);
	v->regression_id = fl_stmt_column_int64(s, 1);
	v->culprit = col_text(s, p, 2);
	v->onto = col_text(s, p, 3);
	v->state = col_text(s, p, 4);
	v->commit_sha = col_text(s, p, 5);
	v->ref = col_text(s, p, 6);
	split_lines(p, fl_stmt_column_text(s, 7), &v->conflicts, &v->nconflicts);
	v->error = col_text(s, p, 8);
	v->verdict = col_text(s, p, 9);
	v->created = fl_stmt_column_int64(s, 10);
	v->job_id = fl_stmt_column_int64(s, 11);
	v->job_state = col_text(s, p, 12);
}

int fl_view_revert_get(fl_store *st, fl_pool *p, int64_t regression_id, const char *revert_kind,
		       struct fl_view_revert *out)
{
	fl_stmt *s;
	int r;

	memset(out, 0, sizeof(*out));
	if (fl_store_prepare(st, &s,
			     "SELECT v.id, v.regression_id, v.culprit, v.onto, v.state, "
			     "v.commit_sha, v.ref, v.conflicts, v.error, v.verdict, v.created, "
			     "coalesce(j.id, 0), j.state FROM reverts v LEFT JOIN jobs j ON "
			     "j.regression_id = v.regression_id AND j.kind = ?2 WHERE "
			     "v.regression_id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(s, 1, regression_id);
	fl_stmt_bind_text(s, 2, revert_kind);
	if ((r = fl_store_row(st, s, "revert check of regression")) <= 0)
		return fl_error_wrap(
		    r ? r : fl_error_set(FL_ENOTFOUND, "no such revert check of regression"),
		    "revert check of regression %lld", (long long)regression_id);
	read_revert(s, p, out);
	fl_stmt_finalize(s);
	return out->job_id ? fl_view_comparisons(st, p, out->job_id, &out->rows, &out->nrows) : 0;
}

static void read_job(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_job *j = row;

	j->id = fl_stmt_column_int64(s, 0);
	j->parent_id = fl_stmt_column_int64(s, 1);
	j->regression_id = fl_stmt_column_int64(s, 2);
	j->kind = col_text(s, p, 3);
	j->state = col_text(s, p, 4);
	j->tree = col_text(s, p, 5);
	j->machine = col_text(s, p, 6);
	j->benchmark = col_text(s, p, 7);
	j->role = col_text(s, p, 8);
	j->seq = fl_stmt_column_int(s, 9);
	j->attempts = fl_stmt_column_int(s, 10);
	j->result = col_text(s, p, 11);
	j->error = col_text(s, p, 12);
	j->created = fl_stmt_column_int64(s, 13);
	j->started = fl_stmt_column_int64(s, 14);
	j->finished = fl_stmt_column_int64(s, 15);
	j->run_id = fl_stmt_column_int64(s, 16);
	j->children = (size_t)fl_stmt_column_int64(s, 17);
	j->children_done = (size_t)fl_stmt_column_int64(s, 18);
	j->tag = col_text(s, p, 19);
	j->baseline = col_text(s, p, 20);
	read_commit(s, p, 22, &j->commit);
	if (fl_stmt_column_bytes(s, 21)) /* the sha even when the commit is not stored */
		j->commit.sha = col_text(s, p, 21);
}

/* A job, its tags when it is a compare job, the commit it measures when it is a run job. */
#define JOB_SELECT                                                                                 \
	"SELECT j.id, coalesce(j.parent_id, 0), coalesce(j.regression_id, 0), j.kind, j.state, "   \
	"j.tree, j.machine, j.benchmark, j.role, j.seq, j.attempts, j.result, j.error, "           \
	"j.created, "                                                                              \
	"coalesce(j.started, 0), coalesce(j.finished, 0), CASE WHEN j.parent_id IS NOT NULL THEN " \
	"coalesce(j.run_id, (SELECT max(id) FROM runs WHERE job_id = j.id), 0) ELSE 0 "            \
	"END, " FL_JOB_RUNS("j") ", " FL_JOB_RUNS_ENDED(                                           \
	    "j") ", w.tag, w.baseline, j.rev, " COMMIT_COLS("c",                                   \
							    "t") " FROM jobs j" FL_JOB_TAG("j",    \
											   "w")    \
	    COMMIT_BY_SHA("nullif(j.rev, '')")

int fl_view_jobs(fl_store *st, fl_pool *p, const struct fl_view_job_filter *f, unsigned page,
		 unsigned per_page, struct fl_view_job **out, size_t *n, int *more)
{
	const struct cond c[] = {
	    {"kind = ?1", f->kind, 0},
	    {"state = ?2", f->state, 0},
	    {FL_JOB_LIVE, NULL, f->live},
	};

	return list_page(st, p, JOB_SELECT "WHERE j.id IN (SELECT id FROM jobs WHERE 1", "j", c, 3,
			 page, per_page, sizeof(**out), read_job, (void **)out, n, more, "jobs");
}

static void read_machine(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_machine *m = row;

	m->id = fl_stmt_column_int64(s, 0);
	m->name = col_text(s, p, 1);
	m->backend = col_text(s, p, 2);
	m->state = col_text(s, p, 3);
	m->reason = col_text(s, p, 4);
	m->infra_errors = fl_stmt_column_int(s, 5);
	m->facts = col_text(s, p, 6);
}

int fl_view_machines(fl_store *st, fl_pool *p, const char *state, struct fl_view_machine **out,
		     size_t *n)
{
	fl_stmt *s;

	if (fl_store_prepare(st, &s,
			     "SELECT id, name, backend, state, state_reason, infra_errors, facts "
			     "FROM machines WHERE ?1 IS NULL OR state = ?1 ORDER BY name"))
		return FL_ESTORE;
	fl_store_bind_opt(s, 1, state);
	return collect(st, p, s, sizeof(**out), read_machine, (void **)out, n, 0, NULL, "machines");
}

/* ---- what the model compares and plots ---- */

int fl_view_machine_id(fl_store *st, const char *name, int64_t *id)
{
	fl_stmt *s;
	int r;

	if (fl_store_prepare(st, &s, "SELECT id FROM machines WHERE name = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_text(s, 1, name);
	if ((r = fl_store_row(st, s, "machine")) <= 0)
		return fl_error_wrap(r ? r
				       : fl_error_set(FL_ENOTFOUND, "no machine with this name"),
				     "machine '%s'", name);
	*id = fl_stmt_column_int64(s, 0);
	fl_stmt_finalize(s);
	return 0;
}

int fl_view_compare_runs(fl_store *st, fl_pool *p, int64_t commit_id, const char *benchmark,
			 int64_t machine_id, unsigned page, unsigned per_page,
			 struct fl_view_run **out, size_t *n, int *more)
{
	fl_stmt *s;

	if (fl_store_prepare(
		st, &s,
		"SELECT " RUN_COLS RUN_FROM "WHERE r.id IN (" FL_RUNS_OF_COMMIT(
		    "?1", "x.benchmark = ?2 AND x.machine_id = ?3") ") "
								    "ORDER BY r.id DESC "
								    "LIMIT ?4 OFFSET ?5"))
		return FL_ESTORE;
	fl_stmt_bind_int64(s, 1, commit_id);
	fl_stmt_bind_text(s, 2, benchmark);
	fl_stmt_bind_int64(s, 3, machine_id);
	bind_page(s, 4, page, per_page);
	return collect(st, p, s, sizeof(**out), read_run, (void **)out, n, per_page, more,
		       "runs of a kernel");
}

/* Run x is ok and of the benchmark ?2 and machine ?3 (NULL: any). */
#define NEWEST_RUN_OK                                                                              \
	"+x.status = 'ok' AND (?2 IS NULL OR x.benchmark = ?2) AND (?3 IS NULL OR x.machine_id = " \
	"(SELECT id FROM machines WHERE name = ?3))"

int fl_view_newest_run(fl_store *st, fl_pool *p, int64_t tree_id, const char *benchmark,
		       const char *machine, int64_t *run, const char **benchmark_out,
		       const char **machine_out)
{
	fl_stmt *s;
	int rc;

	if (fl_store_prepare(
		st, &s,
		"WITH newest(id) AS (SELECT c.id FROM commits c WHERE c.tree_id = ?1 AND EXISTS "
		"(" FL_RUNS_OF_COMMIT("c.id", NEWEST_RUN_OK) ") AND " IN_HISTORY("c")
		    HISTORY_DESC("c") " LIMIT 1) SELECT r.id, r.benchmark, "
				      "m.name FROM runs r JOIN machines m "
				      "ON m.id = r.machine_id WHERE r.id "
				      "IN (" FL_RUNS_OF_COMMIT("SELECT id FROM newest",
							       NEWEST_RUN_OK) ") ORDER BY "
									      "r.id DESC "
									      "LIMIT 1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(s, 1, tree_id);
	fl_store_bind_opt(s, 2, benchmark);
	fl_store_bind_opt(s, 3, machine);
	*run = 0;
	if ((rc = fl_store_row(st, s, "newest run")) <= 0)
		return rc;
	*run = fl_stmt_column_int64(s, 0);
	*benchmark_out = col_text(s, p, 1);
	*machine_out = col_text(s, p, 2);
	fl_stmt_finalize(s);
	return 0;
}

/* Commit c (SQL) has ok runs of ?2 on machine ?3. */
#define HAS_RUNS(c)                                                                                \
	"EXISTS (" FL_RUNS_OF_COMMIT(c, "x.benchmark = ?2 AND x.machine_id = ?3 AND +x.status = "  \
					"'ok'") ")"

static void read_position(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_position *pt = row;

	read_commit(s, p, 0, &pt->commit);
}

int fl_view_commit_positions(fl_store *st, fl_pool *p, int64_t tree_id, int64_t machine_id,
			     const char *benchmark, unsigned page, unsigned per_page,
			     struct fl_view_position **out, size_t *n, int *more)
{
	fl_stmt *s;

	if (fl_store_prepare(
		st, &s,
		"SELECT " COMMIT_COLS("c", "t") " FROM commits c JOIN trees t ON t.id = "
						"c.tree_id WHERE c.tree_id = ?1 AND " HAS_RUNS(
						    "c.id") " AND " IN_HISTORY("c")
						    HISTORY_DESC("c") " LIMIT ?4 OFFSET ?5"))
		return FL_ESTORE;
	fl_stmt_bind_int64(s, 1, tree_id);
	fl_stmt_bind_text(s, 2, benchmark);
	fl_stmt_bind_int64(s, 3, machine_id);
	bind_page(s, 4, page, per_page);
	return collect(st, p, s, sizeof(**out), read_position, (void **)out, n, per_page, more,
		       "series commits");
}

static void read_tag_position(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_position *pt = row;

	pt->tag = col_text(s, p, 0);
	read_commit(s, p, 1, &pt->commit);
}

int fl_view_tag_positions(fl_store *st, fl_pool *p, int64_t tree_id, int64_t machine_id,
			  const char *benchmark, struct fl_view_position **out, size_t *n)
{
	fl_stmt *s;

	if (fl_store_prepare(
		st, &s,
		"SELECT w.tag, " COMMIT_COLS(
		    "c",
		    "t") " FROM watch_tags w JOIN commits c ON c.id = "
			 "w.commit_id JOIN trees t ON t.id = "
			 "c.tree_id WHERE w.tree_id = ?1 AND " HAS_RUNS(
			     "c.id") " UNION SELECT w.baseline, " COMMIT_COLS("c",
									      "t") " FROM "
										   "watch_tags w "
										   "JOIN commits c "
										   "ON c.id = "
										   "w.baseline_"
										   "commit JOIN "
										   "trees t ON "
										   "t.id = "
										   "c.tree_id "
										   "WHERE "
										   "w.tree_id = ?1 "
										   "AND " HAS_RUNS(
										       "c.id")))
		return FL_ESTORE;
	fl_stmt_bind_int64(s, 1, tree_id);
	fl_stmt_bind_text(s, 2, benchmark);
	fl_stmt_bind_int64(s, 3, machine_id);
	return collect(st, p, s, sizeof(**out), read_tag_position, (void **)out, n, 0, NULL,
		       "series tags");
}

int fl_view_position_samples(fl_store *st, fl_pool *p, int64_t machine_id, const char *benchmark,
			     const char *metric, const char *mode, unsigned tasks,
			     const struct fl_view_position *pts, size_t n,
			     struct fl_view_position_sample **out, size_t *nout)
{
	size_t alloc = 0;
	fl_stmt *s;

	*out = NULL;
	*nout = 0;
	if (fl_store_prepare(
		st, &s,
		"SELECT r.id, s.value FROM runs r JOIN samples s ON s.run_id = r.id WHERE r.id IN "
		"(" FL_RUNS_OF_COMMIT(
		    "?1", "x.benchmark = ?2 AND x.machine_id = ?3 AND +x.status = "
			  "'ok'") ") AND s.metric = ?4 AND s.mode = ?5 AND "
				  "s.tasks = ?6 AND s.cgroup = '' ORDER BY r.id, s.seq"))
		return FL_ESTORE;
	for (size_t i = 0; i < n; i++) {
		int rc;

		fl_stmt_bind_int64(s, 1, pts[i].commit.id);
		fl_stmt_bind_text(s, 2, benchmark);
		fl_stmt_bind_int64(s, 3, machine_id);
		fl_stmt_bind_text(s, 4, metric);
		fl_stmt_bind_text(s, 5, mode);
		fl_stmt_bind_int64(s, 6, tasks);
		while ((rc = fl_stmt_step(s)) == FL_SQL_ROW) {
			*out = fl_pool_grow(p, *out, sizeof(**out), *nout, &alloc);
			(*out)[(*nout)++] = (struct fl_view_position_sample){
			    i, fl_stmt_column_int64(s, 0), fl_stmt_column_double(s, 1)};
		}
		fl_stmt_reset(s);
		if (rc != FL_SQL_DONE) {
			fl_stmt_finalize(s);
			return fl_store_sqlerr(st, "series samples");
		}
	}
	fl_stmt_finalize(s);
	return 0;
}

/* ---- a commit, and finding one ---- */

int fl_view_commit_rows(fl_store *st, fl_pool *p, const char *sha, const char *tree,
			struct fl_view_commit **out, size_t *n)
{
	fl_stmt *s;

	if (fl_store_prepare(
		st, &s,
		"SELECT " COMMIT_COLS("c", "t") " FROM commits c JOIN trees t ON t.id = "
						"c.tree_id WHERE c.sha = ?1 AND (?2 IS "
						"NULL OR t.name = ?2) ORDER BY t.name"))
		return FL_ESTORE;
	fl_stmt_bind_text(s, 1, sha);
	fl_store_bind_opt(s, 2, tree);
	return collect(st, p, s, sizeof(**out), read_commit_row, (void **)out, n, 0, NULL,
		       "commit");
}

int fl_view_commit_run_list(fl_store *st, fl_pool *p, const char *sha, unsigned page,
			    unsigned per_page, struct fl_view_run **out, size_t *n, int *more)
{
	fl_stmt *s;

	if (fl_store_prepare(
		st, &s,
		"SELECT " RUN_COLS RUN_FROM "WHERE r.id IN (SELECT id FROM (" FL_RUNS_OF_COMMIT(
		    "SELECT id FROM commits WHERE sha = ?1",
		    "1") ") AS o ORDER BY id DESC LIMIT ?2 OFFSET ?3) ORDER BY r.id DESC"))
		return FL_ESTORE;
	fl_stmt_bind_text(s, 1, sha);
	bind_page(s, 2, page, per_page);
	return collect(st, p, s, sizeof(**out), read_run, (void **)out, n, per_page, more,
		       "runs of a commit");
}

int fl_view_commit_regressions(fl_store *st, fl_pool *p, const char *sha,
			       struct fl_view_regression **out, size_t *n)
{
	fl_stmt *s;

	if (fl_store_prepare(st, &s,
			     REGRESSION_SELECT
			     " WHERE gc.sha = ?1 OR bc.sha = ?1 OR xb.culprit = ?1 "
			     "ORDER BY g.id DESC LIMIT 100"))
		return FL_ESTORE;
	fl_stmt_bind_text(s, 1, sha);
	return collect(st, p, s, sizeof(**out), read_regression, (void **)out, n, 0, NULL,
		       "regressions of a commit");
}

int fl_view_commit_bisections(fl_store *st, fl_pool *p, const char *sha,
			      struct fl_view_bisection **out, size_t *n)
{
	fl_stmt *s;

	if (fl_store_prepare(st, &s,
			     BISECTION_SELECT
			     "WHERE b.good = ?1 OR b.bad = ?1 OR b.culprit = ?1 OR "
			     "b.id IN (SELECT bisection_id FROM bisect_steps WHERE "
			     "commit_sha = ?1) ORDER BY b.id DESC LIMIT 100"))
		return FL_ESTORE;
	fl_stmt_bind_text(s, 1, sha);
	return collect(st, p, s, sizeof(**out), read_bisection, (void **)out, n, 0, NULL,
		       "bisections of a commit");
}

static void read_found_tag(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_found_tag *t = row;

	t->name = col_text(s, p, 0);
	read_commit(s, p, 1, &t->commit);
	t->tree = t->commit.tree;
}

/* q with LIKE's wildcards and the escape character escaped (ESCAPE '\\'). */
static void like_escaped(fl_buf *out, const char *q, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (q[i] == '%' || q[i] == '_' || q[i] == '\\')
			fl_buf_addch(out, '\\');
		fl_buf_addch(out, q[i]);
	}
}

static int search_subject(fl_store *st, fl_pool *p, const char *q, unsigned limit,
			  struct fl_view_search *out)
{
	fl_buf sql = FL_BUF_INIT, words[8];
	fl_stmt *s;
	size_t nw = 0;
	int r;

	fl_buf_adds(&sql, "SELECT " COMMIT_COLS("c", "t") " FROM commits c JOIN trees t ON t.id = "
							  "c.tree_id WHERE 1");
	for (const char *w = q; *w && nw < 8;) {
		size_t len;

		w += strspn(w, " \t");
		len = strcspn(w, " \t");
		if (!len)
			break;
		words[nw] = (fl_buf)FL_BUF_INIT;
		fl_buf_addch(&words[nw], '%');
		like_escaped(&words[nw], w, len);
		fl_buf_addch(&words[nw], '%');
		fl_buf_addf(&sql, " AND c.subject LIKE ?%zu ESCAPE '\\'", nw + 1);
		nw++;
		w += len;
	}
	fl_buf_addf(&sql, " ORDER BY c.time DESC, c.id DESC LIMIT %u", limit);
	r = nw ? fl_store_prepare(st, &s, sql.ptr) : 0;
	fl_buf_free(&sql);
	if (r || !nw) {
		for (size_t i = 0; i < nw; i++)
			fl_buf_free(&words[i]);
		return r ? FL_ESTORE : 0;
	}
	for (size_t i = 0; i < nw; i++)
		fl_stmt_bind_text(s, (int)i + 1, words[i].ptr);
	for (size_t i = 0; i < nw; i++)
		fl_buf_free(&words[i]);
	return collect(st, p, s, sizeof(*out->by_subject), read_commit_row,
		       (void **)&out->by_subject, &out->nsubject, 0, NULL, "search subjects");
}

int fl_view_search(fl_store *st, fl_pool *p, const char *q, unsigned limit,
		   struct fl_view_search *out)
{
	size_t len = strlen(q);
	fl_stmt *s;
	char hex[65];
	fl_buf like = FL_BUF_INIT;
	int r;

	memset(out, 0, sizeof(*out));
	if (!len || len > 200)
		return fl_error_set(FL_EINVAL, "bad search: %s", len ? "over 200 bytes" : "empty");
	if (len >= 4 && len <= 40 && is_hex(q, len) && rev_hex(q, hex)) {
		if (fl_store_prepare(
			st, &s,
			"SELECT " COMMIT_COLS("c", "t") " FROM commits c JOIN trees t ON "
							"t.id = c.tree_id WHERE c.sha >= ?1 "
							"AND c.sha < ?1 || 'g' ORDER BY "
							"c.time DESC, c.id DESC LIMIT ?2"))
			return FL_ESTORE;
		fl_stmt_bind_text(s, 1, hex);
		fl_stmt_bind_int64(s, 2, limit);
		if ((r = collect(st, p, s, sizeof(*out->by_sha), read_commit_row,
				 (void **)&out->by_sha, &out->nsha, 0, NULL, "search shas")))
			return r;
	}
	like_escaped(&like, q, len);
	fl_buf_addch(&like, '%');
	if (fl_store_prepare(
		st, &s,
		"SELECT x.name, " COMMIT_COLS("c", "t") " FROM (SELECT w.tag AS name, "
							"w.commit_id AS cid FROM watch_tags "
							"w UNION SELECT w.baseline, "
							"w.baseline_commit FROM watch_tags w "
							"WHERE w.baseline IS NOT NULL) x "
							"JOIN commits c ON c.id = x.cid JOIN "
							"trees t ON t.id = c.tree_id WHERE "
							"x.name LIKE ?1 ESCAPE '\\' ORDER BY "
							"x.name = ?2 DESC, c.time DESC LIMIT "
							"?3")) {
		fl_buf_free(&like);
		return FL_ESTORE;
	}
	fl_stmt_bind_text(s, 1, like.ptr);
	fl_stmt_bind_text(s, 2, q);
	fl_stmt_bind_int64(s, 3, limit);
	fl_buf_free(&like);
	if ((r = collect(st, p, s, sizeof(*out->tags), read_found_tag, (void **)&out->tags,
			 &out->ntags, 0, NULL, "search tags")))
		return r;
	return search_subject(st, p, q, limit, out);
}

/* ---- what /metrics reports ---- */

static void read_count(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_count *c = row;

	c->a = col_text(s, p, 0);
	c->b = col_text(s, p, 1);
	c->n = fl_stmt_column_int64(s, 2);
}

int fl_view_counts(fl_store *st, fl_pool *p, enum fl_view_count_of of, struct fl_view_count **out,
		   size_t *n)
{
	static const char *const sql[] = {
	    [FL_VIEW_COUNT_JOBS] = "SELECT kind, state, count(*) FROM jobs GROUP BY kind, state "
				   "ORDER BY kind, state",
	    [FL_VIEW_COUNT_RUNS] = "SELECT status, NULL, count(*) FROM runs GROUP BY status "
				   "ORDER BY status",
	    [FL_VIEW_COUNT_REPORTS] = "SELECT state, NULL, count(*) FROM reports GROUP BY state "
				      "ORDER BY state",
	    [FL_VIEW_COUNT_MACHINES] = "SELECT state, NULL, count(*) FROM machines GROUP BY state "
				       "ORDER BY state",
	};
	fl_stmt *s;

	if ((unsigned)of >= sizeof(sql) / sizeof(sql[0]))
		return fl_error_set(FL_EINVAL, "counts: no such list %d", (int)of);
	if (fl_store_prepare(st, &s, sql[of]))
		return FL_ESTORE;
	return collect(st, p, s, sizeof(**out), read_count, (void **)out, n, 0, NULL, "counts");
}

static void read_span(fl_stmt *s, fl_pool *p, void *row)
{
	struct fl_view_span *x = row;

	(void)p;
	x->from_ms = fl_stmt_column_int64(s, 0);
	x->to_ms = fl_stmt_column_int64(s, 1);
}

int fl_view_spans(fl_store *st, fl_pool *p, enum fl_view_span_of of, struct fl_view_span **out,
		  size_t *n)
{
	static const char *const sql[] = {
	    [FL_VIEW_SPAN_BUILD] = "SELECT 0, duration_ms FROM builds WHERE duration_ms IS NOT "
				   "NULL AND status IN ('ok', 'build-failed')",
	    [FL_VIEW_SPAN_BOOT] = "SELECT created_ms, agent_ms FROM runs WHERE created_ms > 0 AND "
				  "agent_ms > 0",
	    [FL_VIEW_SPAN_MEASURE] = "SELECT first_sample_ms, ended_ms FROM runs WHERE "
				     "first_sample_ms > 0 AND ended_ms > 0",
	};
	fl_stmt *s;

	if ((unsigned)of >= sizeof(sql) / sizeof(sql[0]))
		return fl_error_set(FL_EINVAL, "spans: no such list %d", (int)of);
	if (fl_store_prepare(st, &s, sql[of]))
		return FL_ESTORE;
	return collect(st, p, s, sizeof(**out), read_span, (void **)out, n, 0, NULL, "spans");
}
