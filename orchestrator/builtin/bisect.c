/*
 * builtin/bisect.c - "faultline bisect run": a noise-aware "git bisect run"
 * for any repository, on the merge descent (descent.h) and its engine.
 *
 * The range is what bad reaches and no good reaches (build/repo.c, libgit2),
 * searched line by line into merged branches. The commits under test are
 * checked out in a private detached worktree (build/checkout.h's
 * fl_worktree), so the user's own working tree, index and HEAD are never
 * touched; the worktree is removed at the end, also when a signal (SIGPIPE
 * included: a reader that went away) stops the bisection. This file parses
 * the options, runs CMD for the engine, keeps the record (--db) and prints
 * the answer.
 *
 * Two modes: values (every number CMD prints is a sample of a benchmark)
 * and exit-code (git bisect run's convention, 0 good, 1-127 bad but 125
 * skip, each run one observation of a test that may be flaky).
 */
#include "analysis/descent.h"
#include "build/checkout.h"
#include "build/repo.h"
#include "builtin/builtin.h"
#include "lib/buf.h"
#include "lib/cancel.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/run-command.h"
#include "store/bisect.h"
#include "store/watch.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ATTEMPTS 3 /* values mode: a failing run is retried this many times in all */
#define MAX_GOODS    32

struct run_opts {
	const char *repo, *bad, *db;
	const char *goods[MAX_GOODS];
	size_t ngoods;
	struct fl_bisect_opts bo;
	double timeout;
	int json, help;
};

struct bisect_ctx {
	const char *repo; /* as given */
	fl_repo *git;
	struct fl_dag dag;
	fl_descent *search;
	fl_worktree *wt; /* the private worktree CMD runs in */
	char **cmd;
	int cmd_in_checkout; /* a relative CMD path not in the current directory */
	int64_t timeout_ms;  /* --timeout: a longer run of CMD is killed and failed */
	enum fl_bisect_model model;
	fl_store *st; /* --db: every step is recorded here */
	int64_t id;
	size_t replayed;
	struct fl_descent_echo echo; /* the step lines said so far */
};

static void add_line(void *data, const char *line)
{
	fl_buf_addf(data, "%s\n", line);
}

/* ---- the repository and the range ------------------------------------------ */

/* The repository DIR is in (found from a subdirectory too, as git does). */
static int open_repo(struct bisect_ctx *bc)
{
	int r = fl_repo_discover(&bc->git, bc->repo);

	if (r == FL_ENOTFOUND)
		return fl_error_set(r, "%s is not a git repository (--repo)", bc->repo);
	return r;
}

/* Every revision names a commit, or the message names the one that does not. */
static int check_revs(struct bisect_ctx *bc, const struct run_opts *ro)
{
	char sha[41];

	for (size_t i = 0; i <= ro->ngoods; i++) {
		const char *rev = i < ro->ngoods ? ro->goods[i] : ro->bad;

		if (fl_repo_resolve(bc->git, rev, sha))
			return fl_error_set(FL_ENOTFOUND, "%s: bad revision '%s'", bc->repo, rev);
	}
	return 0;
}

static int make_range(struct bisect_ctx *bc, const struct run_opts *ro)
{
	int r;

	if ((r = open_repo(bc)) || (r = check_revs(bc, ro)) ||
	    (r = fl_repo_range(bc->git, ro->bad, ro->goods, ro->ngoods, &bc->dag)))
		return r;
	return fl_descent_new(&bc->search, &bc->dag, &ro->bo);
}

static char *subject(struct bisect_ctx *bc, const char *sha)
{
	struct fl_repo_commit c;
	char *s;

	if (fl_repo_commit(bc->git, sha, &c))
		return fl_xstrdup("");
	s = fl_xstrdup(c.subject ? c.subject : "");
	fl_repo_commit_release(&c);
	return s;
}

/* ---- the command ----------------------------------------------------------------- */

/* Whether the file at path (relative to the top) is in a good or the bad
 * commit: a CMD taken from the checkout has to be, for the ends to run.
 * A path that climbs ("../x") is not looked for, and counts. */
static int in_an_end(struct bisect_ctx *bc, const struct run_opts *ro, const char *path)
{
	char *text;
	size_t len;

	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (!strncmp(path, "../", 3) || strstr(path, "/../") || strstr(path, "/./"))
		return 1;
	for (size_t i = 0; i <= ro->ngoods; i++)
		if (!fl_repo_blob(bc->git, i < ro->ngoods ? ro->goods[i] : ro->bad, path, &text,
				  &len)) {
			free(text);
			return 1;
		}
	return 0;
}

