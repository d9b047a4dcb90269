/*
 * store/compare.h - the runs a comparison is made of, read from the store
 * into compare.h's input: each run's samples (fl_store_run_samples) and its
 * evidence (fl_store_evidence_get). The SQL lives in store/compare.c.
 *
 * Which runs: the ok runs of a benchmark on a machine for a commit, by
 * runs.commit_id, or for older rows without it by their build's commit; or
 * runs named by id (the watch service's run jobs, prebuilt-image runs that
 * belong to no commit).
 */
#ifndef FL_STORE_COMPARE_H
#define FL_STORE_COMPARE_H

#include "analysis/compare.h"
#include "store/run.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/* One side of a comparison and everything its set points into. */
struct fl_cmp_side {
	struct fl_cmp_set set; /* what fl_compare() takes; label is a copy */
	int64_t *ids;	       /* the runs, in set.runs order */
	struct fl_cmp_run *runs;
	struct fl_sample_row **rows;
	size_t *nrows;
	struct fl_sample **samples; /* views of rows */
	struct fl_evidence_point **points;
	size_t *npoints;
};

/*
 * Loads runs ids[0..n) as a side labelled label; evidence too unless
 * metrics_only. A run that is not ok is FL_EINVAL naming it (samples of a
 * failed run never count). n may be 0 (an empty side).
 */
int fl_cmp_side_load(fl_store *st, const char *label, const int64_t *ids, size_t n,
		     int metrics_only, struct fl_cmp_side *out);
void fl_cmp_side_release(struct fl_cmp_side *s);

/* The ok runs of benchmark on machine for the commit sha (in any tree),
 * oldest first (caller frees *ids). *n = 0 when there are none. */
int fl_store_cmp_commit_runs(fl_store *st, const char *sha, const char *benchmark,
			     const char *machine, int64_t **ids, size_t *n);

/* A commit in the store by its full sha or a prefix of at least 4 hex
 * digits: the full sha. FL_ENOTFOUND when none matches, FL_EINVAL when two
 * commits do. */
int fl_store_cmp_commit_sha(fl_store *st, const char *prefix, char sha[41]);

/* What a run is, for checking runs named by id: FL_ENOTFOUND for none. */
struct fl_cmp_run_info {
	char *benchmark, *machine, *status;
};
int fl_store_cmp_run_info(fl_store *st, int64_t id, struct fl_cmp_run_info *out);
void fl_cmp_run_info_release(struct fl_cmp_run_info *ri);

#endif
