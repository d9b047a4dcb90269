/*
 * store/jobs.c - the SQL of the job queue, the machine pool and the runs
 * jobs make (see store/jobs.h).
 */
#include "store/jobs.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "store/priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOB_COLUMNS                                                                                \
	"id, coalesce(parent_id, 0), coalesce(run_id, 0), coalesce(tag_id, 0), "                   \
	"coalesce(regression_id, 0), coalesce(round, -1), kind, key, state, tree, machine, "       \
	"benchmark, rev, role, seq, attempts, result, error, point, coalesce(try_id, 0)"

static void read_job(fl_stmt *stmt, struct fl_job *j)
{
	j->id = fl_stmt_column_int64(stmt, 0);
	j->parent_id = fl_stmt_column_int64(stmt, 1);
	j->run_id = fl_stmt_column_int64(stmt, 2);
	j->tag_id = fl_stmt_column_int64(stmt, 3);
	j->regression_id = fl_stmt_column_int64(stmt, 4);
	j->round = fl_stmt_column_int(stmt, 5);
	j->kind = fl_store_column_dup(stmt, 6);
	j->key = fl_store_column_dup(stmt, 7);
	j->state = fl_store_column_dup(stmt, 8);
	j->tree = fl_store_column_dup(stmt, 9);
	j->machine = fl_store_column_dup(stmt, 10);
	j->benchmark = fl_store_column_dup(stmt, 11);
	j->rev = fl_store_column_dup(stmt, 12);
	j->role = fl_store_column_dup(stmt, 13);
	j->seq = fl_stmt_column_int(stmt, 14);
	j->attempts = fl_stmt_column_int(stmt, 15);
	j->result = fl_store_column_dup(stmt, 16);
	j->error = fl_store_column_dup(stmt, 17);
	j->point = fl_store_column_dup(stmt, 18);
	j->try_id = fl_stmt_column_int64(stmt, 19);
}

void fl_job_release(struct fl_job *j)
{
	free(j->kind);
	free(j->key);
	free(j->state);
	free(j->tree);
	free(j->machine);
	free(j->benchmark);
	free(j->rev);
	free(j->role);
	free(j->result);
	free(j->error);
	free(j->point);
	memset(j, 0, sizeof(*j));
}

void fl_jobs_free(struct fl_job *j, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fl_job_release(&j[i]);
	free(j);
}

static void bind_text(fl_stmt *stmt, int i, const char *s)
{
	fl_stmt_bind_text(stmt, i, s ? s : "");
}

/* sql with ?1 = a, ?2 = b and ?3 = c (NULL: unbound); *changes (may be NULL): rows it changed. */
static int exec_with(fl_store *st, const char *sql, const char *a, const char *b, const char *c,
		     const char *what, int64_t *changes)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt, sql))
		return FL_ESTORE;
	bind_text(stmt, 1, a);
	if (b)
		bind_text(stmt, 2, b);
	if (c)
		bind_text(stmt, 3, c);
	if ((r = fl_store_step_done(st, stmt, what)))
		return r;
	if (changes)
		*changes = fl_sql_changes(st->db);
	return 0;
}

int fl_store_job_kinds_add(fl_store *st, const char *const *names, size_t n)
{
	fl_stmt *stmt;
	int r = 0;

	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO job_kinds(name) VALUES (?1) "
			     "ON CONFLICT DO NOTHING"))
		return FL_ESTORE;
	for (size_t i = 0; i < n && !r; i++) {
		bind_text(stmt, 1, names[i]);
		if (fl_stmt_step(stmt) != FL_SQL_DONE)
			r = fl_error_wrap(fl_store_sqlerr(st, "add job kind"), "kind %s", names[i]);
		fl_stmt_reset(stmt);
	}
	fl_stmt_finalize(stmt);
	return r;
}

