/*
 * log.h - what faultline says on standard error while it works.
 * -q shows only warnings and errors, -v adds detail. Progress lines
 * ("bisect: 37 commits left, ~5 steps") are info. Each call writes one
 * line: an ISO-8601 UTC time, the level (error, warning, info, debug for
 * -v's detail) and the message, which no text in it can break out of: a
 * newline in it is written as \n, other control characters as \xNN (a
 * request path with %0d%0a cannot forge a line, %1b cannot reach the
 * terminal):
 *   2026-12-04T15:20:01.123Z info watch: 1 tree, 1 machine, 1 benchmark; ...
 */
#ifndef FL_LOG_H
#define FL_LOG_H

#include <stdint.h>

enum fl_log_level { FL_LOG_QUIET = 0, FL_LOG_INFO = 1, FL_LOG_VERBOSE = 2 };

/* "%zu commit%s", n, FL_S(n): the plural's s, none for exactly one. */
#define FL_S(n) ((n) == 1 ? "" : "s")

/*
 * A status line said again and again (the watch service's "N jobs to do"
 * every minute): fl_info_changed() says it when its text differs from the
 * last one said through r, or when every_ms has passed since (a sign of
 * life); 1 when it said it. Zero r before the first call; fl_info_reset()
 * frees it.
 */
struct fl_log_repeat {
	char *last;
	int64_t at; /* fl_mono_ms() of the last line said */
};
int fl_info_changed(struct fl_log_repeat *r, int64_t every_ms, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void fl_info_reset(struct fl_log_repeat *r);

void fl_log_set_level(enum fl_log_level level);
enum fl_log_level fl_log_level(void);
void fl_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fl_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fl_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
