/*
 * web/ui-bisect.c - /bisect/<id>: the culprit and result, its verification
 * against its parent (the verify steps and the engine's summary), the
 * confidence as it evolved step by step (a line), every tested commit's
 * samples side by side (a strip plot), every step in a paginated table
 * with the build and boot status of its runs (each attempt, linked), and
 * for a regression's bisection the revert check.
 */
#include "web/ui.h"
#include "lib/error.h"
#include "lib/html.h"
#include "analysis/descent.h"
#include "analysis/stats.h"
#include "service/pipeline.h"
#include "web/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PER_PAGE 100

struct bisect_page {
	struct fl_view_bisection b;
	struct fl_view_step *steps;
	size_t nsteps;
	unsigned page;
	int has_revert;
	struct fl_view_revert revert;
	struct fl_view_regression g; /* its regression (b.regression_id not 0) */
};

static void confidence_plot(fl_buf *out, fl_pool *p, const struct bisect_page *bp)
{
	double *x = fl_pool_alloc(p, (bp->nsteps + 1) * sizeof(double));
	double *y = fl_pool_alloc(p, (bp->nsteps + 1) * sizeof(double));
	struct fl_svg_series s = {"confidence", x, y, NULL, bp->nsteps, 0};
	struct fl_svg_plot plot = {.title = "confidence of the best candidate",
				   .xlabel = "step",
				   .ylabel = "confidence",
				   .series = &s,
				   .nseries = 1,
				   .height = 240};

	for (size_t i = 0; i < bp->nsteps; i++) {
		x[i] = (double)bp->steps[i].seq + 1; /* steps count from 1, as the log's */
		y[i] = bp->steps[i].confidence;
	}
	fl_buf_adds(out, "<figure class='plot confidence'>");
	fl_svg_lines(out, &plot);
	fl_buf_adds(out, "</figure>\n");
}

/* One row per tested commit, in the order they were first tested, with all their samples. */
static void strip_plot(fl_buf *out, fl_pool *p, const struct bisect_page *bp)
{
	size_t ng = 0, n = bp->nsteps ? bp->nsteps : 1;
	const char **labels = fl_pool_alloc(p, n * sizeof(char *));
	const char **shas = fl_pool_alloc(p, n * sizeof(char *));
	const double **values = fl_pool_alloc(p, n * sizeof(double *));
	size_t *counts = fl_pool_alloc(p, n * sizeof(size_t));

	for (size_t i = 0; i < bp->nsteps; i++) {
		const struct fl_view_step *st = &bp->steps[i];
		size_t g = 0;
		double *v;

		while (g < ng && strcmp(shas[g], st->commit.sha))
			g++;
		if (g == ng) {
			shas[ng] = st->commit.sha;
			counts[ng] = 0;
			values[ng] = NULL;
			ng++;
		}
		/* the newest verdict names the row */
		labels[g] = fl_pool_alloc(p, 40);
		snprintf((char *)labels[g], 40, "%.7s %s", st->commit.sha,
			 *st->verdict ? st->verdict : "end");
		v = fl_pool_alloc(p, (counts[g] + st->n + 1) * sizeof(double));
		if (counts[g])
			memcpy(v, values[g], counts[g] * sizeof(double));
		memcpy(v + counts[g], st->v, st->n * sizeof(double));
		values[g] = v;
		counts[g] += st->n;
	}
	fl_buf_adds(out, "<figure class='plot strip'>");
	fl_svg_strip(out, labels, values, counts, ng, 640);
	fl_buf_adds(out, "</figure>\n");
}

/* Each attempt's run (status linked, detail as its title), then how the job ended. */
static void step_runs(fl_buf *out, const struct fl_view_step *st)
{
	fl_buf_adds(out, "<td class='runs'>");
	for (size_t k = 0; k < st->nruns; k++) {
		const struct fl_view_step_run *r = &st->runs[k];

		if (k)
			fl_buf_adds(out, " &rarr; ");
		fl_html_addf(out, "<a class='status status-%s' href='/run/%lld'", r->status,
			     (long long)r->id);
		if (r->detail)
			fl_html_addf(out, " title='%s'", r->detail);
		fl_html_addf(out, ">%s</a>", r->status);
		if (r->build_status && strcmp(r->build_status, "ok"))
			fl_html_addf(out, " (build %s)", r->build_status);
	}
	if (st->job_result && strcmp(st->job_result, "ok")) {
		fl_html_addf(out, "%S<span class='status status-%s'>%s</span>",
			     st->nruns ? " &rarr; " : "", st->job_result, st->job_result);
		if (st->job_error)
			fl_html_addf(out, ": <span class='detail'>%s</span>", st->job_error);
	} else if (!st->job_id) {
		fl_buf_adds(out, "-");
	}
	fl_buf_adds(out, "</td>");
}

