/*
 * measure.c - rounds of run jobs, runs read back, one value per run, and
 * the service's verdict on two value sets (see measure.h).
 */
#include "measure.h"
#include "buf.h"
#include "config.h"
#include "error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int fl_measure_primary(const char *metric)
{
	return !strcmp(metric, "per_thread_ops") || !strcmp(metric, "per_process_ops") ||
	       !strcmp(metric, "value");
}

char *fl_point_name(const char *benchmark, const struct fl_point *p, int with_tasks)
{
	fl_buf b = FL_BUF_INIT;

	fl_buf_adds(&b, benchmark);
	if (*p->mode)
		fl_buf_addf(&b, ".%s", p->mode);
	if (with_tasks && (*p->mode || p->tasks != 1))
		fl_buf_addf(&b, ".%u", p->tasks);
	fl_buf_addf(&b, ".%s", p->metric);
	return fl_buf_detach(&b);
}

int fl_runset_load(fl_store *st, const int64_t *ids, size_t n, struct fl_runset *rs)
{
	int r = 0;

	memset(rs, 0, sizeof(*rs));
	rs->ids = fl_xcalloc(n + 1, sizeof(*rs->ids));
	rs->s = fl_xcalloc(n + 1, sizeof(*rs->s));
	rs->ns = fl_xcalloc(n + 1, sizeof(*rs->ns));
	for (size_t i = 0; i < n && !r; i++) {
		rs->ids[i] = ids[i];
		r = fl_store_run_samples(st, ids[i], &rs->s[i], &rs->ns[i]);
		rs->n = i + 1;
	}
	if (r)
		fl_runset_release(rs);
	return r;
}

void fl_runset_release(struct fl_runset *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		fl_store_samples_free(rs->s[i], rs->ns[i]);
	free(rs->ids);
	free(rs->s);
	free(rs->ns);
	memset(rs, 0, sizeof(*rs));
}

static int point_cmp(const void *x, const void *y)
{
	const struct fl_point *a = x, *b = y;
	int c = strcmp(a->metric, b->metric);

	if (!c)
		c = strcmp(a->mode, b->mode);
	if (!c)
		c = (a->tasks > b->tasks) - (a->tasks < b->tasks);
	return c;
}

static int at_point(const struct fl_sample_row *s, const struct fl_point *p)
{
	return s->tasks == p->tasks && !strcmp(s->metric, p->metric) && !strcmp(s->mode, p->mode);
}

static void add_points(const struct fl_runset *rs, struct fl_point **v, size_t *n, size_t *alloc)
{
	for (size_t i = 0; rs && i < rs->n; i++)
		for (size_t k = 0; k < rs->ns[i]; k++) {
			struct fl_point p = {rs->s[i][k].metric, rs->s[i][k].mode,
					     rs->s[i][k].tasks};

			if (k && at_point(&rs->s[i][k - 1], &p))
				continue; /* samples come sorted by point */
			if (*n && bsearch(&p, *v, *n, sizeof(p), point_cmp))
				continue;
			if (*n == *alloc)
				*v = fl_xrealloc(*v,
						 (*alloc = *alloc ? 2 * *alloc : 16) * sizeof(p));
			(*v)[(*n)++] = p;
			qsort(*v, *n, sizeof(p), point_cmp);
		}
}

size_t fl_runset_points(const struct fl_runset *a, const struct fl_runset *b, struct fl_point **out)
{
	size_t n = 0, alloc = 0;

	*out = NULL;
	add_points(a, out, &n, &alloc);
	add_points(b, out, &n, &alloc);
	return n;
}

size_t fl_runset_samples(const struct fl_runset *rs, size_t i, const struct fl_point *p, double **v)
{
	size_t n = 0;

	*v = fl_xmalloc((rs->ns[i] + 1) * sizeof(double));
	for (size_t k = 0; k < rs->ns[i]; k++)
		if (at_point(&rs->s[i][k], p))
			(*v)[n++] = rs->s[i][k].value;
	return n;
}

