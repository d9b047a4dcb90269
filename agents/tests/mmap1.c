/*
 * mmap1.c - mmap1, with will-it-scale's semantics: each task maps its
 * memory (memory=, 128M by default as there) anonymous and private, and
 * unmaps it again at once, without touching a page, in a loop. One
 * operation is one mmap and munmap pair: what it measures is the cost of
 * making and tearing down a mapping (the mm's VMA tree and its lock, which
 * threads share and processes do not), not page faults.
 */
#include "proto/testdef.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* The stop check is once per pair, as cheap as the count. */
static void run(struct fl_testdef_task *t)
{
	size_t size = (size_t)t->params->memory;

	while (!t->stop || !*t->stop) {
		void *c =
		    mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (c == MAP_FAILED)
			_exit(3);
		munmap(c, size);
		(*t->ops)++;
	}
}

/* Nothing is touched: the mapping holds no memory, only its address range. */
const struct fl_testdef fl_test_mmap1 = {
    .name = "mmap1",
    .about = "map anonymous memory and unmap it, touching no page",
    .op = "an mmap and munmap pair",
    .modes = FL_TESTDEF_PROCESSES | FL_TESTDEF_THREADS,
    .run = run,
};
