/*
 * store/run.c - the statements of runs, their samples and their records
 * (see store/run.h): every write of the runs table.
 */
#include "store/run.h"
#include "store/priv.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void bind_str(fl_stmt *stmt, int col, const char *s)
{
	fl_stmt_bind_text(stmt, col, s);
}

int fl_store_run_start(fl_store *st, const struct fl_run_new *r, int64_t *id)
{
	char host[256] = "";
	fl_stmt *stmt;

	gethostname(host, sizeof(host) - 1);
	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO runs(machine_id, build_id, commit_id, benchmark, params, "
			     "kernel_image, system_map, label, owner_host, owner_pid, job_id, status) "
			     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 'running') "
			     "RETURNING id"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, r->machine_id);
	fl_store_bind_id(stmt, 2, r->build_id);
	fl_store_bind_id(stmt, 3, r->commit_id);
	bind_str(stmt, 4, r->benchmark);
	bind_str(stmt, 5, r->params ? r->params : "{}");
	bind_str(stmt, 6, r->kernel_image);
	bind_str(stmt, 7, r->system_map);
	bind_str(stmt, 8, r->label);
	bind_str(stmt, 9, host);
	fl_stmt_bind_int64(stmt, 10, (int64_t)getpid());
	fl_store_bind_id(stmt, 11, r->job_id);
	return fl_store_insert_id(st, stmt, "start run", id);
}

/* UPDATE ... WHERE id = ?1: FL_ENOTFOUND when no row changed. */
static int update_one(fl_store *st, fl_stmt *stmt, int64_t id, const char *what)
{
	int r = fl_store_step_done(st, stmt, what);

	if (!r && !fl_sql_changes(st->db))
		r = fl_error_set(FL_ENOTFOUND, "store %s: %s: no run %lld", st->path, what,
				 (long long)id);
	return r;
}

int fl_store_run_guest(fl_store *st, int64_t id, const struct fl_run_guest *g)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "UPDATE runs SET domain = ?2, accel = ?3, machine_facts = ?4, "
			     "console_path = ?5, created_ms = ?6 WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	bind_str(stmt, 2, g->domain);
	bind_str(stmt, 3, g->accel);
	bind_str(stmt, 4, g->machine_facts);
	bind_str(stmt, 5, g->console_path);
	fl_store_bind_id(stmt, 6, g->created_ms);
	return update_one(st, stmt, id, "run guest");
}

int fl_store_run_record_add(fl_store *st, int64_t id, uint64_t seq, const char *type,
			    const char *json, size_t len)
{
	fl_stmt *stmt;

	/* A frame seen twice is dropped by the parser; DO NOTHING only guards a replay. */
	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO run_records(run_id, seq, type, json) "
			     "VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	fl_stmt_bind_int64(stmt, 2, (int64_t)seq);
	bind_str(stmt, 3, type ? type : "");
	fl_stmt_bind_textn(stmt, 4, json, len);
	return fl_store_step_done(st, stmt, "add run record");
}

int fl_store_run_records(fl_store *st, int64_t id, char ***json, size_t **lens, size_t *n)
{
	fl_stmt *stmt;
	size_t cap = 0;
	int rc;

	*json = NULL;
	*lens = NULL;
	*n = 0;
	if (fl_store_prepare(st, &stmt,
			     "SELECT json FROM run_records WHERE run_id = ?1 ORDER BY seq"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 32;
			*json = fl_xrealloc(*json, cap * sizeof(**json));
			*lens = fl_xrealloc(*lens, cap * sizeof(**lens));
		}
		(*lens)[*n] = fl_stmt_column_bytes(stmt, 0);
		(*json)[*n] = fl_xstrndup(fl_stmt_column_text(stmt, 0), (*lens)[*n]);
		(*n)++;
	}
	fl_stmt_finalize(stmt);
	if (rc != FL_SQL_DONE) {
		fl_store_run_records_free(*json, *lens, *n);
		*json = NULL;
		*lens = NULL;
		*n = 0;
		return fl_store_sqlerr(st, "read run records");
	}
	return 0;
}

void fl_store_run_records_free(char **json, size_t *lens, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(json[i]);
	free(json);
	free(lens);
}

