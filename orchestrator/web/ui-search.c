/*
 * web/ui-search.c - /search?q=...: the search box in every page's header.
 * A sha prefix (4 to 40 hex digits) finds commits, a tag's name (or its
 * start) the tags the watch service saw, and words the commits whose
 * subject holds every one of them (store/view.h's fl_view_search); each
 * found commit links to its page (/commit/<sha>), each tag to the tree.
 */
#include "web/ui.h"
#include "lib/html.h"

#include <string.h>

#define LIMIT 50

static void form(fl_buf *out, const char *q)
{
	fl_html_addf(out,
		     "<form class='search-page' method='get' action='/search'>\n"
		     "<label>sha, tag or subject words <input name='q' value='%s' "
		     "required></label>\n<button>search</button>\n</form>\n",
		     q ? q : "");
}

static void commits_list(fl_buf *out, const char *what, const struct fl_view_commit *c, size_t n)
{
	fl_html_addf(out, "<h2>%s</h2>\n", what);
	if (!n) {
		fl_buf_adds(out, "<p class='empty'>None.</p>\n");
		return;
	}
	fl_buf_adds(out, "<table class='found'>\n<thead><tr><th>commit</th><th>tree</th>"
			 "<th>author</th><th>date</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < n; i++) {
		fl_buf_adds(out, "<tr><td class='commit'>");
		fl_web_commit_html(out, c[i].sha, c[i].subject);
		fl_html_addf(out, "</td><td>%s</td><td>%s</td><td class='time'>", c[i].tree,
			     c[i].author);
		fl_web_time(out, c[i].time);
		fl_buf_adds(out, "</td></tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

static void tags_list(fl_buf *out, const struct fl_view_search *f)
{
	fl_buf_adds(out, "<h2>Tags</h2>\n");
	if (!f->ntags) {
		fl_buf_adds(out, "<p class='empty'>None.</p>\n");
		return;
	}
	fl_buf_adds(out, "<ul class='found-tags'>\n");
	for (size_t i = 0; i < f->ntags; i++) {
		fl_buf tree = FL_BUF_INIT;

		fl_buf_adds(&tree, "/tree/");
		fl_html_url_component(&tree, f->tags[i].tree);
		fl_html_addf(out, "<li><span class='tag'>%s</span> in <a href='%s'>%s</a>: ",
			     f->tags[i].name, tree.ptr, f->tags[i].tree);
		fl_web_commit_html(out, f->tags[i].commit.sha, f->tags[i].commit.subject);
		fl_buf_adds(out, "</li>\n");
		fl_buf_free(&tree);
	}
	fl_buf_adds(out, "</ul>\n");
}

static json_t *commits_json(const struct fl_view_commit *c, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, fl_ui_commit_json(&c[i]));
	return a;
}

static json_t *search_json(const char *q, const struct fl_view_search *f)
{
	json_t *tags = json_array();

	for (size_t i = 0; i < f->ntags; i++)
		json_array_append_new(tags, json_pack("{s:o, s:o, s:o}", "name",
						      fl_web_json_str(f->tags[i].name), "tree",
						      fl_web_json_str(f->tags[i].tree), "commit",
						      fl_ui_commit_json(&f->tags[i].commit)));
	return json_pack("{s:o, s:o, s:o, s:o}", "q", fl_web_json_str(q), "by_sha",
			 commits_json(f->by_sha, f->nsha), "tags", tags, "by_subject",
			 commits_json(f->by_subject, f->nsubject));
}

void fl_ui_search(struct fl_web_req *req, struct fl_web_resp *resp)
{
	const char *q = fl_web_arg(req, "q");
	struct fl_view_search f;
	fl_buf b = FL_BUF_INIT;
	int r;

	if (!req->json && (!q || !*q)) {
		fl_buf_adds(&b, "<h1>Search</h1>\n");
		form(&b, NULL);
		fl_web_page(req, resp, "search", &b);
		fl_buf_free(&b);
		return;
	}
	if (fl_web_need_arg(req, resp, "q", &q))
		return;
	if ((r = fl_view_search(req->st, &req->pool, q, LIMIT, &f))) {
		fl_web_fail_error(req, resp, r);
		return;
	}
	if (req->json) {
		fl_web_send_json(resp, 200, search_json(q, &f));
		return;
	}
	fl_html_addf(&b, "<h1>Search: %s</h1>\n", q);
	form(&b, q);
	if (f.nsha)
		commits_list(&b, "Commits by sha", f.by_sha, f.nsha);
	tags_list(&b, &f);
	commits_list(&b, "Commits by subject", f.by_subject, f.nsubject);
	fl_web_page(req, resp, "search", &b);
	fl_buf_free(&b);
}
