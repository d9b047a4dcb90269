/*
 * machine.c - the backends' table (one line per backend) and
 * fl_machine_run(), which checks a request and hands it to the machine's
 * backend; and what every backend shares: the run's status names, its
 * first rows in the store, stale runs, the kernel machines' kernel, job
 * and initramfs, and the following of a run to its stored end.
 */
#include "machine/machine.h"
#include "machine/priv.h"
#include "analysis/compare.h"
#include "lib/buf.h"
#include "config/config.h"
#include "build/build.h"
#include "machine/console.h"
#include "lib/error.h"
#include "machine/evidence.h"
#include "lib/fs.h"
#include "machine/guest.h"
#include "build/initramfs.h"
#include "lib/log.h"
#include "proto/jobline.h"
#include "lib/time.h"
#include "store/run.h"

#include <errno.h>
#include <jansson.h>
#include <libgen.h>
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
	if (!req->cfg || !req->machine || !req->bench || !req->store)
		return fl_error_set(FL_EINVAL, "a run needs a configuration, a machine, a "
					       "benchmark and a store");
	if ((r = fl_machine_ops_of(req->cfg, req->machine, &ops)))
		return r;
	if (fl_machine_own_kernel(req->machine)) {
		if (req->kernel_image || req->rev)
			return fl_error_set(FL_EINVAL,
					    "machine '%s' measures the box's own kernel (boot: "
					    "current): a run takes no revision or kernel image",
					    req->machine->name);
	} else if (!req->kernel_image == !req->rev)
		return fl_error_set(FL_EINVAL, "a run takes a revision or a kernel image, not %s",
				    req->rev ? "both" : "neither");
	return ops->run(req, res);
}

void fl_run_result_release(struct fl_run_result *res)
{
	free(res->detail);
	res->detail = NULL;
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
	if (!r)
		r = fl_build_commit_depth(req->store, req->repo, c.sha, *commit_id);
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

static char *params_json(const struct fl_run_req *req)
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
	rn = (struct fl_run_new){machine_id,	   build_id,   commit_id,
				 req->bench->name, params,     req->kernel_image,
				 req->system_map,  req->label, req->job_id};
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

/* Two optional strings that are equal (or both absent). */
static int same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
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
	return r ? r : ended;
}

/* ---- kernel machines: the kernel, the job, the initramfs ------------------ */

static int file_exists(const char *path)
{
	return path && !access(path, R_OK);
}

/*
 * A file next to a kernel image: <dir>/<plain> (faultline's artifacts,
 * bzImage with config and System.map) or <dir>/<prefix>-<version> for a
 * distribution's vmlinuz-<version>. NULL when neither exists.
 */
static char *beside_image(const char *image, const char *plain, const char *prefix)
{
	char *copy = fl_xstrdup(image), *dir = dirname(copy), *path;
	const char *base = strrchr(image, '/') ? strrchr(image, '/') + 1 : image;
	const char *dash = strchr(base, '-');

	path = fl_xasprintf("%s/%s", dir, plain);
	if (!file_exists(path) && dash) {
		free(path);
		path = fl_xasprintf("%s/%s%s", dir, prefix, dash);
	}
	if (!file_exists(path)) {
		free(path);
		path = NULL;
	}
	free(copy);
	return path;
}

/* 1 when the kernel's .config has CONFIG_PROFILING=y: boot it with profile=2. */
static int has_profiling(const char *config)
{
	char line[256];
	FILE *f = config ? fopen(config, "r") : NULL;
	int yes = 0;

	if (!f)
		return 0;
	while (!yes && fgets(line, sizeof(line), f))
		yes = !strcmp(line, "CONFIG_PROFILING=y\n");
	fclose(f);
	return yes;
}

/* The prebuilt image: absolute paths, its config and System.map when beside it. */
static int prebuilt(const struct fl_run_req *req, struct fl_machine_kernel *x)
{
	char abs[PATH_MAX], *config;

	if (!realpath(req->kernel_image, abs))
		return fl_error_set(FL_EINVAL, "kernel image %s: %s", req->kernel_image,
				    strerror(errno));
	x->image = fl_xstrdup(abs);
	if (req->system_map && !realpath(req->system_map, abs))
		return fl_error_set(FL_EINVAL, "System.map %s: %s", req->system_map,
				    strerror(errno));
	x->system_map =
	    req->system_map ? fl_xstrdup(abs) : beside_image(x->image, "System.map", "System.map");
	config = beside_image(x->image, "config", "config");
	x->profile = has_profiling(config);
	free(config);
	return 0;
}

/* 1 when the commit does not build (res filled: untestable), 0 built, or an error. */
static int build_kernel(const struct fl_run_req *req, struct fl_run_result *res,
			struct fl_machine_kernel *x, int64_t *commit_id)
{
	const struct fl_kernel_conf *k =
	    req->bench->kernel ? fl_config_kernel(req->cfg, req->bench->kernel) : NULL;
	struct fl_build_result b;
	char abs[PATH_MAX];
	int r;

