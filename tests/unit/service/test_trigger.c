/*
 * test_trigger.c - which tags the watch service schedules, against what:
 * the baseline rule on its own (closest earlier ancestor in version order),
 * then on a real repository with release candidates and a stable tag on a
 * side branch: the first pass tests only the newest tag, later passes every
 * new tag once and never one twice, v6.2-rc1 is compared with v6.1 (not
 * with the stable v6.1.1), and a fixed baseline is used as it is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "lib/error.h"
#include "service/service.h"
#include "store/store.h"
#include "testlib.h"
#include "service/trigger.h"

static char dir[64];

#define GIT "cd %s/src && " FL_TEST_GIT

/* ancestry of five tags: 0 <- 1 <- 3 <- 4 on one line, 2 on a side branch from 1 */
static int fake_ancestor(void *ctx, size_t j, size_t i)
{
	static const int line[] = {1, 1, 0, 1, 1};

	(void)ctx;
	if (j == 1 && i == 2)
		return 1;
	if (i == 2)
		return j < 1;
	return line[j] && line[i] && j < i;
}

static void test_previous(void **state)
{
	(void)state;
	assert_int_equal(fl_trigger_previous(0, fake_ancestor, NULL), -1);
	assert_int_equal(fl_trigger_previous(1, fake_ancestor, NULL), 0);
	assert_int_equal(fl_trigger_previous(2, fake_ancestor, NULL), 1);
	assert_int_equal(fl_trigger_previous(3, fake_ancestor, NULL), 1); /* passes over 2 */
	assert_int_equal(fl_trigger_previous(4, fake_ancestor, NULL), 3);
}

static int setup(void **state)
{
	(void)state;
	if (fl_test_tmpdir(dir, sizeof(dir), "trigger"))
		return -1;
	/* v6.1 - v6.2-rc1 - v6.2-rc2 - v6.2-rc3 on master; v6.1.1 on a stable branch */
	return fl_test_sh(
	    "mkdir %s/src && " GIT "init -q && " GIT "commit -q --allow-empty -m a && " GIT
	    "tag -a -m v6.1 v6.1 && " GIT "checkout -q -b stable && " GIT
	    "commit -q --allow-empty -m fix && " GIT "tag v6.1.1 && " GIT "checkout -q master && "
	    "for t in v6.2-rc1 v6.2-rc2 v6.2-rc3; do " FL_TEST_GIT
	    "commit -q --allow-empty -m $t && " FL_TEST_GIT "tag $t; done && " GIT "tag other",
	    dir, dir, dir, dir, dir, dir, dir, dir, dir);
}

static int teardown(void **state)
{
	(void)state;
	return fl_test_rmtree(dir);
}

static struct fl_config *load(const char *name, const char *tree_extra)
{
	char path[128];
	struct fl_config *cfg;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.yaml", dir, name);
	f = fopen(path, "w");
	fprintf(f,
		"var: %s/var-%s\nstore: { path: %s/%s.db }\n"
		"trees: [ { name: linux, url: %s/src, tags: ['v6.*'] %s } ]\n"
		"machines:\n  - { name: m1, backend: command, command: 'echo 1' }\n"
		"  - { name: m2, backend: command, command: 'echo 1' }\n"
		"benchmarks:\n  - { name: b1 }\n  - { name: b2, machines: [m2] }\n",
		dir, name, dir, name, dir, tree_extra);
	fclose(f);
	assert_int_equal(fl_config_load(&cfg, path), 0);
	return cfg;
}

static void tag_row(const char *db, const char *tag, char *out, size_t n)
{
	char q[256];

	snprintf(q, sizeof(q),
		 "SELECT state || ' ' || coalesce(baseline, '-') FROM watch_tags WHERE tag = '%s'",
		 tag);
	fl_test_sql_text(db, q, out, n);
}

