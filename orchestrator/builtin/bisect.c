/*
 * builtin/bisect.c - "faultline bisect run": a noise-aware "git bisect run"
 * for any repository, on the engine of bisect.c.
 *
 * The commits under test are checked out in a private detached worktree
 * (git worktree add --detach in a temporary directory), so the user's own
 * working tree, index and HEAD are never touched; the worktree is removed
 * at the end. git is run as a program: its CLI is the stable interface for
 * worktrees, and running it keeps this file free of libgit2 state.
 */
#include "analysis/bisect.h"
#include "lib/buf.h"
#include "lib/cancel.h"
#include "builtin/builtin.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/run-command.h"
#include "store/bisect.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ATTEMPTS 3 /* a failing run is retried this many times in all */

struct bisect_ctx {
	const char *repo;
	char *wt; /* the private worktree */
	char **shas;
	size_t n;
	char **cmd;
	size_t current;	    /* the commit checked out in wt, n when unknown */
	int64_t timeout_ms; /* --timeout: a longer run of CMD is killed and failed */
	fl_store *st;	    /* --db: every step is recorded here */
	int64_t id;
	size_t replayed;
};

static void add_line(void *data, const char *line)
{
	fl_buf_addf(data, "%s\n", line);
}

/* git -C repo ARGS... (NULL-terminated), its standard output (trimmed of
 * the last newline) in out, its standard error discarded; 0 or FL_ENOTFOUND. */
static int git(const char *repo, fl_buf *out, ...)
{
	const char *argv[12] = {"git", "-C", repo};
	struct fl_child c = {.argv = argv, .on_line = add_line, .data = out, .err = FL_ERR_NULL};
	size_t k = 3;
	va_list ap;
	int st, r;

	va_start(ap, out);
	while (k + 1 < sizeof(argv) / sizeof(*argv) && (argv[k] = va_arg(ap, const char *)))
		k++;
	va_end(ap);
	argv[k] = NULL;
	fl_buf_reset(out);
	r = fl_run_command(&c, &st);
	while (out->len && out->ptr[out->len - 1] == '\n')
		out->ptr[--out->len] = '\0';
	return r || st ? FL_ENOTFOUND : 0;
}

static int resolve(const char *repo, const char *rev, char **sha)
{
	fl_buf out = FL_BUF_INIT;
	char *spec = fl_xasprintf("%s^{commit}", rev);
	int r = git(repo, &out, "rev-parse", "--verify", "--quiet", spec, NULL);

	free(spec);
	if (r || out.len != 40) {
		fl_buf_free(&out);
		return fl_error_set(FL_ENOTFOUND, "%s: bad revision '%s'", repo, rev);
	}
	*sha = fl_buf_detach(&out);
	return 0;
}

