/*
 * cgroup.h - the child memory cgroup a point's tasks may run in (the job's
 * "cgroup: child", proto/jobline.h), as the maintainers in the 3.17 thread
 * asked for the same numbers "inside a memcg": the charge path of a
 * non-root memory cgroup is not the root's.
 *
 * cgroup v2 by default: the unified hierarchy mounted at /sys/fs/cgroup if
 * nothing is there yet (a guest's /init), the memory controller enabled in
 * the agent's own cgroup (the root in a guest) and a child "faultline"
 * made under it. v1 when the job asks (cgroup_version=v1) or the kernel
 * offers no memory controller on v2 (no cgroup2, or memory bound to a v1
 * hierarchy): the memory hierarchy at /sys/fs/cgroup/memory when it is
 * mounted, else mounted at /tmp/fl-memcg. memory_max and memory_high go to
 * memory.max and memory.high (v1: memory.limit_in_bytes and
 * memory.soft_limit_in_bytes) and are read back for the environment record.
 *
 * The agent moves itself into the child right before a point's tasks start
 * and back right after: the tasks (forked processes or threads of the
 * agent) are created inside it, so every page they fault is charged to it;
 * the sampling parent's own few pages do not matter. The faults the child's
 * memory.stat counts over a point's measured window go in its result
 * ("cgroup_pgfault"), which shows the tasks ran there. libc only.
 */
#ifndef FL_CGROUP_H
#define FL_CGROUP_H

#include "agents/bench.h"
#include "agents/jsonw.h"

struct fl_cgroup {
	int ready;	  /* made; else why says what failed */
	int v1;		  /* the hierarchy in use */
	char dir[256];	  /* the child */
	char parent[256]; /* the cgroup the agent goes back to */
	char max[32];	  /* memory.max as in force: "max" or bytes */
	char high[32];	  /* memory.high (v1: the soft limit) */
	char why[256];
};

/* The child for o, made once per process; NULL when o asks for none. One
 * that could not be made is not ready and says why. */
const struct fl_cgroup *fl_cgroup_prepare(const struct fl_bench_opts *o);
/* Moves the calling process (all its threads) into the child, or back:
 * 0, or a negative code (proto/error.h). */
int fl_cgroup_enter(const struct fl_cgroup *cg);
int fl_cgroup_leave(const struct fl_cgroup *cg);
/* The page faults the child's memory.stat counts (pgfault): 0, or a
 * negative code. */
int fl_cgroup_pgfault(const struct fl_cgroup *cg, uint64_t *out);
/* "cgroup":{"hierarchy":"v2","path":..,"memory.max":..,"memory.high":..},
 * or {"error":why} when it could not be made. */
void fl_cgroup_json(struct jw *w, const struct fl_cgroup *cg);

#endif
