/*
 * web/ui-shared.c - what several pages render alike: tables of runs,
 * regressions, bisections, jobs and comparison rows, a revert check, a
 * mailed report, and the JSON of each.
 */
#include "web/ui.h"
#include "lib/html.h"
#include "service/pipeline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void fl_ui_headline_what(fl_buf *out, const struct fl_view_regression *g)
{
	char good[13], bad[13];

	snprintf(good, sizeof(good), "%s", g->good.sha ? g->good.sha : "-");
	snprintf(bad, sizeof(bad), "%s", g->bad.sha ? g->bad.sha : "-");
	fl_html_addf(out, "%s against %s", g->tag ? g->tag : bad, g->baseline ? g->baseline : good);
}

void fl_ui_headline(fl_buf *out, const struct fl_view_regression *g)
{
	fl_html_addf(
	    out, "<span class='headline'><strong class='num change regression'>%+.1f%%</strong> ",
	    g->change);
	fl_ui_headline_what(out, g);
	fl_html_addf(out, ", %s.%s%S%s at %u task%S on %s</span>", g->benchmark, g->mode,
		     *g->mode ? "." : "", g->metric, g->tasks, g->tasks == 1 ? "" : "s",
		     g->machine);
}

void fl_ui_dl_row(fl_buf *out, const char *name, const char *html)
{
	fl_html_addf(out, "<dt>%s</dt><dd>%S</dd>\n", name, html);
}

/* A table's start (head: raw HTML up to <tbody>), or the empty text when there are no rows: 0. */
static int table_open(fl_buf *out, size_t n, const char *empty, const char *head)
{
	if (!n)
		fl_html_addf(out, "<p class='empty'>%s</p>\n", empty);
	else
		fl_buf_adds(out, head);
	return n != 0;
}

void fl_ui_status_cell(fl_buf *out, const char *status, const char *detail)
{
	if (detail && *detail)
		fl_html_addf(out, "<td class='status status-%s' title='%s'>%s</td>", status, detail,
			     status);
	else
		fl_html_addf(out, "<td class='status status-%s'>%s</td>", status, status);
}

static void cell_time(fl_buf *out, int64_t t)
{
	fl_buf_adds(out, "<td class='time'>");
	fl_web_time(out, t);
	fl_buf_adds(out, "</td>");
}

static void cell_commit(fl_buf *out, const struct fl_view_commit *c)
{
	fl_buf_adds(out, "<td class='commit'>");
	fl_web_commit_html(out, c->sha, c->subject);
	fl_buf_adds(out, "</td>");
}

