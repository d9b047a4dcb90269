/*
 * web/server.c - the results pages on lib/httpd.h's server (see server.h):
 * a read-only store connection per thread, GET and HEAD only, the response
 * headers every page gets.
 */
#include "web/server.h"
#include "web/template.h"
#include "web/web.h"
#include "lib/error.h"
#include "lib/httpd.h"
#include "lib/log.h"
#include "store/threads.h"

#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * No script runs on these pages, and nothing loads from elsewhere: should
 * an escaping bug ever let markup through, the browser still refuses it.
 */
#define CSP                                                                                        \
	"default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "         \
	"base-uri 'none'; frame-ancestors 'none'"

struct fl_web_server {
	fl_httpd *httpd;
	struct fl_web web;
	char *static_dir;
	struct fl_store_threads stores;
};

static const char *arg_lookup(void *ctx, const char *name)
{
	return fl_httpd_arg(ctx, name);
}

static int send_response(struct MHD_Connection *c, struct fl_httpd_req *rq,
			 struct fl_web_resp *resp)
{
	struct MHD_Response *r;
	uint64_t bytes;

	if (resp->fd >= 0) {
		r = MHD_create_response_from_fd64(resp->size, resp->fd);
		bytes = resp->size;
	} else {
		bytes = resp->body.len;
		r = MHD_create_response_from_buffer((size_t)bytes, fl_buf_detach(&resp->body),
						    MHD_RESPMEM_MUST_FREE);
	}
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, resp->type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Content-Security-Policy", CSP);
	MHD_add_response_header(r, "Referrer-Policy", "same-origin");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
				resp->cacheable ? "max-age=3600" : "no-cache");
	if (resp->status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	return fl_httpd_queue(c, rq, resp->status, r, bytes);
}

/* An error page (or its JSON for /api/) as the answer. */
static int send_error(struct fl_web_server *s, struct MHD_Connection *c, struct fl_httpd_req *rq,
		      int status, const char *message)
{
	struct fl_web_req req = {.web = &s->web, .path = rq->url};
	struct fl_web_resp resp = {.status = 500, .type = "text/plain", .fd = -1};
	int ret;

	req.json = !strcmp(rq->url, "/api") || !strncmp(rq->url, "/api/", 5);
	fl_web_fail(&req, &resp, status, "%s", message);
	ret = send_response(c, rq, &resp);
	fl_buf_free(&resp.body);
	fl_pool_free(&req.pool);
	return ret;
}

static int refuse(void *cls, struct MHD_Connection *c, struct fl_httpd_req *rq, int status,
		  const char *message)
{
	return send_error(cls, c, rq, status, message);
}

/* Only GET and HEAD: anything else is refused before its body is read. */
static int head(void *cls, struct MHD_Connection *c, struct fl_httpd_req *rq)
{
	char msg[64];

	if (!strcmp(rq->method, MHD_HTTP_METHOD_GET) || !strcmp(rq->method, MHD_HTTP_METHOD_HEAD))
		return 0;
	snprintf(msg, sizeof(msg), "%.15s is not served here", rq->method);
	return send_error(cls, c, rq, MHD_HTTP_METHOD_NOT_ALLOWED, msg) == MHD_YES ? 1 : -1;
}

static int handle(void *cls, struct MHD_Connection *c, struct fl_httpd_req *rq)
{
	struct fl_web_server *s = cls;
	struct fl_web_req req = {.web = &s->web, .path = rq->url, .arg = arg_lookup, .arg_ctx = rq};
	struct fl_web_resp resp = {.status = 500, .type = "text/plain", .fd = -1};
	int ret;

	if (!(req.st = fl_store_thread(&s->stores)))
		fl_web_fail(&req, &resp, MHD_HTTP_SERVICE_UNAVAILABLE, "%s", fl_error_last());
	else
		fl_web_route(&req, &resp);
	ret = send_response(c, rq, &resp);
	fl_buf_free(&resp.body);
	fl_pool_free(&req.pool);
	return ret;
}

static const struct fl_httpd_ops ops = {head, handle, refuse};

static int load_web(struct fl_web_server *s, const char *root)
{
	static const char *const slots[] = {"title", "body", "version", NULL};
	char *layout = fl_xasprintf("%s/templates/layout.html", root);
	struct stat sb;
	int r;

	s->static_dir = fl_xasprintf("%s/static", root);
	s->web.static_dir = s->static_dir;
	r = fl_tmpl_load(&s->web.layout, layout, slots);
	free(layout);
	if (r)
		return fl_error_wrap(r, "web root %s", root);
	if (stat(s->static_dir, &sb) || !S_ISDIR(sb.st_mode))
		return fl_error_set(FL_EIO, "web root %s: no directory %s", root, s->static_dir);
	return 0;
}

/* Fails here rather than on every page: a missing or old store is said once, at start. */
static int check_store(const char *path)
{
	fl_store *st;
	int r = fl_store_open(&st, path, FL_STORE_READONLY);

	fl_store_free(st);
	return r;
}

int fl_web_server_start(struct fl_web_server **out, const struct fl_web_server_opts *o)
{
	struct fl_web_server *s = fl_xcalloc(1, sizeof(*s));
	struct fl_httpd_opts ho = {"serve", o->listen, o->threads, o->limits, NULL, NULL, &ops, s};
	int r;

	*out = NULL;
	s->web.cfg = o->cfg;
	if ((r = load_web(s, o->root)) || (r = check_store(o->store)) ||
	    (r = fl_store_threads_init(&s->stores, o->store, FL_STORE_READONLY)) ||
	    (r = fl_httpd_start(&s->httpd, &ho))) {
		fl_web_server_stop(s);
		return r;
	}
	*out = s;
	return 0;
}

const char *fl_web_server_url(const struct fl_web_server *s)
{
	return fl_httpd_url(s->httpd);
}

void fl_web_server_stop(struct fl_web_server *s)
{
	if (!s)
		return;
	/* joins the pool threads, whose exit closes their store connections */
	fl_httpd_stop(s->httpd);
	fl_store_threads_fini(&s->stores);
	fl_tmpl_free(s->web.layout);
	free(s->static_dir);
	free(s);
}
