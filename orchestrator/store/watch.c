/*
 * store/watch.c - the SQL of watch_tags, comparisons, regressions, their
 * bisection and revert checks (see store/watch.h).
 */
#include "store/watch.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "store/priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tags ----------------------------------------------------------- */

int fl_store_watch_tag_add(fl_store *st, const struct fl_watch_tag_new *t, int64_t *id)
{
	fl_stmt *stmt;
	int rc;

	/* a tag's row names neither kind nor ref (their defaults), as before migration 15 */
	if (fl_store_prepare(st, &stmt,
			     t->kind ? "INSERT INTO watch_tags(tree_id, tag, commit_id, baseline, "
				       "baseline_commit, state, note, kind, ref) VALUES (?1, ?2, ?3, "
				       "?4, ?5, ?6, ?7, ?8, ?9) RETURNING id"
				     : "INSERT INTO watch_tags(tree_id, tag, commit_id, baseline, "
				       "baseline_commit, state, note) VALUES (?1, ?2, ?3, ?4, ?5, "
				       "?6, ?7) RETURNING id"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, t->tree_id);
	fl_stmt_bind_text(stmt, 2, t->tag);
	fl_store_bind_id(stmt, 3, t->commit_id);
	fl_store_bind_opt(stmt, 4, t->baseline);
	fl_store_bind_id(stmt, 5, t->baseline_commit);
	fl_stmt_bind_text(stmt, 6, t->state);
	fl_store_bind_opt(stmt, 7, t->note);
	if (t->kind) {
		fl_store_bind_opt(stmt, 8, t->kind);
		fl_store_bind_opt(stmt, 9, t->ref);
	}
	rc = fl_stmt_step(stmt);
	if (rc == FL_SQL_ROW)
		*id = fl_stmt_column_int64(stmt, 0);
	fl_stmt_finalize(stmt);
	if (rc == FL_SQL_CONSTRAINT)
		return fl_error_set(FL_EEXISTS, "tag %s is already known", t->tag);
	if (rc != FL_SQL_ROW)
		return fl_store_sqlerr(st, "add watched tag");
	return 0;
}

int fl_store_watch_tag_seen(fl_store *st, int64_t tree_id, const char *tag, int *seen)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt, "SELECT 1 FROM watch_tags WHERE tree_id = ?1 AND tag = ?2"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, tree_id);
	fl_stmt_bind_text(stmt, 2, tag);
	if ((r = fl_store_row(st, stmt, "watched tag")) < 0)
		return r;
	if (r)
		fl_stmt_finalize(stmt);
	*seen = r;
	return 0;
}

int fl_store_watch_tags_count(fl_store *st, int64_t tree_id, size_t *count)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt, "SELECT count(*) FROM watch_tags WHERE tree_id = ?1 AND "
				 "kind = 'tag'"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, tree_id);
	if ((r = fl_store_row(st, stmt, "count watched tags")) <= 0)
		return r ? r : fl_store_sqlerr(st, "count watched tags");
	*count = (size_t)fl_stmt_column_int64(stmt, 0);
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_watch_head_last(fl_store *st, int64_t tree_id, const char *branch,
			     struct fl_watch_head *h, int *found, int64_t *tested)
{
	fl_stmt *stmt;
	int r;

