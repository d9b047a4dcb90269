/*
 * evidence.h - what a run's records say beyond its samples, per measured
 * point (test, mode, task count): the /proc/vmstat deltas per second of
 * the measured window, and the kernel profile per function (mapped with
 * the build's System.map, symbols.h). The compare stage reads it back to
 * say where the time went.
 *
 * A point comes from two records of fl-agent (agents/agent.h): its
 * "result" (vmstat_delta over measured_s, and whether a profile was
 * recorded: "recorded", "none" on a kernel without CONFIG_PROFILING or
 * booted without profile=, or what went wrong) and, when recorded, its
 * "profile" (sparse buckets). Neither is an error when it is missing: a
 * run without a profile says "no profile".
 */
#ifndef FL_EVIDENCE_H
#define FL_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/symbols.h"

struct fl_vmstat_rate {
	char *name;    /* pgfault, pgalloc_normal, numa_hit, ... */
	int64_t delta; /* over the window; gauges (nr_*) can go down */
	double per_sec;
};

/* 1 for a counter whose change per second is a rate (pgfault); 0 for a
 * gauge (nr_free_pages, numa-vmstat.node0.nr_anon_pages), whose change over
 * a window is no rate, and for a per-node task count (numa.node0.tasks). */
int fl_vmstat_counter(const char *name);

/*
 * Per-node evidence rides in the vmstat rates under LKP's names: a result's
 * "nodes" become numa-numastat.nodeN.<field> and numa-vmstat.nodeN.<field>
 * (deltas over the window, per second), and numa.nodeN.tasks, the point's
 * tasks pinned to the node's CPUs (delta and per_sec both the count: a
 * placement, not a rate). FL_NODE_PREFIX starts every such name.
 */
#define FL_NODE_PREFIX "numa"
/* 1 for a per-node name (numa-numastat.node0.numa_hit, numa.node1.tasks). */
int fl_vmstat_is_node(const char *name);

/*
 * One contended lock of a point's window (fl-agent's "locks" record,
 * agents/lockstat.h): its name (the kernel's symbol for a static lock,
 * cgroup_rstat_lock; for a lock inside an object the function that took
 * it), how it was named ("symbol", "caller", "address"), the contentions
 * (contention_begin hits), the timed waits and their summed and maximum
 * time in ns, and its top call chains as text, one a line:
 * "COUNT fn <- caller <- ...". Locks of one point with the same name (two
 * objects' locks taken by one function) are one entry: counts and waits
 * summed, the maximum kept, chains of the first.
 */
struct fl_lock_ev {
	char *name, *named_by;
	uint64_t contentions, waits, wait_ns, max_wait_ns;
	char *chains;
};

enum fl_evidence_source { FL_EV_RESULT, FL_EV_PROFILE, FL_EV_LOCKS };

struct fl_evidence_point {
	enum fl_evidence_source source; /* which record filled it */
	char *test, *mode;
	unsigned tasks;
	char *cgroup; /* "" (the root) or "child": cgroup.h's fl_cgroup_key */
	/* FL_EV_RESULT */
	double measured_s;
	struct fl_vmstat_rate *vm;
	size_t nvm;
	/* Both: "recorded", "none", the agent's reason, or "unmapped: why"
	 * for a profile no System.map could name. */
	char *profile;
	/* FL_EV_PROFILE (and read back from the store) */
	uint64_t profile_samples; /* hits in the window */
	struct fl_profile_fn *fn; /* most samples first */
	size_t nfn;
	/* FL_EV_RESULT: the counters the evidence expects that the kernel does
	 * not have ("pgfault,pgfree", no CONFIG_VM_EVENT_COUNTERS), "" when all
	 * are there, NULL from agents that did not say. */
	char *vmstat_missing;
	/* Result and locks: "recorded", "off", "not available: why" (a kernel
	 * without the tracepoints), "failed: why"; NULL: the agent predates it. */
	char *locks;
	/* FL_EV_LOCKS: most wait time first */
	struct fl_lock_ev *lk;
	size_t nlk;
};

/*
 * What one record's JSON says. *has = 1 and pt filled for a result, a
 * per-point profile or a per-point locks record, 0 for anything else (env, error, done). syms
 * may be NULL (no usable System.map): the profile is then "unmapped".
 * FL_EINVAL names the field of a record that is not what the agent writes.
 */
int fl_evidence_from_record(const char *json, size_t len, const fl_symbols *syms,
			    struct fl_evidence_point *pt, int *has);
/* The running kernel's names for the profiled buckets from the agent's
 * "ksyms" record among records; NULL when there is none that is usable. */
fl_symbols *fl_evidence_ksyms(const char *const *records, const size_t *lens, size_t n);
void fl_evidence_point_release(struct fl_evidence_point *pt);
void fl_evidence_points_free(struct fl_evidence_point *pts, size_t n);

/*
 * The evidence of a run from its records (n JSON texts): a point for each
 * result and each per-point profile record, in record order (a point's
 * result and its profile are two points with the same test, mode and
 * tasks; the store keeps them as one). Profiles are named with system_map
 * (the build's) or, where it is NULL, unusable (Debian's placeholder) or
 * of another kernel, with the running kernel's names from the agent's
 * "ksyms" record; with neither they are kept unmapped. *why (caller frees)
 * says when the System.map was not used. A malformed record is FL_EINVAL
 * naming it ("record 3: ..."), and then there are no points. Free *pts with
 * fl_evidence_points_free.
 */
int fl_evidence_from_records(const char *const *records, const size_t *lens, size_t n,
			     const char *system_map, struct fl_evidence_point **pts, size_t *npts,
			     char **why);

#endif