/*
 * A relative CMD path ("./bench.sh", "scripts/x") is the caller's file when
 * it is there, as a git user means it: made absolute, and said so. Else it
 * is a file of each checkout, and has to be in a good or the bad commit. A
 * command that cannot be run at all is refused before anything starts.
 */
static int resolve_cmd(struct bisect_ctx *bc, const struct run_opts *ro)
{
	const char *p = bc->cmd[0], *rel;
	char cwd[4096];

	if (!strchr(p, '/')) {
		if (!fl_which(p))
			return fl_error_set(FL_ENOTFOUND, "cannot run '%s': not found in PATH", p);
		return 0;
	}
	if (*p != '/' && access(p, F_OK)) {
		if (!in_an_end(bc, ro, p))
			return fl_error_set(FL_ENOTFOUND,
					    "cannot run '%s': it is neither in the current "
					    "directory nor in the good or the bad commit",
					    p);
		bc->cmd_in_checkout = 1;
		fl_info("bisect: %s is not in the current directory: it is run from each commit's "
			"checkout",
			p);
		return 0;
	}
	if (access(p, X_OK))
		return fl_error_set(FL_ENOTFOUND, "cannot run '%s': %s", p, strerror(errno));
	if (*p == '/' || !getcwd(cwd, sizeof(cwd)))
		return 0;
	rel = p;
	while (rel[0] == '.' && rel[1] == '/')
		rel += 2; /* "./bench.sh" is cwd/bench.sh */
	bc->cmd[0] = fl_xasprintf("%s/%s", cwd, rel);
	fl_info("bisect: running %s (%s, from the current directory)", bc->cmd[0], p);
	return 0;
}

/* Every line of output that is exactly one number (blanks around allowed) is a sample. */
static size_t parse_samples(char *text, double **v)
{
	char *line, *save = NULL, *end;
	size_t n = 0, alloc = 4;
	double x;

	*v = fl_xmalloc(alloc * sizeof(double));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		errno = 0;
		x = strtod(line, &end);
		if (end == line || errno || !isfinite(x))
			continue;
		while (*end == ' ' || *end == '\t' || *end == '\r')
			end++;
		if (*end)
			continue;
		if (n == alloc)
			*v = fl_xrealloc(*v, (alloc *= 2) * sizeof(double));
		(*v)[n++] = x;
	}
	return n;
}

/* How one run of CMD ended. */
enum outcome { RAN, NOT_STARTED, TIMED_OUT };

/* One run of CMD in the worktree: its standard output in out, its standard
 * error passed through; *st its exit status; *why says how a run that did
 * not end by itself ended. A signal to us stops it. */
static int run_cmd(struct bisect_ctx *bc, const char *sha, fl_buf *out, int *st,
		   enum outcome *how, char **why)
{
	char *env_commit = fl_xasprintf("FAULTLINE_COMMIT=%s", sha);
	const char *env[] = {env_commit, NULL};
	struct fl_child c = {.argv = (const char *const *)bc->cmd,
			     .env = env,
			     .dir = fl_worktree_dir(bc->wt),
			     .on_line = add_line,
			     .data = out,
			     .timeout_ms = bc->timeout_ms,
			     .err = FL_ERR_OURS,
			     .cancel = fl_cancel_requested};
	int r = fl_run_command(&c, st);

	free(env_commit);
	*why = NULL;
	*how = RAN;
	if (r == FL_ENOTFOUND || r == FL_ETIMEOUT) {
		*how = r == FL_ENOTFOUND ? NOT_STARTED : TIMED_OUT;
		*why = fl_xstrdup(fl_error_last());
		*st = -1;
		r = 0;
	}
	if (!r && fl_cancel_requested())
		r = fl_error_set(FL_EIO, "interrupted by signal %d", fl_cancel_requested());
	return r;
}

/* The commit checked out in the worktree (the search often asks for the
 * same one again: the worktree keeps it). */
static int checkout(struct bisect_ctx *bc, const char *sha)
{
	if (fl_cancel_requested())
		return fl_error_set(FL_EIO, "interrupted by signal %d", fl_cancel_requested());
	return fl_worktree_checkout(bc->wt, sha);
}

/* A CMD that could not start: untestable when it is a file of the checkout
 * (this commit lacks it), else the end of the bisection. */
static int not_started(struct bisect_ctx *bc, const char *sha, const char *why)
{
	if (!bc->cmd_in_checkout)
		return fl_error_set(FL_ENOTFOUND, "%s", why);
	fl_info("bisect: %.12s: %s; skipping it", sha, why);
	return FL_BISECT_SKIP;
}

