/*
 * web/web.h - what the page files (ui-*.c) share: a request, a response,
 * and the helpers every page uses (parameters, error pages, the layout,
 * paging links, JSON). cgit's shape: one ui-*.c per page, router.c maps a
 * path to its handler, html.c is the one place text becomes markup, and
 * every page's data comes from store/view.h (rows) and web/model.h (what is
 * computed from them).
 *
 * A handler serves both the HTML page and its /api/ JSON twin: it loads
 * its data once and renders one or the other (req->json).
 */
#ifndef FL_WEB_H
#define FL_WEB_H

#include "lib/buf.h"
#include "lib/pool.h"
#include "analysis/stats.h"
#include "store/store.h"

#include <jansson.h>
#include <stdint.h>

struct fl_config;
struct fl_tmpl;

/* Server-wide and read-only once serving: shared by every thread. */
struct fl_web {
	const struct fl_config *cfg;
	const char *static_dir; /* <root>/static */
	struct fl_tmpl *layout; /* <root>/templates/layout.html */
};

struct fl_web_req {
	const struct fl_web *web;
	fl_store *st;	  /* this thread's read-only connection */
	fl_pool pool;	  /* freed when the response is sent */
	const char *path; /* decoded, without the query */
	const char *rest; /* what follows the route's prefix ("12", "mainline") */
	int json;	  /* an /api/ request */
	/* a query parameter (decoded), or NULL */
	const char *(*arg)(void *ctx, const char *name);
	void *arg_ctx;
};

struct fl_web_resp {
	int status;
	const char *type; /* Content-Type */
	fl_buf body;
	int fd; /* >= 0: send this file instead of body (static files) */
	uint64_t size;
	int cacheable; /* static: may be cached by the browser */
};

typedef void (*fl_web_handler)(struct fl_web_req *req, struct fl_web_resp *resp);

/* Routes req->path to its page; always fills resp (404 for unknown paths). */
void fl_web_route(struct fl_web_req *req, struct fl_web_resp *resp);

/* ---- parameters (page.c): each failure fills resp with a 400 and returns -1 ---- */
const char *fl_web_arg(const struct fl_web_req *req, const char *name);
/* These parse a request's parameter: 0, or FL_EINVAL once a 400 saying
 * what is wrong is answered (the message kept for fl_error_last()). */
/* A positive decimal id, as in /run/12. */
int fl_web_id(struct fl_web_req *req, struct fl_web_resp *resp, const char *text, int64_t *id);
/* ?page=N (default 1). */
int fl_web_page_arg(struct fl_web_req *req, struct fl_web_resp *resp, unsigned *page);
/* ?name=N, a positive number (default 0 when absent). */
int fl_web_uint_arg(struct fl_web_req *req, struct fl_web_resp *resp, const char *name,
		    unsigned *v);
/* A required parameter: 400 naming it when absent or empty. */
int fl_web_need_arg(struct fl_web_req *req, struct fl_web_resp *resp, const char *name,
		    const char **v);
/* A name (benchmark, machine, metric, mode): letters, digits, . _ : + @ -, else 400;
 * NULL when absent or empty. */
int fl_web_name_arg(struct fl_web_req *req, struct fl_web_resp *resp, const char *name,
		    const char **v);

/* ---- responses (page.c) ---- */
/* A short page (or JSON object) saying what was wrong; the message is escaped. */
void fl_web_fail(struct fl_web_req *req, struct fl_web_resp *resp, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* 404 for FL_ENOTFOUND, 400 for FL_EINVAL, 500 otherwise, with fl_error_last(). */
void fl_web_fail_error(struct fl_web_req *req, struct fl_web_resp *resp, int err);
/* The page body (raw HTML) inside the layout; title is plain text. */
void fl_web_page(struct fl_web_req *req, struct fl_web_resp *resp, const char *title,
		 const fl_buf *body);
/* Sends root as the JSON response (and releases it). */
void fl_web_send_json(struct fl_web_resp *resp, int status, json_t *root);

/* Which way is better for a benchmark, from the configuration (higher by default). */
enum fl_direction fl_web_direction(const struct fl_web *web, const char *benchmark);

/* ---- rendering helpers (page.c) ---- */
/* "2014-09-04 13:27 UTC", or "-" for 0. */
void fl_web_time(fl_buf *out, int64_t t);
/* A commit as its short sha (12 digits, the whole sha its title) linked to
 * its page (/commit/<sha>), with its subject when known. */
void fl_web_commit_html(fl_buf *out, const char *sha, const char *subject);
/* A revision as given (a bisection's good and bad): a full sha as
 * fl_web_commit_html shows it, anything else as code. */
void fl_web_rev_html(fl_buf *out, const char *rev);
/*
 * path?name=value&... for the pairs whose value is not NULL (kv: name,
 * value, ..., NULL), each value URL-escaped; HTML-escape it when writing it
 * into an attribute (fl_html_addf's %s does).
 */
void fl_web_url(fl_buf *out, const char *path, const char *const *kv);
/*
 * A /compare link: revisions a and b (a tag's name when a URL may carry it,
 * else the sha: fl_web_link_rev) in tree (NULL: any), on benchmark and
 * machine. Two trees may share tag names: a link names its tree.
 */
void fl_web_compare_url(fl_buf *out, const char *tree, const char *a, const char *b,
			const char *benchmark, const char *machine);
/* A revision for a link: the tag's name when a URL may carry it, else the sha. */
const char *fl_web_link_rev(const char *tag, const char *sha);
/* "newer / page N / older" links to base (a URL from fl_web_url) with page=N added. */
void fl_web_pager(fl_buf *out, const char *base, unsigned page, int more);
/* A number with 4 significant digits, or "-" for NAN. */
void fl_web_num(fl_buf *out, double v);
/* Text as a JSON string: invalid UTF-8 becomes U+FFFD, NULL becomes null. */
json_t *fl_web_json_str(const char *s);
/* A number, or null for NAN and infinities. */
json_t *fl_web_json_num(double v);

#endif
