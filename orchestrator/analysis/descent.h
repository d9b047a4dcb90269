/*
 * descent.h - bisection over a range of history as git has it: a graph of
 * commits, not a line. The one layer between the engine (bisect.h, which
 * searches a line) and its two users, "faultline bisect run" and the watch
 * service's bisect stage.
 *
 * The range is what bad reaches and no good reaches (git bisect's search
 * space; any number of goods, each an ancestor of bad). It is searched the
 * way mainline is made:
 *
 * 1. The first line is bad's first-parent history back to the first commit
 *    a good reaches, its good end (a good itself when it is on that line).
 * 2. When a line's answer is a merge M (its first parent good, M bad), the
 *    search descends into what M brought in: for its second parent (then
 *    each further parent of an octopus, one by one) the commits that parent
 *    reaches and neither M's first parent, nor an earlier parent, nor a
 *    good reaches, as a line: the parent's first-parent history down to the
 *    first commit outside that set, the branch's base, as the good end.
 *    Recursively for merges inside a merged branch.
 * 3. A merged branch whose tip does not regress against its base clears
 *    that parent. When no parent's branch regresses alone, M itself is the
 *    culprit (a semantic conflict or an "evil" merge resolution).
 *
 * Every run is kept by commit: a line starts with the runs earlier lines
 * took of its commits (fl_bisect_prior), so M's parents and a base already
 * run are not run again. The budget (max_runs) is the whole bisection's.
 *
 * Resuming: the record of a bisection is its runs in order (sha, samples or
 * skipped). fl_descent_replay() queues them; every run the search asks for
 * is taken from the queue while it matches (the engine is deterministic
 * given its samples), so nothing recorded runs again. The first mismatch
 * ends the replay: from there everything runs for real, and the caller
 * drops the records from that sequence number on.
 */
#ifndef FL_DESCENT_H
#define FL_DESCENT_H

#include "analysis/bisect.h"
#include "lib/buf.h"
#include "lib/dag.h"

#include <stddef.h>

/* ---- the search ----------------------------------------------------------- */

/* One line the search runs the engine on. */
struct fl_descent_line {
	size_t depth;	   /* 0: bad's first-parent line */
	const char *merge; /* the merge whose branch it is; NULL at depth 0 */
	size_t parent;	   /* which parent of merge heads the branch: 1 is the second */
	const char *good, *bad;
	size_t commits; /* on the line, both ends included */
	int resumed;	/* its first runs come from the record */
};

struct fl_descent_step {
	size_t seq; /* 0, 1, ... over the whole bisection, replayed runs included */
	const char *sha;
	const struct fl_descent_line *line;
	int end; /* 0 an inner commit of its line, 1 its good end, 2 its bad end */
	enum fl_bisect_phase phase;
	const double *v; /* this run's samples; NULL when skipped */
	size_t n;
	int skipped;
	const char *verdict; /* good, bad, skip, or "" while confirming */
	double confidence;   /* of the best candidate of the line */
	const char *best;    /* that candidate; NULL while confirming */
	size_t left;	     /* positions of the line holding the confidence */
	double target;	     /* that confidence */
	enum fl_bisect_model model;
};

struct fl_descent_ops {
	/* one run of sha, the seq-th of the bisection: 0, FL_BISECT_SKIP, or a
	 * negative FL_E* error that stops the search (FL_EAGAIN: come back) */
	int (*sample)(void *ctx, const char *sha, size_t seq, double **v, size_t *n);
	/* after every run that was not replayed; may be NULL */
	void (*step)(void *ctx, const struct fl_descent_step *st);
	/* as each line starts; may be NULL */
	void (*line)(void *ctx, const struct fl_descent_line *ln);
};

/* The merges an answer is inside, outermost first. */
struct fl_descent_hop {
	const char *merge;
	size_t parent; /* which parent's branch: 1 is the second */
};

enum fl_descent_merge {
	FL_MERGE_NONE,	     /* the answer is not a merge, or is inside its branches */
	FL_MERGE_ITSELF,     /* a merge whose merged branches do not regress on their own */
	FL_MERGE_UNSEARCHED, /* a merge whose branches could not be searched: why says */
};

