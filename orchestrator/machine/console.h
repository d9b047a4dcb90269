/*
 * console.h - what a guest's console says about its run: the agent's FLR1
 * records (environment, results, errors, done, and whatever else it sends,
 * such as profiles), kernel panic text, the last lines; and how the run
 * ended (fl_console_classify). It owns the reading of result records into
 * samples, with machine.h's metric naming.
 *
 * No libvirt and no store: a backend feeds it console bytes as they arrive
 * (any chunking, garbage and half-written records included) and gets each
 * record and each finished point through hooks. Memory stays bounded by the
 * run's samples, not by the console's length.
 */
#ifndef FL_CONSOLE_H
#define FL_CONSOLE_H

#include <stddef.h>
#include <stdint.h>

#include "machine/machine.h"

/* The console's end kept with the run and for error messages. */
#define FL_CONSOLE_TAIL 16384

struct fl_console_expect {
	const char *test; /* page_fault2: a result of another test is an agent error */
	unsigned points;  /* results a complete run sends: modes x task counts x contexts */
};

/* One finished point: its per-second samples are kept already. */
struct fl_console_point {
	const char *test, *mode;
	unsigned tasks;
	const char *cgroup; /* "" (the root) or "child" */
	size_t nsamples;
	double ops;	 /* mean total operations per second */
	double per_task; /* ops / tasks */
};

struct fl_console_hooks {
	/* Every complete record as received (type "" when it has none); a
	 * non-zero return stops the feed and is returned by it. */
	int (*record)(void *arg, uint64_t seq, const char *type, const char *json, size_t len);
	void (*point)(void *arg, const struct fl_console_point *pt);
	void *arg;
};

/* What the console showed so far. */
struct fl_console_seen {
	int env;		   /* the environment record came: the agent started */
	int nodes, cpus;	   /* from it */
	char *kernel;		   /* uname -r in the guest */
	unsigned points;	   /* result records taken */
	unsigned errors;	   /* error records, and results that could not be read */
	char *first_error;	   /* the first of them */
	int done;		   /* the agent's last record */
	char *panic;		   /* the first "Kernel panic - not syncing" line */
	char *last_line;	   /* the last line that was not a record */
	uint64_t garbled, missing; /* records lost on the way */
};

typedef struct fl_console fl_console;

fl_console *fl_console_new(const struct fl_console_expect *x, const struct fl_console_hooks *h);
/* 0, or the first non-zero value of the record hook. */
int fl_console_feed(fl_console *c, const char *data, size_t len);
/* The end of the stream: a last partial line counts, lost records are counted. */
int fl_console_finish(fl_console *c);
void fl_console_free(fl_console *c);

const struct fl_console_seen *fl_console_seen(const fl_console *c);
/* The samples of every result so far (metric, mode, tasks, seq as machine.h says). */
const struct fl_run_sample *fl_console_samples(const fl_console *c, size_t *n);
/* The last FL_CONSOLE_TAIL bytes, as a string (caller frees). */
char *fl_console_tail(const fl_console *c);

/*
 * How the run ended, from what the console showed and whether the deadline
 * (deadline_ms, for the message) passed. *detail says why (caller frees;
 * NULL for a clean ok). Infra errors and interruptions are the backend's to
 * decide: they are not in the console.
 */
enum fl_run_status fl_console_classify(const fl_console *c, int deadline_passed,
				       int64_t deadline_ms, char **detail);

#endif
