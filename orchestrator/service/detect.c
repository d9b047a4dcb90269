/*
 * detect.c - the compare step of the watch service: a tag against its
 * baseline on one machine, for one benchmark.
 *
 * Runs of the baseline and the tag are interleaved on the same machine
 * (base, new, base, new, ...), `repeat` of each per round; while a primary
 * point's verdict is UNKNOWN and none has regressed, another round is
 * added, up to max_repeat runs a side. The verdicts are compare.c's
 * (fl_compare on one value per run), the same rows the report shows.
 * Every point of every metric is stored (comparisons); a regression is a
 * DIFFERENT verdict in the bad direction of at least regression.min_change
 * on any task count of the primary metric (compare.h's FL_CMP_REGRESSION),
 * and the worst one becomes the regression that is bisected. Improvements
 * are stored and logged, never bisected.
 */
#include "lib/buf.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/log.h"
#include "service/measure.h"
#include "service/pipeline.h"
#include "service/service.h"
#include "store/compare.h"
#include "store/watch.h"

#include <stdlib.h>
#include <string.h>

struct detect {
	struct fl_service *svc;
	fl_store *st;
	const struct fl_job *job;
	const struct fl_benchmark_conf *bench;
	struct fl_watch_tag tag;
	struct fl_cmp_side base, new;
	struct fl_comparison *c; /* metric rows only */
};

static int primary(const struct fl_cmp_row *row)
{
	return row->kind == FL_CMP_METRIC && fl_measure_primary(row->what);
}

/* compare.c's rows for every point; 1 when a primary point is still unclear
 * and none has regressed yet: once one has, the tag is bisected whatever the
 * other points turn out to be, and more rounds would only delay that. */
static int decide(struct detect *d)
{
	struct fl_cmp_opts o;
	int r, unclear = 0;

	fl_measure_cmp_opts(d->svc->cfg, d->bench, &o);
	o.metrics_only = 1;
	if ((r = fl_compare(d->bench->name, &d->base.set, &d->new.set, &o, &d->c)))
		return r;
	for (size_t i = 0; i < d->c->nrows; i++) {
		const struct fl_cmp_row *row = &d->c->rows[i];

		if (primary(row) && row->cls == FL_CMP_REGRESSION)
			return 0;
		unclear |= primary(row) && row->verdict == FL_UNKNOWN;
	}
	return unclear;
}

/* The primary row with the largest regression; NULL when none regressed. */
static const struct fl_cmp_row *worst(const struct detect *d)
{
	const struct fl_cmp_row *w = NULL;

	for (size_t i = 0; i < d->c->nrows; i++) {
		const struct fl_cmp_row *row = &d->c->rows[i];

		if (primary(row) && row->cls == FL_CMP_REGRESSION &&
		    (!w || row->shift_pct > w->shift_pct))
			w = row;
	}
	return w;
}

static void log_points(const struct detect *d)
{
	for (size_t i = 0; i < d->c->nrows; i++) {
		const struct fl_cmp_row *row = &d->c->rows[i];

		if (!primary(row) ||
		    (row->cls != FL_CMP_REGRESSION && row->cls != FL_CMP_IMPROVEMENT))
			continue;
		fl_info("compare: %s %s vs %s on %s: %+.1f%% %s of %s at %u task%s%s%s (p=%.2g)",
			d->tag.tree, d->tag.tag, d->tag.baseline, d->job->machine, row->change,
			fl_class_name(row->cls), row->name, row->tasks, row->tasks == 1 ? "" : "s",
			*row->cgroup ? " in cgroup " : "", row->cgroup, row->p);
	}
}

/* The primary point that improved most (report.improvements), or NULL. */
static const struct fl_cmp_row *best(const struct detect *d)
{
	const struct fl_cmp_row *b = NULL;

	for (size_t i = 0; i < d->c->nrows; i++) {
		const struct fl_cmp_row *row = &d->c->rows[i];

		if (primary(row) && row->cls == FL_CMP_IMPROVEMENT &&
		    (!b || -row->shift_pct > -b->shift_pct))
			b = row;
	}
	return b;
}

