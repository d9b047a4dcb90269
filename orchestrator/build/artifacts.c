/*
 * artifacts.c - the shared artifact directory (see artifacts.h): name
 * locks, publishing by rename, eviction that spares what is in use, the
 * sweep of dead processes' temporary directories.
 *
 * A lock is an flock on <dir>/<name>.lock plus a claim in this process:
 * threads of one process exclude each other by the claim, processes by
 * the flock (on NFS, Linux emulates flock with POSIX locks, which are the
 * process's: without the claim two threads would both get it).
 */
#include "build/artifacts.h"
#include "config/config.h"
#include "lib/cancel.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "lib/log.h"
#include "lib/time.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TMP_PREFIX ".tmp-"
#define TMP_SUFFIX_LEN 7 /* "-XXXXXX" */
#define POLL_US 500000
#define SAY_EVERY_MS 60000

char *fl_artifacts_dir(const struct fl_config *cfg)
{
	if (cfg->build.artifacts)
		return fl_xstrdup(cfg->build.artifacts);
	return fl_xasprintf("%s/artifacts", cfg->var);
}

/* ---- claims: the lock paths this process's threads hold ------------- */

struct claim {
	char *path;
	struct claim *next;
};

static pthread_mutex_t claims_mu = PTHREAD_MUTEX_INITIALIZER;
static struct claim *claims;

/* 1 when path is now this thread's, 0 when another thread has it. */
static int claim(const char *path)
{
	struct claim *c;
	int got = 1;

	pthread_mutex_lock(&claims_mu);
	for (c = claims; c && got; c = c->next)
		got = strcmp(c->path, path) != 0;
	if (got) {
		c = fl_xcalloc(1, sizeof(*c));
		c->path = fl_xstrdup(path);
		c->next = claims;
		claims = c;
	}
	pthread_mutex_unlock(&claims_mu);
	return got;
}

static void unclaim(const char *path)
{
	pthread_mutex_lock(&claims_mu);
	for (struct claim **p = &claims; *p; p = &(*p)->next)
		if (!strcmp((*p)->path, path)) {
			struct claim *c = *p;

			*p = c->next;
			free(c->path);
			free(c);
			break;
		}
	pthread_mutex_unlock(&claims_mu);
}

/* ---- locks ---------------------------------------------------------- */

static char *lock_path(const char *dir, const char *name)
{
	return fl_xasprintf("%s/%s.lock", dir, name);
}

/*
 * 1 with *fd locked, 0 when someone else holds it, or FL_EIO. The file
 * must still be the one at path once locked: eviction unlinks it under
 * its lock, and a lock on an unlinked file excludes nobody.
 */
static int try_lock(const char *path, int *fd)
{
	struct stat a, b;
	int e;

	if (!claim(path))
		return 0;
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0) {
		e = errno;
		unclaim(path);
		return fl_error_set(FL_EIO, "artifact lock %s: %s", path, strerror(e));
	}
	if (flock(*fd, LOCK_EX | LOCK_NB)) {
		e = errno;
		close(*fd);
		unclaim(path);
		if (e == EWOULDBLOCK || e == EINTR)
			return 0;
		return fl_error_set(FL_EIO, "artifact lock %s: %s", path, strerror(e));
	}
	if (fstat(*fd, &a) || stat(path, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		close(*fd);
		unclaim(path);
		return 0;
	}
	return 1;
}

static void unlock_path(const char *path, int fd)
{
	close(fd);
	unclaim(path);
}

int fl_artifact_lock(const char *dir, const char *name, const char *what, int *fd)
{
	char *path = lock_path(dir, name);
	int64_t start = fl_mono_ms(), said = 0;
	int r;

	if ((r = fl_mkdir_p(dir))) {
		free(path);
		return r;
	}
	while (!(r = try_lock(path, fd))) {
		int64_t now = fl_mono_ms();

		if (!said || now - said >= SAY_EVERY_MS) {
			if (!said)
				fl_info("build: waiting for another worker building %s (%s)", what,
					path);
			else
				fl_info("build: still waiting for another worker building %s (%lld s)",
					what, (long long)((now - start) / 1000));
			said = now;
		}
		if (fl_cancel_requested()) {
			r = fl_error_set(FL_ERROR, "interrupted while waiting for %s", path);
			break;
		}
		usleep(POLL_US);
	}
	if (r == 1 && said)
		fl_info("build: %s: the other worker is done after %lld s", what,
			(long long)((fl_mono_ms() - start) / 1000));
	free(path);
	return r == 1 ? 0 : r;
}

