/*
 * hostslot.c - guest slots per hypervisor host with flock(2), and admission
 * by memory (see hostslot.h).
 *
 * Slots are polled rather than waited for with a blocking flock: a machine
 * with max_parallel 2 must take whichever slot frees first, and a waiter
 * must notice SIGINT and print progress. A 200 ms poll is nothing next to
 * a run of seconds to minutes.
 */
#include "machine/hostslot.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "lib/log.h"
#include "lib/time.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define POLL_MS		  200
#define PROGRESS_EVERY_MS 30000

struct fl_hostslot {
	char *dir;
	char *who;
	unsigned index, max;
	int fd;
};

static char *slot_path(const fl_hostslot *s, unsigned i)
{
	return fl_xasprintf("%s/slot-%u.lock", s->dir, i);
}

/* The slot's fd, locked; -1 when another holds it; FL_EIO. */
static int try_slot(const fl_hostslot *s, unsigned i, int *fd)
{
	char *p = slot_path(s, i);

	*fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0) {
		int r = fl_error_set(FL_EIO, "host slot %s: %s", p, strerror(errno));

		free(p);
		return r;
	}
	free(p);
	if (!flock(*fd, LOCK_EX | LOCK_NB))
		return 0;
	close(*fd);
	*fd = -1;
	return -1;
}

int fl_hostslot_acquire(fl_hostslot **out, const char *var, const char *host, unsigned max,
			const char *who, fl_hostslot_stop_fn stop)
{
	fl_hostslot *s = fl_xcalloc(1, sizeof(*s));
	char *key = fl_path_component(host);
	int64_t start = fl_mono_ms(), said = 0;
	int r;

	*out = NULL;
	s->dir = fl_xasprintf("%s/hosts/%s", var, key);
	s->who = fl_xstrdup(who);
	s->max = max ? max : 1;
	s->fd = -1;
	free(key);
	if ((r = fl_mkdir_p(s->dir)))
		goto fail;
	for (;;) {
		for (unsigned i = 0; i < s->max; i++) {
			r = try_slot(s, i, &s->fd);
			if (r == 0) {
				s->index = i;
				*out = s;
				return 0;
			}
			if (r != -1)
				goto fail;
		}
		if (stop && stop()) {
			r = 1;
			goto fail;
		}
		if (!said || fl_mono_ms() - said >= PROGRESS_EVERY_MS) {
			fl_info("%s: waiting for a guest slot on %s (%u in use), %lld s so far",
				who, host, s->max, (long long)((fl_mono_ms() - start) / 1000));
			said = fl_mono_ms();
		}
		usleep(POLL_MS * 1000);
	}
fail:
	fl_hostslot_release(s);
	return r;
}

/* What the other held slots of this host have reserved. */
static uint64_t reserved_by_others(const fl_hostslot *s)
{
	uint64_t sum = 0;

	/* Slots beyond our max may be held by machines with a larger one. */
	for (unsigned i = 0; i < 1024; i++) {
		char *p = slot_path(s, i), buf[32];
		int fd;
		ssize_t n;

		if (i == s->index) {
			free(p);
			continue;
		}
		fd = open(p, O_RDONLY | O_CLOEXEC);
		free(p);
		if (fd < 0) {
			if (errno == ENOENT)
				break;
			continue;
		}
		/* A slot nobody holds reserves nothing, whatever its file says. */
		if (flock(fd, LOCK_SH | LOCK_NB)) {
			n = pread(fd, buf, sizeof(buf) - 1, 0);
			if (n > 0) {
				buf[n] = '\0';
				sum += strtoull(buf, NULL, 10);
			}
		}
		close(fd);
	}
	return sum;
}

static int reserve(fl_hostslot *s, uint64_t bytes)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)bytes);

	if (ftruncate(s->fd, 0) || pwrite(s->fd, buf, (size_t)n, 0) != n)
		return fl_error_set(FL_EIO, "host slot %s/slot-%u.lock: %s", s->dir, s->index,
				    strerror(errno));
	return 0;
}

/* 1 when admitted (and reserved), 0 when there is no room yet. */
static int try_admit(fl_hostslot *s, uint64_t need, fl_hostslot_mem_fn mem, void *arg,
		     uint64_t *avail, uint64_t *others)
{
	char *p = fl_xasprintf("%s/admit.lock", s->dir);
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644), r;

	if (fd < 0) {
		r = fl_error_set(FL_EIO, "host admission %s: %s", p, strerror(errno));
		free(p);
		return r;
	}
	free(p);
	/* One admission at a time per host: check and reserve as one step. */
	flock(fd, LOCK_EX);
	r = mem(arg, avail);
	if (!r) {
		*others = reserved_by_others(s);
		r = *avail >= *others && *avail - *others >= need + FL_HOSTSLOT_OVERHEAD;
		if (r && reserve(s, need))
			r = FL_EIO;
	}
	close(fd);
	return r;
}

int fl_hostslot_admit(fl_hostslot *s, uint64_t need, fl_hostslot_mem_fn mem, void *arg,
		      int64_t max_wait_ms, fl_hostslot_stop_fn stop)
{
	int64_t start = fl_mono_ms(), said = 0;
	uint64_t avail = 0, others = 0;
	int r;

	for (;;) {
		r = try_admit(s, need, mem, arg, &avail, &others);
		if (r < 0)
			return r;
		if (r == 1)
			return 0;
		if (stop && stop())
			return 1;
		if (fl_mono_ms() - start >= max_wait_ms)
			return fl_error_set(
			    FL_ETIMEOUT,
			    "waited %lld s for %llu MiB of memory on the host "
			    "(%llu MiB available, %llu MiB reserved by other guests)",
			    (long long)((fl_mono_ms() - start) / 1000),
			    (unsigned long long)((need + FL_HOSTSLOT_OVERHEAD) >> 20),
			    (unsigned long long)(avail >> 20), (unsigned long long)(others >> 20));
		if (!said || fl_mono_ms() - said >= PROGRESS_EVERY_MS) {
			fl_info("%s: waiting for memory: the guest needs %llu MiB, %llu MiB "
				"available, %llu MiB reserved by other guests",
				s->who, (unsigned long long)((need + FL_HOSTSLOT_OVERHEAD) >> 20),
				(unsigned long long)(avail >> 20),
				(unsigned long long)(others >> 20));
			said = fl_mono_ms();
		}
		usleep(POLL_MS * 1000);
	}
}

unsigned fl_hostslot_index(const fl_hostslot *s)
{
	return s->index;
}

void fl_hostslot_release(fl_hostslot *s)
{
	if (!s)
		return;
	if (s->fd >= 0) {
		/* Truncate before unlocking: the next holder starts with no reservation. */
		if (ftruncate(s->fd, 0))
			fl_verbose("host slot %s/slot-%u.lock: %s", s->dir, s->index,
				   strerror(errno));
		close(s->fd);
	}
	free(s->dir);
	free(s->who);
	free(s);
}
