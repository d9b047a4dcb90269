/*
 * test_descent.c - the merge descent (analysis/descent.h) on small graphs
 * built by the test: the culprit inside a merged branch, inside a branch
 * merged into a merged branch, in an octopus merge's third parent, an evil
 * merge, a null history, a culprit next to an untestable commit inside a
 * branch (a range there), several goods and a good off the first-parent
 * line, a branch that cannot be searched, the runs of a line reused by the
 * next, and a bisection resumed from its record at any point without a run
 * repeated. Values are Gaussian around 100 (sd 1), 4 lower from the culprit
 * on (every commit that reaches it); pass/fail tests fail from it on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/descent.h"
#include "analysis/stats.h"
#include "lib/buf.h"
#include "lib/error.h"

#define MAXREC 600

struct hist {
	struct fl_dag g;
	char *slow;	  /* slow[i]: node i reaches the culprit */
	const char *skip; /* a commit that cannot be tested, or NULL */
	int passfail;
	uint64_t rng;
	size_t calls, ncalls_of; /* sample calls; those of calls_of */
	const char *calls_of;
	/* the record: every new run */
	size_t nrec;
	char rec_sha[MAXREC][41];
	double rec_v[MAXREC];
	int rec_skip[MAXREC];
	size_t deep_good_end_runs; /* runs of a line's good end while confirming below depth 0 */
	size_t lines;
};

/* ---- graphs ---- */

static size_t find(const struct fl_dag *g, const char *sha)
{
	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->nodes[i].sha, sha))
			return i;
	fail_msg("no node %s", sha);
	return 0;
}

/* A commit with up to three parents (NULL: none); outside: a good reaches it. */
static void commit(struct fl_dag *g, const char *sha, int outside, const char *p1, const char *p2,
		   const char *p3)
{
	size_t i = fl_dag_add(g, sha, outside);
	const char *ps[] = {p1, p2, p3};

	for (int k = 0; k < 3; k++)
		if (ps[k])
			fl_dag_add_parent(g, i, find(g, ps[k]));
}

/* A chain name1..nameN on top of base: each the parent of the next. */
static void chain(struct fl_dag *g, const char *prefix, int n, const char *base)
{
	char sha[16], prev[16];

	snprintf(prev, sizeof(prev), "%s", base);
	for (int i = 1; i <= n; i++) {
		snprintf(sha, sizeof(sha), "%s%d", prefix, i);
		commit(g, sha, 0, prev, NULL, NULL);
		snprintf(prev, sizeof(prev), "%s", sha);
	}
}

static int reaches(const struct fl_dag *g, size_t i, size_t target, char *memo)
{
	if (memo[i])
		return memo[i] - 1;
	memo[i] = 1;
	if (i == target)
		memo[i] = 2;
	for (size_t p = 0; p < g->nodes[i].nparents && memo[i] == 1; p++)
		if (reaches(g, g->nodes[i].parents[p], target, memo))
			memo[i] = 2;
	return memo[i] - 1;
}

/* Marks what reaches the culprit (NULL: nothing, a null history). */
static void set_culprit(struct hist *h, const char *culprit)
{
	char *memo = calloc(h->g.n, 1);

	h->slow = calloc(h->g.n, 1);
	for (size_t i = 0; culprit && i < h->g.n; i++) {
		memset(memo, 0, h->g.n);
		h->slow[i] = (char)reaches(&h->g, i, find(&h->g, culprit), memo);
	}
	free(memo);
}

/*
 * mainline: g (good, outside) - m1 - m2 - M(m2, a6) - m3 - bad(m4); the
 * branch a1..a6 forks from m1.
 */
static void one_branch(struct hist *h)
{
	commit(&h->g, "g", 1, NULL, NULL, NULL);
	chain(&h->g, "m", 2, "g");
	chain(&h->g, "a", 6, "m1");
	commit(&h->g, "M", 0, "m2", "a6", NULL);
	commit(&h->g, "m3", 0, "M", NULL, NULL);
	commit(&h->g, "m4", 0, "m3", NULL, NULL);
	h->g.bad = find(&h->g, "m4");
}

