/*
 * web/ui-tree.c - /tree/<name>: one metric of one benchmark on one machine
 * across the tree's history (a line of the per-position medians, runs'
 * spread as error bars), with the change points E-divisive finds (stats.h)
 * marked, and links to compare neighbouring positions. A position is a tag
 * the watch service saw (in version order, labelled by the tag) when any
 * has runs, else a commit (by=commit asks for commits). Below, the tree's
 * newest tags with their verdicts. Parameters: benchmark, machine, metric,
 * mode, tasks (defaults from the newest run), by, page (1 is the newest
 * history).
 */
#include "web/ui.h"
#include "config/config.h"
#include "lib/html.h"
#include "service/pipeline.h"
#include "web/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PER_PAGE 50
#define TAGS	 20

struct tree_page {
	struct fl_view_tree tree;
	struct fl_model_series s;
	struct fl_model_series_req q;
};

static double median_of(const struct fl_model_position *pt)
{
	return fl_stats_median(pt->v, pt->n);
}

/* How a position is named in a URL: its tag when a URL may carry it, else its sha. */
static const char *position_rev(const struct fl_model_position *pt)
{
	return pt->tag && fl_view_rev_ok(pt->tag) ? pt->tag : pt->commit.sha;
}

/* A position as text: the tag with its short sha, or the commit. */
static void position_html(fl_buf *out, const struct fl_model_position *pt)
{
	if (pt->tag)
		fl_html_addf(out, "<span class='tag'>%s</span> ", pt->tag);
	fl_web_commit_html(out, pt->commit.sha, pt->tag ? NULL : pt->commit.subject);
}

static void series_plot(fl_buf *out, fl_pool *p, const struct tree_page *tp)
{
	const struct fl_model_series *s = &tp->s;
	double *x = fl_pool_alloc(p, s->n * sizeof(double)),
	       *y = fl_pool_alloc(p, s->n * sizeof(double));
	double *e = fl_pool_alloc(p, s->n * sizeof(double)), *marks;
	const char **names = fl_pool_alloc(p, s->n * sizeof(char *));
	size_t every = s->n / 10 + 1;
	char *title = fl_pool_alloc(p, 256);
	struct fl_svg_series se = {tp->tree.name, x, y, e, s->n, 0};
	struct fl_svg_plot plot = {.title = title,
				   .xlabel = strcmp(s->by, "tag") ? "commit" : "tag",
				   .ylabel = s->metric,
				   .series = &se,
				   .nseries = 1,
				   .xnames = names,
				   .nxnames = s->n,
				   .width = 800};

	for (size_t i = 0; i < s->n; i++) {
		char *name = fl_pool_alloc(p, 8);

		x[i] = (double)i;
		y[i] = median_of(&s->pts[i]);
		e[i] = fl_stats_stddev(s->pts[i].v, s->pts[i].n);
		if (i % every == 0)
			snprintf(name, 8, "%.7s", s->pts[i].commit.sha);
		names[i] = s->pts[i].tag && i % every == 0 ? s->pts[i].tag : name;
	}
	marks = fl_pool_alloc(p, (s->ncps + 1) * sizeof(double));
	for (size_t i = 0; i < s->ncps; i++)
		marks[i] = (double)s->cps[i].index - 0.5;
	plot.marks = marks;
	plot.nmarks = s->ncps;
	/* the right axis: each level against the page's first position */
	if (s->n > 1) {
		plot.ref = y[0];
		plot.reflabel = s->pts[0].tag ? s->pts[0].tag : names[0];
	}
	snprintf(title, 256, "%s %s %s %u tasks on %s", s->benchmark, s->metric, s->mode, s->tasks,
		 s->machine);
	fl_buf_adds(out, "<figure class='plot trend'>");
	fl_svg_lines(out, &plot);
	fl_buf_adds(out, "</figure>\n");
}

