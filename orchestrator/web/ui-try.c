/*
 * web/ui-try.c - /try/<id>: a proposed fix that was tried (service/try.h):
 * what was tried (the patch and its commit, or the revision), on what base,
 * for which regression, the job's state, the verdict, the fix measured
 * against the base and the good commit (the comparisons' rows, LKP's shape),
 * the runs, the answer as it was printed and mailed, and links to compare
 * the fix with its base. /api/try/<id> is the same as JSON.
 */
#include "web/ui.h"
#include "lib/error.h"
#include "lib/html.h"
#include "service/pipeline.h"
#include "store/try.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define RUNS 100

struct try_page {
	struct fl_try t;
	struct fl_job job; /* id 0: none */
	struct fl_view_comparison *rows;
	size_t nrows;
	struct fl_view_run *runs;
	size_t nruns;
	int more_runs;
};

static void facts(fl_buf *out, const struct try_page *tp)
{
	const struct fl_try *t = &tp->t;
	fl_buf v = FL_BUF_INIT;

	fl_buf_adds(out, "<dl class='facts'>\n");
	fl_html_addf(&v, "%s, %s on %s", t->tree, t->benchmark, t->machine);
	fl_ui_dl_row(out, "measured", v.ptr);
	fl_buf_reset(&v);
	if (t->regression_id) {
		fl_html_addf(&v, "<a href='/regression/%lld'>regression %lld</a>",
			     (long long)t->regression_id, (long long)t->regression_id);
		fl_ui_dl_row(out, "for", v.ptr);
		fl_buf_reset(&v);
	}
	if (t->patch_name) {
		fl_html_addf(&v, "%s", t->patch_name);
		fl_ui_dl_row(out, "patch", v.ptr);
		fl_buf_reset(&v);
	}
	fl_web_commit_html(&v, t->base_sha, NULL);
	fl_ui_dl_row(out, "base", v.ptr);
	fl_buf_reset(&v);
	if (t->good_sha) {
		fl_web_commit_html(&v, t->good_sha, NULL);
		fl_ui_dl_row(out, "good", v.ptr);
		fl_buf_reset(&v);
	}
	if (t->commit_sha) {
		fl_web_commit_html(&v, t->commit_sha, t->subject);
		if (t->ref)
			fl_html_addf(&v, " (%s)", t->ref);
		fl_ui_dl_row(out, "fix", v.ptr);
		fl_buf_reset(&v);
	}
	fl_html_addf(&v, "%s", t->state);
	if (t->conflict || t->error)
		fl_html_addf(&v, ": %s", t->conflict ? t->conflict : t->error);
	fl_ui_dl_row(out, "candidate", v.ptr);
	fl_buf_reset(&v);
	if (tp->job.id) {
		fl_html_addf(&v, "%lld, %s", (long long)tp->job.id, tp->job.state);
		fl_ui_dl_row(out, "job", v.ptr);
		fl_buf_reset(&v);
	}
	fl_html_addf(&v, "<span class='verdict'>%s</span>", t->verdict ? t->verdict : "not yet");
	if (t->verdict && !isnan(t->recovered_pct))
		fl_html_addf(&v, " (recovers %.0f%% of the drop)", t->recovered_pct);
	fl_ui_dl_row(out, "verdict", v.ptr);
	fl_buf_free(&v);
	fl_buf_adds(out, "</dl>\n");
}

static void try_html(fl_buf *out, const struct try_page *tp)
{
	const struct fl_try *t = &tp->t;

	fl_html_addf(out, "<h1>Try %lld</h1>\n", (long long)t->id);
	facts(out, tp);
	if (t->commit_sha) {
		fl_buf url = FL_BUF_INIT;

		fl_web_compare_url(&url, t->tree, t->base_sha, t->commit_sha, t->benchmark,
				   t->machine);
		fl_html_addf(out, "<p><a href='%s'>compare the fix with its base</a></p>\n",
			     url.ptr);
		fl_buf_free(&url);
	}
	fl_buf_adds(out, "<h2>The fix against its base</h2>\n");
	fl_ui_comparisons_table(out, tp->rows, tp->nrows, "try-base");
	if (t->good_sha) {
		fl_buf_adds(out, "<h2>The fix against the good commit</h2>\n");
		fl_ui_comparisons_table(out, tp->rows, tp->nrows, "try-good");
	}
	fl_buf_adds(out, "<h2>Runs</h2>\n");
	fl_ui_runs_table(out, tp->runs, tp->nruns);
	if (tp->more_runs)
		fl_html_addf(out, "<p class='more'>The newest %u are shown.</p>\n", RUNS);
	if (t->summary)
		fl_html_addf(out, "<h2>The answer</h2>\n<pre class='summary'>%s</pre>\n",
			     t->summary);
	if (t->report_id)
		fl_html_addf(out, "<p>Mailed as <a href='/report/%lld'>report %lld</a>.</p>\n",
			     (long long)t->report_id, (long long)t->report_id);
}

