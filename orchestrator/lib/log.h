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

enum fl_log_level { FL_LOG_QUIET = 0, FL_LOG_INFO = 1, FL_LOG_VERBOSE = 2 };

/* "%zu commit%s", n, FL_S(n): the plural's s, none for exactly one. */
#define FL_S(n) ((n) == 1 ? "" : "s")

void fl_log_set_level(enum fl_log_level level);
enum fl_log_level fl_log_level(void);
void fl_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fl_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fl_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
