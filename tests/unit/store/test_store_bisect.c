/*
 * test_store_bisect.c - bisections and their steps round-trip through a real
 * SQLite file: samples and the branch a step searched come back bit for
 * bit, an unfinished bisection is found again (resume) by the same options
 * only, a stopped one too, a finished one is not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/bisect.h"
#include "testlib.h"

struct seen {
	size_t n;
	char sha[4][41];
	int skipped[4];
	double v[4][3];
	size_t nv[4];
	char branch[4][41];
};

static int remember(void *ctx, const struct fl_bisect_step_rec *r)
{
	struct seen *s = ctx;

	snprintf(s->sha[s->n], 41, "%s", r->sha);
	s->skipped[s->n] = r->skipped;
	s->nv[s->n] = r->n;
	memcpy(s->v[s->n], r->v, r->n * sizeof(double));
	snprintf(s->branch[s->n], 41, "%s", r->branch ? r->branch : "-");
	s->n++;
	return 0;
}

static void test_roundtrip(void **state)
{
	char dir[] = "/tmp/fl-test-sb-XXXXXX", db[64];
	const double v0[] = {0.1, 1.0 / 3, 123456.789e10}, v1[] = {-2.5};
	struct fl_bisect_step_rec r = {.verdict = "", .confidence = 0.5};
	struct seen s = {0};
	fl_store *st;
	int64_t id, id2, other;
	int resumed;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/fl.db", dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	assert_int_equal(fl_store_bisection_open(st, "aaa", "bbb", "opts", &id, &resumed, &other),
			 0);
	assert_int_equal(resumed, 0);
	assert_int_equal(other, 0);
	r.seq = 0, r.sha = "aaa", r.v = v0, r.n = 3;
	assert_int_equal(fl_store_bisect_step_add(st, id, &r), 0);
	r.seq = 1, r.sha = "ccc", r.v = NULL, r.n = 0, r.skipped = 1;
	assert_int_equal(fl_store_bisect_step_add(st, id, &r), 0);
	r.seq = 2, r.sha = "bbb", r.v = v1, r.n = 1, r.skipped = 0, r.branch = "mmm";
	assert_int_equal(fl_store_bisect_step_add(st, id, &r), 0);
	/* the same seq twice is refused: a step is recorded once */
	assert_int_equal(fl_store_bisect_step_add(st, id, &r), -6);
	fl_store_free(st);

	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	/* other options: a bisection of its own, the unfinished one named */
	assert_int_equal(fl_store_bisection_open(st, "aaa", "bbb", "other", &id2, &resumed, &other),
			 0);
	assert_int_equal(resumed, 0);
	assert_int_equal(other, id);
	assert_true(id2 != id);
	/* the same options again, after a stop: resumed */
	assert_int_equal(fl_store_bisection_stop(st, id), 0);
	assert_int_equal(fl_store_bisection_open(st, "aaa", "bbb", "opts", &id2, &resumed, &other),
			 0);
	assert_int_equal(resumed, 1);
	assert_int_equal(id2, id);
	assert_int_equal(fl_store_bisect_steps_each(st, id, remember, &s), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.sha[1], "ccc");
	assert_true(s.skipped[1] && s.nv[1] == 0);
	assert_int_equal(s.nv[0], 3);
	assert_memory_equal(s.v[0], v0, sizeof(v0)); /* bit for bit */
	assert_true(s.v[2][0] == -2.5);
	assert_string_equal(s.branch[0], "-");
	assert_string_equal(s.branch[2], "mmm");
	assert_int_equal(fl_store_bisection_finish(st, id, "culprit", "ccc", 0.97), 0);
	assert_int_equal(fl_store_bisection_open(st, "aaa", "bbb", "opts", &id2, &resumed, &other),
			 0);
	assert_int_equal(resumed, 0);
	assert_true(id2 != id);
	fl_store_free(st);
	unlink(db);
	{
		char wal[80];

		snprintf(wal, sizeof(wal), "%s-wal", db);
		unlink(wal);
		snprintf(wal, sizeof(wal), "%s-shm", db);
		unlink(wal);
	}
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_roundtrip)};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
