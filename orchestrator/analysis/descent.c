/*
 * descent.c - the merge descent (see descent.h): lines out of a graph of
 * commits, the engine run on each, the runs kept by commit and shared
 * between lines, the replay of a record, and the words of its progress.
 */
#include "analysis/descent.h"
#include "analysis/stats.h"
#include "lib/error.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- runs by commit, and the record ----------------------------------------- */

struct run {
	double *v;
	size_t n;
	int skipped;
};

struct node_runs {
	struct run *r;
	size_t n;
};

struct record {
	char sha[41];
	struct run run;
};

/* The line being searched: its commits (graph indices, good end first). */
struct line {
	fl_descent *d;
	size_t *seg;
	size_t n;
	struct fl_descent_line info;
	int replayed; /* the run in hand came from the record */
};

struct fl_descent {
	const struct fl_dag *g;
	struct fl_bisect_opts o;
	struct node_runs *runs; /* per node */
	struct record *rq;
	size_t nrq, rq_next;
	size_t seq; /* runs so far, replayed ones included */
	size_t *top, ntop;
	struct fl_descent_hop *path;
	size_t depth;
	char *why;
	const struct fl_descent_ops *ops;
	void *ctx;
};

static void keep_run(fl_descent *d, size_t node, const double *v, size_t n, int skipped)
{
	struct node_runs *nr = &d->runs[node];
	struct run *r;

	nr->r = fl_xrealloc(nr->r, (nr->n + 1) * sizeof(*nr->r));
	r = &nr->r[nr->n++];
	r->n = skipped ? 0 : n;
	r->skipped = skipped;
	r->v = fl_xmalloc((r->n ? r->n : 1) * sizeof(double));
	if (r->n) /* a skipped run has no samples, and may have no array */
		memcpy(r->v, v, r->n * sizeof(double));
}

void fl_descent_replay(fl_descent *d, const char *sha, const double *v, size_t n, int skipped)
{
	struct record *q;

	d->rq = fl_xrealloc(d->rq, (d->nrq + 1) * sizeof(*d->rq));
	q = &d->rq[d->nrq++];
	snprintf(q->sha, sizeof(q->sha), "%s", sha);
	q->run.n = skipped ? 0 : n;
	q->run.skipped = skipped;
	q->run.v = fl_xmalloc((q->run.n ? q->run.n : 1) * sizeof(double));
	if (q->run.n)
		memcpy(q->run.v, v, q->run.n * sizeof(double));
}

/* The next recorded run when it is of sha: 0 or FL_BISECT_SKIP with a copy
 * in *v; -1 when there is none. A record of another commit ends the replay. */
static int take_record(fl_descent *d, const char *sha, double **v, size_t *n)
{
	struct record *q;

	if (d->rq_next >= d->nrq)
		return -1;
	q = &d->rq[d->rq_next];
	if (strcmp(q->sha, sha)) {
		d->rq_next = d->nrq; /* diverged: from here everything runs for real */
		return -1;
	}
	d->rq_next++;
	*n = q->run.n;
	*v = fl_xmalloc((q->run.n ? q->run.n : 1) * sizeof(double));
	memcpy(*v, q->run.v, q->run.n * sizeof(double));
	return q->run.skipped ? FL_BISECT_SKIP : 0;
}

/* ---- lines ------------------------------------------------------------------- */

/*
 * tip's first-parent history while it is not in good (nodes known good),
 * then the first one that is: that one is the good end. Good end first in
 * *seg. FL_ENOTFOUND when a root commit comes first.
 */
static int first_parent_line(const struct fl_dag *g, const char *good, size_t tip, size_t **seg,
			     size_t *n)
{
	size_t k = 0, alloc = 16, x = tip;
	size_t *s = fl_xmalloc(alloc * sizeof(size_t));

	for (;;) {
		if (k == alloc)
			s = fl_xrealloc(s, (alloc *= 2) * sizeof(size_t));
		s[k++] = x;
		if (good[x])
			break;
		if (!g->nodes[x].nparents) {
			free(s);
			return FL_ENOTFOUND;
		}
		x = g->nodes[x].parents[0];
	}
	for (size_t i = 0; i < k / 2; i++) {
		size_t t = s[i];

		s[i] = s[k - 1 - i];
		s[k - 1 - i] = t;
	}
	*seg = s;
	*n = k;
	return 0;
}

