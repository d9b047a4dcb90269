/*
 * store/evidence.h - evidence per measured point of a run in the store
 * (tables evidence_points, evidence_vmstat, evidence_profile, keyed by
 * run_id): see evidence.h for what it is. The SQL lives in store/evidence.c.
 */
#ifndef FL_STORE_EVIDENCE_H
#define FL_STORE_EVIDENCE_H

#include "analysis/evidence.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/* Forgets what was stored for run_id (before it is built again). */
int fl_store_evidence_clear(fl_store *st, int64_t run_id);
/* Adds what one record said about a point: a result sets the window, the
 * profile status and the vmstat rates; a profile sets the status, the
 * samples and the functions. The caller holds a transaction. */
int fl_store_evidence_add(fl_store *st, int64_t run_id, const struct fl_evidence_point *pt);
/* The points of run_id, ordered by test, mode, tasks, each with its vmstat
 * rates (by name) and functions (most samples first); source is
 * FL_EV_RESULT. *n = 0 when nothing was stored. */
int fl_store_evidence_get(fl_store *st, int64_t run_id, struct fl_evidence_point **pts, size_t *n);

#endif