/* exit-code mode: one run is one outcome, as git bisect run reads it. */
static int sample_exit_code(struct bisect_ctx *bc, const char *sha, double **v, size_t *n)
{
	fl_buf out = FL_BUF_INIT;
	enum outcome how;
	char *why;
	int st, r = run_cmd(bc, sha, &out, &st, &how, &why);

	fl_buf_free(&out);
	if (!r && how == NOT_STARTED)
		r = not_started(bc, sha, why);
	else if (!r && how == TIMED_OUT) {
		fl_info("bisect: %.12s: %s; skipping it", sha, why);
		r = FL_BISECT_SKIP;
	} else if (!r && st == 125)
		r = FL_BISECT_SKIP;
	else if (!r && (st < 0 || st > 127))
		r = fl_error_set(FL_EIO, "%.12s: exit code %d from %s is not one of git bisect "
					 "run's (0-127)",
				 sha, st, bc->cmd[0]);
	else if (!r) {
		*v = fl_xmalloc(sizeof(double));
		(*v)[0] = st != 0;
		*n = 1;
	}
	free(why);
	return r;
}

/* values mode: one run that printed samples; a failed one is retried. */
static int sample_values(struct bisect_ctx *bc, const char *sha, double **v, size_t *n)
{
	fl_buf out = FL_BUF_INIT;
	int st, r = 0;

	for (int attempt = 1; attempt <= MAX_ATTEMPTS && !*n; attempt++) {
		enum outcome how;
		char *why;

		fl_buf_reset(&out);
		if ((r = run_cmd(bc, sha, &out, &st, &how, &why)))
			break;
		if (how == NOT_STARTED) {
			r = not_started(bc, sha, why);
			free(why);
			break;
		}
		if (st == 125) {
			fl_info("bisect: %.12s cannot be tested (exit 125), skipping it", sha);
			r = FL_BISECT_SKIP;
			break;
		}
		if (!st && (*n = parse_samples(out.ptr ? out.ptr : (char *)"", v)))
			break;
		free(*v);
		*v = NULL;
		if (why)
			fl_info("bisect: %.12s run %d of %d failed (%s)", sha, attempt,
				MAX_ATTEMPTS, why);
		else
			fl_info("bisect: %.12s run %d of %d failed (%s %d)", sha, attempt,
				MAX_ATTEMPTS, st ? "exit" : "no samples, exit", st);
		free(why);
	}
	fl_buf_free(&out);
	return r ? r : *n ? 0 : FL_BISECT_SKIP;
}

static int sample_commit(void *ctx, const char *sha, size_t seq, double **v, size_t *n)
{
	struct bisect_ctx *bc = ctx;
	int r;

	(void)seq;
	*v = NULL;
	*n = 0;
	if ((r = checkout(bc, sha)))
		return r;
	r = bc->model == FL_MODEL_PASS_FAIL ? sample_exit_code(bc, sha, v, n)
					    : sample_values(bc, sha, v, n);
	if (r < 0 || r == FL_BISECT_SKIP) {
		free(*v);
		*v = NULL;
		*n = 0;
	}
	return r;
}

/* ---- progress and the record ------------------------------------------------------- */

static void record_step(struct bisect_ctx *bc, const struct fl_descent_step *st)
{
	struct fl_bisect_step_rec rec = {
	    .seq = st->seq,
	    .sha = st->sha,
	    .skipped = st->skipped,
	    .v = st->v,
	    .n = st->n,
	    .verdict = st->verdict,
	    .confidence = st->confidence,
	    .remaining = st->left,
	    .best = st->best,
	    .phase = fl_bisect_phase_name(st->phase),
	    .branch = st->line->merge,
	};

	if (fl_store_bisect_step_add(bc->st, bc->id, &rec)) {
		fl_warn("bisect: %s; no longer recording", fl_error_last());
		fl_store_free(bc->st);
		bc->st = NULL;
	}
}

static void show_step(void *ctx, const struct fl_descent_step *st)
{
	struct bisect_ctx *bc = ctx;
	fl_buf line = FL_BUF_INIT;

	if (bc->st)
		record_step(bc, st);
	fl_descent_step_text(&line, st);
	if (fl_descent_step_repeats(&bc->echo, st))
		fl_verbose("bisect: %s", line.ptr);
	else
		fl_info("bisect: %s", line.ptr);
	fl_buf_free(&line);
}

static void show_line(void *ctx, const struct fl_descent_line *ln)
{
	struct bisect_ctx *bc = ctx;
	fl_buf text = FL_BUF_INIT;
	char *subj = ln->merge ? subject(bc, ln->merge) : NULL;

	fl_descent_line_text(&text, ln);
	if (subj)
		fl_info("bisect: descending into %s (\"%s\")", text.ptr, subj);
	else
		fl_info("bisect: searching %s", text.ptr);
	free(subj);
	fl_buf_free(&text);
}

