/*
 * store/view.h - views of the store: its rows joined into what one looks at
 * (a tree with its tags and their verdicts, a run with its machine, build
 * and job, a regression with its tags and culprit, a bisection with its
 * steps, lists of them a page at a time, counts and spans), read only.
 *
 * The results pages read the store through these alone (the SQL is in
 * store/view.c): a page (web/ui-*.c) or the page model (web/model.h) calls
 * these functions and never sees a statement, so where the data comes from
 * can change without touching a page. What a page shows that has to be
 * computed from rows (a comparison, change points, a run's points
 * summarised, tags in version order) is the model's: these functions only
 * read. The store is opened read-only (FL_STORE_READONLY) by the server,
 * one connection per server thread.
 *
 * Rows and their strings are allocated in the caller's pool (pool.h) and
 * live until it is freed. Lists take a page number (1-based) and a page
 * size, are ordered newest first by id (a stable order), and say whether a
 * further page exists. A missing id is FL_ENOTFOUND, a malformed argument
 * FL_EINVAL, both with a message that names it.
 *
 * A run belongs to the commit in runs.commit_id, or for rows without it
 * (written before the run path kept it) to its build's commit: every
 * query that joins runs to commits takes both (store/run.c's rule,
 * FL_RUNS_OF_COMMIT in store/priv.h). The watch service's tables
 * (watch_tags, jobs, comparisons, reverts, machine state) are read here as
 * they are, with the queue's rules of store/jobs.c: tags with the verdict
 * of each compare job, jobs in progress, the comparison behind a
 * regression, the revert check, a bisection step's run jobs.
 */
#ifndef FL_STORE_VIEW_H
#define FL_STORE_VIEW_H

#include "lib/pool.h"
#include "store/evidence.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/* A commit as pages show it; id 0 when only the sha is known (subject NULL). */
struct fl_view_commit {
	int64_t id;
	const char *tree, *sha, *subject, *author;
	int64_t time;
};

/* A primary point of a compare job's comparison of its tag. */
struct fl_view_verdict_point {
	const char *metric, *mode;
	unsigned tasks;
	double change;	   /* percent as measured, NAN when not stored */
	const char *class; /* regression, improvement, same, unclear */
};

/*
 * The verdict of one compare job (a tag against its baseline on one
 * benchmark and machine): its state, result and error as stored (the
 * service's class once done; service/pipeline.h has the words a page shows
 * for them).
 */
struct fl_view_verdict {
	int64_t job_id;
	const char *benchmark, *machine;
	const char *state;  /* the job's (service/pipeline.h's words) */
	const char *result; /* done: the class it concluded with; NULL before */
	const char *error;  /* as stored: why it failed, NULL when it did not */
	/* The headline every page shows (metric NULL without one): the
	 * regression's own point and change when the job found one, read here;
	 * otherwise the page model's choice among points (web/model.h). */
	const char *metric, *mode;
	unsigned tasks;
	double change;		      /* percent as measured, NAN without rows */
	size_t runs_done, runs_total; /* the job's run jobs that ended, of all */
	int64_t regression_id;	      /* 0: none */
	/* A job without a regression: the primary points of its comparison of
	 * the tag, in the order they were stored (none before it has rows). */
	struct fl_view_verdict_point *points;
	size_t npoints;
};

/* A tag the watch service has seen. */
struct fl_view_tag {
	int64_t id;
	const char *tree, *name;
	const char *state;		    /* scheduled, skipped, no-baseline */
	const char *note;		    /* why it is not tested, how its base was found */
	const char *kind;		    /* "tag", or "head" of a watched branch */
	const char *baseline;		    /* its name, NULL for skipped and no-baseline tags */
	struct fl_view_commit commit, base; /* base.sha NULL without a baseline */
	int64_t created;
	struct fl_view_verdict *verdicts; /* by benchmark, machine */
	size_t nverdicts;
};

struct fl_view_tree {
	int64_t id;
	const char *name, *url;
	struct fl_view_commit *latest; /* newest commits first */
	size_t nlatest;
	struct fl_view_tag *tags; /* newest tags first, in version order */
	size_t ntags;
};

/* Every tree with its 'latest' newest commits (in history order: by
 * commits.depth, store/view.c's HISTORY_DESC; never a revert's or a try's
 * commit) and, when latest is not 0, every tag the watch service saw in it, in no order and
 * without verdicts (the model orders them by version: web/model.h). */
int fl_view_trees(fl_store *st, fl_pool *p, size_t latest, struct fl_view_tree **out, size_t *n);
int fl_view_tree_get(fl_store *st, fl_pool *p, const char *name, size_t latest,
		     struct fl_view_tree *out);
