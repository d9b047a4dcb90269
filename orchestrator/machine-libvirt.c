/*
 * machine-libvirt.c - the libvirt backend of fl_machine_run() (machine.h):
 * a transient NUMA guest boots the kernel under test with fl-agent as
 * /init and the job on its command line.
 *
 * One run: the kernel (built through build.h, or a prebuilt image), the
 * run row, an initramfs under var/runs/<id>/, a guest slot on the host
 * (hostslot.h), the accelerator (accel.h), admission by memory, the domain
 * (domain.h, guest.h) with its console in var/runs/<id>/console.log read as
 * it grows (console.h), every record stored as it comes, and the end
 * classified and stored with the samples of an ok run. Whatever happens,
 * the domain is destroyed before this returns.
 */
#include "machine.h"
#include "machine-priv.h"
#include "accel.h"
#include "buf.h"
#include "build.h"
#include "config.h"
#include "console.h"
#include "domain.h"
#include "error.h"
#include "evidence.h"
#include "fs.h"
#include "guest.h"
#include "hostslot.h"
#include "initramfs.h"
#include "log.h"
#include "store-run.h"

#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ACCEL_PROBE_MS 15000
#define MEMORY_WAIT_MS (60 * 60 * 1000)
/* Per point on top of warmup and duration: forking tasks, unmapping. */
#define POINT_SETUP_S 2

struct lv_run {
	const struct fl_run_req *req;
	struct fl_run_result *res;
	int64_t run_id;
	char *name; /* "run 12" */
	char *dir;  /* var/runs/12, absolute: libvirtd opens the files */
	char *kernel, *system_map, *initrd, *console_path, *domain, *job;
	int profile;
	const char *accel;
	int64_t deadline_ms;
	fl_hostslot *slot;
	fl_guest *guest;
	fl_console *console;
	int64_t mono0, wall0, agent_mono, first_mono;
	int store_error;
	char *store_message;
};

/* ---- the kernel ------------------------------------------------------ */

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
static int prebuilt(struct lv_run *x)
{
	const struct fl_run_req *req = x->req;
	char abs[PATH_MAX], *config;

	if (!realpath(req->kernel_image, abs))
		return fl_error_set(FL_EINVAL, "kernel image %s: %s", req->kernel_image,
				    strerror(errno));
	x->kernel = fl_xstrdup(abs);
	if (req->system_map && !realpath(req->system_map, abs))
		return fl_error_set(FL_EINVAL, "System.map %s: %s", req->system_map,
				    strerror(errno));
	x->system_map =
	    req->system_map ? fl_xstrdup(abs) : beside_image(x->kernel, "System.map", "System.map");
	config = beside_image(x->kernel, "config", "config");
	x->profile = has_profiling(config);
	free(config);
	return 0;
}

/* 1 when the commit does not build (res filled: untestable), 0 built, or an error. */
static int build_kernel(struct lv_run *x, int64_t *commit_id)
{
	const struct fl_run_req *req = x->req;
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
	x->res->build_id = b.build_id;
	if (b.failed) {
		x->res->status = FL_RUN_UNTESTABLE;
		x->res->detail =
		    fl_xasprintf("build-failed: %s", b.error ? b.error : "make failed");
		fl_build_result_release(&b);
		return 1;
	}
	r = fl_machine_commit_row(req, b.sha, commit_id);
	if (!r && !realpath(b.artifact, abs))
		r = fl_error_set(FL_EIO, "artifact %s: %s", b.artifact, strerror(errno));
	if (!r) {
		char *config = fl_xasprintf("%s/config", abs);

		x->kernel = fl_xasprintf("%s/bzImage", abs);
		x->system_map = fl_xasprintf("%s/System.map", abs);
		x->profile = has_profiling(config);
		free(config);
	}
	fl_build_result_release(&b);
	return r;
}

/* ---- the guest's files ----------------------------------------------- */

