/*
 * httpd.h - what faultline's two libmicrohttpd servers share (the results
 * pages, web/server.c, and the bare-metal agent API, agentapi.c): the
 * listening socket from a HOST:PORT and the client's address for log
 * lines. (Their store connections, one per server thread:
 * store/threads.h.)
 */
#ifndef FL_HTTPD_H
#define FL_HTTPD_H

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

#endif