static void steps_table(fl_buf *out, const struct bisect_page *bp)
{
	size_t from = (size_t)(bp->page - 1) * PER_PAGE;
	char base[64];

	fl_buf_adds(out, "<table class='steps'>\n<thead><tr><th>step</th><th>phase</th>"
			 "<th>commit</th><th>status</th><th>verdict</th><th>runs</th>"
			 "<th>samples</th><th>median</th><th>confidence</th><th>left</th>"
			 "<th>time</th></tr></thead>\n<tbody>\n");
	for (size_t i = from; i < bp->nsteps && i < from + PER_PAGE; i++) {
		const struct fl_view_step *st = &bp->steps[i];

		fl_html_addf(out,
			     "<tr id='step-%zu'><td class='num'>%zu</td><td>%s</td>"
			     "<td class='commit'>",
			     st->seq + 1, st->seq + 1, st->phase ? st->phase : "-");
		fl_web_commit_html(out, st->commit.sha, st->commit.subject);
		fl_html_addf(out, "</td><td class='status status-%s'>%s</td><td>%s</td>",
			     st->status, st->status, *st->verdict ? st->verdict : "-");
		step_runs(out, st);
		fl_html_addf(out, "<td class='num'>%zu</td><td class='num'>", st->n);
		fl_web_num(out, st->n ? fl_stats_median(st->v, st->n) : NAN);
		if (*st->verdict)
			fl_html_addf(out, "</td><td class='num'>%.3f</td><td class='num'>",
				     st->confidence);
		else /* confirming an end: no posterior yet */
			fl_buf_adds(out, "</td><td class='num'>-</td><td class='num'>");
		if (st->remaining)
			fl_html_addf(out, "%zu", st->remaining);
		else
			fl_buf_adds(out, "-");
		fl_buf_adds(out, "</td><td class='time'>");
		fl_web_time(out, st->created);
		fl_buf_adds(out, "</td></tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
	snprintf(base, sizeof(base), "/bisect/%lld", (long long)bp->b.id);
	fl_web_pager(out, base, bp->page, from + PER_PAGE < bp->nsteps);
}

/* The culprit measured again against its parent (the verify steps), and the engine's summary. */
static void verification(fl_buf *out, const struct bisect_page *bp)
{
	json_t *sum = bp->b.summary ? json_loads(bp->b.summary, 0, NULL) : NULL;
	double change = json_number_value(json_object_get(sum, "change_pct"));
	size_t nverify = 0;

	for (size_t i = 0; i < bp->nsteps; i++)
		nverify += bp->steps[i].phase && !strcmp(bp->steps[i].phase, "verify");
	if (!nverify && !sum)
		return;
	fl_buf_adds(out, "<section class='verification'>\n<h2>Verification</h2>\n<p>");
	if (json_is_number(json_object_get(sum, "change_pct")))
		fl_buf_addf(out,
			    "The culprit against its parent, on the bisection's own runs of the "
			    "two: %.1f%% worse",
			    change);
	else
		fl_buf_adds(out, "The culprit against its parent");
	if (json_is_integer(json_object_get(sum, "runs")))
		fl_html_addf(out, "; %d runs in all over %d of %d commits",
			     (int)json_integer_value(json_object_get(sum, "runs")),
			     (int)json_integer_value(json_object_get(sum, "commits_tested")),
			     (int)json_integer_value(json_object_get(sum, "commits")));
	fl_buf_adds(out, ".</p>\n");
	json_decref(sum);
	if (!nverify)
		return;
	fl_buf_adds(out, "<ul class='verify'>\n");
	for (size_t i = 0; i < bp->nsteps; i++) {
		const struct fl_view_step *st = &bp->steps[i];

		if (!st->phase || strcmp(st->phase, "verify"))
			continue;
		fl_html_addf(out, "<li><a href='#step-%zu'>step %zu</a>: ", st->seq + 1,
			     st->seq + 1);
		fl_web_commit_html(out, st->commit.sha, NULL);
		fl_html_addf(out, " %s, median ", *st->verdict ? st->verdict : "-");
		fl_web_num(out, st->n ? fl_stats_median(st->v, st->n) : NAN);
		fl_html_addf(out, " of %zu samples</li>\n", st->n);
	}
	fl_buf_adds(out, "</ul>\n</section>\n");
}

static void revert_html(fl_buf *out, const struct bisect_page *bp)
{
	if (!bp->b.regression_id)
		return;
	fl_buf_adds(out, "<h2>Revert check</h2>\n");
	if (bp->has_revert)
		fl_ui_revert_html(out, &bp->revert);
	else
		fl_buf_adds(out, "<p class='empty'>No revert check yet.</p>\n");
}

static void bisect_html(fl_buf *out, fl_pool *p, const struct bisect_page *bp)
{
	const struct fl_view_bisection *b = &bp->b;
	fl_buf v = FL_BUF_INIT;

	fl_html_addf(out, "<h1>Bisection %lld: %s</h1>\n", (long long)b->id,
		     b->result ? b->result : b->state);
	if (b->regression_id) {
		fl_html_addf(out,
			     "<p class='regression'>Of <a href='/regression/%lld'>regression "
			     "%lld</a>: ",
			     (long long)b->regression_id, (long long)b->regression_id);
		fl_ui_headline(out, &bp->g);
		fl_buf_adds(out, " (the comparison that found it).</p>\n");
	}
	if (b->culprit.sha) {
		fl_buf_adds(out, "<p class='culprit'>Culprit: ");
		fl_web_commit_html(out, b->culprit.sha, b->culprit.subject);
		if (b->culprit.author)
			fl_html_addf(out, " <span class='author'>by %s</span>", b->culprit.author);
		fl_buf_adds(out, "</p>\n");
	}
	/* a culprit inside merged branches, or a merge that is the culprit itself */
	fl_descent_summary_where(&v, b->summary);
	if (v.len) {
		const char *w = v.ptr;

		while (*w == ' ' || *w == ';')
			w++;
		fl_html_addf(out, "<p class='where'>%s</p>\n", w);
		fl_buf_reset(&v);
	}
	fl_buf_adds(out, "<dl class='facts'>\n");
	if (!strcmp(b->state, "running")) {
		fl_ui_bisect_progress(&v, b);
		fl_ui_dl_row(out, "progress", v.ptr);
		fl_buf_reset(&v);
	}
	fl_web_rev_html(&v, b->good);
	fl_ui_dl_row(out, "good", v.ptr);
	fl_buf_reset(&v);
	fl_web_rev_html(&v, b->bad);
	fl_ui_dl_row(out, "bad", v.ptr);
	fl_buf_reset(&v);
	fl_html_addf(&v, "<span class='status status-%s'>%s</span>", b->state, b->state);
	fl_ui_dl_row(out, "state", v.ptr);
	fl_buf_reset(&v);
	if (isnan(b->confidence))
		fl_buf_adds(&v, "-");
	else
		fl_html_addf(&v, "%.3f", b->confidence);
	fl_ui_dl_row(out, "confidence", v.ptr);
	if (b->regression_id) {
		fl_buf_reset(&v);
		fl_html_addf(&v, "<a href='/regression/%lld'>%lld</a>", (long long)b->regression_id,
			     (long long)b->regression_id);
		fl_ui_dl_row(out, "regression", v.ptr);
	}
	fl_buf_reset(&v);
	fl_html_addf(&v, "%zu", b->nsteps);
	fl_ui_dl_row(out, "runs", v.ptr);
	fl_buf_reset(&v);
	fl_web_time(&v, b->created);
	fl_ui_dl_row(out, "started", v.ptr);
	fl_buf_reset(&v);
	fl_web_time(&v, b->finished);
	fl_ui_dl_row(out, "finished", v.ptr);
	fl_buf_adds(out, "</dl>\n");
	fl_buf_free(&v);
	verification(out, bp);
	revert_html(out, bp);
	if (!bp->nsteps) {
		fl_buf_adds(out, "<p class='empty'>No steps recorded yet.</p>\n");
		return;
	}
	fl_buf_adds(out, "<h2>Confidence</h2>\n");
	confidence_plot(out, p, bp);
	fl_buf_adds(out, "<h2>Samples of each tested commit</h2>\n");
	strip_plot(out, p, bp);
	fl_buf_adds(out, "<h2>Steps</h2>\n");
	steps_table(out, bp);
}

/* The step's run job and its runs, or null for a bisection without jobs. */
static json_t *step_job_json(const struct fl_view_step *st)
{
	json_t *runs = json_array();

	if (!st->job_id) {
		json_decref(runs);
		return json_null();
	}
	for (size_t k = 0; k < st->nruns; k++)
		json_array_append_new(
		    runs, json_pack("{s:I, s:o, s:o, s:o}", "id", (json_int_t)st->runs[k].id,
				    "status", fl_web_json_str(st->runs[k].status), "detail",
				    fl_web_json_str(st->runs[k].detail), "build_status",
				    fl_web_json_str(st->runs[k].build_status)));
	return json_pack("{s:I, s:o, s:o, s:o, s:i, s:o}", "id", (json_int_t)st->job_id, "state",
			 fl_web_json_str(st->job_state), "result", fl_web_json_str(st->job_result),
			 "error", fl_web_json_str(st->job_error), "attempts", st->job_attempts,
			 "runs", runs);
}

static json_t *bisect_json(const struct bisect_page *bp)
{
	json_t *o = fl_ui_bisection_json(&bp->b), *steps = json_array();

	for (size_t i = 0; i < bp->nsteps; i++) {
		const struct fl_view_step *st = &bp->steps[i];
		json_t *v = json_array();

		for (size_t k = 0; k < st->n; k++)
			json_array_append_new(v, fl_web_json_num(st->v[k]));
		json_array_append_new(
		    steps,
		    json_pack("{s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o}", "seq",
			      (json_int_t)st->seq, "step", (json_int_t)st->seq + 1, "commit",
			      fl_ui_commit_json(&st->commit), "status", fl_web_json_str(st->status),
			      "verdict", fl_web_json_str(st->verdict), "samples", v, "confidence",
			      fl_web_json_num(st->confidence), "time", (json_int_t)st->created,
			      "phase", fl_web_json_str(st->phase), "commits_left",
			      st->remaining ? json_integer((json_int_t)st->remaining) : json_null(),
			      "best", fl_web_json_str(st->best), "job", step_job_json(st)));
	}
	json_object_set_new(o, "steps", steps);
	json_object_set_new(o, "revert",
			    bp->has_revert ? fl_ui_revert_json(&bp->revert) : json_null());
	return o;
}

void fl_ui_bisect(struct fl_web_req *req, struct fl_web_resp *resp)
{
	struct bisect_page bp = {0};
	fl_buf b = FL_BUF_INIT;
	char title[48];
	int64_t id;
	int r;

	if (fl_web_id(req, resp, req->rest, &id) || fl_web_page_arg(req, resp, &bp.page))
		return;
	if ((r = fl_view_bisection_get(req->st, &req->pool, id, &bp.b)) ||
	    (r = fl_view_bisect_steps(req->st, &req->pool, id, fl_job_kind_name(FL_JOB_BISECT),
				      &bp.steps, &bp.nsteps)) ||
	    (bp.b.regression_id &&
	     (r = fl_view_regression_get(req->st, &req->pool, bp.b.regression_id, &bp.g))) ||
	    (bp.b.regression_id &&
	     (r = fl_view_revert_get(req->st, &req->pool, bp.b.regression_id,
				     fl_job_kind_name(FL_JOB_REVERT), &bp.revert)) &&
	     r != FL_ENOTFOUND)) {
		fl_web_fail_error(req, resp, r);
		return;
	}
	bp.has_revert = bp.b.regression_id && !r;
	if (req->json) {
		fl_web_send_json(resp, 200, bisect_json(&bp));
		return;
	}
	bisect_html(&b, &req->pool, &bp);
	snprintf(title, sizeof(title), "bisection %lld", (long long)id);
	fl_web_page(req, resp, title, &b);
	fl_buf_free(&b);
}
