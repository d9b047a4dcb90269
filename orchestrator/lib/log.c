/* log.c - levelled messages on standard error (see log.h). */
#include "lib/log.h"
#include "lib/buf.h"
#include "lib/time.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static enum fl_log_level level = FL_LOG_INFO;

void fl_log_set_level(enum fl_log_level l)
{
	level = l;
}

enum fl_log_level fl_log_level(void)
{
	return level;
}

/* "2026-12-04T15:20:01.123Z ": the time in UTC, to the millisecond. */
static void add_time(fl_buf *line)
{
	struct timespec ts;
	struct tm tm;
	char when[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	fl_buf_addf(line, "%s.%03ldZ ", when, ts.tv_nsec / 1000000);
}

/*
 * One message per call, one line, whole even from several threads (the
 * servers' access logs): the time, the level, the message. Text from
 * outside (a request path, a commit subject, a server's reply) cannot start
 * a line of its own or move the terminal: a newline in a message is written
 * as \n (trailing ones dropped), any other control character (CR, ESC, ...)
 * as \xNN, a backslash stays itself.
 */
__attribute__((format(printf, 2, 0))) static void say(const char *name, const char *fmt,
							va_list ap)
{
	char *msg = NULL;
	fl_buf line = FL_BUF_INIT;
	const unsigned char *end;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	add_time(&line);
	fl_buf_adds(&line, name);
	fl_buf_addch(&line, ' ');
	end = (const unsigned char *)(msg ? msg : fmt);
	end += strlen((const char *)end);
	while (end > (const unsigned char *)(msg ? msg : fmt) && end[-1] == '\n')
		end--;
	for (const unsigned char *p = (const unsigned char *)(msg ? msg : fmt); p < end; p++) {
		if (*p == '\n')
			fl_buf_adds(&line, "\\n");
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
	SAY(FL_LOG_INFO, "info");
}

void fl_verbose(const char *fmt, ...)
{
	SAY(FL_LOG_VERBOSE, "debug");
}

void fl_warn(const char *fmt, ...)
{
	SAY(FL_LOG_QUIET, "warning");
}

void fl_err(const char *fmt, ...)
{
	SAY(FL_LOG_QUIET, "error");
}

int fl_info_changed(struct fl_log_repeat *r, int64_t every_ms, const char *fmt, ...)
{
	int64_t now = fl_mono_ms();
	va_list ap;
	char *msg = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	if (r->last && !strcmp(r->last, msg) && now - r->at < every_ms) {
		free(msg);
		return 0;
	}
	fl_info("%s", msg);
	free(r->last);
	r->last = msg;
	r->at = now;
	return 1;
}

void fl_info_reset(struct fl_log_repeat *r)
{
	free(r->last);
	r->last = NULL;
	r->at = 0;
}
