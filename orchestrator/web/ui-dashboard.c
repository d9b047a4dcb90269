/*
 * web/ui-dashboard.c - "/": the trees, each with its newest tags and the
 * verdict of every (benchmark, machine) against the tag's baseline (worse,
 * better, same, unclear, running with its runs so far, failed), and its
 * newest commits; open regressions; the jobs in progress (what they are
 * about, state, attempts, runs done); bisections in progress (commits left,
 * best candidate, confidence); machines out of the pool; runs in progress
 * and the latest runs.
 */
#include "web/ui.h"
#include "lib/html.h"
#include "service/pipeline.h"

#include <math.h>
#include <string.h>

#define LATEST 5
#define ROWS   20

struct dashboard {
	struct fl_view_tree *trees;
	size_t ntrees;
	struct fl_view_regression *open;
	size_t nopen;
	struct fl_view_bisection *bisecting;
	size_t nbisecting;
	struct fl_view_job *jobs;
	size_t njobs;
	struct fl_view_machine *broken;
	size_t nbroken;
	struct fl_view_run *active, *recent;
	size_t nactive, nrecent;
	int more_open, more_bisecting, more_jobs, more_active, more_recent;
};

static int load(struct fl_web_req *req, struct dashboard *d)
{
	struct fl_view_run_filter active = {.active = 1}, all = {0};
	struct fl_view_bisect_filter running = {.state = "running"};
	struct fl_view_job_filter live = {.live = 1};
	fl_pool *p = &req->pool;
	int r;

	if ((r = fl_model_trees(req->st, p, LATEST, &d->trees, &d->ntrees)) ||
	    (r = fl_view_regressions(req->st, p, "open", 1, ROWS, &d->open, &d->nopen,
				     &d->more_open)) ||
	    (r = fl_view_bisections(req->st, p, &running, 1, ROWS, &d->bisecting, &d->nbisecting,
				    &d->more_bisecting)) ||
	    (r = fl_view_jobs(req->st, p, &live, 1, ROWS, &d->jobs, &d->njobs, &d->more_jobs)) ||
	    (r = fl_view_machines(req->st, p, "broken", &d->broken, &d->nbroken)) ||
	    (r = fl_view_runs(req->st, p, &active, 1, ROWS, &d->active, &d->nactive,
			      &d->more_active)) ||
	    (r = fl_view_runs(req->st, p, &all, 1, ROWS / 2, &d->recent, &d->nrecent,
			      &d->more_recent)))
		return r;
	return 0;
}

static json_t *trees_json(const struct dashboard *d)
{
	json_t *a = json_array();

	for (size_t i = 0; i < d->ntrees; i++) {
		const struct fl_view_tree *t = &d->trees[i];
		json_t *latest = json_array();

		for (size_t j = 0; j < t->nlatest; j++)
			json_array_append_new(latest, fl_ui_commit_json(&t->latest[j]));
		json_array_append_new(
		    a, json_pack("{s:o, s:o, s:o, s:o}", "name", fl_web_json_str(t->name), "url",
				 fl_web_json_str(t->url), "tags",
				 fl_ui_tags_json(t->tags, t->ntags), "latest", latest));
	}
	return a;
}

/* The (benchmark, machine) columns of a tree's tag table: every pair a shown tag has. */
struct column {
	const char *benchmark, *machine;
};

static size_t tag_columns(fl_pool *p, const struct fl_view_tree *t, struct column **out)
{
	size_t n = 0, alloc = 0;

	*out = NULL;
	for (size_t i = 0; i < t->ntags; i++)
		for (size_t k = 0; k < t->tags[i].nverdicts; k++) {
			const struct fl_view_verdict *v = &t->tags[i].verdicts[k];
			size_t c = 0;

			while (c < n && (strcmp((*out)[c].benchmark, v->benchmark) ||
					 strcmp((*out)[c].machine, v->machine)))
				c++;
			if (c < n)
				continue;
			*out = fl_pool_grow(p, *out, sizeof(**out), n, &alloc);
			(*out)[n++] = (struct column){v->benchmark, v->machine};
		}
	return n;
}

