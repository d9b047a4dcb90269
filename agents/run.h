/*
 * run.h - what fl-agent's host and guest modes share (run.c): running a
 * whole job (every test x mode x task count) and turning each point into
 * JSON.
 */
#ifndef FL_RUN_H
#define FL_RUN_H

#include "agents/bench.h"

/* json is a complete object; pt is the point it describes, or NULL for an
 * environment or error object. */
typedef void (*fl_agent_emit_fn)(void *arg, const char *json, const struct fl_bench_point *pt);

/* Runs every point of o (test x mode x task count x cgroup context, the
 * contexts innermost); 0 if all ran, FL_ERROR if any failed (each failure
 * is emitted as an error object, its one showing, and the run goes on). Each point's result
 * carries the /proc/vmstat deltas of its measured window ("vmstat_delta",
 * over "measured_s" seconds) and says whether a kernel profile of that
 * window follows ("profile": "recorded", "none" without /proc/profile, or
 * what went wrong); a recorded one comes next as a "profile" object tagged
 * with the point's test, mode and tasks. The result also carries "nodes"
 * (per NUMA node the numastat and vmstat deltas and the tasks pinned
 * there), "vmstat_missing" (expected counters the kernel lacks) and
 * "locks", the lock-contention status; a traced point (o->locks) is
 * followed by a "locks" object (lockstat.h). */
int fl_agent_run(const struct fl_bench_opts *o, fl_agent_emit_fn emit, void *arg);
/* Emits {"type":"error","message":msg}. */
void fl_agent_error(fl_agent_emit_fn emit, void *arg, const char *msg);
/* Emits the environment object: kernel, CPUs, nodes, memory, cmdline, and
 * for a job with child points the memory cgroup they run in (cgroup.h:
 * hierarchy, path, limits in force, or why it could not be made). */
struct fl_cgroup;
void fl_agent_env(const struct fl_topo *t, const struct fl_cgroup *cg, fl_agent_emit_fn emit,
		  void *arg);

#endif
