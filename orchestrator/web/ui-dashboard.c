/*
 * web/ui-dashboard.c - "/": the trees and their newest commits, open
 * regressions, bisections in progress, runs in progress and the latest
 * runs. Phase 2 adds each tree's tags and the verdict of every benchmark
 * against its baseline once the service stores them.
 */
#include "ui.h"
#include "../html.h"

#define LATEST 5
#define ROWS   20

struct dashboard {
	struct fl_web_tree *trees;
	size_t ntrees;
	struct fl_web_regression *open;
	size_t nopen;
	struct fl_web_bisection *bisecting;
	size_t nbisecting;
	struct fl_web_run *active, *recent;
	size_t nactive, nrecent;
	int more_open, more_bisecting, more_active, more_recent;
};

static int load(struct fl_web_req *req, struct dashboard *d)
{
	struct fl_web_run_filter active = {.active = 1}, all = {0};
	struct fl_web_bisect_filter running = {.state = "running"};
	fl_pool *p = &req->pool;
	int r;

	if ((r = fl_web_trees(req->st, p, LATEST, &d->trees, &d->ntrees)) ||
	    (r = fl_web_regressions(req->st, p, "open", 1, ROWS, &d->open, &d->nopen,
				    &d->more_open)) ||
	    (r = fl_web_bisections(req->st, p, &running, 1, ROWS, &d->bisecting, &d->nbisecting,
				   &d->more_bisecting)) ||
	    (r = fl_web_runs(req->st, p, &active, 1, ROWS, &d->active, &d->nactive,
			     &d->more_active)) ||
	    (r = fl_web_runs(req->st, p, &all, 1, ROWS / 2, &d->recent, &d->nrecent,
			     &d->more_recent)))
		return r;
	return 0;
}

static json_t *trees_json(const struct dashboard *d)
{
	json_t *a = json_array();

	for (size_t i = 0; i < d->ntrees; i++) {
		json_t *latest = json_array();

		for (size_t j = 0; j < d->trees[i].nlatest; j++)
			json_array_append_new(latest, fl_ui_commit_json(&d->trees[i].latest[j]));
		json_array_append_new(
		    a, json_pack("{s:o, s:o, s:o}", "name", fl_web_json_str(d->trees[i].name),
				 "url", fl_web_json_str(d->trees[i].url), "latest", latest));
	}
	return a;
}

static void trees_html(fl_buf *out, const struct dashboard *d)
{
	fl_buf_adds(out, "<section class='trees'>\n<h2>Trees</h2>\n");
	if (!d->ntrees)
		fl_buf_adds(out, "<p class='empty'>No trees yet.</p>\n");
	for (size_t i = 0; i < d->ntrees; i++) {
		const struct fl_web_tree *t = &d->trees[i];
		fl_buf url = FL_BUF_INIT;

		fl_buf_adds(&url, "/tree/");
		fl_html_url_component(&url, t->name);
		fl_html_addf(
		    out, "<h3><a href='%s'>%s</a> <small>%s</small></h3>\n<ul class='commits'>\n",
		    url.ptr, t->name, t->url);
		for (size_t j = 0; j < t->nlatest; j++) {
			fl_buf_adds(out, "<li>");
			fl_web_commit_html(out, t->latest[j].sha, t->latest[j].subject);
			fl_buf_adds(out, " <span class='time'>");
			fl_web_time(out, t->latest[j].time);
			fl_buf_adds(out, "</span></li>\n");
		}
		fl_buf_adds(out, "</ul>\n");
		fl_buf_free(&url);
	}
	fl_buf_adds(out, "</section>\n");
}

static void more_link(fl_buf *out, int more, const char *href, const char *text)
{
	if (more)
		fl_html_addf(out, "<p class='more'><a href='%s'>%s</a></p>\n", href, text);
}

void fl_ui_dashboard(struct fl_web_req *req, struct fl_web_resp *resp)
{
	struct dashboard d = {0};
	fl_buf b = FL_BUF_INIT;
	int r;

	if ((r = load(req, &d))) {
		fl_web_fail_error(req, resp, r);
		return;
	}
	if (req->json) {
		fl_web_send_json(resp, 200,
				 json_pack("{s:o, s:o, s:o, s:o, s:o}", "trees", trees_json(&d),
					   "open_regressions",
					   fl_ui_regressions_json(d.open, d.nopen),
					   "running_bisections",
					   fl_ui_bisections_json(d.bisecting, d.nbisecting),
					   "active_runs", fl_ui_runs_json(d.active, d.nactive),
					   "recent_runs", fl_ui_runs_json(d.recent, d.nrecent)));
		return;
	}
	fl_buf_adds(&b, "<h1>faultline</h1>\n");
	trees_html(&b, &d);
	fl_buf_adds(&b, "<section>\n<h2>Open regressions</h2>\n");
	fl_ui_regressions_table(&b, d.open, d.nopen);
	more_link(&b, d.more_open, "/regressions?state=open", "all open regressions");
	fl_buf_adds(&b, "</section>\n<section>\n<h2>Bisections in progress</h2>\n");
	fl_ui_bisections_table(&b, d.bisecting, d.nbisecting);
	more_link(&b, d.more_bisecting, "/bisections?state=running", "all running bisections");
	fl_buf_adds(&b, "</section>\n<section>\n<h2>Runs in progress</h2>\n");
	fl_ui_runs_table(&b, d.active, d.nactive);
	more_link(&b, d.more_active, "/runs?status=running", "all running runs");
	fl_buf_adds(&b, "</section>\n<section>\n<h2>Latest runs</h2>\n");
	fl_ui_runs_table(&b, d.recent, d.nrecent);
	more_link(&b, d.more_recent, "/runs?page=2", "older runs");
	fl_buf_adds(&b, "</section>\n");
	fl_web_page(req, resp, "dashboard", &b);
	fl_buf_free(&b);
}
