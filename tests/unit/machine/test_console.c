/*
 * test_console.c - how a run ends, from synthetic console logs: a clean
 * run with boot noise, CR/LF and printk lines, fed in one piece and byte
 * by byte; panics (also cut between two reads); no agent; agent errors;
 * missing, partial, garbled and non-JSON records; results of the wrong
 * test; deadlines; plain garbage. And the samples a result turns into.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "machine/console.h"
#include "proto/record.h"

/* A fake console: the agent's frames with kernel lines in between. */
struct log {
	fl_buf b;
	struct fl_record_writer w;
};

static int log_out(void *arg, const char *frame, size_t len)
{
	fl_buf_add(arg, frame, len);
	return 0;
}

static void log_init(struct log *l)
{
	l->b = (fl_buf)FL_BUF_INIT;
	fl_record_writer_init(&l->w, log_out, &l->b);
}

static void log_record(struct log *l, const char *json)
{
	assert_int_equal(fl_record_write(&l->w, json, strlen(json)), 0);
}

static void log_text(struct log *l, const char *text)
{
	fl_buf_adds(&l->b, text);
}

#define ENV                                                                                        \
	"{\"type\":\"env\",\"kernel\":\"6.1.0-57-cloud-amd64\",\"machine\":\"x86_64\","            \
	"\"cpus\":2,\"nodes\":2,\"node_cpus\":[[0],[1]],\"node_mem_kb\":[1,1],\"cmdline\":\"x\"}"

static char *result(const char *test, const char *mode, int tasks, const char *samples)
{
	return fl_xasprintf("{\"type\":\"result\",\"test\":\"%s\",\"mode\":\"%s\",\"tasks\":%d,"
			    "\"placement\":\"spread\",\"samples\":[%s],\"average\":1.0,"
			    "\"per_%s_ops\":[1],\"vmstat_delta\":{\"pgfault\":12}}",
			    test, mode, tasks, samples,
			    strcmp(mode, "threads") ? "process" : "thread");
}

static void log_result(struct log *l, const char *mode, int tasks, const char *samples)
{
	char *r = result("page_fault2", mode, tasks, samples);

	log_record(l, r);
	free(r);
}

/* Boot noise, the environment, two points, a profile, done, power-off. */
static void clean_run(struct log *l)
{
	log_init(l);
	log_text(l, "SeaBIOS (version 1.16.2-debian-1.16.2-1)\r\n\r\nBooting from ROM..\r\n"
		    "[    0.000000] Linux version 6.1.0-57-cloud-amd64\r\n"
		    "[    0.010000] NUMA: Node 0 [mem 0x00000000-0x1fffffff]\n");
	log_record(l, ENV);
	log_text(l, "[    2.000000] random: crng init done\n");
	log_result(l, "processes", 2, "200000.0,210000.0,190000.0");
	log_result(l, "threads", 2, "100000.0,110000.0,90000.0");
	log_record(l, "{\"type\":\"profile\",\"step\":1,\"buckets\":[[1,2]],\"truncated\":0}");
	log_record(l, "{\"type\":\"done\"}");
	log_text(l, "[    7.178095] reboot: Power down\r\n");
}

struct seen_records {
	int n, points;
	char types[32][16];
	int fail_at; /* the record hook fails at this record (1-based); 0 never */
};

static int rec_hook(void *arg, uint64_t seq, const char *type, const char *json, size_t len)
{
	struct seen_records *s = arg;

	(void)seq;
	assert_true(len > 0 && json != NULL);
	if (s->n < 32)
		snprintf(s->types[s->n], sizeof(s->types[0]), "%s", type);
	s->n++;
	return s->fail_at && s->n == s->fail_at ? -42 : 0;
}

static void point_hook(void *arg, const struct fl_console_point *pt)
{
	struct seen_records *s = arg;

	assert_string_equal(pt->test, "page_fault2");
	assert_int_equal(pt->tasks, 2);
	assert_true(pt->per_task * 2 == pt->ops);
	s->points++;
}

/* Feeds the text in pieces of step bytes (0: all at once); returns the status. */
static enum fl_run_status feed(const char *text, size_t len, size_t step, unsigned points,
			       int deadline, fl_console **out, char **detail,
			       struct seen_records *rec)
{
	struct fl_console_expect x = {"page_fault2", points};
	struct fl_console_hooks h = {rec_hook, point_hook, rec};
	fl_console *c = fl_console_new(&x, &h);

