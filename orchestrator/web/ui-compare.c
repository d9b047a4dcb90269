/*
 * web/ui-compare.c - /compare?a=REV&b=REV&benchmark=B&machine=M: two
 * kernels on one benchmark and machine, the page kernel developers pass
 * around to argue about a fix. A scalability plot per mode and cgroup
 * context (operations per second against task count, both kernels, spread
 * across runs as error bars; a child memory cgroup's points apart from the
 * root's), the comparison table in LKP's shape (base +- %stddev, %change, new
 * +- %stddev, verdict), vmstat and profile deltas, and the runs behind
 * them. The rows are compare.c's (fl_model_compare), the ones "faultline
 * compare" prints and the report mails; they are rendered, never
 * recomputed, here.
 * Without any parameter the page is a form; the URL is the shareable link.
 */
#include "web/ui.h"
#include "config/config.h"
#include "lib/html.h"
#include "service/pipeline.h"
#include "web/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define RUNS 20

struct compare_page {
	struct fl_model_compare_req q;
	int has_regression; /* regression=ID: its headline, and its comparison's runs */
	struct fl_view_regression g;
	struct fl_model_compare c;
	const char *metric; /* the plotted metric */
	struct fl_view_run *a_runs, *b_runs;
	size_t na, nb;
	int a_more, b_more;
};

static void form(fl_buf *out, const struct fl_web *web, const struct fl_model_compare_req *q)
{
	const struct fl_config *cfg = web->cfg;
	const char *bench = q->benchmark	      ? q->benchmark
			    : cfg && cfg->nbenchmarks ? cfg->benchmarks[0].name
						      : "";
	const char *machine = q->machine	      ? q->machine
			      : cfg && cfg->nmachines ? cfg->machines[0].name
						      : "";

	fl_html_addf(out,
		     "<form class='compare' method='get' action='/compare'>\n"
		     "<label>tree <input name='tree' value='%s' placeholder='any'></label>\n"
		     "<label>base <input name='a' value='%s' required></label>\n"
		     "<label>new <input name='b' value='%s' required></label>\n"
		     "<label>benchmark <input name='benchmark' value='%s' required></label>\n"
		     "<label>machine <input name='machine' value='%s' required></label>\n"
		     "<button>compare</button>\n</form>\n",
		     q->tree ? q->tree : "", q->a ? q->a : "", q->b ? q->b : "", bench, machine);
}

/* will-it-scale's headline is operations per task: a throughput metric is
 * plotted divided by the task count, so linear scaling is a flat line. */
static int per_task(const char *metric)
{
	return !strncmp(metric, "ops", 3);
}

/* The metric rows of the plotted metric in one mode and context as a series of one kernel. */
static size_t mode_series(fl_pool *p, const struct compare_page *cp, const struct fl_cmp_row *at,
			  int base, struct fl_svg_series *s)
{
	double *x = fl_pool_alloc(p, (cp->c.nrows + 1) * sizeof(double));
	double *y = fl_pool_alloc(p, (cp->c.nrows + 1) * sizeof(double));
	double *e = fl_pool_alloc(p, (cp->c.nrows + 1) * sizeof(double));
	size_t n = 0;

	for (size_t i = 0; i < cp->c.nmetric; i++) {
		const struct fl_cmp_row *r = &cp->c.rows[i];
		const struct fl_cmp_value *v = base ? &r->base : &r->new_;
		double div = per_task(cp->metric) && r->tasks ? r->tasks : 1;

		if (strcmp(r->what, cp->metric) || strcmp(r->mode, at->mode) ||
		    strcmp(r->cgroup, at->cgroup) || !v->n)
			continue;
		x[n] = r->tasks;
		y[n] = v->value / div;
		e[n] = v->stddev / div;
		n++;
	}
	*s = (struct fl_svg_series){base ? cp->c.a_name : cp->c.b_name, x, y, e, n, 0};
	return n;
}