/* The job stmt reads into j: 0, FL_ENOTFOUND naming what, or a store error. */
static int one_job(fl_store *st, fl_stmt *stmt, struct fl_job *j, const char *what)
{
	int r = fl_store_row(st, stmt, "read job");

	if (r <= 0)
		return r ? r : fl_error_set(FL_ENOTFOUND, "store %s: no job %s", st->path, what);
	read_job(stmt, j);
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_job_find(fl_store *st, const char *key, struct fl_job *j)
{
	fl_stmt *stmt;

	memset(j, 0, sizeof(*j));
	if (fl_store_prepare(st, &stmt, "SELECT " JOB_COLUMNS " FROM jobs WHERE key = ?1"))
		return FL_ESTORE;
	bind_text(stmt, 1, key);
	return one_job(st, stmt, j, key);
}

int fl_store_job_get(fl_store *st, int64_t id, struct fl_job *j)
{
	fl_stmt *stmt;
	char what[32];

	memset(j, 0, sizeof(*j));
	if (fl_store_prepare(st, &stmt, "SELECT " JOB_COLUMNS " FROM jobs WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	snprintf(what, sizeof(what), "%lld", (long long)id);
	return one_job(st, stmt, j, what);
}

int fl_store_job_add(fl_store *st, const struct fl_job_new *j, int64_t *id, int *created)
{
	fl_stmt *stmt;
	struct fl_job got;
	int r;

	if (fl_store_prepare(
		st, &stmt,
		"INSERT INTO jobs(kind, key, parent_id, tree, machine, benchmark, rev, "
		"role, seq, tag_id, regression_id, round, point, try_id, state) VALUES (?1, ?2, "
		"?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) ON CONFLICT (key) DO "
		"NOTHING"))
		return FL_ESTORE;
	bind_text(stmt, 1, j->kind);
	bind_text(stmt, 2, j->key);
	fl_store_bind_id(stmt, 3, j->parent_id);
	bind_text(stmt, 4, j->tree);
	bind_text(stmt, 5, j->machine);
	bind_text(stmt, 6, j->benchmark);
	bind_text(stmt, 7, j->rev);
	bind_text(stmt, 8, j->role);
	fl_stmt_bind_int64(stmt, 9, j->seq);
	fl_store_bind_id(stmt, 10, j->tag_id);
	fl_store_bind_id(stmt, 11, j->regression_id);
	if (j->parent_id && j->round >= 0) /* rounds are run jobs' */
		fl_stmt_bind_int64(stmt, 12, j->round);
	else
		fl_stmt_bind_null(stmt, 12);
	if (j->point && *j->point)
		fl_stmt_bind_text(stmt, 13, j->point);
	else
		fl_stmt_bind_null(stmt, 13);
	fl_store_bind_id(stmt, 14, j->try_id);
	fl_stmt_bind_text(stmt, 15, j->state);
	if ((r = fl_store_step_done(st, stmt, "add job")))
		return fl_error_wrap(r, "job %s", j->key);
	if (created)
		*created = fl_sql_changes(st->db) > 0;
	if ((r = fl_store_job_find(st, j->key, &got)))
		return r;
	*id = got.id;
	fl_job_release(&got);
	return 0;
}

static int many_jobs(fl_store *st, fl_stmt *stmt, struct fl_job **out, size_t *n)
{
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			*out = fl_xrealloc(*out, alloc * sizeof(**out));
		}
		read_job(stmt, &(*out)[(*n)++]);
	}
	fl_stmt_finalize(stmt);
	if (rc != FL_SQL_DONE) {
		fl_jobs_free(*out, *n);
		*out = NULL;
		*n = 0;
		return fl_store_sqlerr(st, "list jobs");
	}
	return 0;
}

int fl_store_jobs_in_state(fl_store *st, const char *state, const char *kind, int but,
			   struct fl_job **out, size_t *n)
{
	const char *sql = !kind ? "SELECT " JOB_COLUMNS " FROM jobs WHERE state = ?1 ORDER BY id"
			  : but ? "SELECT " JOB_COLUMNS " FROM jobs WHERE state = ?1 "
				  "AND kind <> ?2 ORDER BY id"
				: "SELECT " JOB_COLUMNS " FROM jobs WHERE state = ?1 "
				  "AND kind = ?2 ORDER BY id";
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt, sql))
		return FL_ESTORE;
	bind_text(stmt, 1, state);
	if (kind)
		bind_text(stmt, 2, kind);
	return many_jobs(st, stmt, out, n);
}

int fl_store_jobs_children(fl_store *st, int64_t parent, struct fl_job **out, size_t *n)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "SELECT " JOB_COLUMNS
			     " FROM jobs WHERE parent_id = ?1 ORDER BY seq, id"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, parent);
	return many_jobs(st, stmt, out, n);
}