/* The verdicts of tags[0..n), each tag's compare jobs by benchmark, machine. */
int fl_view_tag_verdicts(fl_store *st, fl_pool *p, struct fl_view_tag *tags, size_t n);

/*
 * A revision named in a URL to a stored commit: a tag the watch service
 * saw (as a tested tag or as a baseline, "v6.1-fl1"), a hex sha or its
 * prefix (at least 4 digits), or a kernel release name ending in -g<sha>
 * (the form "3.16.0-rc4-g67b9d76" kernel developers paste). A tag wins over
 * a sha prefix of the same spelling. FL_EINVAL for a malformed or ambiguous
 * one (a tag on different commits in two trees), FL_ENOTFOUND for one no
 * stored tag or commit matches. tree (NULL: any) keeps to that tree's tags
 * and commits: two trees may share tag names ("v6.1" in mainline and in
 * stable), so a link the pages make names its tree.
 */
int fl_view_rev_resolve(fl_store *st, fl_pool *p, const char *tree, const char *rev,
			struct fl_view_commit *out);
/* The names the watch service saw a commit under (a tested tag or a
 * baseline), each once, in no order; *n 0 for none. */
int fl_view_commit_tags(fl_store *st, fl_pool *p, int64_t commit_id, const char ***out, size_t *n);
/* 1 when a revision of this spelling may be put in a URL (a tag name can be
 * anything git allows, such as "<b>": such a tag is linked by its sha). */
int fl_view_rev_ok(const char *rev);

struct fl_view_run {
	int64_t id;
	const char *benchmark, *machine, *status;
	const char *detail;	   /* why it ended that way, or NULL */
	const char *params;	   /* JSON text */
	int64_t started, finished; /* finished 0 while running */
	int64_t build_id;	   /* 0: none */
	const char *kernel, *build_status;
	struct fl_view_commit commit; /* id 0 without a commit or build */
	int64_t job_id;		      /* the watch service's run job, 0: none */
	const char *role;	      /* that job's role (base, new, bisect, ...) where listed */
};

struct fl_view_run_filter {
	const char *benchmark, *machine, *status; /* NULL: any */
	int active;				  /* only queued and running runs */
};
int fl_view_runs(fl_store *st, fl_pool *p, const struct fl_view_run_filter *f, unsigned page,
		 unsigned per_page, struct fl_view_run **out, size_t *n, int *more);

/* A run with its environment (the agent's record and the guest's facts),
 * its timings and the job it ran for. Its vmstat and profile: fl_view_run_evidence. */
struct fl_view_run_detail {
	struct fl_view_run run;
	const char *backend, *facts; /* the machine; facts JSON or NULL */
	const char *console;	     /* its stored console's last console_tail bytes, or NULL */
	size_t console_len;	     /* the stored console's length */
	const char *console_path;    /* the whole console log on disk, or NULL */
	const char *label, *domain, *kernel_image;
	/* environment: 0 / NULL when unknown */
	int nodes, cpus;
	const char *kernel_release, *accel;
	const char *machine_facts; /* JSON: the guest's topology, memory, ... */
	/* wall clock, ms since the epoch; 0 when it did not happen */
	int64_t created_ms, agent_ms, first_sample_ms, ended_ms;
	/* the run job: role, attempts, state (job_id 0: none) */
	const char *job_kind, *job_role, *job_state;
	int job_attempts;
	int64_t job_parent;
};
int fl_view_run_get(fl_store *st, fl_pool *p, int64_t id, size_t console_tail,
		    struct fl_view_run_detail *out);
/* The stored console (NULL when the run kept none); console_path is the whole log. */
int fl_view_run_console(fl_store *st, fl_pool *p, int64_t id, const char **console, size_t *len,
			const char **console_path);
/* The runs of a coordinator job's run jobs (role set), newest first. */
int fl_view_job_runs(fl_store *st, fl_pool *p, int64_t parent_job, unsigned page, unsigned per_page,
		     struct fl_view_run **out, size_t *n, int *more);

/* The run's evidence per measured point (store/evidence.h: vmstat rates of
 * the window, the profile's functions), with at most top functions a point,
 * most samples first; *n = 0 for a run without. */
int fl_view_run_evidence(fl_store *st, fl_pool *p, int64_t id, size_t top,
			 struct fl_evidence_row **out, size_t *n);

struct fl_view_sample {
	const char *metric, *mode;
	unsigned tasks, seq;
	double value;
	const char *cgroup; /* "" (the root) or "child" */
};
/* A run's samples ordered by metric, mode, tasks, cgroup, seq; per_page 0: all of them. */
int fl_view_run_samples(fl_store *st, fl_pool *p, int64_t id, unsigned page, unsigned per_page,
			struct fl_view_sample **out, size_t *n, int *more);