/* fl-agent-static: $FL_AGENT, or where the build tree or an install puts it. */
static int agent_path(char **out)
{
	static const char *const rel[] = {"../agents/fl-agent-static", "fl-agent-static",
					  "../libexec/faultline/fl-agent-static"};
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

static unsigned job_points(const struct fl_benchmark_conf *b)
{
	return (unsigned)(b->nmodes * b->ntasks);
}

/* The agent's watchdog: twice what the job should take, and room to start. */
static long watchdog_s(const struct fl_benchmark_conf *b)
{
	long per_point = seconds_up(b->warmup_ms) + seconds_up(b->duration_ms) + POINT_SETUP_S;

	return 2 * (long)job_points(b) * per_point + 30;
}

static void add_size(fl_buf *job, uint64_t bytes)
{
	if (bytes && !(bytes & ((1ULL << 20) - 1)))
		fl_buf_addf(job, "%lluM", (unsigned long long)(bytes >> 20));
	else if (bytes && !(bytes & 1023))
		fl_buf_addf(job, "%lluK", (unsigned long long)(bytes >> 10));
	else
		fl_buf_addf(job, "%llu", (unsigned long long)bytes);
}

/* The job as fl.job= carries it: key=value;... with no space (agents/bench.c keys). */
static int make_job(struct lv_run *x)
{
	const struct fl_benchmark_conf *b = x->req->bench;
	char *tasks = fl_machine_tasks_list(b);
	fl_buf job = FL_BUF_INIT;

	fl_buf_addf(&job, "test=%s;mode=", b->test);
	for (size_t i = 0; i < b->nmodes; i++)
		fl_buf_addf(&job, "%s%s", i ? "," : "", b->modes[i]);
	fl_buf_addf(&job, ";tasks=%s;warmup=%lds;duration=%lds;memory=", tasks,
		    seconds_up(b->warmup_ms), seconds_up(b->duration_ms));
	add_size(&job, b->memory_per_task);
	fl_buf_addf(&job, ";placement=%s", b->placement);
	/* The agent takes at most an hour; past that it derives its own, alike. */
	if (watchdog_s(b) <= 3600)
		fl_buf_addf(&job, ";timeout=%lds", watchdog_s(b));
	free(tasks);
	for (const char *const *e = x->req->job_extra; e && *e; e++) {
		if (!strchr(*e, '=') || strpbrk(*e, " \t\n;\"'")) {
			fl_buf_free(&job);
			return fl_error_set(
			    FL_EINVAL,
			    "job key '%s': expected key=value without spaces, quotes "
			    "or ';'",
			    *e);
		}
		fl_buf_addf(&job, ";%s", *e);
	}
	x->job = fl_buf_detach(&job);
	return 0;
}

static int prepare_files(struct lv_run *x)
{
	char *rel = fl_xasprintf("%s/runs/%lld", x->req->cfg->var, (long long)x->run_id);
	char abs[PATH_MAX], *agent = NULL;
	int r = fl_mkdir_p(rel);

	if (!r && !realpath(rel, abs))
		r = fl_error_set(FL_EIO, "%s: %s", rel, strerror(errno));
	free(rel);
	if (r)
		return r;
	x->dir = fl_xstrdup(abs);
	x->initrd = fl_xasprintf("%s/initrd.cpio", x->dir);
	x->console_path = fl_xasprintf("%s/console.log", x->dir);
	if ((r = agent_path(&agent)))
		return r;
	/* Plain cpio: every kernel with BLK_DEV_INITRD reads it, compressed or not. */
	r = fl_initramfs_agent(x->initrd, agent, x->job, 0);
	free(agent);
	return r;
}

/* ---- the host: slot, accelerator, memory ------------------------------ */

static int host_available(void *arg, uint64_t *avail)
{
	virConnectPtr conn = arg;
	virNodeMemoryStatsPtr st = NULL;
	unsigned long long kib = 0;
	int n = 0;

	/*
	 * Free memory alone undercounts a host that has been up a while (its
	 * page cache is reclaimable): count free, buffers and cached.
	 */
	if (!virNodeGetMemoryStats(conn, VIR_NODE_MEMORY_STATS_ALL_CELLS, NULL, &n, 0) && n > 0) {
		st = fl_xcalloc((size_t)n, sizeof(*st));
		if (!virNodeGetMemoryStats(conn, VIR_NODE_MEMORY_STATS_ALL_CELLS, st, &n, 0))
			for (int i = 0; i < n; i++)
				if (!strcmp(st[i].field, VIR_NODE_MEMORY_STATS_FREE) ||
				    !strcmp(st[i].field, VIR_NODE_MEMORY_STATS_BUFFERS) ||
				    !strcmp(st[i].field, VIR_NODE_MEMORY_STATS_CACHED))
					kib += st[i].value;
		free(st);
	}
	if (kib) {
		*avail = (uint64_t)kib << 10;
		return 0;
	}
	*avail = virNodeGetFreeMemory(conn);
	if (!*avail)
		return fl_error_set(FL_EIO, "libvirt: cannot read the free memory of the host: %s",
				    virGetLastErrorMessage());
	return 0;
}

static uint64_t guest_memory(const struct fl_machine_conf *m)
{
	return m->memory_per_node * m->sockets;
}

/* 0 admitted, 1 interrupted, FL_EINVAL for a guest bigger than the host, or trouble. */
static int admit(struct lv_run *x)
{
	const struct fl_machine_conf *m = x->req->machine;
	virConnectPtr conn = virConnectOpen(m->uri);
	virNodeInfo info;
	int r;

	if (!conn)
		return fl_error_set(FL_EIO, "libvirt: cannot connect to %s: %s", m->uri,
				    virGetLastErrorMessage());
	if (!virNodeGetInfo(conn, &info) &&
	    ((uint64_t)info.memory << 10) < guest_memory(m) + FL_HOSTSLOT_OVERHEAD)
		r = fl_error_set(FL_EINVAL, "machine '%s' needs %llu MiB; the host %s has %llu MiB",
				 m->name, (unsigned long long)(guest_memory(m) >> 20), m->uri,
				 (unsigned long long)(info.memory >> 10));
	else
		r = fl_hostslot_admit(x->slot, guest_memory(m), host_available, conn,
				      MEMORY_WAIT_MS, fl_machine_interrupted);
	virConnectClose(conn);
	return r;
}

static int resolve_accel(struct lv_run *x)
{
	const struct fl_machine_conf *m = x->req->machine;
	struct fl_accel_probe p = {m->uri, x->kernel, x->initrd, x->req->cfg->var, ACCEL_PROBE_MS};
	int probed, r;

	if ((r = fl_accel_resolve(m->accel, &p, &x->accel, &probed)))
		return r;
	fl_info("accel: %s (%s)", x->accel,
		strcmp(m->accel, "auto") ? "configured"
		: probed		 ? "probed"
					 : "remembered");
	return 0;
}

/* ---- following the guest --------------------------------------------- */

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
	struct lv_run *x = arg;

	if (!x->agent_mono) {
		x->agent_mono = fl_machine_mono_ms();
		fl_info("%s: agent started after %.1f s", x->name,
			(double)(x->agent_mono - x->mono0) / 1000);
	}
	if (fl_store_run_record_add(x->req->store, x->run_id, seq, type, json, len)) {
		x->store_error = FL_ESTORE;
		x->store_message = fl_xstrdup(fl_error_last());
		return FL_ESTORE;
	}
	return 0;
}

