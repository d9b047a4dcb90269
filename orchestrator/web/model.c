/*
 * web/model.c - what the pages show computed from the store's rows (see
 * web/model.h).
 */
#include "web/model.h"
#include "config/config.h"
#include "lib/version.h"
#include "service/measure.h"
#include "service/pipeline.h"
#include "store/run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- trees and their tags ---- */

static int is_head(const struct fl_view_tag *t)
{
	return t->kind && !strcmp(t->kind, "head");
}

/* Tags newest first in version order, then heads of branches newest first
 * (their names, "<branch>@<sha>", have no version order). */
static int cmp_tag_newest(const void *a, const void *b)
{
	const struct fl_view_tag *x = a, *y = b;

	if (is_head(x) != is_head(y))
		return is_head(x) - is_head(y);
	if (is_head(x))
		return x->created != y->created ? (y->created > x->created) - (y->created < x->created)
						: (y->id > x->id) - (y->id < x->id);
	return fl_version_cmp(y->name, x->name);
}

void fl_model_tags_newest(struct fl_view_tag *tags, size_t *n, size_t latest)
{
	if (*n)
		qsort(tags, *n, sizeof(*tags), cmp_tag_newest);
	if (*n > latest)
		*n = latest;
}

/* Whether point a comes before b as a headline: of the class wanted, then
 * the larger change, a change not stored last. */
static int headline_before(const struct fl_view_verdict_point *a,
			   const struct fl_view_verdict_point *b, const char *want)
{
	int wa = !strcmp(a->class, want), wb = !strcmp(b->class, want);

	if (wa != wb)
		return wa;
	if (isnan(a->change))
		return 0;
	return isnan(b->change) || fabs(a->change) > fabs(b->change);
}

void fl_model_verdict(struct fl_view_verdict *v)
{
	const struct fl_view_verdict_point *best = NULL;
	const char *want;

	if (!fl_job_is(v->state, FL_STATE_FAILED))
		v->error = NULL;
	if (v->regression_id || !fl_job_is(v->state, FL_STATE_DONE) || !v->npoints)
		return;
	want = v->result && fl_class_decides(v->result) ? v->result : "";
	for (size_t i = 0; i < v->npoints; i++)
		if (!best || headline_before(&v->points[i], best, want))
			best = &v->points[i];
	v->metric = best->metric;
	v->mode = best->mode;
	v->tasks = best->tasks;
	v->change = best->change;
}

/* The tree's newest tags (every tag a tree has is read: hundreds at most,
 * and SQL does not know version order), then their verdicts. */
static int newest_tags(fl_store *st, fl_pool *p, struct fl_view_tree *t, size_t latest)
{
	int r;

	fl_model_tags_newest(t->tags, &t->ntags, latest);
	if ((r = fl_view_tag_verdicts(st, p, t->tags, t->ntags)))
		return r;
	for (size_t i = 0; i < t->ntags; i++)
		for (size_t k = 0; k < t->tags[i].nverdicts; k++)
			fl_model_verdict(&t->tags[i].verdicts[k]);
	return 0;
}

int fl_model_trees(fl_store *st, fl_pool *p, size_t latest, struct fl_view_tree **out, size_t *n)
{
	int r;

	if ((r = fl_view_trees(st, p, latest, out, n)))
		return r;
	for (size_t i = 0; i < *n; i++)
		if ((r = newest_tags(st, p, &(*out)[i], latest)))
			return r;
	return 0;
}

int fl_model_tree_get(fl_store *st, fl_pool *p, const char *name, size_t latest,
		      struct fl_view_tree *out)
{
	int r;

	if ((r = fl_view_tree_get(st, p, name, latest, out)))
		return r;
	return newest_tags(st, p, out, latest);
}

/* ---- a run's points ---- */

static int same_point(const struct fl_view_sample *a, const struct fl_view_sample *b)
{
	return a->tasks == b->tasks && !strcmp(a->metric, b->metric) &&
	       !strcmp(a->mode, b->mode) && !strcmp(a->cgroup, b->cgroup);
}

void fl_model_points(fl_pool *p, const struct fl_view_sample *x, size_t nx,
		     struct fl_model_point **out, size_t *n)
{
	double *v = fl_pool_alloc(p, (nx ? nx : 1) * sizeof(*v));
	size_t alloc = 0;