static int end_row(fl_store *st, int64_t id, const struct fl_run_end *e)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "UPDATE runs SET status = ?2, detail = ?3, console = ?4, nodes = ?5, "
			     "cpus = ?6, kernel_release = ?7, agent_ms = ?8, first_sample_ms = ?9, "
			     "ended_ms = ?10, finished = unixepoch() "
			     "WHERE id = ?1 AND status = 'running'"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	bind_str(stmt, 2, e->status);
	bind_str(stmt, 3, e->detail);
	bind_str(stmt, 4, e->console_tail);
	fl_store_bind_id(stmt, 5, e->nodes);
	fl_store_bind_id(stmt, 6, e->cpus);
	bind_str(stmt, 7, e->kernel_release);
	fl_store_bind_id(stmt, 8, e->agent_ms);
	fl_store_bind_id(stmt, 9, e->first_sample_ms);
	fl_store_bind_id(stmt, 10, e->ended_ms);
	if (fl_store_step_done(st, stmt, "end run"))
		return FL_ESTORE;
	if (!fl_sql_changes(st->db))
		return fl_error_set(FL_EEXISTS, "store %s: run %lld is not running", st->path,
				    (long long)id);
	return 0;
}

int fl_store_run_end(fl_store *st, int64_t id, const struct fl_run_end *e)
{
	int r;

	if (e->nsamples && strcmp(e->status, "ok"))
		return fl_error_set(FL_EINVAL,
				    "run %lld: samples of a run that is %s are never kept",
				    (long long)id, e->status);
	if (fl_store_tx_begin(st))
		return FL_ESTORE;
	r = end_row(st, id, e);
	if (!r)
		r = fl_store_samples_insert(st, id, e->samples, e->nsamples);
	if (!r)
		r = fl_store_tx_commit(st);
	if (r)
		fl_store_tx_rollback(st);
	return r;
}

int fl_store_run_create(fl_store *st, const struct fl_run_info *run, int64_t *id)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO runs(build_id, machine_id, benchmark, params, job_id, "
			     "commit_id) VALUES (?1, ?2, ?3, ?4, ?5, nullif(?6, 0)) RETURNING id"))
		return FL_ESTORE;
	if (run->build_id)
		fl_stmt_bind_int64(stmt, 1, run->build_id);
	else
		fl_stmt_bind_null(stmt, 1);
	fl_stmt_bind_int64(stmt, 2, run->machine_id);
	fl_stmt_bind_text(stmt, 3, run->benchmark);
	fl_stmt_bind_text(stmt, 4, run->params ? run->params : "{}");
	if (run->job_id)
		fl_stmt_bind_int64(stmt, 5, run->job_id);
	else
		fl_stmt_bind_null(stmt, 5);
	fl_stmt_bind_int64(stmt, 6, run->commit_id);
	return fl_store_insert_id(st, stmt, "insert run", id);
}

int fl_store_run_finish(fl_store *st, int64_t run_id, const char *status, const char *console)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "UPDATE runs SET status = ?2, console = ?3, finished = unixepoch() "
			     "WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, run_id);
	fl_stmt_bind_text(stmt, 2, status);
	fl_stmt_bind_text(stmt, 3, console);
	if (fl_store_step_done(st, stmt, "finish run"))
		return fl_error_wrap(FL_ESTORE, "run %lld", (long long)run_id);
	if (!fl_sql_changes(st->db))
		return fl_error_set(FL_ENOTFOUND, "store %s: no run %lld", st->path,
				    (long long)run_id);
	return 0;
}

int fl_store_samples_insert(fl_store *st, int64_t run_id, const struct fl_sample *s, size_t n)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt,
			     "INSERT INTO samples(run_id, metric, mode, tasks, seq, value, cgroup) "
			     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"))
		return FL_ESTORE;
	for (size_t i = 0; i < n; i++) {
		fl_stmt_bind_int64(stmt, 1, run_id);
		fl_stmt_bind_text(stmt, 2, s[i].metric);
		fl_stmt_bind_text(stmt, 3, s[i].mode ? s[i].mode : "");
		fl_stmt_bind_int64(stmt, 4, s[i].tasks);
		fl_stmt_bind_int64(stmt, 5, s[i].seq);
		fl_stmt_bind_double(stmt, 6, s[i].value);
		fl_stmt_bind_text(stmt, 7, s[i].cgroup ? s[i].cgroup : "");
		if (fl_stmt_step(stmt) != FL_SQL_DONE) {
			fl_store_sqlerr(st, "insert sample");
			fl_error_wrap(FL_ESTORE, "run %lld, sample %zu of %zu", (long long)run_id,
				      i + 1, n);
			fl_stmt_finalize(stmt);
			return FL_ESTORE;
		}
		fl_stmt_reset(stmt);
	}
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_samples_add(fl_store *st, int64_t run_id, const struct fl_sample *s, size_t n)
{
	if (fl_store_tx_begin(st))
		return FL_ESTORE;
	if (fl_store_samples_insert(st, run_id, s, n) || fl_store_tx_commit(st)) {
		fl_store_tx_rollback(st);
		return FL_ESTORE;
	}
	return 0;
}