/* The page's URL with one parameter changed. */
static void link_with(fl_buf *out, const struct tree_page *tp, const char *name, const char *value,
		      const char *text)
{
	const struct fl_model_series *s = &tp->s;
	char tasks[16], *path;
	fl_buf url = FL_BUF_INIT, p = FL_BUF_INIT;
	const char *kv[] = {"benchmark", s->benchmark, "machine", s->machine, "metric",
			    s->metric,	 "mode",       s->mode,	  "tasks",    tasks,
			    "by",	 s->by,	       NULL};

	int current = 0;

	snprintf(tasks, sizeof(tasks), "%u", s->tasks);
	for (size_t i = 0; kv[i]; i += 2)
		if (!strcmp(kv[i], name)) {
			current = kv[i + 1] && !strcmp(kv[i + 1], value);
			kv[i + 1] = value;
		}
	fl_buf_adds(&p, "/tree/");
	fl_html_url_component(&p, tp->tree.name);
	path = p.ptr;
	fl_web_url(&url, path, kv);
	fl_html_addf(out, " <a href='%s'%S>%s</a>", url.ptr, current ? " class='current'" : "",
		     text);
	fl_buf_free(&url);
	fl_buf_free(&p);
}

static void choices(fl_buf *out, const struct tree_page *tp, const struct fl_config *cfg)
{
	const struct fl_model_series *s = &tp->s;
	char n[16];

	fl_buf_adds(out, "<nav class='choices'>\n<p>metric:");
	for (size_t i = 0; i < s->nmetrics; i++)
		link_with(out, tp, "metric", s->metrics[i], s->metrics[i]);
	fl_buf_adds(out, "</p>\n<p>mode:");
	for (size_t i = 0; i < s->nmodes; i++)
		link_with(out, tp, "mode", s->modes[i], *s->modes[i] ? s->modes[i] : "(none)");
	fl_buf_adds(out, "</p>\n<p>tasks:");
	for (size_t i = 0; i < s->ntasks; i++) {
		snprintf(n, sizeof(n), "%u", s->tasks_list[i]);
		link_with(out, tp, "tasks", n, n);
	}
	fl_buf_adds(out, "</p>\n<p>positions:");
	link_with(out, tp, "by", "tag", "by tag");
	link_with(out, tp, "by", "commit", "by commit");
	fl_buf_adds(out, "</p>\n");
	if (cfg && cfg->nbenchmarks) {
		fl_buf_adds(out, "<p>benchmark:");
		for (size_t i = 0; i < cfg->nbenchmarks; i++)
			link_with(out, tp, "benchmark", cfg->benchmarks[i].name,
				  cfg->benchmarks[i].name);
		fl_buf_adds(out, "</p>\n");
	}
	if (cfg && cfg->nmachines) {
		fl_buf_adds(out, "<p>machine:");
		for (size_t i = 0; i < cfg->nmachines; i++)
			link_with(out, tp, "machine", cfg->machines[i].name, cfg->machines[i].name);
		fl_buf_adds(out, "</p>\n");
	}
	fl_buf_adds(out, "</nav>\n");
}

/* after against before in percent, plainly signed (stats.h signs it so positive is worse) */
static double plain_change(const struct fl_change_point *c)
{
	return c->before ? 100 * (c->after - c->before) / fabs(c->before) : NAN;
}

