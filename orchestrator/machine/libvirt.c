/*
 * machine/libvirt.c - the libvirt backend (its ops at the end; machine.h):
 * a transient NUMA guest boots the kernel under test with fl-agent as
 * /init and the job on its command line; guests of dead owners reaped; the
 * guest as the report describes it (its facts, proto/facts.h).
 *
 * One run, its kernel and run row ready (the dispatcher's): an initramfs
 * under var/runs/<id>/, a guest slot on the host
 * (hostslot.h), the accelerator (accel.h), admission by memory, the domain
 * (domain.h, guest.h: the kernel and initramfs uploaded into the host's
 * pool, volume.h, so a remote host works as the local one does) with its
 * console streamed into var/runs/<id>/console.log and read as it comes
 * (console.h), every record handed to the sink as it comes, and the end
 * classified and handed over with the samples of an ok run. Whatever happens,
 * the domain is destroyed and the volumes deleted before this returns,
 * unless the host was lost: then the next start reaps them (libvirt_reap).
 */
#include "machine/machine.h"
#include "machine/priv.h"
#include "machine/accel.h"
#include "lib/buf.h"
#include "config/config.h"
#include "machine/domain.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "machine/guest.h"
#include "machine/hostslot.h"
#include "machine/volume.h"
#include "lib/log.h"
#include "lib/units.h"

#include "proto/facts.h"
#include "lib/cancel.h"

#include <errno.h>
#include <jansson.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ACCEL_PROBE_MS 15000
#define MEMORY_WAIT_MS (60 * 60 * 1000)

struct lv_run {
	const struct fl_run_req *req;
	struct fl_run_watch w;	   /* its records and its end */
	struct fl_machine_files f; /* absolute: libvirtd opens them */
	char *console_path, *domain;
	const char *accel;
	int64_t deadline_ms;
	fl_hostslot *slot;
	fl_guest *guest;
};

/* ---- the guest's files ----------------------------------------------- */