int fl_store_jobs_counts(fl_store *st, const char *const *states, size_t n, size_t *counts)
{
	fl_buf sql = FL_BUF_INIT;
	fl_stmt *stmt;
	int rc;

	if (!n || n > 8)
		return fl_error_set(FL_EINVAL, "job counts: %zu states (1 to 8)", n);
	memset(counts, 0, n * sizeof(*counts));
	fl_buf_adds(&sql, "SELECT state, count(*) FROM jobs WHERE state IN (?1");
	for (size_t i = 1; i < n; i++)
		fl_buf_addf(&sql, ", ?%zu", i + 1);
	fl_buf_adds(&sql, ") GROUP BY state");
	rc = fl_store_prepare(st, &stmt, sql.ptr);
	fl_buf_free(&sql);
	if (rc)
		return FL_ESTORE;
	for (size_t i = 0; i < n; i++)
		bind_text(stmt, (int)i + 1, states[i]);
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW)
		for (size_t i = 0; i < n; i++)
			if (!strcmp(fl_stmt_column_text(stmt, 0), states[i]))
				counts[i] = (size_t)fl_stmt_column_int64(stmt, 1);
	fl_stmt_finalize(stmt);
	return rc == FL_SQL_DONE ? 0 : fl_store_sqlerr(st, "count jobs");
}

static int update(fl_store *st, int64_t id, const char *sql, const char *a, const char *b,
		  const char *c, const char *what)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt, sql))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	if (a)
		bind_text(stmt, 2, a);
	if (b)
		bind_text(stmt, 3, b);
	if (c)
		bind_text(stmt, 4, c);
	if ((r = fl_store_step_done(st, stmt, what)))
		return r;
	if (!fl_sql_changes(st->db))
		return fl_error_set(FL_ENOTFOUND, "store %s: %s: no job %lld", st->path, what,
				    (long long)id);
	return 0;
}

int fl_store_job_start(fl_store *st, int64_t id, const char *running, int attempt)
{
	return update(st, id,
		      attempt ? "UPDATE jobs SET state = ?2, ended = 0, started = unixepoch(), "
				"attempts = attempts + 1 WHERE id = ?1"
			      : "UPDATE jobs SET state = ?2, ended = 0, started = unixepoch() "
				"WHERE id = ?1",
		      running, NULL, NULL, "start job");
}

int fl_store_job_set(fl_store *st, int64_t id, const char *state, int ended, const char *result,
		     const char *error)
{
	return update(st, id,
		      ended ? "UPDATE jobs SET state = ?2, ended = 1, result = coalesce(nullif(?3, "
			      "''), result), error = coalesce(nullif(?4, ''), error), finished = "
			      "unixepoch() WHERE id = ?1"
			    : "UPDATE jobs SET state = ?2, ended = 0, result = coalesce(nullif(?3, "
			      "''), result), error = coalesce(nullif(?4, ''), error) WHERE id = ?1",
		      state, result ? result : "", error ? error : "", "set job state");
}

int fl_store_job_run_done(fl_store *st, int64_t id, const char *done, const char *result,
			  int64_t run_id, const char *error)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt,
			     "UPDATE jobs SET state = ?5, ended = 1, result = ?2, run_id = ?3, "
			     "error = ?4, finished = unixepoch() WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	bind_text(stmt, 2, result);
	fl_store_bind_id(stmt, 3, run_id);
	fl_store_bind_opt(stmt, 4, error);
	bind_text(stmt, 5, done);
	r = fl_store_step_done(st, stmt, "finish run job");
	return r ? fl_error_wrap(r, "job %lld", (long long)id) : 0;
}

int fl_store_job_requeue(fl_store *st, int64_t id, const char *queued)
{
	return update(st, id,
		      "UPDATE jobs SET state = ?2, ended = 0, result = NULL, error = NULL, "
		      "run_id = NULL, attempts = 0, started = NULL, finished = NULL, worker = NULL "
		      "WHERE id = ?1",
		      queued, NULL, NULL, "queue job again");
}

/* Whether job j (an alias) has a live child. */
#define LIVE_CHILD(j)                                                                              \
	"EXISTS (SELECT 1 FROM jobs c WHERE c.parent_id = " j " AND c." FL_JOB_LIVE ")"

