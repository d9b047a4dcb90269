/*
 * web/ui-compare.c - /compare?a=REV&b=REV&benchmark=B&machine=M: two
 * kernels on one benchmark and machine, the page kernel developers pass
 * around to argue about a fix. A scalability plot per mode (operations per
 * second against task count, both kernels, spread as error bars), the
 * comparison table in LKP's shape (base +- %stddev, %change, new +-
 * %stddev), vmstat and profile deltas, and the runs behind them. The rows
 * come from fl_web_compare() and are rendered, never recomputed, here.
 * Without any parameter the page is a form; the URL is the shareable link.
 */
#include "ui.h"
#include "../config.h"
#include "../html.h"
#include "../svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define RUNS 20

struct compare_page {
	struct fl_web_compare_req q;
	struct fl_web_compare c;
	const char *metric; /* the plotted metric */
	struct fl_web_run *a_runs, *b_runs;
	size_t na, nb;
	int a_more, b_more;
};

static void form(fl_buf *out, const struct fl_web *web, const struct fl_web_compare_req *q)
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
		     "<label>base <input name='a' value='%s' required></label>\n"
		     "<label>new <input name='b' value='%s' required></label>\n"
		     "<label>benchmark <input name='benchmark' value='%s' required></label>\n"
		     "<label>machine <input name='machine' value='%s' required></label>\n"
		     "<button>compare</button>\n</form>\n",
		     q->a ? q->a : "", q->b ? q->b : "", bench, machine);
}

/* The rows of the plotted metric in one mode as a series of one kernel. */
static size_t mode_series(fl_pool *p, const struct compare_page *cp, const char *mode, int base,
			  struct fl_svg_series *s)
{
	double *x = fl_pool_alloc(p, (cp->c.nrows + 1) * sizeof(double));
	double *y = fl_pool_alloc(p, (cp->c.nrows + 1) * sizeof(double));
	double *e = fl_pool_alloc(p, (cp->c.nrows + 1) * sizeof(double));
	size_t n = 0;

	for (size_t i = 0; i < cp->c.nrows; i++) {
		const struct fl_web_compare_row *r = &cp->c.rows[i];
		double mean = base ? r->base : r->new_, sd = base ? r->base_sd_pct : r->new_sd_pct;

		if (strcmp(r->metric, cp->metric) || strcmp(r->mode, mode) || isnan(mean))
			continue;
		x[n] = r->tasks;
		y[n] = mean;
		e[n] = isnan(sd) ? 0 : fabs(mean) * sd / 100;
		n++;
	}
	*s = (struct fl_svg_series){base ? cp->q.a : cp->q.b, x, y, e, n};
	return n;
}

static void scalability_plots(fl_buf *out, fl_pool *p, const struct compare_page *cp)
{
	for (size_t i = 0; i < cp->c.nrows; i++) {
		const struct fl_web_compare_row *r = &cp->c.rows[i];
		struct fl_svg_series s[2];
		struct fl_svg_plot plot = {.xlabel = "tasks", .ylabel = cp->metric, .series = s};
		char *title;

		/* one plot per mode: at the mode's first row of the plotted metric */
		if (strcmp(r->metric, cp->metric) ||
		    (i && !strcmp(cp->c.rows[i - 1].metric, r->metric) &&
		     !strcmp(cp->c.rows[i - 1].mode, r->mode)))
			continue;
		if (mode_series(p, cp, r->mode, 1, &s[plot.nseries]))
			plot.nseries++;
		if (mode_series(p, cp, r->mode, 0, &s[plot.nseries]))
			plot.nseries++;
		title = fl_pool_alloc(p, 256);
		snprintf(title, 256, "%s %s %s", cp->q.benchmark, r->mode, cp->metric);
		plot.title = title;
		fl_html_addf(out, "<figure class='plot scalability' data-mode='%s'>", r->mode);
		fl_svg_lines(out, &plot);
		fl_html_addf(out, "<figcaption>%s, %s: %s against %s</figcaption></figure>\n",
			     *r->mode ? r->mode : "-", cp->metric, cp->q.b, cp->q.a);
	}
}

static void mean_cells(fl_buf *out, double mean, double sd_pct)
{
	fl_buf_adds(out, "<td class='num'>");
	fl_web_num(out, mean);
	fl_buf_adds(out, "</td><td class='num sd'>");
	if (!isnan(sd_pct))
		fl_html_addf(out, "&plusmn; %.0f%%", sd_pct);
	fl_buf_adds(out, "</td>");
}

/* worse, better or same, for the colour of the %change cell */
static const char *change_class(const struct fl_web_compare_row *r, enum fl_direction dir)
{
	if (strcmp(r->verdict, "DIFFERENT"))
		return "same";
	return (r->change_pct < 0) == (dir == FL_HIGHER_BETTER) ? "worse" : "better";
}

