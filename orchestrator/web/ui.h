/*
 * web/ui.h - the page handlers (one ui-*.c file each) and what several
 * pages render alike (ui-shared.c): tables of runs, regressions,
 * bisections, jobs and comparison rows, the revert check, and their JSON.
 */
#ifndef FL_WEB_UI_H
#define FL_WEB_UI_H

#include "web/web.h"
#include "web/model.h"
#include "store/view.h"

void fl_ui_dashboard(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_runs(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_run(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_bisections(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_bisect(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_regressions(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_regression(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_report(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_tree(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_jobs(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_compare(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_try(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_commit(struct fl_web_req *req, struct fl_web_resp *resp);
void fl_ui_search(struct fl_web_req *req, struct fl_web_resp *resp);
/* /metrics: Prometheus's text format (ui-metrics.c). */
void fl_ui_metrics(struct fl_web_req *req, struct fl_web_resp *resp);
/* Files under web/static/ (static.c). */
void fl_ui_static(struct fl_web_req *req, struct fl_web_resp *resp);

/* ui-shared.c */
void fl_ui_runs_table(fl_buf *out, const struct fl_view_run *r, size_t n);
void fl_ui_regressions_table(fl_buf *out, const struct fl_view_regression *g, size_t n);
void fl_ui_bisections_table(fl_buf *out, const struct fl_view_bisection *b, size_t n);
void fl_ui_jobs_table(fl_buf *out, const struct fl_view_job *j, size_t n);
/* A <td> with a status (its class) and the detail as its title. */
void fl_ui_status_cell(fl_buf *out, const char *status, const char *detail);
/* "12 commits left, best 05b843012335 p=0.62": a bisection's newest step. */
void fl_ui_bisect_progress(fl_buf *out, const struct fl_view_bisection *b);
/* Comparison rows of one kind (what; NULL: all) in LKP's shape. */
void fl_ui_comparisons_table(fl_buf *out, const struct fl_view_comparison *c, size_t n,
			     const char *what);
/* The revert check: applied with its verdict and rows, or the conflicting files. */
void fl_ui_revert_html(fl_buf *out, const struct fl_view_revert *v);
/* A report as it was mailed, with its delivery state. */
void fl_ui_report_html(fl_buf *out, const struct fl_view_report *r);
/*
 * A regression's headline: its own stored change (what the comparison that
 * found it measured) and what that compares: "-25.0% v3.17 against
 * v3.17-rc7, page_fault2.threads.ops_per_sec at 4 tasks on numa2". Every
 * page that sizes a regression shows this one number; other numbers (the
 * culprit against its parent, every run pooled) say what they compare.
 */
void fl_ui_headline(fl_buf *out, const struct fl_view_regression *g);
/* What the headline compares, as text: "v3.17 against v3.17-rc7". */
void fl_ui_headline_what(fl_buf *out, const struct fl_view_regression *g);
/* A <dl> row: name (plain text) and value (raw HTML). */
void fl_ui_dl_row(fl_buf *out, const char *name, const char *html);

json_t *fl_ui_commit_json(const struct fl_view_commit *c);
json_t *fl_ui_run_json(const struct fl_view_run *r);
json_t *fl_ui_runs_json(const struct fl_view_run *r, size_t n);
json_t *fl_ui_regression_json(const struct fl_view_regression *g);
json_t *fl_ui_regressions_json(const struct fl_view_regression *g, size_t n);
json_t *fl_ui_bisection_json(const struct fl_view_bisection *b);
json_t *fl_ui_bisections_json(const struct fl_view_bisection *b, size_t n);
json_t *fl_ui_report_json(const struct fl_view_report *r);
json_t *fl_ui_comparisons_json(const struct fl_view_comparison *c, size_t n);
json_t *fl_ui_revert_json(const struct fl_view_revert *v);
json_t *fl_ui_jobs_json(const struct fl_view_job *j, size_t n);
json_t *fl_ui_tags_json(const struct fl_view_tag *t, size_t n);
json_t *fl_ui_machines_json(const struct fl_view_machine *m, size_t n);
/* {"page": N, "more": bool} added to a list object. */
void fl_ui_json_page(json_t *obj, unsigned page, int more);
/* A stored JSON text (run params, machine facts) as JSON, or the text as a string. */
json_t *fl_ui_json_text(const char *text);

#endif
