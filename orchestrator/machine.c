/*
 * machine.c - fl_machine_run() dispatches to the machine's backend (one
 * line per backend in the table below), and what every backend shares: the
 * run's status names, its first rows in the store, signals, stale runs.
 */
#include "machine.h"
#include "machine-priv.h"
#include "buf.h"
#include "config.h"
#include "error.h"
#include "guest.h"
#include "log.h"
#include "store-run.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct {
	const char *name;
	int (*run)(const struct fl_run_req *req, struct fl_run_result *res);
} backends[] = {
	{"libvirt", fl_machine_libvirt_run},
	{"command", fl_machine_command_run},
};

static const char *const status_names[] = {
	[FL_RUN_OK] = "ok",
	[FL_RUN_BOOT_FAILED] = "boot-failed",
	[FL_RUN_PANIC] = "panic",
	[FL_RUN_TIMEOUT] = "timeout",
	[FL_RUN_AGENT_ERROR] = "agent-error",
	[FL_RUN_INFRA_ERROR] = "infra-error",
	[FL_RUN_UNTESTABLE] = "untestable",
};

const char *fl_run_status_name(enum fl_run_status s)
{
	return (unsigned)s < sizeof(status_names) / sizeof(status_names[0]) ? status_names[s]
									    : "unknown";
}

int fl_run_status_parse(const char *name, enum fl_run_status *s)
{
	for (unsigned i = 0; i < sizeof(status_names) / sizeof(status_names[0]); i++)
		if (!strcmp(name, status_names[i])) {
			*s = (enum fl_run_status)i;
			return 0;
		}
	return fl_error_set(FL_EINVAL, "unknown run status '%s'", name);
}

int fl_machine_run(const struct fl_run_req *req, struct fl_run_result *res)
{
	memset(res, 0, sizeof(*res));
	res->agent_ms = res->first_sample_ms = res->total_ms = -1;
	if (!req->cfg || !req->machine || !req->bench || !req->store)
		return fl_error_set(FL_EINVAL, "a run needs a configuration, a machine, a "
					       "benchmark and a store");
	if (!req->kernel_image == !req->rev)
		return fl_error_set(FL_EINVAL, "a run takes a revision or a kernel image, not %s",
				    req->rev ? "both" : "neither");
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (!strcmp(req->machine->backend, backends[i].name))
			return backends[i].run(req, res);
	return fl_error_set(FL_EINVAL, "machine '%s': backend '%s' is not in this faultline",
			    req->machine->name, req->machine->backend);
}

void fl_run_result_release(struct fl_run_result *res)
{
	free(res->detail);
	res->detail = NULL;
}

void fl_machine_catch_signals(void)
{
	fl_guest_catch_signals();
}

int fl_machine_interrupted(void)
{
	return fl_guest_interrupted();
}

int64_t fl_machine_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t fl_machine_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int fl_machine_commit_row(const struct fl_run_req *req, const char *sha, int64_t *commit_id)
{
	struct fl_repo_commit c;
	struct fl_commit_info ci;
	int64_t tree_id;
	int r;

	if ((r = fl_repo_commit(req->repo, sha, &c)))
		return r;
	ci = (struct fl_commit_info){c.sha, c.subject, c.author, c.time};
	r = fl_store_tree_ensure(req->store, fl_repo_name(req->repo),
				 req->tree && req->tree->url ? req->tree->url : "", &tree_id);
	if (!r)
		r = fl_store_commit_ensure(req->store, tree_id, &ci, commit_id);
	fl_repo_commit_release(&c);
	return r;
}

char *fl_machine_tasks_list(const struct fl_benchmark_conf *b)
{
	fl_buf out = FL_BUF_INIT;

	for (size_t i = 0; i < b->ntasks; i++)
		fl_buf_addf(&out, "%s%u%s", i ? "," : "", b->tasks[i].value,
			    b->tasks[i].percent ? "%" : "");
	return fl_buf_detach(&out);
}