/* Marks what from reaches (itself included) in good; stops at marked
 * nodes, whose ancestors are marked already. */
static void mark_reach(const struct fl_dag *g, char *good, size_t from)
{
	size_t *stack = fl_xmalloc((g->n + 1) * sizeof(size_t)), k = 0;

	if (!good[from]) {
		good[from] = 1;
		stack[k++] = from;
	}
	while (k) {
		const struct fl_dag_node *nd = &g->nodes[stack[--k]];

		for (size_t p = 0; p < nd->nparents; p++)
			if (!good[nd->parents[p]]) {
				good[nd->parents[p]] = 1;
				stack[k++] = nd->parents[p];
			}
	}
	free(stack);
}

static char *outside_marks(const struct fl_dag *g)
{
	char *good = fl_xcalloc(g->n ? g->n : 1, 1);

	for (size_t i = 0; i < g->n; i++)
		good[i] = (char)g->nodes[i].outside;
	return good;
}

int fl_descent_new(fl_descent **out, const struct fl_dag *g, const struct fl_bisect_opts *o)
{
	fl_descent *d;
	char *good;
	int r;

	*out = NULL;
	if (g->bad >= g->n || g->nodes[g->bad].outside)
		return fl_error_set(FL_EINVAL,
				    "bad is reached from a good commit: nothing to search");
	d = fl_xcalloc(1, sizeof(*d));
	d->g = g;
	d->o = *o;
	d->runs = fl_xcalloc(g->n, sizeof(*d->runs));
	good = outside_marks(g);
	r = first_parent_line(g, good, g->bad, &d->top, &d->ntop);
	free(good);
	if (r) {
		fl_descent_free(d);
		return fl_error_set(FL_EINVAL,
				    "the first-parent history of bad %.12s reaches a root commit "
				    "before any commit a good one reaches",
				    g->nodes[g->bad].sha);
	}
	*out = d;
	return 0;
}

void fl_descent_free(fl_descent *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->g->n; i++) {
		for (size_t k = 0; k < d->runs[i].n; k++)
			free(d->runs[i].r[k].v);
		free(d->runs[i].r);
	}
	for (size_t i = 0; i < d->nrq; i++)
		free(d->rq[i].run.v);
	free(d->rq);
	free(d->runs);
	free(d->top);
	free(d->path);
	free(d->why);
	free(d);
}

const char *fl_descent_good_end(const fl_descent *d)
{
	return d->g->nodes[d->top[0]].sha;
}

size_t fl_descent_first_line(const fl_descent *d)
{
	return d->ntop;
}

/* ---- one line: the engine's callbacks ------------------------------------------ */

static int line_sample(void *ctx, size_t idx, double **v, size_t *n)
{
	struct line *ln = ctx;
	fl_descent *d = ln->d;
	const char *sha = d->g->nodes[ln->seg[idx]].sha;
	int r = take_record(d, sha, v, n);

	ln->replayed = r >= 0;
	if (ln->replayed)
		return r;
	return d->ops->sample(d->ctx, sha, d->seq, v, n);
}

static void line_step(void *ctx, const struct fl_bisect_step *es)
{
	struct line *ln = ctx;
	fl_descent *d = ln->d;
	struct fl_descent_step st = {
	    .seq = d->seq++,
	    .sha = d->g->nodes[ln->seg[es->idx]].sha,
	    .line = &ln->info,
	    .end = es->idx == 0		  ? 1
		   : es->idx == ln->n - 1 ? 2
					  : 0,
	    .phase = es->phase,
	    .v = es->v,
	    .n = es->n,
	    .skipped = es->skipped,
	    .verdict = es->verdict,
	    .confidence = es->confidence,
	    .best = es->phase == FL_PHASE_CONFIRM ? NULL : d->g->nodes[ln->seg[es->best]].sha,
	    .left = es->left,
	    .target = d->o.confidence,
	    .model = d->o.model,
	};

	keep_run(d, ln->seg[es->idx], es->v, es->n, es->skipped);
	if (!ln->replayed && d->ops->step)
		d->ops->step(d->ctx, &st);
}

