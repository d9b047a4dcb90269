/*
 * jobline.h - the agent's job: what fl-agent measures in guest mode.
 *
 * Written by the orchestrator (orchestrator/machine/machine.c,
 * fl_machine_job) for fl.job= on the kernel command line and /job in the
 * initramfs; read by fl-agent (agents/guest.c through agents/bench.c,
 * fl_bench_parse_job). Both link this file, so the keys, the separators
 * and the value formats are written down once.
 *
 * The text is items "key=value" separated by ';' (or newlines in a /job
 * file); leading blanks are skipped, and so are empty items and items
 * starting with '#'. On the kernel command line the whole job is one word,
 * so there is no escaping: a value may not hold a blank, a newline, ';',
 * '"' or '\'' (fl_jobline_value_ok), and the writer refuses one that does.
 *
 * Keys and their values:
 *   test       page_fault1,page_fault3      comma list of the table's tests
 *                                           (proto/testdef.h)
 *   mode       processes,threads            comma list
 *   tasks      1,50%,100%                   counts, or percentages of the CPUs
 *   warmup     2s                           whole seconds, "s" optional, <= 3600
 *   duration   5s
 *   memory     128M                         bytes per task: N, NK, NM or NG
 *   placement  spread | pack | none
 *   timeout    300s                         the agent's watchdog; absent: derived
 *   cgroup     root,child                   comma list: the contexts the tasks
 *                                           run in (absent: root); child is a
 *                                           child memory cgroup the agent makes
 *   cgroup_version v2 | v1                  the hierarchy the child is made in
 *                                           (absent: v2; v1 also when the kernel
 *                                           has no cgroup2 memory controller)
 *   memory_max 512M                         the child's memory.max (v1:
 *                                           memory.limit_in_bytes); absent: none
 *   memory_high 256M                        the child's memory.high (v1:
 *                                           memory.soft_limit_in_bytes)
 *   locks      on | off | cost              lock contention of each measured window
 *                                           from the lock:contention_* tracepoints
 *                                           (agents/lockstat.h); absent: on in a
 *                                           guest (PID 1), off otherwise. cost
 *                                           (bench/lockcost) measures every point
 *                                           in 5 cycles of untraced, traced,
 *                                           traced, untraced, to price the tracing
 *   hang       1                            test hook: the job never ends
 * Anything else is refused by the reader.
 */
#ifndef FL_PROTO_JOBLINE_H
#define FL_PROTO_JOBLINE_H

#include <stddef.h>
#include <stdint.h>

#define FL_JOB_TEST	 "test"
#define FL_JOB_MODE	 "mode"
#define FL_JOB_TASKS	 "tasks"
#define FL_JOB_WARMUP	 "warmup"
#define FL_JOB_DURATION	 "duration"
#define FL_JOB_MEMORY	 "memory"
#define FL_JOB_PLACEMENT "placement"
#define FL_JOB_TIMEOUT	 "timeout"
#define FL_JOB_CGROUP	 "cgroup"
#define FL_JOB_CGROUP_VERSION "cgroup_version"
#define FL_JOB_MEMORY_MAX "memory_max"
#define FL_JOB_MEMORY_HIGH "memory_high"
#define FL_JOB_HANG	 "hang"
#define FL_JOB_LOCKS	 "locks"

/* The longest seconds value either side takes (an hour). */
#define FL_JOB_SECONDS_MAX 3600

/* 1 when s can be a value of the job: not empty, no blank, newline, ';' or quote. */
int fl_jobline_value_ok(const char *s);

/* ---- writer (the orchestrator) ---- */

/* The longest job either side handles, its NUL included. */
#define FL_JOB_MAX 4096

struct fl_jobline {
	char text[FL_JOB_MAX]; /* NUL-ended; "" before the first item */
	size_t len;
};

/*
 * Appends key=value: 0, or -1 (j unchanged) for a key or value that cannot
 * be written or a job that would not fit FL_JOB_MAX.
 */
int fl_jobline_add(struct fl_jobline *j, const char *key, const char *value);
/* "Ns" */
int fl_jobline_add_seconds(struct fl_jobline *j, const char *key, long seconds);
/* bytes as N, NK or NM, the largest unit that divides it */
int fl_jobline_add_size(struct fl_jobline *j, const char *key, uint64_t bytes);
/* Appends "key=value" given as one item, as the tests' extra keys come. */
int fl_jobline_add_item(struct fl_jobline *j, const char *item);

/* ---- reader (fl-agent) ---- */

/* Gets each item; a non-zero return stops the parse and is returned. */
typedef int (*fl_jobline_fn)(void *arg, const char *key, const char *value);

/*
 * Calls fn for each item of text in order. 0, fn's non-zero value, or -1
 * for an item without '=' (why says which) or no memory.
 */
int fl_jobline_parse(const char *text, fl_jobline_fn fn, void *arg, char *why, size_t n);
/* "5s" or "5" -> 5; 0..FL_JOB_SECONDS_MAX. 0 or -1. */
int fl_jobline_seconds(const char *s, int *out);
/* "128M" -> bytes; 1 byte .. 1 TiB. 0 or -1. */
int fl_jobline_bytes(const char *s, uint64_t *out);

#endif