	for (size_t off = 0; off < len;) {
		size_t n = step && len - off > step ? step : len - off;

		assert_int_equal(fl_console_feed(c, text + off, n), 0);
		off += n;
	}
	assert_int_equal(fl_console_finish(c), 0);
	*out = c;
	return fl_console_classify(c, deadline, 60000, detail);
}

static void test_clean_run(void **state)
{
	struct log l;
	fl_console *c[2];
	char *detail;
	size_t n[2];
	const struct fl_run_sample *s[2];

	(void)state;
	clean_run(&l);
	for (int i = 0; i < 2; i++) {
		struct seen_records rec = {0};
		const struct fl_console_seen *seen;

		assert_int_equal(feed(l.b.ptr, l.b.len, i ? 1 : 0, 2, 0, &c[i], &detail, &rec),
				 FL_RUN_OK);
		assert_null(detail);
		assert_int_equal(rec.n, 5);
		assert_string_equal(rec.types[0], "env");
		assert_string_equal(rec.types[3], "profile");
		assert_string_equal(rec.types[4], "done");
		assert_int_equal(rec.points, 2);
		seen = fl_console_seen(c[i]);
		assert_int_equal(seen->nodes, 2);
		assert_int_equal(seen->cpus, 2);
		assert_string_equal(seen->kernel, "6.1.0-57-cloud-amd64");
		assert_string_equal(seen->last_line, "[    7.178095] reboot: Power down");
		s[i] = fl_console_samples(c[i], &n[i]);
	}
	/* Chunking changes nothing. */
	assert_int_equal(n[0], 12);
	assert_int_equal(n[1], 12);
	for (size_t i = 0; i < n[0]; i++) {
		assert_string_equal(s[0][i].metric, s[1][i].metric);
		assert_true(s[0][i].value == s[1][i].value);
	}
	/* Total and per task for each second, with machine.h's names. */
	assert_string_equal(s[0][0].metric, "ops");
	assert_string_equal(s[0][0].mode, "processes");
	assert_true(s[0][0].value == 200000.0);
	assert_string_equal(s[0][1].metric, "per_process_ops");
	assert_true(s[0][1].value == 100000.0);
	assert_int_equal(s[0][5].seq, 2);
	assert_string_equal(s[0][7].metric, "per_thread_ops");
	assert_string_equal(s[0][7].mode, "threads");
	assert_true(s[0][7].value == 50000.0);
	fl_console_free(c[0]);
	fl_console_free(c[1]);
	fl_buf_free(&l.b);
}

static void test_panic_split_between_reads(void **state)
{
	static const char text[] =
	    "[    0.5] Linux version 6.1\n[    1.2] Kernel panic - not syncing: VFS: Unable "
	    "to mount root fs on unknown-block(0,0)\r\n[    1.3] ---[ end Kernel panic ]---\n";
	struct seen_records rec = {0};
	fl_console *c;
	char *detail;

	(void)state;
	/* 7-byte pieces cut the panic line in several places. */
	assert_int_equal(feed(text, sizeof(text) - 1, 7, 1, 0, &c, &detail, &rec), FL_RUN_PANIC);
	assert_string_equal(detail, "Kernel panic - not syncing: VFS: Unable to mount root fs on "
				    "unknown-block(0,0)");
	free(detail);
	fl_console_free(c);
}

static void test_panic_after_results_is_panic(void **state)
{
	struct seen_records rec = {0};
	struct log l;
	fl_console *c;
	char *detail;
	size_t n;

	(void)state;
	clean_run(&l);
	log_text(&l, "[    8.0] Kernel panic - not syncing: Attempted to kill init! "
		     "exitcode=0x00000009\n");
	assert_int_equal(feed(l.b.ptr, l.b.len, 0, 2, 0, &c, &detail, &rec), FL_RUN_PANIC);
	assert_non_null(strstr(detail, "Attempted to kill init"));
	/* The samples are there, but a run that is not ok never stores them. */
	fl_console_samples(c, &n);
	assert_int_equal(n, 12);
	free(detail);
	fl_console_free(c);
	fl_buf_free(&l.b);
}

