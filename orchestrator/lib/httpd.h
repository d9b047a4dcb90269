/*
 * httpd.h - what faultline's two HTTP servers share (the results pages,
 * web/server.c, and the bare-metal agent API, dispatch/agentapi.c): one
 * libmicrohttpd daemon on a HOST:PORT, the limits an operator sets on it,
 * and the steps every request goes through. (Their store connections, one
 * per server thread: store/threads.h.)
 *
 * A request reaches the server's ops in three steps: head() once its
 * headers are in and its body is not read yet (the agent API authenticates
 * there; a server may answer at once), the body read into req->body, then
 * handle() with all of it. This file refuses, before a server sees them:
 * more than FL_HTTPD_ARGS_MAX query parameters (414), a Content-Length over
 * limits.body_max (413, nothing of the body read). It closes a connection
 * whose request headers are not complete header_timeout after it opened or
 * after its previous answer, whose body takes longer than body_timeout, or
 * whose body outgrows body_max without a Content-Length. libmicrohttpd
 * itself refuses connections beyond the limits in all and per client
 * address, and closes a connection silent for header_timeout.
 *
 * What a connection's requests keep lives from the connection's start to
 * its close (libmicrohttpd's connection notification), not from request to
 * completion callback: libmicrohttpd does not report the completion of a
 * request it failed to parse, so state allocated per request would leak.
 */
#ifndef FL_HTTPD_H
#define FL_HTTPD_H

#include "lib/buf.h"

#include <stddef.h>
#include <stdint.h>

struct MHD_Connection;
struct MHD_Response;

/* Query parameters one request may carry; more is 414. */
#define FL_HTTPD_ARGS_MAX 64

struct fl_httpd_limits {
	unsigned connections;	   /* open at once, in all */
	unsigned per_client;	   /* open at once from one client address */
	int64_t header_timeout_ms; /* from the connection (or the last answer) to the headers */
	int64_t body_timeout_ms;   /* from the headers to the end of the body */
	uint64_t body_max;	   /* bytes; 0: no request may have a body */
};

/* One request, as the server's ops see it. */
struct fl_httpd_req {
	const char *uri; /* as the client sent it, query included */
	const char *url; /* the path, decoded, without the query */
	char method[16];
	char client[48];  /* the client's address as text */
	char version[12]; /* "HTTP/1.1", for the access log */
	fl_buf body;	  /* the whole body, when handle() runs */
	int status;	  /* the answer's, for the access log */
	uint64_t bytes;
};

struct fl_httpd_ops {
	/*
	 * The headers are in, the body is not read: 0 to go on, 1 when an
	 * answer was queued (fl_httpd_queue: the body is never read), -1 to
	 * drop the connection. NULL: go on.
	 */
	int (*head)(void *cls, struct MHD_Connection *c, struct fl_httpd_req *rq);
	/*
	 * The whole request: queue the answer. These return what
	 * libmicrohttpd's handler does: MHD_YES, or MHD_NO to drop the
	 * connection (fl_httpd_queue's result is that).
	 */
	int (*handle)(void *cls, struct MHD_Connection *c, struct fl_httpd_req *rq);
	/* This file refuses the request (413, 414) in the server's own format. */
	int (*refuse)(void *cls, struct MHD_Connection *c, struct fl_httpd_req *rq, int status,
		      const char *message);
};

struct fl_httpd_opts {
	const char *name;   /* in log lines: "serve", "agent api" */
	const char *listen; /* HOST:PORT, [V6]:PORT or :PORT; port 0 picks a free one */
	unsigned threads;
	const struct fl_httpd_limits *limits;
	const char *cert, *key; /* PEM text: HTTPS when both are set */
	const struct fl_httpd_ops *ops;
	void *cls;
};

typedef struct fl_httpd fl_httpd;

/* Binds and serves in its own threads until fl_httpd_stop(). */
int fl_httpd_start(fl_httpd **out, const struct fl_httpd_opts *o);
/* "http://127.0.0.1:8080/": where it listens. */
const char *fl_httpd_url(const fl_httpd *h);
/* Stops accepting, ends the open connections, joins the threads. */
void fl_httpd_stop(fl_httpd *h);

/* A query parameter of the request, decoded; NULL when absent. */
const char *fl_httpd_arg(const struct fl_httpd_req *rq, const char *name);
/* Queues r as the answer (and releases it), noting status and size for the log. */
int fl_httpd_queue(struct MHD_Connection *c, struct fl_httpd_req *rq, int status,
		   struct MHD_Response *r, uint64_t bytes);

#endif