	*out = NULL;
	*n = 0;
	for (size_t i = 0, j; i < nx; i = j) {
		struct fl_model_point *pt;

		for (j = i; j < nx && same_point(&x[i], &x[j]); j++)
			v[j - i] = x[j].value;
		*out = fl_pool_grow(p, *out, sizeof(**out), *n, &alloc);
		pt = &(*out)[(*n)++];
		pt->metric = x[i].metric;
		pt->mode = x[i].mode;
		pt->tasks = x[i].tasks;
		pt->cgroup = x[i].cgroup;
		pt->n = j - i;
		pt->mean = fl_stats_mean(v, pt->n);
		pt->sd = fl_stats_stddev(v, pt->n);
	}
}

int fl_model_run_points(fl_store *st, fl_pool *p, int64_t id, struct fl_model_point **out,
			size_t *n)
{
	struct fl_view_sample *x;
	size_t nx;
	int r;

	*out = NULL;
	*n = 0;
	if ((r = fl_view_run_samples(st, p, id, 1, 0, &x, &nx, NULL)))
		return r;
	fl_model_points(p, x, nx, out, n);
	return 0;
}

/* ---- two kernels compared ---- */

void fl_model_cmp_opts(const struct fl_config *cfg, const char *benchmark, struct fl_cmp_opts *o)
{
	const struct fl_benchmark_conf *b =
	    cfg && benchmark ? fl_config_benchmark(cfg, benchmark) : NULL;

	fl_cmp_opts_init(o);
	if (cfg) {
		o->alpha = 1 - cfg->regression.confidence;
		o->min_change = cfg->regression.min_change;
	}
	if (b)
		o->dir = fl_measure_direction(b);
}

/* Each of a comparison's strings and rows, in the pool. */
static void pool_comparison(fl_pool *p, const struct fl_comparison *c, struct fl_model_compare *out)
{
	out->rows = fl_pool_alloc(p, (c->nrows + 1) * sizeof(*out->rows));
	for (size_t i = 0; i < c->nrows; i++) {
		struct fl_cmp_row *r = &out->rows[i];

		*r = c->rows[i];
		r->mode = fl_pool_strdup(p, r->mode);
		r->cgroup = fl_pool_strdup(p, r->cgroup);
		r->what = fl_pool_strdup(p, r->what);
		r->name = fl_pool_strdup(p, r->name);
		r->lock = r->lock ? fl_pool_strdup(p, r->lock) : NULL;
		r->chains = r->chains ? fl_pool_strdup(p, r->chains) : NULL;
		out->nmetric += r->kind == FL_CMP_METRIC;
		out->nvmstat += r->kind == FL_CMP_VMSTAT;
		out->nprofile += r->kind == FL_CMP_PROFILE;
	}
	out->nrows = c->nrows;
	out->notes = fl_pool_alloc(p, (c->nnotes + 1) * sizeof(*out->notes));
	for (size_t i = 0; i < c->nnotes; i++)
		out->notes[i] = fl_pool_strdup(p, c->notes[i]);
	out->nnotes = c->nnotes;
}

static int has_evidence(const struct fl_cmp_side *s)
{
	for (size_t i = 0; i < s->set.n; i++)
		if (s->runs[i].npoints)
			return 1;
	return 0;
}

/* Both sides' runs read and compared. */
static int compare_sides(fl_store *st, fl_pool *p, const struct fl_model_compare_req *q,
			 const int64_t *ia, const int64_t *ib, struct fl_model_compare *out)
{
	struct fl_cmp_side sa = {0}, sb = {0};
	struct fl_comparison *c = NULL;
	int r;

	if (!(r = fl_cmp_side_load(st, q->a, ia, out->a_runs, 0, &sa)) &&
	    !(r = fl_cmp_side_load(st, q->b, ib, out->b_runs, 0, &sb)) &&
	    !(r = fl_compare(q->benchmark, &sa.set, &sb.set, &q->opts, &c))) {
		pool_comparison(p, c, out);
		out->has_evidence = has_evidence(&sa) || has_evidence(&sb);
	}
	fl_comparison_free(c);
	fl_cmp_side_release(&sa);
	fl_cmp_side_release(&sb);
	return r;
}

/* What a plot calls a commit: its newest tag in version order, else its short sha. */
static int commit_name(fl_store *st, fl_pool *p, const struct fl_view_commit *c, const char **name)
{
	const char **tags;
	size_t n;
	int r;

	if ((r = fl_view_commit_tags(st, p, c->id, &tags, &n)))
		return r;
	if (!n) {
		char *abbrev = fl_pool_alloc(p, 13);

		snprintf(abbrev, 13, "%s", c->sha);
		*name = abbrev;
		return 0;
	}
	*name = tags[0];
	for (size_t i = 1; i < n; i++)
		if (fl_version_cmp(tags[i], *name) > 0)
			*name = tags[i];
	return 0;
}