static void change_points_table(fl_buf *out, const struct fl_model_series *s)
{
	if (!s->ncps) {
		fl_buf_adds(out, "<p class='empty'>No change point on this page.</p>\n");
		return;
	}
	fl_buf_adds(out, "<table class='change-points'>\n<thead><tr><th>first one after</th>"
			 "<th>before</th><th>after</th><th>change</th><th>p</th></tr></thead>\n"
			 "<tbody>\n");
	for (size_t i = 0; i < s->ncps; i++) {
		const struct fl_change_point *c = &s->cps[i];

		fl_buf_adds(out, "<tr><td class='commit'>");
		position_html(out, &s->pts[c->index]);
		fl_buf_adds(out, "</td><td class='num'>");
		fl_web_num(out, c->before);
		fl_buf_adds(out, "</td><td class='num'>");
		fl_web_num(out, c->after);
		fl_html_addf(
		    out,
		    "</td><td class='num change %s'>%.1f%%</td><td class='num'>%.3f</td></tr>\n",
		    fl_class_word(c->change_pct > 0 ? FL_CMP_REGRESSION : FL_CMP_IMPROVEMENT),
		    plain_change(c), c->p);
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

static void points_table(fl_buf *out, const struct tree_page *tp)
{
	const struct fl_model_series *s = &tp->s;

	fl_html_addf(out, "<table class='points'>\n<thead><tr><th>%s</th><th>time</th>", s->by);
	fl_buf_adds(out, "<th>runs</th><th>median</th><th></th></tr></thead>\n<tbody>\n");
	for (size_t i = s->n; i-- > 0;) {
		const struct fl_model_position *pt = &s->pts[i];

		fl_buf_adds(out, "<tr><td class='commit'>");
		position_html(out, pt);
		fl_buf_adds(out, "</td><td class='time'>");
		fl_web_time(out, pt->commit.time);
		fl_html_addf(out, "</td><td class='num'>%zu</td><td class='num'>", pt->n);
		fl_web_num(out, median_of(pt));
		fl_buf_adds(out, "</td><td>");
		if (i) {
			fl_buf url = FL_BUF_INIT;

			fl_web_compare_url(&url, tp->tree.name, position_rev(&s->pts[i - 1]),
					   position_rev(pt), s->benchmark, s->machine);
			fl_html_addf(out, "<a href='%s'>compare with previous</a>", url.ptr);
			fl_buf_free(&url);
		}
		fl_buf_adds(out, "</td></tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

/* The tree's newest tags and how each compared with its baseline. */
static void tags_html(fl_buf *out, const struct fl_view_tree *t)
{
	if (!t->ntags)
		return;
	fl_buf_adds(out, "<h2>Tested tags and heads</h2>\n<table class='tags'>\n<thead><tr><th>tag "
			 "or head</th>"
			 "<th>commit</th><th>baseline</th><th>verdicts</th></tr></thead>\n"
			 "<tbody>\n");
	for (size_t i = 0; i < t->ntags; i++) {
		const struct fl_view_tag *tag = &t->tags[i];

		fl_html_addf(out, "<tr><td class='tag'>%s</td><td>", tag->name);
		fl_web_commit_html(out, tag->commit.sha, tag->commit.subject);
		fl_html_addf(out, "</td><td>%s", tag->baseline ? tag->baseline : tag->state);
		if (tag->note)
			fl_html_addf(out, " <small class='note'>%s</small>", tag->note);
		fl_buf_adds(out, "</td><td>");
		for (size_t k = 0; k < tag->nverdicts; k++) {
			const struct fl_view_verdict *v = &tag->verdicts[k];
			const char *word = fl_verdict_word(v->state, v->result);

			fl_html_addf(out, "%S<span class='verdict verdict-%s'>%s on %s: %s</span>",
				     k ? "; " : "", word, v->benchmark, v->machine, word);
			if (isfinite(v->change))
				fl_buf_addf(out, " %+.1f%%", v->change);
		}
		fl_buf_adds(out, "</td></tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

static void tree_html(fl_buf *out, fl_pool *p, const struct tree_page *tp,
		      const struct fl_config *cfg)
{
	const struct fl_model_series *s = &tp->s;
	fl_buf base = FL_BUF_INIT, path = FL_BUF_INIT;
	char tasks[16];

	fl_html_addf(out, "<h1>Tree %s</h1>\n<p><code>%s</code></p>\n", tp->tree.name,
		     tp->tree.url);
	if (!s->benchmark) {
		fl_html_addf(out,
			     "<p class='empty'>Nothing measured on this tree yet (benchmark %s, "
			     "machine %s).</p>\n",
			     tp->q.benchmark ? tp->q.benchmark : "any",
			     tp->q.machine ? tp->q.machine : "any");
		tags_html(out, &tp->tree);
		return;
	}
	choices(out, tp, cfg);
	if (!s->n) {
		fl_html_addf(out, "<p class='empty'>No runs of %s on %s with %s %s %u here.</p>\n",
			     s->benchmark, s->machine, s->metric, s->mode, s->tasks);
	} else {
		series_plot(out, p, tp);
		fl_buf_adds(out, "<h2>Change points</h2>\n");
		change_points_table(out, s);
		fl_html_addf(out, "<h2>%s</h2>\n", strcmp(s->by, "tag") ? "Commits" : "Tags");
		points_table(out, tp);
	}
	snprintf(tasks, sizeof(tasks), "%u", s->tasks);
	fl_buf_adds(&path, "/tree/");
	fl_html_url_component(&path, tp->tree.name);
	fl_web_url(&base, path.ptr,
		   (const char *const[]){"benchmark", s->benchmark, "machine", s->machine, "metric",
					 s->metric, "mode", s->mode, "tasks", tasks, "by", s->by,
					 NULL});
	fl_web_pager(out, base.ptr, tp->q.page, s->more);
	fl_buf_free(&base);
	fl_buf_free(&path);
	tags_html(out, &tp->tree);
}

static json_t *tree_json(const struct tree_page *tp)
{
	const struct fl_model_series *s = &tp->s;
	json_t *pts = json_array(), *cps = json_array(), *o;

	for (size_t i = 0; i < s->n; i++) {
		json_t *v = json_array();

		for (size_t k = 0; k < s->pts[i].n; k++)
			json_array_append_new(v, fl_web_json_num(s->pts[i].v[k]));
		json_array_append_new(
		    pts, json_pack("{s:o, s:o, s:o, s:o}", "tag", fl_web_json_str(s->pts[i].tag),
				   "commit", fl_ui_commit_json(&s->pts[i].commit), "runs", v,
				   "median", fl_web_json_num(median_of(&s->pts[i]))));
	}
	for (size_t i = 0; i < s->ncps; i++)
		json_array_append_new(
		    cps, json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:b, s:o}", "index",
				   (json_int_t)s->cps[i].index, "tag",
				   fl_web_json_str(s->pts[s->cps[i].index].tag), "commit",
				   fl_web_json_str(s->pts[s->cps[i].index].commit.sha), "before",
				   fl_web_json_num(s->cps[i].before), "after",
				   fl_web_json_num(s->cps[i].after), "change_pct",
				   fl_web_json_num(plain_change(&s->cps[i])), "worse",
				   s->cps[i].change_pct > 0, "p", fl_web_json_num(s->cps[i].p)));
	o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:o, s:o}", "tree",
		      fl_web_json_str(tp->tree.name), "by", fl_web_json_str(s->by), "benchmark",
		      fl_web_json_str(s->benchmark), "machine", fl_web_json_str(s->machine),
		      "metric", fl_web_json_str(s->metric), "mode", fl_web_json_str(s->mode),
		      "tasks", (int)s->tasks, "points", pts, "change_points", cps, "tags",
		      fl_ui_tags_json(tp->tree.tags, tp->tree.ntags));
	fl_ui_json_page(o, tp->q.page, s->more);
	return o;
}

void fl_ui_tree(struct fl_web_req *req, struct fl_web_resp *resp)
{
	struct tree_page tp = {0};
	struct fl_model_series_req *q = &tp.q;
	fl_buf b = FL_BUF_INIT;
	char title[128];
	int r;

	q->tree = req->rest;
	if (!*q->tree || strlen(q->tree) > 100) {
		fl_web_fail(req, resp, 400, "bad tree name '%.100s'", q->tree);
		return;
	}
	if (fl_web_page_arg(req, resp, &q->page) ||
	    fl_web_name_arg(req, resp, "benchmark", &q->benchmark) ||
	    fl_web_name_arg(req, resp, "machine", &q->machine) ||
	    fl_web_name_arg(req, resp, "metric", &q->metric) ||
	    fl_web_name_arg(req, resp, "mode", &q->mode) ||
	    fl_web_uint_arg(req, resp, "tasks", &q->tasks) ||
	    fl_web_name_arg(req, resp, "by", &q->by))
		return;
	if (q->by && strcmp(q->by, "tag") && strcmp(q->by, "commit")) {
		fl_web_fail(req, resp, 400, "bad by '%s': expected tag or commit", q->by);
		return;
	}
	/* "mode=" asks for the samples without a mode */
	if (!q->mode && fl_web_arg(req, "mode"))
		q->mode = "";
	q->per_page = PER_PAGE;
	q->dir = fl_web_direction(req->web, q->benchmark);
	if ((r = fl_model_tree_get(req->st, &req->pool, q->tree, TAGS, &tp.tree)) ||
	    (r = fl_model_series(req->st, &req->pool, q, &tp.s))) {
		fl_web_fail_error(req, resp, r);
		return;
	}
	if (req->json) {
		fl_web_send_json(resp, 200, tree_json(&tp));
		return;
	}
	tree_html(&b, &req->pool, &tp, req->web->cfg);
	snprintf(title, sizeof(title), "tree %s", tp.tree.name);
	fl_web_page(req, resp, title, &b);
	fl_buf_free(&b);
}
