/*
 * smtpsink.h - SMTP servers for the mail tests on a loopback port: a real
 * one (python3-aiosmtpd) delivering into a Maildir the test reads back, and
 * tests/smtplog.py, which keeps every byte the client sent and can refuse
 * a recipient or a message, or stall before accepting one.
 */
#ifndef FL_SMTPSINK_H
#define FL_SMTPSINK_H

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/buf.h"
#include "testlib.h"

static inline int fl_sink_port_open(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

/* A port nobody listens on, from a per-process starting point. */
static inline int fl_sink_free_port(void)
{
	int port = 20000 + (int)(getpid() % 20000);

	while (fl_sink_port_open(port))
		port++;
	return port;
}

/* Starts the server and waits until it listens; the pid, or -1. */
static inline pid_t fl_sink_start(const char *maildir, int port)
{
	char listen_at[64];
	pid_t pid;

	snprintf(listen_at, sizeof(listen_at), "127.0.0.1:%d", port);
	pid = fl_test_fork();
	if (pid == 0) {
		execl("/usr/bin/python3", "python3", "-m", "aiosmtpd", "-n", "-l", listen_at, "-c",
		      "aiosmtpd.handlers.Mailbox", maildir, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 100 && !fl_sink_port_open(port); i++)
		usleep(100 * 1000);
	return fl_sink_port_open(port) ? pid : -1;
}

/* tests/smtplog.py on port, keeping what it gets in dir; opt: its option or NULL. */
static inline pid_t fl_smtplog_start(const char *dir, int port, const char *opt, const char *arg)
{
	char p[16];
	pid_t pid;

	snprintf(p, sizeof(p), "%d", port);
	pid = fl_test_fork();
	if (pid == 0) {
		execl("/usr/bin/python3", "python3", FL_SOURCE_DIR "/tests/smtplog.py", p, dir, opt,
		      arg, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 100 && !fl_sink_port_open(port); i++)
		usleep(100 * 1000);
	return fl_sink_port_open(port) ? pid : -1;
}

/* The file name tests/smtplog.py wrote in dir (NULL when absent); *len its size. */
static inline char *fl_smtplog_file(const char *dir, const char *name, size_t *len)
{
	char path[600], buf[4096];
	fl_buf b = FL_BUF_INIT;
	size_t got;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "rb")))
		return NULL;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		fl_buf_add(&b, buf, got);
	fclose(f);
	*len = b.len;
	return fl_buf_detach(&b);
}

static inline void fl_sink_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

/* The messages delivered so far, concatenated; *count gets how many. */
static inline char *fl_sink_read(const char *maildir, size_t *count)
{
	char path[600], buf[4096];
	fl_buf b = FL_BUF_INIT;
	struct dirent *e;
	size_t got;
	DIR *d;
	FILE *f;

	*count = 0;
	snprintf(path, sizeof(path), "%s/new", maildir);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/new/%s", maildir, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		(*count)++;
		while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
			fl_buf_add(&b, buf, got);
		fclose(f);
	}
	if (d)
		closedir(d);
	return fl_buf_detach(&b);
}

#endif