int fl_store_job_wait(fl_store *st, int64_t id, const char *waiting, const char *queued)
{
	return update(st, id,
		      "UPDATE jobs SET state = CASE WHEN " LIVE_CHILD(
			  "?1") " THEN ?2 ELSE ?3 END, ended = 0 WHERE id = ?1",
		      waiting, queued, NULL, "wait for children");
}

int fl_store_job_wake_parent(fl_store *st, int64_t id, const char *waiting, const char *queued)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "UPDATE jobs SET state = ?3 WHERE state = ?2 AND id = (SELECT "
			     "parent_id FROM jobs WHERE id = ?1) AND NOT " LIVE_CHILD("jobs.id")))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	bind_text(stmt, 2, waiting);
	bind_text(stmt, 3, queued);
	return fl_store_step_done(st, stmt, "wake parent job");
}

int fl_store_jobs_unnumbered(fl_store *st, const char *parent_kind, const char *benchmark,
			     struct fl_job_unnumbered **out, size_t *n)
{
	size_t alloc = 0;
	fl_stmt *stmt;
	int rc;

	*out = NULL;
	*n = 0;
	if (fl_store_prepare(st, &stmt,
			     "SELECT id, seq, (SELECT count(DISTINCT s.role) FROM jobs s WHERE "
			     "s.parent_id = jobs.parent_id) FROM jobs WHERE round IS NULL AND "
			     "parent_id IN (SELECT p.id FROM jobs p WHERE p.kind = ?1 AND "
			     "p.benchmark = ?2) ORDER BY id"))
		return FL_ESTORE;
	bind_text(stmt, 1, parent_kind);
	bind_text(stmt, 2, benchmark);
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		if (*n == alloc)
			*out = fl_xrealloc(*out, (alloc = alloc ? 2 * alloc : 16) * sizeof(**out));
		(*out)[(*n)++] = (struct fl_job_unnumbered){fl_stmt_column_int64(stmt, 0),
							    fl_stmt_column_int(stmt, 1),
							    fl_stmt_column_int(stmt, 2)};
	}
	fl_stmt_finalize(stmt);
	if (rc == FL_SQL_DONE)
		return 0;
	free(*out);
	*out = NULL;
	*n = 0;
	return fl_store_sqlerr(st, "run jobs without a round");
}

int fl_store_job_set_round(fl_store *st, int64_t id, int round)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt, "UPDATE jobs SET round = ?2 WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	fl_stmt_bind_int64(stmt, 2, round);
	return fl_store_step_done(st, stmt, "number a run job's round");
}

/* Runs a job made that it never recorded as the one that counts. */
#define UNRECORDED_RUNS                                                                            \
	"SELECT r.id FROM runs r JOIN jobs j ON r.job_id = j.id WHERE r.status IN ('queued', "     \
	"'running', 'ok') AND (j.run_id IS NULL OR r.id <> j.run_id)"

int fl_store_jobs_recover(fl_store *st, const char *queued, unsigned *requeued, unsigned *discarded)
{
	int64_t n = 0;

	if (fl_store_exec(st, "DELETE FROM samples WHERE run_id IN (" UNRECORDED_RUNS ")") ||
	    fl_store_exec(st, "DELETE FROM runs WHERE id IN (" UNRECORDED_RUNS ")"))
		return FL_ESTORE;
	*discarded = (unsigned)fl_sql_changes(st->db);
	if (exec_with(st, "UPDATE jobs SET state = ?1 WHERE " FL_JOB_LIVE " AND state <> ?1",
		      queued, NULL, NULL, "queue live jobs again", &n))
		return FL_ESTORE;
	*requeued = (unsigned)n;
	/* no worker is left to drive a machine, send a report, hold a job */
	return fl_store_exec(st, "UPDATE machines SET worker = NULL") ||
			       fl_store_exec(st, "UPDATE reports SET worker = NULL WHERE worker IS "
						 "NOT NULL") ||
			       fl_store_exec(st, "DELETE FROM workers")
		   ? FL_ESTORE
		   : 0;
}

/* ---- machines ------------------------------------------------------- */

/* sql: the machine's state, reason and count by name (?1). */
static int machine_state(fl_store *st, const char *sql, const char *name,
			 struct fl_machine_state *m)
{
	fl_stmt *stmt;
	int r;

