/*
 * guest.c - follows one transient libvirt domain to its end (see guest.h),
 * on the local host or a remote one by the same path: the kernel and the
 * initramfs uploaded into volumes (volume.h), the domain created paused,
 * its serial console opened as a libvirt stream, then resumed, so no byte
 * of the boot is lost.
 *
 * libvirt's default event loop runs in one thread of the process (started
 * once): it moves the stream's data and the connection's keepalive
 * messages. The caller's thread reads the stream without blocking every
 * 50 ms, writes what came to the run's console file and hands it on; it
 * polls the domain's state too (a run lasts seconds to minutes). A host
 * that stops answering closes the connection after the keepalive's
 * interval x count, and the wait ends with an error naming the machine.
 */
#include "machine/guest.h"
#include "config/config.h"
#include "lib/buf.h"
#include "lib/cancel.h"
#include "machine/domain.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "lib/log.h"
#include "lib/time.h"
#include "machine/priv.h"
#include "machine/volume.h"

#include <errno.h>
#include <fcntl.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A host silent for KEEPALIVE_S x (KEEPALIVE_COUNT + 1) seconds is lost. */
#define KEEPALIVE_S 5
#define KEEPALIVE_COUNT 3
/* After the domain ended, how long the rest of its console may take to arrive. */
#define DRAIN_MS 3000

struct fl_guest {
	virConnectPtr conn;
	virDomainPtr dom;
	virStreamPtr console;
	fl_volumes *vols;
	char *name, *machine, *uri;
	int log_fd;
	int console_eof;
	int lifecycle; /* the event callback's id, or -1 */
	struct guest_news *news;
	int64_t started_ms, ended_ms;
};

/*
 * What libvirt's event thread tells about the connection and the domain.
 * Shared with the callbacks: each registered one holds a reference, dropped
 * by libvirt once it is unregistered and can no longer run.
 */
struct guest_news {
	atomic_int refs;
	atomic_int closed;  /* 1 + virConnectCloseReason once the connection is gone */
	atomic_int stopped; /* 1 + virDomainEventStoppedDetailType once the domain stopped */
};

static struct guest_news *news_ref(struct guest_news *n)
{
	atomic_fetch_add(&n->refs, 1);
	return n;
}

static void news_unref(void *arg)
{
	struct guest_news *n = arg;

	if (n && atomic_fetch_sub(&n->refs, 1) == 1)
		free(n);
}

/* ---- names that carry their owner ---------------------------------------- */

static char *host_key(void)
{
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	host[20] = '\0';
	return fl_path_component(host);
}

char *fl_guest_name(const char *what)
{
	char *key = host_key(), *name;

	name = fl_xasprintf("fl-%s-%d-%s", key, (int)getpid(), what);
	free(key);
	return name;
}

int fl_guest_owner_gone(const char *name)
{
	char *key = host_key(), *end;
	size_t n = strlen(key);
	long pid = 0;

	if (!strncmp(name, "fl-", 3) && !strncmp(name + 3, key, n) && name[3 + n] == '-') {
		pid = strtol(name + 4 + n, &end, 10);
		if (*end != '-' || pid <= 0 || pid > INT_MAX)
			pid = 0;
	}
	free(key);
	return pid && fl_machine_process_gone((int)pid);
}

/* ---- libvirt's event loop, one thread per process ------------------------- */

static void *event_loop(void *arg)
{
	(void)arg;
	for (;;)
		if (virEventRunDefaultImpl() < 0)
			usleep(100 * 1000);
	return NULL;
}

static int events_ok;

static void events_start(void)
{
	pthread_t t;

	if (virEventRegisterDefaultImpl() < 0)
		return;
	if (pthread_create(&t, NULL, event_loop, NULL))
		return;
	pthread_detach(t);
	events_ok = 1;
}

static int events(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, events_start);
	return events_ok ? 0
			 : fl_error_set(FL_EIO, "libvirt: cannot start the event loop: %s",
					virGetLastErrorMessage());
}

/* ---- the guest ------------------------------------------------------------ */

static void quiet_libvirt(void *data, virErrorPtr err)
{
	(void)data;
	(void)err;
}

static int libvirt_error(const char *what, const char *name)
{
	return fl_error_set(FL_EIO, "libvirt: %s '%s': %s", what, name, virGetLastErrorMessage());
}

static void on_close(virConnectPtr conn, int reason, void *opaque)
{
	struct guest_news *n = opaque;

	(void)conn;
	atomic_store(&n->closed, 1 + reason);
}

static void on_lifecycle(virConnectPtr conn, virDomainPtr dom, int event, int detail,
			 void *opaque)
{
	struct guest_news *n = opaque;

	(void)conn;
	(void)dom;
	if (event == VIR_DOMAIN_EVENT_STOPPED)
		atomic_store(&n->stopped, 1 + detail);
}

