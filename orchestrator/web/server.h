/*
 * web/server.h - the results pages' HTTP server (lib/httpd.h, with its
 * limits on connections, timeouts and bodies): a pool of threads, each with
 * its own read-only store connection opened on its first request (SQLite
 * connections are not shared across threads); only GET and HEAD, refused
 * with 405 before any body is read; no request body; an access log line
 * per request at -v.
 */
#ifndef FL_WEB_SERVER_H
#define FL_WEB_SERVER_H

struct fl_config;
struct fl_httpd_limits;
struct fl_web_server;

struct fl_web_server_opts {
	const char *listen;	     /* HOST:PORT; port 0 picks a free one; [::1]:PORT for IPv6 */
	const char *root;	     /* web/: templates/ and static/ */
	const char *store;	     /* the SQLite file, opened read-only */
	unsigned threads;	     /* 0: 4 */
	const struct fl_httpd_limits *limits; /* web.* of the configuration */
	const struct fl_config *cfg; /* may be NULL */
};

/* Loads the templates, checks the store opens, binds and starts serving. */
int fl_web_server_start(struct fl_web_server **out, const struct fl_web_server_opts *o);
/* "http://127.0.0.1:8080/": the address actually bound. */
const char *fl_web_server_url(const struct fl_web_server *s);
/* Stops accepting, ends the open connections, joins the threads, frees everything. */
void fl_web_server_stop(struct fl_web_server *s);

#endif
