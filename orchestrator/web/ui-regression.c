/*
 * web/ui-regression.c - /regression/<id>: what was detected (tree, good
 * and bad commits, benchmark, metric, change), its bisections, and every
 * report about it as it was mailed with its delivery state (sent, or
 * pending with the failed attempts and the last error). /report/<id>
 * shows one report, also one that belongs to no regression.
 */
#include "ui.h"
#include "../html.h"

#include <math.h>
#include <stdio.h>

struct regression_page {
	struct fl_web_regression g;
	struct fl_web_bisection *bs;
	struct fl_web_report *reports;
	size_t nbs, nreports;
};

static void regression_html(fl_buf *out, const struct regression_page *rp)
{
	const struct fl_web_regression *g = &rp->g;
	fl_buf v = FL_BUF_INIT;

	fl_html_addf(out, "<h1>Regression %lld: %.1f%% %s.%s.%s</h1>\n<dl class='facts'>\n",
		     (long long)g->id, g->change, g->benchmark, g->mode, g->metric);
	fl_html_addf(&v, "%s", g->tree);
	fl_ui_dl_row(out, "tree", v.ptr);
	fl_buf_reset(&v);
	fl_web_commit_html(&v, g->good.sha, g->good.subject);
	fl_ui_dl_row(out, "good", v.ptr);
	fl_buf_reset(&v);
	fl_web_commit_html(&v, g->bad.sha, g->bad.subject);
	fl_ui_dl_row(out, "bad", v.ptr);
	fl_buf_reset(&v);
	fl_html_addf(&v, "%s on %s, %s, %u tasks, metric %s", g->benchmark, g->machine, g->mode,
		     g->tasks, g->metric);
	fl_ui_dl_row(out, "measured", v.ptr);
	fl_buf_reset(&v);
	fl_html_addf(&v, "%.2f%%", g->change);
	if (!isnan(g->p_value))
		fl_html_addf(&v, " (p = %.4f)", g->p_value);
	fl_ui_dl_row(out, "change", v.ptr);
	fl_buf_reset(&v);
	fl_html_addf(&v, "%s", g->state);
	fl_ui_dl_row(out, "state", v.ptr);
	fl_buf_reset(&v);
	fl_web_time(&v, g->created);
	fl_ui_dl_row(out, "found", v.ptr);
	fl_buf_reset(&v);
	fl_web_url(&v, "/compare",
		   (const char *const[]){"a", g->good.sha, "b", g->bad.sha, "benchmark",
					 g->benchmark, "machine", g->machine, NULL});
	fl_buf_adds(out, "</dl>\n");
	fl_html_addf(out, "<p><a href='%s'>compare good and bad</a></p>\n", v.ptr);
	fl_buf_free(&v);
	fl_buf_adds(out, "<h2>Bisections</h2>\n");
	fl_ui_bisections_table(out, rp->bs, rp->nbs);
	fl_buf_adds(out, "<h2>Reports</h2>\n");
	if (!rp->nreports)
		fl_buf_adds(out, "<p class='empty'>No report yet.</p>\n");
	for (size_t i = 0; i < rp->nreports; i++)
		fl_ui_report_html(out, &rp->reports[i]);
}

void fl_ui_regression(struct fl_web_req *req, struct fl_web_resp *resp)
{
	struct regression_page rp = {0};
	struct fl_web_bisect_filter f = {0};
	fl_buf b = FL_BUF_INIT;
	char title[48];
	int more, r;
	int64_t id;

	if (fl_web_id(req, resp, req->rest, &id))
		return;
	f.regression_id = id;
	if ((r = fl_web_regression_get(req->st, &req->pool, id, &rp.g)) ||
	    (r = fl_web_bisections(req->st, &req->pool, &f, 1, 100, &rp.bs, &rp.nbs, &more)) ||
	    (r = fl_web_reports_of(req->st, &req->pool, id, &rp.reports, &rp.nreports))) {
		fl_web_fail_error(req, resp, r);
		return;
	}
	if (req->json) {
		json_t *o = fl_ui_regression_json(&rp.g), *reports = json_array();

		for (size_t i = 0; i < rp.nreports; i++)
			json_array_append_new(reports, fl_ui_report_json(&rp.reports[i]));
		json_object_set_new(o, "bisections", fl_ui_bisections_json(rp.bs, rp.nbs));
		json_object_set_new(o, "reports", reports);
		fl_web_send_json(resp, 200, o);
		return;
	}
	regression_html(&b, &rp);
	snprintf(title, sizeof(title), "regression %lld", (long long)id);
	fl_web_page(req, resp, title, &b);
	fl_buf_free(&b);
}

void fl_ui_report(struct fl_web_req *req, struct fl_web_resp *resp)
{
	struct fl_web_report rep;
	fl_buf b = FL_BUF_INIT;
	char title[48];
	int64_t id;
	int r;

	if (fl_web_id(req, resp, req->rest, &id))
		return;
	if ((r = fl_web_report_get(req->st, &req->pool, id, &rep))) {
		fl_web_fail_error(req, resp, r);
		return;
	}
	if (req->json) {
		fl_web_send_json(resp, 200, fl_ui_report_json(&rep));
		return;
	}
	if (rep.regression_id)
		fl_html_addf(&b, "<p>About <a href='/regression/%lld'>regression %lld</a>.</p>\n",
			     (long long)rep.regression_id, (long long)rep.regression_id);
	fl_ui_report_html(&b, &rep);
	snprintf(title, sizeof(title), "report %lld", (long long)id);
	fl_web_page(req, resp, title, &b);
	fl_buf_free(&b);
}
