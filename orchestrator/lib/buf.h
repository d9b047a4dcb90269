/*
 * buf.h - growable, always NUL-terminated byte buffers (git's strbuf, small).
 * Allocation failure aborts: faultline has no useful way to go on without memory.
 */
#ifndef FL_BUF_H
#define FL_BUF_H

#include <stddef.h>

typedef struct {
	char *ptr; /* never NULL after the first add; "" while empty */
	size_t len;
	size_t alloc;
} fl_buf;

#define FL_BUF_INIT {NULL, 0, 0}

void fl_buf_grow(fl_buf *b, size_t extra);
void fl_buf_add(fl_buf *b, const void *data, size_t len);
void fl_buf_adds(fl_buf *b, const char *s);
void fl_buf_addch(fl_buf *b, char c);
void fl_buf_addf(fl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fl_buf_reset(fl_buf *b);
/* Returns the string (caller frees) and leaves b empty. */
char *fl_buf_detach(fl_buf *b);
void fl_buf_free(fl_buf *b);
/* "" for a buffer nothing was added to. */
const char *fl_buf_str(const fl_buf *b);

void *fl_xmalloc(size_t n);
void *fl_xcalloc(size_t n, size_t size);
void *fl_xrealloc(void *p, size_t n);
char *fl_xstrdup(const char *s);
char *fl_xstrndup(const char *s, size_t n);
char *fl_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