int fl_model_compare(fl_store *st, fl_pool *p, const struct fl_model_compare_req *q,
		     struct fl_model_compare *out)
{
	int64_t *ia = NULL, *ib = NULL;
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = fl_view_rev_resolve(st, p, q->tree, q->a, &out->a)) ||
	    (r = fl_view_rev_resolve(st, p, q->tree, q->b, &out->b)) ||
	    (r = fl_view_machine_id(st, q->machine, &out->machine_id)) ||
	    (r = commit_name(st, p, &out->a, &out->a_name)) ||
	    (r = commit_name(st, p, &out->b, &out->b_name)))
		return r;
	if (q->job) {
		if (!(r = fl_view_job_commit_runs(st, q->job, out->a.sha, q->benchmark, q->machine,
						  &ia, &out->a_runs)))
			r = fl_view_job_commit_runs(st, q->job, out->b.sha, q->benchmark,
						    q->machine, &ib, &out->b_runs);
	} else if (!(r = fl_store_commit_runs(st, out->a.sha, q->benchmark, q->machine, &ia,
					      &out->a_runs)))
		r = fl_store_commit_runs(st, out->b.sha, q->benchmark, q->machine, &ib,
					 &out->b_runs);
	if (!r && out->a_runs && out->b_runs)
		r = compare_sides(st, p, q, ia, ib, out);
	free(ia);
	free(ib);
	return r;
}

/* ---- a metric's history ---- */

static int has_str(const char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

/* Task counts in increasing order, each once. */
static void add_tasks(fl_pool *p, struct fl_model_series *o, unsigned tasks, size_t *alloc)
{
	size_t i = 0;

	while (i < o->ntasks && o->tasks_list[i] < tasks)
		i++;
	if (i < o->ntasks && o->tasks_list[i] == tasks)
		return;
	o->tasks_list = fl_pool_grow(p, o->tasks_list, sizeof(unsigned), o->ntasks, alloc);
	memmove(&o->tasks_list[i + 1], &o->tasks_list[i], (o->ntasks - i) * sizeof(unsigned));
	o->tasks_list[i] = tasks;
	o->ntasks++;
}

void fl_model_series_choices(fl_pool *p, const struct fl_model_point *pts, size_t n,
			     const struct fl_model_series_req *q, struct fl_model_series *o)
{
	size_t am = 0, ao = 0, at = 0;

	for (size_t i = 0; i < n; i++) {
		if (!has_str(o->metrics, o->nmetrics, pts[i].metric)) {
			o->metrics = fl_pool_grow(p, o->metrics, sizeof(char *), o->nmetrics, &am);
			o->metrics[o->nmetrics++] = pts[i].metric;
		}
		if (!has_str(o->modes, o->nmodes, pts[i].mode)) {
			o->modes = fl_pool_grow(p, o->modes, sizeof(char *), o->nmodes, &ao);
			o->modes[o->nmodes++] = pts[i].mode;
		}
		add_tasks(p, o, pts[i].tasks, &at);
	}
	o->metric = q->metric					      ? q->metric
		    : has_str(o->metrics, o->nmetrics, "ops_per_sec") ? "ops_per_sec"
		    : o->nmetrics				      ? o->metrics[0]
								      : "ops_per_sec";
	o->mode = q->mode ? q->mode : o->nmodes ? o->modes[0] : "";
	o->tasks = q->tasks ? q->tasks : o->ntasks ? o->tasks_list[o->ntasks - 1] : 1;
}

static int cmp_position(const void *a, const void *b)
{
	return fl_version_cmp(((const struct fl_view_position *)a)->tag,
			      ((const struct fl_view_position *)b)->tag);
}

void fl_model_tag_page(const struct fl_model_series_req *q, struct fl_view_position *pts, size_t n,
		       size_t *first, size_t *page, int *more)
{
	size_t k = 0, skip = (size_t)(q->page ? q->page - 1 : 0) * q->per_page, end;

	if (n)
		qsort(pts, n, sizeof(*pts), cmp_position);
	for (size_t i = 0; i < n; i++)
		if (!k || strcmp(pts[k - 1].tag, pts[i].tag))
			pts[k++] = pts[i];
	end = skip < k ? k - skip : 0;
	*more = end > q->per_page;
	*first = *more ? end - q->per_page : 0;
	*page = *more ? q->per_page : end;
}

/* Commit positions come newest first: the page shows them oldest first. */
static void oldest_first(struct fl_view_position *pts, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		struct fl_view_position t = pts[i];

		pts[i] = pts[n - 1 - i];
		pts[n - 1 - i] = t;
	}
}

