/* test_record.c - FLR1 framing and the console-tolerant parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "proto/record.h"

/* Everything the writer emits, concatenated: a fake console. */
struct sink {
	char buf[65536];
	size_t len;
};

static int sink_out(void *arg, const char *frame, size_t len)
{
	struct sink *s = arg;

	assert_true(s->len + len <= sizeof(s->buf));
	memcpy(s->buf + s->len, frame, len);
	s->len += len;
	return 0;
}

struct got {
	int n;
	uint64_t seq[16];
	char json[16][8192];
};

static int got_cb(void *arg, uint64_t seq, const char *json, size_t len)
{
	struct got *g = arg;

	assert_true(g->n < 16 && len < sizeof(g->json[0]));
	g->seq[g->n] = seq;
	memcpy(g->json[g->n], json, len);
	g->json[g->n][len] = 0;
	g->n++;
	return 0;
}

static struct fl_record_stats parse(const char *text, size_t len, struct got *g)
{
	struct fl_record_parser p;
	struct fl_record_stats st;

	memset(g, 0, sizeof(*g));
	fl_record_parser_init(&p, got_cb, g);
	assert_int_equal(fl_record_feed(&p, text, len), 0);
	assert_int_equal(fl_record_finish(&p), 0);
	st = p.stats;
	fl_record_parser_free(&p);
	return st;
}

static void test_crc_matches_zlib(void **state)
{
	const char *s = "{\"type\":\"env\",\"nodes\":2}";

	(void)state;
	assert_int_equal(fl_crc32(0, s, strlen(s)), (uint32_t)crc32(0, (const Bytef *)s, (uInt)strlen(s)));
	assert_int_equal(fl_crc32(0, "123456789", 9), 0xcbf43926u);
}

static void test_frame_format(void **state)
{
	struct sink s = { .len = 0 };
	struct fl_record_writer w;
	char want[128];

	(void)state;
	fl_record_writer_init(&w, sink_out, &s);
	assert_int_equal(fl_record_write(&w, "{\"a\":1}", 7), 0);
	snprintf(want, sizeof(want), "FLR1 0 7 %08x {\"a\":1}\n", fl_crc32(0, "{\"a\":1}", 7));
	assert_int_equal(s.len, strlen(want));
	assert_memory_equal(s.buf, want, s.len);
	assert_int_equal(fl_record_write(&w, "{\"a\":\n1}", 8), -1);
}

static void test_roundtrip_with_noise(void **state)
{
	struct sink s = { .len = 0 };
	struct fl_record_writer w;
	struct fl_record_stats st;
	struct got g;
	char text[70000];
	int n;

	(void)state;
	fl_record_writer_init(&w, sink_out, &s);
	assert_int_equal(fl_record_write(&w, "{\"n\":0}", 7), 0);
	sink_out(&s, "[    1.234567] random: crng init done\r\n\r\n", 41);
	assert_int_equal(fl_record_write(&w, "{\"n\":1}", 7), 0);
	/* printk prefix in front of a frame on the same line, CR noise */
	n = snprintf(text, sizeof(text), "%.*s[    2.000000] usb 1-1: new\r\r\n<6>x FLR1 2 7 %08x {\"n\":2}\r\n",
		     (int)s.len, s.buf, fl_crc32(0, "{\"n\":2}", 7));
	st = parse(text, (size_t)n, &g);
	assert_int_equal(g.n, 3);
	assert_string_equal(g.json[0], "{\"n\":0}");
	assert_string_equal(g.json[2], "{\"n\":2}");
	assert_int_equal(g.seq[2], 2);
	assert_int_equal(st.garbled, 0);
	assert_int_equal(st.missing, 0);
	assert_int_equal(st.noise, 2);
}

static void test_corrupt_truncated(void **state)
{
	char text[512];
	struct fl_record_stats st;
	struct got g;
	uint32_t c = fl_crc32(0, "{\"n\":1}", 7);
	int n;

	(void)state;
	n = snprintf(text, sizeof(text),
		     "FLR1 0 7 %08x {\"n\":0}\n"	/* wrong checksum: it is n:1's */
		     "FLR1 1 7 %08x {\"n\":1\n"		/* truncated */
		     "FLR1 2 7 %08x {\"n\":[  3.1] printk cut in1}\n" /* spliced */
		     "FLR1 3 7 %08x {\"n\":1}\n"	/* fine */
		     "FLR1 4 7 %08x {\"n\":1}",		/* fine, no newline at the end */
		     c, c, c, c, c);
	st = parse(text, (size_t)n, &g);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.seq[0], 3);
	assert_int_equal(st.garbled, 3);
	assert_int_equal(st.missing, 3);
}

