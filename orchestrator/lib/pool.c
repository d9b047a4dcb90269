/* pool.c - request-lifetime allocations (see pool.h). */
#include "lib/pool.h"
#include "lib/buf.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

struct fl_pool_chunk {
	struct fl_pool_chunk *next;
	size_t size, used;
	alignas(max_align_t) unsigned char data[];
};

#define CHUNK 16384

void *fl_pool_alloc(fl_pool *p, size_t n)
{
	struct fl_pool_chunk *c = p->head;
	size_t a = alignof(max_align_t);

	n = (n + a - 1) / a * a;
	if (!c || c->size - c->used < n) {
		size_t size = n > CHUNK / 4 ? n : CHUNK;

		c = fl_xmalloc(sizeof(*c) + size);
		c->size = size;
		c->used = 0;
		/* A large block goes behind the head so the head's free space is kept. */
		if (p->head && size != CHUNK) {
			c->next = p->head->next;
			p->head->next = c;
		} else {
			c->next = p->head;
			p->head = c;
		}
	}
	c->used += n;
	return memset(c->data + c->used - n, 0, n);
}

char *fl_pool_strdup(fl_pool *p, const char *s)
{
	size_t n;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	return memcpy(fl_pool_alloc(p, n), s, n);
}

void *fl_pool_grow(fl_pool *p, void *arr, size_t size, size_t n, size_t *alloc)
{
	void *bigger;

	if (n < *alloc)
		return arr;
	*alloc = *alloc ? 2 * *alloc : 16;
	bigger = fl_pool_alloc(p, *alloc * size);
	if (n)
		memcpy(bigger, arr, n * size);
	return bigger;
}

void fl_pool_free(fl_pool *p)
{
	while (p->head) {
		struct fl_pool_chunk *next = p->head->next;

		free(p->head);
		p->head = next;
	}
}
