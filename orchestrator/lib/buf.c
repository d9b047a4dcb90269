/* buf.c - growable strings and the aborting allocators (see buf.h). */
#include "lib/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t n)
{
	fprintf(stderr, "faultline: out of memory allocating %zu bytes\n", n);
	abort();
}

void *fl_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom(n);
	return p;
}

void *fl_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom(n * size);
	return p;
}

void *fl_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		oom(n);
	return q;
}

char *fl_xstrdup(const char *s)
{
	return fl_xstrndup(s, strlen(s));
}

char *fl_xstrndup(const char *s, size_t n)
{
	char *p = fl_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *fl_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) /* an invalid format or a result over INT_MAX: a bug */
		abort();
	s = fl_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

void fl_buf_grow(fl_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need <= b->alloc)
		return;
	b->alloc = b->alloc ? b->alloc : 64;
	while (b->alloc < need)
		b->alloc *= 2;
	b->ptr = fl_xrealloc(b->ptr, b->alloc);
	b->ptr[b->len] = '\0';
}

void fl_buf_add(fl_buf *b, const void *data, size_t len)
{
	fl_buf_grow(b, len);
	memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
}

void fl_buf_adds(fl_buf *b, const char *s)
{
	fl_buf_add(b, s, strlen(s));
}

void fl_buf_addch(fl_buf *b, char c)
{
	fl_buf_add(b, &c, 1);
}

void fl_buf_addf(fl_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) /* an invalid format or a result over INT_MAX: a bug */
		abort();
	fl_buf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void fl_buf_reset(fl_buf *b)
{
	b->len = 0;
	if (b->ptr)
		b->ptr[0] = '\0';
}

char *fl_buf_detach(fl_buf *b)
{
	char *s = b->ptr ? b->ptr : fl_xstrdup("");

	b->ptr = NULL;
	b->len = b->alloc = 0;
	return s;
}

void fl_buf_free(fl_buf *b)
{
	free(b->ptr);
	b->ptr = NULL;
	b->len = b->alloc = 0;
}

const char *fl_buf_str(const fl_buf *b)
{
	return b->ptr ? b->ptr : "";
}
