/*
 * autobisect.c - the bisect step of the watch service: the merge descent
 * (descent.h, the engine on each line it searches) over the regression's
 * range, baseline..tag, on the machine where it was seen, measuring a
 * commit being one run job.
 *
 * The search asks for one commit at a time and is deterministic given the
 * samples it gets, so the step does not keep it between calls: each step
 * builds it, replays the recorded steps (bisect_steps, fl_descent_replay),
 * and lets it ask for the next run. A run that exists and is done gives
 * its samples and becomes a recorded step; one that does not exist yet is
 * queued and the step returns, waiting for it. A restart therefore replays
 * everything recorded and runs nothing twice. A step records the merge
 * whose branch it searched (branch), and the summary the path to the
 * answer.
 *
 * A run gives the engine the samples it produced at the regression's point
 * (one per measured second on kernel machines, one per number printed on
 * command machines): the engine receives each run as one call. Untestable
 * commits and runs that failed every attempt (fl_attempts_job) are skips.
 * Its run jobs measure only that point (a quarter of the benchmark's four).
 *
 * The comparison that found the regression ran the baseline and the tag,
 * interleaved, on the same machine: before the first run those runs become
 * the first steps at the two ends (seed) when the baseline is the first
 * line's good end (it is on the tag's first-parent line), so the
 * confirmation only adds runs to them. The answer's guarantee does not
 * rest on them: the culprit is verified with fresh runs.
 */
#include "analysis/descent.h"
#include "lib/buf.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/log.h"
#include "service/measure.h"
#include "service/pipeline.h"
#include "service/service.h"
#include "store/bisect.h"
#include "store/run.h"
#include "store/watch.h"

#include <stdlib.h>
#include <string.h>

struct autobisect {
	fl_store *st;
	const struct fl_job *job;
	struct fl_regression reg;
	struct fl_dag dag;
	fl_descent *search;
	int64_t id; /* bisections row */
	size_t recorded, added;
	size_t seeded;	/* the comparison's runs offered as the first steps (seed) */
	int64_t run_id; /* the run of step run_seq, for its log line: /run/<id> */
	size_t run_seq;
	struct fl_descent_echo echo; /* the step lines said so far */
};

static int replay(void *ctx, const struct fl_bisect_step_rec *r)
{
	struct autobisect *a = ctx;

	fl_descent_replay(a->search, r->sha, r->v, r->n, r->skipped);
	a->recorded++;
	/* each step is said by its own call of this step: the echo as the
	 * recorded ones left it, so a verification's repeats stay detail */
	a->echo.verifying = r->phase && !strcmp(r->phase, fl_bisect_phase_name(FL_PHASE_VERIFY)) &&
			    r->best && *r->best;
	snprintf(a->echo.best, sizeof(a->echo.best), "%s", a->echo.verifying ? r->best : "");
	return 0;
}

/* The run's samples at the regression's point; FL_BISECT_SKIP when it has none. */
static int run_samples(struct autobisect *a, int64_t run_id, double **v, size_t *n)
{
	struct fl_sample_row *s;
	size_t ns;
	int r;

	if ((r = fl_store_run_samples(a->st, run_id, &s, &ns)))
		return r;
	*v = fl_xmalloc((ns + 1) * sizeof(double));
	*n = 0;
	for (size_t i = 0; i < ns; i++)
		if (s[i].tasks == a->reg.tasks && !strcmp(s[i].metric, a->reg.metric) &&
		    !strcmp(s[i].mode, a->reg.mode) && !strcmp(s[i].cgroup, a->reg.cgroup))
			(*v)[(*n)++] = s[i].value;
	fl_store_samples_free(s, ns);
	return *n ? 0 : FL_BISECT_SKIP;
}

/*
 * The first run the search asks for beyond the seeds: how many of the
 * comparison's runs its confirmation took, as the steps the bisection's
 * page lists first (it may need fewer than the comparison made).
 */
