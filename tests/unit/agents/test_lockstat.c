/* test_lockstat.c - fl-agent's lock-contention parser on recorded tracefs
 * hist output (tests/data/lockstat/: a real Debian 6.1 guest, and the demo
 * regression's shape), the "not available" paths of a tracefs without the
 * tracepoints or hist triggers, and the record the agent writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/file.h"
#include "agents/jsonw.h"
#include "agents/lockstat.h"
#include "proto/error.h"

static char *slurp(const char *name)
{
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/lockstat/%s", FL_TEST_DATA, name);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The demo's regression: the static root_usage lock comes first, named by
 * the kernel, with its count (begins), timed waits, summed and maximum wait,
 * and its chains from the caller of the lock op on (the tracing's own
 * frames and the lock op's dropped). */
static void test_demo_shape(void **state)
{
	char *w = slurp("demo-root-usage.waits"), *s = slurp("demo-root-usage.stacks");
	struct fl_lockstat ls;
	const struct fl_lock *l;

	(void)state;
	assert_int_equal(fl_lockstat_parse(w, s, &ls), 0);
	assert_int_equal(ls.nlocks, 3);
	l = &ls.locks[0];
	assert_string_equal(l->name, "root_usage");
	assert_string_equal(l->named_by, "symbol");
	assert_true(l->addr == 0xffffffff81e4a2c0ull);
	assert_true(l->waits == 23296 + 18431 + 146);
	/* begins over all chains: 23310 + 18431 + 132 */
	assert_true(l->contentions == 41873);
	assert_true(l->wait_ns == 1231839211ull + 982254166ull + 7201204ull);
	assert_true(l->max_wait_ns == 318214);
	assert_int_equal(l->nchains, 2);
	/* two stacks that differ only past the depth kept are one chain */
	assert_true(l->chains[0].count == 23296 + 146);
	assert_int_equal(l->chains[0].nframes, FL_LOCK_MAX_FRAMES);
	assert_string_equal(l->chains[0].frames[0], "root_usage_update");
	assert_string_equal(l->chains[0].frames[1], "charge_memcg");
	assert_string_equal(l->chains[0].frames[3], "do_anonymous_page");
	assert_true(l->chains[1].count == 18431);
	assert_string_equal(l->chains[1].frames[1], "uncharge_folio");
	/* locks inside two objects, taken by one function: one row by caller */
	l = &ls.locks[1];
	assert_string_equal(l->name, "folio_lruvec_lock_irqsave");
	assert_string_equal(l->named_by, "caller");
	assert_true(l->waits == 212);
	assert_true(l->contentions == 212); /* 209 begins seen, 212 waits: the waits */
	assert_true(l->wait_ns == 18733091);
	assert_true(l->max_wait_ns == 902114);
	assert_int_equal(l->nchains, 1);
	assert_string_equal(l->chains[0].frames[0], "folio_lruvec_lock_irqsave");
	assert_string_equal(l->chains[0].frames[1], "release_pages");
	/* a lock at an offset in a static object keeps the offset */
	l = &ls.locks[2];
	assert_string_equal(l->name, "contig_page_data+0x1280");
	assert_string_equal(l->named_by, "symbol");
	assert_string_equal(l->chains[0].frames[0], "rmqueue_bulk");
	free(w);
	free(s);
}

/* Recorded from a real 6.1 guest: one rwsem (mmap_lock) inside the mm,
 * taken by mmap, munmap and the fault path: a row per caller, the longest
 * wait from the onmax() histogram (whose hitcounts are not added again). */
