/*
 * measure.c - rounds of run jobs, the runs of a role, the service's
 * comparison options, and a side of a comparison from the store's rows
 * (see measure.h).
 */
#include "service/measure.h"
#include "lib/buf.h"
#include "config/config.h"
#include "lib/error.h"
#include "service/pipeline.h"

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
	if (*fl_cgroup_key(p->cgroup))
		fl_buf_addf(&b, ".%s", p->cgroup);
	fl_buf_addf(&b, ".%s", p->metric);
	return fl_buf_detach(&b);
}

void fl_role_runs(const struct fl_job *children, size_t n, enum fl_run_role role,
		  struct fl_role_runs *out)
{
	memset(out, 0, sizeof(*out));
	out->ids = fl_xcalloc(n + 1, sizeof(*out->ids));
	for (size_t i = 0; i < n; i++) {
		const struct fl_job *j = &children[i];

		if (strcmp(j->role, fl_role_name(role)))
			continue;
		out->tried++;
		if (!fl_job_ended(j->state))
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

int fl_measure_add_round(fl_store *st, const struct fl_job *parent, const struct fl_job *children,
			 size_t nchildren, const struct fl_round_side *sides, size_t nsides,
			 unsigned repeat, const char *point, unsigned *round)
{
	int next = 0, seq = 0, r = 0;
	int64_t id;

	for (size_t i = 0; i < nchildren; i++) {
		if (children[i].round >= next)
			next = children[i].round + 1;
		if (children[i].seq >= seq)
			seq = children[i].seq + 1;
	}
	*round = (unsigned)next;
	for (unsigned i = 0; i < repeat && !r; i++)
		for (size_t s = 0; s < nsides && !r; s++, seq++)
			r = fl_service_enqueue(
			    st, FL_JOB_RUN,
			    &(struct fl_job_spec){.from = parent,
						  .rev = sides[s].rev,
						  .role = fl_role_name(sides[s].role),
						  .point = point,
						  .seq = seq,
						  .round = *round},
			    &id);
	return r;
}

int fl_measure_next_round(fl_store *st, const struct fl_job *parent,
			  const struct fl_job *children, size_t nchildren,
			  const struct fl_round_side *sides, size_t nsides, unsigned repeat,
			  const char *point, unsigned *round)
{
	int r;

	if ((r = fl_store_tx_begin(st)))
		return r;
	r = fl_measure_add_round(st, parent, children, nchildren, sides, nsides, repeat, point,
				 round);
	if (!r)
		r = fl_job_wait(st, parent->id);
	if (!r)
		r = fl_store_tx_commit(st);
	if (r)
		fl_store_tx_rollback(st);
	return r;
}

char *fl_point_key(const char *mode, unsigned tasks, const char *cgroup)
{
	if (!*mode)
		return NULL;
	if (*fl_cgroup_key(cgroup))
		return fl_xasprintf("%s:%u:%s", mode, tasks, cgroup);
	return fl_xasprintf("%s:%u", mode, tasks);
}

/* One key, MODE:TASKS[:CGROUP], of len bytes at key. */
static int point_parse(const char *key, size_t len, struct fl_point_at *p)
{
	char buf[80], *colon, *cg, *end;
	unsigned long t;

	memset(p, 0, sizeof(*p));
	if (len >= sizeof(buf))
		return fl_error_set(FL_EINVAL, "point '%.*s': too long", (int)len, key);
	memcpy(buf, key, len);
	buf[len] = '\0';
	colon = strchr(buf, ':');
	if (!colon || colon == buf || (size_t)(colon - buf) >= sizeof(p->mode))
		return fl_error_set(FL_EINVAL, "point '%s': not MODE:TASKS[:root|child]", buf);
	*colon = '\0';
	if ((cg = strchr(colon + 1, ':')))
		*cg++ = '\0';
	t = strtoul(colon + 1, &end, 10);
	if (*end || end == colon + 1 || t < 1 || t > 100000)
		return fl_error_set(FL_EINVAL, "point '%.*s': bad task count", (int)len, key);
	if (cg && strcmp(cg, "root") && strcmp(cg, FL_CGROUP_CHILD))
		return fl_error_set(FL_EINVAL, "point '%.*s': no cgroup context '%s' (root, %s)",
				    (int)len, key, cg, FL_CGROUP_CHILD);
	strcpy(p->mode, buf);
	p->tasks = (unsigned)t;
	strcpy(p->cgroup, fl_cgroup_key(cg));
	return 0;
}

int fl_points_parse(const char *list, struct fl_point_at **out, size_t *n)
{
	struct fl_point_at *v = fl_xcalloc(FL_POINTS_MAX, sizeof(*v));
	size_t k = 0;
	int r = 0;

	for (const char *p = list; !r;) {
		size_t len = strcspn(p, ",");

		if (k == FL_POINTS_MAX)
			r = fl_error_set(FL_EINVAL, "points '%s': more than %d", list,
					 FL_POINTS_MAX);
		else if (!(r = point_parse(p, len, &v[k])))
			k += !fl_points_has(v, k, v[k].mode, v[k].tasks, v[k].cgroup);
		if (!p[len])
			break;
		p += len + 1;
	}
	if (r) {
		free(v);
		return r;
	}
	*out = v;
	*n = k;
	return 0;
}

int fl_points_has(const struct fl_point_at *v, size_t n, const char *mode, unsigned tasks,
		  const char *cgroup)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].tasks == tasks && !strcmp(v[i].mode, mode) &&
		    !strcmp(v[i].cgroup, fl_cgroup_key(cgroup)))
			return 1;
	return 0;
}