static void verdict_cell(fl_buf *out, const struct fl_view_tag *tag,
			 const struct fl_view_verdict *v)
{
	fl_buf url = FL_BUF_INIT;
	const char *word;

	if (!v) {
		fl_buf_adds(out, "<td class='verdict'>-</td>");
		return;
	}
	word = fl_verdict_word(v->state, v->result);
	fl_html_addf(out, "<td class='verdict verdict-%s'%S", word, v->error ? " title='" : "");
	if (v->error)
		fl_html_addf(out, "%s'", v->error);
	fl_buf_adds(out, ">");
	fl_web_compare_url(&url, tag->tree, fl_web_link_rev(tag->baseline, tag->base.sha),
			   fl_web_link_rev(tag->name, tag->commit.sha), v->benchmark, v->machine);
	fl_html_addf(out, "<a href='%s'>%s</a>", url.ptr, word);
	if (isfinite(v->change)) {
		fl_buf_addf(out, " <span class='num'>%+.1f%%</span>", v->change);
		fl_html_addf(out, " <small>%s%S%s.%u</small>", v->mode, *v->mode ? "." : "",
			     v->metric, v->tasks);
	}
	if (v->runs_total && !fl_job_ended(v->state))
		fl_html_addf(out, " <small>%zu of %zu runs</small>", v->runs_done, v->runs_total);
	else if (fl_job_is(v->state, FL_STATE_QUEUED))
		fl_buf_adds(out, " <small>queued</small>");
	if (fl_job_is(v->state, FL_STATE_FAILED)) /* the jobs page says why and how to retry */
		fl_html_addf(out, " <a href='/jobs?state=%s#job-%lld'>job %lld: why, retry</a>",
			     v->state, (long long)v->job_id, (long long)v->job_id);
	if (v->regression_id)
		fl_html_addf(out, " <a href='/regression/%lld'>regression %lld</a>",
			     (long long)v->regression_id, (long long)v->regression_id);
	fl_buf_adds(out, "</td>");
	fl_buf_free(&url);
}

static const struct fl_view_verdict *find_verdict(const struct fl_view_tag *t,
						  const struct column *c)
{
	for (size_t k = 0; k < t->nverdicts; k++)
		if (!strcmp(t->verdicts[k].benchmark, c->benchmark) &&
		    !strcmp(t->verdicts[k].machine, c->machine))
			return &t->verdicts[k];
	return NULL;
}

