/*
 * machine/priv.h - what the machine backends share (machine.c): their ops
 * for the table, the rows a run starts with and the name progress lines
 * give it; for the kernel backends (libvirt, baremetal) the kernel, the
 * initramfs, and the following of a run from its records to its stored
 * end. Nothing outside machine/ includes this.
 */
#ifndef FL_MACHINE_PRIV_H
#define FL_MACHINE_PRIV_H

#include "machine/machine.h"

#include <stddef.h>

struct fl_console;

/* The backends' ops, one per backend file, listed in machine.c's table. */
extern const struct fl_machine_ops fl_machine_libvirt_ops;
extern const struct fl_machine_ops fl_machine_command_ops;
extern const struct fl_machine_ops fl_machine_baremetal_ops;

/*
 * The commit row of sha in req->tree (tree and commit rows created on
 * first sight, with the commit's subject and author from req->repo).
 */
int fl_machine_commit_row(const struct fl_run_req *req, const char *sha, int64_t *commit_id);

/* Creates the run row, 'running': machine row, the benchmark's parameters as JSON. */
int fl_machine_run_start(const struct fl_run_req *req, int64_t build_id, int64_t commit_id,
			 int64_t *run_id);

/* "run 12" or "run 12 (bisect step 4)", for progress lines; caller frees. */
char *fl_machine_run_name(const struct fl_run_req *req, int64_t run_id);

/* Task counts of the benchmark as the agent's job writes them: "1,50%,100%". */
char *fl_machine_tasks_list(const struct fl_benchmark_conf *b);

/* 1 when process pid is certainly gone on this host. */
int fl_machine_process_gone(int pid);

/* ---- kernel machines ---- */

/* The kernel a run boots, the agent's job and the files that go with them. */
struct fl_machine_kernel {
	char *image, *system_map; /* absolute paths; system_map may be NULL */
	int profile;		  /* its config has CONFIG_PROFILING=y: boot with profile=2 */
	char *job;		  /* the agent's job text (fl.job=) */
	char *dir, *initrd;	  /* var/runs/<id>/ and its initrd.cpio, once made */
};
/* Frees it all; the initramfs is removed (rebuilt from the job in a moment). */
void fl_machine_kernel_release(struct fl_machine_kernel *k);

/*
 * The first steps of a kernel machine's run: the benchmark's test checked,
 * the kernel built through build.h (or the prebuilt image found, with its
 * System.map and config beside it), the agent's job text, and the run row
 * (res->run_id). 1 when the commit does not build (res says untestable, no
 * run row), 0, or an error.
 */
int fl_machine_kernel_start(const struct fl_run_req *req, struct fl_run_result *res,
			    struct fl_machine_kernel *k, int64_t *run_id);

/* Measured points of a job (modes x task counts) and the agent's watchdog, seconds. */
unsigned fl_machine_points(const struct fl_benchmark_conf *b);
long fl_machine_watchdog_s(const struct fl_run_req *req);

/* var/runs/<id>/, created, as an absolute path. */
int fl_machine_run_dir(const struct fl_run_req *req, int64_t run_id, char **dir);
/* That (k->dir) and its initrd.cpio (k->initrd): fl-agent-static as /init and k->job. */
int fl_machine_initramfs(const struct fl_run_req *req, int64_t run_id, struct fl_machine_kernel *k);

/*
 * A run being followed: the agent's records fed as they come (any
 * chunking) into console.h, each stored in run_records, each finished point
 * said on stderr; then the end classified and stored with the samples of an
 * ok run, and its evidence (vmstat rates and profiles per point, named
 * with system_map or the kernel's own ksyms record) made from the stored
 * records. Times are from fl_run_watch_begin (the guest's creation, the
 * job's publication).
 */
struct fl_run_watch {
	const struct fl_run_req *req;
	struct fl_run_result *res;
	int64_t run_id;
	const char *system_map; /* the kernel's, for the profile; may be NULL */
	char *name; /* "run 12 (bisect step 4)" */
	struct fl_console *console;
	int64_t mono0, wall0, agent_mono, first_mono;
	int replay; /* the records come all at once after the run: no times taken from them */
	int store_error; /* records could not be stored: the end says so */
	char *store_message;
};
void fl_run_watch_init(struct fl_run_watch *w, const struct fl_run_req *req,
		       struct fl_run_result *res, int64_t run_id);
void fl_run_watch_begin(struct fl_run_watch *w);
void fl_run_watch_feed(struct fl_run_watch *w, const char *data, size_t len);
/* Keeps the first store error (fl_error_last) for the end. */
void fl_run_watch_store_error(struct fl_run_watch *w, int code);
/* Stores the end (detail taken); res gets status, detail and times. */
int fl_run_watch_finish(struct fl_run_watch *w, enum fl_run_status st, char *detail);
/* Ends the run infra-error with "what: " and the current error message. */
int fl_run_watch_infra(struct fl_run_watch *w, const char *what);
/*
 * The end of the records: classified from them (console.h), with whether
 * the deadline (deadline_ms, for the message) passed, and stored; note (may
 * be NULL) is added to the detail of a run that is not ok. A store error
 * seen on the way ends the run infra-error and is returned.
 */
int fl_run_watch_end(struct fl_run_watch *w, int passed, int64_t deadline_ms, const char *note);
void fl_run_watch_release(struct fl_run_watch *w);

#endif