static void say_seeds(struct autobisect *a, size_t seq)
{
	if (!a->seeded)
		return;
	if (seq >= a->seeded)
		fl_info("bisect: regression %lld: steps 1-%zu are the comparison's %zu runs of the "
			"ends %.12s and %.12s",
			(long long)a->reg.id, a->seeded, a->seeded, a->reg.good, a->reg.bad);
	else if (seq)
		fl_info("bisect: regression %lld: steps 1-%zu are %zu of the comparison's %zu runs "
			"of the ends %.12s and %.12s (its confirmation took no more)",
			(long long)a->reg.id, seq, seq, a->seeded, a->reg.good, a->reg.bad);
	a->seeded = 0;
}

static int sample(void *ctx, const char *sha, size_t seq, double **v, size_t *n)
{
	struct autobisect *a = ctx;
	char *point = fl_point_key(a->reg.mode, a->reg.tasks, a->reg.cgroup);
	struct fl_job_spec s = {.from = a->job,
				.rev = sha,
				.role = fl_role_name(FL_ROLE_BISECT),
				.point = point,
				.seq = (int)seq, /* the step this run becomes */
				.bisection_id = a->id};
	struct fl_job j;
	int64_t id;
	int r;

	*v = NULL;
	*n = 0;
	say_seeds(a, seq);
	r = fl_service_job_find(a->st, FL_JOB_RUN, &s, &j);
	if (r == FL_ENOTFOUND) {
		r = fl_service_enqueue(a->st, FL_JOB_RUN, &s, &id);
		a->added += !r;
		free(point);
		return r ? r : FL_EAGAIN;
	}
	free(point);
	if (r)
		return r;
	if (fl_job_is(j.state, FL_STATE_FAILED))
		r = fl_error_set(FL_EIO, "run job %lld of %.12s failed: %s", (long long)j.id, j.rev,
				 j.error ? j.error : "no reason given");
	else if (!fl_job_is(j.state, FL_STATE_DONE))
		r = FL_EAGAIN;
	else if (j.result && !strcmp(j.result, "ok"))
		r = run_samples(a, j.run_id, v, n);
	else
		r = FL_BISECT_SKIP;
	a->run_seq = seq;
	a->run_id = j.run_id;
	fl_job_release(&j);
	return r;
}

static void step_done(void *ctx, const struct fl_descent_step *s)
{
	struct autobisect *a = ctx;
	struct fl_bisect_step_rec rec = {.seq = s->seq,
					 .sha = s->sha,
					 .skipped = s->skipped,
					 .v = s->v,
					 .n = s->n,
					 .verdict = s->verdict,
					 .confidence = s->confidence,
					 .remaining = s->left,
					 .best = s->best,
					 .phase = fl_bisect_phase_name(s->phase),
					 .branch = s->line->merge};
	fl_buf line = FL_BUF_INIT, text = FL_BUF_INIT;

	/* records from here on are ones the search no longer follows (it
	 * diverged from them, as from seeds its confirmation did not need) */
	if (fl_store_bisect_steps_truncate(a->st, a->id, s->seq) ||
	    fl_store_bisect_step_add(a->st, a->id, &rec))
		fl_err("bisect: regression %lld: cannot record step %zu: %s", (long long)a->reg.id,
		       s->seq, fl_error_last());
	fl_crashpoint("bisect-step");
	fl_descent_step_text(&text, s);
	/* "step 11 (run 15): ...": the bisection page's step, and the run's page */
	if (a->run_id && a->run_seq == s->seq) {
		size_t at = strcspn(text.ptr, ":");

		fl_buf_add(&line, text.ptr, at);
		fl_buf_addf(&line, " (run %lld)%s", (long long)a->run_id, text.ptr + at);
	} else {
		fl_buf_adds(&line, text.ptr);
	}
	fl_buf_free(&text);
	if (fl_descent_step_repeats(&a->echo, s))
		fl_verbose("bisect: regression %lld: %s", (long long)a->reg.id, line.ptr);
	else
		fl_info("bisect: regression %lld: %s", (long long)a->reg.id, line.ptr);
	fl_buf_free(&line);
}

static void line_start(void *ctx, const struct fl_descent_line *ln)
{
	struct autobisect *a = ctx;
	fl_buf text = FL_BUF_INIT;

	if (ln->resumed)
		return;
	fl_descent_line_text(&text, ln);
	fl_info("bisect: regression %lld: searching %s", (long long)a->reg.id, text.ptr);
	fl_buf_free(&text);
}

