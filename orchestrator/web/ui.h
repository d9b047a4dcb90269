/*
 * web/ui.h - the page handlers (one ui-*.c file each) and what several
 * pages render alike (ui-shared.c): tables of runs, regressions and
 * bisections, and their JSON.
 */
#ifndef FL_WEB_UI_H
#define FL_WEB_UI_H

#include "web.h"
#include "../store-web.h"

void fl_ui_dashboard(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_runs(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_run(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_bisections(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_bisect(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_regressions(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_regression(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_report(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_tree(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_compare(struct fl_web_req *req, struct fl_web_resp *resp);
/* Files under web/static/ (static.c). */
void fl_ui_static(struct fl_web_req *req, struct fl_web_resp *resp);

/* ui-shared.c */
void fl_ui_runs_table(fl_buf *out, const struct fl_web_run *r, size_t n);
void fl_ui_regressions_table(fl_buf *out, const struct fl_web_regression *g, size_t n);
void fl_ui_bisections_table(fl_buf *out, const struct fl_web_bisection *b, size_t n);
/* A report as it was mailed, with its delivery state. */
void fl_ui_report_html(fl_buf *out, const struct fl_web_report *r);
/* A <dl> row: name (plain text) and value (raw HTML). */
void fl_ui_dl_row(fl_buf *out, const char *name, const char *html);

json_t *fl_ui_commit_json(const struct fl_web_commit *c);
json_t *fl_ui_run_json(const struct fl_web_run *r);
json_t *fl_ui_runs_json(const struct fl_web_run *r, size_t n);
json_t *fl_ui_regression_json(const struct fl_web_regression *g);
json_t *fl_ui_regressions_json(const struct fl_web_regression *g, size_t n);
json_t *fl_ui_bisection_json(const struct fl_web_bisection *b);
json_t *fl_ui_bisections_json(const struct fl_web_bisection *b, size_t n);
json_t *fl_ui_report_json(const struct fl_web_report *r);
/* {"page": N, "more": bool} added to a list object. */
void fl_ui_json_page(json_t *obj, unsigned page, int more);
/* A stored JSON text (run params, machine facts) as JSON, or the text as a string. */
json_t *fl_ui_json_text(const char *text);

#endif
