/*
 * web/ui-shared.c - what several pages render alike: tables of runs,
 * regressions and bisections, a mailed report, and the JSON of each row.
 */
#include "ui.h"
#include "../html.h"

#include <math.h>
#include <string.h>

void fl_ui_dl_row(fl_buf *out, const char *name, const char *html)
{
	fl_html_addf(out, "<dt>%s</dt><dd>%S</dd>\n", name, html);
}

static void cell_time(fl_buf *out, int64_t t)
{
	fl_buf_adds(out, "<td class='time'>");
	fl_web_time(out, t);
	fl_buf_adds(out, "</td>");
}

static void cell_commit(fl_buf *out, const struct fl_web_commit *c)
{
	fl_buf_adds(out, "<td class='commit'>");
	fl_web_commit_html(out, c->sha, c->subject);
	fl_buf_adds(out, "</td>");
}

void fl_ui_runs_table(fl_buf *out, const struct fl_web_run *r, size_t n)
{
	if (!n) {
		fl_buf_adds(out, "<p class='empty'>No runs.</p>\n");
		return;
	}
	fl_buf_adds(out, "<table class='runs'>\n<thead><tr><th>run</th><th>kernel</th>"
			 "<th>tree</th><th>benchmark</th><th>machine</th><th>status</th>"
			 "<th>started</th><th>finished</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < n; i++) {
		fl_html_addf(out, "<tr><td><a href='/run/%lld'>%lld</a></td>", (long long)r[i].id,
			     (long long)r[i].id);
		cell_commit(out, &r[i].commit);
		fl_html_addf(out, "<td>%s</td><td>%s</td><td>%s</td>",
			     r[i].commit.tree ? r[i].commit.tree : "-", r[i].benchmark,
			     r[i].machine);
		fl_html_addf(out, "<td class='status status-%s'>%s</td>", r[i].status, r[i].status);
		cell_time(out, r[i].started);
		cell_time(out, r[i].finished);
		fl_buf_adds(out, "</tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

void fl_ui_regressions_table(fl_buf *out, const struct fl_web_regression *g, size_t n)
{
	if (!n) {
		fl_buf_adds(out, "<p class='empty'>No regressions.</p>\n");
		return;
	}
	fl_buf_adds(out, "<table class='regressions'>\n<thead><tr><th>regression</th>"
			 "<th>tree</th><th>benchmark</th><th>metric</th><th>change</th>"
			 "<th>good</th><th>bad</th><th>machine</th><th>state</th>"
			 "<th>found</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < n; i++) {
		fl_html_addf(out, "<tr><td><a href='/regression/%lld'>%lld</a></td>",
			     (long long)g[i].id, (long long)g[i].id);
		fl_html_addf(out, "<td>%s</td><td>%s</td><td>%s %s %u</td>", g[i].tree,
			     g[i].benchmark, g[i].metric, g[i].mode, g[i].tasks);
		fl_html_addf(out, "<td class='num'>%.1f%%</td>", g[i].change);
		cell_commit(out, &g[i].good);
		cell_commit(out, &g[i].bad);
		fl_html_addf(out, "<td>%s</td><td>%s</td>", g[i].machine, g[i].state);
		cell_time(out, g[i].created);
		fl_buf_adds(out, "</tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

void fl_ui_bisections_table(fl_buf *out, const struct fl_web_bisection *b, size_t n)
{
	if (!n) {
		fl_buf_adds(out, "<p class='empty'>No bisections.</p>\n");
		return;
	}
	fl_buf_adds(out, "<table class='bisections'>\n<thead><tr><th>bisection</th><th>good</th>"
			 "<th>bad</th><th>state</th><th>result</th><th>culprit</th>"
			 "<th>confidence</th><th>steps</th><th>started</th></tr></thead>\n"
			 "<tbody>\n");
	for (size_t i = 0; i < n; i++) {
		fl_html_addf(out, "<tr><td><a href='/bisect/%lld'>%lld</a></td>",
			     (long long)b[i].id, (long long)b[i].id);
		fl_html_addf(out, "<td><code>%s</code></td><td><code>%s</code></td>", b[i].good,
			     b[i].bad);
		fl_html_addf(out, "<td class='status status-%s'>%s</td><td>%s</td>", b[i].state,
			     b[i].state, b[i].result ? b[i].result : "-");
		cell_commit(out, &b[i].culprit);
		if (isnan(b[i].confidence))
			fl_buf_adds(out, "<td class='num'>-</td>");
		else
			fl_html_addf(out, "<td class='num'>%.3f</td>", b[i].confidence);
		fl_html_addf(out, "<td class='num'>%zu</td>", b[i].nsteps);
		cell_time(out, b[i].created);
		fl_buf_adds(out, "</tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

void fl_ui_report_html(fl_buf *out, const struct fl_web_report *r)
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

json_t *fl_ui_commit_json(const struct fl_web_commit *c)
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

json_t *fl_ui_run_json(const struct fl_web_run *r)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o}", "id",
			 (json_int_t)r->id, "benchmark", fl_web_json_str(r->benchmark), "machine",
			 fl_web_json_str(r->machine), "status", fl_web_json_str(r->status),
			 "params", fl_ui_json_text(r->params), "started", (json_int_t)r->started,
			 "finished", r->finished ? json_integer(r->finished) : json_null(),
			 "kernel", fl_web_json_str(r->kernel), "build_status",
			 fl_web_json_str(r->build_status), "commit", fl_ui_commit_json(&r->commit));
}

json_t *fl_ui_runs_json(const struct fl_web_run *r, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, fl_ui_run_json(&r[i]));
	return a;
}

json_t *fl_ui_regression_json(const struct fl_web_regression *g)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:I}", "id",
			 (json_int_t)g->id, "tree", fl_web_json_str(g->tree), "good",
			 fl_ui_commit_json(&g->good), "bad", fl_ui_commit_json(&g->bad),
			 "benchmark", fl_web_json_str(g->benchmark), "machine",
			 fl_web_json_str(g->machine), "metric", fl_web_json_str(g->metric), "mode",
			 fl_web_json_str(g->mode), "tasks", (int)g->tasks, "change_pct",
			 fl_web_json_num(g->change), "p_value", fl_web_json_num(g->p_value),
			 "state", fl_web_json_str(g->state), "created", (json_int_t)g->created);
}

json_t *fl_ui_regressions_json(const struct fl_web_regression *g, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, fl_ui_regression_json(&g[i]));
	return a;
}

json_t *fl_ui_bisection_json(const struct fl_web_bisection *b)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:I}", "id",
			 (json_int_t)b->id, "regression",
			 b->regression_id ? json_integer(b->regression_id) : json_null(), "good",
			 fl_web_json_str(b->good), "bad", fl_web_json_str(b->bad), "state",
			 fl_web_json_str(b->state), "result", fl_web_json_str(b->result), "culprit",
			 fl_ui_commit_json(&b->culprit), "confidence",
			 fl_web_json_num(b->confidence), "created", (json_int_t)b->created,
			 "finished", b->finished ? json_integer(b->finished) : json_null(),
			 "step_count", (json_int_t)b->nsteps);
}

json_t *fl_ui_bisections_json(const struct fl_web_bisection *b, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, fl_ui_bisection_json(&b[i]));
	return a;
}

json_t *fl_ui_report_json(const struct fl_web_report *r)
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
