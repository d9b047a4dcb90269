/*
 * httpd.h - what faultline's two libmicrohttpd servers share (the results
 * pages, web/server.c, and the bare-metal agent API, agentapi.c): the
 * listening socket from a HOST:PORT, the client's address for log lines,
 * and one store connection per server thread (SQLite connections are not
 * shared across threads).
 */
#ifndef FL_HTTPD_H
#define FL_HTTPD_H

#include "store/store.h"

#include <pthread.h>
#include <stddef.h>

struct MHD_Connection;

/*
 * HOST:PORT, [V6]:PORT or :PORT (every address) to a listening socket
 * (port 0 picks a free one); *v6 when it is IPv6, and the URL it is at
 * ("<scheme>://127.0.0.1:8080/").
 */
int fl_httpd_listen(const char *listen_at, const char *scheme, int *fd, int *v6, char *url,
		    size_t urlsz);

/* The client's address as text ("-" when unknown). */
void fl_httpd_client(struct MHD_Connection *c, char *out, size_t n);

/* A store connection per thread, opened on its first use, closed with the thread. */
struct fl_httpd_stores {
	pthread_key_t key;
	int have_key;
	char *path;
	unsigned flags; /* fl_store_open's */
};
int fl_httpd_stores_init(struct fl_httpd_stores *s, const char *path, unsigned flags);
/* This thread's connection; NULL with the reason in fl_error_last(). */
fl_store *fl_httpd_store(struct fl_httpd_stores *s);
/* After the server's threads ended. */
void fl_httpd_stores_fini(struct fl_httpd_stores *s);

#endif