static json_t *try_json(const struct try_page *tp)
{
	const struct fl_try *t = &tp->t;
	json_t *o = json_object();

	json_object_set_new(o, "id", json_integer(t->id));
	json_object_set_new(o, "regression_id",
			    t->regression_id ? json_integer(t->regression_id) : json_null());
	json_object_set_new(o, "tree", fl_web_json_str(t->tree));
	json_object_set_new(o, "benchmark", fl_web_json_str(t->benchmark));
	json_object_set_new(o, "machine", fl_web_json_str(t->machine));
	json_object_set_new(o, "base", fl_web_json_str(t->base_sha));
	json_object_set_new(o, "good", fl_web_json_str(t->good_sha));
	json_object_set_new(o, "patch_name", fl_web_json_str(t->patch_name));
	json_object_set_new(o, "state", fl_web_json_str(t->state));
	json_object_set_new(o, "fix", fl_web_json_str(t->commit_sha));
	json_object_set_new(o, "subject", fl_web_json_str(t->subject));
	json_object_set_new(o, "conflict", fl_web_json_str(t->conflict));
	json_object_set_new(o, "error", fl_web_json_str(t->error));
	json_object_set_new(o, "verdict", fl_web_json_str(t->verdict));
	json_object_set_new(o, "recovered_pct", fl_web_json_num(t->recovered_pct));
	json_object_set_new(o, "summary", fl_web_json_str(t->summary));
	json_object_set_new(o, "report_id",
			    t->report_id ? json_integer(t->report_id) : json_null());
	json_object_set_new(o, "job_state",
			    tp->job.id ? fl_web_json_str(tp->job.state) : json_null());
	json_object_set_new(o, "comparisons", fl_ui_comparisons_json(tp->rows, tp->nrows));
	json_object_set_new(o, "runs", fl_ui_runs_json(tp->runs, tp->nruns));
	return o;
}

static int load(struct fl_web_req *req, int64_t id, struct try_page *tp)
{
	char key[48];
	int r;

	if ((r = fl_store_try_get(req->st, id, &tp->t)))
		return r;
	snprintf(key, sizeof(key), "%s:%lld", fl_job_kind_name(FL_JOB_TRY), (long long)id);
	r = fl_store_job_find(req->st, key, &tp->job);
	if (r == FL_ENOTFOUND)
		return 0;
	if (r || (r = fl_view_comparisons(req->st, &req->pool, tp->job.id, &tp->rows, &tp->nrows)))
		return r;
	return fl_view_job_runs(req->st, &req->pool, tp->job.id, 1, RUNS, &tp->runs, &tp->nruns,
				&tp->more_runs);
}

void fl_ui_try(struct fl_web_req *req, struct fl_web_resp *resp)
{
	struct try_page tp = {0};
	fl_buf b = FL_BUF_INIT;
	char title[48];
	int64_t id;
	int r;

	if (fl_web_id(req, resp, req->rest, &id))
		return;
	if ((r = load(req, id, &tp)))
		fl_web_fail_error(req, resp, r);
	else if (req->json)
		fl_web_send_json(resp, 200, try_json(&tp));
	else {
		try_html(&b, &tp);
		snprintf(title, sizeof(title), "try %lld", (long long)id);
		fl_web_page(req, resp, title, &b);
	}
	fl_buf_free(&b);
	fl_job_release(&tp.job);
	fl_try_release(&tp.t);
}
