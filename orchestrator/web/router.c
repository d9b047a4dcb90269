/*
 * web/router.c - path -> page, as cgit's cmd.c: one table, nothing else.
 * /api/<path> is the JSON twin of <path> for the pages that have one.
 */
#include "web/ui.h"

#include <string.h>

static const struct route {
	const char *prefix;
	int exact; /* the whole path, not a prefix followed by an argument */
	int api;   /* also under /api */
	fl_web_handler fn;
} routes[] = {
    {"/", 1, 1, fl_ui_dashboard},
    {"/runs", 1, 1, fl_ui_runs},
    {"/run/", 0, 1, fl_ui_run},
    {"/bisections", 1, 1, fl_ui_bisections},
    {"/bisect/", 0, 1, fl_ui_bisect},
    {"/regressions", 1, 1, fl_ui_regressions},
    {"/jobs", 1, 1, fl_ui_jobs},
    {"/regression/", 0, 1, fl_ui_regression},
    {"/report/", 0, 1, fl_ui_report},
    {"/try/", 0, 1, fl_ui_try},
    {"/tree/", 0, 1, fl_ui_tree},
    {"/compare", 1, 1, fl_ui_compare},
    {"/commit/", 0, 1, fl_ui_commit},
    {"/search", 1, 1, fl_ui_search},
    {"/metrics", 1, 0, fl_ui_metrics},
    {"/static/", 0, 0, fl_ui_static},
    {NULL, 0, 0, NULL},
};

void fl_web_route(struct fl_web_req *req, struct fl_web_resp *resp)
{
	const char *path = req->path;

	if (!strcmp(path, "/api"))
		path = "/";
	else if (!strncmp(path, "/api/", 5))
		path += 4;
	req->json = path != req->path;
	for (const struct route *r = routes; r->prefix; r++) {
		size_t n = strlen(r->prefix);

		if (req->json && !r->api)
			continue;
		if (r->exact ? strcmp(path, r->prefix) : strncmp(path, r->prefix, n))
			continue;
		req->rest = path + n;
		r->fn(req, resp);
		return;
	}
	fl_web_fail(req, resp, 404, "no page at %s", req->path);
}