static void on_point(void *arg, const struct fl_console_point *pt)
{
	struct lv_run *x = arg;
	char ops[32], per[32];

	if (!x->first_mono)
		x->first_mono = fl_machine_mono_ms();
	human_rate(pt->ops, ops, sizeof(ops));
	human_rate(pt->per_task, per, sizeof(per));
	fl_info("%s: %s %s %u tasks: %s ops/s (%s per task)", x->name, pt->test, pt->mode,
		pt->tasks, ops, per);
}

static void on_console(const char *data, size_t len, void *arg)
{
	struct lv_run *x = arg;

	/* After a store error the records are no longer kept; the end says why. */
	if (!x->store_error)
		fl_console_feed(x->console, data, len);
}

static char *machine_facts(const struct lv_run *x)
{
	const struct fl_machine_conf *m = x->req->machine;
	json_t *o = json_object();
	char *s, *copy;

	json_object_set_new(o, "uri", json_string(m->uri));
	json_object_set_new(o, "sockets", json_integer(m->sockets));
	json_object_set_new(o, "cores", json_integer(m->cores));
	json_object_set_new(o, "threads", json_integer(m->threads));
	json_object_set_new(o, "vcpus",
			    json_integer((json_int_t)m->sockets * m->cores * m->threads));
	json_object_set_new(o, "memory_per_node", json_integer((json_int_t)m->memory_per_node));
	json_object_set_new(o, "accel", json_string(x->accel));
	json_object_set_new(o, "slot", json_integer(fl_hostslot_index(x->slot)));
	json_object_set_new(o, "profile", json_boolean(x->profile));
	if (m->cmdline)
		json_object_set_new(o, "cmdline", json_string(m->cmdline));
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	copy = fl_xstrdup(s ? s : "{}");
	free(s);
	return copy;
}