struct fl_view_regression {
	int64_t id;
	const char *tree;
	struct fl_view_commit good, bad;
	const char *benchmark, *machine, *metric, *mode;
	unsigned tasks;
	double change;	/* percent, as detected */
	double p_value; /* NAN when not stored */
	const char *state;
	int64_t created;
	int64_t job_id;		       /* the compare job that found it, 0: none */
	const char *tag, *baseline;    /* the tags compared, NULL when not from a tag */
	int64_t bisection_id;	       /* 0: none yet */
	struct fl_view_commit culprit; /* its bisection's culprit; sha NULL while none */
};
/* state NULL: every regression. */
int fl_view_regressions(fl_store *st, fl_pool *p, const char *state, unsigned page,
			unsigned per_page, struct fl_view_regression **out, size_t *n, int *more);
int fl_view_regression_get(fl_store *st, fl_pool *p, int64_t id, struct fl_view_regression *out);

struct fl_view_report {
	int64_t id, regression_id; /* regression_id 0: none */
	const char *message_id, *in_reply_to, *subject, *body;
	const char *state; /* pending, sent, failed */
	int attempts;
	const char *last_error;
	int64_t created, sent, next_attempt;
};
int fl_view_report_get(fl_store *st, fl_pool *p, int64_t id, struct fl_view_report *out);
/* A regression's reports, first first (the first one starts the mail thread). */
int fl_view_reports_of(fl_store *st, fl_pool *p, int64_t regression_id, struct fl_view_report **out,
		       size_t *n);

struct fl_view_bisection {
	int64_t id, regression_id;     /* regression_id 0: started by hand */
	const char *good, *bad;	       /* as given to the bisection */
	const char *state;	       /* running, finished */
	const char *result;	       /* culprit, range, no-regression, ...; NULL while running */
	struct fl_view_commit culprit; /* sha NULL when there is none */
	double confidence;	       /* NAN while running */
	int64_t created, finished;
	size_t nsteps;
	/* the newest step's view: commits left (0: unknown), best candidate
	 * (NULL: none yet), its confidence (NAN before the first step), phase */
	size_t remaining;
	const char *best, *phase;
	double last_confidence;
	const char *summary; /* the engine's summary (JSON) once finished, or NULL */
};
struct fl_view_bisect_filter {
	const char *state;     /* NULL: any */
	int64_t regression_id; /* 0: any */
};
int fl_view_bisections(fl_store *st, fl_pool *p, const struct fl_view_bisect_filter *f,
		       unsigned page, unsigned per_page, struct fl_view_bisection **out, size_t *n,
		       int *more);
int fl_view_bisection_get(fl_store *st, fl_pool *p, int64_t id, struct fl_view_bisection *out);

/* A run that measured a step: each attempt of its run job. */
struct fl_view_step_run {
	int64_t id;
	const char *status, *detail;
	const char *build_status; /* its build's, NULL without one */
};
struct fl_view_step {
	size_t seq;
	struct fl_view_commit commit; /* subject when the commit is stored */
	const char *status;	      /* ok, skip */
	const char *verdict;	      /* good, bad, skip, or "" while confirming */
	const double *v;
	size_t n;
	double confidence; /* of the best candidate after this step */
	int64_t created;
	size_t remaining;	  /* commits left after it, 0: unknown */
	const char *best, *phase; /* NULL: unknown */
	/* The service's run job for the step (job_id 0: none, as for "faultline
	 * bisect run"): its state, result (ok, untestable, failed), error, and
	 * the runs of its attempts, oldest first. */
	int64_t job_id;
	const char *job_state, *job_result, *job_error;
	int job_attempts;
	struct fl_view_step_run *runs;
	size_t nruns;
};
/* Every step in order (a bisection has at most its run budget of them),
 * with the run job its regression's job of bisect_kind (the service's name)
 * made for it. */
int fl_view_bisect_steps(fl_store *st, fl_pool *p, int64_t id, const char *bisect_kind,
			 struct fl_view_step **out, size_t *n);

/* A row of the service's comparisons: one point of base against new. */
struct fl_view_comparison {
	const char *what; /* tag, revert-bad, revert-base */
	const char *base_sha, *new_sha;
	const char *metric, *mode;
	unsigned tasks;
	int is_primary;
	size_t base_runs, new_runs;
	double base_mean, base_sd, new_mean, new_sd; /* sd: absolute */
	double change, p;			     /* change: percent as measured */
	const char *verdict;			     /* different, same, unknown */
	const char *class;			     /* regression, improvement, same, unclear */
};
/* A job's comparison rows: by what, primary metric first, metric, mode, tasks. */
int fl_view_comparisons(fl_store *st, fl_pool *p, int64_t job_id, struct fl_view_comparison **out,
			size_t *n);

