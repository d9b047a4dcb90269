/*
 * objtree.c - a slot's object trees (see objtree.h): the choice of one,
 * counted from kbuild's dependency lists, and the source mtimes for it.
 */
#include "build/objtree.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "lib/log.h"
#include "lib/run-command.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The mtime a source file gets when its text is the tree's commit's again:
 * older than any object (2000-01-01). */
#define OLD_MTIME 946684800

struct fl_objtree {
	char *dir;  /* where the tree is kept: obj-<config hash>-<k> */
	char *work; /* where it is built: obj-<config hash>, make's O= */
	char *stamp, *src, *config_hash;
	int at_work; /* the tree is at work, to be put back */
	char sha[41];	     /* the commit this build makes */
	char built_sha[41];  /* the commit the tree was last built at */
	struct timespec built; /* when that build's make was about to start */
	char **changed;	     /* paths that differ between the two, sorted */
	size_t nchanged;
	int fresh; /* no usable stamp: emptied before use */
	char *seed; /* a fresh tree's nearest, copied into it (built_sha, built: the nearest's) */
	int moved; /* the source tree moved since the tree was built */
};

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_changed(const fl_objtree *t, const char *rel)
{
	return bsearch(&rel, t->changed, t->nchanged, sizeof(char *), path_cmp) != NULL;
}

/* ---- walking a directory ------------------------------------------- */

/* Called for each file that is not a directory; rel is its path under the root. */
typedef void (*visit_fn)(void *data, int dirfd, const char *name, const char *rel,
			 const struct stat *st);

/* Every file under dirfd (closed here), depth first; rel holds len bytes of prefix. */
static void walk(int dirfd, char *rel, size_t len, visit_fn fn, void *data)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *e;

	if (!d) {
		close(dirfd);
		return;
	}
	while ((e = readdir(d))) {
		struct stat st;
		size_t n = strlen(e->d_name);

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    len + n + 2 > PATH_MAX ||
		    fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		memcpy(rel + len, e->d_name, n + 1);
		if (S_ISDIR(st.st_mode)) {
			int fd = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
							      O_CLOEXEC);

			rel[len + n] = '/';
			if (fd >= 0)
				walk(fd, rel, len + n + 1, fn, data);
		} else {
			fn(data, dirfd, e->d_name, rel, &st);
		}
		rel[len] = '\0';
	}
	closedir(d);
}

static void walk_dir(const char *root, visit_fn fn, void *data)
{
	char rel[PATH_MAX] = "";
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0)
		walk(fd, rel, 0, fn, data);
}

/* ---- what a tree would rebuild -------------------------------------- */

struct cost {
	const fl_objtree *t;
	size_t srclen;
	unsigned objects, rebuild;
};

/*
 * 1 when a kbuild .cmd text names a changed source: its source_ line, or a
 * line of its deps_ list ("  <src>/include/linux/mm_types.h \").
 */
static int cmd_hits(const struct cost *c, const char *text)
{
	const char *src = c->t->src;
	char path[PATH_MAX];

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n'), *e = nl ? nl : p + strlen(p), *s = p;

		if (!strncmp(s, "source_", 7) && (s = memchr(s, '=', (size_t)(e - s))))
			s++;
		else
			s = p;
		while (s < e && *s == ' ')
			s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\\'))
			e--;
		if ((size_t)(e - s) > c->srclen + 1 && (size_t)(e - s) < sizeof(path) &&
		    !strncmp(s, src, c->srclen) && s[c->srclen] == '/') {
			memcpy(path, s + c->srclen + 1, (size_t)(e - s) - c->srclen - 1);
			path[e - s - (ptrdiff_t)c->srclen - 1] = '\0';
			if (is_changed(c->t, path))
				return 1;
		}
		p = nl ? nl + 1 : e;
	}
	return 0;
}

