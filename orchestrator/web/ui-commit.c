/*
 * web/ui-commit.c - /commit/<sha>?tree=T: one commit (a full sha, or a
 * prefix of at least 4 digits that names one) as the store knows it: its
 * subject and author, the trees and tags it is in, a link to its page on
 * the tree's cgit or gitweb (trees[].web_url, "%s" the sha), and every run,
 * regression and bisection that touches it (measured it; found it good,
 * bad or the culprit; stepped on it). Every sha on the other pages links
 * here. The subject and author are the tree's text: escaped like all text.
 */
#include "web/ui.h"
#include "config/config.h"
#include "lib/html.h"

#include <stdio.h>
#include <string.h>

#define RUNS 30

struct commit_page {
	const char *sha, *tree;	    /* tree: NULL for any */
	struct fl_view_commit *rows; /* one per tree that has it */
	size_t nrows;
	const char **tags;
	size_t ntags;
	struct fl_view_run *runs;
	size_t nruns;
	int more_runs;
	unsigned page;
	struct fl_view_regression *regs;
	size_t nregs;
	struct fl_view_bisection *bis;
	size_t nbis;
};

/* The tree's web_url with the sha in place of its %s (%% a %), or NULL. */
static void web_link(fl_buf *out, const struct fl_config *cfg, const struct fl_view_commit *c)
{
	const struct fl_tree_conf *t = cfg && c->tree ? fl_config_tree(cfg, c->tree) : NULL;
	fl_buf url = FL_BUF_INIT;

	if (!t || !t->web_url)
		return;
	for (const char *p = t->web_url; *p; p++) {
		if (p[0] == '%' && p[1] == 's') {
			fl_html_url_component(&url, c->sha);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			fl_buf_addch(&url, '%');
			p++;
		} else
			fl_buf_addch(&url, *p);
	}
	fl_html_addf(out, " (<a class='web-url' href='%s'>the commit on %s's git web</a>)", url.ptr,
		     c->tree);
	fl_buf_free(&url);
}

static void commit_html(fl_buf *out, const struct fl_config *cfg, const struct commit_page *cp)
{
	const struct fl_view_commit *c = &cp->rows[0];
	fl_buf v = FL_BUF_INIT;
	char abbrev[13];

	snprintf(abbrev, sizeof(abbrev), "%s", c->sha);
	fl_html_addf(out, "<h1>Commit <code title='%s'>%s</code></h1>\n", c->sha, abbrev);
	fl_html_addf(out, "<p class='subject'>%s</p>\n<dl class='facts'>\n", c->subject);
	fl_html_addf(&v, "<code>%s</code>", c->sha);
	fl_ui_dl_row(out, "sha", v.ptr);
	fl_buf_reset(&v);
	fl_html_addf(&v, "%s", *c->author ? c->author : "-");
	fl_ui_dl_row(out, "author", v.ptr);
	fl_buf_reset(&v);
	fl_web_time(&v, c->time);
	fl_ui_dl_row(out, "date", v.ptr);
	fl_buf_reset(&v);
	for (size_t i = 0; i < cp->nrows; i++) {
		fl_buf tree = FL_BUF_INIT;

		fl_buf_adds(&tree, "/tree/");
		fl_html_url_component(&tree, cp->rows[i].tree);
		fl_html_addf(&v, "%S<a href='%s?by=commit'>%s</a>", i ? ", " : "", tree.ptr,
			     cp->rows[i].tree);
		web_link(&v, cfg, &cp->rows[i]);
		fl_buf_free(&tree);
	}
	fl_ui_dl_row(out, cp->nrows == 1 ? "tree" : "trees", v.ptr);
	fl_buf_reset(&v);
	for (size_t i = 0; i < cp->ntags; i++)
		fl_html_addf(&v, "%S<span class='tag'>%s</span>", i ? " " : "", cp->tags[i]);
	fl_ui_dl_row(out, "tags", cp->ntags ? v.ptr : "-");
	fl_buf_free(&v);
	fl_buf_adds(out, "</dl>\n<h2>Regressions</h2>\n");
	fl_ui_regressions_table(out, cp->regs, cp->nregs);
	fl_buf_adds(out, "<h2>Bisections</h2>\n");
	fl_ui_bisections_table(out, cp->bis, cp->nbis);
	fl_buf_adds(out, "<h2>Runs</h2>\n");
	fl_ui_runs_table(out, cp->runs, cp->nruns);
	{
		char base[128];

		snprintf(base, sizeof(base), "/commit/%s", c->sha);
		fl_web_pager(out, base, cp->page, cp->more_runs);
	}
}

static json_t *commit_json(const struct commit_page *cp)
{
	json_t *trees = json_array(), *tags = json_array(), *o;

	for (size_t i = 0; i < cp->nrows; i++)
		json_array_append_new(trees, fl_ui_commit_json(&cp->rows[i]));
	for (size_t i = 0; i < cp->ntags; i++)
		json_array_append_new(tags, fl_web_json_str(cp->tags[i]));
	o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "commit", fl_ui_commit_json(&cp->rows[0]),
		      "trees", trees, "tags", tags, "runs", fl_ui_runs_json(cp->runs, cp->nruns),
		      "regressions", fl_ui_regressions_json(cp->regs, cp->nregs), "bisections",
		      fl_ui_bisections_json(cp->bis, cp->nbis));
	fl_ui_json_page(o, cp->page, cp->more_runs);
	return o;
}

static int load(struct fl_web_req *req, struct commit_page *cp)
{
	fl_pool *p = &req->pool;
	struct fl_view_commit c;
	int r;

	/* a prefix or a tag is resolved first (in the tree, when named) */
	if ((r = fl_view_rev_resolve(req->st, p, cp->tree, cp->sha, &c)))
		return r;
	cp->sha = c.sha;
	if ((r = fl_view_commit_rows(req->st, p, cp->sha, cp->tree, &cp->rows, &cp->nrows)) ||
	    (r = fl_view_commit_tags(req->st, p, cp->rows[0].id, &cp->tags, &cp->ntags)) ||
	    (r = fl_view_commit_run_list(req->st, p, cp->sha, cp->page, RUNS, &cp->runs, &cp->nruns,
					 &cp->more_runs)) ||
	    (r = fl_view_commit_regressions(req->st, p, cp->sha, &cp->regs, &cp->nregs)) ||
	    (r = fl_view_commit_bisections(req->st, p, cp->sha, &cp->bis, &cp->nbis)))
		return r;
	return 0;
}

void fl_ui_commit(struct fl_web_req *req, struct fl_web_resp *resp)
{
	struct commit_page cp = {0};
	fl_buf b = FL_BUF_INIT;
	char title[64];
	int r;

	cp.sha = req->rest;
	if (fl_web_page_arg(req, resp, &cp.page) || fl_web_name_arg(req, resp, "tree", &cp.tree))
		return;
	if ((r = load(req, &cp))) {
		fl_web_fail_error(req, resp, r);
		return;
	}
	if (!cp.nrows) { /* resolved, so stored: only a tree that does not have it */
		fl_web_fail(req, resp, 404, "commit %.12s is not in tree %s", cp.sha,
			    cp.tree ? cp.tree : "-");
		return;
	}
	if (req->json) {
		fl_web_send_json(resp, 200, commit_json(&cp));
		return;
	}
	commit_html(&b, req->web->cfg, &cp);
	snprintf(title, sizeof(title), "commit %.12s", cp.sha);
	fl_web_page(req, resp, title, &b);
	fl_buf_free(&b);
}