/* A regression's revert check: the culprit reverted on the bad tag. */
struct fl_view_revert {
	int64_t id, regression_id;
	const char *culprit, *onto;
	const char *state;	      /* applied, conflict, error */
	const char *commit_sha, *ref; /* applied */
	const char **conflicts;	      /* conflict: the files */
	size_t nconflicts;
	const char *error;   /* error: why */
	const char *verdict; /* restores, partial, no-effect, unclear; NULL unmeasured */
	int64_t created;
	int64_t job_id; /* the revert job, 0: none */
	const char *job_state;
	struct fl_view_comparison *rows; /* the revert measured: revert-bad, revert-base */
	size_t nrows;
};
/* FL_ENOTFOUND when the regression has no revert check (yet); its job is the
 * regression's of revert_kind (the service's name). */
int fl_view_revert_get(fl_store *st, fl_pool *p, int64_t regression_id, const char *revert_kind,
		       struct fl_view_revert *out);

/* The watch service's queue. */
struct fl_view_job {
	int64_t id, parent_id;
	int64_t regression_id; /* bisect, revert and report jobs: theirs; else 0 */
	const char *kind;      /* service/pipeline.h's names */
	const char *state;     /* the service's word (service/pipeline.h) */
	const char *tree, *machine, *benchmark;
	const char *role;	      /* run jobs: base, new, bisect, bad, revert */
	struct fl_view_commit commit; /* run jobs: what they measure (sha only when not stored) */
	const char *tag, *baseline;   /* compare jobs: the tags */
	int seq, attempts;
	const char *result, *error;
	int64_t created, started, finished;
	size_t children, children_done; /* coordinators: their run jobs */
	int64_t run_id; /* run jobs: the run that counts, else the newest run, 0: none */
};
struct fl_view_job_filter {
	const char *kind, *state; /* NULL: any */
	int live;		  /* only the jobs that have not ended (jobs.ended) */
};
int fl_view_jobs(fl_store *st, fl_pool *p, const struct fl_view_job_filter *f, unsigned page,
		 unsigned per_page, struct fl_view_job **out, size_t *n, int *more);

/* Machines the store knows, by name, with their pool state. */
struct fl_view_machine {
	int64_t id;
	const char *name, *backend;
	const char *state;  /* online, broken */
	const char *reason; /* why broken, or NULL */
	int infra_errors;   /* in a row */
	const char *facts;  /* JSON or NULL */
};
/* state NULL: every machine. */
int fl_view_machines(fl_store *st, fl_pool *p, const char *state, struct fl_view_machine **out,
		     size_t *n);

/* ---- a commit, and finding one ---- */

/* The stored rows of the commit with this full sha, one per tree that has
 * it (tree NULL: every tree), by tree name; *n 0 for none. */
int fl_view_commit_rows(fl_store *st, fl_pool *p, const char *sha, const char *tree,
			struct fl_view_commit **out, size_t *n);
/* The runs of the commit (full sha, any tree), any benchmark, machine and
 * status, newest first, a page of them. */
int fl_view_commit_run_list(fl_store *st, fl_pool *p, const char *sha, unsigned page,
			    unsigned per_page, struct fl_view_run **out, size_t *n, int *more);
/* The regressions the commit is the good, the bad or the culprit of, newest first (at most
 * 100). */
int fl_view_commit_regressions(fl_store *st, fl_pool *p, const char *sha,
			       struct fl_view_regression **out, size_t *n);
/* The bisections the commit is the good, the bad, the culprit or a step of, newest first
 * (at most 100). */
int fl_view_commit_bisections(fl_store *st, fl_pool *p, const char *sha,
			      struct fl_view_bisection **out, size_t *n);

/*
 * What the search box finds for q (at most limit of each, newest first):
 * commits whose sha starts with q (4 to 40 hex digits), tags (tested tags
 * and baselines) named q or starting with it, and commits whose subject
 * holds every word of q (up to 8 words; LIKE's wildcards are taken
 * literally). FL_EINVAL for an empty q or one over 200 bytes.
 */
struct fl_view_found_tag {
	const char *tree, *name;
	struct fl_view_commit commit;
};
struct fl_view_search {
	struct fl_view_commit *by_sha, *by_subject;
	size_t nsha, nsubject;
	struct fl_view_found_tag *tags;
	size_t ntags;
};
int fl_view_search(fl_store *st, fl_pool *p, const char *q, unsigned limit,
		   struct fl_view_search *out);