static void test_no_agent_is_boot_failed(void **state)
{
	static const char text[] =
	    "SeaBIOS\r\nBooting from ROM..\r\n[    0.1] Linux version\n"
	    "[    0.9] Run /init as init process\n[    1.0] Failed to execute "
	    "/init (error -8)\n";
	struct seen_records rec = {0};
	fl_console *c;
	char *detail;

	(void)state;
	assert_int_equal(feed(text, sizeof(text) - 1, 0, 1, 0, &c, &detail, &rec),
			 FL_RUN_BOOT_FAILED);
	assert_non_null(strstr(detail, "no environment record"));
	assert_non_null(strstr(detail, "last console line: '[    1.0] Failed to execute /init "
				       "(error -8)'"));
	free(detail);
	fl_console_free(c);
	/* Nothing at all on the console. */
	assert_int_equal(feed("", 0, 0, 1, 0, &c, &detail, &rec), FL_RUN_BOOT_FAILED);
	free(detail);
	fl_console_free(c);
}

static void test_agent_error_record(void **state)
{
	struct seen_records rec = {0};
	struct log l;
	fl_console *c;
	char *detail;

	(void)state;
	log_init(&l);
	log_record(&l, ENV);
	log_record(&l, "{\"type\":\"error\",\"message\":\"page_fault2 with 64 tasks needs 2048 "
		       "MiB, only 900 MiB available\"}");
	log_result(&l, "threads", 2, "1.0");
	log_record(&l, "{\"type\":\"error\",\"message\":\"job failed (status 1)\"}");
	log_record(&l, "{\"type\":\"done\"}");
	assert_int_equal(feed(l.b.ptr, l.b.len, 0, 2, 0, &c, &detail, &rec), FL_RUN_AGENT_ERROR);
	assert_string_equal(detail, "agent: page_fault2 with 64 tasks needs 2048 MiB, only 900 MiB "
				    "available (and 1 more)");
	free(detail);
	fl_console_free(c);
	fl_buf_free(&l.b);
}

/* The guest's text reaches terminals and mail: no control sequences get through. */
static void test_error_text_is_cleaned(void **state)
{
	struct seen_records rec = {0};
	struct log l;
	fl_console *c;
	char *detail;

	(void)state;
	log_init(&l);
	log_record(&l, ENV);
	log_record(&l, "{\"type\":\"error\",\"message\":\"\\u001b[2Jbad\\r\\nline\\u0007\"}");
	assert_int_equal(feed(l.b.ptr, l.b.len, 0, 1, 0, &c, &detail, &rec), FL_RUN_AGENT_ERROR);
	assert_string_equal(detail, "agent:  [2Jbad  line");
	free(detail);
	fl_console_free(c);
	fl_buf_free(&l.b);
}

static void test_agent_stopped_early(void **state)
{
	struct seen_records rec = {0};
	struct log l;
	fl_console *c;
	char *detail;
	size_t cut;

	(void)state;
	log_init(&l);
	log_record(&l, ENV);
	log_result(&l, "processes", 2, "5.0");
	cut = l.b.len;
	log_result(&l, "threads", 2, "6.0");
	/* The guest died in the middle of the second result's frame. */
	assert_int_equal(feed(l.b.ptr, cut + 30, 0, 2, 0, &c, &detail, &rec), FL_RUN_AGENT_ERROR);
	assert_string_equal(detail, "the agent ended after 1 of 2 points (1 records garbled, 0 "
				    "missing)");
	free(detail);
	fl_console_free(c);
	/* Every point, but no done record. */
	assert_int_equal(feed(l.b.ptr, l.b.len, 0, 2, 0, &c, &detail, &rec), FL_RUN_AGENT_ERROR);
	assert_string_equal(detail, "the agent ended without its done record");
	free(detail);
	fl_console_free(c);
	fl_buf_free(&l.b);
}

static void test_lost_record_in_the_middle(void **state)
{
	struct seen_records rec = {0};
	struct log l;
	fl_console *c;
	char *detail, *p;

	(void)state;
	clean_run(&l);
	/* Corrupt one byte of the first result's payload: its crc no longer matches. */
	p = strstr(l.b.ptr, "\"mode\":\"processes\"");
	assert_non_null(p);
	p[2] = 'M';
	assert_int_equal(feed(l.b.ptr, l.b.len, 0, 2, 0, &c, &detail, &rec), FL_RUN_AGENT_ERROR);
	assert_string_equal(detail, "the agent ended after 1 of 2 points (1 records garbled, 1 "
				    "missing)");
	free(detail);
	fl_console_free(c);
	fl_buf_free(&l.b);
}

