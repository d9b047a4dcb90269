/*
 * log.h - what faultline says on standard error while it works.
 * -q shows only warnings and errors, -v adds detail. Progress lines
 * ("bisect: 37 commits left, ~5 steps") are info. Each call writes one
 * message that no text in it can break out of: a newline in it continues
 * on an indented line, other control characters are written as \xNN (a
 * request path with %0d%0a cannot forge a line, %1b cannot reach the
 * terminal).
 */
#ifndef FL_LOG_H
#define FL_LOG_H

enum fl_log_level { FL_LOG_QUIET = 0, FL_LOG_INFO = 1, FL_LOG_VERBOSE = 2 };

void fl_log_set_level(enum fl_log_level level);
enum fl_log_level fl_log_level(void);
void fl_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fl_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fl_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