static void rows_table(fl_buf *out, const struct compare_page *cp)
{
	if (!cp->c.nrows) {
		fl_buf_adds(out, "<p class='empty'>No samples on either side.</p>\n");
		return;
	}
	fl_html_addf(out,
		     "<table class='compare'>\n<thead><tr><th colspan='2'>%s</th>"
		     "<th>%%change</th><th colspan='2'>%s</th><th>metric</th><th>tasks</th>"
		     "<th>verdict</th></tr></thead>\n<tbody>\n",
		     cp->q.a, cp->q.b);
	for (size_t i = 0; i < cp->c.nrows; i++) {
		const struct fl_web_compare_row *r = &cp->c.rows[i];

		fl_buf_adds(out, "<tr>");
		mean_cells(out, r->base, r->base_sd_pct);
		if (isnan(r->change_pct))
			fl_buf_adds(out, "<td class='num'>-</td>");
		else
			fl_html_addf(out, "<td class='num change %s'>%S%.1f%%</td>",
				     change_class(r, cp->q.dir), r->change_pct > 0 ? "+" : "",
				     r->change_pct);
		mean_cells(out, r->new_, r->new_sd_pct);
		fl_html_addf(out, "<td>%s%s%s.%s</td><td class='num'>%u</td><td>%s</td></tr>\n",
			     cp->q.benchmark, *r->mode ? "." : "", r->mode, r->metric, r->tasks,
			     *r->verdict ? r->verdict : "-");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

static void deltas_table(fl_buf *out, const char *what, const struct fl_web_delta *d, size_t n)
{
	fl_html_addf(out,
		     "<table class='deltas'>\n<thead><tr><th>%s</th><th>base</th>"
		     "<th>change</th><th>new</th></tr></thead>\n<tbody>\n",
		     what);
	for (size_t i = 0; i < n; i++) {
		fl_html_addf(out, "<tr><td>%s</td><td class='num'>", d[i].name);
		fl_web_num(out, d[i].base);
		fl_buf_adds(out, "</td><td class='num'>");
		fl_web_num(out, d[i].change);
		fl_buf_adds(out, "</td><td class='num'>");
		fl_web_num(out, d[i].new_);
		fl_buf_adds(out, "</td></tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

static void side(fl_buf *out, const char *name, const char *rev, const struct fl_web_commit *c,
		 size_t runs)
{
	fl_html_addf(out, "<dt>%s <code>%s</code></dt><dd>", name, rev);
	fl_web_commit_html(out, c->sha, c->subject);
	fl_html_addf(out, " (tree %s), %zu run%s</dd>\n", c->tree, runs, runs == 1 ? "" : "s");
}

static void compare_html(fl_buf *out, fl_pool *p, const struct fl_web *web,
			 const struct compare_page *cp)
{
	fl_buf link = FL_BUF_INIT;

	fl_html_addf(out, "<h1>%s on %s: %s against %s</h1>\n", cp->q.benchmark, cp->q.machine,
		     cp->q.b, cp->q.a);
	form(out, web, &cp->q);
	fl_web_url(&link, "/compare",
		   (const char *const[]){"a", cp->c.a.sha, "b", cp->c.b.sha, "benchmark",
					 cp->q.benchmark, "machine", cp->q.machine, NULL});
	fl_html_addf(out, "<p class='permalink'><a href='%s'>link to this comparison</a></p>\n",
		     link.ptr);
	fl_buf_free(&link);
	fl_buf_adds(out, "<dl class='facts'>\n");
	side(out, "base", cp->q.a, &cp->c.a, cp->c.a_runs);
	side(out, "new", cp->q.b, &cp->c.b, cp->c.b_runs);
	fl_buf_adds(out, "</dl>\n<h2>Scalability</h2>\n");
	scalability_plots(out, p, cp);
	fl_buf_adds(out, "<h2>Comparison</h2>\n");
	rows_table(out, cp);
	fl_buf_adds(out, "<h2>vmstat and profile</h2>\n");
	if (!cp->c.has_evidence) {
		fl_buf_adds(out, "<p class='empty'>This store keeps no vmstat or profile evidence "
				 "for these runs.</p>\n");
	} else {
		deltas_table(out, "vmstat (per second)", cp->c.vmstat, cp->c.nvmstat);
		deltas_table(out, "profile (% of samples)", cp->c.profile, cp->c.nprofile);
	}
	fl_html_addf(out, "<h2>Runs of %s</h2>\n", cp->q.a);
	fl_ui_runs_table(out, cp->a_runs, cp->na);
	fl_html_addf(out, "<h2>Runs of %s</h2>\n", cp->q.b);
	fl_ui_runs_table(out, cp->b_runs, cp->nb);
}

static json_t *deltas_json(const struct fl_web_delta *d, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(
		    a, json_pack("{s:o, s:o, s:o, s:o}", "name", fl_web_json_str(d[i].name), "base",
				 fl_web_json_num(d[i].base), "new", fl_web_json_num(d[i].new_),
				 "change", fl_web_json_num(d[i].change)));
	return a;
}

static json_t *compare_json(const struct compare_page *cp)
{
	json_t *rows = json_array();

	for (size_t i = 0; i < cp->c.nrows; i++) {
		const struct fl_web_compare_row *r = &cp->c.rows[i];

		json_array_append_new(
		    rows,
		    json_pack("{s:o, s:o, s:i, s:o, s:o, s:I, s:o, s:o, s:o, s:I, s:o}", "metric",
			      fl_web_json_str(r->metric), "mode", fl_web_json_str(r->mode), "tasks",
			      (int)r->tasks, "base", fl_web_json_num(r->base), "base_stddev_pct",
			      fl_web_json_num(r->base_sd_pct), "base_runs", (json_int_t)r->base_n,
			      "change_pct", fl_web_json_num(r->change_pct), "new",
			      fl_web_json_num(r->new_), "new_stddev_pct",
			      fl_web_json_num(r->new_sd_pct), "new_runs", (json_int_t)r->new_n,
			      "verdict", fl_web_json_str(r->verdict)));
	}
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:{s:I, s:I}, s:o, s:b, s:o, s:o}", "a",
			 fl_web_json_str(cp->q.a), "b", fl_web_json_str(cp->q.b), "benchmark",
			 fl_web_json_str(cp->q.benchmark), "machine",
			 fl_web_json_str(cp->q.machine), "base", fl_ui_commit_json(&cp->c.a), "new",
			 fl_ui_commit_json(&cp->c.b), "runs", "base", (json_int_t)cp->c.a_runs,
			 "new", (json_int_t)cp->c.b_runs, "rows", rows, "evidence",
			 cp->c.has_evidence, "vmstat", deltas_json(cp->c.vmstat, cp->c.nvmstat),
			 "profile", deltas_json(cp->c.profile, cp->c.nprofile));
}

static int load(struct fl_web_req *req, struct compare_page *cp)
{
	int r;

	if ((r = fl_web_compare(req->st, &req->pool, &cp->q, &cp->c)) ||
	    (r = fl_web_compare_runs(req->st, &req->pool, cp->c.a.id, cp->q.benchmark,
				     cp->c.machine_id, 1, RUNS, &cp->a_runs, &cp->na,
				     &cp->a_more)) ||
	    (r = fl_web_compare_runs(req->st, &req->pool, cp->c.b.id, cp->q.benchmark,
				     cp->c.machine_id, 1, RUNS, &cp->b_runs, &cp->nb, &cp->b_more)))
		return r;
	if (!cp->metric) {
		cp->metric = cp->c.nrows ? cp->c.rows[0].metric : "ops_per_sec";
		for (size_t i = 0; i < cp->c.nrows; i++)
			if (!strcmp(cp->c.rows[i].metric, "ops_per_sec"))
				cp->metric = "ops_per_sec";
	}
	return 0;
}

void fl_ui_compare(struct fl_web_req *req, struct fl_web_resp *resp)
{
	struct compare_page cp = {0};
	struct fl_web_compare_req *q = &cp.q;
	const struct fl_config *cfg = req->web->cfg;
	fl_buf b = FL_BUF_INIT;
	int r;

	if (!req->json && !fl_web_arg(req, "a") && !fl_web_arg(req, "b") &&
	    !fl_web_arg(req, "benchmark") && !fl_web_arg(req, "machine")) {
		fl_buf_adds(&b, "<h1>Compare two kernels</h1>\n");
		form(&b, req->web, q);
		fl_web_page(req, resp, "compare", &b);
		fl_buf_free(&b);
		return;
	}
	if (fl_web_need_arg(req, resp, "a", &q->a) || fl_web_need_arg(req, resp, "b", &q->b) ||
	    fl_web_need_arg(req, resp, "benchmark", &q->benchmark) ||
	    fl_web_need_arg(req, resp, "machine", &q->machine) ||
	    fl_web_name_arg(req, resp, "benchmark", &q->benchmark) ||
	    fl_web_name_arg(req, resp, "machine", &q->machine) ||
	    fl_web_name_arg(req, resp, "metric", &cp.metric))
		return;
	q->alpha = cfg ? 1 - cfg->regression.confidence : 0.05;
	q->min_change = cfg ? cfg->regression.min_change : 0.02;
	q->dir = fl_web_direction(req->web, q->benchmark);
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
