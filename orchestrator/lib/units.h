/*
 * units.h - the units a configuration is written in, parsed and printed back.
 *
 * sizes:       "4096", "256K", "256M", "2G", "1T"   (binary multiples, bytes)
 * durations:   "500ms", "5s", "10m", "2h", "1d"      (milliseconds)
 * percentages: "2%", "2.5%"                          (as a fraction: 0.02)
 * All return 0, or FL_EINVAL with a message that says what was expected.
 */
#ifndef FL_UNITS_H
#define FL_UNITS_H

#include <stddef.h>
#include <stdint.h>

int fl_parse_size(const char *s, uint64_t *bytes);
int fl_parse_duration(const char *s, int64_t *ms);
int fl_parse_percent(const char *s, double *fraction);

/* Shortest exact spelling: 268435456 -> "256M", 600000 -> "10m". */
void fl_format_size(uint64_t bytes, char *out, size_t n);
void fl_format_duration(int64_t ms, char *out, size_t n);
void fl_format_percent(double fraction, char *out, size_t n);

#endif
