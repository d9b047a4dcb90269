/*
 * jsonw.h - a minimal append-only JSON writer for fl-agent, which is static
 * and keeps its dependencies to libc. Output is compact (no newlines), as
 * the record format requires. Allocation failure is sticky: the buffer is
 * marked failed and every later call is a no-op.
 */
#ifndef FL_JSONW_H
#define FL_JSONW_H

#include <stddef.h>
#include <stdint.h>

struct jw {
	char *buf;
	size_t len, cap;
	int failed;
	int need_comma;
};

void jw_init(struct jw *w);
void jw_free(struct jw *w);
void jw_obj_open(struct jw *w, const char *key);	/* key NULL: a value */
void jw_obj_close(struct jw *w);
void jw_arr_open(struct jw *w, const char *key);
void jw_arr_close(struct jw *w);
void jw_str(struct jw *w, const char *key, const char *v);
void jw_int(struct jw *w, const char *key, int64_t v);
void jw_uint(struct jw *w, const char *key, uint64_t v);
void jw_double(struct jw *w, const char *key, double v);	/* one decimal */
void jw_double_p(struct jw *w, const char *key, double v, int decimals);

#endif
