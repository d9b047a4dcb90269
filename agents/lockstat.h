/*
 * lockstat.h - lock contention of a measured window from the kernel's
 * lock:contention_begin / lock:contention_end tracepoints (Linux 5.19 and
 * later), through tracefs hist triggers, without a debug kernel
 * (CONFIG_LOCK_STAT changes the very performance it measures).
 *
 * Why hist triggers: they aggregate in the kernel, in a lock-free hash map
 * updated at the tracepoint, so a contention costs a map update (and, for
 * the chains, one stack walk) and nothing reaches user space until the
 * window ends: no ring buffer to fill, no reader competing with the
 * benchmark for the guest's CPUs, no events lost when it overflows. The
 * other tracefs route (enable the two events, read trace_pipe, pair them in
 * the agent) writes every contention twice into the ring buffer and needs a
 * reader running during the window; perf and BPF are not in a static
 * initramfs.
 *
 * What is installed for a window (S = the tracefs root):
 *   S/synthetic_events:  fl_lock_wait u64 lock; u64 wait_ns
 *   contention_begin:    hist:keys=common_pid:fl_ts0=common_timestamp
 *   contention_begin:    hist:keys=lock_addr.sym-offset,stacktrace:vals=hitcount
 *   contention_end:      hist:keys=common_pid:fl_wait=common_timestamp-$fl_ts0:
 *                        onmatch(lock.contention_begin).trace(fl_lock_wait,lock_addr,$fl_wait)
 *   fl_lock_wait:        hist:keys=lock.sym-offset,stacktrace:vals=hitcount,wait_ns
 *   fl_lock_wait:        hist:keys=lock.sym-offset,stacktrace:fl_mx=wait_ns:
 *                        onmax($fl_mx).save(lock)
 * installed once a run (enabling a tracepoint patches kernel text and
 * removing a trigger waits for RCU: 0.7-3.3 s to install and 0.5-5.8 s to
 * remove the set per window under TCG on a loaded host, against 0.2-0.8 s
 * and 0-0.4 s to clear the maps instead). A window starts by clearing the
 * two maps it reads (":clear"), and by removing and adding the onmax() one
 * again, whose variable a clear cannot take, and ends by reading them.
 * Every trigger carries "if common_pid != AGENT": installing a trigger or
 * clearing a map allocates, and the allocator's lock contended by the
 * agent itself would otherwise count in the window it opens.
 * So the synthetic event's hists say per lock and call chain the timed
 * waits, their summed and maximum time (ns, the trace clock's; the chain is taken inside
 * contention_end's trigger, so its first frames are the tracing's own and
 * the lock op's, which the parser drops), the other the contentions
 * (begins) per lock and chain. The kernel names locks and frames (%pS)
 * when it has kallsyms; without, they come as 0x... addresses.
 *
 * A static lock (cgroup_rstat_lock, root_usage) is named by its symbol and
 * all its chains add up under it. A lock inside an object has no name the
 * kernel knows (that needs lockdep): it is named by the function that took
 * it, and the waits are added up per such caller, the way perf lock
 * contention aggregates by caller, so one object lock taken from munmap
 * and from the fault path is two rows, and the rows are the same from one
 * run to the next (a heap address is not).
 *
 * The parser is separate from the tracefs plumbing so it is tested on
 * recorded hist output (tests/data/lockstat/).
 */
#ifndef FL_LOCKSTAT_H
#define FL_LOCKSTAT_H

#include <stddef.h>
#include <stdint.h>

struct jw;

/* locks=cost (bench/lockcost): cycles of untraced, traced, traced,
 * untraced runs of every point */
#define FL_LOCK_COST_CYCLES 5
#define FL_LOCK_MAX_LOCKS  16 /* per window, most waited-for first */
#define FL_LOCK_MAX_CHAINS 3  /* per lock, most contentions first */
#define FL_LOCK_MAX_FRAMES 8  /* per chain, from the caller of the lock op */

struct fl_lock_chain {
	uint64_t count;
	int nframes;
	char frames[FL_LOCK_MAX_FRAMES][64]; /* "try_charge_memcg" or "0xffffffff81..." */
};

struct fl_lock {
	uint64_t addr; /* the first address seen under this name */
	char name[96];	    /* "root_usage", "cgroup_rstat_lock", or the caller */
	const char *named_by; /* "symbol", "caller" or "address" */
	/* contentions: contention_begin hits (lock_stat's count); waits: the
	 * begin/end pairs timed (a mutex that spins, then sleeps, begins twice
	 * and ends once; a window edge cuts a pair) */
	uint64_t contentions, waits, wait_ns, max_wait_ns;
	int nchains;
	struct fl_lock_chain chains[FL_LOCK_MAX_CHAINS];
};

struct fl_lockstat {
	int nlocks;
	uint64_t other_locks; /* contended locks beyond FL_LOCK_MAX_LOCKS */
	struct fl_lock locks[FL_LOCK_MAX_LOCKS];
};

/*
 * Fills ls from the text of the fl_lock_wait hist (waits) and of the
 * contention_begin hist keyed by lock and stacktrace (stacks; NULL: no
 * chains). Locks are ordered by wait time, each with its most frequent
 * chains. 0, or FL_EINVAL when waits is not a hist file at all.
 */
int fl_lockstat_parse(const char *waits, const char *stacks, struct fl_lockstat *ls);
/* 1 for a frame of the locking code itself (_raw_spin_lock,
 * queued_spin_lock_slowpath, mutex_lock, ...): never a lock's user. */
int fl_lockstat_lock_frame(const char *fn);

/* ---- the window (tracefs) ----
 *
 * Errors follow proto/error.h; the run records the message as the lock
 * status ("not available: why", "failed: why") and goes on without. */

/*
 * Sets up for a run: finds or mounts tracefs and checks that the kernel has
 * the contention tracepoints and hist triggers. 0 when windows can be
 * traced; FL_ENOTFOUND when this kernel cannot trace them, FL_EIO when
 * setting up failed (the message says what the kernel said).
 */
int fl_lockstat_open(void);
/* Installs the triggers (fresh, empty maps) at the start of a window;
 * 0 or FL_EIO saying what the kernel said. */
int fl_lockstat_begin(void);
/* Reads the maps at the end of a window; 0 with ls filled, or FL_EIO. */
int fl_lockstat_end(struct fl_lockstat *ls);
/* Removes the triggers until the next fl_lockstat_begin, so that the
 * tracepoints are off, not just unread (locks=cost's untraced runs). */
void fl_lockstat_off(void);
/* Removes whatever is left (the synthetic event) at the end of a run. */
void fl_lockstat_close(void);

/* The tracefs root: FL_TRACEFS from the environment (tests point it at a
 * directory), else /sys/kernel/tracing or /sys/kernel/debug/tracing.
 * FL_LOCKSTAT_RAW=1 in the environment writes each window's hist text on
 * stderr (how tests/data/lockstat/ was recorded). */

/* Writes "locks":[...] into an open object. */
void fl_lockstat_json(struct jw *w, const struct fl_lockstat *ls);

#endif