/* ---- the search's callbacks ---- */

static int sample(void *ctx, const char *sha, size_t seq, double **v, size_t *n)
{
	struct hist *h = ctx;
	int slow = h->slow[find(&h->g, sha)];

	(void)seq;
	h->calls++;
	if (h->calls_of && !strcmp(sha, h->calls_of))
		h->ncalls_of++;
	if (h->skip && !strcmp(sha, h->skip))
		return FL_BISECT_SKIP;
	*v = fl_xmalloc(sizeof(double));
	(*v)[0] = h->passfail ? slow : 100 - 4 * slow + fl_rand_normal(&h->rng);
	*n = 1;
	return 0;
}

static void step(void *ctx, const struct fl_descent_step *st)
{
	struct hist *h = ctx;

	if (h->nrec < MAXREC) {
		snprintf(h->rec_sha[h->nrec], 41, "%s", st->sha);
		h->rec_v[h->nrec] = st->n ? st->v[0] : 0;
		h->rec_skip[h->nrec] = st->skipped;
		h->nrec++;
	}
	if (st->line->depth && st->end == 1 && st->phase == FL_PHASE_CONFIRM)
		h->deep_good_end_runs++;
}

static void line(void *ctx, const struct fl_descent_line *ln)
{
	struct hist *h = ctx;

	(void)ln;
	h->lines++;
}

static const struct fl_descent_ops ops = {sample, step, line};

static void opts(struct fl_bisect_opts *o, int passfail)
{
	fl_bisect_opts_init(o);
	o->min_change = 0.01;
	if (passfail)
		o->model = FL_MODEL_PASS_FAIL;
}

static fl_descent *last; /* the last search: its result's strings */

/* The search over h's graph; res's strings stay valid until release(). */
static void search(struct hist *h, struct fl_descent_result *res)
{
	struct fl_bisect_opts o;
	fl_descent *d;

	opts(&o, h->passfail);
	assert_int_equal(fl_descent_new(&d, &h->g, &o), 0);
	assert_int_equal(fl_descent_run(d, &ops, h, res), 0);
	assert_int_equal(res->runs, h->calls);
	last = d;
}

static void release(struct hist *h)
{
	fl_descent_free(last);
	last = NULL;
	fl_dag_release(&h->g);
	free(h->slow);
	memset(h, 0, sizeof(*h));
}

/* ---- tests ---- */

static void test_linear(void **state)
{
	struct fl_descent_result res;
	struct hist h = {.rng = 1};

	(void)state;
	commit(&h.g, "g", 1, NULL, NULL, NULL);
	chain(&h.g, "c", 30, "g");
	h.g.bad = find(&h.g, "c30");
	set_culprit(&h, "c13");
	search(&h, &res);
	assert_int_equal(res.kind, FL_BISECT_CULPRIT);
	assert_string_equal(res.first, "c13");
	assert_int_equal(res.depth, 0);
	assert_int_equal(res.merge, FL_MERGE_NONE);
	assert_int_equal(res.commits, 30);
	assert_string_equal(res.good, "g");
	release(&h);
}

/*
 * The culprit inside the merged branch: first the merge M is found on the
 * first-parent line, then a4 inside. The branch's base is g's child m1,
 * and the line starts with what the first line ran: M's first parent m2
 * was run there (its verification), and the runs of a line's good end are
 * not taken again when the first line already took enough of them.
 */
