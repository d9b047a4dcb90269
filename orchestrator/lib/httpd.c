/*
 * httpd.c - the libmicrohttpd daemon both HTTP servers run (see httpd.h):
 * listening socket, limits, the steps of a request, the access log, and
 * the thread that closes connections past their header or body deadline.
 */
#include "lib/httpd.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/time.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* One connection, from its start to its close; req is its current request. */
struct conn {
	struct fl_httpd_req req; /* first: fl_httpd_queue finds the connection from it */
	fl_httpd *h;
	int fd;
	struct timespec start;	  /* of the current request */
	int seen;		  /* head() ran for the current request */
	int64_t deadline_ms;	  /* monotonic; 0: none (answering) */
	const char *deadline_why; /* what was not complete by then */
	char *query;		  /* the current request's, decoded in place */
	const char *args[2 * FL_HTTPD_ARGS_MAX];
	size_t nargs;
	struct conn *prev, *next;
};

struct fl_httpd {
	struct MHD_Daemon *daemon;
	struct fl_httpd_opts o;
	struct fl_httpd_limits limits;
	char url[128];
	pthread_mutex_t lock; /* the list, and every connection's deadline */
	pthread_cond_t wake;
	pthread_t reaper;
	int reaping, stopping;
	atomic_int serving; /* libmicrohttpd started */
	struct conn *conns;
};

/* ---- the listening socket -------------------------------------------------- */

/* The URL a bound socket is at: "<scheme>://127.0.0.1:8080/"; *v6 when IPv6. */
static void bound_url(int fd, const char *scheme, int *v6, char *url, size_t urlsz)
{
	struct sockaddr_storage sa;
	socklen_t salen = sizeof(sa);
	char addr[INET6_ADDRSTRLEN];

	getsockname(fd, (struct sockaddr *)&sa, &salen);
	*v6 = sa.ss_family == AF_INET6;
	if (*v6) {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&sa)->sin6_addr, addr, sizeof(addr));
		snprintf(url, urlsz, "%s://[%s]:%d/", scheme, addr,
			 ntohs(((struct sockaddr_in6 *)&sa)->sin6_port));
	} else {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, addr, sizeof(addr));
		snprintf(url, urlsz, "%s://%s:%d/", scheme, addr,
			 ntohs(((struct sockaddr_in *)&sa)->sin_port));
	}
}

/* HOST:PORT, [V6]:PORT or :PORT (every address) to a listening socket. */
static int listen_on(const char *listen_at, const char *scheme, int *fd, int *v6, char *url,
		     size_t urlsz)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
	const char *colon = strrchr(listen_at, ':');
	struct addrinfo *res, *ai;
	char host[256];
	int e, err = 0;

	if (!colon || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
	    atoi(colon + 1) > 65535 || (size_t)(colon - listen_at) >= sizeof(host))
		return fl_error_set(FL_EINVAL, "listen address '%s': expected HOST:PORT",
				    listen_at);
	snprintf(host, sizeof(host), "%.*s", (int)(colon - listen_at), listen_at);
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	if ((e = getaddrinfo(*host ? host : NULL, colon + 1, &hints, &res)))
		return fl_error_set(FL_EINVAL, "listen address '%s': %s", listen_at,
				    gai_strerror(e));
	*fd = -1;
	for (ai = res; ai && *fd < 0; ai = ai->ai_next) {
		int one = 1;

		*fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (*fd < 0) {
			err = errno;
			continue;
		}
		setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(*fd, ai->ai_addr, ai->ai_addrlen) || listen(*fd, 256)) {
			err = errno;
			close(*fd);
			*fd = -1;
		}
	}
	freeaddrinfo(res);
	if (*fd < 0)
		return fl_error_set(FL_EIO, "cannot listen on %s: %s", listen_at, strerror(err));
	bound_url(*fd, scheme, v6, url, urlsz);
	return 0;
}