static void count_object(void *data, int dirfd, const char *name, const char *rel,
			 const struct stat *st)
{
	struct cost *c = data;
	size_t n = strlen(name);
	fl_buf b = FL_BUF_INIT;
	char *path;

	(void)dirfd;
	if (!S_ISREG(st->st_mode) || name[0] != '.' || n < 7 || strcmp(name + n - 6, ".o.cmd"))
		return;
	c->objects++;
	if (!c->t->nchanged)
		return;
	path = fl_xasprintf("%s/%s", c->t->dir, rel);
	if (!fl_read_file(path, &b) && cmd_hits(c, fl_buf_str(&b)))
		c->rebuild++;
	fl_error_clear();
	fl_buf_free(&b);
	free(path);
}

/* ---- the stamp ------------------------------------------------------ */

/* The tree's stamp: "<sha>\n<seconds> <nanoseconds>\n". 1 when it reads. */
static int read_stamp(fl_objtree *t)
{
	fl_buf b = FL_BUF_INIT;
	long long sec = 0;
	long nsec = 0;
	int ok = 0;

	if (!fl_read_file(t->stamp, &b) && b.len > 41 && b.ptr[40] == '\n' &&
	    sscanf(b.ptr + 41, "%lld %ld", &sec, &nsec) == 2) {
		memcpy(t->built_sha, b.ptr, 40);
		t->built = (struct timespec){.tv_sec = (time_t)sec, .tv_nsec = nsec};
		ok = 1;
	}
	fl_error_clear();
	fl_buf_free(&b);
	return ok;
}

static void objtree_reset(fl_objtree *t)
{
	fl_repo_strv_free(t->changed, t->nchanged);
	t->changed = NULL;
	t->nchanged = 0;
	t->built_sha[0] = '\0';
}

/* A tree's stamp file, in the directory it is kept or built in. */
static char *stamp_of(const char *dir)
{
	return fl_xasprintf("%s/.faultline-source", dir);
}

/* Where a slot's trees of a config are built (fl_objtree_dir()). */
static char *work_of(const char *slot_dir, const char *config_hash)
{
	return fl_xasprintf("%s/obj-%s", slot_dir, config_hash);
}

static fl_objtree *objtree_new(const char *slot_dir, const char *src, const char *config_hash,
			       unsigned k, const char *sha)
{
	fl_objtree *t = fl_xcalloc(1, sizeof(*t));

	t->dir = fl_xasprintf("%s/obj-%s-%u", slot_dir, config_hash, k);
	t->work = work_of(slot_dir, config_hash);
	t->stamp = stamp_of(t->dir);
	t->src = fl_xstrdup(src);
	t->config_hash = fl_xstrdup(config_hash);
	memcpy(t->sha, sha, 40);
	return t;
}

/*
 * Reads tree t's stamp and counts what it would rebuild for t->sha. 0 for a
 * tree that cannot serve as it is (none, no stamp, another repository's
 * commit), else 1 with the counts in *c.
 */
static int assess(fl_objtree *t, fl_repo *repo, struct cost *c)
{
	struct stat st;

	*c = (struct cost){.t = t, .srclen = strlen(t->src)};
	if (stat(t->dir, &st) || !read_stamp(t))
		return 0;
	if (fl_repo_changed_paths(repo, t->built_sha, t->sha, &t->changed, &t->nchanged)) {
		fl_error_clear();
		objtree_reset(t);
		return 0;
	}
	qsort(t->changed, t->nchanged, sizeof(char *), path_cmp);
	walk_dir(t->dir, count_object, c);
	return 1;
}

