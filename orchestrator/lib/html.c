/* html.c - HTML and URL escaping for the results pages (see html.h). */
#include "lib/html.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void fl_html_text(fl_buf *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fl_buf_adds(out, "&amp;");
			break;
		case '<':
			fl_buf_adds(out, "&lt;");
			break;
		case '>':
			fl_buf_adds(out, "&gt;");
			break;
		case '"':
			fl_buf_adds(out, "&quot;");
			break;
		case '\'':
			fl_buf_adds(out, "&#39;");
			break;
		default:
			fl_buf_addch(out, *s);
		}
	}
}

void fl_html_url_component(fl_buf *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("-._~", c)) {
			fl_buf_addch(out, (char)c);
			continue;
		}
		fl_buf_addch(out, '%');
		fl_buf_addch(out, hex[c >> 4]);
		fl_buf_addch(out, hex[c & 15]);
	}
}

/*
 * A small formatter rather than vsnprintf: a page author cannot forget to
 * escape, because %s always escapes. Supported: %s (escaped), %S (raw),
 * %d, %u, %lld, %zu, %.Nf and %+.Nf (N one digit; + signs it) and %%.
 */
void fl_html_addf(fl_buf *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			fl_buf_addch(out, *p);
			continue;
		}
		p++;
		if (*p == 's')
			fl_html_text(out, va_arg(ap, const char *));
		else if (*p == 'S')
			fl_buf_adds(out, va_arg(ap, const char *));
		else if (*p == 'd')
			fl_buf_addf(out, "%d", va_arg(ap, int));
		else if (*p == 'u')
			fl_buf_addf(out, "%u", va_arg(ap, unsigned));
		else if (!strncmp(p, "lld", 3)) {
			fl_buf_addf(out, "%lld", va_arg(ap, long long));
			p += 2;
		} else if (!strncmp(p, "zu", 2)) {
			fl_buf_addf(out, "%zu", va_arg(ap, size_t));
			p += 1;
		} else if (p[0] == '.' && p[1] >= '0' && p[1] <= '9' && p[2] == 'f') {
			fl_buf_addf(out, "%.*f", p[1] - '0', va_arg(ap, double));
			p += 2;
		} else if (p[0] == '+' && p[1] == '.' && p[2] >= '0' && p[2] <= '9' &&
			   p[3] == 'f') {
			fl_buf_addf(out, "%+.*f", p[2] - '0', va_arg(ap, double));
			p += 3;
		} else if (*p == '%')
			fl_buf_addch(out, '%');
		else
			break; /* unknown conversion: stop rather than misread arguments */
	}
	va_end(ap);
}
