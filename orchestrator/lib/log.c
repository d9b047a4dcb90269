/* log.c - levelled messages on standard error (see log.h). */
#include "lib/log.h"
#include "lib/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static enum fl_log_level level = FL_LOG_INFO;

void fl_log_set_level(enum fl_log_level l)
{
	level = l;
}

enum fl_log_level fl_log_level(void)
{
	return level;
}

/*
 * One message per call, whole even from several threads (the servers'
 * access logs), and only the message: text from outside (a request path, a
 * commit subject, a server's reply) cannot start a line of its own or move
 * the terminal. A newline in a message goes on an indented line; any other
 * control character (CR, ESC, ...) is written as \xNN.
 */
__attribute__((format(printf, 2, 0))) static void say(const char *prefix, const char *fmt,
							va_list ap)
{
	char *msg = NULL;
	fl_buf line = FL_BUF_INIT;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	fl_buf_adds(&line, prefix);
	for (const unsigned char *p = (const unsigned char *)(msg ? msg : fmt); *p; p++) {
		if (*p == '\n')
			fl_buf_adds(&line, "\n    ");
		else if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			fl_buf_addf(&line, "\\x%02x", *p);
		else
			fl_buf_addch(&line, (char)*p);
	}
	fl_buf_addch(&line, '\n');
	/* one write: stderr is unbuffered, and a character at a time was a system call each */
	fwrite(line.ptr, 1, line.len, stderr);
	fl_buf_free(&line);
	free(msg);
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