static void test_recorded_debian(void **state)
{
	char *w = slurp("debian-6.1-pf2-threads.waits"),
	     *s = slurp("debian-6.1-pf2-threads.stacks");
	struct fl_lockstat ls;
	const struct fl_lock *l;

	(void)state;
	assert_int_equal(fl_lockstat_parse(w, s, &ls), 0);
	assert_int_equal(ls.nlocks, 3);
	l = &ls.locks[0];
	assert_string_equal(l->named_by, "caller");
	assert_string_equal(l->name, "vm_mmap_pgoff");
	assert_true(l->waits == 11);
	assert_true(l->contentions == 11); /* 10 begins seen in the window, 11 waits */
	assert_true(l->wait_ns == 91509206ull);
	assert_true(l->max_wait_ns == 18570406ull);
	assert_int_equal(l->nchains, 1);
	/* rwsem_down_write_slowpath and down_write_killable are the lock op */
	assert_string_equal(l->chains[0].frames[0], "vm_mmap_pgoff");
	assert_string_equal(l->chains[0].frames[1], "ksys_mmap_pgoff");
	l = &ls.locks[1];
	assert_string_equal(l->name, "__vm_munmap");
	assert_true(l->waits == 9 && l->contentions == 9);
	assert_true(l->wait_ns == 53690064ull);
	assert_true(l->max_wait_ns == 13082101ull);
	l = &ls.locks[2];
	assert_string_equal(l->name, "lock_mm_and_find_vma");
	assert_true(l->contentions == 11);
	assert_true(l->max_wait_ns == 2953660ull);
	assert_string_equal(l->chains[0].frames[1], "do_user_addr_fault");
	/* without the begins: counts from the waits */
	assert_int_equal(fl_lockstat_parse(w, NULL, &ls), 0);
	assert_int_equal(ls.nlocks, 3);
	assert_true(ls.locks[0].contentions == 11);
	assert_true(ls.locks[1].contentions == 9);
	free(w);
	free(s);
}

static void test_parse_edges(void **state)
{
	struct fl_lockstat ls;
	char many[64 * 1024];
	size_t len = 0;

	(void)state;
	assert_int_equal(fl_lockstat_parse(NULL, NULL, &ls), FL_EINVAL);
	assert_int_equal(fl_lockstat_parse("not a hist\n", NULL, &ls), FL_EINVAL);
	assert_string_equal(fl_error_last(), "not a hist file");
	/* an empty window: no locks, not an error */
	assert_int_equal(fl_lockstat_parse("# event histogram\n#\n\nTotals:\n    Hits: 0\n", "",
					   &ls),
			 0);
	assert_int_equal(ls.nlocks, 0);
	/* more locks than kept: the most waited-for stay, the rest are counted */
	len += (size_t)snprintf(many + len, sizeof(many) - len, "# event histogram\n");
	for (int i = 0; i < FL_LOCK_MAX_LOCKS + 4; i++)
		len += (size_t)snprintf(many + len, sizeof(many) - len,
					"{ lock: [ffff8880000%05x] 0xffff8880000%05x   } "
					"hitcount: %10d  wait_ns: %10d\n",
					i, i, 1, 1000 * (i + 1));
	assert_int_equal(fl_lockstat_parse(many, NULL, &ls), 0);
	assert_int_equal(ls.nlocks, FL_LOCK_MAX_LOCKS);
	assert_true(ls.other_locks == 4);
	assert_true(ls.locks[0].wait_ns == 1000u * (FL_LOCK_MAX_LOCKS + 4));
	/* no chain and no symbol: named by address */
	assert_string_equal(ls.locks[0].named_by, "address");
	assert_string_equal(ls.locks[0].name, "0xffff888000000013");
	assert_true(fl_lockstat_lock_frame("_raw_spin_lock_irqsave"));
	assert_true(fl_lockstat_lock_frame("queued_spin_lock_slowpath"));
	assert_true(fl_lockstat_lock_frame("down_write_killable"));
	assert_false(fl_lockstat_lock_frame("root_usage_update"));
	/* the mm's lock wrappers, out of line in a -Os kernel: the lock op */
	assert_true(fl_lockstat_lock_frame("mmap_write_lock_killable"));
	assert_true(fl_lockstat_lock_frame("mmap_read_lock_killable"));
}

/* A tracefs without the tracepoints (before 5.19) or without hist
 * triggers: "not available" (FL_ENOTFOUND, which the run records as its
 * lock status and goes on), and nothing written. */
