/*
 * config.h - one YAML file describes a deployment; this is its loaded form.
 *
 * fl_config_load() reads and checks the whole file: unknown keys (with a
 * "did you mean"), types, ranges and units, duplicate names and dangling
 * references, ${VAR} from the environment. Every error names the file,
 * line and column and the path of the key, one per line:
 *
 *   configs/x.yaml:12:5: machines[0]: unknown key 'socket' (did you mean 'sockets'?)
 *
 * Relative paths in the file (store, fragments, var) are taken as written:
 * they are relative to the directory faultline runs in. docs/config.md is
 * the reference for every key.
 */
#ifndef FL_CONFIG_H
#define FL_CONFIG_H

#include "lib/httpd.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A task count: an absolute number, or a percentage of the online CPUs. */
struct fl_task_count {
	unsigned value;
	int percent; /* value is a percentage of online CPUs */
};

struct fl_tree_conf {
	char *name;
	char *url; /* git URL or local path */
	char *branch;	      /* a branch whose heads are tested; NULL: none */
	char *branch_base;    /* a revision: the first head's base, a force-push's merge base */
	int64_t branch_interval_ms; /* at most one head tested per interval */
	char **tags; /* fnmatch(3) patterns; may be empty when a branch is watched */
	size_t ntags;
	int64_t poll_ms;
	char *baseline; /* "previous-tag", "contained-tag", or a fixed revision */
	char *baseline_tree;  /* contained-tag: the tree whose tags are bases; NULL: this one */
	char **baseline_tags; /* contained-tag: their patterns; empty: that tree's tags */
	size_t nbaseline_tags;
	unsigned backfill; /* first pass over a tree: test only this many of the newest tags */
	/* a commit's page on cgit/gitweb, "%s" the full sha; NULL: none */
	char *web_url;
	char *public_url;  /* what a report tells recipients to clone; NULL: url when remote */
	char *routing;	   /* hold, maintainers; NULL: report.routing */
	char **cc;	   /* the tree's own lists, copied on its reports when not held */
	size_t ncc;
};

struct fl_kernel_conf {
	char *name;
	char *base; /* tinyconfig, defconfig, allnoconfig, or a config file */
	char **fragments;
	size_t nfragments;
	char *missing_option; /* "error" or "warning" when a fragment option does not survive */
};

struct fl_machine_conf {
	char *name;
	char *backend; /* one of fl_config_backend_names() */
	char *uri;
	char *pool;	/* libvirt: storage pool for the guest's kernel and initramfs */
	char *pool_dir; /* libvirt, no pool: target of the transient pool faultline creates */
	char *accel; /* kvm, tcg, auto */
	unsigned sockets, cores, threads;
	uint64_t memory_per_node;
	unsigned *distances; /* nodes x nodes, row-major; empty for the default */
	size_t ndistances;
	unsigned max_parallel;
	int64_t boot_timeout_ms; /* kernel machines: creation to the agent's start, at most */
	char *cmdline;		 /* kernel machines: extra kernel command-line arguments */
	char *command; /* command backend: shell command run in the checkout */
	char *token_file; /* baremetal: the box's shared secret */
	char *boot;	  /* baremetal: kexec (the kernel under test) or current (the box's own) */
	unsigned max_misses; /* baremetal: deadlines missed in a row before the box is offline */
	int64_t timeout_ms; /* command backend: limit of one run; baremetal: deadline, when set */
	unsigned max_infra_errors; /* infra errors in a row before it leaves the pool */
	char *worker_host; /* only the workers of this host drive it; NULL: any worker */
};

struct fl_benchmark_conf {
	char *name;
	char *test;   /* a test of the table (proto/testdef.h) */
	char **modes; /* processes, threads */
	size_t nmodes;
	struct fl_task_count *tasks;
	size_t ntasks;
	int64_t warmup_ms, duration_ms;
	unsigned repeat;
	unsigned max_repeat; /* runs per side a comparison may grow to; 0: 4 x repeat */
	uint64_t memory_per_task;
	char *placement; /* spread, pack, none */
	char *direction; /* higher (throughput) or lower (latency) is better */
	char *kernel;	 /* kernel entry to build; defaults to the only one */
	char **machines; /* machines to run on; empty means all */
	size_t nmachines;
	/* The cgroup contexts the tasks run in, a dimension like tasks:
	 * "root" (the root cgroup), "child" (a child memory cgroup the agent
	 * makes), with the hierarchy asked for (v2, or v1) and the child's
	 * memory.max and memory.high (0: no limit). */
	char **cgroups;
	size_t ncgroups;
	char *cgroup_version;
	uint64_t memory_max, memory_high;
};

