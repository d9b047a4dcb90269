/*
 * guest.c - follows one transient libvirt domain to its end (see guest.h).
 *
 * The console is a plain file that QEMU appends to; it is read from the last
 * offset every poll, so a consumer sees the output while the guest runs.
 * libvirt's state is polled rather than subscribed to: a run lasts seconds
 * to minutes, a 50 ms poll costs nothing, and no event loop thread is needed.
 */
#include "machine/guest.h"
#include "lib/buf.h"
#include "lib/cancel.h"
#include "machine/domain.h"
#include "lib/error.h"
#include "lib/time.h"

#include <errno.h>
#include <fcntl.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fl_guest {
	virConnectPtr conn;
	virDomainPtr dom;
	char *name;
	char *console_path;
	off_t console_off;
	int64_t started_ms, ended_ms;
};

static void quiet_libvirt(void *data, virErrorPtr err)
{
	(void)data;
	(void)err;
}

static int libvirt_error(const char *what, const char *name)
{
	return fl_error_set(FL_EIO, "libvirt: %s '%s': %s", what, name, virGetLastErrorMessage());
}

int fl_guest_start(fl_guest **out, const char *uri, const struct fl_domain_spec *spec)
{
	fl_guest *g;
	char *xml;
	int fd, r;

	*out = NULL;
	if ((r = fl_domain_xml(spec, &xml)))
		return r;
	/* QEMU appends to the console file: start each run with an empty one. */
	fd = open(spec->console_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		free(xml);
		return fl_error_set(FL_EIO, "console %s: %s", spec->console_path, strerror(errno));
	}
	close(fd);
	virSetErrorFunc(NULL, quiet_libvirt);
	g = fl_xcalloc(1, sizeof(*g));
	g->name = fl_xstrdup(spec->name);
	g->console_path = fl_xstrdup(spec->console_path);
	g->conn = virConnectOpen(uri);
	if (!g->conn) {
		r = fl_error_set(FL_EIO, "libvirt: cannot connect to %s: %s", uri,
				 virGetLastErrorMessage());
		goto fail;
	}
	g->started_ms = fl_mono_ms();
	g->dom = virDomainCreateXML(g->conn, xml, 0);
	if (!g->dom) {
		r = libvirt_error("cannot create domain", spec->name);
		goto fail;
	}
	free(xml);
	*out = g;
	return 0;
fail:
	free(xml);
	fl_guest_free(g);
	return r;
}

static void read_console(fl_guest *g, fl_guest_console_cb cb, void *arg)
{
	char chunk[65536];
	int fd = open(g->console_path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return;
	while ((n = pread(fd, chunk, sizeof(chunk), g->console_off)) > 0) {
		g->console_off += n;
		if (cb)
			cb(chunk, (size_t)n, arg);
	}
	close(fd);
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
		return libvirt_error("cannot read the state of", g->name);
	}
	return state != VIR_DOMAIN_SHUTOFF && state != VIR_DOMAIN_CRASHED;
}

static void destroy(fl_guest *g)
{
	if (!g->dom)
		return;
	if (still_running(g) > 0)
		virDomainDestroy(g->dom);
	virDomainFree(g->dom);
	g->dom = NULL;
}

int fl_guest_wait(fl_guest *g, int64_t deadline_ms, fl_guest_console_cb cb, void *arg,
		  enum fl_guest_end *end)
{
	int64_t limit = g->started_ms + deadline_ms;
	int r;

	for (;;) {
		read_console(g, cb, arg);
		r = still_running(g);
		if (r < 0) {
			destroy(g);
			return r;
		}
		if (!r) {
			*end = FL_GUEST_EXITED;
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
	read_console(g, cb, arg);
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
	if (g->conn)
		virConnectClose(g->conn);
	free(g->name);
	free(g->console_path);
	free(g);
}