static int replay_step(void *ctx, const struct fl_bisect_step_rec *r)
{
	struct bisect_ctx *bc = ctx;

	fl_descent_replay(bc->search, r->sha, r->v, r->n, r->skipped);
	bc->replayed++;
	return 0;
}

/* What the record is keyed by besides the revisions: the command and every
 * option that steers the search's choices (not the budget or the timeout,
 * so a larger --max-runs resumes). */
static char *record_key(const struct bisect_ctx *bc, const struct run_opts *ro)
{
	const struct fl_bisect_opts *o = &ro->bo;
	json_t *cmd = json_array(), *k;
	char *s;

	for (char **a = bc->cmd; *a; a++)
		json_array_append_new(cmd, json_string(*a));
	k = json_pack("{s:o, s:s, s:s, s:f, s:f, s:f, s:f}", "cmd", cmd, "mode",
		      o->model == FL_MODEL_PASS_FAIL ? "exit-code" : "values", "direction",
		      o->dir == FL_HIGHER_BETTER ? "higher" : "lower", "min_change", o->min_change,
		      "confidence", o->confidence, "false_pass", o->false_pass, "false_fail",
		      o->false_fail);
	s = json_dumps(k, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(k);
	return s;
}

/* The goods' shas, in one text (the record's good). */
static char *goods_text(struct bisect_ctx *bc, const struct run_opts *ro)
{
	fl_buf b = FL_BUF_INIT;
	char sha[41];

	for (size_t i = 0; i < ro->ngoods; i++)
		if (!fl_repo_resolve(bc->git, ro->goods[i], sha))
			fl_buf_addf(&b, "%s%s", i ? " " : "", sha);
	return fl_buf_detach(&b);
}

/*
 * --db: the unfinished bisection of the same revisions, command and options
 * is resumed by replaying its recorded runs (the search is deterministic
 * given its samples, so it makes the same choices without running CMD
 * again). One with other options is left as it is, and said so.
 */
static int open_record(struct bisect_ctx *bc, const struct run_opts *ro)
{
	char *key = record_key(bc, ro), *good = goods_text(bc, ro), bad[41];
	int64_t other;
	int resumed, r;

	fl_repo_resolve(bc->git, ro->bad, bad);
	r = fl_store_open(&bc->st, ro->db, 0) ||
	    fl_store_bisection_open(bc->st, good, bad, key, &bc->id, &resumed, &other) ||
	    (resumed && fl_store_bisect_steps_each(bc->st, bc->id, replay_step, bc));
	free(key);
	free(good);
	if (r)
		return FL_ERROR;
	if (other)
		fl_info("bisect: bisection %lld of these revisions was started with another command "
			"or options; it is left as it is (run it with those to resume it)",
			(long long)other);
	if (resumed)
		fl_info("bisect: resuming bisection %lld, %zu recorded runs", (long long)bc->id,
			bc->replayed);
	return 0;
}

/* The end of the record: finished with its answer, else stopped (resumable). */
static void close_record(struct bisect_ctx *bc, const struct fl_descent_result *r)
{
	int e;

	if (!bc->st)
		return;
	if (r && r->kind != FL_BISECT_INCONCLUSIVE) {
		char *sum = fl_descent_summary(r, bc->model);

		e = fl_store_bisection_finish(bc->st, bc->id, fl_bisect_kind_name(r->kind),
					      r->kind == FL_BISECT_CULPRIT ? r->first : NULL,
					      r->confidence) ||
		    fl_store_bisection_summary(bc->st, bc->id, sum);
		free(sum);
	} else {
		e = fl_store_bisection_stop(bc->st, bc->id);
	}
	if (e)
		fl_warn("bisect: %s", fl_error_last());
	fl_store_free(bc->st);
	bc->st = NULL;
}

/* ---- the answer --------------------------------------------------------------------- */

/* The measured change as a git user reads it: signed, in percent of the
 * good value, NAN from a good value of 0 (r->change_pct is "worse > 0"). */
static double signed_change(const struct fl_descent_result *r, enum fl_direction dir)
{
	if (!isfinite(r->change_pct))
		return NAN;
	return dir == FL_HIGHER_BETTER ? -r->change_pct : r->change_pct;
}

static json_t *path_json(struct bisect_ctx *bc, const struct fl_descent_result *r)
{
	json_t *path = json_array();

	for (size_t i = 0; i < r->depth; i++) {
		char *subj = subject(bc, r->path[i].merge);

		json_array_append_new(path, json_pack("{s:s, s:I, s:s}", "merge", r->path[i].merge,
						      "parent", (json_int_t)r->path[i].parent,
						      "subject", subj));
		free(subj);
	}
	return path;
}

static json_t *num_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* The answer as --json prints it. */
static json_t *result_json(struct bisect_ctx *bc, const struct fl_descent_result *r)
{
	static const char *const merge[] = {NULL, "itself", "unsearched"};
	json_t *o = json_object();

	json_object_set_new(o, "result", json_string(fl_bisect_kind_name(r->kind)));
	if (r->kind == FL_BISECT_CULPRIT) {
		char *subj = subject(bc, r->first);

		json_object_set_new(o, "commit", json_string(r->first));
		json_object_set_new(o, "subject", json_string(subj));
		free(subj);
	}
	json_object_set_new(o, "first", json_string(r->first));
	json_object_set_new(o, "last", json_string(r->last));
	json_object_set_new(o, "path", path_json(bc, r));
	if (merge[r->merge])
		json_object_set_new(o, "merge", json_string(merge[r->merge]));
	if (r->why)
		json_object_set_new(o, "why", json_string(r->why));
	json_object_set_new(o, "confidence", json_real(r->confidence));
	json_object_set_new(o, "runs", json_integer((json_int_t)r->runs));
	json_object_set_new(o, "commits_tested", json_integer((json_int_t)r->commits_tested));
	json_object_set_new(o, "commits", json_integer((json_int_t)r->commits));
	json_object_set_new(o, "good", json_string(r->good));
	return o;
}

static void add_values_json(json_t *o, const struct fl_descent_result *r, enum fl_direction dir)
{
	json_object_set_new(o, "change_pct", num_or_null(signed_change(r, dir)));
	json_object_set_new(o, "worse", json_boolean(r->change_pct > 0));
	json_object_set_new(o, "direction",
			    json_string(dir == FL_HIGHER_BETTER ? "higher" : "lower"));
	json_object_set_new(o, "good_value", num_or_null(r->good_value));
	json_object_set_new(o, "bad_value", num_or_null(r->bad_value));
}

/* "change -9.9% (worse: 100.1 -> 90.2, higher is better)" */
static void change_text(fl_buf *b, const struct fl_descent_result *r, enum fl_direction dir)
{
	double c = signed_change(r, dir);

	if (isnan(c))
		fl_buf_addf(b, "change from %.6g", r->good_value);
	else
		fl_buf_addf(b, "change %+.1f%%", c);
	fl_buf_addf(b, " (%s: %.6g -> %.6g, %s is better)",
		    r->change_pct > 0	? "worse"
		    : r->change_pct < 0 ? "better"
					: "no change",
		    r->good_value, r->bad_value, dir == FL_HIGHER_BETTER ? "higher" : "lower");
}

/* Where a culprit is, and what a merge culprit means. */
static void where_text(struct bisect_ctx *bc, const struct fl_descent_result *r)
{
	for (size_t i = r->depth; i-- > 0;) {
		char *subj = subject(bc, r->path[i].merge);

		printf("in the branch merged by %s (\"%s\")\n", r->path[i].merge, subj);
		free(subj);
	}
	if (r->merge == FL_MERGE_ITSELF)
		printf("the merged branch alone does not regress; the merge does\n");
	else if (r->merge == FL_MERGE_UNSEARCHED)
		printf("a merge whose branch was not searched: %s\n", r->why);
}

/* Defect-proof "no-regression": what was measured against what was asked. */
static void below_text(const struct fl_descent_result *r, const struct run_opts *ro)
{
	fl_buf b = FL_BUF_INIT;
	double c = fabs(r->change_pct);

	change_text(&b, r, ro->bo.dir);
	printf("measured %s", b.ptr);
	if (r->change_pct > 0 && isfinite(c))
		printf(", below --min-change %g%%; to bisect a change this small, lower it "
		       "(--min-change %.2g)\n",
		       100 * ro->bo.min_change, c / 2);
	else
		printf(": the bad end is not worse\n");
	fl_buf_free(&b);
}

static void print_text(struct bisect_ctx *bc, const struct fl_descent_result *r,
		       const struct run_opts *ro)
{
	fl_buf b = FL_BUF_INIT;

	if (r->kind == FL_BISECT_CULPRIT) {
		char *subj = subject(bc, r->first);

		printf("culprit %s %s\n", r->first, subj);
		free(subj);
		where_text(bc, r);
	} else if (r->kind == FL_BISECT_RANGE) {
		printf("range %s %s\n", r->first, r->last);
		where_text(bc, r);
	} else {
		fl_descent_candidates_text(&b, r);
		printf("%s%s\n", fl_bisect_kind_name(r->kind), b.len ? b.ptr : "");
		fl_buf_reset(&b);
	}
	if (ro->bo.model == FL_MODEL_PASS_FAIL)
		printf("confidence %.3f, %zu run%s, %zu commit%s tested; estimated flakes: a bad "
		       "commit's test passes %.1f%% of runs, a good commit's fails %.1f%%\n",
		       r->confidence, r->runs, FL_S(r->runs), r->commits_tested,
		       FL_S(r->commits_tested), 100 * r->false_pass, 100 * r->false_fail);
	else if (r->kind == FL_BISECT_NO_REGRESSION) {
		below_text(r, ro);
		printf("%zu run%s, %zu commit%s tested\n", r->runs, FL_S(r->runs), r->commits_tested,
		       FL_S(r->commits_tested));
	} else {
		change_text(&b, r, ro->bo.dir);
		printf("confidence %.3f, %s, %zu run%s, %zu commit%s tested\n", r->confidence, b.ptr,
		       r->runs, FL_S(r->runs), r->commits_tested, FL_S(r->commits_tested));
	}
	fl_buf_free(&b);
}

static void print_result(struct bisect_ctx *bc, const struct fl_descent_result *r,
			 const struct run_opts *ro)
{
	if (ro->json) {
		json_t *o = result_json(bc, r);

		json_object_set_new(o, "mode", json_string(ro->bo.model == FL_MODEL_PASS_FAIL
								? "exit-code"
								: "values"));
		if (ro->bo.model == FL_MODEL_VALUES)
			add_values_json(o, r, ro->bo.dir);
		else {
			json_object_set_new(o, "false_pass", json_real(r->false_pass));
			json_object_set_new(o, "false_fail", json_real(r->false_fail));
		}
		json_dumpf(o, stdout, JSON_COMPACT);
		putchar('\n');
		json_decref(o);
	} else {
		print_text(bc, r, ro);
	}
	fflush(stdout);
}

/* ---- options ------------------------------------------------------------------------- */

/* A number; with pct, "N%" too, as the percentage N: what --min-change 5
 * and 5% both mean (the configuration writes 2%). */
static int parse_number(const char *opt, const char *s, int pct, double *x)
{
	char *end;

	errno = 0;
	*x = strtod(s, &end);
	if (end == s || errno || !isfinite(*x) || (*end && (!pct || strcmp(end, "%"))))
		return fl_error_set(FL_EINVAL, "%s: '%s' is not a number%s", opt, s,
				    pct ? " (or a percentage like 5%)" : "");
	return 0;
}

/* A probability or a rate: a fraction, or a percentage ("95%" is 0.95). */
static int parse_fraction(const char *opt, const char *s, double *x)
{
	int r = parse_number(opt, s, 1, x);

	if (!r && strchr(s, '%'))
		*x /= 100;
	return r;
}

/* The value of opt (optarg) is ok, or FL_EINVAL saying what opt takes. */
static int accept(const char *opt, int ok, const char *what)
{
	return ok ? 0 : fl_error_set(FL_EINVAL, "%s: %s is not %s", opt, optarg, what);
}

/* optarg is one of the two words; *first whether it is the first. */
static int parse_word(const char *opt, const char *a, const char *b, int *first)
{
	if (strcmp(optarg, a) && strcmp(optarg, b))
		return fl_error_set(FL_EINVAL, "%s: '%s' is not %s or %s", opt, optarg, a, b);
	*first = !strcmp(optarg, a);
	return 0;
}

static int parse_opt(int c, struct run_opts *ro)
{
	struct fl_bisect_opts *o = &ro->bo;
	double x = 0;
	int first = 0, r;

	switch (c) {
	case 'r': ro->repo = optarg; return 0;
	case 'b': ro->bad = optarg; return 0;
	case 'j': ro->json = 1; return 0;
	case 'D': ro->db = optarg; return 0;
	case 'h': ro->help = 1; return 0;
	case 'g':
		if (ro->ngoods == MAX_GOODS)
			return fl_error_set(FL_EINVAL, "--good: at most %d good revisions",
					    MAX_GOODS);
		ro->goods[ro->ngoods++] = optarg;
		return 0;
	case 'd':
		if ((r = parse_word("--direction", "higher", "lower", &first)))
			return r;
		o->dir = first ? FL_HIGHER_BETTER : FL_LOWER_BETTER;
		return 0;
	case 'M':
		if ((r = parse_word("--mode", "values", "exit-code", &first)))
			return r;
		o->model = first ? FL_MODEL_VALUES : FL_MODEL_PASS_FAIL;
		return 0;
	case 'm':
		if (!(r = parse_number("--min-change", optarg, 1, &x)))
			r = accept("--min-change", x > 0, "above 0 (a percentage: 5 or 5%)");
		o->min_change = x / 100;
		return r;
	case 'c':
		if (!(r = parse_fraction("--confidence", optarg, &x)))
			r = accept("--confidence", x > 0 && x < 1,
				   "between 0 and 1 (a probability: 0.95 or 95%)");
		o->confidence = x;
		return r;
	case 'n':
		if (!(r = parse_number("--max-runs", optarg, 0, &x)))
			r = accept("--max-runs", x >= 1 && x < 1e9 && x == floor(x),
				   "a whole number of runs, 1 or more");
		o->max_runs = r ? 0 : (size_t)x;
		return r;
	case 't':
		if (!(r = parse_number("--timeout", optarg, 0, &x)))
			r = accept("--timeout", x >= 0, "a number of seconds, 0 or more");
		ro->timeout = x;
		return r;
	case 'P':
	case 'F': {
		const char *opt = c == 'P' ? "--false-pass" : "--false-fail";

		if (!(r = parse_fraction(opt, optarg, &x)))
			r = accept(opt, x >= 0 && x < 0.5, "a rate from 0 to below 0.5 (or 50%)");
		*(c == 'P' ? &o->false_pass : &o->false_fail) = x;
		return r;
	}
	}
	return FL_EINVAL; /* '?': fl_getopt said what is wrong */
}

/* What must be there: a good and a bad revision, and CMD. */
static int check_args(int argc, const struct run_opts *ro)
{
	if (!ro->ngoods)
		return fl_error_set(FL_EINVAL, "--good REV is needed: a good revision, an "
					       "ancestor of --bad (may be repeated)");
	if (!ro->bad)
		return fl_error_set(FL_EINVAL, "--bad REV is needed: the bad revision");
	if (optind >= argc)
		return fl_error_set(FL_EINVAL, "no command to run: give it after the options, "
					       "\"-- CMD [ARGS...]\"");
	return 0;
}

/* The options into ro: the index of CMD in argv, or FL_EINVAL once the
 * reason is on stderr (getopt_long's, or ours). */
static int parse_args(int argc, char **argv, struct run_opts *ro)
{
	static const struct option opts[] = {
	    {"repo", required_argument, NULL, 'r'},
	    {"good", required_argument, NULL, 'g'},
	    {"bad", required_argument, NULL, 'b'},
	    {"direction", required_argument, NULL, 'd'},
	    {"min-change", required_argument, NULL, 'm'},
	    {"confidence", required_argument, NULL, 'c'},
	    {"max-runs", required_argument, NULL, 'n'},
	    {"json", no_argument, NULL, 'j'},
	    {"db", required_argument, NULL, 'D'},
	    {"timeout", required_argument, NULL, 't'},
	    {"mode", required_argument, NULL, 'M'},
	    {"false-pass", required_argument, NULL, 'P'},
	    {"false-fail", required_argument, NULL, 'F'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, r = 0;

	ro->repo = ".";
	fl_bisect_opts_init(&ro->bo);
	optind = 2;
	while (!r && (c = fl_getopt(argc, argv, "+h", opts)) != -1)
		if ((r = parse_opt(c, ro)) && c != '?')
			fl_arg_error("bisect", "%s", fl_error_last());
	if (r || ro->help)
		return r ? r : optind;
	if ((r = check_args(argc, ro)))
		return fl_arg_error("bisect", "%s", fl_error_last());
	return optind;
}

/* ---- the command ------------------------------------------------------------------------- */

static int exit_code(const struct fl_descent_result *res)
{
	return res->kind == FL_BISECT_CULPRIT || res->kind == FL_BISECT_RANGE ? FL_EXIT_OK
	       : res->kind == FL_BISECT_NO_REGRESSION				 ? FL_EXIT_NO
										 : FL_EXIT_INCONCLUSIVE;
}

static int fail(int code)
{
	fprintf(stderr, "faultline: %s\n", fl_error_last());
	return code;
}

static int search(struct bisect_ctx *bc, const struct run_opts *ro)
{
	static const struct fl_descent_ops ops = {sample_commit, show_step, show_line};
	struct fl_descent_result res;
	int r;

	if (ro->db && open_record(bc, ro))
		return fail(FL_EXIT_FAIL);
	if (fl_worktree_add(&bc->wt, bc->git, fl_descent_good_end(bc->search)))
		return fail(FL_EXIT_FAIL);
	fl_info("bisect: %zu commit%s in the range, %zu on the first-parent line of bad",
		fl_dag_range_size(&bc->dag), fl_dag_range_size(&bc->dag) == 1 ? "" : "s",
		fl_descent_first_line(bc->search) - 1);
	if ((r = fl_descent_run(bc->search, &ops, bc, &res)))
		return fail(FL_EXIT_FAIL);
	close_record(bc, &res);
	print_result(bc, &res, ro);
	return exit_code(&res);
}

static int bisect_run(int argc, char **argv)
{
	struct bisect_ctx bc = {0};
	struct run_opts ro = {0};
	int at, code;

	if ((at = parse_args(argc, argv, &ro)) < 0)
		return fl_usage(&fl_cmd_bisect);
	if (ro.help) {
		fl_help_print(&fl_cmd_bisect, stdout);
		return FL_EXIT_OK;
	}
	/*
	 * SIGINT/SIGTERM/SIGHUP/SIGPIPE: stop after the current run, remove the
	 * worktree and keep what was recorded, so the bisection can be resumed
	 * with --db. Caught from the start: one during the setup stops the
	 * bisection at its first step the same way.
	 */
	fl_cancel_catch(FL_CANCEL_HUP | FL_CANCEL_PIPE);
	bc.repo = ro.repo;
	bc.cmd = argv + at;
	bc.model = ro.bo.model;
	bc.timeout_ms = (int64_t)(ro.timeout * 1000);
	if (make_range(&bc, &ro) || resolve_cmd(&bc, &ro))
		code = fail(FL_EXIT_USAGE);
	else
		code = search(&bc, &ro);
	close_record(&bc, NULL);
	fl_worktree_free(bc.wt);
	if (bc.cmd[0] != argv[at])
		free(bc.cmd[0]);
	fl_descent_free(bc.search);
	fl_dag_release(&bc.dag);
	fl_repo_free(bc.git);
	return code;
}

static int cmd_bisect(int argc, char **argv)
{
	static const char *const subs[] = {"run", NULL};
	int sub, r;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fl_help_print(&fl_cmd_bisect, stdout);
		return FL_EXIT_OK;
	}
	if ((r = fl_subcommand(argc, argv, &fl_cmd_bisect, subs, &sub)))
		return r;
	return bisect_run(argc, argv);
}

const struct fl_command fl_cmd_bisect = {
    .name = "bisect",
    .run = cmd_bisect,
    .usage =
	"bisect run [--repo DIR] --good REV [--good REV]... --bad REV [options] -- CMD [ARGS...]",
    .summary = "find the commit that made a noisy benchmark worse or a flaky test fail",
    .help = "Finds the commit between the good and the bad revisions that made CMD worse,\n"
	    "running CMD in a private worktree once per step (the user's checkout is not\n"
	    "touched). The range is what bad reaches and no good reaches; a culprit inside\n"
	    "a merged branch is found inside it.\n"
	    "\n"
	    "options:\n"
	    "  --repo DIR          the repository (default: the current directory)\n"
	    "  --good REV          a good revision, an ancestor of bad; may be repeated\n"
	    "  --bad REV           the bad revision\n"
	    "  --mode MODE         values (default): every line of CMD's output that is one\n"
	    "                      number is a sample; exit-code: git bisect run's exit\n"
	    "                      codes (0 good, 125 untestable, 1-127 bad), and the test\n"
	    "                      may be flaky\n"
	    "  --direction D       values: higher (default, throughput) or lower is better\n"
	    "  --min-change PCT    values: the smallest worsening that counts, in percent:\n"
	    "                      5 or 5% (default 5)\n"
	    "  --false-pass RATE   exit-code: how often a bad commit's test passes, if known\n"
	    "                      (0.2 or 20%)\n"
	    "  --false-fail RATE   exit-code: how often a good commit's test fails, if known\n"
	    "  --confidence P      stop when the culprit is this likely: 0.95 or 95%\n"
	    "                      (default 0.95)\n"
	    "  --max-runs N        at most N runs of CMD in all (default 200)\n"
	    "  --timeout SECONDS   a longer run of CMD is killed and fails\n"
	    "  --json              print the result as one JSON object\n"
	    "  --db PATH           record every run in a store; the same bisection started\n"
	    "                      again (same revisions, command and options) resumes\n"
	    "  -h, --help          this help\n"
	    "\n"
	    "CMD runs with FAULTLINE_COMMIT set to the commit's sha, in the worktree's top\n"
	    "directory. A relative CMD path is taken from the current directory when it\n"
	    "is there, else from each commit's checkout.\n"
	    "Exit: 0 culprit or range, 1 no regression, 2 usage or repository error,\n"
	    "3 inconclusive, 4 runtime failure (an untestable end, a signal).\n",
    .own_help = 1,
};