static void test_in_branch(void **state)
{
	struct fl_descent_result res;

	(void)state;
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct hist h = {.rng = seed};

		one_branch(&h);
		set_culprit(&h, "a4");
		search(&h, &res);
		assert_int_equal(res.kind, FL_BISECT_CULPRIT);
		assert_string_equal(res.first, "a4");
		assert_int_equal(res.depth, 1);
		assert_string_equal(res.path[0].merge, "M");
		assert_int_equal(res.path[0].parent, 1);
		assert_int_equal(res.merge, FL_MERGE_NONE);
		assert_true(res.confidence >= 0.95);
		assert_int_equal(h.lines, 2);
		release(&h);
	}
	/* the base of the branch is the first line's good end: its runs carry over */
	{
		struct hist h = {.rng = 7};

		commit(&h.g, "g", 1, NULL, NULL, NULL);
		chain(&h.g, "m", 2, "g");
		chain(&h.g, "a", 6, "g");
		commit(&h.g, "M", 0, "m2", "a6", NULL);
		commit(&h.g, "m3", 0, "M", NULL, NULL);
		h.g.bad = find(&h.g, "m3");
		set_culprit(&h, "a2");
		search(&h, &res);
		assert_int_equal(res.kind, FL_BISECT_CULPRIT);
		assert_string_equal(res.first, "a2");
		assert_int_equal(h.deep_good_end_runs, 0);
		release(&h);
	}
}

/* A branch merged into the merged branch: C merges b1..b3 into a-line. */
static void test_nested(void **state)
{
	struct fl_descent_result res;
	struct hist h = {.rng = 3};

	(void)state;
	commit(&h.g, "g", 1, NULL, NULL, NULL);
	chain(&h.g, "m", 3, "g");
	chain(&h.g, "a", 3, "m1");
	chain(&h.g, "b", 4, "a1");
	commit(&h.g, "C", 0, "a3", "b4", NULL);
	commit(&h.g, "a4", 0, "C", NULL, NULL);
	commit(&h.g, "M", 0, "m3", "a4", NULL);
	commit(&h.g, "m4", 0, "M", NULL, NULL);
	h.g.bad = find(&h.g, "m4");
	set_culprit(&h, "b3");
	search(&h, &res);
	assert_int_equal(res.kind, FL_BISECT_CULPRIT);
	assert_string_equal(res.first, "b3");
	assert_int_equal(res.depth, 2);
	assert_string_equal(res.path[0].merge, "M");
	assert_string_equal(res.path[1].merge, "C");
	{
		fl_buf b = FL_BUF_INIT;

		fl_descent_path_text(&b, &res);
		assert_string_equal(b.ptr, " in the branch merged by C, in the branch merged by M");
		fl_buf_free(&b);
	}
	release(&h);
}

/* An octopus merge: its second parent's branch does not regress, its third's does. */
static void test_octopus(void **state)
{
	struct fl_descent_result res;
	struct hist h = {.rng = 4};

	(void)state;
	commit(&h.g, "g", 1, NULL, NULL, NULL);
	chain(&h.g, "m", 2, "g");
	chain(&h.g, "a", 4, "m1");
	chain(&h.g, "b", 5, "m1");
	commit(&h.g, "O", 0, "m2", "a4", "b5");
	commit(&h.g, "m3", 0, "O", NULL, NULL);
	h.g.bad = find(&h.g, "m3");
	set_culprit(&h, "b2");
	search(&h, &res);
	assert_int_equal(res.kind, FL_BISECT_CULPRIT);
	assert_string_equal(res.first, "b2");
	assert_int_equal(res.depth, 1);
	assert_string_equal(res.path[0].merge, "O");
	assert_int_equal(res.path[0].parent, 2);
	release(&h);
}

/* The merge itself regresses (an evil merge): neither branch does alone. */
static void test_evil_merge(void **state)
{
	struct fl_descent_result res;

	(void)state;
	for (int pf = 0; pf < 2; pf++) {
		struct hist h = {.rng = 5, .passfail = pf};

		one_branch(&h);
		set_culprit(&h, "M");
		search(&h, &res);
		assert_int_equal(res.kind, FL_BISECT_CULPRIT);
		assert_string_equal(res.first, "M");
		assert_int_equal(res.merge, FL_MERGE_ITSELF);
		assert_int_equal(res.depth, 0);
		assert_int_equal(h.lines, 2); /* the branch was searched, and cleared */
		release(&h);
	}
}

