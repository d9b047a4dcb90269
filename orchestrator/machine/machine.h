/*
 * machine.h - one run of one benchmark on one machine, whatever the machine
 * is: the contract between the stages that decide what to measure (the
 * "run" command, the watch service, bisection) and the backends that
 * measure it.
 *
 * Backends sit behind one ops table (struct fl_machine_ops, the table in
 * machine.c), one file each:
 *   libvirt    a transient NUMA guest booting the kernel under test with
 *              fl-agent as /init (machine/libvirt.c)
 *   command    a shell command in a checkout of the commit; numbers on
 *              stdout are samples, exit 125 means untestable
 *              (machine/command.c)
 *   baremetal  a box that kexecs into the kernel under test through its
 *              agent daemon, or measures its own kernel (boot: current)
 *              (machine/baremetal.c, boxes.h, docs/baremetal.md)
 * Nothing outside a backend's file compares backend names: callers ask
 * the table (fl_machine_ops_of, fl_machine_backend) or fl_machine_kernel/
 * own_kernel, and what differs between backends where they are shown (a
 * guest's slowdown, the run page's words, a report's configuration line)
 * is a member of the ops.
 *
 * The layering splits a backend in two: config/ sits below machine/, so
 * the configuration keeps the backend names and what it checks of each
 * (fl_backend_conf in config.h: the "backend" key's choices, whether its
 * runs boot a kernel, the check of its own keys), and this layer maps each
 * name to its ops. Adding a backend is its file here with its ops, one
 * entry in machine.c's table, and one entry in config.c's (its name, its
 * keys' check); test_machine_ops fails while the two tables differ.
 *
 * A backend only runs: it opens, reads and writes no store. It gets the
 * run ready to go (the kernel to boot, the agent's job, the run's id) from
 * the dispatcher (dispatch/dispatch.h), which keeps the run row, and hands
 * back what the run produces through the request's sink as it comes: each
 * agent record, the guest's or box's facts, and the end once (status,
 * samples of an ok run, console). Bare-metal boxes reach the box queue
 * through the request's boxes (machine/boxes.h). Both are calls up
 * through function pointers the dispatcher sets (docs/architecture.md).
 *
 * Samples of a page-fault benchmark, per measured point (mode, task count),
 * one value per measured second (seq):
 *   metric "ops"                           total operations per second
 *   metric "per_process_ops" / "per_thread_ops"   operations per second per
 *                                          task (the primary metric, as LKP
 *                                          reports will-it-scale)
 * A command run hands back metric "value", mode "", tasks 1, one per number.
 */
#ifndef FL_MACHINE_H
#define FL_MACHINE_H

#include <stddef.h>
#include <stdint.h>

#include "build/repo.h"
#include "lib/buf.h"

struct fl_config;
struct fl_machine_conf;
struct fl_benchmark_conf;
struct fl_tree_conf;
struct fl_boxes;

/* How a run ended; the store keeps the name (fl_run_status_name). */
enum fl_run_status {
	FL_RUN_OK,
	FL_RUN_BOOT_FAILED, /* the kernel never started the agent */
	FL_RUN_PANIC,	    /* kernel panic text on the console */
	FL_RUN_TIMEOUT,	    /* the deadline passed; the guest was destroyed */
	FL_RUN_AGENT_ERROR, /* the agent started but reported an error */
	FL_RUN_INFRA_ERROR, /* ours, not the commit's: libvirt, disk; retry, never a sample */
	FL_RUN_UNTESTABLE,  /* build-failed commit, or a command's exit 125: bisection skips it */
};
const char *fl_run_status_name(enum fl_run_status s);
/* The status a name stands for; FL_EINVAL for an unknown name. */
int fl_run_status_parse(const char *name, enum fl_run_status *s);

/* One measured value (the metric naming above); the strings are borrowed. */
struct fl_run_sample {
	const char *metric, *mode;
	unsigned tasks;
	unsigned seq; /* sample number within the point */
	double value;
	const char *cgroup; /* the point's cgroup context: NULL or "" the root, "child" */
};

/* The kernel a kernel machine boots, found by the caller (built or prebuilt). */
struct fl_run_kernel {
	const char *image;	/* absolute: libvirtd and the agent API open it */
	const char *system_map; /* may be NULL */
	int profile;		/* its config has CONFIG_PROFILING=y: boot with profile=2 */
	int prebuilt;		/* an image named by the user, not built from the revision */
};

