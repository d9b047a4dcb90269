/*
 * store-web.h - what the results pages read, as rows ready to render.
 *
 * All SQL of the pages lives in store-web.c; a page (web/ui-*.c) calls these
 * functions and never sees a statement, so where the data comes from can
 * change without touching a page. The store is opened read-only
 * (FL_STORE_READONLY) by the server, one connection per server thread.
 *
 * Rows and their strings are allocated in the caller's pool (pool.h) and
 * live until it is freed. Lists take a page number (1-based) and a page
 * size, are ordered newest first by id (a stable order), and say whether a
 * further page exists. A missing id is FL_ENOTFOUND, a malformed argument
 * FL_EINVAL, both with a message that names it.
 *
 * What the store does not hold yet (tags, baseline verdicts, run
 * environments, a step's build and boot status) is marked "Phase 2" below:
 * those arrive as fields filled here, which the pages render when present.
 */
#ifndef FL_STORE_WEB_H
#define FL_STORE_WEB_H

#include "compare.h"
#include "evidence.h"
#include "pool.h"
#include "stats.h"
#include "store.h"

#include <stddef.h>
#include <stdint.h>

/* A commit as pages show it; id 0 when only the sha is known (subject NULL). */
struct fl_web_commit {
	int64_t id;
	const char *tree, *sha, *subject, *author;
	int64_t time;
};

struct fl_web_tree {
	int64_t id;
	const char *name, *url;
	struct fl_web_commit *latest; /* newest commits first */
	size_t nlatest;
};

/* Every tree with its 'latest' newest commits (by commit time). Phase 2: its
 * newest tested tags and each benchmark's verdict against the baseline. */
int fl_web_trees(fl_store *st, fl_pool *p, size_t latest, struct fl_web_tree **out, size_t *n);
int fl_web_tree_get(fl_store *st, fl_pool *p, const char *name, size_t latest,
		    struct fl_web_tree *out);

/*
 * A revision named in a URL to a stored commit: a hex sha or its prefix (at
 * least 4 digits), or a kernel release name ending in -g<sha> (the form
 * "3.16.0-rc4-g67b9d76" kernel developers paste). FL_EINVAL for a malformed
 * or ambiguous one, FL_ENOTFOUND for one no stored commit matches.
 */
int fl_web_rev_resolve(fl_store *st, fl_pool *p, const char *rev, struct fl_web_commit *out);

struct fl_web_run {
	int64_t id;
	const char *benchmark, *machine, *status;
	const char *params;	   /* JSON text */
	int64_t started, finished; /* finished 0 while running */
	int64_t build_id;	   /* 0: none */
	const char *kernel, *build_status;
	struct fl_web_commit commit; /* id 0 without a build */
};

struct fl_web_run_filter {
	const char *benchmark, *machine, *status; /* NULL: any */
	int active;				  /* only queued and running runs */
};
int fl_web_runs(fl_store *st, fl_pool *p, const struct fl_web_run_filter *f, unsigned page,
		unsigned per_page, struct fl_web_run **out, size_t *n, int *more);

/* Phase 2: the run's environment record (nodes, CPUs, kernel release) and
 * timings (boot, first sample, end). Its vmstat and profile: fl_web_run_evidence. */
struct fl_web_run_detail {
	struct fl_web_run run;
	const char *backend, *facts; /* the machine; facts JSON or NULL */
	const char *console;	     /* its last console_tail bytes, or NULL */
	size_t console_len;	     /* the whole console's length */
};
int fl_web_run_get(fl_store *st, fl_pool *p, int64_t id, size_t console_tail,
		   struct fl_web_run_detail *out);
/* The whole console log (NULL when the run kept none). */
int fl_web_run_console(fl_store *st, fl_pool *p, int64_t id, const char **console, size_t *len);

/* The run's evidence per measured point (evidence.h: vmstat rates of the
 * window, the profile's functions), with at most top functions a point,
 * most samples first; *n = 0 for a run without. */
int fl_web_run_evidence(fl_store *st, fl_pool *p, int64_t id, size_t top,
			struct fl_evidence_point **out, size_t *n);

struct fl_web_sample {
	const char *metric, *mode;
	unsigned tasks, seq;
	double value;
};
/* A run's samples ordered by metric, mode, tasks, seq. */
int fl_web_run_samples(fl_store *st, fl_pool *p, int64_t id, unsigned page, unsigned per_page,
		       struct fl_web_sample **out, size_t *n, int *more);

/* One (metric, mode, tasks) of a run: its samples summarised. */
struct fl_web_point {
	const char *metric, *mode;
	unsigned tasks;
	double mean, sd;
	size_t n;
};
int fl_web_run_points(fl_store *st, fl_pool *p, int64_t id, struct fl_web_point **out, size_t *n);

struct fl_web_regression {
	int64_t id;
	const char *tree;
	struct fl_web_commit good, bad;
	const char *benchmark, *machine, *metric, *mode;
	unsigned tasks;
	double change;	/* percent, as detected */
	double p_value; /* NAN when not stored */
	const char *state;
	int64_t created;
};
/* state NULL: every regression. */
int fl_web_regressions(fl_store *st, fl_pool *p, const char *state, unsigned page,
		       unsigned per_page, struct fl_web_regression **out, size_t *n, int *more);