	memset(m, 0, sizeof(*m));
	if (fl_store_prepare(st, &stmt, sql))
		return FL_ESTORE;
	bind_text(stmt, 1, name);
	if ((r = fl_store_row(st, stmt, "machine state")) <= 0)
		return r ? r : fl_error_set(FL_ENOTFOUND, "no machine '%s' in the store", name);
	m->state = fl_store_column_dup(stmt, 0);
	m->reason = fl_store_column_dup(stmt, 1);
	m->infra_errors = fl_stmt_column_int(stmt, 2);
	fl_stmt_finalize(stmt);
	return 0;
}

#define MACHINE_STATE "SELECT state, state_reason, infra_errors FROM machines WHERE name = ?1"

int fl_store_machine_state(fl_store *st, const char *name, struct fl_machine_state *m)
{
	return machine_state(st, MACHINE_STATE, name, m);
}

int fl_store_machine_state_locked(fl_store *st, const char *name, struct fl_machine_state *m)
{
	return machine_state(st, MACHINE_STATE " /*PG: FOR UPDATE*/", name, m);
}

void fl_machine_state_release(struct fl_machine_state *m)
{
	free(m->state);
	free(m->reason);
	memset(m, 0, sizeof(*m));
}

static int machine_update(fl_store *st, const char *sql, const char *name, const char *value)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt, sql))
		return FL_ESTORE;
	bind_text(stmt, 1, name);
	if (value)
		bind_text(stmt, 2, value);
	if ((r = fl_store_step_done(st, stmt, "update machine")))
		return r;
	if (!fl_sql_changes(st->db))
		return fl_error_set(FL_ENOTFOUND, "no machine '%s' in the store", name);
	return 0;
}

int fl_store_machine_set_state(fl_store *st, const char *name, const struct fl_machine_state *m)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt,
			     "UPDATE machines SET state = ?2, state_reason = ?3, infra_errors = ?4 "
			     "WHERE name = ?1"))
		return FL_ESTORE;
	bind_text(stmt, 1, name);
	bind_text(stmt, 2, m->state);
	if (m->reason)
		bind_text(stmt, 3, m->reason);
	else
		fl_stmt_bind_null(stmt, 3);
	fl_stmt_bind_int64(stmt, 4, m->infra_errors);
	if ((r = fl_store_step_done(st, stmt, "set machine state")))
		return r;
	if (!fl_sql_changes(st->db))
		return fl_error_set(FL_ENOTFOUND, "no machine '%s' in the store", name);
	return 0;
}

int fl_store_machine_enable(fl_store *st, const char *name)
{
	return machine_update(st,
			      "UPDATE machines SET state = 'online', infra_errors = 0, "
			      "state_reason = NULL WHERE name = ?1",
			      name, NULL);
}

int fl_store_machine_set_facts(fl_store *st, const char *name, const char *json)
{
	return machine_update(st, "UPDATE machines SET facts = ?2 WHERE name = ?1", name, json);
}

int fl_store_machine_facts(fl_store *st, const char *name, char **json)
{
	fl_stmt *stmt;
	int r;

	*json = NULL;
	if (fl_store_prepare(st, &stmt, "SELECT facts FROM machines WHERE name = ?1"))
		return FL_ESTORE;
	bind_text(stmt, 1, name);
	if ((r = fl_store_row(st, stmt, "machine facts")) <= 0)
		return r;
	*json = fl_store_column_dup(stmt, 0);
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_machine_names(fl_store *st, char ***names, size_t *n)
{
	fl_stmt *stmt;
	size_t alloc = 8;
	int rc;

	*n = 0;
	*names = fl_xcalloc(alloc, sizeof(**names));
	if (fl_store_prepare(st, &stmt, "SELECT name FROM machines ORDER BY name"))
		return FL_ESTORE;
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		if (*n + 1 >= alloc)
			*names = fl_xrealloc(*names, (alloc *= 2) * sizeof(**names));
		(*names)[(*n)++] = fl_store_column_dup(stmt, 0);
	}
	fl_stmt_finalize(stmt);
	return rc == FL_SQL_DONE ? 0 : fl_store_sqlerr(st, "list machines");
}

/* ---- runs ----------------------------------------------------------- */