/* Linear scaling from the base's fewest tasks: per task, a flat line across the task counts. */
static int linear_series(fl_pool *p, const struct fl_svg_series *base, struct fl_svg_series *s)
{
	double *x = fl_pool_alloc(p, 2 * sizeof(double)), *y = fl_pool_alloc(p, 2 * sizeof(double));
	char *label = fl_pool_alloc(p, 128);
	size_t lo = 0, hi = 0;

	if (!base->n)
		return 0;
	for (size_t i = 1; i < base->n; i++) {
		lo = base->x[i] < base->x[lo] ? i : lo;
		hi = base->x[i] > base->x[hi] ? i : hi;
	}
	x[0] = base->x[lo];
	x[1] = base->x[hi];
	y[0] = y[1] = base->y[lo];
	snprintf(label, 128, "linear scaling from %s at %.0f", base->label, base->x[lo]);
	*s = (struct fl_svg_series){label, x, y, NULL, 2, 1};
	return 1;
}

/* Whether row i is the first of the plotted metric in its mode and context
 * (rows are sorted by mode, metric, tasks, context: a mode's contexts interleave). */
static int first_of_plot(const struct compare_page *cp, size_t i)
{
	const struct fl_cmp_row *r = &cp->c.rows[i];

	for (size_t k = 0; k < i; k++) {
		const struct fl_cmp_row *o = &cp->c.rows[k];

		if (!strcmp(o->what, r->what) && !strcmp(o->mode, r->mode) &&
		    !strcmp(o->cgroup, r->cgroup))
			return 0;
	}
	return 1;
}

/* Whether some plot would have two task counts or more: a command's numbers
 * (one point, no mode) have no scalability to draw. */
static int scalable(const struct compare_page *cp)
{
	for (size_t i = 0; i < cp->c.nmetric; i++)
		for (size_t k = i + 1; k < cp->c.nmetric; k++) {
			const struct fl_cmp_row *a = &cp->c.rows[i], *b = &cp->c.rows[k];

			if (!strcmp(a->what, cp->metric) && !strcmp(b->what, cp->metric) &&
			    !strcmp(a->mode, b->mode) && !strcmp(a->cgroup, b->cgroup) &&
			    a->tasks != b->tasks)
				return 1;
		}
	return 0;
}

static void scalability_plots(fl_buf *out, fl_pool *p, const struct compare_page *cp)
{
	const char *unit = per_task(cp->metric) ? " per task" : "";

	for (size_t i = 0; i < cp->c.nmetric; i++) {
		const struct fl_cmp_row *r = &cp->c.rows[i];
		struct fl_svg_series s[3];
		struct fl_svg_plot plot = {.xlabel = "tasks", .series = s};
		char *title, *ylabel;

		/* one plot per mode and context: at their first row of the plotted metric */
		if (strcmp(r->what, cp->metric) || !first_of_plot(cp, i))
			continue;
		if (mode_series(p, cp, r, 1, &s[plot.nseries]))
			plot.nseries++;
		if (mode_series(p, cp, r, 0, &s[plot.nseries]))
			plot.nseries++;
		if (per_task(cp->metric) && plot.nseries &&
		    linear_series(p, &s[0], &s[plot.nseries]))
			plot.nseries++;
		title = fl_pool_alloc(p, 256);
		ylabel = fl_pool_alloc(p, 128);
		snprintf(title, 256, "%s %s%s%s %s%s", cp->q.benchmark, r->mode,
			 *r->cgroup ? " in " : "", r->cgroup, cp->metric, unit);
		snprintf(ylabel, 128, "%s%s", cp->metric, unit);
		plot.title = title;
		plot.ylabel = ylabel;
		fl_html_addf(out, "<figure class='plot scalability' data-mode='%s' data-cgroup='%s'>",
			     r->mode, fl_cgroup_word(r->cgroup));
		fl_svg_lines(out, &plot);
		fl_html_addf(out,
			     "<figcaption>%s%s%s, %s%s: %s against %s%S</figcaption></figure>\n",
			     *r->mode ? r->mode : "-", *r->cgroup ? " in a " : "",
			     *r->cgroup ? r->cgroup : "", cp->metric, unit, cp->c.b_name,
			     cp->c.a_name,
			     per_task(cp->metric) ? "; the dashed line is linear scaling (the "
						    "same per task at every count)"
						  : "");
	}
}

