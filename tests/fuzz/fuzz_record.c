/*
 * fuzz_record.c - libFuzzer target for the FLR1 parser: arbitrary console
 * bytes, fed in two pieces split at a point the input chooses, must never
 * crash, leak or deliver a payload that does not check out.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/record.h"

static int check(void *arg, uint64_t seq, const char *json, size_t len)
{
	(void)arg;
	(void)seq;
	/* Delivered payloads never hold a line break and are never empty. */
	if (len == 0 || memchr(json, '\n', len) || memchr(json, '\r', len))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fl_record_parser p;
	size_t cut = size ? data[0] % (size + 1) : 0;

	fl_record_parser_init(&p, check, NULL);
	fl_record_feed(&p, (const char *)data, cut);
	fl_record_feed(&p, (const char *)data + cut, size - cut);
	fl_record_finish(&p);
	if (p.stats.records > p.stats.frames)
		abort();
	fl_record_parser_free(&p);
	return 0;
}