static void test_bad_results(void **state)
{
	static const char *const bad[][2] = {
		{"{\"type\":\"result\",\"test\":\"page_fault1\",\"mode\":\"threads\",\"tasks\":1,"
	     "\"samples\":[1.0]}",
	     "result record 1 is for page_fault1, the benchmark runs page_fault2"},
		{"{\"type\":\"result\",\"test\":\"page_fault2\",\"mode\":\"threads\","
	     "\"samples\":[1.0]}",
	     "result record 1 lacks test, mode, tasks or samples"},
		{"{\"type\":\"result\",\"test\":\"page_fault2\",\"mode\":\"fibers\",\"tasks\":1,"
	     "\"samples\":[1.0]}",
	     "result record 1: unknown mode 'fibers'"},
		{"{\"type\":\"result\",\"test\":\"page_fault2\",\"mode\":\"threads\",\"tasks\":1,"
	     "\"samples\":[1.0,\"x\"]}",
	     "result record 1: sample 1 is not a rate"},
		{"[1,2,3]", "record 1 is not a JSON object"},
		{"{\"type\":\"result\",", "record 1 is not a JSON object"},
		{"{\"no\":\"type\"}", "record 1 has no type"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct seen_records rec = {0};
		struct log l;
		fl_console *c;
		char *detail;
		size_t n;

		log_init(&l);
		log_record(&l, ENV);
		log_record(&l, bad[i][0]);
		log_record(&l, "{\"type\":\"done\"}");
		assert_int_equal(feed(l.b.ptr, l.b.len, 0, 1, 0, &c, &detail, &rec),
				 FL_RUN_AGENT_ERROR);
		assert_string_equal(detail, bad[i][1]);
		/* Every record is handed on as received, readable or not. */
		assert_int_equal(rec.n, 3);
		fl_console_samples(c, &n);
		assert_int_equal(n, 0);
		free(detail);
		fl_console_free(c);
		fl_buf_free(&l.b);
	}
}

static void test_deadline(void **state)
{
	struct seen_records rec = {0};
	struct log l;
	fl_console *c;
	char *detail;

	(void)state;
	log_init(&l);
	log_text(&l, "[    0.1] Linux version\n[    0.2] Booting the kern");
	assert_int_equal(feed(l.b.ptr, l.b.len, 0, 1, 1, &c, &detail, &rec), FL_RUN_TIMEOUT);
	/* The last, unfinished line still counts. */
	assert_string_equal(detail, "deadline of 60 s passed before the agent started; last "
				    "console line: '[    0.2] Booting the kern'");
	free(detail);
	fl_console_free(c);
	log_record(&l, ENV);
	log_result(&l, "threads", 2, "1.0");
	assert_int_equal(feed(l.b.ptr, l.b.len, 0, 4, 1, &c, &detail, &rec), FL_RUN_TIMEOUT);
	assert_string_equal(detail, "deadline of 60 s passed after 1 of 4 points");
	free(detail);
	fl_console_free(c);
	fl_buf_free(&l.b);
}

static void test_garbage(void **state)
{
	struct seen_records rec = {0};
	fl_buf b = FL_BUF_INIT;
	fl_console *c;
	char *detail, *tail;
	unsigned x = 12345;

	(void)state;
	/* Random bytes with NULs, frame markers that lie, and a line far too long. */
	for (int i = 0; i < 200000; i++) {
		x = x * 1103515245 + 12345;
		fl_buf_addch(&b, (char)(x >> 16));
		if (i % 5000 == 0)
			fl_buf_adds(&b, "\nFLR1 0 16 00000000 {\"type\":\"env\"}\n"
					"FLR1 99999999999999999999 5 zz {}\nFLR1 1 -3 1 x\n");
	}
	for (int i = 0; i < 100000; i++)
		fl_buf_addch(&b, 'A');
	assert_int_equal(feed(b.ptr, b.len, 4093, 1, 0, &c, &detail, &rec), FL_RUN_BOOT_FAILED);
	assert_int_equal(rec.n, 0);
	assert_true(fl_console_seen(c)->garbled > 0);
	assert_true(strlen(fl_console_seen(c)->last_line) <= 200);
	/* The tail is the last FL_CONSOLE_TAIL bytes, NULs made spaces. */
	tail = fl_console_tail(c);
	assert_int_equal(strlen(tail), FL_CONSOLE_TAIL);
	assert_int_equal(tail[FL_CONSOLE_TAIL - 1], 'A');
	free(tail);
	free(detail);
	fl_console_free(c);
	fl_buf_free(&b);
}

static void test_same_point_twice_keeps_counting(void **state)
{
	struct seen_records rec = {0};
	struct log l;
	fl_console *c;
	char *detail;
	const struct fl_run_sample *s;
	size_t n;

	(void)state;
	/* tasks: [2, 100%] on 2 CPUs measures 2 tasks twice. */
	log_init(&l);
	log_record(&l, ENV);
	log_result(&l, "threads", 2, "1.0,2.0");
	log_result(&l, "threads", 2, "3.0");
	log_record(&l, "{\"type\":\"done\"}");
	assert_int_equal(feed(l.b.ptr, l.b.len, 0, 2, 0, &c, &detail, &rec), FL_RUN_OK);
	s = fl_console_samples(c, &n);
	assert_int_equal(n, 6);
	assert_int_equal(s[4].seq, 2);
	assert_true(s[4].value == 3.0);
	fl_console_free(c);
	fl_buf_free(&l.b);
}

/* A point in the root and the same in a child memory cgroup: two points,
 * each numbering its samples from 0; a context the agent does not make is
 * an error. */
static void test_cgroup_contexts(void **state)
{
	struct seen_records rec = {0};
	struct log l;
	fl_console *c;
	char *detail, *r;
	const struct fl_run_sample *s;
	size_t n;

	(void)state;
	log_init(&l);
	log_record(&l, ENV);
	/* the same record, in the root said outright, then in the child */
	r = result("page_fault2", "threads", 2, "1.0,2.0");
	r[strlen(r) - 1] = '\0';
	{
		char *root = fl_xasprintf("%s,\"cgroup\":\"root\"}", r);
		char *child = fl_xasprintf("%s,\"cgroup\":\"child\"}", r);

		log_record(&l, root);
		log_record(&l, child);
		free(root);
		free(child);
	}
	log_record(&l, "{\"type\":\"done\"}");
	assert_int_equal(feed(l.b.ptr, l.b.len, 0, 2, 0, &c, &detail, &rec), FL_RUN_OK);
	assert_int_equal(rec.points, 2);
	s = fl_console_samples(c, &n);
	assert_int_equal(n, 8);
	assert_string_equal(s[0].cgroup, "");
	assert_string_equal(s[4].cgroup, "child");
	assert_int_equal(s[4].seq, 0);
	assert_int_equal(s[6].seq, 1);
	assert_string_equal(s[6].metric, "ops");
	fl_console_free(c);
	fl_buf_free(&l.b);

	log_init(&l);
	log_record(&l, ENV);
	{
		char *odd = fl_xasprintf("%s,\"cgroup\":\"grandchild\"}", r);

		log_record(&l, odd);
		free(odd);
	}
	log_record(&l, "{\"type\":\"done\"}");
	assert_int_equal(feed(l.b.ptr, l.b.len, 0, 1, 0, &c, &detail, &rec), FL_RUN_AGENT_ERROR);
	assert_non_null(strstr(detail, "unknown cgroup context"));
	free(detail);
	fl_console_free(c);
	fl_buf_free(&l.b);
	free(r);
}

static void test_hook_failure_stops(void **state)
{
	struct seen_records rec = {.fail_at = 2};
	struct fl_console_hooks h = {rec_hook, NULL, &rec};
	struct log l;
	fl_console *c;

	(void)state;
	clean_run(&l);
	c = fl_console_new(NULL, &h);
	assert_int_equal(fl_console_feed(c, l.b.ptr, l.b.len), -42);
	assert_int_equal(fl_console_feed(c, "more", 4), -42);
	assert_int_equal(fl_console_finish(c), -42);
	assert_int_equal(rec.n, 2);
	fl_console_free(c);
	fl_buf_free(&l.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_run),
		cmocka_unit_test(test_panic_split_between_reads),
		cmocka_unit_test(test_panic_after_results_is_panic),
		cmocka_unit_test(test_no_agent_is_boot_failed),
		cmocka_unit_test(test_agent_error_record),
		cmocka_unit_test(test_error_text_is_cleaned),
		cmocka_unit_test(test_agent_stopped_early),
		cmocka_unit_test(test_lost_record_in_the_middle),
		cmocka_unit_test(test_bad_results),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_same_point_twice_keeps_counting),
		cmocka_unit_test(test_cgroup_contexts),
		cmocka_unit_test(test_hook_failure_stops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