struct fl_descent_result {
	enum fl_bisect_kind kind;
	const char *first, *last; /* shas; a culprit has first == last */
	/* of the line that gave the answer (bisect.h) */
	double confidence, change_pct, good_value, bad_value, false_pass, false_fail;
	size_t runs;	       /* of the whole bisection, replayed ones included */
	size_t commits_tested; /* distinct commits run */
	size_t commits;	       /* in the range */
	const struct fl_descent_hop *path;
	size_t depth;
	enum fl_descent_merge merge;
	const char *why;  /* FL_MERGE_UNSEARCHED */
	const char *good; /* the first line's good end */
};

typedef struct fl_descent fl_descent;

/* FL_EINVAL naming the commit when bad's first-parent line reaches a root
 * commit before any commit a good reaches. The graph must outlive it. */
int fl_descent_new(fl_descent **out, const struct fl_dag *g, const struct fl_bisect_opts *o);
void fl_descent_free(fl_descent *d);
/* The first line: its good end (what a caller's seed runs must be of), and its length. */
const char *fl_descent_good_end(const fl_descent *d);
size_t fl_descent_first_line(const fl_descent *d);
/* Queues a recorded run, in order. */
void fl_descent_replay(fl_descent *d, const char *sha, const double *v, size_t n, int skipped);
/* The search; the result's strings live as long as d and the graph. */
int fl_descent_run(fl_descent *d, const struct fl_descent_ops *ops, void *ctx,
		   struct fl_descent_result *res);

/*
 * One line of progress for a step, the same for both users: "step 17:
 * 3f2a1b9c -> 94.9 (bad); the culprit is one of 6 commits (95% sure),
 * likeliest 3f2a1b9c (p=0.62)", "step 1: 5be2c0a1 (good end) -> 100.1";
 * steps count from 1, as the bisection's page and the report number them.
 */
void fl_descent_step_text(fl_buf *out, const struct fl_descent_step *st);
/*
 * Whether a step's line would only repeat the one before: a verification
 * run of the same culprit as the previous step's (the verification takes
 * many runs and each says "the culprit is X, verifying it"). Both users
 * log such a step as detail (-v), not as progress. last keeps what is
 * compared between calls; zero it before the first.
 */
struct fl_descent_echo {
	int verifying;
	char best[64];
};
int fl_descent_step_repeats(struct fl_descent_echo *last, const struct fl_descent_step *st);
/* "the first-parent line from G to B, 20 commits" / "the branch merged by M
 * (its second parent): 6 commits from base G to B". */
void fl_descent_line_text(fl_buf *out, const struct fl_descent_line *ln);
/*
 * The answer as the record keeps it (bisections.summary, read by the pages
 * and the report): a JSON object with result, first, last, confidence,
 * change_pct (worse > 0; absent from a good value of 0), good_value,
 * bad_value, runs, commits_tested, commits, good (the first line's good
 * end), path ([{merge, parent}], outermost first), merge ("itself",
 * "unsearched") and why when there is one, false_pass and false_fail for
 * the pass/fail model. Caller frees.
 */
char *fl_descent_summary(const struct fl_descent_result *res, enum fl_bisect_model model);
/* Where an answer is: "" on bad's first-parent line, else " in the branch
 * merged by M" (nested: "... merged by C, in the branch merged by M"). */
void fl_descent_path_text(fl_buf *out, const struct fl_descent_result *res);
/* An inconclusive answer's best candidates when the search got that far:
 * ": the likeliest culprit is 3f2a1b9c0d1e (p=0.62)" or ": the likeliest
 * culprits are 3f2a1b9c0d1e..5be2c0a1e2f3 (p=0.81 together)"; nothing
 * otherwise (the budget ran out on the ends). */
void fl_descent_candidates_text(fl_buf *out, const struct fl_descent_result *res);
/* The same from a summary (fl_descent_summary's JSON) as the pages and the
 * report read it, and for a merge that is the culprit itself what that
 * means ("; the merged branch alone does not regress; the merge does").
 * Nothing for a summary without a path, or one that does not parse. */
void fl_descent_summary_where(fl_buf *out, const char *summary);

#endif
