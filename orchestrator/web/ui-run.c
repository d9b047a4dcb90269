/*
 * web/ui-run.c - /run/<id>: a run's parameters, kernel, machine, status,
 * samples (a plot per metric and a paginated table) and its console log
 * (the last CONSOLE_TAIL characters, escaped; /run/<id>/console is the
 * whole log as text/plain), and its evidence per measured point: the
 * vmstat rates of the window and the profile's top functions. Phase 2: the
 * run's environment record (nodes, CPUs, kernel release) and timings from
 * the runs facts.
 */
#include "ui.h"
#include "../html.h"
#include "../svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONSOLE_TAIL  65536
#define PER_PAGE      100
#define TOP_FUNCTIONS 15

struct run_page {
	struct fl_web_run_detail d;
	struct fl_web_point *pts;
	size_t npts;
	struct fl_web_sample *samples;
	size_t nsamples;
	struct fl_evidence_point *ev; /* per measured point */
	size_t nev;
	int more;
	unsigned page;
	const char *metric; /* the plotted one */
};

static void console_text(struct fl_web_req *req, struct fl_web_resp *resp, int64_t id)
{
	const char *console;
	size_t len;
	int r;

	if ((r = fl_web_run_console(req->st, &req->pool, id, &console, &len))) {
		fl_web_fail_error(req, resp, r);
		return;
	}
	if (req->json) {
		fl_web_send_json(resp, 200,
				 json_pack("{s:I, s:o}", "run", (json_int_t)id, "console",
					   fl_web_json_str(console)));
		return;
	}
	/* Served as plain text (and nosniff): the browser shows it, never runs it. */
	fl_buf_reset(&resp->body);
	if (console)
		fl_buf_add(&resp->body, console, len);
	resp->status = 200;
	resp->type = "text/plain; charset=utf-8";
}

/* A JSON object's members as a table; anything else as preformatted text. */
static void json_table(fl_buf *out, const char *text)
{
	json_t *j = text ? json_loads(text, 0, NULL) : NULL;
	const char *key;
	json_t *v;

	if (!json_is_object(j)) {
		fl_html_addf(out, "<pre>%s</pre>\n", text ? text : "-");
		json_decref(j);
		return;
	}
	fl_buf_adds(out, "<table class='params'>\n");
	json_object_foreach(j, key, v)
	{
		char *s = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

		fl_html_addf(out, "<tr><th>%s</th><td>%s</td></tr>\n", key,
			     s ? s : json_string_value(v));
		free(s);
	}
	fl_buf_adds(out, "</table>\n");
	json_decref(j);
}

/* One plot of the chosen metric: a series per mode, task count on x, spread as error bars. */
static void points_plot(fl_buf *out, fl_pool *p, const struct run_page *rp)
{
	struct fl_svg_series *s = fl_pool_alloc(p, (rp->npts + 1) * sizeof(*s));
	struct fl_svg_plot plot = {.title = rp->metric, .xlabel = "tasks", .ylabel = rp->metric};
	size_t ns = 0;

	for (size_t i = 0, j; i < rp->npts; i = j) {
		double *x, *y, *e;
		size_t k = 0;

		for (j = i; j < rp->npts && !strcmp(rp->pts[j].metric, rp->pts[i].metric) &&
			    !strcmp(rp->pts[j].mode, rp->pts[i].mode);
		     j++)
			;
		if (strcmp(rp->pts[i].metric, rp->metric))
			continue;
		x = fl_pool_alloc(p, (j - i) * sizeof(double));
		y = fl_pool_alloc(p, (j - i) * sizeof(double));
		e = fl_pool_alloc(p, (j - i) * sizeof(double));
		for (size_t m = i; m < j; m++, k++) {
			x[k] = rp->pts[m].tasks;
			y[k] = rp->pts[m].mean;
			e[k] = rp->pts[m].sd;
		}
		s[ns++] = (struct fl_svg_series){*rp->pts[i].mode ? rp->pts[i].mode : rp->metric, x,
						 y, e, k};
	}
	if (!ns)
		return;
	plot.series = s;
	plot.nseries = ns;
	fl_buf_adds(out, "<figure class='plot samples'>");
	fl_svg_lines(out, &plot);
	fl_buf_adds(out, "</figure>\n");
}

