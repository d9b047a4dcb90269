/*
 * pool.h - memory that lives as long as one request: every string and row a
 * results page reads from the store is allocated here and released by one
 * fl_pool_free() when the page is sent. Allocation failure aborts (buf.h).
 */
#ifndef FL_POOL_H
#define FL_POOL_H

#include <stddef.h>

typedef struct fl_pool {
	struct fl_pool_chunk *head;
} fl_pool;

#define FL_POOL_INIT                                                                               \
	{                                                                                          \
		NULL                                                                               \
	}

/* Zeroed memory, aligned for any type. */
void *fl_pool_alloc(fl_pool *p, size_t n);
/* NULL stays NULL. */
char *fl_pool_strdup(fl_pool *p, const char *s);
/* Room for one more element of a growing array: *arr has *n of *alloc used. */
void *fl_pool_grow(fl_pool *p, void *arr, size_t size, size_t n, size_t *alloc);
void fl_pool_free(fl_pool *p);

#endif
