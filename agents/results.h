/*
 * results.h - the results store of a bare-metal run: where the agent in the
 * kernel under test keeps its records so that they survive the box's return
 * to its own kernel, and where the daemon reads them back to upload them.
 * It is a raw partition (fl.results=/dev/sdb3: the test kernel needs only
 * its disk driver, no file system) or a plain file (current-kernel runs and
 * the test seam).
 *
 * Layout from byte 0: the line "FLRS1 job=<agent job id>\n", the FLR1
 * frames exactly as the console gets them (record.h), and one NUL byte that
 * ends the data: a partition keeps whatever an earlier job wrote after it.
 * Every frame is written over the previous NUL, followed by a new NUL, and
 * synced before the agent goes on, so a reset loses at most the frame being
 * written, and the reader never takes an older job's frames for this one's.
 */
#ifndef FL_RESULTS_H
#define FL_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FL_RESULTS_MAGIC "FLRS1 job="
/* What the reader takes at most: records of hours of benchmarks fit. */
#define FL_RESULTS_MAX (64u << 20)

struct fl_results {
	int fd;
	off_t end; /* where the terminating NUL is */
};

/*
 * Opens path for job, waiting up to wait_s seconds for a device node to
 * appear (disk drivers probe after /init starts), and writes the header. A
 * regular file is created or truncated. 0, or FL_EIO (proto/error.h).
 */
int fl_results_open(struct fl_results *r, const char *path, uint64_t job, int wait_s);
/* An fl_record_out_fn: appends one frame; 0 or FL_EIO. */
int fl_results_append(void *r, const char *frame, size_t len);
void fl_results_close(struct fl_results *r);

/* Writes all of p at off (pwrite), or at the file position when off < 0; 0 or FL_EIO. */
int fl_write_full(int fd, const char *p, size_t len, off_t off);

/*
 * Reads a store: the job it belongs to and its frames (malloc'd, NUL
 * ended). 0; 1 when it holds no results (no header: nothing was written
 * since it was made); FL_ENOTFOUND when there is no such file, FL_EIO when
 * it cannot be read.
 */
int fl_results_read(const char *path, uint64_t *job, char **frames, size_t *len);

#endif