static char *params_json(const struct fl_run_req *req)
{
	const struct fl_benchmark_conf *b = req->bench;
	json_t *o = json_object(), *modes = json_array(), *extra = json_array();
	char *tasks = fl_machine_tasks_list(b), *s, *copy;

	for (size_t i = 0; i < b->nmodes; i++)
		json_array_append_new(modes, json_string(b->modes[i]));
	for (const char *const *e = req->job_extra; e && *e; e++)
		json_array_append_new(extra, json_string(*e));
	json_object_set_new(o, "test", b->test ? json_string(b->test) : json_null());
	json_object_set_new(o, "modes", modes);
	json_object_set_new(o, "tasks", json_string(tasks));
	json_object_set_new(o, "warmup_ms", json_integer(b->warmup_ms));
	json_object_set_new(o, "duration_ms", json_integer(b->duration_ms));
	json_object_set_new(o, "memory_per_task", json_integer((json_int_t)b->memory_per_task));
	json_object_set_new(o, "placement", json_string(b->placement));
	if (req->rev)
		json_object_set_new(o, "rev", json_string(req->rev));
	if (req->tree)
		json_object_set_new(o, "tree", json_string(req->tree->name));
	if (b->kernel && !req->kernel_image)
		json_object_set_new(o, "kernel", json_string(b->kernel));
	if (json_array_size(extra))
		json_object_set(o, "job_extra", extra);
	json_decref(extra);
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	free(tasks);
	copy = fl_xstrdup(s ? s : "{}");
	free(s);
	return copy;
}

int fl_machine_run_start(const struct fl_run_req *req, int64_t build_id, int64_t commit_id,
			 int64_t *run_id)
{
	struct fl_run_new rn = {0};
	int64_t machine_id;
	char *params;
	int r;

	if ((r = fl_store_machine_ensure(req->store, req->machine->name, req->machine->backend,
					 &machine_id)))
		return r;
	params = params_json(req);
	rn = (struct fl_run_new){machine_id, build_id,		commit_id,	 req->bench->name,
				 params,     req->kernel_image, req->system_map, req->label,
				 req->job_id};
	r = fl_store_run_start(req->store, &rn, run_id);
	free(params);
	return r;
}

char *fl_machine_run_name(const struct fl_run_req *req, int64_t run_id)
{
	return req->label ? fl_xasprintf("run %lld (%s)", (long long)run_id, req->label)
			  : fl_xasprintf("run %lld", (long long)run_id);
}

int fl_machine_process_gone(int pid)
{
	return pid > 0 && kill(pid, 0) && errno == ESRCH;
}

int fl_machine_reap_stale(const struct fl_config *cfg, fl_store *store)
{
	struct fl_run_owner *o;
	char host[256] = "";
	size_t n;
	int r, ended = 0;

	gethostname(host, sizeof(host) - 1);
	if ((r = fl_store_runs_in_flight(store, &o, &n)))
		return r;
	for (size_t i = 0; i < n && !r; i++) {
		char *why;

		if (strcmp(o[i].host, host) || !fl_machine_process_gone(o[i].pid))
			continue;
		why = fl_xasprintf("abandoned: process %d on %s ended during the run", o[i].pid,
				   host);
		r = fl_store_run_abandon(store, o[i].id, why);
		if (r == FL_EEXISTS) /* another process reaped it first */
			r = 0;
		else if (!r) {
			fl_info("run %lld: %s", (long long)o[i].id, why);
			ended++;
		}
		free(why);
	}
	fl_store_run_owners_free(o, n);
	for (size_t i = 0; i < cfg->nmachines && !r; i++) {
		const struct fl_machine_conf *m = &cfg->machines[i];
		int seen = 0;

		if (strcmp(m->backend, "libvirt"))
			continue;
		for (size_t j = 0; j < i; j++)
			seen |= !strcmp(cfg->machines[j].backend, "libvirt") &&
				!strcmp(cfg->machines[j].uri, m->uri);
		if (!seen && fl_machine_libvirt_reap(m->uri) < 0)
			fl_warn("%s",
				fl_error_last()); /* a host that is down has nothing to reap */
	}
	return r ? r : ended;
}