struct fl_config {
	char *path; /* the file it was read from */
	char *var;  /* runtime state: trees, slots, artifacts, logs */
	struct {
		char *path; /* what fl_store_open takes: a file, or url when it is PostgreSQL's */
		char *url;  /* as written: postgresql://..., sqlite:FILE or FILE */
	} store;
	struct fl_tree_conf *trees;
	size_t ntrees;
	struct fl_kernel_conf *kernels;
	size_t nkernels;
	struct fl_machine_conf *machines;
	size_t nmachines;
	struct fl_benchmark_conf *benchmarks;
	size_t nbenchmarks;
	struct {
		unsigned slots;	   /* build slots that may build at once */
		unsigned object_trees; /* object trees per slot and config (build/objtree.h) */
		unsigned jobs;	   /* make -j; 0 means the CPUs available */
		int64_t timeout_ms;
		uint64_t cache_size; /* artifact cache cap, LRU eviction */
		/* where artifacts are published, <var>/artifacts by default: a
		 * directory every worker sees (build/artifacts.h) */
		char *artifacts;
	} build;
	struct {
		double min_change; /* fraction: 0.02 for 2% */
		double confidence;
		unsigned max_runs; /* bisection budget */
	} regression;
	struct {
		char *smtp;
		char *from;
		char **to;
		size_t nto;
		char *username;
		char *password;
		char *url; /* base of the links in reports */
		int64_t retry_ms; /* first retry of a failed send; doubles up to 1h */
		/* hold: every mail to report.to only (the operator; the default);
		 * maintainers: to the culprit's author, cc its committer, trailers,
		 * get_maintainer.pl's people and lists, report.to and cc */
		char *routing;
		char **cc;
		size_t ncc;
		char *improvements; /* "true": a tag's improvement is bisected and reported too */
		char **allow; /* senders whose "#faultline" commands are acted on */
		size_t nallow;
	} report;
	struct {
		char *listen;
		char *root; /* templates/ and static/ of the results pages */
		struct fl_httpd_limits limits; /* no request body: body_max 0 */
	} web;
	struct {
		char *listen;	   /* host:port of the bare-metal agent API; NULL: none */
		char *cert, *key;  /* PEM files: HTTPS when both are set */
		int64_t window_ms; /* a request's timestamp may be this far off */
		struct fl_httpd_limits limits;
	} agent_api;
	struct {
		char *host;	  /* this worker's host in the store; NULL: gethostname() */
		int64_t lease_ms; /* a worker not heard of this long is gone (service/queue.h) */
	} worker;
	struct fl_config_priv *priv;
};

/* Returns 0, or FL_EINVAL / FL_EIO with every problem found in fl_error_last(). */
int fl_config_load(struct fl_config **out, const char *path);
/* The configuration of an empty file: every key at its default. */
int fl_config_defaults(struct fl_config **out);
void fl_config_free(struct fl_config *cfg);

/* Writes the normalised configuration as YAML (secrets masked). */
void fl_config_print(const struct fl_config *cfg, FILE *out);

/*
 * "file:line:col: path" of a loaded value, given the address of its field in
 * cfg (for example &cfg->kernels[0].fragments[1]), so later stages can point
 * at the line a problem comes from. NULL if the value was not in the file.
 */
const char *fl_config_where(const struct fl_config *cfg, const void *field);

/*
 * The backends a machine may name ("backend"): the configuration's half of
 * a backend, what the loader checks of it (its own keys: command,
 * token_file, ...). What runs it is the machine layer's ops table
 * (machine/machine.h), keyed by the same names; config cannot see that
 * layer, and test_machine_ops checks the two tables name the same set.
 */
struct fl_backend_conf {
	const char *name;
	/* Runs boot a kernel under test (or measure the box's own): the
	 * benchmarks on it name a test; 0 for the command backend. */
	int kernel;
};
/* The backend of that name, or NULL. */
const struct fl_backend_conf *fl_config_backend(const char *name);
/* Every backend's name, NULL-ended. */
const char *const *fl_config_backend_names(void);
/* 1 for a machine whose runs boot a kernel (fl_backend_conf.kernel). */
int fl_config_machine_kernel(const struct fl_machine_conf *m);

/* A guest's vCPUs (sockets x cores x threads) and memory (per node x sockets). */
unsigned fl_config_machine_cpus(const struct fl_machine_conf *m);
uint64_t fl_config_machine_memory(const struct fl_machine_conf *m);

const struct fl_tree_conf *fl_config_tree(const struct fl_config *cfg, const char *name);
const struct fl_kernel_conf *fl_config_kernel(const struct fl_config *cfg, const char *name);
const struct fl_machine_conf *fl_config_machine(const struct fl_config *cfg, const char *name);
const struct fl_benchmark_conf *fl_config_benchmark(const struct fl_config *cfg,
						    const char *name);

#endif
