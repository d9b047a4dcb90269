/*
 * initramfs.h - writes a Linux initramfs (cpio "newc", optionally gzipped)
 * without an external cpio: /init is fl-agent, /job the job, plus the
 * directories the agent mounts on.
 */
#ifndef FL_INITRAMFS_H
#define FL_INITRAMFS_H

#include <stddef.h>

struct fl_initramfs;

/* gzip 0 writes plain cpio. */
int fl_initramfs_open(struct fl_initramfs **ir, const char *path, int gzip);
int fl_initramfs_dir(struct fl_initramfs *ir, const char *name, unsigned mode);
int fl_initramfs_file(struct fl_initramfs *ir, const char *name, unsigned mode,
		      const void *data, size_t len);
/* Copies the file at src into the archive as name. */
int fl_initramfs_file_from(struct fl_initramfs *ir, const char *name, unsigned mode,
			   const char *src);
/* Writes the trailer and closes; ir is freed even on error. */
int fl_initramfs_close(struct fl_initramfs *ir);

/* The agent image: dev, proc, sys, tmp, /init = agent, /job = job text. */
int fl_initramfs_agent(const char *path, const char *agent, const char *job, int gzip);

#endif
