/*
 * machine.c - the backends' table (one line per backend) and
 * fl_machine_run(), which checks a request and hands it to the machine's
 * backend; and what every backend shares: the run's status names and
 * parameters, the guests of dead processes, the kernel machines' job and
 * initramfs, and the following of a run from its records to its end,
 * handed to the request's sink.
 */
#include "machine/machine.h"
#include "machine/priv.h"
#include "analysis/compare.h"
#include "lib/buf.h"
#include "config/config.h"
#include "machine/console.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "build/initramfs.h"
#include "lib/log.h"
#include "proto/jobline.h"
#include "lib/time.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Per point on top of warmup and duration: forking tasks, unmapping. */
#define POINT_SETUP_S 2

/* The backends: one line each (machine.h says what else a new one needs). */
static const struct fl_machine_ops *const backends[] = {
    &fl_machine_libvirt_ops,
    &fl_machine_command_ops,
    &fl_machine_baremetal_ops,
};
#define NBACKENDS (sizeof(backends) / sizeof(backends[0]))

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

const struct fl_machine_ops *const *fl_machine_backends(size_t *n)
{
	*n = NBACKENDS;
	return backends;
}

const struct fl_machine_ops *fl_machine_backend(const char *name)
{
	for (size_t i = 0; name && i < NBACKENDS; i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}

int fl_machine_ops_of(const struct fl_config *cfg, const struct fl_machine_conf *m,
		      const struct fl_machine_ops **ops)
{
	const char *where = cfg ? fl_config_where(cfg, &m->backend) : NULL;
	fl_buf names = FL_BUF_INIT;

	if ((*ops = fl_machine_backend(m->backend)))
		return 0;
	for (size_t i = 0; i < NBACKENDS; i++)
		fl_buf_addf(&names, "%s%s", i ? ", " : "", backends[i]->name);
	fl_error_set(FL_EINVAL,
		     "%s%smachine '%s': backend '%s' is not in this faultline (it has %s)",
		     where ? where : "", where ? ": " : "", m->name,
		     m->backend ? m->backend : "(none)", fl_buf_str(&names));
	fl_buf_free(&names);
	return FL_EINVAL;
}

void fl_machine_words(const char *backend, const char **start, const char **agent,
		      const char **facts)
{
	const struct fl_machine_ops *ops = fl_machine_backend(backend);

	*start = ops && ops->start_word ? ops->start_word : "started";
	*agent = ops && ops->agent_word ? ops->agent_word : "to the agent's first record";
	*facts = ops && ops->facts_word ? ops->facts_word : "Machine";
}

int fl_machine_own_kernel(const struct fl_machine_conf *m)
{
	const struct fl_machine_ops *ops = fl_machine_backend(m->backend);

	return ops && ops->own_kernel && ops->own_kernel(m);
}

int fl_machine_kernel(const struct fl_machine_conf *m)
{
	return fl_config_machine_kernel(m);
}

int fl_machine_run(const struct fl_run_req *req, struct fl_run_result *res)
{
	const struct fl_machine_ops *ops;
	int r;

	memset(res, 0, sizeof(*res));
	res->agent_ms = res->first_sample_ms = res->total_ms = -1;
	if (!req->cfg || !req->machine || !req->bench || !req->sink)
		return fl_error_set(FL_EINVAL, "a run needs a configuration, a machine, a "
					       "benchmark and a sink");
	if ((r = fl_machine_ops_of(req->cfg, req->machine, &ops)))
		return r;
	if (fl_machine_kernel(req->machine) && !req->job)
		return fl_error_set(FL_EINVAL, "a run on machine '%s' needs the agent's job",
				    req->machine->name);
	if (fl_machine_kernel(req->machine) && !fl_machine_own_kernel(req->machine) && !req->kernel)
		return fl_error_set(FL_EINVAL, "a run on machine '%s' needs a kernel to boot",
				    req->machine->name);
	if (ops->agent_api && !req->boxes)
		return fl_error_set(FL_EINVAL, "a run on machine '%s' needs the box queue",
				    req->machine->name);
	res->run_id = req->run_id;
	return ops->run(req, res);
}

void fl_run_result_release(struct fl_run_result *res)
{
	free(res->detail);
	res->detail = NULL;
}

char *fl_machine_tasks_list(const struct fl_benchmark_conf *b)
{
	fl_buf out = FL_BUF_INIT;

	for (size_t i = 0; i < b->ntasks; i++)
		fl_buf_addf(&out, "%s%u%s", i ? "," : "", b->tasks[i].value,
			    b->tasks[i].percent ? "%" : "");
	return fl_buf_detach(&out);
}

/* The cgroup contexts as the job line lists them: NULL when the root is the only one. */
static char *cgroups_list(const struct fl_benchmark_conf *b)
{
	fl_buf out = FL_BUF_INIT;
	int child = 0;

	for (size_t i = 0; i < b->ncgroups; i++) {
		fl_buf_addf(&out, "%s%s", i ? "," : "", b->cgroups[i]);
		child |= !!*fl_cgroup_key(b->cgroups[i]);
	}
	if (!child)
		fl_buf_free(&out);
	return child ? fl_buf_detach(&out) : NULL;
}

/* The benchmark's parameters as its job has them, with the revision and the tree. */
static char *bench_params(const struct fl_run_req *req)
{
	const struct fl_benchmark_conf *b = req->bench;
	json_t *o = json_object(), *modes = json_array(), *extra = json_array();
	char *tasks = fl_machine_tasks_list(b), *s, *copy, *cg;

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
	if ((cg = cgroups_list(b))) {
		json_object_set_new(o, "cgroup", json_string(cg));
		json_object_set_new(o, "cgroup_version",
				    json_string(b->cgroup_version ? b->cgroup_version : "v2"));
		if (b->memory_max)
			json_object_set_new(o, "memory_max", json_integer((json_int_t)b->memory_max));
		if (b->memory_high)
			json_object_set_new(o, "memory_high",
					    json_integer((json_int_t)b->memory_high));
		free(cg);
	}
	if (req->rev)
		json_object_set_new(o, "rev", json_string(req->rev));
	if (req->tree)
		json_object_set_new(o, "tree", json_string(req->tree->name));
	if (b->kernel && !(req->kernel && req->kernel->prebuilt))
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

char *fl_machine_params(const struct fl_run_req *req)
{
	const struct fl_machine_ops *ops = fl_machine_backend(req->machine->backend);

	return ops && ops->params ? ops->params(req) : bench_params(req);
}

char *fl_machine_run_name(const char *label, int64_t run_id)
{
	return label ? fl_xasprintf("run %lld (%s)", (long long)run_id, label)
		     : fl_xasprintf("run %lld", (long long)run_id);
}

int fl_machine_process_gone(int pid)
{
	return pid > 0 && kill(pid, 0) && errno == ESRCH;
}

/* Two optional strings that are equal (or both absent). */
static int same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

void fl_machine_reap(const struct fl_config *cfg)
{
	for (size_t i = 0; i < cfg->nmachines; i++) {
		const struct fl_machine_conf *m = &cfg->machines[i];
		const struct fl_machine_ops *ops = fl_machine_backend(m->backend);
		int seen = 0;

		if (!ops || !ops->reap)
			continue;
		for (size_t j = 0; j < i; j++)
			seen |= fl_machine_backend(cfg->machines[j].backend) == ops &&
				!strcmp(cfg->machines[j].uri, m->uri) &&
				same(cfg->machines[j].pool, m->pool);
		/* a host that is down has nothing to reap */
		if (!seen && ops->reap(m) < 0)
			fl_warn("%s", fl_error_last());
	}
}

/* ---- kernel machines: the job and the initramfs ------------------------- */

static int file_exists(const char *path)
{
	return path && !access(path, R_OK);
}

/* fl-agent-static: $FL_AGENT, or where the build tree or an install puts it. */
int fl_machine_agent_path(char **out)
{
	static const char *const rel[] = {"../agents/fl-agent-static", "fl-agent-static",
					  FL_BIN_TO_LIBEXEC "/fl-agent-static"};
	char exe[PATH_MAX];
	ssize_t n;

	*out = NULL;
	if (getenv("FL_AGENT")) {
		if (!file_exists(getenv("FL_AGENT")))
			return fl_error_set(FL_ENOTFOUND, "FL_AGENT=%s: no such file",
					    getenv("FL_AGENT"));
		*out = fl_xstrdup(getenv("FL_AGENT"));
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
			char *p = fl_xasprintf("%s/%s", exe, rel[i]);

			if (file_exists(p)) {
				*out = p;
				return 0;
			}
			free(p);
		}
	}
	return fl_error_set(FL_ENOTFOUND,
			    "cannot find fl-agent-static next to %s (build it, or "
			    "set FL_AGENT)",
			    n > 0 ? exe : "faultline");
}

/* Whole seconds, rounded up: the agent's job counts in seconds. */
static long seconds_up(int64_t ms)
{
	return (long)((ms + 999) / 1000);
}

unsigned fl_machine_points(const struct fl_benchmark_conf *b)
{
	return (unsigned)(b->nmodes * b->ntasks * (b->ncgroups ? b->ncgroups : 1));
}

long fl_machine_slowdown(const struct fl_machine_conf *m)
{
	const struct fl_machine_ops *ops = m ? fl_machine_backend(m->backend) : NULL;

	return ops && ops->slowdown ? ops->slowdown(m) : 1;
}

/* The agent's watchdog: twice what the job should take, and room to
 * start, times the guest's slowdown. */
long fl_machine_watchdog_s(const struct fl_run_req *req)
{
	const struct fl_benchmark_conf *b = req->bench;
	long per_point = seconds_up(b->warmup_ms) + seconds_up(b->duration_ms) + POINT_SETUP_S;

	return (2 * (long)fl_machine_points(b) * per_point + 30) *
	       fl_machine_slowdown(req->machine);
}

/* The job as fl.job= carries it (proto/jobline.h). */
int fl_machine_job(const struct fl_run_req *req, char **out)
{
	const struct fl_benchmark_conf *b = req->bench;
	char *tasks = fl_machine_tasks_list(b), *cgroups;
	struct fl_jobline job = {.len = 0};
	fl_buf modes = FL_BUF_INIT;
	int bad = 0;

	*out = NULL;
	for (size_t i = 0; i < b->nmodes; i++)
		fl_buf_addf(&modes, "%s%s", i ? "," : "", b->modes[i]);
	bad |= fl_jobline_add(&job, FL_JOB_TEST, b->test);
	bad |= fl_jobline_add(&job, FL_JOB_MODE, fl_buf_str(&modes));
	bad |= fl_jobline_add(&job, FL_JOB_TASKS, tasks);
	bad |= fl_jobline_add_seconds(&job, FL_JOB_WARMUP, seconds_up(b->warmup_ms));
	bad |= fl_jobline_add_seconds(&job, FL_JOB_DURATION, seconds_up(b->duration_ms));
	bad |= fl_jobline_add_size(&job, FL_JOB_MEMORY, b->memory_per_task);
	bad |= fl_jobline_add(&job, FL_JOB_PLACEMENT, b->placement);
	if ((cgroups = cgroups_list(b))) {
		bad |= fl_jobline_add(&job, FL_JOB_CGROUP, cgroups);
		if (b->cgroup_version)
			bad |= fl_jobline_add(&job, FL_JOB_CGROUP_VERSION, b->cgroup_version);
		if (b->memory_max)
			bad |= fl_jobline_add_size(&job, FL_JOB_MEMORY_MAX, b->memory_max);
		if (b->memory_high)
			bad |= fl_jobline_add_size(&job, FL_JOB_MEMORY_HIGH, b->memory_high);
		free(cgroups);
	}
	/* The agent takes at most an hour; past that it derives its own, alike. */
	if (fl_machine_watchdog_s(req) <= FL_JOB_SECONDS_MAX)
		bad |= fl_jobline_add_seconds(&job, FL_JOB_TIMEOUT, fl_machine_watchdog_s(req));
	free(tasks);
	fl_buf_free(&modes);
	if (bad)
		return fl_error_set(FL_EINVAL,
				    "benchmark '%s': its parameters cannot be put in "
				    "the agent's job",
				    b->name);
	for (const char *const *e = req->job_extra; e && *e; e++)
		if (fl_jobline_add_item(&job, *e))
			return fl_error_set(
			    FL_EINVAL,
			    "job key '%s': expected key=value without spaces, quotes "
			    "or ';'",
			    *e);
	*out = fl_xstrdup(job.text);
	return 0;
}

void fl_machine_files_release(struct fl_machine_files *f)
{
	if (f->initrd)
		unlink(f->initrd);
	free(f->dir);
	free(f->initrd);
	memset(f, 0, sizeof(*f));
}

int fl_machine_run_dir(const struct fl_run_req *req, char **dir)
{
	char *rel = fl_xasprintf("%s/runs/%lld", req->cfg->var, (long long)req->run_id);
	char abs[PATH_MAX];
	int r = fl_mkdir_p(rel);

	*dir = NULL;
	if (!r && !realpath(rel, abs))
		r = fl_error_set(FL_EIO, "%s: %s", rel, strerror(errno));
	free(rel);
	if (!r)
		*dir = fl_xstrdup(abs);
	return r;
}

int fl_machine_initramfs(const struct fl_run_req *req, struct fl_machine_files *f)
{
	char *agent = NULL;
	int r = fl_machine_run_dir(req, &f->dir);

	if (r)
		return r;
	f->initrd = fl_xasprintf("%s/initrd.cpio", f->dir);
	if ((r = fl_machine_agent_path(&agent)))
		return r;
	/* Plain cpio: every kernel with BLK_DEV_INITRD reads it, compressed or not. */
	r = fl_initramfs_agent(f->initrd, agent, req->job, 0);
	free(agent);
	return r;
}

/* ---- following a run: records, samples, the end -------------------------- */

static void human_rate(double v, char *out, size_t n)
{
	if (v >= 1e6)
		snprintf(out, n, "%.2fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(out, n, "%.0fk", v / 1e3);
	else
		snprintf(out, n, "%.0f", v);
}

static int on_record(void *arg, uint64_t seq, const char *type, const char *json, size_t len)
{
	struct fl_run_watch *w = arg;
	const struct fl_run_sink *sink = w->req->sink;
	int r;

	if (!w->agent_mono && !w->replay) {
		w->agent_mono = fl_mono_ms();
		fl_info("%s: agent started after %.1f s", w->name,
			(double)(w->agent_mono - w->mono0) / 1000);
	}
	if ((r = sink->record(sink->arg, seq, type, json, len))) {
		fl_run_watch_sink_error(w, r);
		return r;
	}
	return 0;
}

static void on_point(void *arg, const struct fl_console_point *pt)
{
	struct fl_run_watch *w = arg;
	char ops[32], per[32];

	if (!w->first_mono && !w->replay)
		w->first_mono = fl_mono_ms();
	human_rate(pt->ops, ops, sizeof(ops));
	human_rate(pt->per_task, per, sizeof(per));
	fl_info("%s: %s %s %u task%s%s%s: %s ops/s (%s per task)", w->name, pt->test, pt->mode,
		pt->tasks, FL_S(pt->tasks), *pt->cgroup ? " in cgroup " : "", pt->cgroup, ops, per);
}

void fl_run_watch_init(struct fl_run_watch *w, const struct fl_run_req *req,
		       struct fl_run_result *res)
{
	struct fl_console_expect expect = {req->bench->test, fl_machine_points(req->bench)};
	struct fl_console_hooks hooks = {on_record, on_point, w};

	memset(w, 0, sizeof(*w));
	w->req = req;
	w->res = res;
	w->name = fl_machine_run_name(req->label, req->run_id);
	w->console = fl_console_new(&expect, &hooks);
}

void fl_run_watch_begin(struct fl_run_watch *w)
{
	w->wall0 = fl_wall_ms();
	w->mono0 = fl_mono_ms();
}

void fl_run_watch_sink_error(struct fl_run_watch *w, int code)
{
	if (w->sink_error)
		return;
	w->sink_error = code;
	w->sink_message = fl_xstrdup(fl_error_last());
}

void fl_run_watch_feed(struct fl_run_watch *w, const char *data, size_t len)
{
	/* After a sink error the records are no longer kept; the end says why. */
	if (!w->sink_error)
		fl_console_feed(w->console, data, len);
}

static int64_t wall_at(const struct fl_run_watch *w, int64_t mono)
{
	return mono ? w->wall0 + (mono - w->mono0) : 0;
}

/* The end to the sink (detail taken); evidence: the records were read to their end. */
static int finish(struct fl_run_watch *w, enum fl_run_status st, char *detail, int evidence)
{
	const struct fl_console_seen *seen = fl_console_seen(w->console);
	const struct fl_run_sink *sink = w->req->sink;
	struct fl_machine_end e = {0};
	char *tail = fl_console_tail(w->console);
	int64_t now = fl_mono_ms();
	size_t n = 0;
	const struct fl_run_sample *s = fl_console_samples(w->console, &n);
	int r;

	e.status = st;
	e.detail = detail;
	e.console = tail;
	e.nodes = seen->nodes;
	e.cpus = seen->cpus;
	e.kernel_release = seen->kernel;
	e.agent_ms = wall_at(w, w->agent_mono);
	e.first_sample_ms = wall_at(w, w->first_mono);
	e.ended_ms = w->mono0 ? wall_at(w, now) : fl_wall_ms();
	e.evidence = evidence;
	if (st == FL_RUN_OK) {
		e.samples = s;
		e.nsamples = n;
	}
	r = sink->end(sink->arg, &e);
	w->res->status = st;
	w->res->detail = detail;
	if (w->mono0) {
		w->res->agent_ms = w->agent_mono ? w->agent_mono - w->mono0 : -1;
		w->res->first_sample_ms = w->first_mono ? w->first_mono - w->mono0 : -1;
		w->res->total_ms = now - w->mono0;
	}
	if (st == FL_RUN_OK)
		fl_info("%s: ok after %.1f s", w->name, (double)w->res->total_ms / 1000);
	else
		fl_info("%s: %s%s%s", w->name, fl_run_status_name(st), detail ? ": " : "",
			detail ? detail : "");
	free(tail);
	return r;
}

int fl_run_watch_finish(struct fl_run_watch *w, enum fl_run_status st, char *detail)
{
	return finish(w, st, detail, 0);
}

int fl_run_watch_infra(struct fl_run_watch *w, const char *what)
{
	return fl_run_watch_finish(w, FL_RUN_INFRA_ERROR,
				   fl_xasprintf("%s: %s", what, fl_error_last()));
}

int fl_run_watch_end(struct fl_run_watch *w, int passed, int64_t deadline_ms, const char *note)
{
	char *detail;
	enum fl_run_status st;

	if (w->sink_error) {
		/* Try to end the run; the sink's trouble is the caller's error either way. */
		fl_run_watch_finish(w, FL_RUN_INFRA_ERROR,
				    fl_xasprintf("store: %s", w->sink_message));
		return fl_error_set(w->sink_error, "%s", w->sink_message);
	}
	if (fl_console_finish(w->console))
		return fl_run_watch_infra(w, "store");
	st = fl_console_classify(w->console, passed, deadline_ms, &detail);
	if (st != FL_RUN_OK && note && *note) {
		char *both = fl_xasprintf("%s; %s", detail ? detail : "", note);

		free(detail);
		detail = both;
	}
	return finish(w, st, detail, 1);
}

void fl_run_watch_release(struct fl_run_watch *w)
{
	fl_console_free(w->console);
	free(w->name);
	free(w->sink_message);
	memset(w, 0, sizeof(*w));
}