void fl_point_bench(const struct fl_benchmark_conf *b, const struct fl_point_at *v, size_t n,
		    struct fl_narrow_bench *out)
{
	struct fl_benchmark_conf *x = &out->b;

	*x = *b;
	x->modes = out->modes;
	x->tasks = out->tasks;
	x->cgroups = out->cgroups;
	x->nmodes = x->ntasks = x->ncgroups = 0;
	for (size_t i = 0; i < n && i < FL_POINTS_MAX; i++) {
		size_t k;

		for (k = 0; k < x->nmodes && strcmp(x->modes[k], v[i].mode); k++)
			;
		if (k == x->nmodes)
			out->modes[x->nmodes++] = (char *)v[i].mode;
		for (k = 0; k < x->ntasks && x->tasks[k].value != v[i].tasks; k++)
			;
		if (k == x->ntasks)
			out->tasks[x->ntasks++] = (struct fl_task_count){v[i].tasks, 0};
		for (k = 0; k < x->ncgroups && strcmp(fl_cgroup_key(x->cgroups[k]), v[i].cgroup);
		     k++)
			;
		if (k == x->ncgroups)
			out->cgroups[x->ncgroups++] = *v[i].cgroup ? (char *)v[i].cgroup : "root";
	}
}

unsigned fl_measure_max_runs(const struct fl_benchmark_conf *b)
{
	return b->max_repeat ? b->max_repeat : 4 * b->repeat;
}

enum fl_direction fl_measure_direction(const struct fl_benchmark_conf *b)
{
	return b->direction && !strcmp(b->direction, "lower") ? FL_LOWER_BETTER : FL_HIGHER_BETTER;
}

void fl_measure_cmp_opts(const struct fl_config *cfg, const struct fl_benchmark_conf *b,
			 struct fl_cmp_opts *o)
{
	fl_cmp_opts_init(o);
	o->alpha = 1 - cfg->regression.confidence;
	o->min_change = cfg->regression.min_change;
	o->dir = fl_measure_direction(b);
}

/* A metric row as the comparisons table keeps it. */
struct fl_watch_comparison fl_measure_comparison(const char *what, int64_t base_commit,
						 int64_t new_commit, const char *benchmark,
						 int64_t machine_id, const struct fl_cmp_row *row)
{
	return (struct fl_watch_comparison){what,
					    base_commit,
					    new_commit,
					    benchmark,
					    machine_id,
					    row->what,
					    row->mode,
					    row->tasks,
					    fl_measure_primary(row->what),
					    row->base.n,
					    row->new_.n,
					    row->base.value,
					    row->base.stddev,
					    row->new_.value,
					    row->new_.stddev,
					    row->change,
					    row->p,
					    fl_verdict_name(row->verdict),
					    fl_class_name(row->cls),
					    row->cgroup};
}

/* The evidence rows of a run as compare.h's points: views that borrow the
 * rows' strings. */
static struct fl_evidence_point *evidence_points(const struct fl_evidence_row *e, size_t n)
{
	struct fl_evidence_point *pts = fl_xcalloc(n + 1, sizeof(*pts));