/* The domain's name: host and pid of its owner, so a dead owner's guest can be found. */
static char *domain_name(int64_t run_id)
{
	char host[256] = "", *key, *name;

	gethostname(host, sizeof(host) - 1);
	host[20] = '\0';
	key = fl_path_component(host);
	name = fl_xasprintf("fl-%s-%d-%lld", key, (int)getpid(), (long long)run_id);
	free(key);
	return name;
}

/* Boots and follows the guest; fills how it ended. 0, or an infra problem. */
static int boot(struct lv_run *x, enum fl_guest_end *end)
{
	struct fl_domain_spec spec = {0};
	struct fl_run_guest g = {0};
	char *facts;
	int r;

	x->domain = domain_name(x->run_id);
	spec = (struct fl_domain_spec){x->domain, x->req->machine, x->accel, x->kernel,
				       x->initrd, x->console_path, x->job,   x->profile};
	fl_info("%s: booting on %s (%u vCPUs in %u nodes, %llu MiB, %s), deadline %lld s, "
		"console %s",
		x->name, x->req->machine->name,
		x->req->machine->sockets * x->req->machine->cores * x->req->machine->threads,
		x->req->machine->sockets, (unsigned long long)(guest_memory(x->req->machine) >> 20),
		x->accel, (long long)(x->deadline_ms / 1000), x->console_path);
	x->wall0 = fl_machine_wall_ms();
	x->mono0 = fl_machine_mono_ms();
	if ((r = fl_guest_start(&x->guest, x->req->machine->uri, &spec)))
		return r;
	facts = machine_facts(x);
	g = (struct fl_run_guest){x->domain, x->accel, facts, x->console_path, x->wall0};
	r = fl_store_run_guest(x->req->store, x->run_id, &g);
	free(facts);
	if (r) {
		x->store_error = r;
		x->store_message = fl_xstrdup(fl_error_last());
	}
	r = fl_guest_wait(x->guest, x->deadline_ms, on_console, x, end);
	fl_guest_free(x->guest);
	x->guest = NULL;
	return r;
}

/* ---- the end ---------------------------------------------------------- */

static int64_t wall_at(const struct lv_run *x, int64_t mono)
{
	return mono ? x->wall0 + (mono - x->mono0) : 0;
}

