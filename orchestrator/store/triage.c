/* store/triage.c - the SQL of regressions' states and of mail read (see store/triage.h). */
#include "store/triage.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "store/priv.h"

#include <stdlib.h>
#include <string.h>

int fl_store_regression_set_state(fl_store *st, int64_t id, const struct fl_regression_state *s)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt,
			     "UPDATE regressions SET state = ?2, state_by = ?3, state_at = ?4, "
			     "fixed_by = ?5, fix_range = ?6, dup_of = ?7, state_note = ?8 "
			     "WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	fl_stmt_bind_text(stmt, 2, s->state);
	fl_store_bind_opt(stmt, 3, s->by);
	fl_stmt_bind_int64(stmt, 4, s->at);
	fl_store_bind_opt(stmt, 5, s->fixed_by);
	fl_store_bind_opt(stmt, 6, s->fix_range);
	fl_store_bind_id(stmt, 7, s->dup_of);
	fl_store_bind_opt(stmt, 8, s->note);
	if ((r = fl_store_step_done(st, stmt, "regression state")))
		return r;
	if (!fl_sql_changes(st->db))
		return fl_error_set(FL_ENOTFOUND, "no regression %lld", (long long)id);
	return 0;
}

#define ITEM_SELECT                                                                                \
	"SELECT g.id, t.name, coalesce(w.tag, bc.sha), coalesce(w.baseline, gc.sha), "             \
	"g.benchmark, m.name, g.metric, g.mode, g.cgroup, g.tasks, g.change, b.culprit, g.state, " \
	"g.state_by, g.fixed_by, g.fix_range, g.state_note, coalesce(g.state_at, 0), "             \
	"coalesce(g.dup_of, 0), g.created, g.kind, coalesce(b.id, 0), b.result FROM regressions "  \
	"g "                                                                                       \
	"JOIN trees t ON t.id = g.tree_id "                                                        \
	"JOIN commits gc ON gc.id = g.good_commit JOIN commits bc ON bc.id = g.bad_commit "        \
	"JOIN machines m ON m.id = g.machine_id LEFT JOIN jobs j ON j.id = g.job_id "              \
	"LEFT JOIN bisections b ON b.regression_id = g.id" FL_JOB_TAG("j", "w")

static void read_item(fl_stmt *stmt, struct fl_regression_item *g)
{
	char **s[] = {&g->tree,	   &g->tag,    &g->baseline, &g->benchmark,
		      &g->machine, &g->metric, &g->mode,     &g->cgroup};

	memset(g, 0, sizeof(*g));
	g->id = fl_stmt_column_int64(stmt, 0);
	for (int i = 0; i < 8; i++)
		*s[i] = fl_store_column_dup(stmt, 1 + i);
	g->tasks = (unsigned)fl_stmt_column_int(stmt, 9);
	g->change = fl_stmt_column_double(stmt, 10);
	g->culprit = fl_store_column_dup(stmt, 11);
	g->state = fl_store_column_dup(stmt, 12);
	g->state_by = fl_store_column_dup(stmt, 13);
	g->fixed_by = fl_store_column_dup(stmt, 14);
	g->fix_range = fl_store_column_dup(stmt, 15);
	g->note = fl_store_column_dup(stmt, 16);
	g->state_at = fl_stmt_column_int64(stmt, 17);
	g->dup_of = fl_stmt_column_int64(stmt, 18);
	g->created = fl_stmt_column_int64(stmt, 19);
	g->kind = fl_store_column_dup(stmt, 20);
	g->bisection_id = fl_stmt_column_int64(stmt, 21);
	g->bisection_result = fl_store_column_dup(stmt, 22);
}

int fl_store_regression_items(fl_store *st, const char *state, const char *tree,
			      struct fl_regression_item **out, size_t *n)
{
	fl_stmt *stmt;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (fl_store_prepare(st, &stmt,
			     ITEM_SELECT " WHERE (?1 IS NULL OR g.state = ?1) AND (?2 IS NULL OR "
					 "t.name = ?2) ORDER BY g.id DESC"))
		return FL_ESTORE;
	fl_store_bind_opt(stmt, 1, state);
	fl_store_bind_opt(stmt, 2, tree);
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 8;
			*out = fl_xrealloc(*out, alloc * sizeof(**out));
		}
		read_item(stmt, &(*out)[(*n)++]);
	}
	fl_stmt_finalize(stmt);
	if (rc != FL_SQL_DONE) {
		fl_regression_items_free(*out, *n);
		*out = NULL;
		*n = 0;
		return fl_store_sqlerr(st, "regressions");
	}
	return 0;
}

int fl_store_regression_item(fl_store *st, int64_t id, struct fl_regression_item *out)
{
	fl_stmt *stmt;
	int rc;

	memset(out, 0, sizeof(*out));
	if (fl_store_prepare(st, &stmt, ITEM_SELECT " WHERE g.id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	if ((rc = fl_store_row(st, stmt, "regression")) <= 0)
		return rc ? rc : fl_error_set(FL_ENOTFOUND, "no regression %lld", (long long)id);
	read_item(stmt, out);
	fl_stmt_finalize(stmt);
	return 0;
}

void fl_regression_item_release(struct fl_regression_item *g)
{
	char *s[] = {g->tree,	   g->tag,    g->baseline, g->benchmark,
		     g->machine,   g->metric, g->mode,	   g->cgroup,
		     g->culprit,   g->state,  g->state_by, g->fixed_by,
		     g->fix_range, g->note,   g->kind,	   g->bisection_result};

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		free(s[i]);
	memset(g, 0, sizeof(*g));
}

void fl_regression_items_free(struct fl_regression_item *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fl_regression_item_release(&g[i]);
	free(g);
}

/* ---- mail read -------------------------------------------------------- */

int fl_store_mail_seen(fl_store *st, const char *message_id, char **outcome)
{
	fl_stmt *stmt;
	int rc;

	*outcome = NULL;
	if (fl_store_prepare(st, &stmt, "SELECT outcome FROM mail_seen WHERE message_id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_text(stmt, 1, message_id);
	if ((rc = fl_store_row(st, stmt, "mail seen")) <= 0)
		return rc;
	*outcome = fl_store_column_dup(stmt, 0);
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_mail_mark(fl_store *st, const char *message_id, const char *sender,
		       int64_t regression_id, const char *outcome)
{
	fl_stmt *stmt;
	int rc;

	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO mail_seen(message_id, sender, regression_id, outcome) "
			     "VALUES (?1, ?2, ?3, ?4)"))
		return FL_ESTORE;
	fl_stmt_bind_text(stmt, 1, message_id);
	fl_stmt_bind_text(stmt, 2, sender);
	fl_store_bind_id(stmt, 3, regression_id);
	fl_stmt_bind_text(stmt, 4, outcome);
	rc = fl_stmt_step(stmt);
	fl_stmt_finalize(stmt);
	if ((rc & 0xff) == FL_SQL_CONSTRAINT)
		return fl_error_set(FL_EEXISTS, "mail %s was read already", message_id);
	return rc == FL_SQL_DONE ? 0 : fl_store_sqlerr(st, "mark mail read");
}
