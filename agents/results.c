/*
 * results.c - the results store on a partition or in a file (see results.h).
 */
#include "agents/results.h"
#include "proto/error.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int fl_write_full(int fd, const char *p, size_t len, off_t off)
{
	while (len) {
		ssize_t n = off < 0 ? write(fd, p, len) : pwrite(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fl_error_set(FL_EIO, "write: %s",
					    n ? strerror(errno) : "nothing written");
		p += n;
		len -= (size_t)n;
		off += off < 0 ? 0 : n;
	}
	return 0;
}

/* The bytes, then the NUL that ends the data after them, then a sync. */
static int put(struct fl_results *r, const char *p, size_t len)
{
	int e;

	if ((e = fl_write_full(r->fd, p, len, r->end)) ||
	    (e = fl_write_full(r->fd, "", 1, r->end + (off_t)len)))
		return e;
	if (fdatasync(r->fd))
		return fl_error_set(FL_EIO, "fdatasync: %s", strerror(errno));
	r->end += (off_t)len;
	return 0;
}

static int open_store(const char *path, int wait_s)
{
	struct timespec tick = {0, 100 * 1000 * 1000};
	struct stat st;
	int fd;

	for (int i = 0; i <= wait_s * 10; i++) {
		if (!stat(path, &st) && S_ISBLK(st.st_mode))
			return open(path, O_WRONLY | O_CLOEXEC);
		if (!strncmp(path, "/dev/", 5)) {
			nanosleep(&tick, NULL);
			continue;
		}
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		return fd;
	}
	errno = ENOENT;
	return -1;
}

int fl_results_open(struct fl_results *r, const char *path, uint64_t job, int wait_s)
{
	char head[64];
	int n, e;

	r->end = 0;
	r->fd = open_store(path, wait_s);
	if (r->fd < 0)
		return fl_error_set(FL_EIO, "results store %s: %s", path, strerror(errno));
	n = snprintf(head, sizeof(head), FL_RESULTS_MAGIC "%" PRIu64 "\n", job);
	if ((e = put(r, head, (size_t)n))) {
		fl_results_close(r);
		return fl_error_wrap(e, "results store %s", path);
	}
	return 0;
}

int fl_results_append(void *arg, const char *frame, size_t len)
{
	struct fl_results *r = arg;

	return r->fd >= 0 ? put(r, frame, len) : fl_error_set(FL_EIO, "results store not open");
}

void fl_results_close(struct fl_results *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

/* Up to FL_RESULTS_MAX bytes or the first NUL. */
static char *read_data(int fd, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap + 1);

	while (buf) {
		ssize_t got = read(fd, buf + n, cap - n);
		char *nul;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(buf);
			return NULL;
		}
		if ((nul = memchr(buf + n, '\0', (size_t)got))) {
			n = (size_t)(nul - buf);
			break;
		}
		n += (size_t)got;
		if (!got || n >= FL_RESULTS_MAX)
			break;
		if (n == cap) {
			char *bigger = realloc(buf, 2 * cap + 1);

			if (!bigger)
				free(buf);
			buf = bigger;
			cap *= 2;
		}
	}
	if (buf) {
		buf[n] = '\0';
		*len = n;
	}
	return buf;
}

int fl_results_read(const char *path, uint64_t *job, char **frames, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *data, *nl, *end;
	size_t n = 0, skip;

	*frames = NULL;
	*len = 0;
	*job = 0;
	if (fd < 0)
		return fl_error_set(errno == ENOENT ? FL_ENOTFOUND : FL_EIO, "%s: %s", path,
				    strerror(errno));
	data = read_data(fd, &n);
	if (!data)
		fl_error_set(FL_EIO, "%s: %s", path, strerror(errno));
	close(fd);
	if (!data)
		return FL_EIO;
	nl = memchr(data, '\n', n);
	if (strncmp(data, FL_RESULTS_MAGIC, strlen(FL_RESULTS_MAGIC)) || !nl) {
		free(data);
		return 1;
	}
	errno = 0;
	*job = strtoull(data + strlen(FL_RESULTS_MAGIC), &end, 10);
	if (errno || end != nl) {
		free(data);
		return 1;
	}
	skip = (size_t)(nl + 1 - data);
	memmove(data, data + skip, n - skip + 1);
	*frames = data;
	*len = n - skip;
	return 0;
}