static void client_of(struct MHD_Connection *c, char *out, size_t n)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	snprintf(out, n, "-");
	if (sa && sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)n);
	else if (sa && sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out,
			  (socklen_t)n);
}

/* ---- deadlines --------------------------------------------------------------- */

static void set_deadline(struct conn *k, int64_t after_ms, const char *why)
{
	pthread_mutex_lock(&k->h->lock);
	k->deadline_ms = after_ms > 0 ? fl_mono_ms() + after_ms : 0;
	k->deadline_why = why;
	pthread_mutex_unlock(&k->h->lock);
}

static int64_t tick_ms(const struct fl_httpd_limits *l)
{
	int64_t t = l->header_timeout_ms / 4;

	return t < 100 ? 100 : t > 1000 ? 1000 : t;
}

/*
 * libmicrohttpd knows only silence (its connection timeout): a client that
 * sends a byte now and then would hold a connection for ever. Shutting the
 * socket down ends it the way a client's close would, in libmicrohttpd's
 * own thread; the socket is still libmicrohttpd's (a connection leaves the
 * list, under the lock, before its socket is closed).
 */
static void *reap(void *arg)
{
	fl_httpd *h = arg;

	pthread_mutex_lock(&h->lock);
	while (!h->stopping) {
		int64_t now = fl_mono_ms();
		struct timespec until;

		for (struct conn *k = h->conns; k; k = k->next) {
			if (!k->deadline_ms || now < k->deadline_ms)
				continue;
			fl_verbose("%s: %s: closing the connection: %s", h->o.name, k->req.client,
				   k->deadline_why);
			shutdown(k->fd, SHUT_RDWR);
			k->deadline_ms = 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += tick_ms(&h->limits) * 1000000;
		until.tv_sec += until.tv_nsec / 1000000000;
		until.tv_nsec %= 1000000000;
		pthread_cond_timedwait(&h->wake, &h->lock, &until);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

/* ---- a connection's requests ---------------------------------------------------- */

/* Ends the current request; the connection's client stays. */
static void forget_request(struct conn *k)
{
	char client[sizeof(k->req.client)];

	memcpy(client, k->req.client, sizeof(client));
	free((char *)k->req.uri);
	free(k->query);
	fl_buf_free(&k->req.body);
	k->req = (struct fl_httpd_req){.body = FL_BUF_INIT};
	memcpy(k->req.client, client, sizeof(client));
	k->query = NULL;
	k->nargs = 0;
	k->seen = 0;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	fl_httpd *h = cls;
	struct conn *k = *socket_context;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
		    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		char client[sizeof(k->req.client)];

		client_of(c, client, sizeof(client));
		k = fl_xcalloc(1, sizeof(*k));
		k->h = h;
		k->fd = ci ? ci->connect_fd : -1;
		k->req.body = (fl_buf)FL_BUF_INIT;
		memcpy(k->req.client, client, sizeof(client));
		pthread_mutex_lock(&h->lock);
		k->next = h->conns;
		if (h->conns)
			h->conns->prev = k;
		h->conns = k;
		k->deadline_ms = fl_mono_ms() + h->limits.header_timeout_ms;
		k->deadline_why = "no complete request headers in time";
		pthread_mutex_unlock(&h->lock);
		*socket_context = k;
		return;
	}
	if (!k)
		return;
	pthread_mutex_lock(&h->lock);
	if (k->prev)
		k->prev->next = k->next;
	else
		h->conns = k->next;
	if (k->next)
		k->next->prev = k->prev;
	pthread_mutex_unlock(&h->lock);
	forget_request(k);
	free(k);
	*socket_context = NULL;
}

/*
 * Called with the request line, before libmicrohttpd parses the query.
 * libmicrohttpd 0.9.75 keeps each query parameter as a record in the
 * connection's 32 KiB memory pool, and when a few hundred of them do not
 * fit it neither answers nor completes the request: the client waits for
 * the connection timeout, and the request never reaches the handler nor
 * the completion callback. So the query is taken here, ended at its '?' in
 * libmicrohttpd's own buffer (uri points into it; the parsing that follows
 * then finds no parameters), and parsed by this file, up to
 * FL_HTTPD_ARGS_MAX of them.
 */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *k = ci ? ci->socket_context : NULL;
	char *q = strchr(uri, '?');

	(void)cls;
	if (!k)
		return NULL;
	forget_request(k);
	k->req.uri = fl_xstrdup(uri);
	clock_gettime(CLOCK_MONOTONIC, &k->start);
	if (q) {
		k->query = fl_xstrdup(q + 1);
		q[1] = '\0';
	}
	return k;
}

/* The query into name, value pairs, decoded ('+' is a space); -1 beyond the maximum. */
static int parse_query(struct conn *k)
{
	char *save = NULL;

	if (!k->query)
		return 0;
	for (char *p = strtok_r(k->query, "&", &save); p; p = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(p, '=');

		if (k->nargs == FL_HTTPD_ARGS_MAX)
			return -1;
		if (eq)
			*eq++ = '\0';
		for (char *s = p; *s; s++)
			if (*s == '+')
				*s = ' ';
		for (char *s = eq; s && *s; s++)
			if (*s == '+')
				*s = ' ';
		MHD_http_unescape(p);
		if (eq)
			MHD_http_unescape(eq);
		k->args[2 * k->nargs] = p;
		k->args[2 * k->nargs + 1] = eq ? eq : "";
		k->nargs++;
	}
	return 0;
}

const char *fl_httpd_arg(const struct fl_httpd_req *rq, const char *name)
{
	const struct conn *k = (const struct conn *)rq;

	for (size_t i = 0; i < k->nargs; i++)
		if (!strcmp(k->args[2 * i], name))
			return k->args[2 * i + 1];
	return NULL;
}

int fl_httpd_queue(struct MHD_Connection *c, struct fl_httpd_req *rq, int status,
		   struct MHD_Response *r, uint64_t bytes)
{
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	/* answering: a slow reader is libmicrohttpd's connection timeout's */
	set_deadline((struct conn *)rq, 0, NULL);
	rq->status = status;
	rq->bytes = bytes;
	ret = MHD_queue_response(c, (unsigned)status, r);
	MHD_destroy_response(r);
	return ret;
}

/* The declared length of the body: 0 without one, UINT64_MAX when unknown (chunked). */
static uint64_t body_length(struct MHD_Connection *c)
{
	const char *len =
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *te =
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
	char *end;
	unsigned long long v;

	if (!len)
		return te ? UINT64_MAX : 0;
	errno = 0;
	v = strtoull(len, &end, 10);
	return errno || end == len || *end ? UINT64_MAX : v;
}

/* What libmicrohttpd's handler returns for an ops result. */
static enum MHD_Result mhd_result(int r)
{
	return r == MHD_NO ? MHD_NO : MHD_YES;
}

static enum MHD_Result on_head(fl_httpd *h, struct MHD_Connection *c, struct conn *k,
			       const char *url, const char *method, const char *version)
{
	const struct fl_httpd_ops *ops = h->o.ops;
	uint64_t len = body_length(c);
	char msg[128] = "";
	int r, status = 0;

	k->seen = 1;
	k->req.url = url;
	snprintf(k->req.method, sizeof(k->req.method), "%s", method);
	snprintf(k->req.version, sizeof(k->req.version), "%s", version ? version : "");
	if (parse_query(k)) {
		status = MHD_HTTP_URI_TOO_LONG;
		snprintf(msg, sizeof(msg), "more than %d query parameters", FL_HTTPD_ARGS_MAX);
	} else if (ops->head && (r = ops->head(h->o.cls, c, &k->req))) {
		return r > 0 ? MHD_YES : MHD_NO;
	} else if (len && !h->limits.body_max) {
		status = MHD_HTTP_CONTENT_TOO_LARGE;
		snprintf(msg, sizeof(msg), "no request here has a body");
	} else if (len != UINT64_MAX && len > h->limits.body_max) {
		status = MHD_HTTP_CONTENT_TOO_LARGE;
		snprintf(msg, sizeof(msg), "a request body here is at most %llu bytes",
			 (unsigned long long)h->limits.body_max);
	}
	if (status)
		return mhd_result(ops->refuse(h->o.cls, c, &k->req, status, msg));
	set_deadline(k, len ? h->limits.body_timeout_ms : 0, "the request body took too long");
	return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	fl_httpd *h = cls;
	struct conn *k = *con_cls;

	if (!k)
		return MHD_NO;
	if (!k->seen)
		return on_head(h, c, k, url, method, version);
	if (*upload_size) {
		if (k->req.body.len + *upload_size > h->limits.body_max) {
			fl_verbose("%s: %s: closing the connection: a body of more than %llu bytes",
				   h->o.name, k->req.client,
				   (unsigned long long)h->limits.body_max);
			return MHD_NO;
		}
		fl_buf_add(&k->req.body, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	set_deadline(k, 0, NULL);
	return mhd_result(h->o.ops->handle(h->o.cls, c, &k->req));
}

/* Text of the request line as the access log quotes it: '"' and '\\' escaped,
 * bytes outside printable ASCII as \xHH (Apache's escaping), at most max bytes of it. */
static void log_quoted(fl_buf *out, const char *s, size_t max)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; s[i] && i < max; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '"' || ch == '\\') {
			fl_buf_addch(out, '\\');
			fl_buf_addch(out, (char)ch);
		} else if (ch < 0x20 || ch > 0x7e) {
			fl_buf_adds(out, "\\x");
			fl_buf_addch(out, hex[ch >> 4]);
			fl_buf_addch(out, hex[ch & 15]);
		} else
			fl_buf_addch(out, (char)ch);
	}
}

