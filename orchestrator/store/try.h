/*
 * store/try.h - the tries table: a proposed fix (a patch, or a revision)
 * measured against the commit it was made on and, for a regression, the
 * regression's good commit (service/try.c is the step; the SQL is in
 * store/try.c).
 *
 * A try is added once by "faultline try" with its job; its step fills in
 * the candidate commit (or where the patch does not apply), then the
 * verdict and the reply mailed.
 */
#ifndef FL_STORE_TRY_H
#define FL_STORE_TRY_H

#include "store/store.h"

#include <stdint.h>

struct fl_try {
	int64_t id, regression_id; /* regression_id 0: none */
	char *tree, *benchmark, *machine;
	char *base_sha; /* what the fix is made on (and measured against) */
	char *good_sha; /* the regression's good commit, or NULL */
	char *rev_sha;	/* a revision to measure as it is, or NULL */
	char *patch_name, *patch;
	char *points; /* the run jobs' points (service/measure.h), or NULL: all */
	char *state;  /* queued, applied, conflict, error */
	char *commit_sha, *ref, *subject;
	char *conflict, *error;
	char *verdict;	      /* NULL until concluded */
	double recovered_pct; /* partial: how much of the drop came back; NAN: none */
	char *summary;	      /* the answer as mailed and printed */
	int64_t report_id, created, finished;
	char *purpose; /* fix (a proposed fix), fixcheck (a later tag checked by the service); NULL: fix */
	char *tag;     /* fixcheck: the tag measured */
};
void fl_try_release(struct fl_try *t);

/* Adds a try from t's request fields (tree .. points); *id. */
int fl_store_try_add(fl_store *st, const struct fl_try *t, int64_t *id);
/* FL_ENOTFOUND naming the id when there is none. */
int fl_store_try_get(fl_store *st, int64_t id, struct fl_try *t);
/* The candidate: state applied (commit_sha, ref, subject), conflict or error. */
int fl_store_try_candidate(fl_store *st, int64_t id, const char *state, const char *commit_sha,
			   const char *ref, const char *subject, const char *conflict,
			   const char *error);
/* The end: the verdict, the share of the drop recovered (NAN: none), the
 * answer's text, the reply mailed (0: none). */
int fl_store_try_conclude(fl_store *st, int64_t id, const char *verdict, double recovered_pct,
			  const char *summary, int64_t report_id, int64_t now);
/* The fixcheck try of a regression at a tag: *id 0 when there is none. */
int fl_store_try_fixcheck_find(fl_store *st, int64_t regression_id, const char *tag, int64_t *id);
/* The ids of a regression's tries, oldest first. */
int fl_store_tries_of(fl_store *st, int64_t regression_id, int64_t **ids, size_t *n);

#endif