static int finish(struct lv_run *x, enum fl_run_status st, char *detail)
{
	const struct fl_console_seen *seen = x->console ? fl_console_seen(x->console) : NULL;
	struct fl_run_end e = {0};
	char *tail = x->console ? fl_console_tail(x->console) : NULL;
	int64_t now = fl_machine_mono_ms();
	size_t n = 0;
	const struct fl_sample *s = x->console ? fl_console_samples(x->console, &n) : NULL;
	int r;

	e.status = fl_run_status_name(st);
	e.detail = detail;
	e.console_tail = tail;
	if (seen) {
		e.nodes = seen->nodes;
		e.cpus = seen->cpus;
		e.kernel_release = seen->kernel;
	}
	e.agent_ms = wall_at(x, x->agent_mono);
	e.first_sample_ms = wall_at(x, x->first_mono);
	e.ended_ms = x->mono0 ? wall_at(x, now) : fl_machine_wall_ms();
	if (st == FL_RUN_OK) {
		e.samples = s;
		e.nsamples = n;
	}
	r = fl_store_run_end(x->req->store, x->run_id, &e);
	x->res->status = st;
	x->res->detail = detail;
	if (x->mono0) {
		x->res->agent_ms = x->agent_mono ? x->agent_mono - x->mono0 : -1;
		x->res->first_sample_ms = x->first_mono ? x->first_mono - x->mono0 : -1;
		x->res->total_ms = now - x->mono0;
	}
	if (st == FL_RUN_OK)
		fl_info("%s: ok after %.1f s", x->name, (double)x->res->total_ms / 1000);
	else
		fl_info("%s: %s%s%s", x->name, e.status, detail ? ": " : "", detail ? detail : "");
	free(tail);
	return r;
}

/* Ends the run as infra-error with the current error message. */
static int infra(struct lv_run *x, const char *what)
{
	return finish(x, FL_RUN_INFRA_ERROR, fl_xasprintf("%s: %s", what, fl_error_last()));
}

static int64_t deadline(const struct fl_run_req *req)
{
	if (req->deadline_ms > 0)
		return req->deadline_ms;
	return req->machine->boot_timeout_ms + watchdog_s(req->bench) * 1000 + 15000;
}

/* Everything after the run row exists: the row is ended on every path. */
static int run_guest(struct lv_run *x)
{
	const struct fl_machine_conf *m = x->req->machine;
	struct fl_console_expect expect = {x->req->bench->test, job_points(x->req->bench)};
	struct fl_console_hooks hooks = {on_record, on_point, x};
	enum fl_guest_end end;
	enum fl_run_status st;
	char *detail;
	int r;

	if ((r = prepare_files(x)))
		return infra(x, "preparing the guest");
	r = fl_hostslot_acquire(&x->slot, x->req->cfg->var, m->uri, m->max_parallel, x->name,
				fl_machine_interrupted);
	if (r == 1)
		return finish(x, FL_RUN_INFRA_ERROR, fl_xstrdup("interrupted"));
	if (r)
		return infra(x, "guest slot");
	if ((r = resolve_accel(x)))
		return infra(x, "accelerator");
	r = admit(x);
	if (r == 1)
		return finish(x, FL_RUN_INFRA_ERROR, fl_xstrdup("interrupted"));
	if (r) {
		int er = infra(x, "memory");

		return r == FL_EINVAL ? FL_EINVAL : er;
	}
	x->console = fl_console_new(&expect, &hooks);
	r = boot(x, &end);
	if (x->store_error) {
		/* Try to end the run; the store's trouble is the caller's error either way. */
		finish(x, FL_RUN_INFRA_ERROR, fl_xasprintf("store: %s", x->store_message));
		return fl_error_set(x->store_error, "%s", x->store_message);
	}
	if (r)
		return infra(x, "libvirt");
	if (fl_console_finish(x->console))
		return infra(x, "store");
	if (end == FL_GUEST_INTERRUPTED)
		return finish(x, FL_RUN_INFRA_ERROR, fl_xstrdup("interrupted"));
	st = fl_console_classify(x->console, end == FL_GUEST_DEADLINE, x->deadline_ms, &detail);
	return finish(x, st, detail);
}

/*
 * The run's vmstat rates and profiles per point from its stored records,
 * named with the build's System.map or the prebuilt image's; where that is
 * Debian's placeholder, with the kernel's own names (its "ksyms" record).
 * The samples decide the run's status: evidence that cannot be made is a
 * warning, never a failed run.
 */
