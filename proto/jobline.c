/*
 * jobline.c - the agent's job text, written by the orchestrator and read by
 * fl-agent (see jobline.h). libc only: fl-agent-static links it.
 */
#include "proto/jobline.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORBIDDEN " \t\r\n;\"'"

int fl_jobline_value_ok(const char *s)
{
	return s && *s && !strpbrk(s, FORBIDDEN);
}

static int key_ok(const char *s)
{
	return fl_jobline_value_ok(s) && !strchr(s, '=') && *s != '#';
}

int fl_jobline_add(struct fl_jobline *j, const char *key, const char *value)
{
	size_t room = sizeof(j->text) - j->len;
	int n;

	if (!key_ok(key) || !fl_jobline_value_ok(value))
		return -1;
	n = snprintf(j->text + j->len, room, "%s%s=%s", j->len ? ";" : "", key, value);
	if (n < 0 || (size_t)n >= room) {
		j->text[j->len] = '\0';
		return -1;
	}
	j->len += (size_t)n;
	return 0;
}

int fl_jobline_add_seconds(struct fl_jobline *j, const char *key, long seconds)
{
	char v[32];

	snprintf(v, sizeof(v), "%lds", seconds);
	return fl_jobline_add(j, key, v);
}

int fl_jobline_add_size(struct fl_jobline *j, const char *key, uint64_t bytes)
{
	char v[32];

	if (bytes && !(bytes & ((1ULL << 20) - 1)))
		snprintf(v, sizeof(v), "%" PRIu64 "M", bytes >> 20);
	else if (bytes && !(bytes & 1023))
		snprintf(v, sizeof(v), "%" PRIu64 "K", bytes >> 10);
	else
		snprintf(v, sizeof(v), "%" PRIu64, bytes);
	return fl_jobline_add(j, key, v);
}

int fl_jobline_add_item(struct fl_jobline *j, const char *item)
{
	const char *eq = item ? strchr(item, '=') : NULL;
	char key[256];

	if (!eq || eq == item || (size_t)(eq - item) >= sizeof(key))
		return -1;
	memcpy(key, item, (size_t)(eq - item));
	key[eq - item] = '\0';
	return fl_jobline_add(j, key, eq + 1);
}

int fl_jobline_parse(const char *text, fl_jobline_fn fn, void *arg, char *why, size_t n)
{
	char *copy = strdup(text), *save = NULL;
	int r = 0;

	if (n)
		why[0] = '\0';
	if (!copy) {
		snprintf(why, n, "out of memory");
		return -1;
	}
	for (char *l = strtok_r(copy, "\n;", &save); l && !r; l = strtok_r(NULL, "\n;", &save)) {
		char *eq;

		while (*l == ' ' || *l == '\t')
			l++;
		if (!*l || *l == '#')
			continue;
		eq = strchr(l, '=');
		if (!eq) {
			snprintf(why, n, "job line '%s' is not key=value", l);
			r = -1;
			break;
		}
		*eq = '\0';
		r = fn(arg, l, eq + 1);
	}
	free(copy);
	return r;
}

int fl_jobline_seconds(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || v < 0 || v > FL_JOB_SECONDS_MAX || (*end && strcmp(end, "s")))
		return -1;
	*out = (int)v;
	return 0;
}

int fl_jobline_bytes(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	int shift = 0;

	if (end == s || *s == '-')
		return -1;
	if (*end == 'K')
		shift = 10;
	else if (*end == 'M')
		shift = 20;
	else if (*end == 'G')
		shift = 30;
	else if (*end)
		return -1;
	if (shift && end[1])
		return -1;
	if (v == 0 || v > (1ull << 40) >> shift)
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}
