/*
 * topo.h - the machine's CPU and NUMA layout as fl-agent sees it, and where
 * each benchmark task is pinned.
 *
 * Read from /sys/devices/system/node (nodeN/cpulist) and the CPUs the agent
 * may run on; without NUMA (no node directories) every CPU is node 0.
 * Placement is a pure function of the layout so it is tested on made-up
 * topologies.
 */
#ifndef FL_TOPO_H
#define FL_TOPO_H

#define FL_TOPO_MAX_CPUS 1024
#define FL_TOPO_MAX_NODES 64

struct fl_topo {
	int ncpus;			  /* usable CPUs */
	int nnodes;
	int cpu[FL_TOPO_MAX_CPUS];	  /* usable CPU ids, ascending */
	int node_of[FL_TOPO_MAX_CPUS];	  /* node of cpu[i] */
	long long node_mem_kb[FL_TOPO_MAX_NODES]; /* MemTotal per node, -1 unknown */
	int node_id[FL_TOPO_MAX_NODES];	  /* the kernel's node numbers */
};

enum fl_place {
	FL_PLACE_SPREAD, /* round-robin over nodes: node0, node1, node0, ... */
	FL_PLACE_PACK,	 /* fill one node's CPUs before the next */
	FL_PLACE_NONE,	 /* no pinning; the scheduler decides */
};

/* root is normally "/sys/devices/system/node"; 0 or FL_EIO (proto/error.h). */
int fl_topo_read(struct fl_topo *t, const char *root);
/* Parses a kernel cpulist ("0-3,8,10-11") into ids; the count, or FL_EINVAL. */
int fl_cpulist_parse(const char *s, int *ids, int max);
/* "spread", "pack" or "none"; 0 or FL_EINVAL. */
int fl_place_parse(const char *s, enum fl_place *p);
const char *fl_place_name(enum fl_place p);
/* cpus[i] for task i, -1 for no pinning. Tasks beyond the CPU count wrap
 * around, as will-it-scale does when oversubscribed. */
void fl_place_tasks(const struct fl_topo *t, enum fl_place p, int ntasks, int *cpus);

#endif