static void test_null(void **state)
{
	struct fl_descent_result res;
	struct hist h = {.rng = 6};

	(void)state;
	one_branch(&h);
	set_culprit(&h, NULL);
	search(&h, &res);
	assert_int_equal(res.kind, FL_BISECT_NO_REGRESSION);
	assert_int_equal(h.lines, 1);
	release(&h);
}

/* a3 cannot be tested and a4 is the culprit: the range a3..a4 in M's branch. */
static void test_skip_in_branch(void **state)
{
	struct fl_descent_result res;

	(void)state;
	for (int pf = 0; pf < 2; pf++) {
		struct hist h = {.rng = 8, .skip = "a3", .passfail = pf};

		one_branch(&h);
		set_culprit(&h, "a4");
		search(&h, &res);
		assert_int_equal(res.kind, FL_BISECT_RANGE);
		assert_string_equal(res.first, "a3");
		assert_string_equal(res.last, "a4");
		assert_int_equal(res.depth, 1);
		assert_string_equal(res.path[0].merge, "M");
		release(&h);
	}
}

/*
 * Two goods, one inside the branch (a2): a1 and a2 are out of the range,
 * and the branch's line stops at a2. A good off bad's first-parent line
 * (only a2): the first line ends at the first commit a2 reaches.
 */
static void test_goods(void **state)
{
	struct fl_descent_result res;
	struct hist h = {.rng = 9};

	(void)state;
	commit(&h.g, "m1", 1, NULL, NULL, NULL);
	commit(&h.g, "a1", 1, NULL, NULL, NULL);
	commit(&h.g, "a2", 1, NULL, NULL, NULL);
	commit(&h.g, "a3", 0, "a2", NULL, NULL);
	commit(&h.g, "a4", 0, "a3", NULL, NULL);
	commit(&h.g, "a5", 0, "a4", NULL, NULL);
	commit(&h.g, "m2", 0, "m1", NULL, NULL);
	commit(&h.g, "M", 0, "m2", "a5", NULL);
	commit(&h.g, "m3", 0, "M", NULL, NULL);
	h.g.bad = find(&h.g, "m3");
	set_culprit(&h, "a4");
	search(&h, &res);
	assert_int_equal(res.kind, FL_BISECT_CULPRIT);
	assert_string_equal(res.first, "a4");
	assert_string_equal(res.good, "m1");
	assert_int_equal(res.commits, 6);
	release(&h);
	/* bad's first-parent line reaches a root before any good: refused */
	h = (struct hist){.rng = 10};
	commit(&h.g, "x", 0, NULL, NULL, NULL);
	commit(&h.g, "y", 0, "x", NULL, NULL);
	h.g.bad = find(&h.g, "y");
	{
		fl_descent *d;
		struct fl_bisect_opts o;

		opts(&o, 0);
		assert_int_equal(fl_descent_new(&d, &h.g, &o), FL_EINVAL);
	}
	release(&h);
}

/* The branch's base cannot be tested: M is the answer, its branch unsearched. */
static void test_unsearched(void **state)
{
	struct fl_descent_result res;
	struct hist h = {.rng = 11, .skip = "m1"};

	(void)state;
	one_branch(&h);
	set_culprit(&h, "a4");
	search(&h, &res);
	assert_int_equal(res.kind, FL_BISECT_CULPRIT);
	assert_string_equal(res.first, "M");
	assert_int_equal(res.merge, FL_MERGE_UNSEARCHED);
	assert_string_equal(res.why, "the base m1 of its branch cannot be tested");
	assert_int_equal(res.depth, 0);
	release(&h);
}

