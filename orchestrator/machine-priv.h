/*
 * machine-priv.h - what the machine backends share (machine.c): the rows a
 * run starts with and the name progress lines give it. Nothing outside the
 * machine-*.c files includes this.
 */
#ifndef FL_MACHINE_PRIV_H
#define FL_MACHINE_PRIV_H

#include "machine.h"

/*
 * Backends, one entry each in machine.c's table (by the machine's
 * "backend" key); each implements fl_machine_run's contract.
 */
int fl_machine_libvirt_run(const struct fl_run_req *req, struct fl_run_result *res);
int fl_machine_libvirt_reap(const char *uri);
int fl_machine_command_run(const struct fl_run_req *req, struct fl_run_result *res);

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

/* Wall clock, ms since the epoch, and a monotonic clock in ms. */
int64_t fl_machine_wall_ms(void);
int64_t fl_machine_mono_ms(void);

#endif