int fl_store_run_set_job(fl_store *st, int64_t run_id, int64_t job_id)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt, "UPDATE runs SET job_id = ?2 WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, run_id);
	fl_stmt_bind_int64(stmt, 2, job_id);
	return fl_store_step_done(st, stmt, "link run to job");
}

int fl_store_run_discard(fl_store *st, int64_t run_id)
{
	fl_stmt *stmt;

	if (fl_store_tx_begin(st))
		return FL_ESTORE;
	if (fl_store_prepare(st, &stmt, "DELETE FROM samples WHERE run_id = ?1"))
		goto fail;
	fl_stmt_bind_int64(stmt, 1, run_id);
	if (fl_store_step_done(st, stmt, "discard samples"))
		goto fail;
	if (fl_store_prepare(st, &stmt, "DELETE FROM runs WHERE id = ?1"))
		goto fail;
	fl_stmt_bind_int64(stmt, 1, run_id);
	if (fl_store_step_done(st, stmt, "discard run") || fl_store_tx_commit(st))
		goto fail;
	return 0;
fail:
	fl_store_tx_rollback(st);
	return fl_error_wrap(FL_ESTORE, "run %lld", (long long)run_id);
}

/* ---- workers and claims --------------------------------------------- */

void fl_workers_free(struct fl_worker *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(w[i].name);
		free(w[i].host);
	}
	free(w);
}

int fl_store_workers(fl_store *st, struct fl_worker **out, size_t *n)
{
	fl_stmt *stmt;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (fl_store_prepare(st, &stmt,
			     "SELECT name, host, pid, started, seen FROM workers ORDER BY name"))
		return FL_ESTORE;
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		struct fl_worker *w;

		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 8;
			*out = fl_xrealloc(*out, alloc * sizeof(**out));
		}
		w = &(*out)[(*n)++];
		w->name = fl_store_column_dup(stmt, 0);
		w->host = fl_store_column_dup(stmt, 1);
		w->pid = fl_stmt_column_int64(stmt, 2);
		w->started = fl_stmt_column_int64(stmt, 3);
		w->seen = fl_stmt_column_int64(stmt, 4);
	}
	fl_stmt_finalize(stmt);
	return rc == FL_SQL_DONE ? 0 : fl_store_sqlerr(st, "list workers");
}

int fl_store_worker_enter(fl_store *st, const struct fl_worker *w)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO workers(name, host, pid, started, seen) "
			     "VALUES (?1, ?2, ?3, ?4, ?5)"))
		return FL_ESTORE;
	bind_text(stmt, 1, w->name);
	bind_text(stmt, 2, w->host);
	fl_stmt_bind_int64(stmt, 3, w->pid);
	fl_stmt_bind_int64(stmt, 4, w->started);
	fl_stmt_bind_int64(stmt, 5, w->seen);
	return fl_store_step_done(st, stmt, "enter worker");
}

int fl_store_worker_beat(fl_store *st, const char *name, int64_t now, int *alive)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt, "UPDATE workers SET seen = ?2 WHERE name = ?1"))
		return FL_ESTORE;
	bind_text(stmt, 1, name);
	fl_stmt_bind_int64(stmt, 2, now);
	if ((r = fl_store_step_done(st, stmt, "renew worker")))
		return r;
	*alive = fl_sql_changes(st->db) > 0;
	return 0;
}

/* The runs of the jobs ?1 holds in state ?2 that their job did not record. */
#define HELD_UNRECORDED_RUNS                                                                       \
	"SELECT r.id FROM runs r JOIN jobs j ON r.job_id = j.id WHERE j.worker = ?1 AND "          \
	"j." FL_JOB_LIVE " AND j.state = ?2 AND r.status IN ('queued', 'running', 'ok') AND "      \
	"(j.run_id IS NULL OR r.id <> j.run_id)"

