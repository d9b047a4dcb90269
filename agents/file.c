/*
 * file.c - whole-file reads of /proc and tracefs files (see file.h): the
 * kernel's symbols (run.c) and the lock hists (lockstat.c). libc only.
 */
#include "agents/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

char *fl_agent_read_file(const char *path, size_t cap)
{
	size_t len = 0;
	char *buf = malloc(cap + 1);
	int fd = open(path, O_RDONLY);
	ssize_t got;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((got = read(fd, buf + len, cap - len)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		len += (size_t)got;
		if (len == cap) {
			char *nb = realloc(buf, 2 * cap + 1);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}