/* Whether a node's runs were all skipped (an untestable end). */
static int untestable(const fl_descent *d, size_t node)
{
	const struct node_runs *nr = &d->runs[node];

	for (size_t k = 0; k < nr->n; k++)
		if (!nr->r[k].skipped)
			return 0;
	return nr->n > 0;
}

/* The engine on one line, with the runs its commits already have. */
static int search_line(fl_descent *d, struct line *ln, struct fl_bisect_result *res)
{
	struct fl_bisect_opts o = d->o;
	fl_bisect *b;
	int r;

	memset(res, 0, sizeof(*res));
	if (d->seq >= d->o.max_runs) {
		res->kind = FL_BISECT_INCONCLUSIVE;
		return 0;
	}
	o.max_runs = d->o.max_runs - d->seq;
	if (ln->info.depth)
		o.bad_known = 0; /* a merged branch may not regress on its own */
	if ((r = fl_bisect_new(&b, ln->n, &o)))
		return r;
	for (size_t i = 0; i < ln->n; i++) {
		const struct node_runs *nr = &d->runs[ln->seg[i]];

		for (size_t k = 0; k < nr->n; k++)
			fl_bisect_prior(b, i, nr->r[k].v, nr->r[k].n, nr->r[k].skipped);
	}
	ln->info.good = d->g->nodes[ln->seg[0]].sha;
	ln->info.bad = d->g->nodes[ln->seg[ln->n - 1]].sha;
	ln->info.commits = ln->n;
	ln->info.resumed = d->rq_next < d->nrq;
	if (d->ops->line)
		d->ops->line(d->ctx, &ln->info);
	r = fl_bisect_run(b, line_sample, line_step, ln, res);
	fl_bisect_free(b);
	return r;
}

/* ---- the descent ------------------------------------------------------------------- */

static void set_why(fl_descent *d, char *why)
{
	free(d->why);
	d->why = why;
}

/* The line of merge m's parent p: what it reaches outside good. 0 with
 * the line, 1 when it brings nothing new, FL_ENOTFOUND without a base. */
static int branch_line(fl_descent *d, const char *good, size_t m, size_t p, struct line *ln)
{
	size_t tip = d->g->nodes[m].parents[p];

	free(ln->seg);
	ln->seg = NULL;
	if (good[tip])
		return 1;
	ln->info.merge = d->g->nodes[m].sha;
	ln->info.parent = p;
	return first_parent_line(d->g, good, tip, &ln->seg, &ln->n);
}

/* Where a descent stands: the merge named, the result that named it, its
 * parent being searched, what is known good. */
struct frame {
	size_t merge;
	struct fl_bisect_result named;
	size_t parent;
	char *good;
};

/*
 * The next branch of f's merge to search, from f->parent on, into ln: 0,
 * or 1 when no parent is left (the merge itself is the answer), or
 * FL_MERGE_UNSEARCHED's reason in d->why with 2.
 */
static int next_branch(fl_descent *d, struct frame *f, struct line *ln)
{
	const struct fl_dag_node *m = &d->g->nodes[f->merge];

	for (; f->parent < m->nparents; f->parent++) {
		int r = branch_line(d, f->good, f->merge, f->parent, ln);

		if (r == 0)
			return 0;
		if (r == FL_ENOTFOUND) {
			set_why(d, fl_xasprintf("its parent %.12s reaches a root commit without a "
						"base in common with the first parent",
						d->g->nodes[m->parents[f->parent]].sha));
			return 2;
		}
	}
	return 1;
}

static void push_hop(fl_descent *d, const struct frame *f)
{
	d->path = fl_xrealloc(d->path, (d->depth + 1) * sizeof(*d->path));
	d->path[d->depth].merge = d->g->nodes[f->merge].sha;
	d->path[d->depth].parent = f->parent;
	d->depth++;
}