void fl_ui_runs_table(fl_buf *out, const struct fl_view_run *r, size_t n)
{
	if (!table_open(out, n, "No runs.",
			"<table class='runs'>\n<thead><tr><th>run</th><th>kernel</th>"
			"<th>tree</th><th>benchmark</th><th>machine</th><th>status</th>"
			"<th>started</th><th>finished</th></tr></thead>\n<tbody>\n"))
		return;
	for (size_t i = 0; i < n; i++) {
		fl_html_addf(out, "<tr><td><a href='/run/%lld'>%lld</a>", (long long)r[i].id,
			     (long long)r[i].id);
		if (r[i].role)
			fl_html_addf(out, " <span class='role'>%s</span>", r[i].role);
		fl_buf_adds(out, "</td>");
		cell_commit(out, &r[i].commit);
		fl_html_addf(out, "<td>%s</td><td>%s</td><td>%s</td>",
			     r[i].commit.tree ? r[i].commit.tree : "-", r[i].benchmark,
			     r[i].machine);
		fl_ui_status_cell(out, r[i].status, r[i].detail);
		cell_time(out, r[i].started);
		cell_time(out, r[i].finished);
		fl_buf_adds(out, "</tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

void fl_ui_regressions_table(fl_buf *out, const struct fl_view_regression *g, size_t n)
{
	if (!table_open(out, n, "No regressions.",
			"<table class='regressions'>\n<thead><tr><th>regression</th>"
			"<th>tree</th><th>tags</th><th>benchmark</th><th>metric</th>"
			"<th>change</th><th>good</th><th>bad</th><th>culprit</th><th>machine</th>"
			"<th>state</th><th>bisection</th><th>found</th></tr></thead>\n<tbody>\n"))
		return;
	for (size_t i = 0; i < n; i++) {
		fl_html_addf(out, "<tr><td><a href='/regression/%lld'>%lld</a></td><td>%s</td>",
			     (long long)g[i].id, (long long)g[i].id, g[i].tree);
		if (g[i].tag)
			fl_html_addf(out, "<td class='tags'>%s &rarr; %s</td>",
				     g[i].baseline ? g[i].baseline : "-", g[i].tag);
		else
			fl_buf_adds(out, "<td>-</td>");
		fl_html_addf(out, "<td>%s</td><td>%s %s %u</td>", g[i].benchmark, g[i].metric,
			     g[i].mode, g[i].tasks);
		fl_buf_adds(out, "<td class='num' title='");
		fl_ui_headline_what(out, &g[i]);
		fl_html_addf(out, "'>%+.1f%%</td>", g[i].change);
		cell_commit(out, &g[i].good);
		cell_commit(out, &g[i].bad);
		if (g[i].culprit.sha)
			cell_commit(out, &g[i].culprit);
		else
			fl_html_addf(out, "<td class='commit empty'>%s</td>",
				     g[i].bisection_id ? "not yet" : "-");
		fl_html_addf(out, "<td>%s</td><td>%s</td>", g[i].machine, g[i].state);
		if (g[i].bisection_id)
			fl_html_addf(out, "<td><a href='/bisect/%lld'>%lld</a></td>",
				     (long long)g[i].bisection_id, (long long)g[i].bisection_id);
		else
			fl_buf_adds(out, "<td>-</td>");
		cell_time(out, g[i].created);
		fl_buf_adds(out, "</tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

void fl_ui_bisections_table(fl_buf *out, const struct fl_view_bisection *b, size_t n)
{
	if (!table_open(out, n, "No bisections.",
			"<table class='bisections'>\n<thead><tr><th>bisection</th><th>good</th>"
			"<th>bad</th><th>state</th><th>result</th><th>culprit</th>"
			"<th>confidence</th><th>steps</th><th>progress</th><th>started</th></tr>"
			"</thead>\n"
			"<tbody>\n"))
		return;
	for (size_t i = 0; i < n; i++) {
		fl_html_addf(out, "<tr><td><a href='/bisect/%lld'>%lld</a></td>",
			     (long long)b[i].id, (long long)b[i].id);
		fl_buf_adds(out, "<td class='commit'>");
		fl_web_rev_html(out, b[i].good);
		fl_buf_adds(out, "</td><td class='commit'>");
		fl_web_rev_html(out, b[i].bad);
		fl_buf_adds(out, "</td>");
		fl_html_addf(out, "<td class='status status-%s'>%s</td><td>%s</td>", b[i].state,
			     b[i].state, b[i].result ? b[i].result : "-");
		cell_commit(out, &b[i].culprit);
		if (isnan(b[i].confidence))
			fl_buf_adds(out, "<td class='num'>-</td>");
		else
			fl_html_addf(out, "<td class='num'>%.3f</td>", b[i].confidence);
		fl_html_addf(out, "<td class='num'>%zu</td><td class='progress'>", b[i].nsteps);
		fl_ui_bisect_progress(out, &b[i]);
		fl_buf_adds(out, "</td>");
		cell_time(out, b[i].created);
		fl_buf_adds(out, "</tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

void fl_ui_bisect_progress(fl_buf *out, const struct fl_view_bisection *b)
{
	if (strcmp(b->state, "running")) {
		fl_buf_adds(out, "-");
		return;
	}
	if (!b->best && !b->remaining) {
		fl_buf_adds(out, "measuring the ends");
		return;
	}
	if (b->remaining)
		fl_html_addf(out, "%zu commit%s left", b->remaining, b->remaining == 1 ? "" : "s");
	if (b->best) {
		fl_buf_adds(out, b->remaining ? ", best " : "best ");
		fl_web_commit_html(out, b->best, NULL);
	}
	if (!isnan(b->last_confidence))
		fl_html_addf(out, " p=%.2f", b->last_confidence);
	if (b->phase && !strcmp(b->phase, "verify"))
		fl_buf_adds(out, " (verifying)");
}

/* mean +- %stddev, as LKP prints them */
static void cell_mean(fl_buf *out, double mean, double sd)
{
	fl_buf_adds(out, "<td class='num'>");
	fl_web_num(out, mean);
	fl_buf_adds(out, "</td><td class='num sd'>");
	if (isfinite(sd) && isfinite(mean) && mean)
		fl_html_addf(out, "&plusmn; %.1f%%", 100 * sd / fabs(mean));
	fl_buf_adds(out, "</td>");
}

void fl_ui_comparisons_table(fl_buf *out, const struct fl_view_comparison *c, size_t n,
			     const char *what)
{
	size_t shown = 0;

	fl_buf_adds(out, "<table class='comparisons'>\n<thead><tr><th>point</th><th>runs</th>"
			 "<th>base</th><th></th><th>%change</th><th>new</th><th></th>"
			 "<th>p</th><th>verdict</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < n; i++) {
		if (what && strcmp(c[i].what, what))
			continue;
		shown++;
		fl_html_addf(out, "<tr%S><td>%s%S%s.%u</td><td class='num'>%zu+%zu</td>",
			     c[i].is_primary ? " class='primary'" : "", c[i].mode,
			     *c[i].mode ? "." : "", c[i].metric, c[i].tasks, c[i].base_runs,
			     c[i].new_runs);
		cell_mean(out, c[i].base_mean, c[i].base_sd);
		fl_html_addf(out, "<td class='num change %s'>", fl_class_name_word(c[i].class));
		if (isfinite(c[i].change))
			fl_buf_addf(out, "%+.1f%%", c[i].change);
		else
			fl_buf_adds(out, "-");
		fl_buf_adds(out, "</td>");
		cell_mean(out, c[i].new_mean, c[i].new_sd);
		fl_buf_adds(out, "<td class='num'>");
		fl_web_num(out, c[i].p);
		fl_html_addf(out, "</td><td class='verdict verdict-%s'>%s</td></tr>\n",
			     fl_class_name_word(c[i].class), c[i].class);
	}
	fl_buf_adds(out, "</tbody></table>\n");
	if (!shown)
		fl_buf_adds(out, "<p class='empty'>No comparison rows.</p>\n");
}

void fl_ui_revert_html(fl_buf *out, const struct fl_view_revert *v)
{
	fl_buf_adds(out, "<section class='revert'>\n<p>");
	fl_web_commit_html(out, v->culprit, NULL);
	fl_buf_adds(out, " reverted on ");
	fl_web_commit_html(out, v->onto, NULL);
	fl_html_addf(out, ": <span class='revert-state revert-%s'>%s</span>", v->state,
		     !strcmp(v->state, "applied")    ? "applies cleanly"
		     : !strcmp(v->state, "conflict") ? "does not revert cleanly"
						     : "could not be tried");
	if (v->verdict)
		fl_html_addf(out, "; measured: <strong class='revert-verdict'>%s</strong>",
			     v->verdict);
	else if (!strcmp(v->state, "applied"))
		fl_buf_adds(out, "; not measured yet");
	fl_buf_adds(out, ".</p>\n");
	if (v->commit_sha) {
		fl_buf_adds(out, "<p>The revert: ");
		fl_web_commit_html(out, v->commit_sha, NULL);
		if (v->ref)
			fl_html_addf(out, " kept as <code>%s</code>", v->ref);
		fl_buf_adds(out, "</p>\n");
	}
	if (v->nconflicts) {
		fl_buf_adds(out, "<p>Conflicts in:</p>\n<ul class='conflicts'>\n");
		for (size_t i = 0; i < v->nconflicts; i++)
			fl_html_addf(out, "<li><code>%s</code></li>\n", v->conflicts[i]);
		fl_buf_adds(out, "</ul>\n");
	}
	if (v->error)
		fl_html_addf(out, "<p class='error'>%s</p>\n", v->error);
	if (v->nrows) {
		fl_buf_adds(out, "<h3>The revert against the bad tag</h3>\n");
		fl_ui_comparisons_table(out, v->rows, v->nrows, "revert-bad");
		fl_buf_adds(out, "<h3>The revert against the baseline</h3>\n");
		fl_ui_comparisons_table(out, v->rows, v->nrows, "revert-base");
	}
	fl_buf_adds(out, "</section>\n");
}

/* What a job is about: its tags, its regression, or the commit it measures. */
static void job_what(fl_buf *out, const struct fl_view_job *j)
{
	if (j->tag)
		fl_html_addf(out, "%s %s &rarr; %s", j->tree, j->baseline ? j->baseline : "-",
			     j->tag);
	else if (fl_job_kind_is(j->kind, FL_JOB_RUN)) {
		fl_html_addf(out, "%s ", j->role);
		fl_web_commit_html(out, j->commit.sha, j->commit.subject);
	} else if (j->regression_id)
		fl_html_addf(out, "<a href='/regression/%lld'>regression %lld</a>",
			     (long long)j->regression_id, (long long)j->regression_id);
}

void fl_ui_jobs_table(fl_buf *out, const struct fl_view_job *j, size_t n)
{
	if (!table_open(out, n, "No jobs.",
			"<table class='jobs'>\n<thead><tr><th>job</th><th>kind</th><th>what</th>"
			"<th>benchmark</th><th>machine</th><th>state</th><th>attempts</th>"
			"<th>progress</th><th>since</th></tr></thead>\n<tbody>\n"))
		return;
	for (size_t i = 0; i < n; i++) {
		fl_html_addf(out, "<tr id='job-%lld'><td class='num'>%lld</td><td>%s</td><td>",
			     (long long)j[i].id, (long long)j[i].id, j[i].kind);
		job_what(out, &j[i]);
		fl_html_addf(out, "</td><td>%s</td><td>%s</td>", j[i].benchmark, j[i].machine);
		fl_ui_status_cell(out, j[i].state, j[i].error);
		fl_html_addf(out, "<td class='num'>%d</td><td>", j[i].attempts);
		if (j[i].children)
			fl_html_addf(out, "%zu of %zu runs", j[i].children_done, j[i].children);
		if (j[i].run_id)
			fl_html_addf(out, "<a href='/run/%lld'>run %lld</a>",
				     (long long)j[i].run_id, (long long)j[i].run_id);
		/* why it failed, and how to run it again (service/queue.h) */
		if (fl_job_is(j[i].state, FL_STATE_FAILED) && !j[i].parent_id)
			fl_html_addf(
			    out,
			    "%S<span class='error'>%s</span><br><small>once that is fixed: "
			    "<code>faultline queue retry %lld</code></small>",
			    j[i].children ? "<br>" : "", j[i].error ? j[i].error : "",
			    (long long)j[i].id);
		fl_buf_adds(out, "</td>");
		cell_time(out, j[i].started ? j[i].started : j[i].created);
		fl_buf_adds(out, "</tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

void fl_ui_report_html(fl_buf *out, const struct fl_view_report *r)
{
	fl_buf v = FL_BUF_INIT;

	fl_html_addf(out, "<section class='report' id='report-%lld'>\n<h3>Report %lld: ",
		     (long long)r->id, (long long)r->id);
	if (!strcmp(r->state, "sent")) {
		fl_buf_adds(out, "<span class='status status-ok'>sent</span> ");
		fl_web_time(out, r->sent);
	} else {
		fl_html_addf(out, "<span class='status status-%s'>%s</span>", r->state, r->state);
		if (r->attempts)
			fl_html_addf(out, ", %d failed attempt%s", r->attempts,
				     r->attempts == 1 ? "" : "s");
	}
	fl_buf_adds(out, "</h3>\n<dl>\n");
	fl_html_addf(&v, "<code>%s</code>", r->message_id);
	fl_ui_dl_row(out, "Message-ID", v.ptr);
	if (r->in_reply_to) {
		fl_buf_reset(&v);
		fl_html_addf(&v, "<code>%s</code>", r->in_reply_to);
		fl_ui_dl_row(out, "In-Reply-To", v.ptr);
	}
	fl_buf_reset(&v);
	fl_web_time(&v, r->created);
	fl_ui_dl_row(out, "stored", v.ptr);
	if (strcmp(r->state, "sent")) {
		fl_buf_reset(&v);
		fl_html_addf(&v, "%d", r->attempts);
		fl_ui_dl_row(out, "attempts", v.ptr);
		if (r->last_error) {
			fl_buf_reset(&v);
			fl_html_addf(&v, "<span class='error'>%s</span>", r->last_error);
			fl_ui_dl_row(out, "last error", v.ptr);
		}
		if (r->next_attempt) {
			fl_buf_reset(&v);
			fl_web_time(&v, r->next_attempt);
			fl_ui_dl_row(out, "next attempt", v.ptr);
		}
	}
	fl_buf_adds(out, "</dl>\n");
	fl_html_addf(out, "<pre class='mail'>Subject: %s\n\n%s</pre>\n</section>\n", r->subject,
		     r->body);
	fl_buf_free(&v);
}

/* ---- JSON ---- */

json_t *fl_ui_commit_json(const struct fl_view_commit *c)
{
	if (!c->sha)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:I}", "sha", fl_web_json_str(c->sha), "tree",
			 fl_web_json_str(c->tree), "subject", fl_web_json_str(c->subject), "author",
			 fl_web_json_str(c->author), "time", (json_int_t)c->time);
}

json_t *fl_ui_json_text(const char *text)
{
	json_t *j;

	if (!text)
		return json_null();
	j = json_loads(text, JSON_DECODE_ANY, NULL);
	return j ? j : fl_web_json_str(text);
}

static json_t *json_id(int64_t id)
{
	return id ? json_integer(id) : json_null();
}

json_t *fl_ui_run_json(const struct fl_view_run *r)
{
	json_t *o =
	    json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:o}", "id",
		      (json_int_t)r->id, "benchmark", fl_web_json_str(r->benchmark), "machine",
		      fl_web_json_str(r->machine), "status", fl_web_json_str(r->status), "detail",
		      fl_web_json_str(r->detail), "params", fl_ui_json_text(r->params), "started",
		      (json_int_t)r->started, "finished", json_id(r->finished), "kernel",
		      fl_web_json_str(r->kernel), "build_status", fl_web_json_str(r->build_status),
		      "commit", fl_ui_commit_json(&r->commit), "job", json_id(r->job_id));

	if (r->role)
		json_object_set_new(o, "role", fl_web_json_str(r->role));
	return o;
}

json_t *fl_ui_runs_json(const struct fl_view_run *r, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, fl_ui_run_json(&r[i]));
	return a;
}

json_t *fl_ui_regression_json(const struct fl_view_regression *g)
{
	json_t *o = json_pack(
	    "{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:I}", "id",
	    (json_int_t)g->id, "tree", fl_web_json_str(g->tree), "good",
	    fl_ui_commit_json(&g->good), "bad", fl_ui_commit_json(&g->bad), "benchmark",
	    fl_web_json_str(g->benchmark), "machine", fl_web_json_str(g->machine), "metric",
	    fl_web_json_str(g->metric), "mode", fl_web_json_str(g->mode), "tasks", (int)g->tasks,
	    "change_pct", fl_web_json_num(g->change), "p_value", fl_web_json_num(g->p_value),
	    "state", fl_web_json_str(g->state), "created", (json_int_t)g->created);

	json_object_set_new(o, "job", json_id(g->job_id));
	json_object_set_new(o, "tag", fl_web_json_str(g->tag));
	json_object_set_new(o, "baseline", fl_web_json_str(g->baseline));
	json_object_set_new(o, "bisection", json_id(g->bisection_id));
	return o;
}

json_t *fl_ui_regressions_json(const struct fl_view_regression *g, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, fl_ui_regression_json(&g[i]));
	return a;
}

json_t *fl_ui_bisection_json(const struct fl_view_bisection *b)
{
	json_t *o = json_pack(
	    "{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:I}", "id", (json_int_t)b->id,
	    "regression", b->regression_id ? json_integer(b->regression_id) : json_null(), "good",
	    fl_web_json_str(b->good), "bad", fl_web_json_str(b->bad), "state",
	    fl_web_json_str(b->state), "result", fl_web_json_str(b->result), "culprit",
	    fl_ui_commit_json(&b->culprit), "confidence", fl_web_json_num(b->confidence), "created",
	    (json_int_t)b->created, "finished",
	    b->finished ? json_integer(b->finished) : json_null(), "step_count",
	    (json_int_t)b->nsteps);

	json_object_set_new(
	    o, "progress",
	    json_pack("{s:o, s:o, s:o, s:o}", "commits_left",
		      b->remaining ? json_integer((json_int_t)b->remaining) : json_null(), "best",
		      fl_web_json_str(b->best), "confidence", fl_web_json_num(b->last_confidence),
		      "phase", fl_web_json_str(b->phase)));
	json_object_set_new(o, "summary", fl_ui_json_text(b->summary));
	return o;
}

json_t *fl_ui_bisections_json(const struct fl_view_bisection *b, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, fl_ui_bisection_json(&b[i]));
	return a;
}

json_t *fl_ui_report_json(const struct fl_view_report *r)
{
	return json_pack(
	    "{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:I, s:o, s:o}", "id", (json_int_t)r->id,
	    "regression", r->regression_id ? json_integer(r->regression_id) : json_null(),
	    "message_id", fl_web_json_str(r->message_id), "in_reply_to",
	    fl_web_json_str(r->in_reply_to), "subject", fl_web_json_str(r->subject), "body",
	    fl_web_json_str(r->body), "state", fl_web_json_str(r->state), "attempts", r->attempts,
	    "last_error", fl_web_json_str(r->last_error), "created", (json_int_t)r->created, "sent",
	    r->sent ? json_integer(r->sent) : json_null(), "next_attempt",
	    r->next_attempt ? json_integer(r->next_attempt) : json_null());
}

void fl_ui_json_page(json_t *obj, unsigned page, int more)
{
	json_object_set_new(obj, "page", json_integer(page));
	json_object_set_new(obj, "more", json_boolean(more));
}

json_t *fl_ui_comparisons_json(const struct fl_view_comparison *c, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(
		    a,
		    json_pack(
			"{s:o, s:o, s:o, s:o, s:o, s:i, s:b, s:I, s:o, s:o, s:I, s:o, s:o, "
			"s:o, s:o, s:o, s:o}",
			"what", fl_web_json_str(c[i].what), "base", fl_web_json_str(c[i].base_sha),
			"new", fl_web_json_str(c[i].new_sha), "metric",
			fl_web_json_str(c[i].metric), "mode", fl_web_json_str(c[i].mode), "tasks",
			(int)c[i].tasks, "primary", c[i].is_primary, "base_runs",
			(json_int_t)c[i].base_runs, "base_mean", fl_web_json_num(c[i].base_mean),
			"base_stddev", fl_web_json_num(c[i].base_sd), "new_runs",
			(json_int_t)c[i].new_runs, "new_mean", fl_web_json_num(c[i].new_mean),
			"new_stddev", fl_web_json_num(c[i].new_sd), "change_pct",
			fl_web_json_num(c[i].change), "p_value", fl_web_json_num(c[i].p), "verdict",
			fl_web_json_str(c[i].verdict), "class", fl_web_json_str(c[i].class)));
	return a;
}

static json_t *strings_json(const char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, fl_web_json_str(v[i]));
	return a;
}

json_t *fl_ui_revert_json(const struct fl_view_revert *v)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o}", "culprit",
			 fl_web_json_str(v->culprit), "onto", fl_web_json_str(v->onto), "state",
			 fl_web_json_str(v->state), "commit", fl_web_json_str(v->commit_sha), "ref",
			 fl_web_json_str(v->ref), "conflicts",
			 strings_json(v->conflicts, v->nconflicts), "error",
			 fl_web_json_str(v->error), "verdict", fl_web_json_str(v->verdict),
			 "created", (json_int_t)v->created, "job", json_id(v->job_id),
			 "comparisons", fl_ui_comparisons_json(v->rows, v->nrows));
}

json_t *fl_ui_jobs_json(const struct fl_view_job *j, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(
		    a,
		    json_pack("{s:I, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o, "
			      "s:o, s:I, s:o, s:o, s:I, s:I, s:o, s:o}",
			      "id", (json_int_t)j[i].id, "kind", j[i].kind, "state",
			      fl_web_json_str(j[i].state), "tree", fl_web_json_str(j[i].tree),
			      "machine", fl_web_json_str(j[i].machine), "benchmark",
			      fl_web_json_str(j[i].benchmark), "role", fl_web_json_str(j[i].role),
			      "commit", fl_ui_commit_json(&j[i].commit), "tag",
			      fl_web_json_str(j[i].tag), "baseline", fl_web_json_str(j[i].baseline),
			      "parent", json_id(j[i].parent_id), "attempts", j[i].attempts,
			      "result", fl_web_json_str(j[i].result), "error",
			      fl_web_json_str(j[i].error), "created", (json_int_t)j[i].created,
			      "started", json_id(j[i].started), "finished", json_id(j[i].finished),
			      "runs", (json_int_t)j[i].children, "runs_done",
			      (json_int_t)j[i].children_done, "run", json_id(j[i].run_id), "about",
			      j[i].regression_id
				  ? json_pack("{s:I}", "regression", (json_int_t)j[i].regression_id)
				  : json_null()));
	return a;
}

static json_t *verdict_json(const struct fl_view_verdict *v)
{
	const char *word = fl_verdict_word(v->state, v->result);

	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:I, s:I, s:o}", "job",
			 (json_int_t)v->job_id, "benchmark", fl_web_json_str(v->benchmark),
			 "machine", fl_web_json_str(v->machine), "state", fl_web_json_str(v->state),
			 "verdict", fl_web_json_str(word), "error", fl_web_json_str(v->error),
			 "metric", fl_web_json_str(v->metric), "mode", fl_web_json_str(v->mode),
			 "tasks", (int)v->tasks, "change_pct", fl_web_json_num(v->change), "runs",
			 (json_int_t)v->runs_total, "runs_done", (json_int_t)v->runs_done,
			 "regression", json_id(v->regression_id));
}

json_t *fl_ui_tags_json(const struct fl_view_tag *t, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array();

		for (size_t k = 0; k < t[i].nverdicts; k++)
			json_array_append_new(v, verdict_json(&t[i].verdicts[k]));
		json_array_append_new(
		    a, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o}", "name",
				 fl_web_json_str(t[i].name), "kind",
				 fl_web_json_str(t[i].kind ? t[i].kind : "tag"), "state",
				 fl_web_json_str(t[i].state), "note", fl_web_json_str(t[i].note),
				 "baseline", fl_web_json_str(t[i].baseline), "commit",
				 fl_ui_commit_json(&t[i].commit), "baseline_commit",
				 fl_ui_commit_json(&t[i].base), "created", (json_int_t)t[i].created,
				 "verdicts", v));
	}
	return a;
}

json_t *fl_ui_machines_json(const struct fl_view_machine *m, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:o, s:i, s:o}", "name",
						   fl_web_json_str(m[i].name), "backend",
						   fl_web_json_str(m[i].backend), "state",
						   fl_web_json_str(m[i].state), "reason",
						   fl_web_json_str(m[i].reason), "infra_errors",
						   m[i].infra_errors, "facts",
						   fl_ui_json_text(m[i].facts)));
	return a;
}
