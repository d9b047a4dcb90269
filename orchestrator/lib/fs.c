/* fs.c - directories and whole files for the store, trees, slots and artifacts (see fs.h). */
#include "lib/fs.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits.h>

int fl_mkdir_p(const char *path)
{
	char *p = fl_xstrdup(path);
	int r = 0;

	for (char *s = p + 1; *s && !r; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			r = FL_EIO;
		*s = '/';
	}
	if (!r && *p && mkdir(p, 0755) && errno != EEXIST)
		r = FL_EIO;
	if (r)
		fl_error_set(FL_EIO, "cannot create %s: %s", p, strerror(errno));
	free(p);
	return r;
}

int fl_mkdir_parent(const char *file)
{
	const char *slash = strrchr(file, '/');
	char *dir;
	int r;

	if (!slash || slash == file)
		return 0;
	dir = fl_xstrndup(file, (size_t)(slash - file));
	r = fl_mkdir_p(dir);
	free(dir);
	return r;
}

/* nftw callback: children before their directory (FTW_DEPTH), links not followed. */
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path) && errno != ENOENT) {
		fl_error_set(FL_EIO, "cannot remove %s: %s", path, strerror(errno));
		return 1;
	}
	return 0;
}

int fl_remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : fl_error_set(FL_EIO, "%s: %s", path, strerror(errno));
	if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS))
		return FL_EIO;
	return 0;
}

char *fl_path_component(const char *s)
{
	char *out = fl_xstrdup(s);

	for (char *c = out; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9')))
			*c = '_';
	return out;
}

int fl_read_file(const char *path, fl_buf *out)
{
	char chunk[65536];
	FILE *f = fopen(path, "rbe");
	size_t n;
	int failed;

	if (!f)
		return fl_error_set(FL_EIO, "%s: cannot open: %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fl_buf_add(out, chunk, n);
	failed = ferror(f);
	fclose(f);
	if (failed)
		return fl_error_set(FL_EIO, "%s: cannot read: %s", path, strerror(errno));
	return 0;
}

int fl_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");
	int failed;

	if (!f)
		return fl_error_set(FL_EIO, "cannot write %s: %s", path, strerror(errno));
	failed = fputs(text, f) == EOF;
	failed |= fclose(f) != 0;
	if (failed)
		return fl_error_set(FL_EIO, "cannot write %s: %s", path,
				    errno == ENOSPC ? "disk full" : strerror(errno));
	return 0;
}

int fl_copy_file(const char *from, const char *to, uint64_t *size)
{
	char chunk[65536];
	int in = open(from, O_RDONLY), out;
	ssize_t n;
	int r = 0;

	if (in < 0)
		return fl_error_set(FL_EIO, "cannot read %s: %s", from, strerror(errno));
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		close(in);
		return fl_error_set(FL_EIO, "cannot create %s: %s", to, strerror(errno));
	}
	while (!r && (n = read(in, chunk, sizeof(chunk))) > 0) {
		if (write(out, chunk, (size_t)n) != n)
			r = fl_error_set(FL_EIO, "%s: %s", to,
					 errno == ENOSPC ? "disk full" : strerror(errno));
		if (size)
			*size += (uint64_t)n;
	}
	close(in);
	if (close(out) && !r)
		r = fl_error_set(FL_EIO, "%s: %s", to, strerror(errno));
	return r;
}

char *fl_exe_dir(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	return fl_xstrdup(exe);
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

char *fl_data_path(const char *rel)
{
	char *dir, *p;

	if (rel[0] == '/' || exists(rel))
		return exists(rel) ? fl_xstrdup(rel) : NULL;
	if ((dir = fl_exe_dir())) {
		p = fl_xasprintf("%s/%s/%s", dir, FL_BIN_TO_DATA, rel);
		free(dir);
		if (exists(p))
			return p;
		free(p);
	}
	p = fl_xasprintf("%s/%s", FL_INSTALL_DATADIR, rel);
	if (exists(p))
		return p;
	free(p);
	p = fl_xasprintf("%s/%s", FL_BUILD_SOURCE_DIR, rel);
	if (exists(p))
		return p;
	free(p);
	return NULL;
}