static void fill(fl_descent *d, const struct line *ln, const struct fl_bisect_result *r,
		 struct fl_descent_result *res)
{
	res->kind = r->kind;
	res->first = d->g->nodes[ln->seg[r->first]].sha;
	res->last = d->g->nodes[ln->seg[r->last]].sha;
	res->confidence = r->confidence;
	res->change_pct = r->change_pct;
	res->good_value = r->good_value;
	res->bad_value = r->bad_value;
	res->false_pass = r->false_pass;
	res->false_fail = r->false_fail;
}

/* The merge f names is the answer: ITSELF, or UNSEARCHED with d->why. */
static void merge_answer(fl_descent *d, const struct frame *f, enum fl_descent_merge why,
			 struct fl_descent_result *res)
{
	res->kind = FL_BISECT_CULPRIT;
	res->first = res->last = d->g->nodes[f->merge].sha;
	res->confidence = f->named.confidence;
	res->change_pct = f->named.change_pct;
	res->good_value = f->named.good_value;
	res->bad_value = f->named.bad_value;
	res->false_pass = f->named.false_pass;
	res->false_fail = f->named.false_fail;
	res->merge = why;
	/* the hop into the branch that was being searched is not where it is */
	if (d->depth && !strcmp(d->path[d->depth - 1].merge, res->first))
		d->depth--;
}

/* Into the next branch of f's merge (1, the line in ln), or the merge is
 * the answer (0, in res). */
static int descend(fl_descent *d, struct frame *f, struct line *ln, struct fl_descent_result *res)
{
	int k = next_branch(d, f, ln);

	if (k == 0) {
		push_hop(d, f);
		ln->info.depth = d->depth;
		return 1;
	}
	merge_answer(d, f, k == 1 ? FL_MERGE_ITSELF : FL_MERGE_UNSEARCHED, res);
	return 0;
}

/*
 * A line's answer at depth > 0: the next step of the descent. Returns 1
 * when the search goes on in ln (the next parent's branch), 0 when res
 * holds the answer (the merge), 2 when the answer is inside the branch (r).
 */
static int after_line(fl_descent *d, struct frame *f, struct line *ln,
		      const struct fl_bisect_result *r, int err, struct fl_descent_result *res)
{
	if (err) {
		int base = untestable(d, ln->seg[0]);

		set_why(d,
			fl_xasprintf("the %s %.12s of its branch cannot be tested",
				     base ? "base" : "tip", base ? ln->info.good : ln->info.bad));
		merge_answer(d, f, FL_MERGE_UNSEARCHED, res);
		return 0;
	}
	if (r->kind == FL_BISECT_NO_REGRESSION) {
		/* this branch does not regress alone: its commits are cleared */
		mark_reach(d->g, f->good, d->g->nodes[f->merge].parents[f->parent]);
		f->parent++;
	} else if (r->kind == FL_BISECT_INCONCLUSIVE) {
		set_why(d, fl_xstrdup("its branch could not be searched within the runs budget"));
		merge_answer(d, f, FL_MERGE_UNSEARCHED, res);
		return 0;
	} else {
		return 2; /* an answer inside the branch */
	}
	d->depth--; /* the hop is pushed again for the next parent */
	return descend(d, f, ln, res);
}

/* A culprit that is a merge: descend into its first branch. 1 when the
 * search goes on in ln, 0 when the merge is the answer (in res). */
static int enter_merge(fl_descent *d, struct frame *f, struct line *ln, size_t node,
		       const struct fl_bisect_result *named, struct fl_descent_result *res)
{
	f->merge = node;
	f->named = *named;
	f->parent = 1;
	mark_reach(d->g, f->good, d->g->nodes[node].parents[0]);
	return descend(d, f, ln, res);
}

static void totals(fl_descent *d, struct fl_descent_result *res)
{
	res->runs = d->seq;
	res->commits = fl_dag_range_size(d->g);
	for (size_t i = 0; i < d->g->n; i++)
		res->commits_tested += d->runs[i].n > 0;
	res->path = d->path;
	res->depth = d->depth;
	res->why = d->why;
	res->good = fl_descent_good_end(d);
}

int fl_descent_run(fl_descent *d, const struct fl_descent_ops *ops, void *ctx,
		   struct fl_descent_result *res)
{
	struct line ln = {.d = d};
	struct frame f = {.good = outside_marks(d->g)};
	struct fl_bisect_result r;
	int err = 0, go = 1;