static const char *close_reason(int closed)
{
	switch (closed - 1) {
	case VIR_CONNECT_CLOSE_REASON_KEEPALIVE:
		return "it stopped answering keepalive messages";
	case VIR_CONNECT_CLOSE_REASON_EOF:
		return "the connection was closed";
	case VIR_CONNECT_CLOSE_REASON_ERROR:
		return "an error on the connection";
	default:
		return "the connection ended";
	}
}

/* The machine's host is gone (connection closed): FL_EIO naming both. */
static int lost(fl_guest *g)
{
	int c = atomic_load(&g->news->closed);

	return fl_error_set(FL_EIO, "machine '%s': lost its libvirt host %s during the run of %s "
				    "(%s); the guest and its volumes are deleted at the next "
				    "start of faultline that reaches the host",
			    g->machine, g->uri, g->name, c ? close_reason(c) : "it is not alive");
}

static int is_lost(fl_guest *g)
{
	return atomic_load(&g->news->closed) || virConnectIsAlive(g->conn) == 0;
}

int fl_guest_connect(virConnectPtr *out, const char *uri)
{
	virSetErrorFunc(NULL, quiet_libvirt);
	*out = virConnectOpen(uri);
	if (!*out)
		return fl_error_set(FL_EIO, "libvirt: cannot connect to %s: %s", uri,
				    virGetLastErrorMessage());
	return 0;
}

static int connect_host(fl_guest *g, const char *uri)
{
	if (events() || fl_guest_connect(&g->conn, uri))
		return FL_EIO;
	if (virConnectRegisterCloseCallback(g->conn, on_close, news_ref(g->news), news_unref) < 0) {
		news_unref(g->news);
		return libvirt_error("cannot follow the connection of", g->name);
	}
	/* 1: the driver has no keepalive (a local test driver); nothing to lose then. */
	if (virConnectSetKeepAlive(g->conn, KEEPALIVE_S, KEEPALIVE_COUNT) < 0)
		return libvirt_error("cannot set keepalive for", g->name);
	return 0;
}

/* The kernel and initramfs as volumes on the host; spec's paths become theirs. */
static int upload(fl_guest *g, const struct fl_domain_spec *spec, struct fl_domain_spec *host)
{
	char *kname = fl_xasprintf("%s-kernel", spec->name);
	char *iname = fl_xasprintf("%s-initrd", spec->name);
	int r;

	*host = *spec;
	if (!(r = fl_volumes_open(&g->vols, g->conn, spec->machine)) &&
	    !(r = fl_volumes_upload(g->vols, kname, spec->kernel, &host->kernel)))
		r = fl_volumes_upload(g->vols, iname, spec->initrd, &host->initrd);
	free(kname);
	free(iname);
	return r;
}

/* Created paused, the console attached, then running: the console misses nothing. */
static int create(fl_guest *g, const char *xml)
{
	g->started_ms = fl_mono_ms();
	g->dom = virDomainCreateXML(g->conn, xml, VIR_DOMAIN_START_PAUSED);
	if (!g->dom)
		return libvirt_error("cannot create domain", g->name);
	g->console = virStreamNew(g->conn, VIR_STREAM_NONBLOCK);
	if (!g->console || virDomainOpenConsole(g->dom, NULL, g->console,
						VIR_DOMAIN_CONSOLE_FORCE) < 0)
		return libvirt_error("cannot open the console of", g->name);
	/* How it stops: by itself, or destroyed by someone else. */
	g->lifecycle = virConnectDomainEventRegisterAny(g->conn, g->dom, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
							VIR_DOMAIN_EVENT_CALLBACK(on_lifecycle),
							news_ref(g->news), news_unref);
	if (g->lifecycle < 0) {
		news_unref(g->news);
		return libvirt_error("cannot follow the events of", g->name);
	}
	if (virDomainResume(g->dom) < 0)
		return libvirt_error("cannot start", g->name);
	return 0;
}

