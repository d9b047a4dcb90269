/*
 * testlib.h - what the C tests share: a scratch directory per test program,
 * removed with everything in it at the end.
 */
#ifndef FL_TESTLIB_H
#define FL_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>

/* Creates /tmp/fl-<tag>-XXXXXX into dir (at least 64 bytes); 0 or -1. */
static inline int fl_test_tmpdir(char *dir, size_t n, const char *tag)
{
	snprintf(dir, n, "/tmp/fl-%s-XXXXXX", tag);
	return mkdtemp(dir) ? 0 : -1;
}

static inline int fl_test_rmtree(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

#endif