	memset(res, 0, sizeof(*res));
	d->ops = ops;
	d->ctx = ctx;
	d->depth = 0;
	ln.n = d->ntop;
	ln.seg = fl_xmalloc(d->ntop * sizeof(size_t));
	memcpy(ln.seg, d->top, d->ntop * sizeof(size_t));
	while (go) {
		size_t node;

		err = search_line(d, &ln, &r);
		/* an end of a merged branch that cannot be tested ends the descent
		 * (the engine's FL_EINVAL); anything else stops the search */
		if (err && (!ln.info.depth || err != FL_EINVAL ||
			    !(untestable(d, ln.seg[0]) || untestable(d, ln.seg[ln.n - 1]))))
			break;
		if (ln.info.depth) {
			go = after_line(d, &f, &ln, &r, err, res);
			err = 0;
			if (go != 2)
				continue;
		}
		fill(d, &ln, &r, res);
		node = ln.seg[r.first];
		go = r.kind == FL_BISECT_CULPRIT && d->g->nodes[node].nparents > 1 &&
		     enter_merge(d, &f, &ln, node, &r, res);
	}
	totals(d, res);
	free(ln.seg);
	free(f.good);
	return err;
}

/* ---- words ------------------------------------------------------------------------- */

/* What one run gave: a median, "pass", "fail", "untestable". */
static void run_value(fl_buf *out, const struct fl_descent_step *st)
{
	size_t fails = 0;

	if (st->skipped) {
		fl_buf_adds(out, "untestable");
		return;
	}
	if (st->model == FL_MODEL_VALUES) {
		fl_buf_addf(out, "%.6g", fl_stats_median(st->v, st->n));
		if (st->n > 1)
			fl_buf_addf(out, " (median of %zu)", st->n);
		return;
	}
	for (size_t i = 0; i < st->n; i++)
		fails += st->v[i] != 0;
	if (st->n == 1)
		fl_buf_adds(out, fails ? "fail" : "pass");
	else
		fl_buf_addf(out, "%zu of %zu failed", fails, st->n);
}

int fl_descent_step_repeats(struct fl_descent_echo *last, const struct fl_descent_step *st)
{
	int verifying = st->phase == FL_PHASE_VERIFY && st->best;
	int same = verifying && last->verifying && !strcmp(last->best, st->best);

	last->verifying = verifying;
	snprintf(last->best, sizeof(last->best), "%s", verifying ? st->best : "");
	return same;
}

void fl_descent_step_text(fl_buf *out, const struct fl_descent_step *st)
{
	fl_buf_addf(out, "step %zu: %.12s", st->seq + 1, st->sha);
	if (st->phase == FL_PHASE_CONFIRM) {
		fl_buf_addf(out, " (%s end) -> ", st->end == 1 ? "good" : "bad");
		run_value(out, st);
		return;
	}
	fl_buf_adds(out, " -> ");
	run_value(out, st);
	if (!st->skipped)
		fl_buf_addf(out, " (%s)", st->verdict);
	if (st->left <= 1)
		fl_buf_addf(out, "; the culprit is %.12s (p=%.2f)", st->best, st->confidence);
	else
		fl_buf_addf(out,
			    "; the culprit is one of %zu commits (%.0f%% sure), likeliest %.12s "
			    "(p=%.2f)",
			    st->left, 100 * st->target, st->best, st->confidence);
	if (st->phase == FL_PHASE_VERIFY)
		fl_buf_adds(out, ", verifying it");
}

static const char *ordinal(size_t parent)
{
	static const char *const names[] = {"first", "second", "third", "fourth", "fifth"};

	return parent < 5 ? names[parent] : "next";
}

void fl_descent_line_text(fl_buf *out, const struct fl_descent_line *ln)
{
	size_t k = ln->commits - 1;

	if (!ln->depth) {
		fl_buf_addf(out,
			    "the first-parent line from %.12s to %.12s, %zu commit%s after the "
			    "good end",
			    ln->good, ln->bad, k, k == 1 ? "" : "s");
		return;
	}
	fl_buf_addf(out,
		    "the branch merged by %.12s (its %s parent): %zu commit%s from base %.12s "
		    "to %.12s",
		    ln->merge, ordinal(ln->parent), k, k == 1 ? "" : "s", ln->good, ln->bad);
}