static int is_improvement(const struct autobisect *a)
{
	return a->reg.kind && !strcmp(a->reg.kind, "improvement");
}

/* The result, and the next stage: the revert check for a culprit, else the report. */
static int conclude(struct autobisect *a, const struct fl_descent_result *res)
{
	const char *kind = fl_bisect_kind_name(res->kind);
	char *sum = fl_descent_summary(res, FL_MODEL_VALUES);
	fl_buf where = FL_BUF_INIT;
	int64_t id;
	int r;

	if ((r = fl_store_tx_begin(a->st)))
		goto out;
	r = fl_store_bisection_finish(a->st, a->id, kind,
				      res->kind == FL_BISECT_CULPRIT ? res->first : NULL,
				      res->confidence);
	if (!r)
		r = fl_store_bisection_summary(a->st, a->id, sum);
	/* an improvement's commit is reported, not reverted */
	if (!r && res->kind != FL_BISECT_NO_REGRESSION)
		r = fl_service_enqueue(
		    a->st,
		    res->kind == FL_BISECT_CULPRIT && !is_improvement(a) ? FL_JOB_REVERT
									 : FL_JOB_REPORT,
		    &(struct fl_job_spec){.from = a->job, .regression_id = a->reg.id}, &id);
	if (!r)
		r = fl_job_set(a->st, a->job->id, FL_STATE_DONE, kind, NULL);
	if (!r)
		r = fl_store_tx_commit(a->st);
	fl_descent_path_text(&where, res);
	if (r)
		fl_store_tx_rollback(a->st);
	else if (res->kind == FL_BISECT_CULPRIT)
		/* the culprit's own figure said as such, then the regression's headline */
		fl_info("bisect: regression %lld: culprit %s%s%s (confidence %.3f, %zu run%s, "
			"%zu commit%s tested): %.1f%% %s than its parent on the bisection's runs; "
			"the regression's headline is %+.1f%%, %s against %s",
			(long long)a->reg.id, res->first, where.ptr ? where.ptr : "",
			res->merge == FL_MERGE_ITSELF ? ": the merged branch alone does not "
							"regress; the merge does"
						      : "",
			res->confidence, res->runs, FL_S(res->runs), res->commits_tested,
			FL_S(res->commits_tested), res->change_pct,
			is_improvement(a) ? "better" : "worse", a->reg.change, a->reg.tag,
			a->reg.baseline);
	else {
		fl_buf_reset(&where);
		fl_descent_candidates_text(&where, res);
		fl_info("bisect: regression %lld: %s after %zu runs%s", (long long)a->reg.id, kind,
			res->runs, where.len ? where.ptr : "");
	}
out:
	fl_buf_free(&where);
	free(sum);
	return r;
}

/* The range baseline..tag as a graph, and the search over it. */
static int range(struct autobisect *a, fl_repo *repo, const struct fl_bisect_opts *o)
{
	const char *goods[] = {a->reg.good};
	int r;

	if ((r = fl_repo_range(repo, a->reg.bad, goods, 1, &a->dag)))
		return r;
	return fl_descent_new(&a->search, &a->dag, o);
}

static void engine_opts(const struct fl_config *cfg, const struct fl_benchmark_conf *b,
			struct fl_bisect_opts *o)
{
	fl_bisect_opts_init(o);
	o->dir = fl_measure_direction(b);
	o->min_change = cfg->regression.min_change;
	o->confidence = cfg->regression.confidence;
	o->max_runs = cfg->regression.max_runs;
	/* the comparison's runs are the ends' first ones (seed): the first
	 * look comes as soon as the test can decide (the engine raises it) */
	o->init_samples = b->repeat > 2 ? b->repeat : 2;
}

/* One seed: a comparison's run of sha as a recorded step. */
static int seed_one(struct autobisect *a, const char *sha, int64_t run_id, size_t *seq)
{
	struct fl_bisect_step_rec rec = {.sha = sha, .verdict = "", .phase = "confirm"};
	double *v;
	size_t n;
	int r = run_samples(a, run_id, &v, &n);

	if (r == FL_BISECT_SKIP)
		r = 0; /* no samples at this point: nothing to seed */
	else if (!r) {
		rec.seq = (*seq)++;
		rec.v = v;
		rec.n = n;
		if (!(r = fl_store_bisect_step_add(a->st, a->id, &rec)))
			fl_descent_replay(a->search, sha, v, n, 0);
	}
	free(v);
	return r;
}

