/* log.c - levelled messages on standard error (see log.h). */
#include "lib/log.h"

#include <stdarg.h>
#include <stdio.h>

static enum fl_log_level level = FL_LOG_INFO;

void fl_log_set_level(enum fl_log_level l)
{
	level = l;
}

enum fl_log_level fl_log_level(void)
{
	return level;
}

/* One line per call, even from several threads (the server's access log). */
static void say(const char *prefix, const char *fmt, va_list ap)
{
	flockfile(stderr);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}

#define SAY(min, prefix)                                                                           \
	do {                                                                                       \
		va_list ap;                                                                        \
		if (level < (min))                                                                 \
			return;                                                                    \
		va_start(ap, fmt);                                                                 \
		say(prefix, fmt, ap);                                                              \
		va_end(ap);                                                                        \
	} while (0)

void fl_info(const char *fmt, ...)
{
	SAY(FL_LOG_INFO, "");
}

void fl_verbose(const char *fmt, ...)
{
	SAY(FL_LOG_VERBOSE, "");
}

void fl_warn(const char *fmt, ...)
{
	SAY(FL_LOG_QUIET, "warning: ");
}

void fl_err(const char *fmt, ...)
{
	SAY(FL_LOG_QUIET, "error: ");
}
