/*
 * fs.h - the file-system helpers several stages need: state directories,
 * scratch trees, whole files read at once (templates, kernel configs,
 * certificates).
 */
#ifndef FL_FS_H
#define FL_FS_H

#include <stdint.h>

#include "lib/buf.h"

/* mkdir -p: 0, or FL_EIO naming the directory that could not be made. */
int fl_mkdir_p(const char *path);
/* mkdir -p of the directory a file will be created in. */
int fl_mkdir_parent(const char *file);
/* rm -rf: 0 when path is gone (or never was), FL_EIO naming what stayed. */
int fl_remove_tree(const char *path);
/* s made safe as one file name: lower-case letters and digits kept, the
 * rest '_' ("qemu:///system" -> "qemu____system"). Caller frees. */
char *fl_path_component(const char *s);

/*
 * Appends the whole file at path to out (out keeps its text on error):
 * 0, or FL_EIO with "PATH: cannot open: REASON" (or "cannot read").
 */
int fl_read_file(const char *path, fl_buf *out);
/*
 * Replaces the file at path with text (state files, stamps): 0, or FL_EIO
 * with "cannot write PATH: REASON" ("disk full" for ENOSPC).
 */
int fl_write_file(const char *path, const char *text);
/*
 * Copies the file at from to to (made or replaced, mode 0644), adding its
 * bytes to *size (may be NULL): 0, or FL_EIO naming the file ("disk full"
 * for ENOSPC).
 */
int fl_copy_file(const char *from, const char *to, uint64_t *size);

/* The directory of the running executable (/proc/self/exe), or NULL. Caller frees. */
char *fl_exe_dir(void);
/*
 * Where the data file or directory rel ("web", "kernels/memcg.config") is,
 * wherever the command runs: an absolute rel, or rel from the current
 * directory when it exists there (a source checkout); else the installed
 * copy beside the executable's prefix (<bindir>/../share/faultline/rel, so a
 * relocated install works), the configured install's datadir, and the
 * source tree the binary was built from. NULL when none exists. Caller frees.
 */
char *fl_data_path(const char *rel);

#endif
