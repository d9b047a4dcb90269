/*
 * jsonw.c - the JSON writer of fl-agent (see jsonw.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/jsonw.h"

void jw_init(struct jw *w)
{
	memset(w, 0, sizeof(*w));
}

void jw_free(struct jw *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

static void put(struct jw *w, const char *s, size_t n)
{
	if (w->failed)
		return;
	if (w->len + n + 1 > w->cap) {
		size_t nc = w->cap ? w->cap : 256;
		char *nb;

		while (nc < w->len + n + 1)
			nc *= 2;
		nb = realloc(w->buf, nc);
		if (!nb) {
			w->failed = 1;
			return;
		}
		w->buf = nb;
		w->cap = nc;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = 0;
}

static void putf(struct jw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct jw *w, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(w, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void put_string(struct jw *w, const char *s)
{
	put(w, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			put(w, "\\", 1);
			put(w, s, 1);
		} else if (c < 0x20 || c == 0x7f) {
			/* Control bytes, CR and LF above all, never reach the line. */
			putf(w, "\\u%04x", c);
		} else {
			put(w, s, 1);
		}
	}
	put(w, "\"", 1);
}

static void key(struct jw *w, const char *k)
{
	if (w->need_comma)
		put(w, ",", 1);
	w->need_comma = 1;
	if (k) {
		put_string(w, k);
		put(w, ":", 1);
	}
}

void jw_obj_open(struct jw *w, const char *k)
{
	key(w, k);
	put(w, "{", 1);
	w->need_comma = 0;
}

void jw_obj_close(struct jw *w)
{
	put(w, "}", 1);
	w->need_comma = 1;
}

void jw_arr_open(struct jw *w, const char *k)
{
	key(w, k);
	put(w, "[", 1);
	w->need_comma = 0;
}

void jw_arr_close(struct jw *w)
{
	put(w, "]", 1);
	w->need_comma = 1;
}

void jw_str(struct jw *w, const char *k, const char *v)
{
	key(w, k);
	put_string(w, v ? v : "");
}

void jw_int(struct jw *w, const char *k, int64_t v)
{
	key(w, k);
	putf(w, "%lld", (long long)v);
}

void jw_uint(struct jw *w, const char *k, uint64_t v)
{
	key(w, k);
	putf(w, "%llu", (unsigned long long)v);
}

void jw_double(struct jw *w, const char *k, double v)
{
	jw_double_p(w, k, v, 1);
}

void jw_double_p(struct jw *w, const char *k, double v, int decimals)
{
	key(w, k);
	if (v != v || v > 1e300 || v < -1e300)
		put(w, "null", 4);	/* JSON has no NaN or infinity */
	else
		putf(w, "%.*f", decimals, v);
}