/*
 * One request in the Common Log Format, on standard error in one write
 * (lines of several threads never interleave), without the log's prefix so
 * that log tools read it as it is:
 *   127.0.0.1 - - [04/Dec/2026:15:08:10 +0000] "GET /run/1 HTTP/1.1" 200 5120
 * bytes "-" for none; a request the server cut short gets no line of its own
 * kind: its status is what was answered, or 0 when nothing was.
 */
static void access_log(const struct conn *k)
{
	char when[40];
	struct tm tm;
	time_t now = time(NULL);
	fl_buf line = FL_BUF_INIT;
	ssize_t w;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%d/%b/%Y:%H:%M:%S +0000", &tm);
	fl_buf_addf(&line, "%s - - [%s] \"", *k->req.client ? k->req.client : "-", when);
	log_quoted(&line, *k->req.method ? k->req.method : "-", 16);
	fl_buf_addch(&line, ' ');
	log_quoted(&line, k->req.uri ? k->req.uri : "-", 4096);
	if (*k->req.version) {
		fl_buf_addch(&line, ' ');
		log_quoted(&line, k->req.version, 16);
	}
	fl_buf_addf(&line, "\" %d ", k->req.status);
	if (k->req.bytes && strcmp(k->req.method, "HEAD")) /* a HEAD answer has no body */
		fl_buf_addf(&line, "%llu\n", (unsigned long long)k->req.bytes);
	else
		fl_buf_adds(&line, "-\n");
	for (size_t off = 0; off < line.len; off += (size_t)w)
		if ((w = write(2, line.ptr + off, line.len - off)) <= 0)
			break;
	fl_buf_free(&line);
}

