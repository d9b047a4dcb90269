/*
 * store/evidence.h - the evidence of a run per measured point (tables
 * evidence_points, evidence_vmstat, evidence_profile, evidence_locks, keyed
 * by run_id): the vmstat rates of the measured window (per-node ones under
 * LKP's numa-* names), the profile's functions and the contended locks, as
 * rows.
 * What they mean and how records become them is analysis/evidence.h's; the
 * layers above turn those points into these rows (dispatch/evidence.c) and
 * back (service/measure.c). The SQL lives in store/evidence.c.
 */
#ifndef FL_STORE_EVIDENCE_H
#define FL_STORE_EVIDENCE_H

#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

struct fl_vmstat_row {
	char *name; /* pgfault, nr_free_pages, ... */
	int64_t delta;
	double per_sec;
};

struct fl_profile_row {
	char *name; /* a kernel function */
	uint64_t samples;
	double share; /* of the point's profile samples */
};

struct fl_lock_row {
	char *lock, *named_by; /* see analysis/evidence.h, fl_lock_ev */
	uint64_t contentions, waits, wait_ns, max_wait_ns;
	char *chains;
};

/*
 * A point (test, mode, tasks) of a run. Written, it is what one record
 * said: a result (is_profile 0, is_locks 0) sets the window, the profile
 * and locks statuses, the missing counters and the vmstat rates; a profile
 * (is_profile 1) the status, the samples and the functions; a locks record
 * (is_locks 1) the locks status and the locks; the strings are the
 * caller's. Read back, it is all, its strings owned by the array
 * (fl_store_evidence_free) and is_profile and is_locks 0.
 */
struct fl_evidence_row {
	int is_profile;
	int is_locks;
	char *locks;	      /* NULL: unchanged (written), not said (read) */
	char *vmstat_missing; /* likewise */
	struct fl_lock_row *lk; /* most wait time first when read */
	size_t nlk;
	char *test, *mode;
	unsigned tasks;
	char *cgroup; /* "" (the root) or "child"; NULL is written as "" */
	double measured_s;
	char *profile; /* recorded, none, or why not; written as "none" when NULL */
	uint64_t profile_samples;
	struct fl_vmstat_row *vm; /* by name when read */
	size_t nvm;
	struct fl_profile_row *fn; /* most samples first when read */
	size_t nfn;
};

/* Forgets what was stored for run_id. */
int fl_store_evidence_clear(fl_store *st, int64_t run_id);
/* Adds what one record said about a point; the caller holds a transaction. */
int fl_store_evidence_add(fl_store *st, int64_t run_id, const struct fl_evidence_row *pt);
/* Replaces the evidence of run_id with pts[0..n) in order: all or nothing. */
int fl_store_evidence_put(fl_store *st, int64_t run_id, const struct fl_evidence_row *pts,
			  size_t n);
/* The points of run_id ordered by test, mode, tasks, cgroup, each with its vmstat
 * rates and functions. *n = 0 when nothing was stored. */
int fl_store_evidence_get(fl_store *st, int64_t run_id, struct fl_evidence_row **pts, size_t *n);
void fl_store_evidence_free(struct fl_evidence_row *pts, size_t n);

#endif
