/*
 * web/model.h - what the pages show that is computed from the rows the
 * store reads (store/view.h): a tree's tags in version order with their
 * verdicts, a run's points summarised, two kernels compared
 * (analysis/compare.h on the ok runs of each, the comparison "faultline
 * compare" prints and the report mails), and a metric's history with the
 * change points E-divisive finds in it (analysis/stats.h). The store only
 * reads rows; the statistics are analysis/'s, with its defaults
 * (fl_cp_opts_init) or the configuration's (regression.confidence and
 * min_change, a benchmark's direction). A page (ui-*.c) calls these, or
 * the store directly for rows it shows as they are.
 *
 * Like the store's, what these return is allocated in the caller's pool
 * and lives until it is freed; errors are the store's (FL_ENOTFOUND,
 * FL_EINVAL naming what is wrong).
 */
#ifndef FL_WEB_MODEL_H
#define FL_WEB_MODEL_H

#include "analysis/compare.h"
#include "analysis/stats.h"
#include "lib/pool.h"
#include "store/view.h"

#include <stddef.h>
#include <stdint.h>

struct fl_config;

/* ---- trees and their tags ---- */

/* Every tree with its 'latest' newest commits (in history order: store/view.c's HISTORY_DESC, by
 * commits.depth; never a revert's or a try's commit) and its 'latest' newest tags (by version) with
 * their verdicts. */
int fl_model_trees(fl_store *st, fl_pool *p, size_t latest, struct fl_view_tree **out, size_t *n);
int fl_model_tree_get(fl_store *st, fl_pool *p, const char *name, size_t latest,
		      struct fl_view_tree *out);
/* Orders tags newest version first (lib/version.h) and keeps the first
 * 'latest' of them (*n the count kept). */
void fl_model_tags_newest(struct fl_view_tag *tags, size_t *n, size_t latest);
/*
 * What a tag's verdict shows of the rows the store read: the error of a
 * failed job only, and for a done job that found no regression the
 * headline among its points: the largest change of its class when the
 * class decides (fl_class_decides: the worst regression, the best
 * improvement), else the largest change (a change not stored comes last,
 * the first stored wins a tie).
 */
void fl_model_verdict(struct fl_view_verdict *v);

/* ---- a run's points ---- */

/* One (metric, mode, tasks) of a run: its samples summarised. */
struct fl_model_point {
	const char *metric, *mode;
	unsigned tasks;
	double mean, sd; /* sd: the sample standard deviation, 0 for one sample */
	size_t n;
	const char *cgroup; /* "" (the root) or "child" */
};
/* Samples ordered by metric, mode, tasks, cgroup (as the store reads them)
 * to one point per run of equal (metric, mode, tasks, cgroup), in that order. */
void fl_model_points(fl_pool *p, const struct fl_view_sample *x, size_t nx,
		     struct fl_model_point **out, size_t *n);
/* The points of a run from its samples. */
int fl_model_run_points(fl_store *st, fl_pool *p, int64_t id, struct fl_model_point **out,
			size_t *n);

/* ---- two kernels compared ---- */

/* compare.h's options as the pages compare: alpha 1 - regression.confidence,
 * min_change regression.min_change, the benchmark's direction from the
 * configuration (cfg NULL or a benchmark it does not name: compare.h's
 * defaults and higher is better). */
void fl_model_cmp_opts(const struct fl_config *cfg, const char *benchmark, struct fl_cmp_opts *o);

/*
 * Two kernels compared on one benchmark and machine: compare.c's comparison
 * of the ok runs of each commit (store/run.h: by runs.commit_id or, for
 * older rows, the build's commit), one value per run, LKP's shape, its rows
 * copied into the pool: metric rows with their verdict and class, then
 * vmstat rows, then profile rows. A side without ok runs leaves the rows
 * empty (a_runs or b_runs says which).
 */