static void tags_table(fl_buf *out, fl_pool *p, const struct fl_view_tree *t)
{
	struct column *cols;
	size_t ncols = tag_columns(p, t, &cols);

	if (!t->ntags)
		return;
	fl_buf_adds(out, "<table class='tags'>\n<thead><tr><th>tag or head</th><th>baseline</th>");
	for (size_t c = 0; c < ncols; c++)
		fl_html_addf(out, "<th>%s on %s</th>", cols[c].benchmark, cols[c].machine);
	fl_buf_adds(out, "</tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < t->ntags; i++) {
		const struct fl_view_tag *tag = &t->tags[i];

		fl_html_addf(out, "<tr><td><span class='tag'>%s</span> ", tag->name);
		fl_web_commit_html(out, tag->commit.sha, NULL);
		if (tag->baseline && tag->note)
			fl_html_addf(out, "</td><td>%s <small class='note'>%s</small></td>",
				     tag->baseline, tag->note);
		else if (tag->baseline)
			fl_html_addf(out, "</td><td>%s</td>", tag->baseline);
		else
			fl_html_addf(out, "</td><td class='empty' title='%s'>%s</td>",
				     tag->note ? tag->note : "", tag->state);
		for (size_t c = 0; c < ncols; c++)
			verdict_cell(out, tag, find_verdict(tag, &cols[c]));
		fl_buf_adds(out, "</tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

static void trees_html(fl_buf *out, fl_pool *p, const struct dashboard *d)
{
	fl_buf_adds(out, "<section class='trees'>\n<h2>Trees</h2>\n");
	if (!d->ntrees)
		fl_buf_adds(out, "<p class='empty'>No trees yet.</p>\n");
	for (size_t i = 0; i < d->ntrees; i++) {
		const struct fl_view_tree *t = &d->trees[i];
		fl_buf url = FL_BUF_INIT;

		fl_buf_adds(&url, "/tree/");
		fl_html_url_component(&url, t->name);
		fl_html_addf(out, "<h3><a href='%s'>%s</a> <small>%s</small></h3>\n", url.ptr,
			     t->name, t->url);
		tags_table(out, p, t);
		fl_buf_adds(out, "<ul class='commits'>\n");
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

static void broken_html(fl_buf *out, const struct dashboard *d)
{
	if (!d->nbroken)
		return;
	fl_buf_adds(out, "<section>\n<h2>Machines out of the pool</h2>\n<ul class='broken'>\n");
	for (size_t i = 0; i < d->nbroken; i++)
		fl_html_addf(out,
			     "<li><strong>%s</strong> (%s): %d infra errors in a row: <span "
			     "class='error'>%s</span>; back with <code>faultline queue enable "
			     "%s</code></li>\n",
			     d->broken[i].name, d->broken[i].backend, d->broken[i].infra_errors,
			     d->broken[i].reason ? d->broken[i].reason : "broken",
			     d->broken[i].name);
	fl_buf_adds(out, "</ul>\n</section>\n");
}

static void more_link(fl_buf *out, int more, const char *href, const char *text)
{
	if (more)
		fl_html_addf(out, "<p class='more'><a href='%s'>%s</a></p>\n", href, text);
}

static json_t *dashboard_json(const struct dashboard *d)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "trees", trees_json(d),
			 "open_regressions", fl_ui_regressions_json(d->open, d->nopen),
			 "running_bisections", fl_ui_bisections_json(d->bisecting, d->nbisecting),
			 "jobs", fl_ui_jobs_json(d->jobs, d->njobs), "broken_machines",
			 fl_ui_machines_json(d->broken, d->nbroken), "active_runs",
			 fl_ui_runs_json(d->active, d->nactive), "recent_runs",
			 fl_ui_runs_json(d->recent, d->nrecent));
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
		fl_web_send_json(resp, 200, dashboard_json(&d));
		return;
	}
	fl_buf_adds(&b, "<h1>faultline</h1>\n");
	trees_html(&b, &req->pool, &d);
	fl_buf_adds(&b, "<section>\n<h2>Open regressions</h2>\n");
	fl_ui_regressions_table(&b, d.open, d.nopen);
	more_link(&b, d.more_open, "/regressions?state=open", "all open regressions");
	fl_buf_adds(&b, "</section>\n<section>\n<h2>Jobs in progress</h2>\n");
	fl_ui_jobs_table(&b, d.jobs, d.njobs);
	more_link(&b, d.more_jobs, "/jobs?state=live&page=2", "more jobs in progress");
	fl_buf_adds(&b, "</section>\n<section>\n<h2>Bisections in progress</h2>\n");
	fl_ui_bisections_table(&b, d.bisecting, d.nbisecting);
	more_link(&b, d.more_bisecting, "/bisections?state=running", "all running bisections");
	fl_buf_adds(&b, "</section>\n");
	broken_html(&b, &d);
	fl_buf_adds(&b, "<section>\n<h2>Runs in progress</h2>\n");
	fl_ui_runs_table(&b, d.active, d.nactive);
	more_link(&b, d.more_active, "/runs?status=running", "all running runs");
	fl_buf_adds(&b, "</section>\n<section>\n<h2>Latest runs</h2>\n");
	fl_ui_runs_table(&b, d.recent, d.nrecent);
	more_link(&b, d.more_recent, "/runs?page=2", "older runs");
	fl_buf_adds(&b, "</section>\n");
	fl_web_page(req, resp, "dashboard", &b);
	fl_buf_free(&b);
}