static void store_evidence(struct lv_run *x)
{
	char **json, *why = NULL;
	size_t *lens, n;
	int r = fl_store_run_records(x->req->store, x->run_id, &json, &lens, &n);

	if (!r && n)
		r = fl_evidence_store_run(x->req->store, x->run_id, (const char *const *)json, lens,
					  n, x->system_map, &why);
	if (r)
		fl_warn("%s: no evidence stored: %s", x->name, fl_error_last());
	else if (why)
		fl_info("%s: evidence: %s", x->name, why);
	fl_store_run_records_free(json, lens, n);
	free(why);
}

static void lv_free(struct lv_run *x)
{
	fl_guest_free(x->guest);
	fl_hostslot_release(x->slot);
	fl_console_free(x->console);
	/* The initramfs is rebuilt from the job in a moment; the console is the record. */
	if (x->initrd)
		unlink(x->initrd);
	free(x->name);
	free(x->dir);
	free(x->kernel);
	free(x->system_map);
	free(x->initrd);
	free(x->console_path);
	free(x->domain);
	free(x->job);
	free(x->store_message);
}

int fl_machine_libvirt_run(const struct fl_run_req *req, struct fl_run_result *res)
{
	struct lv_run x = {.req = req, .res = res};
	int64_t commit_id = 0;
	int r;

	if (!req->bench->test)
		return fl_error_set(FL_EINVAL, "benchmark '%s' names no test for machine '%s'",
				    req->bench->name, req->machine->name);
	r = req->kernel_image ? prebuilt(&x) : build_kernel(&x, &commit_id);
	if (r == 0 && !(r = make_job(&x))) {
		struct fl_run_req with_map = *req;

		/* The run row keeps the System.map found beside a prebuilt image. */
		if (req->kernel_image)
			with_map.system_map = x.system_map;
		r = fl_machine_run_start(&with_map, res->build_id, commit_id, &x.run_id);
	}
	if (r == 0) {
		res->run_id = x.run_id;
		x.name = fl_machine_run_name(req, x.run_id);
		x.deadline_ms = deadline(req);
		r = run_guest(&x);
		if (r == 0 && !x.store_error)
			store_evidence(&x);
	}
	lv_free(&x);
	return r == 1 ? 0 : r;
}

/* ---- guests of dead owners -------------------------------------------- */

/* The pid in "fl-<host>-<pid>-<run>" when host is ours; 0 otherwise. */
static int owner_pid(const char *name, const char *key)
{
	size_t n = strlen(key);
	char *end;
	long pid;

	if (strncmp(name, "fl-", 3) || strncmp(name + 3, key, n) || name[3 + n] != '-')
		return 0;
	pid = strtol(name + 4 + n, &end, 10);
	return *end == '-' && pid > 0 && pid <= INT_MAX ? (int)pid : 0;
}

int fl_machine_libvirt_reap(const char *uri)
{
	virConnectPtr conn = virConnectOpen(uri);
	virDomainPtr *doms = NULL;
	char host[256] = "", *key;
	int n, reaped = 0;

	if (!conn)
		return fl_error_set(FL_EIO, "libvirt: cannot connect to %s: %s", uri,
				    virGetLastErrorMessage());
	gethostname(host, sizeof(host) - 1);
	host[20] = '\0';
	key = fl_path_component(host);
	n = virConnectListAllDomains(conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	for (int i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);
		int pid = name ? owner_pid(name, key) : 0;

		if (pid && fl_machine_process_gone(pid) && !virDomainDestroy(doms[i])) {
			fl_info("reaped guest %s on %s: its faultline process %d is gone", name,
				uri, pid);
			reaped++;
		}
		virDomainFree(doms[i]);
	}
	free(doms);
	free(key);
	virConnectClose(conn);
	return n < 0 ? fl_error_set(FL_EIO, "libvirt: cannot list the domains of %s", uri) : reaped;
}
