/* error.c - per-thread last error message (see error.h). libc only. */
#include "proto/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last[4096];

int fl_error_set(int code, const char *fmt, ...)
{
	char msg[sizeof(last)]; /* an argument may be the message it replaces */
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	memcpy(last, msg, sizeof(last));
	return code;
}

int fl_error_wrap(int code, const char *fmt, ...)
{
	char old[sizeof(last)];
	size_t n;
	va_list ap;

	memcpy(old, last, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(last, sizeof(last), fmt, ap);
	va_end(ap);
	n = strlen(last);
	if (n + 2 < sizeof(last)) {
		memcpy(last + n, ": ", 3);
		strncat(last, old, sizeof(last) - n - 3);
	}
	return code;
}

const char *fl_error_last(void)
{
	return last[0] ? last : "unknown error";
}

void fl_error_clear(void)
{
	last[0] = '\0';
}