/* The comparisons, the regression and its bisection, the job's end: one transaction. */
static int conclude(struct detect *d, int64_t machine_id)
{
	const struct fl_cmp_row *w = worst(d);
	enum fl_cmp_class result = FL_CMP_SAME;
	int r, improvement = 0;

	if (!w && d->svc->cfg->report.improvements &&
	    !strcmp(d->svc->cfg->report.improvements, "true") && (w = best(d)))
		improvement = 1;

	if ((r = fl_store_tx_begin(d->st)))
		return r;
	for (size_t i = 0; i < d->c->nrows && !r; i++) {
		const struct fl_cmp_row *row = &d->c->rows[i];
		struct fl_watch_comparison c =
		    fl_measure_comparison("tag", d->tag.baseline_commit, d->tag.commit_id,
					  d->bench->name, machine_id, row);

		r = fl_store_comparison_add(d->st, d->job->id, &c);
		if (c.is_primary && row->cls == FL_CMP_IMPROVEMENT)
			result = FL_CMP_IMPROVEMENT;
		if (c.is_primary && row->cls == FL_CMP_UNCLEAR && result == FL_CMP_SAME)
			result = FL_CMP_UNCLEAR;
	}
	if (!r && w) {
		struct fl_regression_new g = {d->job->id,
					      d->tag.tree_id,
					      d->tag.baseline_commit,
					      d->tag.commit_id,
					      machine_id,
					      d->bench->name,
					      w->what,
					      w->mode,
					      w->tasks,
					      w->change,
					      w->p,
					      w->cgroup};
		int64_t reg, id;

		result = improvement ? FL_CMP_IMPROVEMENT : FL_CMP_REGRESSION;
		r = fl_store_regression_add(d->st, &g, &reg);
		if (!r && improvement)
			r = fl_store_regression_improvement(d->st, reg);
		if (!r)
			r = fl_service_enqueue(
			    d->st, FL_JOB_BISECT,
			    &(struct fl_job_spec){.from = d->job, .regression_id = reg}, &id);
	}
	if (!r)
		r = fl_job_set(d->st, d->job->id, FL_STATE_DONE, fl_class_name(result), NULL);
	if (!r)
		r = fl_store_tx_commit(d->st);
	if (r) {
		fl_store_tx_rollback(d->st);
		return r;
	}
	log_points(d);
	fl_info("compare: %s %s vs %s, %s on %s: %s (%zu + %zu runs)", d->tag.tree, d->tag.tag,
		d->tag.baseline, d->bench->name, d->job->machine, fl_class_name(result),
		d->base.set.n, d->new.set.n);
	return 0;
}

/* Another round of runs, and the job waits for them. */
static int more_runs(struct detect *d, const struct fl_job *kids, size_t nkids)
{
	struct fl_round_side sides[] = {{FL_ROLE_BASE, d->tag.baseline_sha},
					{FL_ROLE_NEW, d->tag.sha}};
	unsigned round;
	int r;

	r = fl_measure_next_round(d->st, d->job, kids, nkids, sides, 2, d->bench->repeat, NULL,
				  &round);
	if (!r && round)
		fl_info("compare: %s %s vs %s on %s: not clear yet, %u more runs each", d->tag.tree,
			d->tag.tag, d->tag.baseline, d->job->machine, d->bench->repeat);
	return r;
}

static int side_failed(struct detect *d, const char *what, const char *name, const char *sha,
		       const struct fl_role_runs *rr)
{
	return fl_error_set(FL_EINVAL,
			    "%s %s (%.12s) gave no usable run on %s (%u untestable, %u failed)%s%s",
			    what, name, sha, d->job->machine, rr->untestable, rr->failed,
			    rr->last_error ? ": " : "", rr->last_error ? rr->last_error : "");
}

static int step(struct detect *d)
{
	struct fl_role_runs b = {0}, n = {0};
	struct fl_job *kids;
	size_t nkids;
	int64_t machine_id;
	int r;

	if ((r = fl_store_jobs_children(d->st, d->job->id, &kids, &nkids)))
		return r;
	fl_role_runs(kids, nkids, FL_ROLE_BASE, &b);
	fl_role_runs(kids, nkids, FL_ROLE_NEW, &n);
	if (!nkids)
		r = more_runs(d, kids, 0);
	else if (b.live || n.live)
		r = fl_job_wait(d->st, d->job->id);
	else if (!b.n)
		r = side_failed(d, "baseline", d->tag.baseline, d->tag.baseline_sha, &b);
	else if (!n.n)
		r = side_failed(d, "tag", d->tag.tag, d->tag.sha, &n);
	else if (!(r = fl_cmp_side_load(d->st, d->tag.baseline, b.ids, b.n, 1, &d->base)) &&
		 !(r = fl_cmp_side_load(d->st, d->tag.tag, n.ids, n.n, 1, &d->new)) &&
		 (r = decide(d)) >= 0) {
		if (r > 0 && b.tried < fl_measure_max_runs(d->bench))
			r = more_runs(d, kids, nkids);
		else if (!(r = fl_store_machine_ensure(d->st, d->job->machine, "", &machine_id)))
			r = conclude(d, machine_id);
	}
	fl_role_runs_release(&b);
	fl_role_runs_release(&n);
	fl_jobs_free(kids, nkids);
	return r;
}

int fl_detect_step(void *svc, fl_store *st, const struct fl_job *job)
{
	struct detect d = {.svc = svc, .st = st, .job = job};
	int r;

	d.bench = fl_config_benchmark(d.svc->cfg, job->benchmark);
	if (!d.bench)
		return fl_error_set(FL_EINVAL, "benchmark '%s' is no longer in the configuration",
				    job->benchmark);
	if ((r = fl_store_watch_tag_get(st, job->tag_id, &d.tag)))
		return r;
	r = step(&d);
	fl_cmp_side_release(&d.base);
	fl_cmp_side_release(&d.new);
	fl_comparison_free(d.c);
	fl_watch_tag_release(&d.tag);
	return r;
}