/* The first-parent chain from good (index 0) to bad (index n-1). */
static int first_parent_list(struct bisect_ctx *bc, const char *good, const char *bad)
{
	fl_buf out = FL_BUF_INIT;
	char *line, *save = NULL;
	size_t k = 0, alloc = 16;
	char **rev;

	if (git(bc->repo, &out, "rev-list", "--first-parent", bad, NULL))
		return fl_error_set(FL_ENOTFOUND, "%s: cannot list the history of %s", bc->repo,
				    bad);
	rev = fl_xmalloc(alloc * sizeof(*rev));
	for (line = strtok_r(out.ptr, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (k == alloc)
			rev = fl_xrealloc(rev, (alloc *= 2) * sizeof(*rev));
		rev[k++] = fl_xstrdup(line);
		if (!strcmp(line, good))
			break;
	}
	fl_buf_free(&out);
	if (!k || strcmp(rev[k - 1], good)) {
		while (k)
			free(rev[--k]);
		free(rev);
		return fl_error_set(
		    FL_EINVAL, "%s: good %.12s is not on the first-parent history of bad %.12s",
		    bc->repo, good, bad);
	}
	bc->n = k;
	bc->shas = fl_xmalloc(k * sizeof(char *));
	for (size_t i = 0; i < k; i++)
		bc->shas[i] = rev[k - 1 - i];
	free(rev);
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

/* One run of CMD in the worktree: its standard output in out, its standard
 * error passed through; *st its exit status. A run that cannot be started
 * or that timed out is a failed run (*why says how); a signal stops it. */
static int run_cmd(struct bisect_ctx *bc, const char *sha, fl_buf *out, int *st, char **why)
{
	char *env_commit = fl_xasprintf("FAULTLINE_COMMIT=%s", sha);
	const char *env[] = {env_commit, NULL};
	struct fl_child c = {.argv = (const char *const *)bc->cmd,
			     .env = env,
			     .dir = bc->wt,
			     .on_line = add_line,
			     .data = out,
			     .timeout_ms = bc->timeout_ms,
			     .err = FL_ERR_OURS,
			     .cancel = fl_cancel_requested};
	int r = fl_run_command(&c, st);

	free(env_commit);
	*why = NULL;
	if (r == FL_ENOTFOUND || r == FL_ETIMEOUT) {
		*why = fl_xstrdup(fl_error_last());
		*st = -1;
		r = 0;
	}
	if (!r && fl_cancel_requested())
		r = fl_error_set(FL_EIO, "interrupted by signal %d", fl_cancel_requested());
	return r;
}

static int sample_commit(void *ctx, size_t idx, double **v, size_t *n)
{
	struct bisect_ctx *bc = ctx;
	const char *sha = bc->shas[idx];
	fl_buf out = FL_BUF_INIT;
	int st, r = 0;

	*v = NULL;
	*n = 0;
	if (fl_cancel_requested())
		return fl_error_set(FL_EIO, "interrupted by signal %d", fl_cancel_requested());
	/* the engine often asks for the same commit again: keep the checkout */
	if (bc->current != idx &&
	    git(bc->wt, &out, "checkout", "--quiet", "--detach", "--force", sha, NULL))
		return fl_error_set(FL_EIO, "%s: cannot check out %.12s", bc->wt, sha);
	bc->current = idx;
	for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
		char *why;

		fl_buf_reset(&out);
		if ((r = run_cmd(bc, sha, &out, &st, &why)))
			break;
		if (st == 125) {
			fl_info("bisect: %.7s cannot be tested (exit 125), skipping", sha);
			break;
		}
		if (!st && (*n = parse_samples(out.ptr ? out.ptr : (char *)"", v)))
			break;
		free(*v);
		*v = NULL;
		*n = 0;
		if (why)
			fl_info("bisect: %.7s run %d of %d failed (%s)", sha, attempt, MAX_ATTEMPTS,
				why);
		else
			fl_info("bisect: %.7s run %d of %d failed (%s %d)", sha, attempt,
				MAX_ATTEMPTS, st ? "exit" : "no samples, exit", st);
		free(why);
	}
	fl_buf_free(&out);
	if (r) {
		free(*v);
		*v = NULL;
		return r;
	}
	return *n ? 0 : FL_BISECT_SKIP;
}

static void show_step(void *ctx, const struct fl_bisect_step *st)
{
	struct bisect_ctx *bc = ctx;
	int steps = 0;

	if (bc->st) {
		struct fl_bisect_step_rec rec = {
		    .seq = st->seq,
		    .sha = bc->shas[st->idx],
		    .skipped = st->skipped,
		    .v = st->v,
		    .n = st->n,
		    .verdict = st->verdict,
		    .confidence = st->confidence,
		    .remaining = st->left,
		    .best = st->phase != FL_PHASE_CONFIRM ? bc->shas[st->best] : NULL,
		    .phase = fl_bisect_phase_name(st->phase),
		};

		if (fl_store_bisect_step_add(bc->st, bc->id, &rec)) {
			fl_warn("bisect: %s; no longer recording", fl_error_last());
			fl_store_free(bc->st);
			bc->st = NULL;
		}
	}
	if (st->phase == FL_PHASE_CONFIRM) {
		fl_verbose("bisect: measuring %s end %.7s", st->idx ? "bad" : "good",
			   bc->shas[st->idx]);
		return;
	}
	while ((1u << steps) < st->left)
		steps++;
	fl_info("bisect: %zu commits left, ~%d steps, best candidate %.7s p=%.2f%s", st->left,
		steps, bc->shas[st->best], st->confidence,
		st->phase == FL_PHASE_VERIFY ? " (verifying)" : "");
}

static char *subject(const char *repo, const char *sha)
{
	fl_buf out = FL_BUF_INIT;

	git(repo, &out, "log", "-1", "--format=%s", sha, NULL);
	return fl_buf_detach(&out);
}

static void print_result(struct bisect_ctx *bc, const struct fl_bisect_result *r, int json)
{
	const char *first = bc->shas[r->first], *last = bc->shas[r->last];
	char *subj = NULL;

	if (r->kind == FL_BISECT_CULPRIT)
		subj = subject(bc->repo, first);
	if (json) {
		json_t *o = json_object();

		json_object_set_new(o, "result", json_string(fl_bisect_kind_name(r->kind)));
		if (r->kind == FL_BISECT_CULPRIT) {
			json_object_set_new(o, "commit", json_string(first));
			json_object_set_new(o, "subject", json_string(subj));
		} else if (r->kind == FL_BISECT_RANGE) {
			json_object_set_new(o, "first", json_string(first));
			json_object_set_new(o, "last", json_string(last));
		}
		json_object_set_new(o, "confidence", json_real(r->confidence));
		json_object_set_new(o, "change_pct", json_real(r->change_pct));
		json_object_set_new(o, "runs", json_integer((json_int_t)r->runs));
		json_object_set_new(o, "commits_tested",
				    json_integer((json_int_t)r->commits_tested));
		json_dumpf(o, stdout, JSON_COMPACT);
		putchar('\n');
		json_decref(o);
	} else {
		if (r->kind == FL_BISECT_CULPRIT)
			printf("culprit %s %s\n", first, subj);
		else if (r->kind == FL_BISECT_RANGE)
			printf("range %s %s\n", first, last);
		else
			printf("%s\n", fl_bisect_kind_name(r->kind));
		printf("confidence %.3f, change %+.1f%%, %zu runs, %zu commits tested\n",
		       r->confidence, r->change_pct, r->runs, r->commits_tested);
	}
	free(subj);
}

struct run_opts {
	const char *repo, *good, *bad, *db;
	struct fl_bisect_opts bo;
	double timeout;
	int json;
};

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
	    {NULL, 0, NULL, 0},
	};
	char *end;
	int c;

	ro->repo = ".";
	fl_bisect_opts_init(&ro->bo);
	optind = 2;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		errno = 0;
		end = NULL;
		if (c == 'r')
			ro->repo = optarg;
		else if (c == 'g')
			ro->good = optarg;
		else if (c == 'b')
			ro->bad = optarg;
		else if (c == 'j')
			ro->json = 1;
		else if (c == 'D')
			ro->db = optarg;
		else if (c == 'd' && (!strcmp(optarg, "higher") || !strcmp(optarg, "lower")))
			ro->bo.dir = !strcmp(optarg, "higher") ? FL_HIGHER_BETTER : FL_LOWER_BETTER;
		else if (c == 'm')
			ro->bo.min_change = strtod(optarg, &end) / 100;
		else if (c == 'c')
			ro->bo.confidence = strtod(optarg, &end);
		else if (c == 'n')
			ro->bo.max_runs = strtoul(optarg, &end, 10);
		else if (c == 't')
			ro->timeout = strtod(optarg, &end);
		else
			return -1;
		if (end && (*end || errno || end == optarg)) {
			fprintf(stderr, "faultline: bad number '%s'\n", optarg);
			return -1;
		}
	}
	if (!ro->good || !ro->bad || optind >= argc || ro->bo.min_change <= 0 ||
	    ro->bo.confidence <= 0 || ro->bo.confidence >= 1 || !ro->bo.max_runs || ro->timeout < 0)
		return -1;
	return optind;
}