/*
 * Resuming: the first k runs of a bisection replayed, for every k, give the
 * same answer with the same runs, and only the others run. Across lines:
 * the record crosses from the first line into the branch.
 */
static void test_resume(void **state)
{
	struct fl_descent_result full, res;
	struct hist h = {.rng = 12};
	struct fl_bisect_opts o;

	(void)state;
	one_branch(&h);
	set_culprit(&h, "a4");
	search(&h, &full);
	assert_string_equal(full.first, "a4");
	assert_int_equal(h.nrec, full.runs);
	opts(&o, 0);
	for (size_t keep = 0; keep <= h.nrec; keep += 3) {
		struct hist h2 = {.g = h.g, .slow = h.slow, .rng = 12};
		fl_descent *d;

		/* the noise stream past the kept runs: the rest is the same */
		for (size_t i = 0; i < keep; i++)
			fl_rand_normal(&h2.rng);
		assert_int_equal(fl_descent_new(&d, &h.g, &o), 0);
		for (size_t i = 0; i < keep; i++)
			fl_descent_replay(d, h.rec_sha[i], &h.rec_v[i], 1, h.rec_skip[i]);
		assert_int_equal(fl_descent_run(d, &ops, &h2, &res), 0);
		assert_int_equal(h2.calls, full.runs - keep);
		assert_int_equal(h2.nrec, full.runs - keep); /* only new runs are steps */
		assert_int_equal(res.kind, full.kind);
		assert_string_equal(res.first, full.first);
		assert_int_equal(res.runs, full.runs);
		assert_true(res.confidence == full.confidence);
		fl_descent_free(d);
	}
	/* a record that does not match: from there everything runs again */
	{
		struct hist h2 = {.g = h.g, .slow = h.slow, .rng = 12};
		fl_descent *d;
		double v = 100;

		assert_int_equal(fl_descent_new(&d, &h.g, &o), 0);
		fl_descent_replay(d, "m3", &v, 1, 0);
		assert_int_equal(fl_descent_run(d, &ops, &h2, &res), 0);
		assert_int_equal(h2.calls, res.runs);
		assert_string_equal(res.first, "a4");
		fl_descent_free(d);
	}
	release(&h);
}

/* The pass/fail model descends the same way. */
static void test_passfail_branch(void **state)
{
	struct fl_descent_result res;
	struct hist h = {.rng = 13, .passfail = 1};

	(void)state;
	one_branch(&h);
	set_culprit(&h, "a5");
	search(&h, &res);
	assert_int_equal(res.kind, FL_BISECT_CULPRIT);
	assert_string_equal(res.first, "a5");
	assert_int_equal(res.depth, 1);
	release(&h);
}

/* What both users print for a step, a line and a path. */
static void test_words(void **state)
{
	struct fl_descent_line ln = {
	    .depth = 1, .merge = "M", .parent = 1, .good = "b", .bad = "t", .commits = 7};
	double v[] = {94.87};
	struct fl_descent_step st = {.seq = 16,
				     .sha = "3f2a",
				     .line = &ln,
				     .phase = FL_PHASE_SEARCH,
				     .v = v,
				     .n = 1,
				     .verdict = "bad",
				     .confidence = 0.62,
				     .best = "3f2a",
				     .left = 6,
				     .target = 0.95};
	fl_buf b = FL_BUF_INIT;

	(void)state;
	fl_descent_step_text(&b, &st);
	assert_string_equal(b.ptr, "step 17: 3f2a -> 94.87 (bad); the culprit is one of 6 commits "
				   "(95% sure), likeliest 3f2a (p=0.62)");
	fl_buf_reset(&b);
	st.left = 1;
	st.phase = FL_PHASE_VERIFY;
	fl_descent_step_text(&b, &st);
	assert_string_equal(b.ptr, "step 17: 3f2a -> 94.87 (bad); the culprit is 3f2a (p=0.62), "
				   "verifying it");
	fl_buf_reset(&b);
	st.phase = FL_PHASE_CONFIRM;
	st.end = 1;
	fl_descent_step_text(&b, &st);
	assert_string_equal(b.ptr, "step 17: 3f2a (good end) -> 94.87");
	fl_buf_reset(&b);
	fl_descent_line_text(&b, &ln);
	assert_string_equal(
	    b.ptr, "the branch merged by M (its second parent): 6 commits from base b to t");
	fl_buf_free(&b);
}

