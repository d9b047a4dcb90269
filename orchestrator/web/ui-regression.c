/*
 * web/ui-regression.c - /regression/<id>: what was detected (tree, the
 * tags compared, good and bad commits, benchmark, metric, change), the
 * comparison that detected it (every point of the compare job's rows) and
 * the runs it was made of, its bisections, the revert check, the fixes
 * tried for it (faultline try, /try/<id>), its life cycle (the state, who
 * set it and when, the fix and the range it was fixed in, the regression it
 * duplicates: service/triage.h), and every
 * report about it as it was mailed with its delivery state (sent, or
 * pending with the failed attempts and the last error). /report/<id>
 * shows one report, also one that belongs to no regression.
 */
#include "web/ui.h"
#include "lib/error.h"
#include "lib/html.h"
#include "service/pipeline.h"
#include "store/triage.h"
#include "store/try.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define RUNS 50

struct regression_page {
	struct fl_view_regression g;
	struct fl_regression_item life;
	struct fl_view_bisection *bs;
	struct fl_view_report *reports;
	size_t nbs, nreports;
	struct fl_view_comparison *rows;
	size_t nrows;
	struct fl_view_run *runs;
	size_t nruns;
	int more_runs, has_revert;
	struct fl_view_revert revert;
	int64_t *tries;
	size_t ntries;
};

static void regression_html(fl_buf *out, const struct regression_page *rp)
{
	const struct fl_view_regression *g = &rp->g;
	fl_buf v = FL_BUF_INIT;

	fl_html_addf(out, "<h1>Regression %lld: %.1f%% %s.%s.%s</h1>\n<dl class='facts'>\n",
		     (long long)g->id, g->change, g->benchmark, g->mode, g->metric);
	fl_html_addf(&v, "%s", g->tree);
	fl_ui_dl_row(out, "tree", v.ptr);
	fl_buf_reset(&v);
	if (g->tag) {
		fl_html_addf(&v, "%s against its baseline %s", g->tag,
			     g->baseline ? g->baseline : "-");
		fl_ui_dl_row(out, "tags", v.ptr);
		fl_buf_reset(&v);
	}
	fl_web_commit_html(&v, g->good.sha, g->good.subject);
	fl_ui_dl_row(out, "good", v.ptr);
	fl_buf_reset(&v);
	fl_web_commit_html(&v, g->bad.sha, g->bad.subject);
	fl_ui_dl_row(out, "bad", v.ptr);
	fl_buf_reset(&v);
	if (*g->mode)
		fl_html_addf(&v, "%s on %s, %s, %u task%s, metric %s", g->benchmark, g->machine,
			     g->mode, g->tasks, g->tasks == 1 ? "" : "s", g->metric);
	else /* a command's numbers: no mode, no task count */
		fl_html_addf(&v, "%s on %s, metric %s", g->benchmark, g->machine, g->metric);
	fl_ui_dl_row(out, "measured", v.ptr);
	fl_buf_reset(&v);
	fl_ui_headline(&v, g);
	if (!isnan(g->p_value))
		fl_html_addf(&v, " (p = %.4f)", g->p_value);
	fl_html_addf(&v, "<br><small>the headline: what the comparison that found it measured%S; "
			 "the bisection's culprit against its parent is another comparison, on other "
			 "runs</small>",
		     g->job_id ? ", on the runs below" : "");
	fl_ui_dl_row(out, "change", v.ptr);
	fl_buf_reset(&v);
	fl_html_addf(&v, "<span class='status status-%s'>%s</span>", g->state, g->state);
	if (rp->life.fixed_by)
		fl_html_addf(&v, " by %s", rp->life.fixed_by);
	if (rp->life.fix_range)
		fl_html_addf(&v, " (fixed in %s)", rp->life.fix_range);
	if (rp->life.dup_of)
		fl_html_addf(&v, " of <a href='/regression/%lld'>regression %lld</a>",
			     (long long)rp->life.dup_of, (long long)rp->life.dup_of);
	if (rp->life.state_by) {
		fl_html_addf(&v, "; set by %s, ", rp->life.state_by);
		fl_web_time(&v, rp->life.state_at);
	}
	if (rp->life.note)
		fl_html_addf(&v, ": %s", rp->life.note);
	fl_ui_dl_row(out, "state", v.ptr);
	fl_buf_reset(&v);
	fl_web_time(&v, g->created);
	fl_ui_dl_row(out, "found", v.ptr);
	fl_buf_reset(&v);
	fl_web_compare_url(&v, g->tree, fl_web_link_rev(g->baseline, g->good.sha),
			   fl_web_link_rev(g->tag, g->bad.sha), g->benchmark, g->machine);
	fl_buf_adds(out, "</dl>\n");
	if (g->job_id)
		fl_html_addf(out,
			     "<p><a href='%s&amp;regression=%lld'>compare good and bad on the "
			     "comparison's runs</a> &middot; <a href='%s'>on every run of both</a>",
			     v.ptr, (long long)g->id, v.ptr);
	else
		fl_html_addf(out, "<p><a href='%s'>compare good and bad</a>", v.ptr);
	if (g->bisection_id)
		fl_html_addf(out, " &middot; <a href='/bisect/%lld'>the bisection</a>",
			     (long long)g->bisection_id);
	fl_buf_adds(out, "</p>\n");
	fl_buf_free(&v);
	if (g->job_id) {
		fl_html_addf(out,
			     "<h2>The comparison that found it</h2>\n<p>Compare job %lld, "
			     "every point measured:</p>\n",
			     (long long)g->job_id);
		fl_ui_comparisons_table(out, rp->rows, rp->nrows, "tag");
		fl_buf_adds(out, "<h3>Its runs</h3>\n");
		fl_ui_runs_table(out, rp->runs, rp->nruns);
		if (rp->more_runs)
			fl_html_addf(out, "<p class='more'>The newest %u are shown.</p>\n", RUNS);
	}
	fl_buf_adds(out, "<h2>Bisections</h2>\n");
	fl_ui_bisections_table(out, rp->bs, rp->nbs);
	fl_buf_adds(out, "<h2>Revert check</h2>\n");
	if (rp->has_revert)
		fl_ui_revert_html(out, &rp->revert);
	else
		fl_buf_adds(out, "<p class='empty'>No revert check yet.</p>\n");
	fl_buf_adds(out, "<h2>Fixes tried</h2>\n");
	if (!rp->ntries)
		fl_buf_adds(out, "<p class='empty'>None yet (faultline try --regression ID).</p>\n");
	else
		fl_buf_adds(out, "<ul class='tries'>\n");
	for (size_t i = 0; i < rp->ntries; i++)
		fl_html_addf(out, "<li><a href='/try/%lld'>try %lld</a></li>\n",
			     (long long)rp->tries[i], (long long)rp->tries[i]);
	if (rp->ntries)
		fl_buf_adds(out, "</ul>\n");
	fl_buf_adds(out, "<h2>Reports</h2>\n");
	if (!rp->nreports)
		fl_buf_adds(out, "<p class='empty'>No report yet.</p>\n");
	for (size_t i = 0; i < rp->nreports; i++)
		fl_ui_report_html(out, &rp->reports[i]);
}