int fl_store_worker_take_over(fl_store *st, const char *name, const char *running,
			      const char *queued, unsigned *requeued, unsigned *discarded)
{
	int64_t runs = 0, jobs = 0;
	int r;

	r = exec_with(st, "DELETE FROM samples WHERE run_id IN (" HELD_UNRECORDED_RUNS ")", name,
		      running, NULL, "discard a gone worker's samples", NULL);
	if (!r)
		r = exec_with(st, "DELETE FROM runs WHERE id IN (" HELD_UNRECORDED_RUNS ")", name,
			      running, NULL, "discard a gone worker's runs", &runs);
	if (!r)
		r = exec_with(st,
			      "UPDATE jobs SET state = ?3 WHERE worker = ?1 AND " FL_JOB_LIVE
			      " AND "
			      "state = ?2",
			      name, running, queued, "queue a gone worker's jobs again", &jobs);
	if (!r)
		r = fl_store_worker_leave(st, name);
	*requeued = (unsigned)jobs;
	*discarded = (unsigned)runs;
	return r;
}

int fl_store_worker_leave(fl_store *st, const char *name)
{
	int r = exec_with(st, "UPDATE machines SET worker = NULL WHERE worker = ?1", name, NULL,
			  NULL, "release a worker's machines", NULL);

	if (!r)
		r = exec_with(st, "UPDATE reports SET worker = NULL WHERE worker = ?1", name, NULL,
			      NULL, "end a worker's claims on reports", NULL);
	return r ? r
		 : exec_with(st, "DELETE FROM workers WHERE name = ?1", name, NULL, NULL,
			     "remove worker", NULL);
}

int fl_store_job_claim(fl_store *st, int64_t id, const char *queued, const char *running,
		       const char *worker, int *claimed)
{
	fl_stmt *stmt;
	int r;

	if (fl_store_prepare(st, &stmt,
			     "UPDATE jobs SET state = ?4, worker = ?2, started = unixepoch() "
			     "WHERE id = ?1 AND state = ?3"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	bind_text(stmt, 2, worker);
	bind_text(stmt, 3, queued);
	bind_text(stmt, 4, running);
	if ((r = fl_store_step_done(st, stmt, "claim job")))
		return r;
	*claimed = fl_sql_changes(st->db) > 0;
	return 0;
}

int fl_store_job_claim_next(fl_store *st, const char *kind, const char *machine, const char *queued,
			    const char *running, const char *worker, struct fl_job *j)
{
	fl_stmt *stmt;

	memset(j, 0, sizeof(*j));
	/* the row lock makes concurrent claimers on PostgreSQL pass each
	 * other's rows by instead of waiting for them (pg.c: the dialect) */
	if (fl_store_prepare(
		st, &stmt,
		"UPDATE jobs SET state = ?5, worker = ?3, started = "
		"unixepoch(), attempts = attempts + 1 WHERE state = ?4 AND id = "
		"(SELECT id FROM jobs WHERE state = ?4 AND kind = ?1 AND machine = "
		"?2 ORDER BY id LIMIT 1 /*PG: FOR UPDATE SKIP LOCKED*/) RETURNING " JOB_COLUMNS))
		return FL_ESTORE;
	bind_text(stmt, 1, kind);
	bind_text(stmt, 2, machine);
	bind_text(stmt, 3, worker);
	bind_text(stmt, 4, queued);
	bind_text(stmt, 5, running);
	return one_job(st, stmt, j, "to claim");
}

int fl_store_job_held(fl_store *st, int64_t id, const char *running, const char *worker, int *held)
{
	fl_stmt *stmt;
	int r;

	*held = 0;
	if (fl_store_prepare(st, &stmt,
			     "SELECT 1 FROM jobs WHERE id = ?1 AND state = ?3 AND worker = ?2"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	bind_text(stmt, 2, worker);
	bind_text(stmt, 3, running);
	if ((r = fl_store_row(st, stmt, "job holder")) < 0)
		return r;
	if (r)
		fl_stmt_finalize(stmt);
	*held = r;
	return 0;
}

int fl_store_machine_claim(fl_store *st, const char *name, const char *worker, int *claimed)
{
	int64_t n = 0;
	int r = exec_with(st,
			  "UPDATE machines SET worker = ?2 WHERE name = ?1 AND (worker IS NULL OR "
			  "worker = ?2)",
			  name, worker, NULL, "claim machine", &n);

	*claimed = n > 0;
	return r;
}

int fl_store_machine_release(fl_store *st, const char *name, const char *worker)
{
	return exec_with(st, "UPDATE machines SET worker = NULL WHERE name = ?1 AND worker = ?2",
			 name, worker, NULL, "release machine", NULL);
}