struct fl_model_compare_req {
	const char *tree;  /* NULL: any; as for fl_view_rev_resolve */
	const char *a, *b; /* revisions, as for fl_view_rev_resolve */
	const char *benchmark, *machine;
	struct fl_cmp_opts opts;
	/* Not 0: only the runs this coordinator job's run jobs made (a
	 * regression's compare job: the runs its comparison and its report
	 * were made of); 0: every ok run of each commit. */
	int64_t job;
};
struct fl_model_compare {
	struct fl_view_commit a, b;
	const char *a_name, *b_name; /* a tag on the commit (the plots' labels), else the sha */
	int64_t machine_id;
	size_t a_runs, b_runs; /* the ok runs the rows are made of */
	struct fl_cmp_row *rows;
	size_t nrows;
	size_t nmetric, nvmstat, nprofile; /* rows of each kind */
	const char **notes;		   /* "no profile in v6.1: ..." */
	size_t nnotes;
	int has_evidence; /* a run of either side has vmstat or profile evidence */
};
int fl_model_compare(fl_store *st, fl_pool *p, const struct fl_model_compare_req *q,
		     struct fl_model_compare *out);

/* ---- a metric's history ---- */

/*
 * A metric across a tree's history: one position per tag the watch service
 * saw (tested tags and baselines, in version order) that has runs of the
 * benchmark on the machine, or, when no tag has any (or by "commit" is
 * asked for), one per commit with runs, in history order (the first-parent
 * line's length, store.h's fl_store_commit_depth). Oldest first,
 * a page of per_page positions counted from the newest (page 1 is the
 * latest history). Each position holds one value per ok run of its
 * commit: the mean of the run's samples at the chosen point (the store
 * reads the samples, fl_view_position_samples). Empty
 * metric/mode/tasks take the choices of the newest run (ops_per_sec when it
 * has it, the largest task count). The change points are those of the
 * page's positions.
 */
struct fl_model_position {
	struct fl_view_commit commit;
	const char *tag; /* the position's tag, NULL by commit */
	double *v;	 /* one value per ok run, in run order */
	size_t n;
};
struct fl_model_series_req {
	const char *tree, *benchmark, *machine, *metric, *mode;
	unsigned tasks;
	unsigned page, per_page;
	enum fl_direction dir;
	const char *by; /* "tag", "commit", or NULL: tags when there are any */
};
struct fl_model_series {
	const char *by;					 /* tag or commit */
	const char *benchmark, *machine, *metric, *mode; /* what was chosen */
	unsigned tasks;
	struct fl_model_position *pts;
	size_t n;
	int more; /* older history on the next page */
	struct fl_change_point *cps;
	size_t ncps;
	/* what the newest run offers, for links to other series */
	const char **metrics, **modes;
	size_t nmetrics, nmodes;
	unsigned *tasks_list;
	size_t ntasks;
};
int fl_model_series(fl_store *st, fl_pool *p, const struct fl_model_series_req *q,
		    struct fl_model_series *out);
/* What a run's points offer (metrics, modes, task counts in increasing
 * order) and the choices q leaves open taken from them. */
void fl_model_series_choices(fl_pool *p, const struct fl_model_point *pts, size_t n,
			     const struct fl_model_series_req *q, struct fl_model_series *o);
/* Tag positions (fl_view_tag_positions) in version order, each name once
 * (pts reordered in place), then the page q asks for: *page of them from
 * *first on, *more when older ones are left. */
void fl_model_tag_page(const struct fl_model_series_req *q, struct fl_view_position *pts, size_t n,
		       size_t *first, size_t *page, int *more);
/* The positions pts[0..n) with their values from the samples the store read
 * for them (fl_view_position_samples): the mean of each run's samples, a
 * value per run in run order; positions without any are left out. */
void fl_model_position_values(fl_pool *p, const struct fl_view_position *pts, size_t n,
			      const struct fl_view_position_sample *x, size_t nx,
			      struct fl_model_position **out, size_t *nout);
/* The change points of o's positions, fl_cp_opts_init's settings (every
 * position has values). */
int fl_model_change_points(fl_pool *p, enum fl_direction dir, struct fl_model_series *o);

#endif