	if (!k)
		return fl_error_set(FL_EINVAL, "benchmark '%s' names no kernel to build",
				    req->bench->name);
	if (!req->repo)
		return fl_error_set(FL_EINVAL, "a run of revision %s needs its tree", req->rev);
	struct fl_build_req breq = {req->cfg, req->repo, req->tree ? req->tree->url : NULL,
				    req->rev, k,	 req->store};

	if ((r = fl_build(&breq, &b)))
		return r;
	res->build_id = b.build_id;
	if (b.failed) {
		res->status = FL_RUN_UNTESTABLE;
		res->detail = fl_xasprintf("build-failed: %s", b.error ? b.error : "make failed");
		fl_build_result_release(&b);
		return 1;
	}
	r = fl_machine_commit_row(req, b.sha, commit_id);
	if (!r && !realpath(b.artifact, abs))
		r = fl_error_set(FL_EIO, "artifact %s: %s", b.artifact, strerror(errno));
	if (!r) {
		char *config = fl_xasprintf("%s/config", abs);

		x->image = fl_xasprintf("%s/bzImage", abs);
		x->system_map = fl_xasprintf("%s/System.map", abs);
		x->profile = has_profiling(config);
		free(config);
	}
	fl_build_result_release(&b);
	return r;
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


/*
 * How many times slower than its own clock a guest's job runs: under TCG
 * (or auto, which may come to it) each vCPU is a host thread, so 8 vCPUs on
 * 2 host cores do everything outside the measured seconds (starting tasks,
 * installing the lock tracing, which stops every vCPU to patch kernel
 * text) about 4 times slower. 1 for KVM, bare metal and commands.
 */
static long guest_slowdown(const struct fl_machine_conf *m)
{
	long host = sysconf(_SC_NPROCESSORS_ONLN), cpus;

	if (!m || !fl_config_machine_kernel(m) || strcmp(m->backend, "libvirt") ||
	    (m->accel && !strcmp(m->accel, "kvm")) || host < 1)
		return 1;
	cpus = (long)fl_config_machine_cpus(m);
	return cpus > host ? (cpus + host - 1) / host : 1;
}

/* The agent's watchdog: twice what the job should take, and room to
 * start, times the guest's slowdown. */
long fl_machine_watchdog_s(const struct fl_run_req *req)
{
	const struct fl_benchmark_conf *b = req->bench;
	long per_point = seconds_up(b->warmup_ms) + seconds_up(b->duration_ms) + POINT_SETUP_S;

	return (2 * (long)fl_machine_points(b) * per_point + 30) * guest_slowdown(req->machine);
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

void fl_machine_kernel_release(struct fl_machine_kernel *k)
{
	if (k->initrd)
		unlink(k->initrd);
	free(k->image);
	free(k->system_map);
	free(k->job);
	free(k->dir);
	free(k->initrd);
	memset(k, 0, sizeof(*k));
}

int fl_machine_kernel_start(const struct fl_run_req *req, struct fl_run_result *res,
			    struct fl_machine_kernel *k, int64_t *run_id)
{
	int64_t commit_id = 0;
	int r;

	memset(k, 0, sizeof(*k));
	*run_id = 0;
	if (!req->bench->test)
		return fl_error_set(FL_EINVAL, "benchmark '%s' names no test for machine '%s'",
				    req->bench->name, req->machine->name);
	r = req->kernel_image ? prebuilt(req, k) : build_kernel(req, res, k, &commit_id);
	if (r == 0 && !(r = fl_machine_job(req, &k->job))) {
		struct fl_run_req with_map = *req;

		/* The run row keeps the System.map found beside a prebuilt image. */
		if (req->kernel_image)
			with_map.system_map = k->system_map;
		r = fl_machine_run_start(&with_map, res->build_id, commit_id, run_id);
	}
	if (r == 0)
		res->run_id = *run_id;
	return r;
}

int fl_machine_run_dir(const struct fl_run_req *req, int64_t run_id, char **dir)
{
	char *rel = fl_xasprintf("%s/runs/%lld", req->cfg->var, (long long)run_id);
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

int fl_machine_initramfs(const struct fl_run_req *req, int64_t run_id, struct fl_machine_kernel *k)
{
	char *agent = NULL;
	int r = fl_machine_run_dir(req, run_id, &k->dir);

	if (r)
		return r;
	k->initrd = fl_xasprintf("%s/initrd.cpio", k->dir);
	if ((r = fl_machine_agent_path(&agent)))
		return r;
	/* Plain cpio: every kernel with BLK_DEV_INITRD reads it, compressed or not. */
	r = fl_initramfs_agent(k->initrd, agent, k->job, 0);
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

	if (!w->agent_mono && !w->replay) {
		w->agent_mono = fl_mono_ms();
		fl_info("%s: agent started after %.1f s", w->name,
			(double)(w->agent_mono - w->mono0) / 1000);
	}
	if (fl_store_run_record_add(w->req->store, w->run_id, seq, type, json, len)) {
		fl_run_watch_store_error(w, FL_ESTORE);
		return FL_ESTORE;
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
		       struct fl_run_result *res, int64_t run_id)
{
	struct fl_console_expect expect = {req->bench->test, fl_machine_points(req->bench)};
	struct fl_console_hooks hooks = {on_record, on_point, w};

	memset(w, 0, sizeof(*w));
	w->req = req;
	w->res = res;
	w->run_id = run_id;
	w->name = fl_machine_run_name(req, run_id);
	w->console = fl_console_new(&expect, &hooks);
}

void fl_run_watch_begin(struct fl_run_watch *w)
{
	w->wall0 = fl_wall_ms();
	w->mono0 = fl_mono_ms();
}

void fl_run_watch_store_error(struct fl_run_watch *w, int code)
{
	if (w->store_error)
		return;
	w->store_error = code;
	w->store_message = fl_xstrdup(fl_error_last());
}

void fl_run_watch_feed(struct fl_run_watch *w, const char *data, size_t len)
{
	/* After a store error the records are no longer kept; the end says why. */
	if (!w->store_error)
		fl_console_feed(w->console, data, len);
}

static int64_t wall_at(const struct fl_run_watch *w, int64_t mono)
{
	return mono ? w->wall0 + (mono - w->mono0) : 0;
}

int fl_run_watch_finish(struct fl_run_watch *w, enum fl_run_status st, char *detail)
{
	const struct fl_console_seen *seen = fl_console_seen(w->console);
	struct fl_run_end e = {0};
	char *tail = fl_console_tail(w->console);
	int64_t now = fl_mono_ms();
	size_t n = 0;
	const struct fl_sample *s = fl_console_samples(w->console, &n);
	int r;

	e.status = fl_run_status_name(st);
	e.detail = detail;
	e.console_tail = tail;
	e.nodes = seen->nodes;
	e.cpus = seen->cpus;
	e.kernel_release = seen->kernel;
	e.agent_ms = wall_at(w, w->agent_mono);
	e.first_sample_ms = wall_at(w, w->first_mono);
	e.ended_ms = w->mono0 ? wall_at(w, now) : fl_wall_ms();
	if (st == FL_RUN_OK) {
		e.samples = s;
		e.nsamples = n;
	}
	r = fl_store_run_end(w->req->store, w->run_id, &e);
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
		fl_info("%s: %s%s%s", w->name, e.status, detail ? ": " : "", detail ? detail : "");
	free(tail);
	return r;
}

int fl_run_watch_infra(struct fl_run_watch *w, const char *what)
{
	return fl_run_watch_finish(w, FL_RUN_INFRA_ERROR,
				   fl_xasprintf("%s: %s", what, fl_error_last()));
}

/*
 * The run's vmstat rates and profiles per point from its stored records,
 * named with the kernel's System.map; where that is Debian's placeholder,
 * with the kernel's own names (its "ksyms" record). The samples decide the
 * run's status: evidence that cannot be made is a warning, never a failed run.
 */
static void store_evidence(struct fl_run_watch *w)
{
	char **json, *why = NULL;
	size_t *lens, n;
	int r = fl_store_run_records(w->req->store, w->run_id, &json, &lens, &n);

	if (!r && n)
		r = fl_run_evidence_store(w->req->store, w->run_id, (const char *const *)json, lens,
					  n, w->system_map, &why);
	if (r)
		fl_warn("%s: no evidence stored: %s", w->name, fl_error_last());
	else if (why)
		fl_info("%s: evidence: %s", w->name, why);
	fl_store_run_records_free(json, lens, n);
	free(why);
}

int fl_run_watch_end(struct fl_run_watch *w, int passed, int64_t deadline_ms, const char *note)
{
	int r;

	char *detail;
	enum fl_run_status st;

	if (w->store_error) {
		/* Try to end the run; the store's trouble is the caller's error either way. */
		fl_run_watch_finish(w, FL_RUN_INFRA_ERROR,
				    fl_xasprintf("store: %s", w->store_message));
		return fl_error_set(w->store_error, "%s", w->store_message);
	}
	if (fl_console_finish(w->console))
		return fl_run_watch_infra(w, "store");
	st = fl_console_classify(w->console, passed, deadline_ms, &detail);
	if (st != FL_RUN_OK && note && *note) {
		char *both = fl_xasprintf("%s; %s", detail ? detail : "", note);

		free(detail);
		detail = both;
	}
	if (!(r = fl_run_watch_finish(w, st, detail)))
		store_evidence(w);
	return r;
}

void fl_run_watch_release(struct fl_run_watch *w)
{
	fl_console_free(w->console);
	free(w->name);
	free(w->store_message);
	memset(w, 0, sizeof(*w));
}