void fl_descent_candidates_text(fl_buf *out, const struct fl_descent_result *res)
{
	/* the good end is never a candidate: a block there means no search yet */
	if (res->kind != FL_BISECT_INCONCLUSIVE || !res->first || !res->last || !res->good ||
	    !strcmp(res->first, res->good))
		return;
	if (!strcmp(res->first, res->last))
		fl_buf_addf(out, ": the likeliest culprit is %.12s (p=%.2f)", res->first,
			    res->confidence);
	else
		fl_buf_addf(out, ": the likeliest culprits are %.12s..%.12s (p=%.2f together)",
			    res->first, res->last, res->confidence);
}

void fl_descent_path_text(fl_buf *out, const struct fl_descent_result *res)
{
	for (size_t i = res->depth; i-- > 0;) {
		fl_buf_addf(out, "%s in the branch merged by %.12s", i + 1 < res->depth ? "," : "",
			    res->path[i].merge);
		if (res->path[i].parent > 1)
			fl_buf_addf(out, " (its %s parent)", ordinal(res->path[i].parent));
	}
}

void fl_descent_summary_where(fl_buf *out, const char *summary)
{
	json_t *o = summary ? json_loads(summary, 0, NULL) : NULL;
	json_t *path = json_object_get(o, "path");
	struct fl_descent_result res = {.depth = json_array_size(path)};
	struct fl_descent_hop *hops = fl_xcalloc(res.depth + 1, sizeof(*hops));
	const char *merge = json_string_value(json_object_get(o, "merge"));
	const char *why = json_string_value(json_object_get(o, "why"));

	for (size_t i = 0; i < res.depth; i++) {
		json_t *h = json_array_get(path, i);
		const char *m = json_string_value(json_object_get(h, "merge"));

		hops[i].merge = m ? m : "?";
		hops[i].parent = (size_t)json_integer_value(json_object_get(h, "parent"));
	}
	res.path = hops;
	fl_descent_path_text(out, &res);
	if (merge && !strcmp(merge, "itself"))
		fl_buf_adds(out, "; the merged branch alone does not regress; the merge does");
	else if (merge && !strcmp(merge, "unsearched"))
		fl_buf_addf(out, "; a merge whose branch was not searched: %s",
			    why ? why : "unknown");
	free(hops);
	json_decref(o);
}

static json_t *number(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

char *fl_descent_summary(const struct fl_descent_result *res, enum fl_bisect_model model)
{
	static const char *const merge[] = {NULL, "itself", "unsearched"};
	json_t *path = json_array(), *o;
	char *s;

	for (size_t i = 0; i < res->depth; i++)
		json_array_append_new(path, json_pack("{s:s, s:I}", "merge", res->path[i].merge,
						      "parent", (json_int_t)res->path[i].parent));
	o = json_pack("{s:s, s:s, s:s, s:f, s:I, s:I, s:I, s:s, s:o}", "result",
		      fl_bisect_kind_name(res->kind), "first", res->first, "last", res->last,
		      "confidence", res->confidence, "runs", (json_int_t)res->runs,
		      "commits_tested", (json_int_t)res->commits_tested, "commits",
		      (json_int_t)res->commits, "good", res->good, "path", path);
	if (model == FL_MODEL_PASS_FAIL) {
		json_object_set_new(o, "false_pass", number(res->false_pass));
		json_object_set_new(o, "false_fail", number(res->false_fail));
	} else {
		/* infinite from a good value of 0: JSON has no such number */
		if (isfinite(res->change_pct))
			json_object_set_new(o, "change_pct", json_real(res->change_pct));
		json_object_set_new(o, "good_value", number(res->good_value));
		json_object_set_new(o, "bad_value", number(res->bad_value));
	}
	if (merge[res->merge])
		json_object_set_new(o, "merge", json_string(merge[res->merge]));
	if (res->why)
		json_object_set_new(o, "why", json_string(res->why));
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}