/*
 * The comparison's runs of the baseline and the tag as the first steps, in
 * the order the engine's confirmation asks for them (good, bad, good, bad,
 * ..., one more good at most), so that replaying takes them all. Only when
 * the baseline is the first line's good end: otherwise the search starts
 * elsewhere and would not take them.
 */
static int seed(struct autobisect *a)
{
	struct fl_role_runs g, b;
	struct fl_job *kids;
	size_t nkids, seq = 0, pairs;
	int r;

	if (strcmp(fl_descent_good_end(a->search), a->reg.good))
		return 0;
	if ((r = fl_store_jobs_children(a->st, a->reg.job_id, &kids, &nkids)))
		return r;
	fl_role_runs(kids, nkids, FL_ROLE_BASE, &g);
	fl_role_runs(kids, nkids, FL_ROLE_NEW, &b);
	pairs = g.n < b.n ? g.n : b.n;
	r = fl_store_tx_begin(a->st);
	for (size_t i = 0; i < pairs && !r; i++)
		if (!(r = seed_one(a, a->reg.good, g.ids[i], &seq)))
			r = seed_one(a, a->reg.bad, b.ids[i], &seq);
	if (!r && g.n > pairs)
		r = seed_one(a, a->reg.good, g.ids[pairs], &seq);
	if (!r)
		r = fl_store_tx_commit(a->st);
	else
		fl_store_tx_rollback(a->st);
	a->recorded = a->seeded = seq; /* said once the search asks beyond them (say_seeds) */
	fl_role_runs_release(&g);
	fl_role_runs_release(&b);
	fl_jobs_free(kids, nkids);
	return r;
}

int fl_autobisect_step(void *ctx, fl_store *st, const struct fl_job *job)
{
	static const struct fl_descent_ops ops = {sample, step_done, line_start};
	struct fl_service *svc = ctx;
	struct autobisect a = {.st = st, .job = job};
	const struct fl_benchmark_conf *bench;
	struct fl_descent_result res;
	struct fl_bisect_opts o;
	fl_repo *repo;
	int resumed, r;

	if ((r = fl_store_regression_get(st, job->regression_id, &a.reg)))
		return r;
	bench = fl_config_benchmark(svc->cfg, a.reg.benchmark);
	if (!bench) {
		r = fl_error_set(FL_EINVAL, "benchmark '%s' is no longer in the configuration",
				 a.reg.benchmark);
		goto out;
	}
	engine_opts(svc->cfg, bench, &o);
	/* an improvement: the engine looks for the change toward better */
	if (is_improvement(&a))
		o.dir = o.dir == FL_HIGHER_BETTER ? FL_LOWER_BETTER : FL_HIGHER_BETTER;
	if ((r = fl_service_repo(svc, a.reg.tree, &repo, NULL)) || (r = range(&a, repo, &o)) ||
	    (r = fl_store_regression_bisection(st, a.reg.id, a.reg.good, a.reg.bad, &a.id,
					       &resumed)) ||
	    (r = fl_store_bisect_steps_each(st, a.id, replay, &a)) ||
	    (!a.recorded && (r = seed(&a))))
		goto out;
	if (!resumed)
		fl_info("bisect: regression %lld: %zu commit%s in %.12s..%.12s on %s, %zu of them "
			"on the first-parent line",
			(long long)a.reg.id, fl_dag_range_size(&a.dag),
			FL_S(fl_dag_range_size(&a.dag)), a.reg.good, a.reg.bad, a.reg.machine,
			fl_descent_first_line(a.search) - 1);
	r = fl_descent_run(a.search, &ops, &a, &res);
	if (r == FL_EAGAIN)
		r = fl_job_wait(st, job->id);
	else if (!r)
		r = conclude(&a, &res);
	else
		fl_store_bisection_finish(st, a.id, "error", NULL, 0);
out:
	fl_descent_free(a.search);
	fl_dag_release(&a.dag);
	fl_regression_release(&a.reg);
	return r;
}
