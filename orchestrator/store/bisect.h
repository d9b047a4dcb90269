/*
 * store/bisect.h - bisections and their steps in the store (tables
 * bisections and bisect_steps), so a bisection can be shown and resumed
 * after a crash. The SQL lives in store/bisect.c.
 */
#ifndef FL_STORE_BISECT_H
#define FL_STORE_BISECT_H

#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/*
 * The unfinished bisection (running or stopped) of good..bad started with
 * options (a text the caller makes of what steers the bisection; NULL:
 * none), *resumed = 1, or a new one. *other: an unfinished bisection of the
 * same good..bad with other options, left as it is (0: none).
 */
int fl_store_bisection_open(fl_store *st, const char *good, const char *bad, const char *options,
			    int64_t *id, int *resumed, int64_t *other);
/* A running bisection no process runs any more (interrupted, out of
 * budget): 'stopped', still resumable. */
int fl_store_bisection_stop(fl_store *st, int64_t id);

struct fl_bisect_step_rec {
	size_t seq;
	const char *sha;
	int skipped;
	const double *v;
	size_t n;
	const char *verdict; /* may be "" */
	double confidence;
	/* Progress as the engine saw it, for the pages; 0 / NULL: not known. */
	size_t remaining; /* commits left (fl_bisect_step.left) */
	const char *best; /* the best candidate's sha */
	const char *phase; /* confirm, search, verify (fl_bisect_phase_name) */
	const char *branch; /* the merge whose merged branch it searched; NULL: none */
};
int fl_store_bisect_step_add(fl_store *st, int64_t id, const struct fl_bisect_step_rec *r);

/* Calls fn for every recorded step in seq order; a non-zero return stops and is returned. */
typedef int (*fl_store_step_fn)(void *ctx, const struct fl_bisect_step_rec *r);
int fl_store_bisect_steps_each(fl_store *st, int64_t id, fl_store_step_fn fn, void *ctx);

/* Marks the bisection finished with its result ("culprit", "range", ...). */
int fl_store_bisection_finish(fl_store *st, int64_t id, const char *result, const char *culprit,
			      double confidence);

#endif