static int load(struct fl_web_req *req, int64_t id, const struct fl_view_bisect_filter *f,
		struct regression_page *rp)
{
	fl_pool *p = &req->pool;
	int more, r;

	if ((r = fl_view_regression_get(req->st, p, id, &rp->g)) ||
	    (r = fl_view_bisections(req->st, p, f, 1, 100, &rp->bs, &rp->nbs, &more)) ||
	    (r = fl_view_reports_of(req->st, p, id, &rp->reports, &rp->nreports)))
		return r;
	if (rp->g.job_id &&
	    ((r = fl_view_comparisons(req->st, p, rp->g.job_id, &rp->rows, &rp->nrows)) ||
	     (r = fl_view_job_runs(req->st, p, rp->g.job_id, 1, RUNS, &rp->runs, &rp->nruns,
				   &rp->more_runs))))
		return r;
	if ((r = fl_store_tries_of(req->st, id, &rp->tries, &rp->ntries)) ||
	    (r = fl_store_regression_item(req->st, id, &rp->life)))
		return r;
	r = fl_view_revert_get(req->st, p, id, fl_job_kind_name(FL_JOB_REVERT), &rp->revert);
	rp->has_revert = !r;
	return r == FL_ENOTFOUND ? 0 : r;
}

void fl_ui_regression(struct fl_web_req *req, struct fl_web_resp *resp)
{
	struct regression_page rp = {0};
	struct fl_view_bisect_filter f = {0};
	fl_buf b = FL_BUF_INIT;
	char title[48];
	int r;
	int64_t id;

	if (fl_web_id(req, resp, req->rest, &id))
		return;
	f.regression_id = id;
	if ((r = load(req, id, &f, &rp))) {
		free(rp.tries);
		fl_regression_item_release(&rp.life);
		fl_web_fail_error(req, resp, r);
		return;
	}
	if (req->json) {
		json_t *o = fl_ui_regression_json(&rp.g), *reports = json_array();

		for (size_t i = 0; i < rp.nreports; i++)
			json_array_append_new(reports, fl_ui_report_json(&rp.reports[i]));
		json_object_set_new(o, "comparison", fl_ui_comparisons_json(rp.rows, rp.nrows));
		json_object_set_new(o, "runs", fl_ui_runs_json(rp.runs, rp.nruns));
		json_object_set_new(o, "bisections", fl_ui_bisections_json(rp.bs, rp.nbs));
		json_object_set_new(o, "revert",
				    rp.has_revert ? fl_ui_revert_json(&rp.revert) : json_null());
		json_object_set_new(o, "reports", reports);
		json_object_set_new(
		    o, "life",
		    json_pack("{s:s?,s:I,s:s?,s:s?,s:I,s:s?}", "state_by", rp.life.state_by,
			      "state_at", (json_int_t)rp.life.state_at, "fixed_by",
			      rp.life.fixed_by, "fix_range", rp.life.fix_range, "duplicate_of",
			      (json_int_t)rp.life.dup_of, "note", rp.life.note));
		json_object_set_new(o, "tries", json_array());
		for (size_t i = 0; i < rp.ntries; i++)
			json_array_append_new(json_object_get(o, "tries"),
					      json_integer(rp.tries[i]));
		fl_web_send_json(resp, 200, o);
		free(rp.tries);
		fl_regression_item_release(&rp.life);
		return;
	}
	regression_html(&b, &rp);
	free(rp.tries);
	fl_regression_item_release(&rp.life);
	snprintf(title, sizeof(title), "regression %lld", (long long)id);
	fl_web_page(req, resp, title, &b);
	fl_buf_free(&b);
}

void fl_ui_report(struct fl_web_req *req, struct fl_web_resp *resp)
{
	struct fl_view_report rep;
	fl_buf b = FL_BUF_INIT;
	char title[48];
	int64_t id;
	int r;

	if (fl_web_id(req, resp, req->rest, &id))
		return;
	if ((r = fl_view_report_get(req->st, &req->pool, id, &rep))) {
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
