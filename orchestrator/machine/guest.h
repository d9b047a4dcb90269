/*
 * guest.h - one transient libvirt guest, from creation to its end.
 *
 * fl_guest_start() creates the domain from its XML (domain.h) on the given
 * connection URI; fl_guest_wait() follows the domain's state and the console
 * file as it grows until the guest ends by itself (power-off, reboot and
 * crash all destroy it), the deadline passes (the domain is destroyed), or
 * faultline is told to stop (fl_cancel_runs() of lib/cancel.h: the domain
 * is destroyed too).
 * fl_guest_free() destroys a domain that is still there: no domain survives
 * its run on any exit path.
 */
#ifndef FL_GUEST_H
#define FL_GUEST_H

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

int fl_guest_start(fl_guest **out, const char *uri, const struct fl_domain_spec *spec);
int fl_guest_wait(fl_guest *g, int64_t deadline_ms, fl_guest_console_cb cb, void *arg,
		  enum fl_guest_end *end);
/* Milliseconds from creation to the end (or to now). */
int64_t fl_guest_elapsed_ms(const fl_guest *g);
void fl_guest_free(fl_guest *g);

#endif