size_t fl_runset_values(const struct fl_runset *rs, const struct fl_point *p, double **v)
{
	size_t n = 0;

	*v = fl_xmalloc((rs->n + 1) * sizeof(double));
	for (size_t i = 0; i < rs->n; i++) {
		double *s;
		size_t k = fl_runset_samples(rs, i, p, &s);

		if (k)
			(*v)[n++] = fl_stats_mean(s, k);
		free(s);
	}
	return n;
}

void fl_role_runs(const struct fl_job *children, size_t n, const char *role,
		  struct fl_role_runs *out)
{
	memset(out, 0, sizeof(*out));
	out->ids = fl_xcalloc(n + 1, sizeof(*out->ids));
	for (size_t i = 0; i < n; i++) {
		const struct fl_job *j = &children[i];

		if (strcmp(j->role, role))
			continue;
		out->tried++;
		if (strcmp(j->state, "done") && strcmp(j->state, "failed"))
			out->live++;
		else if (j->result && !strcmp(j->result, "ok") && j->run_id)
			out->ids[out->n++] = j->run_id;
		else if (j->result && !strcmp(j->result, "untestable"))
			out->untestable++;
		else
			out->failed++;
		if (j->error && *j->error)
			out->last_error = j->error;
	}
}

void fl_role_runs_release(struct fl_role_runs *r)
{
	free(r->ids);
	memset(r, 0, sizeof(*r));
}

int fl_measure_add_round(fl_store *st, const struct fl_job *parent, const char *tree,
			 const struct fl_round_side *sides, size_t nsides, unsigned repeat,
			 unsigned round)
{
	int r = 0;

	for (unsigned i = 0; i < repeat && !r; i++)
		for (size_t s = 0; s < nsides && !r; s++) {
			int seq = (int)((round * repeat + i) * nsides + s);
			char *key = fl_xasprintf("run:%s:%lld:%d", parent->kind,
						 (long long)parent->id, seq);
			struct fl_job_new j = {.kind = "run",
					       .key = key,
					       .parent_id = parent->id,
					       .tree = tree,
					       .machine = parent->machine,
					       .benchmark = parent->benchmark,
					       .rev = sides[s].rev,
					       .role = sides[s].role,
					       .seq = seq,
					       .ref_id = parent->ref_id};
			int64_t id;

			r = fl_store_job_add(st, &j, &id, NULL);
			free(key);
		}
	return r;
}

unsigned fl_measure_max_runs(const struct fl_benchmark_conf *b)
{
	return b->max_repeat ? b->max_repeat : 4 * b->repeat;
}

enum fl_direction fl_measure_direction(const struct fl_benchmark_conf *b)
{
	return b->direction && !strcmp(b->direction, "lower") ? FL_LOWER_BETTER : FL_HIGHER_BETTER;
}

int fl_measure_compare(const struct fl_config *cfg, enum fl_direction dir, const double *base,
		       size_t nb, const double *new, size_t nn, struct fl_verdict_ext *out)
{
	double min = cfg->regression.min_change;
	int r;

	memset(out, 0, sizeof(*out));
	out->base_mean = fl_stats_mean(base, nb);
	out->base_sd = fl_stats_stddev(base, nb);
	out->new_mean = fl_stats_mean(new, nn);
	out->new_sd = fl_stats_stddev(new, nn);
	out->change =
	    out->base_mean ? 100 * (out->new_mean - out->base_mean) / fabs(out->base_mean) : 0;
	out->class = "unclear";
	if (nb < 2 || nn < 2) {
		out->cmp.verdict = FL_UNKNOWN;
		out->cmp.p = 1;
		return 0;
	}
	r = fl_stats_compare(base, nb, new, nn, 1 - cfg->regression.confidence, min, dir,
			     &out->cmp);
	if (r)
		return r;
	if (out->cmp.verdict == FL_DIFFERENT && out->cmp.change_pct >= 100 * min)
		out->class = "regression";
	else if (out->cmp.verdict == FL_DIFFERENT && out->cmp.change_pct <= -100 * min)
		out->class = "improvement";
	else if (out->cmp.verdict != FL_UNKNOWN)
		out->class = "same";
	return 0;
}
