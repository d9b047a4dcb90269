/*
 * machine/priv.h - what the machine backends share (machine.c): their ops
 * for the table; for the kernel backends (libvirt, baremetal) the run's
 * directory and initramfs, and the following of a run from its records
 * to its end, handed to the request's sink. Nothing outside machine/
 * includes this.
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

/* Task counts of the benchmark as the agent's job writes them: "1,50%,100%". */
char *fl_machine_tasks_list(const struct fl_benchmark_conf *b);

/* ---- kernel machines ---- */

/* A kernel run's files on this host. */
struct fl_machine_files {
	char *dir, *initrd; /* var/runs/<id>/ and its initrd.cpio, once made */
};
/* Frees them; the initramfs is removed (rebuilt from the job in a moment). */
void fl_machine_files_release(struct fl_machine_files *f);

/* Measured points of a job (modes x task counts) and the agent's watchdog, seconds. */
unsigned fl_machine_points(const struct fl_benchmark_conf *b);
long fl_machine_watchdog_s(const struct fl_run_req *req);

/* var/runs/<run_id>/, created, as an absolute path. */
int fl_machine_run_dir(const struct fl_run_req *req, char **dir);
/* That (f->dir) and its initrd.cpio (f->initrd): fl-agent-static as /init and req->job. */
int fl_machine_initramfs(const struct fl_run_req *req, struct fl_machine_files *f);

/*
 * A run being followed: the agent's records fed as they come (any
 * chunking) into console.h, each handed to the sink, each finished point
 * said on stderr; then the end classified and handed to the sink with the
 * samples of an ok run. Times are from fl_run_watch_begin (the guest's
 * creation, the job's publication).
 */
struct fl_run_watch {
	const struct fl_run_req *req;
	struct fl_run_result *res;
	char *name; /* "run 12 (bisect step 4)" */
	struct fl_console *console;
	int64_t mono0, wall0, agent_mono, first_mono;
	int replay; /* the records come all at once after the run: no times taken from them */
	int sink_error; /* a record could not be kept: the end says so */
	char *sink_message;
};
void fl_run_watch_init(struct fl_run_watch *w, const struct fl_run_req *req,
		       struct fl_run_result *res);
void fl_run_watch_begin(struct fl_run_watch *w);
void fl_run_watch_feed(struct fl_run_watch *w, const char *data, size_t len);
/* Keeps the first sink error (fl_error_last) for the end. */
void fl_run_watch_sink_error(struct fl_run_watch *w, int code);
/* Hands the end to the sink (detail taken); res gets status, detail and times. */
int fl_run_watch_finish(struct fl_run_watch *w, enum fl_run_status st, char *detail);
/* Ends the run infra-error with "what: " and the current error message. */
int fl_run_watch_infra(struct fl_run_watch *w, const char *what);
/*
 * The end of the records: classified from them (console.h), with whether
 * the deadline (deadline_ms, for the message) passed, and handed to the
 * sink as read to their end (evidence can be made from them); note (may
 * be NULL) is added to the detail of a run that is not ok. A sink error
 * seen on the way ends the run infra-error ("store: ...", the sink being
 * the store) and is returned.
 */
int fl_run_watch_end(struct fl_run_watch *w, int passed, int64_t deadline_ms, const char *note);
void fl_run_watch_release(struct fl_run_watch *w);

#endif
