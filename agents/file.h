/*
 * file.h - whole-file reads of /proc and tracefs files for fl-agent: their
 * size is 0 in stat, so they are read until the end.
 */
#ifndef FL_AGENT_FILE_H
#define FL_AGENT_FILE_H

#include <stddef.h>

/* All of path, malloc'ed and NUL-terminated, starting with cap bytes and
 * growing; NULL when it cannot be opened. */
char *fl_agent_read_file(const char *path, size_t cap);

#endif