static int make_worktree(struct bisect_ctx *bc, const char *good)
{
	fl_buf out = FL_BUF_INIT;
	const char *tmp = getenv("TMPDIR");
	char *dir = fl_xasprintf("%s/faultline-bisect-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int r;

	if (!mkdtemp(dir)) {
		free(dir);
		return fl_error_set(FL_EIO, "cannot create a temporary directory: %s",
				    strerror(errno));
	}
	rmdir(dir); /* git worktree add wants to create it */
	r = git(bc->repo, &out, "worktree", "add", "--detach", dir, NULL);
	if (!r) {
		free(out.ptr);
		out = (fl_buf)FL_BUF_INIT;
		r = git(dir, &out, "checkout", "--quiet", "--detach", good, NULL);
	}
	fl_buf_free(&out);
	bc->wt = dir;
	return r ? fl_error_set(FL_EIO, "%s: cannot create a worktree in %s", bc->repo, dir) : 0;
}

static void remove_worktree(struct bisect_ctx *bc)
{
	fl_buf out = FL_BUF_INIT;

	if (bc->wt) {
		git(bc->repo, &out, "worktree", "remove", "--force", bc->wt, NULL);
		git(bc->repo, &out, "worktree", "prune", NULL);
	}
	fl_buf_free(&out);
	free(bc->wt);
}

struct replay_ctx {
	struct bisect_ctx *bc;
	fl_bisect *b;
};

static int replay_step(void *ctx, const struct fl_bisect_step_rec *r)
{
	struct replay_ctx *rc = ctx;

	for (size_t i = 0; i < rc->bc->n; i++)
		if (!strcmp(rc->bc->shas[i], r->sha)) {
			fl_bisect_replay(rc->b, i, r->v, r->n, r->skipped);
			rc->bc->replayed++;
			return 0;
		}
	return fl_error_set(FL_EINVAL, "recorded step %zu names %.12s, not on this path", r->seq,
			    r->sha);
}

/*
 * --db: the unfinished bisection of the same good..bad is resumed by
 * replaying its recorded steps (the engine is deterministic given its
 * samples, so it makes the same choices without running CMD again).
 */
static int open_record(struct bisect_ctx *bc, fl_bisect *b, const char *db, const char *good,
		       const char *bad)
{
	struct replay_ctx rc = {bc, b};
	int resumed;

	if (fl_store_open(&bc->st, db, 0) ||
	    fl_store_bisection_open(bc->st, good, bad, &bc->id, &resumed) ||
	    (resumed && fl_store_bisect_steps_each(bc->st, bc->id, replay_step, &rc)))
		return FL_ERROR;
	if (resumed)
		fl_info("bisect: resuming bisection %lld, %zu recorded runs", (long long)bc->id,
			bc->replayed);
	return 0;
}

static void close_record(struct bisect_ctx *bc, const struct fl_bisect_result *r)
{
	if (!bc->st)
		return;
	if (r && r->kind != FL_BISECT_INCONCLUSIVE &&
	    fl_store_bisection_finish(bc->st, bc->id, fl_bisect_kind_name(r->kind),
				      r->kind == FL_BISECT_CULPRIT ? bc->shas[r->first] : NULL,
				      r->confidence))
		fl_warn("bisect: %s", fl_error_last());
	fl_store_free(bc->st);
	bc->st = NULL;
}

static int bisect_run(int argc, char **argv)
{
	struct bisect_ctx bc = {0};
	struct fl_bisect_result res;
	struct run_opts ro = {0};
	char *good = NULL, *bad = NULL;
	fl_bisect *b = NULL;
	int at, r, code;

	if ((at = parse_args(argc, argv, &ro)) < 0)
		return fl_usage("bisect");
	/*
	 * SIGINT/SIGTERM/SIGHUP: stop after the current run, remove the
	 * worktree and keep what was recorded, so the bisection can be resumed
	 * with --db. Caught from the start: one during the setup stops the
	 * bisection at its first step the same way.
	 */
	fl_cancel_catch(FL_CANCEL_HUP);
	bc.repo = ro.repo;
	bc.cmd = argv + at;
	bc.timeout_ms = (int64_t)(ro.timeout * 1000);
	if (resolve(ro.repo, ro.good, &good) || resolve(ro.repo, ro.bad, &bad) ||
	    first_parent_list(&bc, good, bad) || fl_bisect_new(&b, bc.n, &ro.bo)) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		code = FL_EXIT_USAGE;
		goto out;
	}
	if (ro.db && open_record(&bc, b, ro.db, good, bad)) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		code = FL_EXIT_FAIL;
		goto out;
	}
	if ((r = make_worktree(&bc, good))) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		code = FL_EXIT_FAIL;
		goto out;
	}
	bc.current = bc.n;
	fl_info("bisect: %zu commits on the first-parent path from %.7s to %.7s", bc.n, good, bad);
	r = fl_bisect_run(b, sample_commit, show_step, &bc, &res);
	if (r) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		code = FL_EXIT_FAIL;
		goto out;
	}
	close_record(&bc, &res);
	print_result(&bc, &res, ro.json);
	code = res.kind == FL_BISECT_CULPRIT || res.kind == FL_BISECT_RANGE ? FL_EXIT_OK
	       : res.kind == FL_BISECT_NO_REGRESSION			    ? FL_EXIT_NO
									    : FL_EXIT_INCONCLUSIVE;
out:
	close_record(&bc, NULL);
	remove_worktree(&bc);
	fl_bisect_free(b);
	for (size_t i = 0; i < bc.n; i++)
		free(bc.shas[i]);
	free(bc.shas);
	free(good);
	free(bad);
	return code;
}

int cmd_bisect(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "run"))
		return fl_usage("bisect");
	return bisect_run(argc, argv);
}
