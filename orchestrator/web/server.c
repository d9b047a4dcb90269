/*
 * web/server.c - libmicrohttpd glue (see server.h): the listening socket,
 * the thread pool, a read-only store connection per thread, the response
 * headers every page gets, and the access log.
 */
#include "web/server.h"
#include "web/template.h"
#include "web/web.h"
#include "lib/error.h"
#include "lib/httpd.h"
#include "lib/log.h"
#include "store/threads.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * No script runs on these pages, and nothing loads from elsewhere: should
 * an escaping bug ever let markup through, the browser still refuses it.
 */
#define CSP                                                                                        \
	"default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "         \
	"base-uri 'none'; frame-ancestors 'none'"

struct fl_web_server {
	struct MHD_Daemon *daemon;
	struct fl_web web;
	char *static_dir;
	struct fl_store_threads stores;
	char url[128];
};

/* One request, from the raw URI to the log line. */
struct request {
	struct timespec start;
	char *uri; /* as the client sent it, query included */
	char method[16];
	char client[INET6_ADDRSTRLEN];
	int status;
	uint64_t bytes;
};

static const char *arg_lookup(void *ctx, const char *name)
{
	return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, name);
}

static void *uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct request *rq = fl_xcalloc(1, sizeof(*rq));

	(void)cls;
	clock_gettime(CLOCK_MONOTONIC, &rq->start);
	rq->uri = fl_xstrdup(uri);
	fl_httpd_client(c, rq->client, sizeof(rq->client));
	return rq;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct request *rq = *con_cls;
	struct timespec now;

	(void)cls;
	(void)c;
	if (!rq)
		return;
	if (fl_log_level() >= FL_LOG_VERBOSE) {
		/* a log line is one line: control characters from the client become '?' */
		for (char *p = rq->uri; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		clock_gettime(CLOCK_MONOTONIC, &now);
		fl_verbose("serve: %s \"%s %s\" %d %llu %.1fms%s", rq->client,
			   *rq->method ? rq->method : "-", rq->uri, rq->status,
			   (unsigned long long)rq->bytes,
			   (double)(now.tv_sec - rq->start.tv_sec) * 1e3 +
			       (double)(now.tv_nsec - rq->start.tv_nsec) / 1e6,
			   toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (not completed)");
	}
	free(rq->uri);
	free(rq);
	*con_cls = NULL;
}

static enum MHD_Result send_response(struct MHD_Connection *c, struct fl_web_resp *resp,
				     struct request *rq)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	if (resp->fd >= 0) {
		r = MHD_create_response_from_fd64(resp->size, resp->fd);
		rq->bytes = resp->size;
	} else {
		size_t len = resp->body.len;

		r = MHD_create_response_from_buffer(len, fl_buf_detach(&resp->body),
						    MHD_RESPMEM_MUST_FREE);
		rq->bytes = len;
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
	rq->status = resp->status;
	ret = MHD_queue_response(c, (unsigned)resp->status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	struct fl_web_server *s = cls;
	struct request *rq = *con_cls;
	struct fl_web_req req = {.web = &s->web, .path = url, .arg = arg_lookup, .arg_ctx = c};
	struct fl_web_resp resp = {.status = 500, .type = "text/plain", .fd = -1};
	enum MHD_Result ret;

	(void)version;
	(void)upload;
	if (*upload_size) { /* a body we do not read: every page is a GET */
		*upload_size = 0;
		return MHD_YES;
	}
	snprintf(rq->method, sizeof(rq->method), "%s", method);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		fl_web_fail(&req, &resp, MHD_HTTP_METHOD_NOT_ALLOWED, "%.15s is not served here",
			    method);
	else if (!(req.st = fl_store_thread(&s->stores)))
		fl_web_fail(&req, &resp, MHD_HTTP_SERVICE_UNAVAILABLE, "%s", fl_error_last());
	else
		fl_web_route(&req, &resp);
	ret = send_response(c, &resp, rq);
	fl_buf_free(&resp.body);
	fl_pool_free(&req.pool);
	return ret;
}

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
	unsigned threads = o->threads ? o->threads : 4;
	int fd, v6, r;

	*out = NULL;
	s->web.cfg = o->cfg;
	if ((r = load_web(s, o->root)) || (r = check_store(o->store))) {
		fl_web_server_stop(s);
		return r;
	}
	if ((r = fl_store_threads_init(&s->stores, o->store, FL_STORE_READONLY)) ||
	    (r = fl_httpd_listen(o->listen, "http", &fd, &v6, s->url, sizeof(s->url)))) {
		fl_web_server_stop(s);
		return r;
	}
	s->daemon = MHD_start_daemon(
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG |
		(v6 ? MHD_USE_IPv6 : 0),
	    0, NULL, NULL, handle, s, MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_THREAD_POOL_SIZE,
	    threads, MHD_OPTION_URI_LOG_CALLBACK, uri_log, s, MHD_OPTION_NOTIFY_COMPLETED,
	    completed, s, MHD_OPTION_CONNECTION_TIMEOUT, 30u, MHD_OPTION_END);
	if (!s->daemon) {
		close(fd);
		fl_web_server_stop(s);
		return fl_error_set(FL_EIO, "libmicrohttpd could not start on %s", o->listen);
	}
	*out = s;
	return 0;
}

const char *fl_web_server_url(const struct fl_web_server *s)
{
	return s->url;
}

void fl_web_server_stop(struct fl_web_server *s)
{
	if (!s)
		return;
	/* joins the pool threads, whose exit closes their store connections */
	if (s->daemon)
		MHD_stop_daemon(s->daemon);
	fl_store_threads_fini(&s->stores);
	fl_tmpl_free(s->web.layout);
	free(s->static_dir);
	free(s);
}