void fl_artifact_unlock(const char *dir, const char *name, int fd)
{
	char *path = lock_path(dir, name);

	unlock_path(path, fd);
	free(path);
}

/* ---- publishing ----------------------------------------------------- */

int fl_artifact_tmp(const char *dir, const char *name, char **tmp)
{
	int r;

	*tmp = NULL;
	if ((r = fl_mkdir_p(dir)))
		return r;
	*tmp = fl_xasprintf("%s/" TMP_PREFIX "%s-XXXXXX", dir, name);
	if (!mkdtemp(*tmp) || chmod(*tmp, 0755)) {
		r = fl_error_set(FL_EIO, "cannot create %s: %s", *tmp, strerror(errno));
		free(*tmp);
		*tmp = NULL;
	}
	return r;
}

int fl_artifact_publish(const char *tmp, const char *final)
{
	if (!rename(tmp, final))
		return 0;
	if (errno == EEXIST || errno == ENOTEMPTY) {
		fl_info("build: %s was published meanwhile: keeping that one", final);
		fl_remove_tree(tmp);
		return 0;
	}
	return fl_error_set(FL_EIO, "cannot publish %s as %s: %s", tmp, final, strerror(errno));
}

void fl_artifact_touch(const char *path)
{
	utimensat(AT_FDCWD, path, NULL, 0);
}

/* ---- eviction and the sweep ----------------------------------------- */

static int exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* Under name's lock: renamed away, then removed with its lock file. */
static int remove_locked(const char *dir, const char *name, const char *path,
			 const char *lock)
{
	char *trash;
	int r = fl_artifact_tmp(dir, name, &trash);

	if (!r && rename(path, trash)) {
		r = fl_error_set(FL_EIO, "cannot evict %s: %s", path, strerror(errno));
		rmdir(trash);
	}
	if (!r) {
		fl_remove_tree(trash);
		unlink(lock);
	}
	free(trash);
	return r;
}

int fl_artifact_evict(const char *dir, const char *path)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	char *p = exists(path) ? fl_xstrdup(path) : fl_xasprintf("%s/%s", dir, name);
	char *own = slash && exists(path) ? fl_xstrndup(path, (size_t)(slash - path))
					  : fl_xstrdup(dir);
	char *lock = lock_path(own, name);
	struct stat st;
	int fd, r = 1;

	if (!stat(p, &st) && st.st_mtime + FL_ARTIFACT_IN_USE_S > time(NULL))
		r = 0; /* used within the hour: another worker may be booting it */
	else if (exists(p) && (r = try_lock(lock, &fd)) == 1) {
		if (remove_locked(own, name, p, lock)) {
			fl_warn("%s", fl_error_last());
			r = 0;
		}
		unlock_path(lock, fd);
	} else if (r < 0) {
		r = 0;
	}
	free(lock);
	free(own);
	free(p);
	return r;
}

/* ".tmp-<name>-XXXXXX": name, or NULL. */
static char *tmp_name(const char *entry)
{
	size_t n = strlen(entry), pre = strlen(TMP_PREFIX);

	if (strncmp(entry, TMP_PREFIX, pre) || n <= pre + TMP_SUFFIX_LEN)
		return NULL;
	return fl_xstrndup(entry + pre, n - pre - TMP_SUFFIX_LEN);
}

void fl_artifact_sweep(const char *dir, const char *held)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *name = tmp_name(e->d_name), *lock, *path, *artifact;
		int fd;

		if (!name)
			continue;
		lock = lock_path(dir, name);
		path = fl_xasprintf("%s/%s", dir, e->d_name);
		/* ours, or nobody holds the name: whoever wrote this died */
		if (held && !strcmp(name, held)) {
			fl_info("build: removing %s, left by a worker that died", path);
			fl_remove_tree(path);
		} else if (try_lock(lock, &fd) == 1) {
			artifact = fl_xasprintf("%s/%s", dir, name);
			fl_info("build: removing %s, left by a worker that died", path);
			fl_remove_tree(path);
			if (!exists(artifact))
				unlink(lock);
			unlock_path(lock, fd);
			free(artifact);
		}
		free(path);
		free(lock);
		free(name);
	}
	closedir(d);
}