/* The guest or box a run got, once the backend has it. */
struct fl_machine_guest {
	const char *domain;	  /* libvirt domain name, or NULL */
	const char *accel;	  /* kvm, tcg, or NULL */
	const char *facts;	  /* JSON: topology, memory, URI (proto/facts.h) */
	const char *console_path; /* the whole console log on this host */
	int64_t created_ms;	  /* wall clock: the guest's creation, the job's publication */
};

/* How a run ended, handed back once. */
struct fl_machine_end {
	enum fl_run_status status;
	const char *detail;  /* why: first error line, panic line; may be NULL */
	const char *console; /* the end of the console, bounded; may be NULL */
	/* From the agent's environment record; 0 / NULL when none came. */
	int nodes, cpus;
	const char *kernel_release;
	/* Wall clock ms since the epoch; 0 when it did not happen. */
	int64_t agent_ms, first_sample_ms, ended_ms;
	/* Only with FL_RUN_OK. */
	const struct fl_run_sample *samples;
	size_t nsamples;
	/* The records were read to their end: the run's evidence (vmstat, profiles, locks) can
	 * be made from them. */
	int evidence;
};

/*
 * Where a backend hands what its run produces, as it comes (the dispatcher
 * keeps it in the store). Each hook returns 0 or a negative FL_E* code
 * with the message kept; a backend ends a run whose record could not be
 * kept infra-error and returns that error.
 */
struct fl_run_sink {
	/* Every agent record as received, in order (type "" when it has none). */
	int (*record)(void *arg, uint64_t seq, const char *type, const char *json, size_t len);
	/* The guest or box, once the backend has it. */
	int (*guest)(void *arg, const struct fl_machine_guest *g);
	/* What the backend knows of the machine itself (JSON), kept beyond the run. */
	int (*facts)(void *arg, const char *json);
	/* The end, once, on every path after the run started. */
	int (*end)(void *arg, const struct fl_machine_end *e);
	void *arg;
};

struct fl_run_req {
	const struct fl_config *cfg;
	const struct fl_machine_conf *machine;
	const struct fl_benchmark_conf *bench;
	/* What runs: a revision of a tree (built with the benchmark's kernel
	 * on kernel machines, checked out for the command backend) ... */
	const struct fl_tree_conf *tree;
	fl_repo *repo;
	const char *rev;
	const char *sha; /* the commit rev names (command backend) */
	/* ... on kernel machines the kernel (NULL when the machine measures its
	 * own) and the agent's job (fl_machine_job). */
	const struct fl_run_kernel *kernel;
	const char *job;
	/* Shown in progress lines: "bisect step 4", "v6.1-fl1 run 2/3". */
	const char *label;
	/* The run's id: names its directory var/runs/<id>/ and its guest. */
	int64_t run_id;
	/* Extra agent job keys after the benchmark's own, "key=value", NULL-ended
	 * (tests: "hang=1" is the agent's hang hook); may be NULL. */
	const char *const *job_extra;
	/* The whole run's deadline from the guest's creation; 0 derives it from
	 * the machine's boot_timeout and the benchmark's length. */
	int64_t deadline_ms;
	const struct fl_run_sink *sink;
	const struct fl_boxes *boxes; /* the box queue (agent_api backends) */
};

struct fl_run_result {
	int64_t run_id;	  /* 0 when no run was kept (the build failed, untestable) */
	int64_t build_id; /* 0 for the command backend and prebuilt images */
	enum fl_run_status status;
	char *detail; /* why it ended that way: first error line, panic line; may be NULL */
	/* From the guest's creation, ms; -1 when it did not happen. */
	int64_t agent_ms;	 /* the agent's first record */
	int64_t first_sample_ms; /* the first result */
	int64_t total_ms;	 /* the end of the run */
};

/*
 * Runs req->bench once on req->machine, handing what it produces to
 * req->sink (its end on every path once the run started). Every way the
 * commit or the machine can fail is a status, not an error: 0 is returned
 * with res->status set. Negative FL_E* codes are for a request that cannot
 * be carried out at all (bad arguments, a record the sink could not keep)
 * and leave the reason in fl_error_last().
 *
 * Told to stop (fl_cancel_runs() of lib/cancel.h: a command that runs
 * machines calls fl_cancel_catch() first), a run ends infra-error with
 * detail "interrupted" and its guest destroyed; the caller should stop.
 */
int fl_machine_run(const struct fl_run_req *req, struct fl_run_result *res);
/*
 * fl-agent-static: $FL_AGENT, else beside the executable: the build tree's
 * agents/, or an install's libexec/faultline/ (from its bin/). Caller frees.
 */
int fl_machine_agent_path(char **out);
void fl_run_result_release(struct fl_run_result *res);

