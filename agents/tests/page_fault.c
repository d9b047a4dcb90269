/*
 * page_fault.c - page_fault1, page_fault2 and page_fault3, with
 * will-it-scale's semantics so the numbers compare with what kernel
 * developers quote. Each task maps its memory, writes one byte per page
 * (one page fault each, counted as an operation), unmaps it, and again:
 *
 *   page_fault1  anonymous private memory
 *   page_fault2  a private mapping of the task's own unlinked tmpfs file
 *                (copy-on-write faults from the page cache)
 *   page_fault3  the same file mapped shared
 */
#include "proto/error.h"
#include "proto/testdef.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Below a page, a mapping is one page all the same: the test would measure
 * mmap and munmap, one fault for each, not page faults. */
static int check(const struct fl_testdef_params *p)
{
	if (p->memory < 4096)
		return fl_error_set(FL_EINVAL,
				    "%llu bytes per task is less than a page (4096): one fault "
				    "per mapping would measure mmap, not page faults",
				    (unsigned long long)p->memory);
	return 0;
}

/* The file is created and unlinked before the task starts, so a killed
 * task leaves nothing behind on tmpfs. */
static int open_file(struct fl_testdef_task *t)
{
	char path[] = "/tmp/fl-agent-XXXXXX";
	int fd;

	if ((fd = mkstemp(path)) < 0)
		return fl_error_set(FL_EIO, "tmpfs file in /tmp: %s", strerror(errno));
	unlink(path);
	if (ftruncate(fd, (off_t)t->params->memory)) {
		int e = errno;

		close(fd);
		return fl_error_set(FL_EIO, "tmpfs file in /tmp: %s", strerror(e));
	}
	t->fd = fd;
	return 0;
}

static void close_file(struct fl_testdef_task *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

/* will-it-scale's testcase loop: map, touch one byte per page counting each
 * one, unmap. The stop check is once per mapping, off the per-page path.
 * The test's data is the mapping's flags; the file is the task's, or -1. */
static void run(struct fl_testdef_task *t)
{
	const int *flags = t->test->data;
	uint64_t size = t->params->memory, pg = (uint64_t)sysconf(_SC_PAGESIZE);

	while (!t->stop || !*t->stop) {
		char *c = mmap(NULL, size, PROT_READ | PROT_WRITE, *flags, t->fd, 0);

		if (c == MAP_FAILED)
			_exit(3);
		for (uint64_t i = 0; i < size; i += pg) {
			c[i] = 0;
			(*t->ops)++;
		}
		munmap(c, size);
	}
}

static const int anon = MAP_PRIVATE | MAP_ANONYMOUS, file_private = MAP_PRIVATE,
		 file_shared = MAP_SHARED;

const struct fl_testdef fl_test_page_fault1 = {
    .name = "page_fault1",
    .about = "map anonymous memory, write each page, unmap",
    .op = "a page faulted",
    .modes = FL_TESTDEF_PROCESSES | FL_TESTDEF_THREADS,
    .ram_copies = 1,
    .check = check,
    .run = run,
    .data = &anon,
};

/* The file and the private copies of its pages: twice the memory. */
const struct fl_testdef fl_test_page_fault2 = {
    .name = "page_fault2",
    .about = "map its own tmpfs file private, write each page, unmap",
    .op = "a page faulted (copy-on-write from the page cache)",
    .modes = FL_TESTDEF_PROCESSES | FL_TESTDEF_THREADS,
    .ram_copies = 2,
    .tmp_copies = 1,
    .check = check,
    .open = open_file,
    .run = run,
    .close = close_file,
    .data = &file_private,
};

const struct fl_testdef fl_test_page_fault3 = {
    .name = "page_fault3",
    .about = "map its own tmpfs file shared, write each page, unmap",
    .op = "a page faulted",
    .modes = FL_TESTDEF_PROCESSES | FL_TESTDEF_THREADS,
    .ram_copies = 1,
    .tmp_copies = 1,
    .check = check,
    .open = open_file,
    .run = run,
    .close = close_file,
    .data = &file_shared,
};