/* A side's value and its spread across runs, or "-" without runs. */
static void value_cells(fl_buf *out, const struct fl_cmp_value *v)
{
	fl_buf_adds(out, "<td class='num'>");
	fl_web_num(out, v->n ? v->value : NAN);
	fl_buf_adds(out, "</td><td class='num sd'>");
	if (v->n > 1)
		fl_html_addf(out, "&plusmn; %.0f%%", v->stddev_pct);
	fl_buf_adds(out, "</td>");
}

/* A change to show: both sides measured, and a percentage of something. */
static int has_change(const struct fl_cmp_row *r)
{
	return r->base.n && r->new_.n && (r->kind == FL_CMP_PROFILE || r->base.value != 0);
}

static void change_cell(fl_buf *out, const struct fl_cmp_row *r, const char *unit)
{
	if (!has_change(r))
		fl_buf_adds(out, "<td class='num'>-</td>");
	else
		fl_html_addf(out, "<td class='num change %s'>%S%.1f%s</td>",
			     fl_class_word(r->kind == FL_CMP_METRIC ? r->cls : FL_CMP_SAME),
			     r->change > 0 ? "+" : "", r->change, unit);
}

static void rows_table(fl_buf *out, const struct compare_page *cp)
{
	if (!cp->c.a_runs || !cp->c.b_runs) {
		if (!cp->c.a_runs && !cp->c.b_runs)
			fl_buf_adds(out, "<p class='empty'>No samples on either side.</p>\n");
		else
			fl_html_addf(out,
				     "<p class='empty'>No ok runs of %s on %s for %s: nothing to "
				     "compare.</p>\n",
				     cp->q.benchmark, cp->q.machine,
				     cp->c.a_runs ? cp->q.b : cp->q.a);
		return;
	}
	fl_html_addf(out,
		     "<table class='compare'>\n<thead><tr><th colspan='2'>%s</th>"
		     "<th>%%change</th><th colspan='2'>%s</th><th>metric</th><th>tasks</th>"
		     "<th>cgroup</th><th>verdict</th><th>p</th><th>runs</th></tr></thead>\n"
		     "<tbody>\n",
		     cp->q.a, cp->q.b);
	for (size_t i = 0; i < cp->c.nmetric; i++) {
		const struct fl_cmp_row *r = &cp->c.rows[i];

		fl_buf_adds(out, "<tr>");
		value_cells(out, &r->base);
		change_cell(out, r, "%");
		value_cells(out, &r->new_);
		fl_html_addf(out, "<td>%s</td><td class='num'>%u</td><td>%s</td><td>%s%S%s</td>",
			     r->name, r->tasks, fl_cgroup_word(r->cgroup), fl_verdict_name(r->verdict),
			     r->cls == FL_CMP_REGRESSION || r->cls == FL_CMP_IMPROVEMENT ? ", "
											 : "",
			     r->cls == FL_CMP_REGRESSION || r->cls == FL_CMP_IMPROVEMENT
				 ? fl_class_name(r->cls)
				 : "");
		fl_buf_addf(out, "<td class='num'>%.2g</td>", r->p);
		fl_html_addf(out, "<td class='num'>%zu + %zu</td></tr>\n", r->base.n, r->new_.n);
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

/* The vmstat (unit "%") or profile (" pp") rows of the comparison. */
static void deltas_table(fl_buf *out, const struct compare_page *cp, enum fl_cmp_kind kind,
			 const char *what, const char *unit)
{
	fl_html_addf(out,
		     "<table class='deltas'>\n<thead><tr><th>%s</th><th>mode</th><th>tasks</th>"
		     "<th>cgroup</th><th colspan='2'>%s</th><th>change</th><th colspan='2'>%s</th></tr>"
		     "</thead>\n<tbody>\n",
		     what, cp->q.a, cp->q.b);
	for (size_t i = 0; i < cp->c.nrows; i++) {
		const struct fl_cmp_row *r = &cp->c.rows[i];

		if (r->kind != kind)
			continue;
		fl_html_addf(out, "<tr><td>%s</td><td>%s</td><td class='num'>%u</td><td>%s</td>",
			     r->what, r->mode, r->tasks, fl_cgroup_word(r->cgroup));
		value_cells(out, &r->base);
		change_cell(out, r, unit);
		value_cells(out, &r->new_);
		fl_buf_adds(out, "</tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

static void evidence_html(fl_buf *out, const struct compare_page *cp)
{
	if (!cp->c.has_evidence) {
		fl_buf_adds(out, "<p class='empty'>This store keeps no vmstat or profile evidence "
				 "for these runs.</p>\n");
		return;
	}
	if (cp->c.nvmstat)
		deltas_table(out, cp, FL_CMP_VMSTAT, "vmstat (per second)", "%");
	else
		fl_buf_adds(out, "<p class='empty'>No vmstat counter moved.</p>\n");
	if (cp->c.nprofile)
		deltas_table(out, cp, FL_CMP_PROFILE, "profile (% of samples)", " pp");
	else
		fl_buf_adds(out, "<p class='empty'>No profile function moved.</p>\n");
	if (cp->c.nnotes) {
		fl_buf_adds(out, "<ul class='notes'>\n");
		for (size_t i = 0; i < cp->c.nnotes; i++)
			fl_html_addf(out, "<li>%s</li>\n", cp->c.notes[i]);
		fl_buf_adds(out, "</ul>\n");
	}
}

/* Lock contention (compare.h, FL_CMP_LOCK): a row per lock, its three
 * values side by side, its top chains under it. */
static void lock_cells(fl_buf *out, const struct fl_cmp_row *r)
{
	value_cells(out, &r->base);
	change_cell(out, r, "%");
	value_cells(out, &r->new_);
}

static void locks_html(fl_buf *out, const struct compare_page *cp)
{
	int any = 0;

	for (size_t i = 0; i + 2 < cp->c.nrows; i++) {
		const struct fl_cmp_row *r = &cp->c.rows[i];

		if (r->kind != FL_CMP_LOCK || !r->lock || strcmp(r[2].lock ? r[2].lock : "", r->lock))
			continue;
		if (!any++)
			fl_html_addf(out,
				     "<table class='deltas locks'>\n<thead><tr><th>lock</th>"
				     "<th>mode</th><th>tasks</th><th>cgroup</th>"
				     "<th colspan='2'>contentions/s %s</th><th>change</th>"
				     "<th colspan='2'>%s</th><th colspan='2'>wait ms/s %s</th>"
				     "<th>change</th><th colspan='2'>%s</th>"
				     "<th colspan='2'>longest wait us %s</th><th>change</th>"
				     "<th colspan='2'>%s</th></tr></thead>\n<tbody>\n",
				     cp->q.a, cp->q.b, cp->q.a, cp->q.b, cp->q.a, cp->q.b);
		fl_html_addf(out, "<tr><td><code>%s</code></td><td>%s</td><td class='num'>%u</td>"
				  "<td>%s</td>",
			     r->lock, r->mode, r->tasks, fl_cgroup_word(r->cgroup));
		lock_cells(out, &r[0]);
		lock_cells(out, &r[1]);
		lock_cells(out, &r[2]);
		fl_buf_adds(out, "</tr>\n");
		if (r->chains && *r->chains) {
			fl_buf_adds(out, "<tr class='chains'><td colspan='22'><pre>");
			for (const char *p = r->chains; *p;) {
				size_t n = strcspn(p, "\n");
				char *line = fl_xstrndup(p, n);

				fl_html_addf(out, "%s\n", line);
				free(line);
				p += n + (p[n] == '\n');
			}
			fl_buf_adds(out, "</pre></td></tr>\n");
		}
		i += 2;
	}
	if (any)
		fl_buf_adds(out, "</tbody></table>\n");
	else
		fl_buf_adds(out, "<p class='empty'>No lock contention changed (or no run traced "
				 "locks: see the notes).</p>\n");
}

/* The per-node rows (FL_CMP_NODE), LKP's numa-numastat/numa-vmstat. */
static void nodes_html(fl_buf *out, const struct compare_page *cp)
{
	for (size_t i = 0; i < cp->c.nrows; i++)
		if (cp->c.rows[i].kind == FL_CMP_NODE) {
			deltas_table(out, cp, FL_CMP_NODE, "per node (per second; tasks: pinned)",
				     "%");
			return;
		}
	fl_buf_adds(out, "<p class='empty'>No per-node counter changed.</p>\n");
}

static void locks_nodes_html(fl_buf *out, const struct compare_page *cp)
{
	if (!cp->c.has_evidence)
		return;
	fl_buf_adds(out, "<h2>Lock contention</h2>\n");
	locks_html(out, cp);
	fl_buf_adds(out, "<h2>Per NUMA node</h2>\n");
	nodes_html(out, cp);
}

static void side(fl_buf *out, const char *name, const char *rev, const struct fl_view_commit *c,
		 size_t runs)
{
	fl_html_addf(out, "<dt>%s <code>%s</code></dt><dd>", name, rev);
	fl_web_commit_html(out, c->sha, c->subject);
	fl_html_addf(out, " (tree %s), %zu ok run%s</dd>\n", c->tree, runs, runs == 1 ? "" : "s");
}

/* Which runs the rows pool, and the regression's headline when one is named. */
static void pooled_html(fl_buf *out, const struct compare_page *cp)
{
	fl_buf_adds(out, "<p class='pooled'>");
	if (cp->has_regression) {
		fl_html_addf(out, "<a href='/regression/%lld'>Regression %lld</a>: ",
			     (long long)cp->g.id, (long long)cp->g.id);
		fl_ui_headline(out, &cp->g);
		if (cp->q.job)
			fl_html_addf(out,
				     ". The rows below are made of the same runs: those of compare "
				     "job %lld, %zu + %zu",
				     (long long)cp->q.job, cp->c.a_runs, cp->c.b_runs);
		fl_buf_adds(out, ".");
	} else
		fl_html_addf(out,
			     "Every ok run of each commit on %s is pooled, whatever it was "
			     "measured for (a tag's comparison, bisection steps, a revert "
			     "check): %zu + %zu runs. A regression's page links to its "
			     "comparison's own runs.",
			     cp->q.machine, cp->c.a_runs, cp->c.b_runs);
	fl_buf_adds(out, "</p>\n");
}

static void compare_html(fl_buf *out, fl_pool *p, const struct fl_web *web,
			 const struct compare_page *cp)
{
	fl_buf link = FL_BUF_INIT;

	fl_html_addf(out, "<h1>%s on %s: %s against %s</h1>\n", cp->q.benchmark, cp->q.machine,
		     cp->q.b, cp->q.a);
	form(out, web, &cp->q);
	fl_web_compare_url(&link, cp->c.a.tree, cp->c.a.sha, cp->c.b.sha, cp->q.benchmark,
			   cp->q.machine);
	fl_html_addf(out, "<p class='permalink'><a href='%s'>link to this comparison</a></p>\n",
		     link.ptr);
	fl_buf_free(&link);
	fl_buf_adds(out, "<dl class='facts'>\n");
	side(out, "base", cp->q.a, &cp->c.a, cp->c.a_runs);
	side(out, "new", cp->q.b, &cp->c.b, cp->c.b_runs);
	fl_buf_adds(out, "</dl>\n");
	pooled_html(out, cp);
	if (scalable(cp)) {
		fl_buf_adds(out, "<h2>Scalability</h2>\n");
		scalability_plots(out, p, cp);
	}
	fl_buf_adds(out, "<h2>Comparison</h2>\n");
	rows_table(out, cp);
	fl_buf_adds(out, "<h2>vmstat and profile</h2>\n");
	evidence_html(out, cp);
	locks_nodes_html(out, cp);
	fl_html_addf(out, "<h2>Every run of %s</h2>\n", cp->q.a);
	fl_ui_runs_table(out, cp->a_runs, cp->na);
	fl_html_addf(out, "<h2>Every run of %s</h2>\n", cp->q.b);
	fl_ui_runs_table(out, cp->b_runs, cp->nb);
}

/* A side's value as JSON: null without runs. */
static json_t *value_json(const struct fl_cmp_value *v, int spread)
{
	if (!v->n)
		return json_null();
	return fl_web_json_num(spread ? v->stddev_pct : v->value);
}

static json_t *rows_json(const struct compare_page *cp, enum fl_cmp_kind kind)
{
	json_t *a = json_array();

	for (size_t i = 0; i < cp->c.nrows; i++) {
		const struct fl_cmp_row *r = &cp->c.rows[i];
		json_t *o;

		if (r->kind != kind)
			continue;
		o = json_pack("{s:o, s:o, s:i, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:I}", "name",
			      fl_web_json_str(r->name), "mode", fl_web_json_str(r->mode), "tasks",
			      (int)r->tasks, kind == FL_CMP_METRIC ? "metric" : "what",
			      fl_web_json_str(r->what), "base", value_json(&r->base, 0),
			      "base_stddev_pct", value_json(&r->base, 1), "base_runs",
			      (json_int_t)r->base.n,
			      kind == FL_CMP_PROFILE ? "change_pp" : "change_pct",
			      has_change(r) ? fl_web_json_num(r->change) : json_null(),
			      "new", value_json(&r->new_, 0), "new_stddev_pct",
			      value_json(&r->new_, 1), "new_runs", (json_int_t)r->new_.n);
		json_object_set_new(o, "cgroup", json_string(fl_cgroup_word(r->cgroup)));
		if (kind == FL_CMP_LOCK) {
			json_object_set_new(o, "lock", fl_web_json_str(r->lock));
			if (r->chains)
				json_object_set_new(o, "chains", fl_web_json_str(r->chains));
		}
		if (kind == FL_CMP_METRIC) {
			json_object_set_new(o, "verdict", json_string(fl_verdict_name(r->verdict)));
			json_object_set_new(o, "p", fl_web_json_num(r->p));
			json_object_set_new(o, "class", json_string(fl_class_name(r->cls)));
		}
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *compare_json(const struct compare_page *cp)
{
	json_t *notes = json_array(), *o;

	for (size_t i = 0; i < cp->c.nnotes; i++)
		json_array_append_new(notes, fl_web_json_str(cp->c.notes[i]));
	o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:{s:I, s:I}, s:o, s:b, s:o, s:o, s:o}",
			 "a", fl_web_json_str(cp->q.a), "b", fl_web_json_str(cp->q.b), "benchmark",
			 fl_web_json_str(cp->q.benchmark), "machine",
			 fl_web_json_str(cp->q.machine), "base", fl_ui_commit_json(&cp->c.a), "new",
			 fl_ui_commit_json(&cp->c.b), "runs", "base", (json_int_t)cp->c.a_runs,
			 "new", (json_int_t)cp->c.b_runs, "rows", rows_json(cp, FL_CMP_METRIC),
			 "evidence", cp->c.has_evidence, "vmstat", rows_json(cp, FL_CMP_VMSTAT),
			 "profile", rows_json(cp, FL_CMP_PROFILE), "notes", notes);
	/* which runs the rows pool: a job's (a regression's comparison), or every ok run */
	json_object_set_new(o, "pooled", json_string(cp->q.job ? "job" : "all"));
	json_object_set_new(o, "job", cp->q.job ? json_integer(cp->q.job) : json_null());
	json_object_set_new(o, "regression",
			    cp->has_regression ? fl_ui_regression_json(&cp->g) : json_null());
	json_object_set_new(o, "locks", rows_json(cp, FL_CMP_LOCK));
	json_object_set_new(o, "nodes", rows_json(cp, FL_CMP_NODE));
	return o;
}

static int load(struct fl_web_req *req, struct compare_page *cp)
{
	int r;

	if ((r = fl_model_compare(req->st, &req->pool, &cp->q, &cp->c)) ||
	    (r = fl_view_compare_runs(req->st, &req->pool, cp->c.a.id, cp->q.benchmark,
				      cp->c.machine_id, 1, RUNS, &cp->a_runs, &cp->na,
				      &cp->a_more)) ||
	    (r = fl_view_compare_runs(req->st, &req->pool, cp->c.b.id, cp->q.benchmark,
				      cp->c.machine_id, 1, RUNS, &cp->b_runs, &cp->nb,
				      &cp->b_more)))
		return r;
	if (!cp->metric) {
		cp->metric = cp->c.nmetric ? cp->c.rows[0].what : "ops_per_sec";
		for (size_t i = 0; i < cp->c.nmetric; i++)
			if (!strcmp(cp->c.rows[i].what, "ops_per_sec") ||
			    !strcmp(cp->c.rows[i].what, "ops"))
				cp->metric = cp->c.rows[i].what;
	}
	return 0;
}

void fl_ui_compare(struct fl_web_req *req, struct fl_web_resp *resp)
{
	struct compare_page cp = {0};
	struct fl_model_compare_req *q = &cp.q;
	fl_buf b = FL_BUF_INIT;
	int r;

	if (!req->json && !fl_web_arg(req, "a") && !fl_web_arg(req, "b") && !fl_web_arg(req, "tree") &&
	    !fl_web_arg(req, "benchmark") && !fl_web_arg(req, "machine")) {
		fl_buf_adds(&b, "<h1>Compare two kernels</h1>\n");
		form(&b, req->web, q);
		fl_web_page(req, resp, "compare", &b);
		fl_buf_free(&b);
		return;
	}
	if (fl_web_need_arg(req, resp, "a", &q->a) || fl_web_need_arg(req, resp, "b", &q->b) ||
	    fl_web_name_arg(req, resp, "benchmark", &q->benchmark) ||
	    fl_web_name_arg(req, resp, "machine", &q->machine) ||
	    fl_web_name_arg(req, resp, "tree", &q->tree) ||
	    fl_web_name_arg(req, resp, "metric", &cp.metric))
		return;
	/* left out: the configuration's only one, as "faultline compare" takes it */
	if (!q->benchmark && req->web->cfg && req->web->cfg->nbenchmarks == 1)
		q->benchmark = req->web->cfg->benchmarks[0].name;
	if (!q->machine && req->web->cfg && req->web->cfg->nmachines == 1)
		q->machine = req->web->cfg->machines[0].name;
	if (!q->benchmark || !q->machine) {
		fl_web_fail(req, resp, 400,
			    "missing parameter '%s' (the configuration has more than one, or none)",
			    q->benchmark ? "machine" : "benchmark");
		return;
	}
	fl_model_cmp_opts(req->web->cfg, q->benchmark, &q->opts);
	if (fl_web_arg(req, "regression")) {
		int64_t id;

		if (fl_web_id(req, resp, fl_web_arg(req, "regression"), &id))
			return;
		if ((r = fl_view_regression_get(req->st, &req->pool, id, &cp.g))) {
			fl_web_fail_error(req, resp, r);
			return;
		}
		cp.has_regression = 1;
		q->job = cp.g.job_id;
		if (!q->tree)
			q->tree = cp.g.tree;
	}
	if ((r = load(req, &cp))) {
		fl_web_fail_error(req, resp, r);
		return;
	}
	if (req->json) {
		fl_web_send_json(resp, 200, compare_json(&cp));
		return;
	}
	compare_html(&b, &req->pool, req->web, &cp);
	fl_web_page(req, resp, "compare", &b);
	fl_buf_free(&b);
}