int fl_objtree_pick(fl_objtree **out, fl_repo *repo, const char *slot_dir, const char *src,
		    const char *config_hash, unsigned ntrees, const char *head, const char *sha,
		    unsigned slot)
{
	fl_objtree *best = NULL, *spare = NULL;
	struct cost bc = {0};
	char *work = work_of(slot_dir, config_hash);
	int r = fl_remove_tree(work); /* a tree a killed build did not put back */

	free(work);
	for (unsigned k = 0; !r && k < (ntrees ? ntrees : 1); k++) {
		fl_objtree *t = objtree_new(slot_dir, src, config_hash, k, sha);
		struct cost c;

		if (!assess(t, repo, &c)) {
			t->fresh = 1;
			if (!spare)
				spare = t;
			else
				fl_objtree_free(t);
			continue;
		}
		if (best && c.rebuild >= bc.rebuild) {
			fl_objtree_free(t);
			continue;
		}
		fl_objtree_free(best);
		best = t;
		bc = c;
	}
	if (r) {
		fl_objtree_free(best);
		fl_objtree_free(spare);
		return r;
	}
	/* a new tree when the nearest would rebuild most of itself: the old one stays for a return */
	if (best && (!spare || bc.rebuild * 2 <= bc.objects)) {
		fl_info("build: slot %u: object tree %s, built at %.12s: %u of %u objects to rebuild",
			slot, strrchr(best->dir, '-') + 1, best->built_sha, bc.rebuild, bc.objects);
		best->moved = strcmp(head, best->built_sha) != 0;
		fl_objtree_free(spare);
		*out = best;
		return 0;
	}
	if (best) {
		fl_info("build: slot %u: object tree %s, new: a copy of the nearest, %s at %.12s, "
			"which would rebuild %u of %u objects",
			slot, strrchr(spare->dir, '-') + 1, strrchr(best->dir, '-') + 1,
			best->built_sha, bc.rebuild, bc.objects);
		spare->seed = fl_xstrdup(best->dir);
		memcpy(spare->built_sha, best->built_sha, sizeof(spare->built_sha));
		spare->built = best->built;
		spare->changed = best->changed;
		spare->nchanged = best->nchanged;
		best->changed = NULL;
		best->nchanged = 0;
		spare->moved = strcmp(head, best->built_sha) != 0;
	} else {
		fl_info("build: slot %u: object tree %s, new", slot, strrchr(spare->dir, '-') + 1);
	}
	fl_objtree_free(best);
	*out = spare;
	return 0;
}

const char *fl_objtree_dir(const fl_objtree *t)
{
	return t->work;
}

/* ---- mtimes --------------------------------------------------------- */

struct restamp {
	const fl_objtree *t;
	unsigned files;
};

/* A file written after the tree was built whose text is its commit's again: an old mtime. */
static void restamp(void *data, int dirfd, const char *name, const char *rel,
		    const struct stat *st)
{
	struct restamp *s = data;
	const struct timespec *b = &s->t->built;
	struct timespec times[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = OLD_MTIME}};

	if (!S_ISREG(st->st_mode) || st->st_mtim.tv_sec < b->tv_sec ||
	    (st->st_mtim.tv_sec == b->tv_sec && st->st_mtim.tv_nsec < b->tv_nsec) ||
	    is_changed(s->t, rel))
		return;
	if (!utimensat(dirfd, name, times, AT_SYMLINK_NOFOLLOW))
		s->files++;
}

/* The files that differ from the tree's commit: newer than any of its objects. */
static int touch_changed(const fl_objtree *t)
{
	for (size_t i = 0; i < t->nchanged; i++) {
		char *path = fl_xasprintf("%s/%s", t->src, t->changed[i]);
		int e = utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW) ? errno : 0;

		free(path);
		if (e && e != ENOENT) /* ENOENT: removed by the commit */
			return fl_error_set(FL_EIO, "cannot touch %s/%s: %s", t->src,
					    t->changed[i], strerror(e));
	}
	return 0;
}

/*
 * A new tree starts as a copy of its nearest (cp -a keeps the mtimes make
 * compares, and the .config and kconfig stamp: one config hash, so one
 * base and fragments). make then rebuilds what differs from the nearest's
 * commit, as in the nearest itself, and the nearest stays as it was for a
 * return; a copy of the 150 MB of a small kernel's objects takes about a
 * second. The copy is made beside the work path and renamed once whole,
 * without the stamp: a copy cut short is never taken for a built tree.
 */
