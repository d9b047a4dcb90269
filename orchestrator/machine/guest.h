/*
 * guest.h - one transient libvirt guest, from creation to its end.
 *
 * fl_guest_start() puts the spec's kernel and initramfs on the host of the
 * given connection URI as volumes of the machine's pool (volume.h; the same
 * path for the local host and a remote one) and creates the domain from its
 * XML (domain.h) naming them; fl_guest_wait() follows the domain's state and
 * its serial console, read through a libvirt stream and written to the
 * spec's console_path as it comes, until the guest ends by itself (power-off, reboot and
 * crash all destroy it), the deadline passes (the domain is destroyed), or
 * faultline is told to stop (fl_cancel_runs() of lib/cancel.h: the domain
 * is destroyed too).
 * A host that stops answering (keepalive), and a domain destroyed by
 * something other than faultline (libvirt's lifecycle event), end the wait
 * with an error that names the machine and the host.
 * fl_guest_free() destroys a domain that is still there and deletes the
 * volumes: neither survives its run on any exit path that reaches the host.
 *
 * Domains and volumes are named "fl-<host>-<pid>-<what>" (fl_guest_name): the
 * faultline process that made them and its host, so that the next start
 * can remove what a process that died left (fl_guest_owner_gone).
 */
#ifndef FL_GUEST_H
#define FL_GUEST_H

#include <libvirt/libvirt.h>
#include <stddef.h>
#include <stdint.h>

struct fl_domain_spec;
typedef struct fl_guest fl_guest;

enum fl_guest_end {
	FL_GUEST_EXITED,      /* the guest ended by itself */
	FL_GUEST_DEADLINE,    /* destroyed at the deadline */
	FL_GUEST_INTERRUPTED, /* destroyed because faultline was told to stop */
};

/* Called with each new piece of console output, in order. */
typedef void (*fl_guest_console_cb)(const char *data, size_t len, void *arg);

/* "fl-<host>-<pid>-<what>": this process's name for a domain (caller frees). */
char *fl_guest_name(const char *what);
/* 1 when name is such a name of this host whose process is gone. */
int fl_guest_owner_gone(const char *name);

/*
 * A connection to the libvirt host uri, with libvirt's own printing of
 * errors to stderr off for the process: faultline names them in its own
 * (fl_error_last(), log lines). 0 or FL_EIO naming uri.
 */
int fl_guest_connect(virConnectPtr *out, const char *uri);

int fl_guest_start(fl_guest **out, const char *uri, const struct fl_domain_spec *spec);
int fl_guest_wait(fl_guest *g, int64_t deadline_ms, fl_guest_console_cb cb, void *arg,
		  enum fl_guest_end *end);
/* Milliseconds from creation to the end (or to now). */
int64_t fl_guest_elapsed_ms(const fl_guest *g);
void fl_guest_free(fl_guest *g);

#endif