/* The verification's runs all say "the culprit is X, verifying it": only the
 * first is progress, the rest repeat it; a new culprit or another phase is
 * progress again. */
static void test_step_repeats(void **state)
{
	struct fl_descent_step st = {.phase = FL_PHASE_SEARCH, .best = "3f2a", .left = 6};
	struct fl_descent_echo echo = {0};

	(void)state;
	assert_false(fl_descent_step_repeats(&echo, &st));
	assert_false(fl_descent_step_repeats(&echo, &st)); /* a search step is always news */
	st.phase = FL_PHASE_VERIFY;
	st.left = 1;
	assert_false(fl_descent_step_repeats(&echo, &st)); /* the verification starts */
	for (int i = 0; i < 12; i++)
		assert_true(fl_descent_step_repeats(&echo, &st));
	st.best = "77aa"; /* it failed: another candidate is verified */
	assert_false(fl_descent_step_repeats(&echo, &st));
	assert_true(fl_descent_step_repeats(&echo, &st));
	st.phase = FL_PHASE_SEARCH;
	assert_false(fl_descent_step_repeats(&echo, &st));
	st.phase = FL_PHASE_VERIFY;
	assert_false(fl_descent_step_repeats(&echo, &st));
	st.phase = FL_PHASE_CONFIRM;
	st.best = NULL;
	assert_false(fl_descent_step_repeats(&echo, &st));
}

/* Where an answer is, read back from the summary the pages and the report get. */
static void test_summary_where(void **state)
{
	struct fl_descent_hop hops[] = {{"1111111111112222", 1}, {"3333333333334444", 2}};
	struct fl_descent_result res = {.kind = FL_BISECT_CULPRIT,
					.first = "c",
					.last = "c",
					.good = "g",
					.path = hops,
					.depth = 2};
	fl_buf b = FL_BUF_INIT;
	char *sum = fl_descent_summary(&res, FL_MODEL_VALUES);

	(void)state;
	fl_descent_summary_where(&b, sum);
	assert_string_equal(b.ptr, " in the branch merged by 333333333333 (its third parent), in "
				   "the branch merged by 111111111111");
	free(sum);
	fl_buf_reset(&b);
	res.depth = 0;
	res.merge = FL_MERGE_ITSELF;
	sum = fl_descent_summary(&res, FL_MODEL_VALUES);
	fl_descent_summary_where(&b, sum);
	assert_string_equal(b.ptr, "; the merged branch alone does not regress; the merge does");
	free(sum);
	fl_buf_reset(&b);
	fl_descent_summary_where(&b, "{\"result\":\"culprit\",\"path\":[]}");
	fl_descent_summary_where(&b, "not json");
	fl_descent_summary_where(&b, NULL);
	assert_int_equal(b.len, 0);
	fl_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_linear),	    cmocka_unit_test(test_in_branch),
	    cmocka_unit_test(test_nested),	    cmocka_unit_test(test_octopus),
	    cmocka_unit_test(test_evil_merge),	    cmocka_unit_test(test_null),
	    cmocka_unit_test(test_skip_in_branch),  cmocka_unit_test(test_goods),
	    cmocka_unit_test(test_unsearched),	    cmocka_unit_test(test_resume),
	    cmocka_unit_test(test_passfail_branch), cmocka_unit_test(test_words),
	    cmocka_unit_test(test_step_repeats), cmocka_unit_test(test_summary_where),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
