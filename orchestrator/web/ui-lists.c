/*
 * web/ui-lists.c - the paginated lists: /runs, /bisections, /regressions,
 * /jobs (newest first, ?page=N, filters as query parameters).
 */
#include "web/ui.h"
#include "service/triage.h"
#include "lib/html.h"
#include "lib/error.h"
#include "service/pipeline.h"

#include <string.h>

#define PER_PAGE 50

void fl_ui_runs(struct fl_web_req *req, struct fl_web_resp *resp)
{
	struct fl_view_run_filter f = {0};
	struct fl_view_run *runs;
	fl_buf b = FL_BUF_INIT, url = FL_BUF_INIT;
	unsigned page;
	size_t n;
	int more, r;

	if (fl_web_page_arg(req, resp, &page) ||
	    fl_web_name_arg(req, resp, "benchmark", &f.benchmark) ||
	    fl_web_name_arg(req, resp, "machine", &f.machine) ||
	    fl_web_name_arg(req, resp, "status", &f.status))
		return;
	if ((r = fl_view_runs(req->st, &req->pool, &f, page, PER_PAGE, &runs, &n, &more))) {
		fl_web_fail_error(req, resp, r);
		return;
	}
	if (req->json) {
		json_t *o = json_pack("{s:o}", "runs", fl_ui_runs_json(runs, n));

		fl_ui_json_page(o, page, more);
		fl_web_send_json(resp, 200, o);
		return;
	}
	fl_web_url(&url, "/runs",
		   (const char *const[]){"benchmark", f.benchmark, "machine", f.machine, "status",
					 f.status, NULL});
	fl_buf_adds(&b, "<h1>Runs</h1>\n");
	if (f.benchmark || f.machine || f.status)
		fl_html_addf(&b, "<p class='filter'>benchmark %s, machine %s, status %s</p>\n",
			     f.benchmark ? f.benchmark : "any", f.machine ? f.machine : "any",
			     f.status ? f.status : "any");
	fl_ui_runs_table(&b, runs, n);
	fl_web_pager(&b, url.ptr, page, more);
	fl_web_page(req, resp, "runs", &b);
	fl_buf_free(&b);
	fl_buf_free(&url);
}

void fl_ui_bisections(struct fl_web_req *req, struct fl_web_resp *resp)
{
	struct fl_view_bisect_filter f = {0};
	struct fl_view_bisection *bs;
	fl_buf b = FL_BUF_INIT, url = FL_BUF_INIT;
	unsigned page;
	size_t n;
	int more, r;

	if (fl_web_page_arg(req, resp, &page) || fl_web_name_arg(req, resp, "state", &f.state))
		return;
	if ((r = fl_view_bisections(req->st, &req->pool, &f, page, PER_PAGE, &bs, &n, &more))) {
		fl_web_fail_error(req, resp, r);
		return;
	}
	if (req->json) {
		json_t *o = json_pack("{s:o}", "bisections", fl_ui_bisections_json(bs, n));

		fl_ui_json_page(o, page, more);
		fl_web_send_json(resp, 200, o);
		return;
	}
	fl_web_url(&url, "/bisections", (const char *const[]){"state", f.state, NULL});
	fl_buf_adds(&b, "<h1>Bisections</h1>\n");
	fl_ui_bisections_table(&b, bs, n);
	fl_web_pager(&b, url.ptr, page, more);
	fl_web_page(req, resp, "bisections", &b);
	fl_buf_free(&b);
	fl_buf_free(&url);
}

void fl_ui_regressions(struct fl_web_req *req, struct fl_web_resp *resp)
{
	static const char *const states[] = {NULL, FL_REG_OPEN, FL_REG_FIXED, FL_REG_INVALID,
					     FL_REG_DUPLICATE};
	struct fl_view_regression *g;
	fl_buf b = FL_BUF_INIT, url = FL_BUF_INIT;
	const char *state;
	unsigned page;
	size_t n;
	int more, r;

	if (fl_web_page_arg(req, resp, &page) || fl_web_name_arg(req, resp, "state", &state))
		return;
	if ((r = fl_view_regressions(req->st, &req->pool, state, page, PER_PAGE, &g, &n, &more))) {
		fl_web_fail_error(req, resp, r);
		return;
	}
	if (req->json) {
		json_t *o = json_pack("{s:o}", "regressions", fl_ui_regressions_json(g, n));

		fl_ui_json_page(o, page, more);
		fl_web_send_json(resp, 200, o);
		return;
	}
	fl_web_url(&url, "/regressions", (const char *const[]){"state", state, NULL});
	fl_buf_adds(&b, "<h1>Regressions</h1>\n<p class='filter'>state:");
	/* the life cycle's states (service/triage.h), the one shown in bold */
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		int on = states[i] ? state && !strcmp(state, states[i]) : !state;

		fl_html_addf(&b, " %S<a href='/regressions%s%s'>%s</a>%S", on ? "<strong>" : "",
			     states[i] ? "?state=" : "", states[i] ? states[i] : "",
			     states[i] ? states[i] : "any", on ? "</strong>" : "");
	}
	fl_buf_adds(&b, "</p>\n");
	fl_ui_regressions_table(&b, g, n);
	fl_web_pager(&b, url.ptr, page, more);
	fl_web_page(req, resp, "regressions", &b);
	fl_buf_free(&b);
	fl_buf_free(&url);
}

/* The watch service's queue: ?state=live (queued, running, waiting) or a state, ?kind=K. */
void fl_ui_jobs(struct fl_web_req *req, struct fl_web_resp *resp)
{
	struct fl_view_job_filter f = {0};
	enum fl_job_kind kind;
	struct fl_view_job *jobs;
	fl_buf b = FL_BUF_INIT, url = FL_BUF_INIT;
	const char *state;
	unsigned page;
	size_t n;
	int more, r;

	if (fl_web_page_arg(req, resp, &page) || fl_web_name_arg(req, resp, "kind", &f.kind) ||
	    fl_web_name_arg(req, resp, "state", &state))
		return;
	if (f.kind && fl_job_kind_parse(f.kind, &kind)) {
		fl_web_fail(req, resp, 400, "bad kind: %s", fl_error_last());
		return;
	}
	f.kind = f.kind ? fl_job_kind_name(kind) : NULL;
	f.live = state && !strcmp(state, "live");
	f.state = f.live ? NULL : state;
	if ((r = fl_view_jobs(req->st, &req->pool, &f, page, PER_PAGE, &jobs, &n, &more))) {
		fl_web_fail_error(req, resp, r);
		return;
	}
	if (req->json) {
		json_t *o = json_pack("{s:o}", "jobs", fl_ui_jobs_json(jobs, n));

		fl_ui_json_page(o, page, more);
		fl_web_send_json(resp, 200, o);
		return;
	}
	fl_web_url(&url, "/jobs", (const char *const[]){"kind", f.kind, "state", state, NULL});
	fl_buf_adds(&b, "<h1>Jobs</h1>\n");
	if (f.kind || state)
		fl_html_addf(&b, "<p class='filter'>kind %s, state %s</p>\n",
			     f.kind ? f.kind : "any", state ? state : "any");
	fl_ui_jobs_table(&b, jobs, n);
	fl_web_pager(&b, url.ptr, page, more);
	fl_web_page(req, resp, "jobs", &b);
	fl_buf_free(&b);
	fl_buf_free(&url);
}