/* The access log (-v), and the wait for the next request on the connection. */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	fl_httpd *h = cls;
	struct conn *k = *con_cls;

	(void)c;
	(void)toe;
	if (!k)
		return;
	if (fl_log_level() >= FL_LOG_VERBOSE)
		access_log(k);
	forget_request(k);
	set_deadline(k, h->limits.header_timeout_ms, "no complete request headers in time");
	*con_cls = NULL;
}

/* ---- start and stop ------------------------------------------------------------ */

/*
 * libmicrohttpd's own messages: what stops it starting is a warning; once
 * it serves, they are about single connections ("Server reached connection
 * limit", one line per connection refused), which a client could flood the
 * log with: -v.
 */
/* fmt is libmicrohttpd's own format, checked as printf's */
__attribute__((format(printf, 2, 0))) static void on_mhd_log(void *cls, const char *fmt,
							     va_list ap)
{
	fl_httpd *h = cls;
	char msg[512];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	if (atomic_load(&h->serving))
		fl_verbose("%s: libmicrohttpd: %s", h->o.name, msg);
	else
		fl_warn("%s: libmicrohttpd: %s", h->o.name, msg);
}

static unsigned seconds_up(int64_t ms)
{
	return ms <= 1000 ? 1u : (unsigned)((ms + 999) / 1000);
}