int fl_store_samples_count(fl_store *st, int64_t run_id, size_t *count)
{
	fl_stmt *stmt;

	if (fl_store_prepare(st, &stmt, "SELECT count(*) FROM samples WHERE run_id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, run_id);
	if (fl_stmt_step(stmt) != FL_SQL_ROW) {
		fl_stmt_finalize(stmt);
		return fl_store_sqlerr(st, "count samples");
	}
	*count = (size_t)fl_stmt_column_int64(stmt, 0);
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_run_status(fl_store *st, int64_t run_id, char **status)
{
	fl_stmt *stmt;
	int rc;

	if (fl_store_prepare(st, &stmt, "SELECT status FROM runs WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, run_id);
	if ((rc = fl_store_row(st, stmt, "run status")) <= 0)
		return rc ? rc
			  : fl_error_set(FL_ENOTFOUND, "store %s: no run %lld", st->path,
					 (long long)run_id);
	*status = fl_xstrdup(fl_stmt_column_text(stmt, 0));
	fl_stmt_finalize(stmt);
	return 0;
}

int fl_store_run_get(fl_store *st, int64_t id, struct fl_run_row *row)
{
	fl_stmt *stmt;
	int rc;

	memset(row, 0, sizeof(*row));
	if (fl_store_prepare(
		st, &stmt,
		"SELECT id, machine_id, coalesce(build_id, 0), coalesce(commit_id, 0), "
		"benchmark, status, detail, label, domain, accel, kernel_release, "
		"console_path, kernel_image, coalesce(nodes, 0), coalesce(cpus, 0), "
		"coalesce(created_ms, 0), coalesce(agent_ms, 0), "
		"coalesce(first_sample_ms, 0), coalesce(ended_ms, 0), machine_facts "
		"FROM runs WHERE id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	if ((rc = fl_store_row(st, stmt, "get run")) <= 0)
		return rc ? rc
			  : fl_error_set(FL_ENOTFOUND, "store %s: no run %lld", st->path,
					 (long long)id);
	row->id = fl_stmt_column_int64(stmt, 0);
	row->machine_id = fl_stmt_column_int64(stmt, 1);
	row->build_id = fl_stmt_column_int64(stmt, 2);
	row->commit_id = fl_stmt_column_int64(stmt, 3);
	row->benchmark = fl_store_column_dup(stmt, 4);
	row->status = fl_store_column_dup(stmt, 5);
	row->detail = fl_store_column_dup(stmt, 6);
	row->label = fl_store_column_dup(stmt, 7);
	row->domain = fl_store_column_dup(stmt, 8);
	row->accel = fl_store_column_dup(stmt, 9);
	row->kernel_release = fl_store_column_dup(stmt, 10);
	row->console_path = fl_store_column_dup(stmt, 11);
	row->kernel_image = fl_store_column_dup(stmt, 12);
	row->nodes = fl_stmt_column_int(stmt, 13);
	row->cpus = fl_stmt_column_int(stmt, 14);
	row->created_ms = fl_stmt_column_int64(stmt, 15);
	row->agent_ms = fl_stmt_column_int64(stmt, 16);
	row->first_sample_ms = fl_stmt_column_int64(stmt, 17);
	row->ended_ms = fl_stmt_column_int64(stmt, 18);
	row->machine_facts = fl_store_column_dup(stmt, 19);
	fl_stmt_finalize(stmt);
	return 0;
}

void fl_store_run_row_release(struct fl_run_row *row)
{
	free(row->benchmark);
	free(row->status);
	free(row->detail);
	free(row->label);
	free(row->domain);
	free(row->accel);
	free(row->kernel_release);
	free(row->console_path);
	free(row->kernel_image);
	free(row->machine_facts);
	memset(row, 0, sizeof(*row));
}

int fl_store_run_samples(fl_store *st, int64_t id, struct fl_sample_row **out, size_t *n)
{
	struct fl_sample_row *v = NULL;
	size_t len = 0, cap = 0;
	fl_stmt *stmt;
	char *status;
	int r, rc;

	*out = NULL;
	*n = 0;
	if ((r = fl_store_run_status(st, id, &status)))
		return r;
	if (strcmp(status, "ok")) {
		r = fl_error_set(FL_EINVAL, "run %lld is %s: its samples are not used",
				 (long long)id, status);
		free(status);
		return r;
	}
	free(status);
	if (fl_store_prepare(
		st, &stmt,
		"SELECT metric, mode, tasks, seq, value, cgroup FROM samples WHERE run_id = ?1 "
		"ORDER BY metric, mode, tasks, cgroup, seq"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		if (len == cap) {
			cap = cap ? 2 * cap : 64;
			v = fl_xrealloc(v, cap * sizeof(*v));
		}
		v[len].metric = fl_store_column_dup(stmt, 0);
		v[len].mode = fl_store_column_dup(stmt, 1);
		v[len].tasks = (unsigned)fl_stmt_column_int(stmt, 2);
		v[len].seq = (unsigned)fl_stmt_column_int(stmt, 3);
		v[len].value = fl_stmt_column_double(stmt, 4);
		v[len].cgroup = fl_store_column_dup(stmt, 5);
		len++;
	}
	fl_stmt_finalize(stmt);
	if (rc != FL_SQL_DONE) {
		fl_store_samples_free(v, len);
		return fl_store_sqlerr(st, "read samples");
	}
	*out = v;
	*n = len;
	return 0;
}

void fl_store_samples_free(struct fl_sample_row *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(s[i].metric);
		free(s[i].mode);
		free(s[i].cgroup);
	}
	free(s);
}

int fl_store_commit_runs(fl_store *st, const char *sha, const char *benchmark, const char *machine,
			 int64_t **ids, size_t *n)
{
	fl_stmt *stmt;
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*n = 0;
	if (fl_store_prepare(
		st, &stmt,
		FL_RUNS_OF_COMMIT("SELECT id FROM commits WHERE sha = ?1",
				  "x.benchmark = ?2 AND x.machine_id = (SELECT id FROM "
				  "machines WHERE name = ?3) AND +x.status = 'ok'") " ORDER BY 1"))
		return FL_ESTORE;
	fl_stmt_bind_text(stmt, 1, sha);
	fl_stmt_bind_text(stmt, 2, benchmark);
	fl_stmt_bind_text(stmt, 3, machine);
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		if (*n == cap)
			*ids = fl_xrealloc(*ids, (cap = cap ? 2 * cap : 16) * sizeof(**ids));
		(*ids)[(*n)++] = fl_stmt_column_int64(stmt, 0);
	}
	fl_stmt_finalize(stmt);
	if (rc != FL_SQL_DONE) {
		free(*ids);
		*ids = NULL;
		*n = 0;
		return fl_store_sqlerr(st, "runs of a commit");
	}
	return 0;
}

int fl_store_run_info(fl_store *st, int64_t id, struct fl_run_info_row *out)
{
	fl_stmt *stmt;
	int rc;

	memset(out, 0, sizeof(*out));
	if (fl_store_prepare(st, &stmt,
			     "SELECT r.benchmark, m.name, r.status FROM runs r "
			     "JOIN machines m ON m.id = r.machine_id WHERE r.id = ?1"))
		return FL_ESTORE;
	fl_stmt_bind_int64(stmt, 1, id);
	if ((rc = fl_store_row(st, stmt, "run info")) <= 0)
		return rc ? rc : fl_error_set(FL_ENOTFOUND, "no run %lld", (long long)id);
	out->benchmark = fl_store_column_dup(stmt, 0);
	out->machine = fl_store_column_dup(stmt, 1);
	out->status = fl_store_column_dup(stmt, 2);
	fl_stmt_finalize(stmt);
	return 0;
}

void fl_store_run_info_release(struct fl_run_info_row *ri)
{
	free(ri->benchmark);
	free(ri->machine);
	free(ri->status);
	memset(ri, 0, sizeof(*ri));
}

int fl_store_runs_in_flight(fl_store *st, struct fl_run_owner **out, size_t *n)
{
	struct fl_run_owner *v = NULL;
	size_t len = 0;
	fl_stmt *stmt;
	int rc;

	*out = NULL;
	*n = 0;
	if (fl_store_prepare(
		st, &stmt,
		"SELECT id, coalesce(owner_host, ''), coalesce(owner_pid, 0) FROM runs "
		"WHERE status = 'running' ORDER BY id"))
		return FL_ESTORE;
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		v = fl_xrealloc(v, (len + 1) * sizeof(*v));
		v[len].id = fl_stmt_column_int64(stmt, 0);
		v[len].host = fl_store_column_dup(stmt, 1);
		v[len].pid = fl_stmt_column_int(stmt, 2);
		len++;
	}
	fl_stmt_finalize(stmt);
	if (rc != FL_SQL_DONE) {
		fl_store_run_owners_free(v, len);
		return fl_store_sqlerr(st, "runs in flight");
	}
	*out = v;
	*n = len;
	return 0;
}

void fl_store_run_owners_free(struct fl_run_owner *o, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(o[i].host);
	free(o);
}

int fl_store_run_abandon(fl_store *st, int64_t id, const char *why)
{
	struct fl_run_end e = {.status = "infra-error", .detail = why};

	return fl_store_run_end(st, id, &e);
}