static void test_not_available(void **state)
{
	char dir[] = "/tmp/fl-tracefs-XXXXXX", p[256];

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("FL_TRACEFS", dir, 1);
	assert_int_equal(fl_lockstat_open(), FL_ENOTFOUND);
	assert_string_equal(fl_error_last(), "no tracefs (a kernel without CONFIG_FTRACE)");
	snprintf(p, sizeof(p), "%s/events", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(fl_lockstat_open(), FL_ENOTFOUND);
	assert_non_null(strstr(fl_error_last(), "no lock:contention_begin/end"));
	snprintf(p, sizeof(p), "%s/events/lock", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/events/lock/contention_begin", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/events/lock/contention_end", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(fl_lockstat_open(), FL_ENOTFOUND);
	assert_string_equal(fl_error_last(), "no hist triggers (CONFIG_HIST_TRIGGERS)");
	/* and a window then does nothing */
	assert_int_equal(fl_lockstat_begin(), FL_EIO);
	unsetenv("FL_TRACEFS");
	snprintf(p, sizeof(p), "rm -r %s", dir);
	assert_int_equal(system(p), 0);
}

static void test_json(void **state)
{
	char *w = slurp("demo-root-usage.waits"), *s = slurp("demo-root-usage.stacks");
	struct fl_lockstat ls;
	struct jw j;

	(void)state;
	assert_int_equal(fl_lockstat_parse(w, s, &ls), 0);
	jw_init(&j);
	jw_obj_open(&j, NULL);
	fl_lockstat_json(&j, &ls);
	jw_obj_close(&j);
	assert_false(j.failed);
	assert_non_null(strstr(j.buf, "{\"locks\":[{\"lock\":\"root_usage\",\"named_by\":\"symbol\","
				      "\"addr\":\"ffffffff81e4a2c0\",\"contentions\":41873,"
				      "\"waits\":41873,\"wait_ns\":2221294581,\"max_wait_ns\":318214,"
				      "\"chains\":[{\"count\":23442,\"frames\":[\"root_usage_update\","
				      "\"charge_memcg\""));
	assert_non_null(strstr(j.buf, "\"other_locks\":0}"));
	jw_free(&j);
	free(w);
	free(s);
}

static size_t count_of(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* A tracefs made of plain files: every trigger the agent writes, its
 * clears and its removals carry the filter that leaves its own pid out
 * (its own map allocations contended slob_lock inside the demo's windows
 * before). The writes land one after the other in each file. */
static void test_agent_filtered(void **state)
{
	static const char *const files[] = {
	    "events/lock/contention_begin/trigger", "events/lock/contention_end/trigger",
	    "events/synthetic/fl_lock_wait/trigger", "events/lock/contention_begin/hist",
	    "synthetic_events"};
	char dir[] = "/tmp/fl-tracefs-XXXXXX", p[512], want[64];
	size_t writes = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p),
		 "mkdir -p %s/events/lock/contention_begin %s/events/lock/contention_end "
		 "%s/events/synthetic/fl_lock_wait",
		 dir, dir, dir);
	assert_int_equal(system(p), 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		FILE *f;

		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		assert_non_null(f = fopen(p, "w"));
		fclose(f);
	}
	setenv("FL_TRACEFS", dir, 1);
	assert_int_equal(fl_lockstat_open(), 0);
	assert_int_equal(fl_lockstat_begin(), 0);
	fl_lockstat_close();
	unsetenv("FL_TRACEFS");
	snprintf(want, sizeof(want), " if common_pid != %d", (int)getpid());
	for (size_t i = 0; i < 3; i++) {
		char *text;
		size_t n;

		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		text = fl_agent_read_file(p, 1 << 16);
		assert_non_null(text);
		n = count_of(text, "hist:");
		assert_true(n > 0);
		assert_int_equal(count_of(text, want), n);
		writes += n;
		free(text);
	}
	/* installed (5), one window (2 clears, the onmax one out and in), removed (5) */
	assert_int_equal(writes, 5 + 4 + 5);
	snprintf(p, sizeof(p), "rm -r %s", dir);
	assert_int_equal(system(p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demo_shape),
		cmocka_unit_test(test_recorded_debian),
		cmocka_unit_test(test_parse_edges),
		cmocka_unit_test(test_not_available),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_agent_filtered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