static void test_first_pass_and_later(void **state)
{
	struct fl_config *cfg = load("first", "");
	struct fl_service svc;
	char db[128], row[128];
	unsigned scheduled;
	fl_store *st;

	(void)state;
	snprintf(db, sizeof(db), "%s/first.db", dir);
	fl_service_init(&svc, cfg);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	assert_int_equal(fl_trigger_pass(&svc, st, 0, &scheduled), 0);
	assert_int_equal(scheduled, 1);
	tag_row(db, "v6.2-rc3", row, sizeof(row));
	assert_string_equal(row, "scheduled v6.2-rc2");
	tag_row(db, "v6.2-rc1", row, sizeof(row));
	assert_string_equal(row, "skipped -");
	tag_row(db, "other", row, sizeof(row));
	assert_string_equal(row, ""); /* does not match the pattern */
	assert_int_equal(fl_test_sql_int(db, "SELECT count(*) FROM watch_tags"), 5);
	/* b1 on both machines, b2 only on m2 */
	assert_int_equal(fl_test_sql_int(db, "SELECT count(*) FROM jobs WHERE kind = 'compare'"),
			 3);

	/* nothing new: nothing scheduled */
	assert_int_equal(fl_trigger_pass(&svc, st, 0, &scheduled), 0);
	assert_int_equal(scheduled, 0);

	/* two new tags: each against the one before it */
	assert_int_equal(fl_test_sh(GIT "commit -q --allow-empty -m rc4 && " GIT
					"tag v6.2-rc4 && " GIT
					"commit -q --allow-empty -m final && " GIT "tag v6.2",
				    dir, dir, dir, dir),
			 0);
	assert_int_equal(fl_trigger_pass(&svc, st, 0, &scheduled), 0);
	assert_int_equal(scheduled, 2);
	tag_row(db, "v6.2-rc4", row, sizeof(row));
	assert_string_equal(row, "scheduled v6.2-rc3");
	tag_row(db, "v6.2", row, sizeof(row));
	assert_string_equal(row, "scheduled v6.2-rc4");
	assert_int_equal(fl_test_sql_int(db, "SELECT count(*) FROM jobs WHERE kind = 'compare'"),
			 9);
	assert_int_equal(fl_trigger_pass(&svc, st, 0, &scheduled), 0);
	assert_int_equal(scheduled, 0);
	assert_int_equal(fl_test_sql_int(db, "SELECT count(*) FROM jobs"), 9);
	fl_store_free(st);
	fl_service_release(&svc);
	fl_config_free(cfg);
}

static void test_backfill_and_fixed(void **state)
{
	struct fl_config *cfg = load("all", ", backfill: 100");
	struct fl_service svc;
	char db[128], row[128];
	unsigned scheduled;
	fl_store *st;

	(void)state;
	snprintf(db, sizeof(db), "%s/all.db", dir);
	fl_service_init(&svc, cfg);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	assert_int_equal(fl_trigger_pass(&svc, st, 0, &scheduled), 0);
	tag_row(db, "v6.1", row, sizeof(row));
	assert_string_equal(row, "no-baseline -");
	tag_row(db, "v6.1.1", row, sizeof(row));
	assert_string_equal(row, "scheduled v6.1");
	tag_row(db, "v6.2-rc1", row, sizeof(row));
	assert_string_equal(row, "scheduled v6.1"); /* not the stable v6.1.1 */
	tag_row(db, "v6.2-rc2", row, sizeof(row));
	assert_string_equal(row, "scheduled v6.2-rc1");
	fl_store_free(st);
	fl_service_release(&svc);
	fl_config_free(cfg);

	cfg = load("fixed", ", backfill: 100, baseline: v6.1");
	snprintf(db, sizeof(db), "%s/fixed.db", dir);
	fl_service_init(&svc, cfg);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	assert_int_equal(fl_trigger_pass(&svc, st, 0, &scheduled), 0);
	tag_row(db, "v6.2-rc3", row, sizeof(row));
	assert_string_equal(row, "scheduled v6.1");
	tag_row(db, "v6.1", row, sizeof(row));
	assert_string_equal(row, "no-baseline -"); /* the same commit as its baseline */
	fl_store_free(st);
	fl_service_release(&svc);
	fl_config_free(cfg);

	cfg = load("badbase", ", baseline: v9.9");
	snprintf(db, sizeof(db), "%s/badbase.db", dir);
	fl_service_init(&svc, cfg);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	assert_int_equal(fl_trigger_pass(&svc, st, 0, &scheduled), 0);
	assert_int_equal(scheduled, 0);
	fl_test_sql_text(db, "SELECT note FROM watch_tags WHERE tag = 'v6.2'", row, sizeof(row));
	assert_string_equal(row, "baseline: tree 'linux': unknown revision 'v9.9'");
	fl_store_free(st);
	fl_service_release(&svc);
	fl_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_previous),
	    cmocka_unit_test(test_first_pass_and_later),
	    cmocka_unit_test(test_backfill_and_fixed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