void fl_model_position_values(fl_pool *p, const struct fl_view_position *pts, size_t n,
			      const struct fl_view_position_sample *x, size_t nx,
			      struct fl_model_position **out, size_t *nout)
{
	double *v = fl_pool_alloc(p, (nx ? nx : 1) * sizeof(*v));
	size_t alloc = 0;

	*out = NULL;
	*nout = 0;
	for (size_t i = 0, j = 0; i < n; i++) {
		struct fl_model_position *pt;
		size_t runs = 0, end = j;

		for (; end < nx && x[end].position == i; end++)
			runs += end == j || x[end].run_id != x[end - 1].run_id;
		if (!runs)
			continue;
		*out = fl_pool_grow(p, *out, sizeof(**out), *nout, &alloc);
		pt = &(*out)[(*nout)++];
		pt->commit = pts[i].commit;
		pt->tag = pts[i].tag;
		pt->v = fl_pool_alloc(p, runs * sizeof(*pt->v));
		pt->n = 0;
		while (j < end) { /* one run's samples, then the next run's */
			size_t k = j;

			for (; k < end && x[k].run_id == x[j].run_id; k++)
				v[k - j] = x[k].value;
			pt->v[pt->n++] = fl_stats_mean(v, k - j);
			j = k;
		}
	}
}

/* Positions by tag when asked for or when any tag has runs, else by commit. */
static int series_positions(fl_store *st, fl_pool *p, int64_t tree, int64_t machine,
			    const struct fl_model_series_req *q, struct fl_model_series *o)
{
	struct fl_view_position *pts = NULL, *page;
	struct fl_view_position_sample *x;
	size_t n = 0, first = 0, nx;
	int r;

	if (!q->by || !strcmp(q->by, "tag")) {
		if ((r = fl_view_tag_positions(st, p, tree, machine, o->benchmark, &pts, &n)))
			return r;
		if (n || q->by) {
			o->by = "tag";
			fl_model_tag_page(q, pts, n, &first, &n, &o->more);
		}
	}
	if (!o->by) {
		o->by = "commit";
		if ((r = fl_view_commit_positions(st, p, tree, machine, o->benchmark, q->page,
						  q->per_page, &pts, &n, &o->more)))
			return r;
		oldest_first(pts, n);
	}
	page = pts ? pts + first : NULL;
	if ((r = fl_view_position_samples(st, p, machine, o->benchmark, o->metric, o->mode,
					  o->tasks, page, n, &x, &nx)))
		return r;
	fl_model_position_values(p, page, n, x, nx, &o->pts, &o->n);
	return 0;
}

int fl_model_change_points(fl_pool *p, enum fl_direction dir, struct fl_model_series *o)
{
	struct fl_series_point *sp;
	struct fl_cp_opts cp;

	fl_cp_opts_init(&cp);
	o->ncps = 0;
	if (o->n < cp.min_positions)
		return 0;
	sp = fl_pool_alloc(p, o->n * sizeof(*sp));
	for (size_t i = 0; i < o->n; i++) {
		sp[i].v = o->pts[i].v;
		sp[i].n = o->pts[i].n;
	}
	o->cps = fl_pool_alloc(p, cp.max * sizeof(*o->cps));
	return fl_stats_change_points(sp, o->n, cp.alpha, cp.perms, cp.seed, dir, o->cps, cp.max,
				      &o->ncps);
}

int fl_model_series(fl_store *st, fl_pool *p, const struct fl_model_series_req *q,
		    struct fl_model_series *o)
{
	struct fl_model_point *pts;
	struct fl_view_tree t;
	int64_t run, machine;
	size_t npts;
	int r;

	memset(o, 0, sizeof(*o));
	o->benchmark = q->benchmark;
	o->machine = q->machine;
	if ((r = fl_view_tree_get(st, p, q->tree, 0, &t)) ||
	    (r = fl_view_newest_run(st, p, t.id, q->benchmark, q->machine, &run, &o->benchmark,
				    &o->machine)))
		return r;
	if (!run) { /* nothing measured yet: an empty series */
		o->by = q->by ? q->by : "commit";
		return 0;
	}
	if ((r = fl_view_machine_id(st, o->machine, &machine)) ||
	    (r = fl_model_run_points(st, p, run, &pts, &npts)))
		return r;
	fl_model_series_choices(p, pts, npts, q, o);
	if ((r = series_positions(st, p, t.id, machine, q, o)))
		return r;
	return fl_model_change_points(p, q->dir, o);
}