	for (size_t i = 0; i < n; i++) {
		struct fl_evidence_point *pt = &pts[i];

		*pt = (struct fl_evidence_point){.source = FL_EV_RESULT,
						 .test = e[i].test,
						 .mode = e[i].mode,
						 .tasks = e[i].tasks,
						 .cgroup = e[i].cgroup,
						 .measured_s = e[i].measured_s,
						 .nvm = e[i].nvm,
						 .profile = e[i].profile,
						 .profile_samples = e[i].profile_samples,
						 .nfn = e[i].nfn,
						 .locks = e[i].locks,
						 .vmstat_missing = e[i].vmstat_missing,
						 .nlk = e[i].nlk};
		pt->vm = fl_xcalloc(e[i].nvm + 1, sizeof(*pt->vm));
		for (size_t k = 0; k < e[i].nvm; k++)
			pt->vm[k] = (struct fl_vmstat_rate){e[i].vm[k].name, e[i].vm[k].delta,
							    e[i].vm[k].per_sec};
		pt->fn = fl_xcalloc(e[i].nfn + 1, sizeof(*pt->fn));
		for (size_t k = 0; k < e[i].nfn; k++)
			pt->fn[k] = (struct fl_profile_fn){e[i].fn[k].name, e[i].fn[k].samples,
							   e[i].fn[k].share};
		pt->lk = fl_xcalloc(e[i].nlk + 1, sizeof(*pt->lk));
		for (size_t k = 0; k < e[i].nlk; k++)
			pt->lk[k] = (struct fl_lock_ev){e[i].lk[k].lock,	e[i].lk[k].named_by,
							e[i].lk[k].contentions, e[i].lk[k].waits,
							e[i].lk[k].wait_ns,	e[i].lk[k].max_wait_ns,
							e[i].lk[k].chains};
	}
	return pts;
}

static void evidence_points_free(struct fl_evidence_point *pts, size_t n)
{
	for (size_t i = 0; pts && i < n; i++) {
		free(pts[i].vm);
		free(pts[i].fn);
		free(pts[i].lk);
	}
	free(pts);
}

/* Run i of the side: its samples and (unless metrics_only) its evidence. */
static int side_run(fl_store *st, struct fl_cmp_side *s, size_t i, int64_t id, int metrics_only)
{
	int r;

	s->ids[i] = id;
	s->set.n = i + 1;
	if ((r = fl_store_run_samples(st, id, &s->rows[i], &s->nrows[i])))
		return r;
	s->samples[i] = fl_xcalloc(s->nrows[i] + 1, sizeof(**s->samples));
	for (size_t k = 0; k < s->nrows[i]; k++) {
		const struct fl_sample_row *x = &s->rows[i][k];

		s->samples[i][k] = (struct fl_cmp_sample){x->metric, x->mode,  x->tasks,
							  x->seq,    x->value, x->cgroup};
	}
	if (!metrics_only && (r = fl_store_evidence_get(st, id, &s->erows[i], &s->nerows[i])))
		return r;
	s->points[i] = evidence_points(s->erows[i], s->nerows[i]);
	s->runs[i] = (struct fl_cmp_run){s->samples[i], s->nrows[i], s->points[i], s->nerows[i]};
	return 0;
}

int fl_cmp_side_load(fl_store *st, const char *label, const int64_t *ids, size_t n,
		     int metrics_only, struct fl_cmp_side *out)
{
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->set.label = fl_xstrdup(label);
	out->ids = fl_xcalloc(n + 1, sizeof(*out->ids));
	out->runs = fl_xcalloc(n + 1, sizeof(*out->runs));
	out->rows = fl_xcalloc(n + 1, sizeof(*out->rows));
	out->nrows = fl_xcalloc(n + 1, sizeof(*out->nrows));
	out->samples = fl_xcalloc(n + 1, sizeof(*out->samples));
	out->erows = fl_xcalloc(n + 1, sizeof(*out->erows));
	out->nerows = fl_xcalloc(n + 1, sizeof(*out->nerows));
	out->points = fl_xcalloc(n + 1, sizeof(*out->points));
	out->set.runs = out->runs;
	for (size_t i = 0; i < n && !r; i++)
		r = side_run(st, out, i, ids[i], metrics_only);
	if (r)
		fl_cmp_side_release(out);
	return r;
}

void fl_cmp_side_release(struct fl_cmp_side *s)
{
	for (size_t i = 0; i < s->set.n; i++) {
		fl_store_samples_free(s->rows[i], s->nrows[i]);
		free(s->samples[i]);
		evidence_points_free(s->points[i], s->nerows[i]);
		fl_store_evidence_free(s->erows[i], s->nerows[i]);
	}
	free((char *)s->set.label);
	free(s->ids);
	free(s->runs);
	free(s->rows);
	free(s->nrows);
	free(s->samples);
	free(s->erows);
	free(s->nerows);
	free(s->points);
	memset(s, 0, sizeof(*s));
}