static void points_table(fl_buf *out, const struct run_page *rp)
{
	fl_buf_adds(out, "<table class='points'>\n<thead><tr><th>metric</th><th>mode</th>"
			 "<th>tasks</th><th>samples</th><th>mean</th><th>%stddev</th></tr>"
			 "</thead>\n<tbody>\n");
	for (size_t i = 0; i < rp->npts; i++) {
		const struct fl_web_point *pt = &rp->pts[i];

		fl_html_addf(out,
			     "<tr><td>%s</td><td>%s</td><td class='num'>%u</td>"
			     "<td class='num'>%zu</td><td class='num'>",
			     pt->metric, pt->mode, pt->tasks, pt->n);
		fl_web_num(out, pt->mean);
		fl_buf_adds(out, "</td><td class='num'>");
		fl_web_num(out, pt->mean ? 100 * pt->sd / fabs(pt->mean) : NAN);
		fl_buf_adds(out, "</td></tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

static void samples_table(fl_buf *out, const struct run_page *rp, int64_t id)
{
	char base[64];

	fl_buf_adds(out, "<table class='samples'>\n<thead><tr><th>metric</th><th>mode</th>"
			 "<th>tasks</th><th>seq</th><th>value</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < rp->nsamples; i++) {
		const struct fl_web_sample *x = &rp->samples[i];

		fl_html_addf(out,
			     "<tr><td>%s</td><td>%s</td><td class='num'>%u</td>"
			     "<td class='num'>%u</td><td class='num'>",
			     x->metric, x->mode, x->tasks, x->seq);
		fl_web_num(out, x->value);
		fl_buf_adds(out, "</td></tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
	snprintf(base, sizeof(base), "/run/%lld", (long long)id);
	fl_web_pager(out, base, rp->page, rp->more);
}

/* The counters that moved in the window, per second (gauges as they changed). */
static void vmstat_table(fl_buf *out, const struct fl_evidence_point *pt)
{
	fl_buf_adds(out, "<table class='vmstat'>\n<thead><tr><th>counter</th><th>change</th>"
			 "<th>per second</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < pt->nvm; i++) {
		const struct fl_vmstat_rate *v = &pt->vm[i];

		if (!v->delta)
			continue;
		fl_html_addf(out, "<tr><td>%s</td><td class='num'>%lld</td><td class='num'>",
			     v->name, (long long)v->delta);
		fl_web_num(out, fl_vmstat_counter(v->name) ? v->per_sec : NAN);
		fl_buf_adds(out, "</td></tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

static void profile_table(fl_buf *out, const struct fl_evidence_point *pt)
{
	if (!pt->nfn) {
		fl_html_addf(
		    out, "<p class='empty'>No profile: %s.</p>\n",
		    !pt->profile || !strcmp(pt->profile, "none")
			? "the kernel has no CONFIG_PROFILING or was booted without profile="
			: pt->profile);
		return;
	}
	fl_buf_adds(out, "<table class='profile'>\n<thead><tr><th>function</th><th>samples</th>"
			 "<th>share</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < pt->nfn; i++)
		fl_html_addf(out,
			     "<tr><td>%s</td><td class='num'>%lld</td><td class='num'>%.1f%%"
			     "</td></tr>\n",
			     pt->fn[i].name, (long long)pt->fn[i].samples, 100 * pt->fn[i].share);
	fl_buf_adds(out, "</tbody></table>\n");
}

static void evidence_html(fl_buf *out, const struct run_page *rp)
{
	fl_buf_adds(out, "<h2>Evidence</h2>\n");
	if (!rp->nev) {
		fl_buf_adds(out, "<p class='empty'>No vmstat or profile evidence for this "
				 "run.</p>\n");
		return;
	}
	for (size_t i = 0; i < rp->nev; i++) {
		const struct fl_evidence_point *pt = &rp->ev[i];

		fl_html_addf(out,
			     "<section class='evidence' data-mode='%s' data-tasks='%u'>\n"
			     "<h3>%s %s, %u task%s</h3>\n<p>",
			     pt->mode, pt->tasks, pt->test, pt->mode, pt->tasks,
			     pt->tasks == 1 ? "" : "s");
		if (pt->measured_s > 0)
			fl_html_addf(out, "A window of %.1f s. ", pt->measured_s);
		if (pt->profile_samples)
			fl_html_addf(out, "%lld profile samples, the top %zu functions:",
				     (long long)pt->profile_samples, pt->nfn);
		fl_buf_adds(out, "</p>\n");
		profile_table(out, pt);
		vmstat_table(out, pt);
		fl_buf_adds(out, "</section>\n");
	}
}

static void run_html(fl_buf *b, fl_pool *p, const struct run_page *rp)
{
	const struct fl_web_run *r = &rp->d.run;
	fl_buf v = FL_BUF_INIT;

	fl_html_addf(b, "<h1>Run %lld: %s on %s</h1>\n<dl class='facts'>\n", (long long)r->id,
		     r->benchmark, r->machine);
	fl_html_addf(&v, "<span class='status status-%s'>%s</span>", r->status, r->status);
	fl_ui_dl_row(b, "status", v.ptr);
	fl_buf_reset(&v);
	fl_web_commit_html(&v, r->commit.sha, r->commit.subject);
	if (r->commit.tree)
		fl_html_addf(&v, " (tree %s)", r->commit.tree);
	fl_ui_dl_row(b, "kernel", v.ptr);
	if (r->build_id) {
		fl_buf_reset(&v);
		fl_html_addf(&v, "%lld: %s, %s", (long long)r->build_id,
			     r->kernel ? r->kernel : "-", r->build_status ? r->build_status : "-");
		fl_ui_dl_row(b, "build", v.ptr);
	}
	fl_buf_reset(&v);
	fl_html_addf(&v, "%s (%s)", r->machine, rp->d.backend);
	fl_ui_dl_row(b, "machine", v.ptr);
	fl_buf_reset(&v);
	fl_web_time(&v, r->started);
	fl_ui_dl_row(b, "started", v.ptr);
	fl_buf_reset(&v);
	fl_web_time(&v, r->finished);
	fl_ui_dl_row(b, "finished", v.ptr);
	fl_buf_adds(b, "</dl>\n<h2>Parameters</h2>\n");
	json_table(b, r->params);
	if (rp->d.facts) {
		fl_buf_adds(b, "<h2>Machine</h2>\n");
		json_table(b, rp->d.facts);
	}
	fl_buf_adds(b, "<h2>Samples</h2>\n");
	if (!rp->npts) {
		fl_buf_adds(b, "<p class='empty'>No samples.</p>\n");
	} else {
		points_plot(b, p, rp);
		points_table(b, rp);
		samples_table(b, rp, r->id);
	}
	evidence_html(b, rp);
	fl_buf_adds(b, "<h2>Console</h2>\n");
	if (!rp->d.console) {
		fl_buf_adds(b, "<p class='empty'>No console log kept.</p>\n");
	} else {
		if (rp->d.console_len > CONSOLE_TAIL)
			fl_html_addf(b, "<p>The last %u of %zu characters; ", CONSOLE_TAIL,
				     rp->d.console_len);
		else
			fl_buf_adds(b, "<p>");
		fl_html_addf(b, "<a href='/run/%lld/console'>the whole log as text</a>.</p>\n",
			     (long long)r->id);
		fl_html_addf(b, "<pre class='console'>%s</pre>\n", rp->d.console);
	}
	fl_buf_free(&v);
}

static json_t *evidence_json(const struct run_page *rp)
{
	json_t *a = json_array();

	for (size_t i = 0; i < rp->nev; i++) {
		const struct fl_evidence_point *pt = &rp->ev[i];
		json_t *vm = json_object(), *fns = json_array();

		for (size_t k = 0; k < pt->nvm; k++)
			json_object_set_new(vm, pt->vm[k].name,
					    json_pack("{s:I, s:o}", "delta",
						      (json_int_t)pt->vm[k].delta, "per_sec",
						      fl_web_json_num(pt->vm[k].per_sec)));
		for (size_t k = 0; k < pt->nfn; k++)
			json_array_append_new(fns,
					      json_pack("{s:o, s:I, s:o}", "function",
							fl_web_json_str(pt->fn[k].name), "samples",
							(json_int_t)pt->fn[k].samples, "share",
							fl_web_json_num(pt->fn[k].share)));
		json_array_append_new(
		    a,
		    json_pack("{s:o, s:o, s:i, s:o, s:o, s:I, s:o, s:o}", "test",
			      fl_web_json_str(pt->test), "mode", fl_web_json_str(pt->mode), "tasks",
			      (int)pt->tasks, "measured_s", fl_web_json_num(pt->measured_s),
			      "profile", fl_web_json_str(pt->profile), "profile_samples",
			      (json_int_t)pt->profile_samples, "vmstat", vm, "functions", fns));
	}
	return a;
}

static json_t *run_json(const struct run_page *rp)
{
	json_t *o = fl_ui_run_json(&rp->d.run), *pts = json_array(), *xs = json_array();

	for (size_t i = 0; i < rp->npts; i++)
		json_array_append_new(pts, json_pack("{s:o, s:o, s:i, s:I, s:o, s:o}", "metric",
						     fl_web_json_str(rp->pts[i].metric), "mode",
						     fl_web_json_str(rp->pts[i].mode), "tasks",
						     (int)rp->pts[i].tasks, "n",
						     (json_int_t)rp->pts[i].n, "mean",
						     fl_web_json_num(rp->pts[i].mean), "stddev",
						     fl_web_json_num(rp->pts[i].sd)));
	for (size_t i = 0; i < rp->nsamples; i++)
		json_array_append_new(xs, json_pack("{s:o, s:o, s:i, s:i, s:o}", "metric",
						    fl_web_json_str(rp->samples[i].metric), "mode",
						    fl_web_json_str(rp->samples[i].mode), "tasks",
						    (int)rp->samples[i].tasks, "seq",
						    (int)rp->samples[i].seq, "value",
						    fl_web_json_num(rp->samples[i].value)));
	json_object_set_new(o, "backend", fl_web_json_str(rp->d.backend));
	json_object_set_new(o, "facts", fl_ui_json_text(rp->d.facts));
	json_object_set_new(o, "points", pts);
	json_object_set_new(o, "samples", xs);
	json_object_set_new(o, "evidence", evidence_json(rp));
	fl_ui_json_page(o, rp->page, rp->more);
	json_object_set_new(o, "console_length", json_integer((json_int_t)rp->d.console_len));
	json_object_set_new(o, "console_tail", fl_web_json_str(rp->d.console));
	return o;
}

void fl_ui_run(struct fl_web_req *req, struct fl_web_resp *resp)
{
	struct run_page rp = {0};
	const char *slash = strchr(req->rest, '/');
	char idtext[32];
	fl_buf b = FL_BUF_INIT;
	int64_t id;
	int r;

	snprintf(idtext, sizeof(idtext), "%.*s",
		 (int)(slash ? (size_t)(slash - req->rest) : strlen(req->rest)), req->rest);
	if (fl_web_id(req, resp, idtext, &id))
		return;
	if (slash) {
		if (strcmp(slash, "/console"))
			fl_web_fail(req, resp, 404, "no page at %s", req->path);
		else
			console_text(req, resp, id);
		return;
	}
	if (fl_web_page_arg(req, resp, &rp.page) ||
	    fl_web_name_arg(req, resp, "metric", &rp.metric))
		return;
	if ((r = fl_web_run_get(req->st, &req->pool, id, CONSOLE_TAIL, &rp.d)) ||
	    (r = fl_web_run_points(req->st, &req->pool, id, &rp.pts, &rp.npts)) ||
	    (r = fl_web_run_samples(req->st, &req->pool, id, rp.page, PER_PAGE, &rp.samples,
				    &rp.nsamples, &rp.more)) ||
	    (r = fl_web_run_evidence(req->st, &req->pool, id, TOP_FUNCTIONS, &rp.ev, &rp.nev))) {
		fl_web_fail_error(req, resp, r);
		return;
	}
	if (!rp.metric) {
		rp.metric = rp.npts ? rp.pts[0].metric : "ops_per_sec";
		for (size_t i = 0; i < rp.npts; i++)
			if (!strcmp(rp.pts[i].metric, "ops_per_sec"))
				rp.metric = "ops_per_sec";
	}
	if (req->json) {
		fl_web_send_json(resp, 200, run_json(&rp));
		return;
	}
	run_html(&b, &req->pool, &rp);
	snprintf(idtext, sizeof(idtext), "run %lld", (long long)id);
	fl_web_page(req, resp, idtext, &b);
	fl_buf_free(&b);
}
