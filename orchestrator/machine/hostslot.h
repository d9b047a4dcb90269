/*
 * hostslot.h - how many guests one hypervisor host runs at once, across
 * every faultline process that shares the state directory.
 *
 * A host (a libvirt URI) has slot files var/hosts/<host>/slot-<n>.lock;
 * a run holds one with flock(2) for its whole length, so a process that
 * dies frees its slot with it. A machine with max_parallel N may take slots
 * 0..N-1. Holding a slot, a run is admitted by memory: the host's available
 * memory, less what the other slot holders have reserved (each writes its
 * guest's size into its slot file), must cover the guest and QEMU's own
 * overhead. Both waits print a progress line and never fail for being busy.
 */
#ifndef FL_HOSTSLOT_H
#define FL_HOSTSLOT_H

#include <stdint.h>

typedef struct fl_hostslot fl_hostslot;

/* Returns non-zero when the caller was told to stop waiting. */
typedef int (*fl_hostslot_stop_fn)(void);
/* The host's available memory in bytes; 0 or a negative FL_E* code. */
typedef int (*fl_hostslot_mem_fn)(void *arg, uint64_t *available);

/* What QEMU itself needs next to a guest's RAM. */
#define FL_HOSTSLOT_OVERHEAD (256ULL << 20)

/*
 * Takes a free slot among 0..max-1 of host, waiting while all are held.
 * who names the waiter in progress lines ("run 12"). 0, 1 when stop() said
 * to stop (nothing held), or a negative FL_E* code.
 */
int fl_hostslot_acquire(fl_hostslot **out, const char *var, const char *host, unsigned max,
			const char *who, fl_hostslot_stop_fn stop);

/*
 * Waits until mem() shows room for need bytes (plus FL_HOSTSLOT_OVERHEAD)
 * besides the other holders' reservations, then reserves need. 0, 1 when
 * stopped, FL_ETIMEOUT after max_wait_ms, or mem()'s error.
 */
int fl_hostslot_admit(fl_hostslot *s, uint64_t need, fl_hostslot_mem_fn mem, void *arg,
		      int64_t max_wait_ms, fl_hostslot_stop_fn stop);

unsigned fl_hostslot_index(const fl_hostslot *s);
/* Frees the slot (and its reservation). NULL is fine. */
void fl_hostslot_release(fl_hostslot *s);

#endif