int fl_web_regression_get(fl_store *st, fl_pool *p, int64_t id, struct fl_web_regression *out);

struct fl_web_report {
	int64_t id, regression_id; /* regression_id 0: none */
	const char *message_id, *in_reply_to, *subject, *body;
	const char *state; /* pending, sent, failed */
	int attempts;
	const char *last_error;
	int64_t created, sent, next_attempt;
};
int fl_web_report_get(fl_store *st, fl_pool *p, int64_t id, struct fl_web_report *out);
/* A regression's reports, first first (the first one starts the mail thread). */
int fl_web_reports_of(fl_store *st, fl_pool *p, int64_t regression_id, struct fl_web_report **out,
		      size_t *n);

struct fl_web_bisection {
	int64_t id, regression_id;    /* regression_id 0: started by hand */
	const char *good, *bad;	      /* as given to the bisection */
	const char *state;	      /* running, finished */
	const char *result;	      /* culprit, range, no-regression, ...; NULL while running */
	struct fl_web_commit culprit; /* sha NULL when there is none */
	double confidence;	      /* NAN while running */
	int64_t created, finished;
	size_t nsteps;
};
struct fl_web_bisect_filter {
	const char *state;     /* NULL: any */
	int64_t regression_id; /* 0: any */
};
int fl_web_bisections(fl_store *st, fl_pool *p, const struct fl_web_bisect_filter *f, unsigned page,
		      unsigned per_page, struct fl_web_bisection **out, size_t *n, int *more);
int fl_web_bisection_get(fl_store *st, fl_pool *p, int64_t id, struct fl_web_bisection *out);

/* Phase 2: the build and boot status behind a step, and the bisection's
 * culprit verification and revert check. */
struct fl_web_step {
	size_t seq;
	struct fl_web_commit commit; /* subject when the commit is stored */
	const char *status;	     /* ok, skip */
	const char *verdict;	     /* good, bad, skip, or "" while confirming */
	const double *v;
	size_t n;
	double confidence; /* of the best candidate after this step */
	int64_t created;
};
/* Every step in order (a bisection has at most its run budget of them). */
int fl_web_bisect_steps(fl_store *st, fl_pool *p, int64_t id, struct fl_web_step **out, size_t *n);

/*
 * Two kernels compared on one benchmark and machine: compare.c's comparison
 * of the ok runs of each commit (store-compare.h), the one "faultline
 * compare" prints and the report mails (one value per run, LKP's shape),
 * its rows copied into the pool: metric rows with their verdict and class,
 * then vmstat rows, then profile rows (compare.h). A side without ok runs
 * leaves the rows empty (a_runs or b_runs says which).
 */
struct fl_web_compare_req {
	const char *a, *b; /* revisions, as for fl_web_rev_resolve */
	const char *benchmark, *machine;
	double alpha, min_change; /* as in fl_stats_compare */
	enum fl_direction dir;
};
struct fl_web_compare {
	struct fl_web_commit a, b;
	int64_t machine_id;
	size_t a_runs, b_runs; /* the ok runs the rows are made of */
	struct fl_cmp_row *rows;
	size_t nrows;
	size_t nmetric, nvmstat, nprofile; /* rows of each kind */
	const char **notes;		   /* "no profile in v6.1: ..." */
	size_t nnotes;
	int has_evidence; /* a run of either side has vmstat or profile evidence */
};
int fl_web_compare(fl_store *st, fl_pool *p, const struct fl_web_compare_req *q,
		   struct fl_web_compare *out);
/* A kernel's runs of a benchmark on a machine (by runs.commit_id, or the
 * build's commit for older rows), any status, newest first. */
int fl_web_compare_runs(fl_store *st, fl_pool *p, int64_t commit_id, const char *benchmark,
			int64_t machine_id, unsigned page, unsigned per_page,
			struct fl_web_run **out, size_t *n, int *more);

/*
 * A metric across a tree's commits over time: one position per commit that
 * has runs of the benchmark on the machine, oldest first, a page of per_page
 * positions counted from the newest (page 1 is the latest history). Each
 * position holds its run means. Empty metric/mode/tasks take the choices of
 * the newest run (ops_per_sec when it has it, the largest task count).
 * Phase 2: tested tags as the positions, named by the tag.
 */
struct fl_web_series_req {
	const char *tree, *benchmark, *machine, *metric, *mode;
	unsigned tasks;
	unsigned page, per_page;
	enum fl_direction dir;
};
struct fl_web_series_point {
	struct fl_web_commit commit;
	double *v;
	size_t n;
};
struct fl_web_series {
	const char *benchmark, *machine, *metric, *mode; /* what was chosen */
	unsigned tasks;
	struct fl_web_series_point *pts;
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
int fl_web_series(fl_store *st, fl_pool *p, const struct fl_web_series_req *q,
		  struct fl_web_series *out);

#endif