static void test_duplicates_out_of_order(void **state)
{
	char text[512];
	struct fl_record_stats st;
	struct got g;
	uint32_t c = fl_crc32(0, "{}", 2);
	int n;

	(void)state;
	n = snprintf(text, sizeof(text),
		     "FLR1 1 2 %08x {}\nFLR1 1 2 %08x {}\nFLR1 0 2 %08x {}\n"
		     "FLR1 4 2 %08x {}\nFLR1 0 2 %08x {}\n", c, c, c, c, c);
	st = parse(text, (size_t)n, &g);
	assert_int_equal(g.n, 3);
	assert_int_equal(st.duplicates, 2);
	assert_int_equal(st.missing, 2);	/* 2 and 3 */
	assert_int_equal(st.garbled, 0);
}

static void test_strict_numbers(void **state)
{
	uint64_t seq;
	const char *pl;
	size_t plen;
	char line[128];
	uint32_t c = fl_crc32(0, "{}", 2);

	(void)state;
	snprintf(line, sizeof(line), "FLR1 01 2 %08x {}", c);
	assert_int_equal(fl_record_parse_frame(line, strlen(line), &seq, &pl, &plen), -1);
	snprintf(line, sizeof(line), "FLR1 1 3 %08x {}", c);
	assert_int_equal(fl_record_parse_frame(line, strlen(line), &seq, &pl, &plen), -1);
	snprintf(line, sizeof(line), "FLR1 18446744073709551616 2 %08x {}", c);
	assert_int_equal(fl_record_parse_frame(line, strlen(line), &seq, &pl, &plen), -1);
	snprintf(line, sizeof(line), "FLR1 7 2 %08x {}", c);
	assert_int_equal(fl_record_parse_frame(line, strlen(line), &seq, &pl, &plen), 0);
	assert_int_equal(seq, 7);
	assert_int_equal(plen, 2);
}

static void big_json(char *out, size_t n)
{
	size_t i = 0;

	i += (size_t)snprintf(out, n, "{\"type\":\"profile\",\"data\":\"");
	for (; i < n - 3; i++)
		out[i] = (char)('a' + i % 26);
	out[i++] = '"';
	out[i++] = '}';
	out[i] = 0;
}

static void test_split_large(void **state)
{
	static char json[5000];
	struct sink s = { .len = 0 };
	struct fl_record_writer w;
	struct fl_record_stats st;
	struct got g;

	(void)state;
	big_json(json, sizeof(json));
	fl_record_writer_init(&w, sink_out, &s);
	assert_int_equal(fl_record_write(&w, "{\"a\":1}", 7), 0);
	assert_int_equal(fl_record_write(&w, json, strlen(json)), 0);
	assert_int_equal(fl_record_write(&w, "{\"a\":2}", 7), 0);
	assert_true(w.seq > 4);
	/* Every line fits the parser's line limit. */
	for (char *l = s.buf; l < s.buf + s.len; l = strchr(l, '\n') + 1)
		assert_true((size_t)(strchr(l, '\n') - l) <= FL_RECORD_LINE_MAX);
	st = parse(s.buf, s.len, &g);
	assert_int_equal(g.n, 3);
	assert_string_equal(g.json[1], json);
	assert_int_equal(g.seq[1], 1);
	assert_int_equal(g.seq[2], w.seq - 1);
	assert_int_equal(st.frames, w.seq);
	assert_int_equal(st.garbled, 0);
}

static void test_split_lost_piece(void **state)
{
	static char json[5000];
	struct sink s = { .len = 0 };
	struct fl_record_writer w;
	struct fl_record_stats st;
	struct got g;
	char *second, *third;

	(void)state;
	big_json(json, sizeof(json));
	fl_record_writer_init(&w, sink_out, &s);
	assert_int_equal(fl_record_write(&w, json, strlen(json)), 0);
	assert_int_equal(fl_record_write(&w, "{\"a\":2}", 7), 0);
	/* Corrupt one byte of the second piece. */
	second = strchr(s.buf, '\n') + 1;
	third = strchr(second, '\n') + 1;
	second[100] ^= 1;
	st = parse(s.buf, s.len, &g);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.json[0], "{\"a\":2}");
	assert_int_equal(st.garbled, 2);	/* the bad frame and the payload it broke */
	assert_int_equal(st.missing, 1);
	(void)third;
}

static void test_long_garbage_line(void **state)
{
	static char text[5000];
	struct fl_record_stats st;
	struct got g;

	(void)state;
	memset(text, 'x', sizeof(text));
	memcpy(text + 10, "FLR1 ", 5);
	st = parse(text, sizeof(text), &g);
	assert_int_equal(g.n, 0);
	assert_int_equal(st.garbled, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_matches_zlib),
		cmocka_unit_test(test_frame_format),
		cmocka_unit_test(test_roundtrip_with_noise),
		cmocka_unit_test(test_corrupt_truncated),
		cmocka_unit_test(test_duplicates_out_of_order),
		cmocka_unit_test(test_strict_numbers),
		cmocka_unit_test(test_split_large),
		cmocka_unit_test(test_split_lost_piece),
		cmocka_unit_test(test_long_garbage_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
