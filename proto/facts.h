/*
 * facts.h - the machine facts: a JSON object saying what a run's machine
 * was, kept with the run (runs.machine_facts) and, for a box, with the
 * machine (machines.facts). Only the keys are named here; both sides use
 * jansson to write and read the object.
 *
 * A libvirt guest's facts, written by the orchestrator when it creates the
 * guest (orchestrator/machine/libvirt.c), read by the report's machine line
 * (the libvirt backend's describe) and shown whole on the run page:
 */
#ifndef FL_PROTO_FACTS_H
#define FL_PROTO_FACTS_H

#define FL_FACT_URI		"uri"		  /* libvirt connection */
#define FL_FACT_SOCKETS		"sockets"	  /* NUMA nodes, one per socket */
#define FL_FACT_CORES		"cores"		  /* per socket */
#define FL_FACT_THREADS		"threads"	  /* per core */
#define FL_FACT_VCPUS		"vcpus"		  /* sockets x cores x threads */
#define FL_FACT_MEMORY_PER_NODE "memory_per_node" /* bytes */
#define FL_FACT_ACCEL		"accel"		  /* kvm or tcg, as resolved */
#define FL_FACT_SLOT		"slot"		  /* the host's guest slot */
#define FL_FACT_PROFILE		"profile"	  /* booted with profile=2 */
#define FL_FACT_CMDLINE		"cmdline"	  /* the machine's extra kernel arguments */

/*
 * A box's facts, written by its agent daemon with each request for work
 * (agents/daemon.c), kept by the agent API (orchestrator/dispatch/agentapi.c)
 * and shown as they are by the report (service/report.c) and the run page:
 */
#define FL_FACT_HOSTNAME "hostname"
#define FL_FACT_KERNEL	 "kernel" /* the release it runs (uname -r) */
#define FL_FACT_ARCH	 "arch"	  /* uname -m */
#define FL_FACT_CPUS	 "cpus"	  /* online CPUs */
#define FL_FACT_NODES	 "nodes"  /* NUMA nodes */
#define FL_FACT_MEMORY	 "memory" /* bytes */

#endif