	memset(h, 0, sizeof(*h));
	*found = 0;
	*tested = 0;
	if (fl_store_prepare(st, &stmt,
			     "SELECT w.tag, c.sha, w.state, w.commit_id FROM watch_tags w JOIN "
			     "commits c ON c.id = w.commit_id WHERE w.tree_id = ?1 AND w.kind = "
			     "'head' AND w.ref = ?2 AND w.state IN ('scheduled', 'skipped') "
			     "ORDER BY w.id DESC LIMIT 1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, tree_id);
	fl_stmt_bind_text(stmt, 2, branch);
	if ((r = fl_store_row(st, stmt, "last head")) < 0)
		return r;
	if (r) {
		*found = 1;
		h->name = fl_store_column_dup(stmt, 0);
		h->sha = fl_store_column_dup(stmt, 1);
		h->state = fl_store_column_dup(stmt, 2);
		h->commit_id = fl_stmt_column_int64(stmt, 3);
		fl_stmt_finalize(stmt);
	}
	if (fl_store_prepare(st, &stmt,
			     "SELECT coalesce(max(created), 0) FROM watch_tags WHERE tree_id = ?1 "
			     "AND kind = 'head' AND ref = ?2 AND state = 'scheduled'"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, tree_id);
	fl_stmt_bind_text(stmt, 2, branch);
	if ((r = fl_store_row(st, stmt, "last tested head")) <= 0)
		return r ? r : fl_store_sqlerr(st, "last tested head");
	*tested = fl_stmt_column_int64(stmt, 0);
	fl_stmt_finalize(stmt);
	return 0;
}

void fl_watch_head_release(struct fl_watch_head *h)
{
	free(h->name);
	free(h->sha);
	free(h->state);
	memset(h, 0, sizeof(*h));
}

int fl_store_watch_tag_get(fl_store *st, int64_t id, struct fl_watch_tag *t)
{
	fl_stmt *stmt;
	int r;

	memset(t, 0, sizeof(*t));
	if (fl_store_prepare(st, &stmt,
			     "SELECT w.id, w.tree_id, coalesce(w.commit_id, 0), "
			     "coalesce(w.baseline_commit, 0), t.name, w.tag, c.sha, w.baseline, "
			     "b.sha, w.state, w.kind, w.ref, w.note FROM watch_tags w JOIN trees t "
			     "ON t.id = w.tree_id "
			     "LEFT JOIN commits c ON c.id = w.commit_id LEFT JOIN commits b ON "
			     "b.id = w.baseline_commit WHERE w.id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	if ((r = fl_store_row(st, stmt, "watched tag")) <= 0)
		return r ? r : fl_error_set(FL_ENOTFOUND, "no watched tag %lld", (long long)id);
	t->id = fl_stmt_column_int64(stmt, 0);
	t->tree_id = fl_stmt_column_int64(stmt, 1);
	t->commit_id = fl_stmt_column_int64(stmt, 2);
	t->baseline_commit = fl_stmt_column_int64(stmt, 3);
	t->tree = fl_store_column_dup(stmt, 4);
	t->tag = fl_store_column_dup(stmt, 5);
	t->sha = fl_store_column_dup(stmt, 6);
	t->baseline = fl_store_column_dup(stmt, 7);
	t->baseline_sha = fl_store_column_dup(stmt, 8);
	t->state = fl_store_column_dup(stmt, 9);
	t->kind = fl_store_column_dup(stmt, 10);
	t->ref = fl_store_column_dup(stmt, 11);
	t->note = fl_store_column_dup(stmt, 12);
	fl_stmt_finalize(stmt);
	return 0;
}

void fl_watch_tag_release(struct fl_watch_tag *t)
{
	free(t->tree);
	free(t->tag);
	free(t->sha);
	free(t->baseline);
	free(t->baseline_sha);
	free(t->state);
	free(t->kind);
	free(t->ref);
	free(t->note);
	memset(t, 0, sizeof(*t));
}

/* ---- comparisons ---------------------------------------------------- */

int fl_store_comparison_add(fl_store *st, int64_t job_id, const struct fl_watch_comparison *c)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO comparisons(job_id, what, base_commit, "
			     "new_commit, benchmark, machine_id, metric, mode, tasks, is_primary, "
			     "base_runs, base_mean, base_stddev, new_runs, new_mean, new_stddev, "
			     "change, p_value, verdict, class, cgroup) VALUES (?1, ?2, ?3, ?4, ?5, "
			     "?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
			     "?20, ?21) ON CONFLICT (job_id, what, metric, mode, tasks, cgroup) DO "
			     "UPDATE SET base_commit = excluded.base_commit, new_commit = "
			     "excluded.new_commit, benchmark = excluded.benchmark, machine_id = "
			     "excluded.machine_id, is_primary = excluded.is_primary, base_runs = "
			     "excluded.base_runs, base_mean = excluded.base_mean, base_stddev = "
			     "excluded.base_stddev, new_runs = excluded.new_runs, new_mean = "
			     "excluded.new_mean, new_stddev = excluded.new_stddev, change = "
			     "excluded.change, p_value = excluded.p_value, verdict = excluded.verdict, "
			     "class = excluded.class, created = unixepoch()"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, job_id);
	fl_stmt_bind_text(stmt, 2, c->what);
	fl_stmt_bind_int64(stmt, 3, c->base_commit);
	fl_stmt_bind_int64(stmt, 4, c->new_commit);
	fl_stmt_bind_text(stmt, 5, c->benchmark);
	fl_stmt_bind_int64(stmt, 6, c->machine_id);
	fl_stmt_bind_text(stmt, 7, c->metric);
	fl_stmt_bind_text(stmt, 8, c->mode ? c->mode : "");
	fl_stmt_bind_int64(stmt, 9, (int)c->tasks);
	fl_stmt_bind_int64(stmt, 10, c->is_primary);
	fl_stmt_bind_int64(stmt, 11, (int64_t)c->base_runs);
	fl_stmt_bind_double(stmt, 12, c->base_mean);
	fl_stmt_bind_double(stmt, 13, c->base_stddev);
	fl_stmt_bind_int64(stmt, 14, (int64_t)c->new_runs);
	fl_stmt_bind_double(stmt, 15, c->new_mean);
	fl_stmt_bind_double(stmt, 16, c->new_stddev);
	fl_stmt_bind_double(stmt, 17, c->change);
	fl_stmt_bind_double(stmt, 18, c->p);
	fl_stmt_bind_text(stmt, 19, c->verdict);
	fl_stmt_bind_text(stmt, 20, c->class);
	fl_stmt_bind_text(stmt, 21, c->cgroup ? c->cgroup : "");
	return fl_store_step_done(st, stmt, "add comparison");
}

int fl_store_comparisons_count(fl_store *st, int64_t job_id, const char *class, size_t *n)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt,
			     "SELECT count(*) FROM comparisons WHERE job_id = ?1 AND "
			     "(?2 IS NULL OR class = ?2)"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, job_id);
	fl_store_bind_opt(stmt, 2, class);
	if ((r = fl_store_row(st, stmt, "count comparisons")) <= 0)
		return r ? r : fl_store_sqlerr(st, "count comparisons");
	*n = (size_t)fl_stmt_column_int64(stmt, 0);
	fl_stmt_finalize(stmt);
	return 0;
}

/* ---- regressions and their bisection -------------------------------- */

int fl_store_regression_add(fl_store *st, const struct fl_regression_new *g, int64_t *id)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(
		st, &stmt,
		"INSERT INTO regressions(tree_id, good_commit, bad_commit, benchmark, "
		"machine_id, metric, mode, tasks, change, p_value, job_id, cgroup) VALUES (?1, "
		"?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) ON CONFLICT DO NOTHING"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, g->tree_id);
	fl_stmt_bind_int64(stmt, 2, g->good_commit);
	fl_stmt_bind_int64(stmt, 3, g->bad_commit);
	fl_stmt_bind_text(stmt, 4, g->benchmark);
	fl_stmt_bind_int64(stmt, 5, g->machine_id);
	fl_stmt_bind_text(stmt, 6, g->metric);
	fl_stmt_bind_text(stmt, 7, g->mode ? g->mode : "");
	fl_stmt_bind_int64(stmt, 8, (int)g->tasks);
	fl_stmt_bind_double(stmt, 9, g->change);
	fl_stmt_bind_double(stmt, 10, g->p);
	fl_stmt_bind_int64(stmt, 11, g->job_id);
	fl_stmt_bind_text(stmt, 12, g->cgroup ? g->cgroup : "");
	if ((r = fl_store_step_done(st, stmt, "add regression")))
		return r;
	if (fl_store_prepare(st, &stmt, "SELECT id FROM regressions WHERE job_id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, g->job_id);
	if ((r = fl_store_row(st, stmt, "find regression")) <= 0)
		return r ? r : fl_store_sqlerr(st, "find regression");
	*id = fl_stmt_column_int64(stmt, 0);
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_regression_get(fl_store *st, int64_t id, struct fl_regression *g)
{
	fl_stmt *stmt;
	int r;

	memset(g, 0, sizeof(*g));
	if (fl_store_prepare(
		st, &stmt,
		"SELECT g.id, coalesce(g.job_id, 0), g.tree_id, g.machine_id, t.name, t.url, "
		"coalesce(w.tag, bc.sha), coalesce(w.baseline, gc.sha), gc.sha, bc.sha, "
		"g.benchmark, m.name, g.metric, g.mode, g.tasks, g.change, coalesce(g.p_value, 1), "
		"g.cgroup, g.kind, coalesce(w.kind, 'tag'), w.ref, w.note FROM regressions g JOIN trees t ON t.id = g.tree_id JOIN commits gc ON gc.id = "
		"g.good_commit JOIN commits bc ON bc.id = g.bad_commit JOIN machines m ON m.id = "
		"g.machine_id LEFT JOIN jobs j ON j.id = g.job_id" FL_JOB_TAG("j",
									      "w") "WHERE "
										   "g.id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	if ((r = fl_store_row(st, stmt, "regression")) <= 0)
		return r ? r : fl_error_set(FL_ENOTFOUND, "no regression %lld", (long long)id);
	g->id = fl_stmt_column_int64(stmt, 0);
	g->job_id = fl_stmt_column_int64(stmt, 1);
	g->tree_id = fl_stmt_column_int64(stmt, 2);
	g->machine_id = fl_stmt_column_int64(stmt, 3);
	g->tree = fl_store_column_dup(stmt, 4);
	g->tree_url = fl_store_column_dup(stmt, 5);
	g->tag = fl_store_column_dup(stmt, 6);
	g->baseline = fl_store_column_dup(stmt, 7);
	g->good = fl_store_column_dup(stmt, 8);
	g->bad = fl_store_column_dup(stmt, 9);
	g->benchmark = fl_store_column_dup(stmt, 10);
	g->machine = fl_store_column_dup(stmt, 11);
	g->metric = fl_store_column_dup(stmt, 12);
	g->mode = fl_store_column_dup(stmt, 13);
	g->tasks = (unsigned)fl_stmt_column_int(stmt, 14);
	g->change = fl_stmt_column_double(stmt, 15);
	g->p = fl_stmt_column_double(stmt, 16);
	g->cgroup = fl_store_column_dup(stmt, 17);
	g->kind = fl_store_column_dup(stmt, 18);
	g->tag_kind = fl_store_column_dup(stmt, 19);
	g->ref = fl_store_column_dup(stmt, 20);
	g->note = fl_store_column_dup(stmt, 21);
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_regression_improvement(fl_store *st, int64_t id)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt, "UPDATE regressions SET kind = 'improvement' WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	return fl_store_step_done(st, stmt, "regression kind");
}

void fl_regression_release(struct fl_regression *g)
{
	free(g->kind);
	free(g->tree);
	free(g->tree_url);
	free(g->tag);
	free(g->baseline);
	free(g->good);
	free(g->bad);
	free(g->benchmark);
	free(g->machine);
	free(g->metric);
	free(g->mode);
	free(g->cgroup);
	free(g->tag_kind);
	free(g->ref);
	free(g->note);
	memset(g, 0, sizeof(*g));
}

int fl_store_regression_bisection(fl_store *st, int64_t regression_id, const char *good,
				  const char *bad, int64_t *id, int *resumed)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO bisections(regression_id, good, bad) VALUES (?1, ?2, ?3) "
			     "ON CONFLICT DO NOTHING"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, regression_id);
	fl_stmt_bind_text(stmt, 2, good);
	fl_stmt_bind_text(stmt, 3, bad);
	if ((r = fl_store_step_done(st, stmt, "create bisection")))
		return r;
	*resumed = fl_sql_changes(st->db) == 0;
	if (fl_store_prepare(st, &stmt, "SELECT id FROM bisections WHERE regression_id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, regression_id);
	if ((r = fl_store_row(st, stmt, "find bisection")) <= 0)
		return r ? r : fl_store_sqlerr(st, "find bisection");
	*id = fl_stmt_column_int64(stmt, 0);
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_bisect_steps_truncate(fl_store *st, int64_t bisection_id, size_t seq)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "DELETE FROM bisect_steps WHERE bisection_id = ?1 AND seq >= ?2"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, bisection_id);
	fl_stmt_bind_int64(stmt, 2, (int64_t)seq);
	return fl_store_step_done(st, stmt, "truncate bisect steps");
}

int fl_store_bisection_summary(fl_store *st, int64_t bisection_id, const char *json)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt, "UPDATE bisections SET summary = ?2 WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, bisection_id);
	fl_stmt_bind_text(stmt, 2, json);
	return fl_store_step_done(st, stmt, "bisection summary");
}

int fl_store_bisection_get(fl_store *st, int64_t id, struct fl_bisection_row *b)
{
	fl_stmt *stmt;
	int r;

	memset(b, 0, sizeof(*b));
	if (fl_store_prepare(st, &stmt,
			     "SELECT id, state, result, culprit, summary, coalesce(confidence, 0) "
			     "FROM bisections WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	if ((r = fl_store_row(st, stmt, "bisection")) <= 0)
		return r ? r : fl_error_set(FL_ENOTFOUND, "no bisection %lld", (long long)id);
	b->id = fl_stmt_column_int64(stmt, 0);
	b->state = fl_store_column_dup(stmt, 1);
	b->result = fl_store_column_dup(stmt, 2);
	b->culprit = fl_store_column_dup(stmt, 3);
	b->summary = fl_store_column_dup(stmt, 4);
	b->confidence = fl_stmt_column_double(stmt, 5);
	fl_stmt_finalize(stmt);
	return 0;
}

void fl_bisection_row_release(struct fl_bisection_row *b)
{
	free(b->state);
	free(b->result);
	free(b->culprit);
	free(b->summary);
	memset(b, 0, sizeof(*b));
}

/* ---- revert checks -------------------------------------------------- */

int fl_store_revert_add(fl_store *st, const struct fl_revert *v)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO reverts(regression_id, culprit, onto, state, commit_sha, "
			     "ref, conflicts, error) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
			     "ON CONFLICT DO NOTHING"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, v->regression_id);
	fl_stmt_bind_text(stmt, 2, v->culprit);
	fl_stmt_bind_text(stmt, 3, v->onto);
	fl_stmt_bind_text(stmt, 4, v->state);
	fl_store_bind_opt(stmt, 5, v->commit_sha);
	fl_store_bind_opt(stmt, 6, v->ref);
	fl_store_bind_opt(stmt, 7, v->conflicts);
	fl_store_bind_opt(stmt, 8, v->error);
	return fl_store_step_done(st, stmt, "add revert check");
}

int fl_store_revert_get(fl_store *st, int64_t regression_id, struct fl_revert *v)
{
	fl_stmt *stmt;
	int r;

	memset(v, 0, sizeof(*v));
	if (fl_store_prepare(st, &stmt,
			     "SELECT id, regression_id, culprit, onto, state, commit_sha, ref, "
			     "conflicts, error, verdict FROM reverts WHERE regression_id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, regression_id);
	if ((r = fl_store_row(st, stmt, "revert check")) <= 0)
		return r ? r
			 : fl_error_set(FL_ENOTFOUND, "no revert check for regression %lld",
					(long long)regression_id);
	v->id = fl_stmt_column_int64(stmt, 0);
	v->regression_id = fl_stmt_column_int64(stmt, 1);
	v->culprit = fl_store_column_dup(stmt, 2);
	v->onto = fl_store_column_dup(stmt, 3);
	v->state = fl_store_column_dup(stmt, 4);
	v->commit_sha = fl_store_column_dup(stmt, 5);
	v->ref = fl_store_column_dup(stmt, 6);
	v->conflicts = fl_store_column_dup(stmt, 7);
	v->error = fl_store_column_dup(stmt, 8);
	v->verdict = fl_store_column_dup(stmt, 9);
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_revert_verdict(fl_store *st, int64_t regression_id, const char *verdict)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt, "UPDATE reverts SET verdict = ?2 WHERE regression_id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, regression_id);
	fl_stmt_bind_text(stmt, 2, verdict);
	return fl_store_step_done(st, stmt, "revert verdict");
}

void fl_revert_release(struct fl_revert *v)
{
	free(v->culprit);
	free(v->onto);
	free(v->state);
	free(v->commit_sha);
	free(v->ref);
	free(v->conflicts);
	free(v->error);
	free(v->verdict);
	memset(v, 0, sizeof(*v));
}
