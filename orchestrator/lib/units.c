/* units.c - sizes, durations and percentages (see units.h). */
#include "lib/units.h"
#include "lib/error.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit {
	const char *suffix;
	uint64_t scale;
};

static const struct unit size_units[] = {
	{"T", 1ULL << 40}, {"G", 1ULL << 30}, {"M", 1ULL << 20}, {"K", 1ULL << 10}, {"", 1},
};

static const struct unit duration_units[] = {
	{"d", 86400000}, {"h", 3600000}, {"m", 60000}, {"s", 1000}, {"ms", 1},
};

/* 0, or -1 for anything but a number with one of the units: the caller says
 * what it expected. */
static int parse_scaled(const char *s, const struct unit *units, size_t nunits, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	for (size_t i = 0; i < nunits; i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		if (v > UINT64_MAX / units[i].scale)
			return -1;
		*out = v * units[i].scale;
		return 0;
	}
	return -1;
}

int fl_parse_size(const char *s, uint64_t *bytes)
{
	if (parse_scaled(s, size_units, sizeof(size_units) / sizeof(size_units[0]), bytes))
		return fl_error_set(FL_EINVAL, "expected a size like 256M or 2G, got '%s'", s);
	return 0;
}

int fl_parse_duration(const char *s, int64_t *ms)
{
	uint64_t v;

	if (parse_scaled(s, duration_units, sizeof(duration_units) / sizeof(duration_units[0]),
			 &v) ||
	    v > INT64_MAX)
		return fl_error_set(FL_EINVAL, "expected a duration like 5s or 10m, got '%s'", s);
	*ms = (int64_t)v;
	return 0;
}

int fl_parse_percent(const char *s, double *fraction)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || strcmp(end, "%") || !isfinite(v) || *s == ' ')
		return fl_error_set(FL_EINVAL, "expected a percentage like 2%%, got '%s'", s);
	*fraction = v / 100.0;
	return 0;
}

static void format_scaled(uint64_t v, const struct unit *units, size_t nunits, char *out, size_t n)
{
	for (size_t i = 0; i < nunits; i++) {
		if (v && v % units[i].scale == 0) {
			snprintf(out, n, "%llu%s", (unsigned long long)(v / units[i].scale),
				 units[i].suffix);
			return;
		}
	}
	snprintf(out, n, "%llu%s", (unsigned long long)v, units[nunits - 1].suffix);
}

void fl_format_size(uint64_t bytes, char *out, size_t n)
{
	format_scaled(bytes, size_units, sizeof(size_units) / sizeof(size_units[0]), out, n);
}

void fl_format_duration(int64_t ms, char *out, size_t n)
{
	format_scaled((uint64_t)ms, duration_units,
		      sizeof(duration_units) / sizeof(duration_units[0]), out, n);
}

void fl_format_percent(double fraction, char *out, size_t n)
{
	snprintf(out, n, "%g%%", fraction * 100.0);
}
