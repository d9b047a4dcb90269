/*
 * initramfs.c - the cpio "newc" writer (see initramfs.h). Output goes
 * through zlib's gzFile in both cases: mode "wbT" writes it uncompressed, so
 * there is one code path.
 */
#include "build/initramfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "lib/error.h"

struct fl_initramfs {
	gzFile gz;
	char *path;
	unsigned ino;
	int failed;
};

static int put(struct fl_initramfs *ir, const void *p, size_t n)
{
	if (ir->failed)
		return FL_EIO;
	if (n && gzwrite(ir->gz, p, (unsigned)n) != (int)n) {
		ir->failed = 1;
		return fl_error_set(FL_EIO, "%s: write failed", ir->path);
	}
	return 0;
}

/* newc pads the header+name and the data to 4 bytes. */
static int pad4(struct fl_initramfs *ir, size_t n)
{
	static const char zero[4];

	return put(ir, zero, (4 - n % 4) % 4);
}

static int entry(struct fl_initramfs *ir, const char *name, unsigned mode,
		 unsigned nlink, const void *data, size_t len)
{
	char hdr[128];
	size_t nsize = strlen(name) + 1;
	int err;

	if (len > 0xffffffffu)
		return fl_error_set(FL_EINVAL, "%s: %s is too large for cpio newc", ir->path, name);
	/* Fixed mtime and owner: the same inputs give the same bytes. */
	snprintf(hdr, sizeof(hdr), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 ++ir->ino, mode, 0u, 0u, nlink, 0u, (unsigned)len, 0u, 0u, 0u, 0u, (unsigned)nsize, 0u);
	err = put(ir, hdr, 110);
	if (!err)
		err = put(ir, name, nsize);
	if (!err)
		err = pad4(ir, 110 + nsize);
	if (!err)
		err = put(ir, data, len);
	if (!err)
		err = pad4(ir, len);
	return err;
}

int fl_initramfs_open(struct fl_initramfs **out, const char *path, int gzip)
{
	struct fl_initramfs *ir = calloc(1, sizeof(*ir));

	*out = NULL;
	if (!ir || !(ir->path = strdup(path))) {
		free(ir);
		return fl_error_set(FL_ERROR, "out of memory");
	}
	ir->gz = gzopen(path, gzip ? "wb9" : "wbT");
	if (!ir->gz) {
		int e = errno;

		free(ir->path);
		free(ir);
		return fl_error_set(FL_EIO, "%s: %s", path, strerror(e));
	}
	*out = ir;
	return 0;
}

int fl_initramfs_dir(struct fl_initramfs *ir, const char *name, unsigned mode)
{
	return entry(ir, name, S_IFDIR | (mode & 07777), 2, NULL, 0);
}

int fl_initramfs_file(struct fl_initramfs *ir, const char *name, unsigned mode,
		      const void *data, size_t len)
{
	return entry(ir, name, S_IFREG | (mode & 07777), 1, data, len);
}

int fl_initramfs_file_from(struct fl_initramfs *ir, const char *name, unsigned mode,
			   const char *src)
{
	FILE *f = fopen(src, "rb");
	char *data = NULL;
	long len;
	int err;

	if (!f)
		return fl_error_set(FL_EIO, "%s: %s", src, strerror(errno));
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(data = malloc((size_t)len + 1)) || fread(data, 1, (size_t)len, f) != (size_t)len) {
		fclose(f);
		free(data);
		return fl_error_set(FL_EIO, "%s: cannot read", src);
	}
	fclose(f);
	err = fl_initramfs_file(ir, name, mode, data, (size_t)len);
	free(data);
	return err;
}

int fl_initramfs_close(struct fl_initramfs *ir)
{
	int err = entry(ir, "TRAILER!!!", 0, 1, NULL, 0);

	if (gzclose(ir->gz) != Z_OK && !err)
		err = fl_error_set(FL_EIO, "%s: close failed", ir->path);
	free(ir->path);
	free(ir);
	return err;
}

int fl_initramfs_agent(const char *path, const char *agent, const char *job, int gzip)
{
	static const char *const dirs[] = { "dev", "proc", "sys", "tmp" };
	struct fl_initramfs *ir;
	int err;

	err = fl_initramfs_open(&ir, path, gzip);
	if (err)
		return err;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !err; i++)
		err = fl_initramfs_dir(ir, dirs[i], dirs[i][0] == 't' ? 01777 : 0755);
	if (!err)
		err = fl_initramfs_file_from(ir, "init", 0755, agent);
	if (!err && job)
		err = fl_initramfs_file(ir, "job", 0644, job, strlen(job));
	if (fl_initramfs_close(ir) && !err)
		err = FL_EIO;
	return err;
}