int fl_guest_start(fl_guest **out, const char *uri, const struct fl_domain_spec *spec)
{
	struct fl_domain_spec host;
	fl_guest *g;
	char *xml = NULL;
	int r;

	*out = NULL;
	if (!spec->machine || !spec->name || !spec->kernel || !spec->initrd || !spec->console_path)
		return fl_domain_xml(spec, &xml);
	g = fl_xcalloc(1, sizeof(*g));
	g->log_fd = -1;
	g->lifecycle = -1;
	g->news = fl_xcalloc(1, sizeof(*g->news));
	atomic_init(&g->news->refs, 1);
	g->name = fl_xstrdup(spec->name);
	g->machine = fl_xstrdup(spec->machine->name ? spec->machine->name : spec->name);
	g->uri = fl_xstrdup(uri);
	/* Each run starts with an empty console file. */
	g->log_fd = open(spec->console_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (g->log_fd < 0) {
		r = fl_error_set(FL_EIO, "console %s: %s", spec->console_path, strerror(errno));
		goto fail;
	}
	if ((r = connect_host(g, uri)) || (r = upload(g, spec, &host)) ||
	    (r = fl_domain_xml(&host, &xml)) || (r = create(g, xml)))
		goto fail;
	free(xml);
	*out = g;
	return 0;
fail:
	if (g->conn && is_lost(g))
		r = lost(g);
	free(xml);
	fl_guest_free(g);
	return r;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (fd >= 0 && n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* Reads what the console stream holds; 1 at its end, 0 otherwise. */
static int read_console(fl_guest *g, fl_guest_console_cb cb, void *arg)
{
	char chunk[65536];
	int n;

	while (g->console && !g->console_eof) {
		n = virStreamRecv(g->console, chunk, sizeof(chunk));
		if (n == -2)
			return 0;
		if (n <= 0) {
			g->console_eof = 1;
			break;
		}
		write_all(g->log_fd, chunk, (size_t)n);
		if (cb)
			cb(chunk, (size_t)n, arg);
	}
	return 1;
}

/* What the console still carries after the domain ended, for a moment. */
static void drain_console(fl_guest *g, fl_guest_console_cb cb, void *arg)
{
	int64_t until = fl_mono_ms() + DRAIN_MS;

	while (!read_console(g, cb, arg) && !is_lost(g) && fl_mono_ms() < until)
		usleep(10 * 1000);
	if (!g->console_eof)
		fl_verbose("%s: the console stream did not end within %d ms of the domain",
			   g->name, DRAIN_MS);
}

/* 1 while the domain runs, 0 once it is gone or shut off, negative on trouble. */
static int still_running(fl_guest *g)
{
	int state, reason;

	if (virDomainGetState(g->dom, &state, &reason, 0) < 0) {
		virErrorPtr e = virGetLastError();

		/* A transient domain that destroyed itself is simply gone. */
		if (e && e->code == VIR_ERR_NO_DOMAIN)
			return 0;
		return is_lost(g) ? lost(g) : libvirt_error("cannot read the state of", g->name);
	}
	return state != VIR_DOMAIN_SHUTOFF && state != VIR_DOMAIN_CRASHED;
}

static void close_console(fl_guest *g)
{
	if (!g->console)
		return;
	if (!g->console_eof)
		virStreamAbort(g->console);
	else
		virStreamFinish(g->console);
	virStreamFree(g->console);
	g->console = NULL;
}

static void destroy(fl_guest *g)
{
	if (!g->dom)
		return;
	if (!is_lost(g) && still_running(g) > 0)
		virDomainDestroy(g->dom);
	virDomainFree(g->dom);
	g->dom = NULL;
}

/*
 * 0 when the domain that is gone stopped by itself (power-off, reboot or
 * crash, which destroy it), FL_EIO when something else destroyed it: the
 * run did not end, it was ended. Waits a moment for the event.
 */
static int stopped_by_itself(fl_guest *g)
{
	int64_t until = fl_mono_ms() + 2000;
	int s;

	while (!(s = atomic_load(&g->news->stopped)) && !is_lost(g) && fl_mono_ms() < until)
		usleep(10 * 1000);
	if (s - 1 != VIR_DOMAIN_EVENT_STOPPED_DESTROYED)
		return 0;
	return fl_error_set(FL_EIO, "machine '%s': its guest %s was destroyed on %s by something "
				    "other than faultline during the run",
			    g->machine, g->name, g->uri);
}

int fl_guest_wait(fl_guest *g, int64_t deadline_ms, fl_guest_console_cb cb, void *arg,
		  enum fl_guest_end *end)
{
	int64_t limit = g->started_ms + deadline_ms;
	int r;

	for (;;) {
		read_console(g, cb, arg);
		r = is_lost(g) ? lost(g) : still_running(g);
		if (r < 0) {
			destroy(g);
			return r;
		}
		if (!r) {
			*end = FL_GUEST_EXITED;
			r = stopped_by_itself(g);
			if (r < 0) {
				destroy(g);
				drain_console(g, cb, arg);
				return r;
			}
			break;
		}
		if (fl_cancel_runs()) {
			*end = FL_GUEST_INTERRUPTED;
			break;
		}
		if (fl_mono_ms() >= limit) {
			*end = FL_GUEST_DEADLINE;
			break;
		}
		usleep(50 * 1000);
	}
	destroy(g);
	g->ended_ms = fl_mono_ms();
	drain_console(g, cb, arg);
	return 0;
}

int64_t fl_guest_elapsed_ms(const fl_guest *g)
{
	return (g->ended_ms ? g->ended_ms : fl_mono_ms()) - g->started_ms;
}

void fl_guest_free(fl_guest *g)
{
	if (!g)
		return;
	destroy(g);
	close_console(g);
	fl_volumes_free(g->vols); /* deleted, or a warning says when they will be */
	if (g->conn) {
		if (g->lifecycle >= 0)
			virConnectDomainEventDeregisterAny(g->conn, g->lifecycle);
		virConnectUnregisterCloseCallback(g->conn, on_close);
		virConnectClose(g->conn);
	}
	news_unref(g->news);
	if (g->log_fd >= 0)
		close(g->log_fd);
	free(g->name);
	free(g->machine);
	free(g->uri);
	free(g);
}