static int start_daemon(fl_httpd *h, int fd, int v6)
{
	const struct fl_httpd_limits *l = &h->limits;
	int tls = h->o.cert && h->o.key;
	struct MHD_OptionItem opts[] = {
	    {MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)on_mhd_log, h}, /* first: libmicrohttpd asks */
	    {MHD_OPTION_LISTEN_SOCKET, fd, NULL},
	    {MHD_OPTION_THREAD_POOL_SIZE, h->o.threads ? h->o.threads : 4, NULL},
	    {MHD_OPTION_CONNECTION_LIMIT, l->connections, NULL},
	    {MHD_OPTION_PER_IP_CONNECTION_LIMIT, l->per_client, NULL},
	    {MHD_OPTION_CONNECTION_TIMEOUT, seconds_up(l->header_timeout_ms), NULL},
	    {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, h},
	    {MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)on_uri, h},
	    {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, h},
	    {tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, (void *)h->o.cert},
	    {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)h->o.key},
	    {MHD_OPTION_END, 0, NULL},
	};

	h->daemon =
	    MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG |
				 (v6 ? MHD_USE_IPv6 : 0) | (tls ? MHD_USE_TLS : 0),
			     0, NULL, NULL, on_request, h, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
	return h->daemon ? 0 : -1;
}

int fl_httpd_start(fl_httpd **out, const struct fl_httpd_opts *o)
{
	fl_httpd *h = fl_xcalloc(1, sizeof(*h));
	pthread_condattr_t ca;
	int fd, v6, r;

	*out = NULL;
	h->o = *o;
	h->limits = *o->limits;
	if (!h->limits.header_timeout_ms)
		h->limits.header_timeout_ms = 10000;
	if (!h->limits.body_timeout_ms)
		h->limits.body_timeout_ms = 60000;
	pthread_mutex_init(&h->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->wake, &ca);
	pthread_condattr_destroy(&ca);
	if ((r = listen_on(o->listen, o->cert && o->key ? "https" : "http", &fd, &v6, h->url,
			   sizeof(h->url)))) {
		fl_httpd_stop(h);
		return r;
	}
	if (start_daemon(h, fd, v6)) {
		close(fd);
		fl_httpd_stop(h);
		return fl_error_set(FL_EIO, "libmicrohttpd could not start on %s", o->listen);
	}
	atomic_store(&h->serving, 1);
	if (pthread_create(&h->reaper, NULL, reap, h)) {
		fl_httpd_stop(h);
		return fl_error_set(FL_EIO, "%s: cannot start a thread", o->name);
	}
	h->reaping = 1;
	*out = h;
	return 0;
}

const char *fl_httpd_url(const fl_httpd *h)
{
	return h->url;
}

void fl_httpd_stop(fl_httpd *h)
{
	if (!h)
		return;
	/* closes every connection: each leaves the list the reaper walks */
	if (h->daemon)
		MHD_stop_daemon(h->daemon);
	if (h->reaping) {
		pthread_mutex_lock(&h->lock);
		h->stopping = 1;
		pthread_cond_signal(&h->wake);
		pthread_mutex_unlock(&h->lock);
		pthread_join(h->reaper, NULL);
	}
	pthread_cond_destroy(&h->wake);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
