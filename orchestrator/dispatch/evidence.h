/*
 * dispatch/evidence.h - a run's evidence from its records into the store:
 * analysis/evidence.h makes the points (pure), store/evidence.h keeps them
 * as rows; this is the one place that turns the one into the other.
 */
#ifndef FL_DISPATCH_EVIDENCE_H
#define FL_DISPATCH_EVIDENCE_H

#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Builds the evidence of run_id from its records (n JSON texts) with
 * fl_evidence_from_records (system_map and *why as there) and stores it,
 * replacing what was stored for the run, all or nothing: a malformed
 * record stores nothing and keeps what was there (FL_EINVAL naming the run
 * and the record). *why (caller frees) is set either way.
 */
int fl_run_evidence_store(fl_store *st, int64_t run_id, const char *const *records,
			  const size_t *lens, size_t n, const char *system_map, char **why);

#endif