/*
 * 1 for a machine that measures whatever kernel it runs (baremetal with
 * boot: current): its runs take neither a revision nor a kernel image.
 */
int fl_machine_own_kernel(const struct fl_machine_conf *m);
/*
 * 1 for a machine whose runs boot a kernel under test (or measure the
 * box's own): the benchmark's test parameters apply; 0 for a command.
 */
int fl_machine_kernel(const struct fl_machine_conf *m);

/* What a run saw of its machine, for describe (NULL members: not known). */
struct fl_machine_seen {
	int64_t run_id;
	const char *facts; /* the run's guest facts (JSON) */
	const char *accel, *kernel_release;
	int nodes, cpus; /* 0: unknown */
};

/* A backend: what fl_machine_run and the stages around it ask of it. */
struct fl_machine_ops {
	const char *name; /* the configuration's "backend" (config.h) */
	/* fl_machine_run's contract, for a request already checked. */
	int (*run)(const struct fl_run_req *req, struct fl_run_result *res);
	/*
	 * Destroys what this host's dead processes left on m (guests); the
	 * count, or a negative FL_E* code. NULL: nothing outlives a process.
	 * Called once per uri.
	 */
	int (*reap)(const struct fl_machine_conf *m);
	/*
	 * The machine as a report shows it, after "on test machine: ": from
	 * the configuration and, when there is one, what the run the report's
	 * numbers come from saw (its facts and what the agent saw).
	 */
	void (*describe)(const struct fl_machine_conf *m, const struct fl_machine_seen *run,
			 fl_buf *out);
	/* fl_machine_own_kernel; NULL: never. */
	int (*own_kernel)(const struct fl_machine_conf *m);
	/*
	 * The run row's parameters (JSON; caller frees). NULL: the benchmark's
	 * (fl_machine_params).
	 */
	char *(*params)(const struct fl_run_req *req);
	/* How many times slower than its own clock a job runs (fl_machine_slowdown); NULL: 1. */
	long (*slowdown)(const struct fl_machine_conf *m);
	/*
	 * The machine's own keys in the one-line mapping of a configuration
	 * that reproduces its runs (a report's repro.yaml), each as ", key:
	 * value", a text value written through quote. NULL: none.
	 */
	void (*repro_keys)(const struct fl_machine_conf *m, fl_buf *out,
			   void (*quote)(fl_buf *out, const char *text));
	/* The run page's words: what a run starts with ("guest created"), the
	 * time from then to the agent ("boot to the agent"), whose facts the
	 * run keeps ("Guest"). */
	const char *start_word, *agent_word, *facts_word;
	/* Its boxes ask the agent API for work (dispatch/agentapi.h) through the box queue. */
	int agent_api;
};

/* The backends in this faultline; *n of them. */
const struct fl_machine_ops *const *fl_machine_backends(size_t *n);
/* The backend of that name, or NULL. */
const struct fl_machine_ops *fl_machine_backend(const char *name);
/*
 * m's backend: 0, or FL_EINVAL naming the place in the configuration
 * (file:line of its "backend", when cfg has it) and the backends there are.
 */
int fl_machine_ops_of(const struct fl_config *cfg, const struct fl_machine_conf *m,
		      const struct fl_machine_ops **ops);
/* The run page's words of a backend by name; a name no backend has gets plain ones. */
void fl_machine_words(const char *backend, const char **start, const char **agent,
		      const char **facts);

/*
 * The agent's job for req as fl.job= carries it (proto/jobline.h: its keys
 * and value formats): the benchmark's parameters, the agent's watchdog, and
 * req->job_extra. Caller frees *job. FL_EINVAL for a value the job line
 * cannot carry (a space, a quote, ';').
 */
int fl_machine_job(const struct fl_run_req *req, char **job);
/* What the run row keeps of req as its parameters (JSON; caller frees): the backend's
 * params, else the benchmark's as the job has them, the revision, the tree. */
char *fl_machine_params(const struct fl_run_req *req);
/* How many times slower than its own clock a job on m runs (the backend's slowdown). */
long fl_machine_slowdown(const struct fl_machine_conf *m);

/* "run 12" or "run 12 (bisect step 4)", for progress lines; caller frees. */
char *fl_machine_run_name(const char *label, int64_t run_id);
/* 1 when process pid is certainly gone on this host. */
int fl_machine_process_gone(int pid);
/*
 * Destroys what this host's dead processes left on cfg's machines (guests
 * and their volumes), once per host; a host that cannot be reached is
 * said on stderr and skipped.
 */
void fl_machine_reap(const struct fl_config *cfg);

#endif
