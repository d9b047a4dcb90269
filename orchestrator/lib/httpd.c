/*
 * httpd.c - listening sockets and client addresses for the HTTP servers
 * (see httpd.h).
 */
#include "lib/httpd.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int fl_httpd_listen(const char *listen_at, const char *scheme, int *fd, int *v6, char *url,
		    size_t urlsz)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
	const char *colon = strrchr(listen_at, ':');
	struct sockaddr_storage sa;
	socklen_t salen = sizeof(sa);
	struct addrinfo *res, *ai;
	char host[256], addr[INET6_ADDRSTRLEN];
	int e, err = 0, port;

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
	getsockname(*fd, (struct sockaddr *)&sa, &salen);
	*v6 = sa.ss_family == AF_INET6;
	if (*v6) {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&sa)->sin6_addr, addr, sizeof(addr));
		port = ntohs(((struct sockaddr_in6 *)&sa)->sin6_port);
		snprintf(url, urlsz, "%s://[%s]:%d/", scheme, addr, port);
	} else {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, addr, sizeof(addr));
		port = ntohs(((struct sockaddr_in *)&sa)->sin_port);
		snprintf(url, urlsz, "%s://%s:%d/", scheme, addr, port);
	}
	return 0;
}

void fl_httpd_client(struct MHD_Connection *c, char *out, size_t n)
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