/* ---- what /metrics reports: counts and spans, formatted by the page ---- */

/* How many rows have each value (a, and b for two columns) of: */
enum fl_view_count_of {
	FL_VIEW_COUNT_JOBS,	/* jobs by kind (a) and state (b) */
	FL_VIEW_COUNT_RUNS,	/* runs by status (a) */
	FL_VIEW_COUNT_REPORTS,	/* mails by state (a): pending, sent, failed */
	FL_VIEW_COUNT_MACHINES, /* machines by state (a): online, broken */
};
struct fl_view_count {
	const char *a, *b; /* b NULL for one column */
	int64_t n;
};
int fl_view_counts(fl_store *st, fl_pool *p, enum fl_view_count_of of, struct fl_view_count **out,
		   size_t *n);

/* When something started and ended, ms (a build's: 0 and its duration). */
enum fl_view_span_of {
	FL_VIEW_SPAN_BUILD,   /* finished builds: their make time */
	FL_VIEW_SPAN_BOOT,    /* runs: the machine's start to the agent's first record */
	FL_VIEW_SPAN_MEASURE, /* runs: the first sample to the end */
};
struct fl_view_span {
	int64_t from_ms, to_ms;
};
/* Every finished one (both ends known), in no order. */
int fl_view_spans(fl_store *st, fl_pool *p, enum fl_view_span_of of, struct fl_view_span **out,
		  size_t *n);

/* ---- what the model compares and plots (web/model.h) ---- */

/* A machine's id by its name: FL_ENOTFOUND naming it when there is none. */
int fl_view_machine_id(fl_store *st, const char *name, int64_t *id);

/* A kernel's runs of a benchmark on a machine (by runs.commit_id, or the
 * build's commit for older rows), any status, newest first. */
int fl_view_compare_runs(fl_store *st, fl_pool *p, int64_t commit_id, const char *benchmark,
			 int64_t machine_id, unsigned page, unsigned per_page,
			 struct fl_view_run **out, size_t *n, int *more);

/* The ok runs of benchmark on the machine of the commit (full sha) that a
 * coordinator job's run jobs made (a compare job's base and new runs), in
 * id order; *ids malloc'ed (free()), as store/run.h's fl_store_commit_runs. */
int fl_view_job_commit_runs(fl_store *st, int64_t job_id, const char *sha, const char *benchmark,
			    const char *machine, int64_t **ids, size_t *n);

/* The newest ok run of a tree, optionally of a benchmark and a machine (NULL:
 * any): the newest commit (in history order, not a revert's or try's) that has one, then its newest
 * run; *run 0 when there is none, else its benchmark and machine. */
int fl_view_newest_run(fl_store *st, fl_pool *p, int64_t tree_id, const char *benchmark,
		       const char *machine, int64_t *run, const char **benchmark_out,
		       const char **machine_out);

/* A position of a metric's history: a commit (a tag's, or itself). */
struct fl_view_position {
	struct fl_view_commit commit;
	const char *tag; /* the position's tag, NULL by commit */
};
/* The tags of the tree (tested tags and baselines) whose commits have ok
 * runs of benchmark on the machine, in no order (a name may come more than
 * once). */
int fl_view_tag_positions(fl_store *st, fl_pool *p, int64_t tree_id, int64_t machine_id,
			  const char *benchmark, struct fl_view_position **out, size_t *n);
/* The commits of the tree with ok runs of benchmark on the machine, a page
 * of them, newest first in history order (commits.depth, then commit time for rows
 * without it), never a revert's or a try's commit. */
int fl_view_commit_positions(fl_store *st, fl_pool *p, int64_t tree_id, int64_t machine_id,
			     const char *benchmark, unsigned page, unsigned per_page,
			     struct fl_view_position **out, size_t *n, int *more);
/* A sample of a position's run at the point asked for. */
struct fl_view_position_sample {
	size_t position; /* its position's index in pts */
	int64_t run_id;
	double value;
};
/* The samples of each position's ok runs (the runs of its commit, of the
 * benchmark on the machine) at (metric, mode, tasks) in the root cgroup
 * context, ordered by position, run id and seq; a run without any there has
 * none. What a position's values are made of is the model's (web/model.h). */
int fl_view_position_samples(fl_store *st, fl_pool *p, int64_t machine_id, const char *benchmark,
			     const char *metric, const char *mode, unsigned tasks,
			     const struct fl_view_position *pts, size_t n,
			     struct fl_view_position_sample **out, size_t *nout);

#endif
