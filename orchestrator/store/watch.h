/*
 * store/watch.h - what the watch service decides, in the store: the tags
 * it has seen (watch_tags: a tag is scheduled at most once), comparison
 * results (comparisons, improvements included), regressions and their one
 * bisection, and revert checks (reverts). The SQL lives in store/watch.c.
 *
 * Changes are percentages as measured, (new - base) / base: -24.6 is a
 * quarter less throughput.
 */
#ifndef FL_STORE_WATCH_H
#define FL_STORE_WATCH_H

#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/* ---- tags ----------------------------------------------------------- */

struct fl_watch_tag_new {
	int64_t tree_id;
	const char *tag;
	int64_t commit_id;
	const char *baseline; /* NULL for skipped and no-baseline tags */
	int64_t baseline_commit;
	const char *state; /* scheduled, skipped, no-baseline */
	const char *note;  /* why, for the log and the pages */
	const char *kind;  /* NULL or "tag"; "head": a head of the branch in ref */
	const char *ref;
};
/* FL_EEXISTS when the tree already has the tag. */
int fl_store_watch_tag_add(fl_store *st, const struct fl_watch_tag_new *t, int64_t *id);
/* *seen: the tree has a row for the tag (or head); *count: tag rows of the tree. */
int fl_store_watch_tag_seen(fl_store *st, int64_t tree_id, const char *tag, int *seen);
int fl_store_watch_tags_count(fl_store *st, int64_t tree_id, size_t *count);

/*
 * The newest recorded head of a branch (scheduled or skipped: what its next
 * head is compared with) and when the branch's newest head was scheduled
 * (*tested, seconds since the epoch; 0 for never). *found 0: no head yet.
 */
struct fl_watch_head {
	char *name, *sha, *state;
	int64_t commit_id;
};
int fl_store_watch_head_last(fl_store *st, int64_t tree_id, const char *branch,
			     struct fl_watch_head *h, int *found, int64_t *tested);
void fl_watch_head_release(struct fl_watch_head *h);

struct fl_watch_tag {
	int64_t id, tree_id, commit_id, baseline_commit;
	char *tree, *tag, *sha, *baseline, *baseline_sha, *state;
	char *kind, *ref, *note; /* "tag" or "head" (of the branch ref); why, or NULL */
};
int fl_store_watch_tag_get(fl_store *st, int64_t id, struct fl_watch_tag *t);
void fl_watch_tag_release(struct fl_watch_tag *t);

/* ---- comparisons ---------------------------------------------------- */

struct fl_watch_comparison {
	const char *what; /* tag, revert-bad, revert-base */
	int64_t base_commit, new_commit;
	const char *benchmark;
	int64_t machine_id;
	const char *metric, *mode;
	unsigned tasks;
	int is_primary;
	size_t base_runs, new_runs;
	double base_mean, base_stddev, new_mean, new_stddev;
	double change, p;
	const char *verdict; /* different, same, unknown (fl_verdict_name) */
	const char *class;   /* regression, improvement, same, unclear */
	const char *cgroup;  /* the point's context: NULL or "" the root, "child" */
};
/* Replaces the row of the same (job, what, metric, mode, tasks, cgroup). */
int fl_store_comparison_add(fl_store *st, int64_t job_id, const struct fl_watch_comparison *c);
/* Rows of a class (NULL: all) of one job, for logs and tests. */
int fl_store_comparisons_count(fl_store *st, int64_t job_id, const char *class, size_t *n);

/* ---- regressions and their bisection -------------------------------- */

struct fl_regression_new {
	int64_t job_id; /* the compare job: at most one regression each */
	int64_t tree_id, good_commit, bad_commit, machine_id;
	const char *benchmark, *metric, *mode;
	unsigned tasks;
	double change, p;
	const char *cgroup; /* NULL or "" the root, "child" */
};
/* Adds the regression, or finds the compare job's one. */
int fl_store_regression_add(fl_store *st, const struct fl_regression_new *r, int64_t *id);

struct fl_regression {
	int64_t id, job_id, tree_id, machine_id;
	char *tree, *tree_url;
	char *tag, *baseline; /* names; the shas as good and bad */
	char *good, *bad;
	char *benchmark, *machine, *metric, *mode;
	unsigned tasks;
	double change, p;
	char *cgroup; /* "" (the root) or "child" */
	char *kind;   /* regression, or improvement (report.improvements) */
	char *tag_kind, *ref, *note; /* of its watch tag: "tag" or "head" (of branch ref); how
					its baseline was found, or NULL */
};
/* Makes the regression an improvement: reported, bisected to its commit, not reverted. */
int fl_store_regression_improvement(fl_store *st, int64_t id);
int fl_store_regression_get(fl_store *st, int64_t id, struct fl_regression *r);
void fl_regression_release(struct fl_regression *r);

/* The regression's bisection: resumed (*resumed 1) when it exists, else created. */
int fl_store_regression_bisection(fl_store *st, int64_t regression_id, const char *good,
				  const char *bad, int64_t *id, int *resumed);
/* Drops recorded steps from seq on (a record the engine no longer follows). */
int fl_store_bisect_steps_truncate(fl_store *st, int64_t bisection_id, size_t seq);
/* The engine's summary (JSON) next to fl_store_bisection_finish()'s result. */
int fl_store_bisection_summary(fl_store *st, int64_t bisection_id, const char *json);

struct fl_bisection_row {
	int64_t id;
	char *state, *result, *culprit, *summary;
	double confidence;
};
int fl_store_bisection_get(fl_store *st, int64_t id, struct fl_bisection_row *b);
void fl_bisection_row_release(struct fl_bisection_row *b);

/* ---- revert checks -------------------------------------------------- */

struct fl_revert {
	int64_t id, regression_id;
	char *culprit, *onto;
	char *state;	  /* applied, conflict, error */
	char *commit_sha; /* applied: the revert commit */
	char *ref;	  /* applied: refs/faultline/... that keeps it */
	char *conflicts;  /* conflict: the files, one per line */
	char *error;
	char *verdict; /* NULL until measured: restores, partial, no-effect, unclear */
};
/* Adds the regression's revert check, or keeps the existing one. */
int fl_store_revert_add(fl_store *st, const struct fl_revert *r);
/* FL_ENOTFOUND when the regression has none yet. */
int fl_store_revert_get(fl_store *st, int64_t regression_id, struct fl_revert *r);
int fl_store_revert_verdict(fl_store *st, int64_t regression_id, const char *verdict);
void fl_revert_release(struct fl_revert *r);

#endif