static int copy_nearest(fl_objtree *t)
{
	char *tmp = fl_xasprintf("%s.copy", t->work);
	char *stamp = stamp_of(tmp);
	const char *argv[] = {"cp", "-a", "--reflink=auto", "--", t->seed, tmp, NULL};
	int r = fl_remove_tree(tmp);

	if (!r && (r = fl_run_checked(argv)))
		r = fl_error_wrap(r, "cannot copy object tree %s to %s", t->seed, tmp);
	if (!r && unlink(stamp) && errno != ENOENT)
		r = fl_error_set(FL_EIO, "cannot remove %s: %s", stamp, strerror(errno));
	if (!r && rename(tmp, t->work))
		r = fl_error_set(FL_EIO, "cannot rename %s to %s: %s", tmp, t->work,
				 strerror(errno));
	if (r)
		fl_remove_tree(tmp);
	free(stamp);
	free(tmp);
	return r;
}

/*
 * Every tree is built at one path, the work path: kbuild's host tools
 * (objtool) record their objects by absolute path, and in a tree moved or
 * copied elsewhere they are rebuilt, and with objtool every object that
 * depends on it (scripts/Makefile.lib, cmd_gen_objtooldep): a whole build.
 */
static int to_work(fl_objtree *t)
{
	int r;

	if (!t->fresh)
		r = rename(t->dir, t->work) ? fl_error_set(FL_EIO, "cannot rename %s to %s: %s",
							   t->dir, t->work, strerror(errno))
					    : 0;
	else if (!(r = fl_remove_tree(t->dir)))
		r = t->seed ? copy_nearest(t) : fl_mkdir_p(t->work);
	t->at_work = !r;
	free(t->stamp);
	t->stamp = stamp_of(t->work);
	return r;
}

/* The sources that differ from the tree's commit (or the nearest's, for a copy). */
static int set_mtimes(const fl_objtree *t)
{
	struct restamp s = {.t = t};
	int r = touch_changed(t);

	if (r || !t->moved)
		return r;
	walk_dir(t->src, restamp, &s);
	fl_verbose("build: %u source file%s back at %.12s's text: old mtime", s.files,
		   FL_S(s.files), t->built_sha);
	return 0;
}

int fl_objtree_prepare(fl_objtree *t)
{
	int r = 0;

	if (!(r = to_work(t)) && (!t->fresh || t->seed))
		r = set_mtimes(t);
	/* after the source's last write, before make: the stamp's time */
	clock_gettime(CLOCK_REALTIME, &t->built);
	return r;
}

/* Whether another object tree of t's config is on this host: any slot, built or not. */
static int config_elsewhere(const fl_objtree *t)
{
	char *slots = fl_xstrdup(t->dir), *slash = strrchr(slots, '/'), *pattern;
	glob_t g;
	int found = 0;

	*slash = '\0';
	slash = strrchr(slots, '/');
	if (slash)
		*slash = '\0';
	pattern = fl_xasprintf("%s/*/obj-%s*", slots, t->config_hash); /* at work too */
	if (!glob(pattern, 0, NULL, &g)) {
		for (size_t i = 0; i < g.gl_pathc && !found; i++)
			found = strcmp(g.gl_pathv[i], t->dir) != 0;
		globfree(&g);
	}
	free(pattern);
	free(slots);
	return found;
}

int fl_objtree_host_first(const fl_objtree *t)
{
	return t->fresh && !t->seed && !config_elsewhere(t);
}

int fl_objtree_begin(fl_objtree *t)
{
	if (unlink(t->stamp) && errno != ENOENT)
		return fl_error_set(FL_EIO, "cannot remove %s: %s", t->stamp, strerror(errno));
	return 0;
}

int fl_objtree_done(fl_objtree *t)
{
	char *text = fl_xasprintf("%s\n%lld %ld\n", t->sha, (long long)t->built.tv_sec,
				  (long)t->built.tv_nsec);
	int r = fl_write_file(t->stamp, text);

	free(text);
	return r;
}

void fl_objtree_put(fl_objtree *t)
{
	if (t->at_work && rename(t->work, t->dir))
		fl_warn("build: cannot rename %s to %s: %s (the next build empties it)", t->work,
			t->dir, strerror(errno));
	t->at_work = 0;
}

void fl_objtree_free(fl_objtree *t)
{
	if (!t)
		return;
	objtree_reset(t);
	free(t->dir);
	free(t->work);
	free(t->stamp);
	free(t->src);
	free(t->config_hash);
	free(t->seed);
	free(t);
}