static int prepare_files(struct lv_run *x)
{
	int r = fl_machine_initramfs(x->req, &x->f);

	if (!r)
		x->console_path = fl_xasprintf("%s/console.log", x->f.dir);
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

/* 0 admitted, 1 interrupted, FL_EINVAL for a guest bigger than the host, or trouble. */
static int admit(struct lv_run *x)
{
	const struct fl_machine_conf *m = x->req->machine;
	virConnectPtr conn;
	virNodeInfo info;
	int r;

	if ((r = fl_guest_connect(&conn, m->uri)))
		return r;
	if (!virNodeGetInfo(conn, &info) &&
	    ((uint64_t)info.memory << 10) < fl_config_machine_memory(m) + FL_HOSTSLOT_OVERHEAD)
		r = fl_error_set(FL_EINVAL, "machine '%s' needs %llu MiB; the host %s has %llu MiB",
				 m->name, (unsigned long long)(fl_config_machine_memory(m) >> 20),
				 m->uri, (unsigned long long)(info.memory >> 10));
	else
		r = fl_hostslot_admit(x->slot, fl_config_machine_memory(m), host_available, conn,
				      MEMORY_WAIT_MS, fl_cancel_runs);
	virConnectClose(conn);
	return r;
}

static int resolve_accel(struct lv_run *x)
{
	const struct fl_machine_conf *m = x->req->machine;
	struct fl_accel_probe p = {m->uri,	     x->req->kernel->image, x->f.initrd,
				   x->req->cfg->var, ACCEL_PROBE_MS,	    m};
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

static void on_console(const char *data, size_t len, void *arg)
{
	struct lv_run *x = arg;

	fl_run_watch_feed(&x->w, data, len);
}

static char *machine_facts(const struct lv_run *x)
{
	const struct fl_machine_conf *m = x->req->machine;
	json_t *o = json_object();
	char *s, *copy;

	json_object_set_new(o, FL_FACT_URI, json_string(m->uri));
	json_object_set_new(o, FL_FACT_SOCKETS, json_integer(m->sockets));
	json_object_set_new(o, FL_FACT_CORES, json_integer(m->cores));
	json_object_set_new(o, FL_FACT_THREADS, json_integer(m->threads));
	json_object_set_new(o, FL_FACT_VCPUS, json_integer(fl_config_machine_cpus(m)));
	json_object_set_new(o, FL_FACT_MEMORY_PER_NODE,
			    json_integer((json_int_t)m->memory_per_node));
	json_object_set_new(o, FL_FACT_ACCEL, json_string(x->accel));
	json_object_set_new(o, FL_FACT_SLOT, json_integer(fl_hostslot_index(x->slot)));
	json_object_set_new(o, FL_FACT_PROFILE, json_boolean(x->req->kernel->profile));
	if (m->cmdline)
		json_object_set_new(o, FL_FACT_CMDLINE, json_string(m->cmdline));
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	copy = fl_xstrdup(s ? s : "{}");
	free(s);
	return copy;
}

/* The domain's name: host and pid of its owner, so a dead owner's guest can be found. */
static char *domain_name(int64_t run_id)
{
	char id[32];

	snprintf(id, sizeof(id), "%lld", (long long)run_id);
	return fl_guest_name(id);
}

/* Boots and follows the guest; fills how it ended. 0, or an infra problem. */
static int boot(struct lv_run *x, enum fl_guest_end *end)
{
	const struct fl_run_kernel *k = x->req->kernel;
	const struct fl_run_sink *sink = x->req->sink;
	struct fl_domain_spec spec = {0};
	struct fl_machine_guest g = {0};
	char *facts;
	int r;

	x->domain = domain_name(x->req->run_id);
	spec = (struct fl_domain_spec){x->domain,   x->req->machine, x->accel,	  k->image,
				       x->f.initrd, x->console_path, x->req->job, k->profile};
	fl_info("%s: booting on %s (%u vCPUs in %u nodes, %llu MiB, %s), deadline %lld s, "
		"console %s",
		x->w.name, x->req->machine->name, fl_config_machine_cpus(x->req->machine),
		x->req->machine->sockets,
		(unsigned long long)(fl_config_machine_memory(x->req->machine) >> 20), x->accel,
		(long long)(x->deadline_ms / 1000), x->console_path);
	fl_run_watch_begin(&x->w);
	if ((r = fl_guest_start(&x->guest, x->req->machine->uri, &spec)))
		return r;
	facts = machine_facts(x);
	g = (struct fl_machine_guest){x->domain, x->accel, facts, x->console_path, x->w.wall0};
	r = sink->guest(sink->arg, &g);
	free(facts);
	if (r)
		fl_run_watch_sink_error(&x->w, r);
	r = fl_guest_wait(x->guest, x->deadline_ms, on_console, x, end);
	fl_guest_free(x->guest);
	x->guest = NULL;
	return r;
}

/* ---- the run ---------------------------------------------------------- */

static int finish(struct lv_run *x, enum fl_run_status st, char *detail)
{
	return fl_run_watch_finish(&x->w, st, detail);
}

static int infra(struct lv_run *x, const char *what)
{
	return fl_run_watch_infra(&x->w, what);
}

static int64_t deadline(const struct fl_run_req *req)
{
	if (req->deadline_ms > 0)
		return req->deadline_ms;
	return req->machine->boot_timeout_ms + fl_machine_watchdog_s(req) * 1000 + 15000;
}

/* The run is the sink's from here: its end is handed over on every path. */
static int run_guest(struct lv_run *x)
{
	const struct fl_machine_conf *m = x->req->machine;
	enum fl_guest_end end;
	int r;

	if ((r = prepare_files(x)))
		return infra(x, "preparing the guest");
	r = fl_hostslot_acquire(&x->slot, x->req->cfg->var, m->uri, m->max_parallel, x->w.name,
				fl_cancel_runs);
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
	r = boot(x, &end);
	if (!x->w.sink_error && r)
		return infra(x, "libvirt");
	if (!x->w.sink_error && end == FL_GUEST_INTERRUPTED)
		return finish(x, FL_RUN_INFRA_ERROR, fl_xstrdup("interrupted"));
	return fl_run_watch_end(&x->w, end == FL_GUEST_DEADLINE, x->deadline_ms, NULL);
}

static void lv_free(struct lv_run *x)
{
	fl_guest_free(x->guest);
	fl_hostslot_release(x->slot);
	fl_run_watch_release(&x->w);
	fl_machine_files_release(&x->f);
	free(x->console_path);
	free(x->domain);
}

static int libvirt_run(const struct fl_run_req *req, struct fl_run_result *res)
{
	struct lv_run x = {.req = req};
	int r;

	fl_run_watch_init(&x.w, req, res);
	x.deadline_ms = deadline(req);
	r = run_guest(&x);
	lv_free(&x);
	return r;
}

/* ---- guests of dead owners -------------------------------------------- */

/*
 * Destroys dom when a faultline process of this host that is gone named it;
 * 1 when it did. Another faultline reaping the same host at the same moment
 * (a lab's workers share their hosts) may have destroyed it between the
 * listing and here: it is gone all the same, which is no error.
 */
static int reap_domain(virDomainPtr dom, const char *uri)
{
	const char *name = virDomainGetName(dom);
	virErrorPtr e;

	if (!name || !fl_guest_owner_gone(name))
		return 0;
	if (!virDomainDestroy(dom)) {
		fl_info("reaped guest %s on %s: its faultline process is gone", name, uri);
		return 1;
	}
	e = virGetLastError();
	if (e && (e->code == VIR_ERR_NO_DOMAIN || e->code == VIR_ERR_OPERATION_INVALID))
		fl_verbose("guest %s on %s: already gone (another faultline reaped it)", name, uri);
	else
		fl_warn("cannot reap guest %s on %s: %s", name, uri, virGetLastErrorMessage());
	return 0;
}

/*
 * Domains and volumes on m's host named by a faultline process of this host
 * that is gone (guest.h): the guests it left are destroyed, the kernels and
 * initramfses it uploaded into m's pool deleted.
 */
static int libvirt_reap(const struct fl_machine_conf *m)
{
	virConnectPtr conn;
	virDomainPtr *doms = NULL;
	int n, v, reaped = 0;

	if ((v = fl_guest_connect(&conn, m->uri)))
		return v;
	n = virConnectListAllDomains(conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	for (int i = 0; i < n; i++) {
		reaped += reap_domain(doms[i], m->uri);
		virDomainFree(doms[i]);
	}
	free(doms);
	/* After the domains: a running guest's files are not pulled from under it. */
	v = fl_volumes_reap(conn, m, fl_guest_owner_gone);
	virConnectClose(conn);
	if (n < 0)
		return fl_error_set(FL_EIO, "libvirt: cannot list the domains of %s", m->uri);
	return v < 0 ? v : reaped + v;
}

/* ---- the machine in a report ------------------------------------------- */

/*
 * The guest as it was made and what it saw (the run's facts and its
 * environment record); the configuration where no run kept them.
 */
static void libvirt_describe(const struct fl_machine_conf *m, const struct fl_machine_seen *run,
			     fl_buf *out)
{
	json_t *f = run && run->facts ? json_loads(run->facts, 0, NULL) : NULL;
	json_t *sockets_v = json_object_get(f, FL_FACT_SOCKETS);
	json_t *per_node_v = json_object_get(f, FL_FACT_MEMORY_PER_NODE);
	unsigned sockets =
	    json_is_integer(sockets_v) ? (unsigned)json_integer_value(sockets_v) : m->sockets;
	uint64_t memory = json_is_integer(per_node_v)
			      ? (uint64_t)json_integer_value(per_node_v) * sockets
			      : fl_config_machine_memory(m);
	unsigned nodes = run && run->nodes > 0 ? (unsigned)run->nodes : m->sockets;
	unsigned cpus = run && run->cpus > 0 ? (unsigned)run->cpus : fl_config_machine_cpus(m);
	const char *accel = run && run->accel ? run->accel : m->accel;
	char mem[32];

	fl_format_size(memory, mem, sizeof(mem));
	fl_buf_addf(out,
		    "%s: %u socket%s, %u NUMA node%s, %u CPU%s, %s memory, accelerator %s "
		    "(%s%s%s)",
		    m->name, sockets, FL_S(sockets), nodes, FL_S(nodes), cpus, FL_S(cpus), mem,
		    accel, m->backend, m->uri ? " " : "",
		    m->uri ? m->uri : "");
	if (run && run->kernel_release)
		fl_buf_addf(out, "\n                 as the guest of run %lld saw it, kernel %s",
			    (long long)run->run_id, run->kernel_release);
	json_decref(f);
}

/* Its topology: what makes the guest a copy of the machine's. */
static void libvirt_repro_keys(const struct fl_machine_conf *m, fl_buf *out,
			       void (*quote)(fl_buf *out, const char *text))
{
	char size[32];

	(void)quote;
	fl_format_size(m->memory_per_node, size, sizeof(size));
	fl_buf_addf(out, ", sockets: %u, cores: %u, threads: %u, memory_per_node: %s", m->sockets,
		    m->cores, m->threads, size);
}

/*
 * How many times slower than its own clock a guest's job runs: under TCG
 * (or auto, which may come to it) each vCPU is a host thread, so 8 vCPUs on
 * 2 host cores do everything outside the measured seconds (starting tasks,
 * installing the lock tracing, which stops every vCPU to patch kernel
 * text) about 4 times slower. 1 under KVM.
 */
static long libvirt_slowdown(const struct fl_machine_conf *m)
{
	long host = sysconf(_SC_NPROCESSORS_ONLN), cpus;

	if ((m->accel && !strcmp(m->accel, "kvm")) || host < 1)
		return 1;
	cpus = (long)fl_config_machine_cpus(m);
	return cpus > host ? (cpus + host - 1) / host : 1;
}

const struct fl_machine_ops fl_machine_libvirt_ops = {
    .name = "libvirt",
    .run = libvirt_run,
    .reap = libvirt_reap,
    .describe = libvirt_describe,
    .slowdown = libvirt_slowdown,
    .repro_keys = libvirt_repro_keys,
    .start_word = "guest created",
    .agent_word = "boot to the agent",
    .facts_word = "Guest",
};
