/* test_evidence.c - evidence from fl-agent records: vmstat deltas per second
 * of the window, profiles named with a System.map, "no profile" without
 * CONFIG_PROFILING, malformed records named by field, a run's records to
 * points (analysis, no store), and the store round trip (all or nothing,
 * replaced when built again). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/error.h"
#include "analysis/evidence.h"
#include "dispatch/evidence.h"
#include "store/evidence.h"
#include "testlib.h"

/* 0x400 bytes of text: 256 buckets of 4 bytes. */
static const char map[] = "ffffffff81000000 T _stext\n"
			  "ffffffff81000000 T startup_64\n"
			  "ffffffff81000100 T handle_mm_fault\n"
			  "ffffffff81000180 T _raw_spin_lock\n"
			  "ffffffff81000200 T clear_page_erms\n"
			  "ffffffff81000400 T _etext\n";

static const char result_rec[] =
    "{\"type\":\"result\",\"test\":\"page_fault2\",\"mode\":\"threads\",\"tasks\":2,"
    "\"samples\":[1,2],\"measured_s\":2.0,\"profile\":\"recorded\","
    "\"vmstat_delta\":{\"pgfault\":400000,\"pgalloc_normal\":380000,\"nr_free_pages\":-512,"
    "\"numa_hit\":380000}}";
static const char profile_rec[] =
    "{\"type\":\"profile\",\"test\":\"page_fault2\",\"mode\":\"threads\",\"tasks\":2,"
    "\"step\":4,\"nbuckets\":256,\"buckets\":[[64,10],[96,68],[97,2],[128,15],[255,3]],"
    "\"total\":100,\"dropped\":2}";
static const char plain_rec[] =
    "{\"type\":\"result\",\"test\":\"page_fault2\",\"mode\":\"processes\",\"tasks\":1,"
    "\"measured_s\":1.0,\"profile\":\"none\",\"vmstat_delta\":{\"pgfault\":1000}}";

static fl_symbols *syms(void)
{
	fl_symbols *s;

	assert_int_equal(fl_symbols_parse(&s, map, strlen(map), "map"), 0);
	return s;
}

static void test_result_record(void **state)
{
	struct fl_evidence_point pt;
	int has;

	(void)state;
	assert_int_equal(fl_evidence_from_record(result_rec, strlen(result_rec), NULL, &pt, &has),
			 0);
	assert_int_equal(has, 1);
	assert_int_equal(pt.source, FL_EV_RESULT);
	assert_string_equal(pt.test, "page_fault2");
	assert_string_equal(pt.mode, "threads");
	assert_int_equal(pt.tasks, 2);
	assert_string_equal(pt.profile, "recorded");
	assert_int_equal(pt.nvm, 4);
	for (size_t i = 0; i < pt.nvm; i++) {
		if (!strcmp(pt.vm[i].name, "pgfault")) {
			assert_int_equal(pt.vm[i].delta, 400000);
			assert_true(pt.vm[i].per_sec == 200000.0);
		}
		if (!strcmp(pt.vm[i].name, "nr_free_pages"))
			assert_true(pt.vm[i].per_sec == -256.0);
	}
	fl_evidence_point_release(&pt);
}

static void test_profile_record(void **state)
{
	fl_symbols *s = syms();
	struct fl_evidence_point pt;
	int has;

	(void)state;
	assert_int_equal(fl_evidence_from_record(profile_rec, strlen(profile_rec), s, &pt, &has),
			 0);
	assert_int_equal(has, 1);
	assert_int_equal(pt.source, FL_EV_PROFILE);
	assert_string_equal(pt.profile, "recorded");
	assert_int_equal(pt.profile_samples, 100);
	assert_int_equal(pt.nfn, 5);
	assert_string_equal(pt.fn[0].name, "_raw_spin_lock");
	assert_int_equal(pt.fn[0].samples, 70);
	assert_true(pt.fn[0].share > 0.6999 && pt.fn[0].share < 0.7001);
	assert_string_equal(pt.fn[1].name, "clear_page_erms");
	assert_string_equal(pt.fn[2].name, "handle_mm_fault");
	assert_string_equal(pt.fn[3].name, FL_SYM_MODULE);
	assert_string_equal(pt.fn[4].name, FL_SYM_DROPPED);
	fl_evidence_point_release(&pt);

	/* No System.map: kept, but unmapped. */
	assert_int_equal(fl_evidence_from_record(profile_rec, strlen(profile_rec), NULL, &pt, &has),
			 0);
	assert_int_equal(has, 1);
	assert_int_equal(pt.nfn, 0);
	assert_string_equal(pt.profile, "unmapped: no usable System.map");
	fl_evidence_point_release(&pt);
	fl_symbols_free(s);
}

static void test_other_records(void **state)
{
	const char *other[] = {
	    "{\"type\":\"env\",\"kernel\":\"6.1\"}",
	    "{\"type\":\"done\"}",
	    "{\"type\":\"error\",\"message\":\"x\"}",
	    /* a whole-job profile of an older agent names no point */
	    "{\"type\":\"profile\",\"step\":4,\"buckets\":[[1,2]]}",
	};
	struct fl_evidence_point pt;
	int has;

	(void)state;
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		assert_int_equal(
		    fl_evidence_from_record(other[i], strlen(other[i]), NULL, &pt, &has), 0);
		assert_int_equal(has, 0);
	}
}

static void expect_bad(const char *rec, const char *what)
{
	fl_symbols *s = syms();
	struct fl_evidence_point pt;
	int has = 7;

	assert_int_equal(fl_evidence_from_record(rec, strlen(rec), s, &pt, &has), FL_EINVAL);
	assert_int_equal(has, 0);
	if (!strstr(fl_error_last(), what))
		fail_msg("'%s' not in '%s'", what, fl_error_last());
	fl_symbols_free(s);
}

static void test_bad_records(void **state)
{
	(void)state;
	expect_bad("not json", "not a JSON object");
	expect_bad("{\"type\":\"result\",\"test\":\"t\",\"mode\":\"m\",\"tasks\":\"two\"}",
		   "'tasks'");
	expect_bad("{\"type\":\"result\",\"test\":\"t\",\"mode\":\"m\",\"tasks\":2}",
		   "'measured_s'");
	expect_bad(
	    "{\"type\":\"result\",\"test\":\"t\",\"mode\":\"m\",\"tasks\":2,\"measured_s\":1,"
	    "\"vmstat_delta\":{\"pgfault\":\"many\"}}",
	    "'vmstat_delta.pgfault'");
	expect_bad("{\"type\":\"profile\",\"test\":\"t\",\"mode\":\"m\",\"tasks\":2,\"step\":4,"
		   "\"nbuckets\":256,\"total\":1,\"buckets\":[[1,2],[3]]}",
		   "'buckets[1]'");
	expect_bad("{\"type\":\"profile\",\"test\":\"t\",\"mode\":\"m\",\"tasks\":2,\"step\":4,"
		   "\"total\":1,\"buckets\":[]}",
		   "'nbuckets'");
}

/* A run's records to points with no store: one a result or per-point
 * profile record, in record order, the rest skipped; a malformed record
 * gives no points and names its place. */
static void test_from_records(void **state)
{
	const char *recs[] = {"{\"type\":\"env\"}", result_rec, profile_rec, plain_rec};
	size_t lens[4];
	struct fl_evidence_point *pts;
	size_t n;
	char *why;

	(void)state;
	for (int i = 0; i < 4; i++)
		lens[i] = strlen(recs[i]);
	assert_int_equal(fl_evidence_from_records(recs, lens, 4, NULL, &pts, &n, &why), 0);
	assert_string_equal(why, "no System.map: profiles are kept unmapped");
	free(why);
	assert_int_equal(n, 3);
	assert_int_equal(pts[0].source, FL_EV_RESULT);
	assert_string_equal(pts[0].mode, "threads");
	assert_int_equal(pts[0].nvm, 4);
	assert_int_equal(pts[1].source, FL_EV_PROFILE);
	assert_string_equal(pts[1].profile, "unmapped: no usable System.map");
	assert_int_equal(pts[1].profile_samples, 100);
	assert_int_equal(pts[2].source, FL_EV_RESULT);
	assert_string_equal(pts[2].mode, "processes");
	fl_evidence_points_free(pts, n);

	recs[2] = "{\"type\":\"result\",\"test\":\"t\"}";
	lens[2] = strlen(recs[2]);
	assert_int_equal(fl_evidence_from_records(recs, lens, 4, NULL, &pts, &n, &why), FL_EINVAL);
	assert_non_null(strstr(fl_error_last(), "record 3: "));
	assert_null(pts);
	assert_int_equal(n, 0);
	free(why);
}

/* A store with one run to hang evidence on. */
static fl_store *open_store(const char *dir, int64_t *run)
{
	char path[128];
	fl_store *st;
	int64_t machine;
	struct fl_run_info ri = {.benchmark = "page_fault2", .params = "{}"};

	snprintf(path, sizeof(path), "%s/store.db", dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(path), 0), 0);
	assert_int_equal(fl_store_machine_ensure(st, "vm", "libvirt", &machine), 0);
	ri.machine_id = machine;
	assert_int_equal(fl_store_run_create(st, &ri, run), 0);
	return st;
}

static void test_store_run(void **state)
{
	const char *recs[] = {"{\"type\":\"env\"}", plain_rec, result_rec, profile_rec,
			      "{\"type\":\"done\"}"};
	size_t lens[5];
	char dir[64], mappath[128], *why;
	struct fl_evidence_row *pts;
	size_t n;
	int64_t run;
	fl_store *st;
	FILE *f;

	(void)state;
	for (int i = 0; i < 5; i++)
		lens[i] = strlen(recs[i]);
	assert_int_equal(fl_test_tmpdir(dir, sizeof(dir), "evidence"), 0);
	snprintf(mappath, sizeof(mappath), "%s/System.map", dir);
	f = fopen(mappath, "w");
	fputs(map, f);
	fclose(f);
	st = open_store(dir, &run);

	/* Twice: the second build replaces the first. */
	for (int round = 0; round < 2; round++) {
		assert_int_equal(fl_run_evidence_store(st, run, recs, lens, 5, mappath, &why), 0);
		assert_null(why);
	}
	assert_int_equal(fl_store_evidence_get(st, run, &pts, &n), 0);
	assert_int_equal(n, 2);
	/* processes before threads. The kernel had no profile at that point. */
	assert_string_equal(pts[0].mode, "processes");
	assert_string_equal(pts[0].profile, "none");
	assert_int_equal(pts[0].nfn, 0);
	assert_int_equal(pts[0].nvm, 1);
	assert_true(pts[0].vm[0].per_sec == 1000.0);
	assert_string_equal(pts[1].mode, "threads");
	assert_true(pts[1].measured_s == 2.0);
	assert_string_equal(pts[1].profile, "recorded");
	assert_int_equal(pts[1].profile_samples, 100);
	assert_int_equal(pts[1].nvm, 4);
	assert_string_equal(pts[1].vm[0].name, "nr_free_pages"); /* by name */
	assert_int_equal(pts[1].nfn, 5);
	assert_string_equal(pts[1].fn[0].name, "_raw_spin_lock");
	assert_int_equal(pts[1].fn[0].samples, 70);
	fl_store_evidence_free(pts, n);

	/* Debian's placeholder map: the vmstat evidence is kept, the profile
	 * is unmapped and the reason is given. */
	f = fopen(mappath, "w");
	fputs("ffffffffffffffff B The real System.map is in the linux-image-<version>-dbg "
	      "package\n",
	      f);
	fclose(f);
	assert_int_equal(fl_run_evidence_store(st, run, recs, lens, 5, mappath, &why), 0);
	assert_non_null(why);
	assert_non_null(strstr(why, "System.map:1:"));
	free(why);
	assert_int_equal(fl_store_evidence_get(st, run, &pts, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(pts[1].profile, "unmapped: no usable System.map");
	assert_int_equal(pts[1].nfn, 0);
	assert_int_equal(pts[1].nvm, 4);
	fl_store_evidence_free(pts, n);

	/* The same with the kernel's own names from a ksyms record: named
	 * after all, and why says where the names came from. */
	const char *with_ksyms[] = {result_rec, profile_rec,
				    "{\"type\":\"ksyms\",\"text\":1024,\"symbols\":["
				    "[256,\"handle_mm_fault\"],[384,\"_raw_spin_lock\"],"
				    "[512,\"clear_page_erms\"]]}"};
	size_t klens[3] = {strlen(with_ksyms[0]), strlen(with_ksyms[1]), strlen(with_ksyms[2])};

	assert_int_equal(fl_run_evidence_store(st, run, with_ksyms, klens, 3, mappath, &why), 0);
	assert_non_null(strstr(why, "kallsyms"));
	free(why);
	assert_int_equal(fl_store_evidence_get(st, run, &pts, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(pts[0].profile, "recorded");
	assert_string_equal(pts[0].fn[0].name, "_raw_spin_lock");
	assert_int_equal(pts[0].fn[0].samples, 70);
	fl_store_evidence_free(pts, n);
	/* No System.map at all: the same names, nothing to explain. */
	assert_int_equal(fl_run_evidence_store(st, run, with_ksyms, klens, 3, NULL, &why), 0);
	assert_null(why);
	assert_int_equal(fl_store_evidence_get(st, run, &pts, &n), 0);
	assert_string_equal(pts[0].fn[1].name, "clear_page_erms");
	fl_store_evidence_free(pts, n);
	assert_int_equal(fl_run_evidence_store(st, run, recs, lens, 5, mappath, &why), 0);
	free(why);

	/* A malformed record stores nothing and loses nothing: the evidence
	 * from before is still there. */
	recs[1] =
	    "{\"type\":\"result\",\"test\":\"t\",\"mode\":\"m\",\"tasks\":0,\"measured_s\":1}";
	lens[1] = strlen(recs[1]);
	assert_int_equal(fl_run_evidence_store(st, run, recs, lens, 5, NULL, &why), FL_EINVAL);
	assert_non_null(strstr(fl_error_last(), "record 2"));
	assert_non_null(strstr(fl_error_last(), "run "));
	free(why);
	assert_int_equal(fl_store_evidence_get(st, run, &pts, &n), 0);
	assert_int_equal(n, 2);
	fl_store_evidence_free(pts, n);

	/* A run without evidence has no points. */
	assert_int_equal(fl_store_evidence_get(st, run + 1, &pts, &n), 0);
	assert_int_equal(n, 0);
	fl_store_free(st);
	fl_test_rmtree(dir);
}

/* What fl-agent writes for a traced point (agents/lockstat.c, whose own
 * test checks this shape), with two objects' locks named by one caller. */
static const char locks_rec[] =
    "{\"type\":\"locks\",\"test\":\"page_fault2\",\"mode\":\"threads\",\"tasks\":2,"
    "\"cgroup\":\"root\",\"status\":\"recorded\",\"locks\":["
    "{\"lock\":\"root_usage\",\"named_by\":\"symbol\",\"addr\":\"ffffffff81e4a2c0\","
    "\"contentions\":41873,\"waits\":41873,\"wait_ns\":2214093377,\"max_wait_ns\":318214,"
    "\"chains\":[{\"count\":23442,\"frames\":[\"root_usage_update\",\"charge_memcg\"]},"
    "{\"count\":18431,\"frames\":[\"root_usage_update\",\"uncharge_folio\"]}]},"
    "{\"lock\":\"folio_lruvec_lock_irqsave\",\"named_by\":\"caller\",\"addr\":\"ffff88801f5d0b40\","
    "\"contentions\":200,\"waits\":200,\"wait_ns\":1000,\"max_wait_ns\":10,\"chains\":[]},"
    "{\"lock\":\"folio_lruvec_lock_irqsave\",\"named_by\":\"caller\",\"addr\":\"ffff88801f5d1b40\","
    "\"contentions\":12,\"waits\":11,\"wait_ns\":500,\"max_wait_ns\":90,\"chains\":[]}],"
    "\"other_locks\":0}";
/* A result with per-node deltas, the missing counters and the locks status. */
static const char nodes_rec[] =
    "{\"type\":\"result\",\"test\":\"page_fault2\",\"mode\":\"threads\",\"tasks\":2,"
    "\"measured_s\":2.0,\"profile\":\"none\",\"locks\":\"recorded\","
    "\"vmstat_delta\":{\"numa_hit\":1000},"
    "\"vmstat_missing\":[\"pgfault\",\"nr_tlb_remote_flush\"],"
    "\"nodes\":[{\"node\":0,\"tasks\":1,\"numastat\":{\"numa_hit\":600,\"local_node\":600},"
    "\"vmstat\":{\"nr_anon_pages\":-40}},{\"node\":1,\"tasks\":1,\"numastat\":{\"numa_hit\":"
    "400,\"other_node\":10},\"vmstat\":{}}]}";

static const struct fl_vmstat_rate *vm_find(const struct fl_evidence_point *pt, const char *n)
{
	for (size_t i = 0; i < pt->nvm; i++)
		if (!strcmp(pt->vm[i].name, n))
			return &pt->vm[i];
	return NULL;
}

static void test_locks_record(void **state)
{
	struct fl_evidence_point pt;
	int has;

	(void)state;
	assert_int_equal(fl_evidence_from_record(locks_rec, strlen(locks_rec), NULL, &pt, &has), 0);
	assert_int_equal(has, 1);
	assert_int_equal(pt.source, FL_EV_LOCKS);
	assert_string_equal(pt.locks, "recorded");
	assert_int_equal(pt.nlk, 2);
	assert_string_equal(pt.lk[0].name, "root_usage");
	assert_string_equal(pt.lk[0].named_by, "symbol");
	assert_true(pt.lk[0].wait_ns == 2214093377ull);
	assert_string_equal(pt.lk[0].chains, "23442 root_usage_update <- charge_memcg\n"
					     "18431 root_usage_update <- uncharge_folio");
	/* one name, two objects: summed, the longer wait kept */
	assert_string_equal(pt.lk[1].name, "folio_lruvec_lock_irqsave");
	assert_true(pt.lk[1].contentions == 212);
	assert_true(pt.lk[1].waits == 211);
	assert_true(pt.lk[1].wait_ns == 1500);
	assert_true(pt.lk[1].max_wait_ns == 90);
	fl_evidence_point_release(&pt);

	/* a kernel without the tracepoints: a status, no locks, no error */
	const char *na = "{\"type\":\"locks\",\"test\":\"page_fault2\",\"mode\":\"threads\","
			 "\"tasks\":2,\"status\":\"not available: no lock:contention_begin/end "
			 "tracepoints (Linux 5.19 or later)\",\"locks\":[],\"other_locks\":0}";
	assert_int_equal(fl_evidence_from_record(na, strlen(na), NULL, &pt, &has), 0);
	assert_int_equal(has, 1);
	assert_int_equal(pt.nlk, 0);
	assert_non_null(strstr(pt.locks, "not available"));
	fl_evidence_point_release(&pt);

	expect_bad("{\"type\":\"locks\",\"test\":\"t\",\"mode\":\"m\",\"tasks\":2}", "'status'");
	expect_bad("{\"type\":\"locks\",\"test\":\"t\",\"mode\":\"m\",\"tasks\":2,\"status\":"
		   "\"recorded\",\"locks\":[{\"lock\":\"x\",\"contentions\":-1}]}",
		   "'locks[0].contentions'");
	expect_bad("{\"type\":\"locks\",\"test\":\"t\",\"mode\":\"m\",\"tasks\":2,\"status\":"
		   "\"recorded\",\"locks\":[{\"lock\":\"x\",\"contentions\":1,\"wait_ns\":1,"
		   "\"max_wait_ns\":1,\"chains\":[{\"frames\":[]}]}]}",
		   "'locks[0].chains[0]'");
}

static void test_nodes_result(void **state)
{
	struct fl_evidence_point pt;
	const struct fl_vmstat_rate *v;
	int has;

	(void)state;
	assert_int_equal(fl_evidence_from_record(nodes_rec, strlen(nodes_rec), NULL, &pt, &has), 0);
	assert_string_equal(pt.locks, "recorded");
	assert_string_equal(pt.vmstat_missing, "pgfault,nr_tlb_remote_flush");
	/* numa_hit, 2 tasks rows, 2 + 2 numastat, 1 vmstat */
	assert_int_equal(pt.nvm, 8);
	assert_non_null(v = vm_find(&pt, "numa-numastat.node0.numa_hit"));
	assert_true(v->per_sec == 300.0);
	assert_non_null(v = vm_find(&pt, "numa-numastat.node1.other_node"));
	assert_int_equal(v->delta, 10);
	assert_non_null(v = vm_find(&pt, "numa.node1.tasks"));
	assert_true(v->delta == 1 && v->per_sec == 1.0);
	assert_non_null(v = vm_find(&pt, "numa-vmstat.node0.nr_anon_pages"));
	assert_int_equal(v->delta, -40);
	assert_true(fl_vmstat_is_node("numa.node1.tasks"));
	assert_false(fl_vmstat_is_node("numa_hit"));
	assert_false(fl_vmstat_counter("numa-vmstat.node0.nr_anon_pages"));
	assert_false(fl_vmstat_counter("numa.node0.tasks"));
	assert_true(fl_vmstat_counter("numa-numastat.node0.numa_hit"));
	fl_evidence_point_release(&pt);
	expect_bad("{\"type\":\"result\",\"test\":\"t\",\"mode\":\"m\",\"tasks\":2,"
		   "\"measured_s\":1,\"nodes\":[{\"node\":0,\"tasks\":1,\"numastat\":"
		   "{\"numa_hit\":\"x\"}}]}",
		   "'nodes[0].numastat.numa_hit'");
}

/* The three records of a traced point make one stored point: the profile
 * status survives the locks record, the locks come back most wait first. */
static void test_store_locks(void **state)
{
	const char *recs[] = {nodes_rec, locks_rec};
	size_t lens[2] = {strlen(nodes_rec), strlen(locks_rec)};
	char dir[64], *why;
	struct fl_evidence_row *pts;
	size_t n;
	int64_t run;
	fl_store *st;

	(void)state;
	assert_int_equal(fl_test_tmpdir(dir, sizeof(dir), "evlocks"), 0);
	st = open_store(dir, &run);
	assert_int_equal(fl_run_evidence_store(st, run, recs, lens, 2, NULL, &why), 0);
	free(why);
	assert_int_equal(fl_store_evidence_get(st, run, &pts, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(pts[0].profile, "none");
	assert_true(pts[0].measured_s == 2.0);
	assert_string_equal(pts[0].locks, "recorded");
	assert_string_equal(pts[0].vmstat_missing, "pgfault,nr_tlb_remote_flush");
	assert_int_equal(pts[0].nvm, 8);
	assert_int_equal(pts[0].nlk, 2);
	assert_string_equal(pts[0].lk[0].lock, "root_usage");
	assert_true(pts[0].lk[0].contentions == 41873);
	assert_true(pts[0].lk[0].max_wait_ns == 318214);
	assert_non_null(strstr(pts[0].lk[0].chains, "root_usage_update <- charge_memcg"));
	assert_string_equal(pts[0].lk[1].named_by, "caller");
	fl_store_evidence_free(pts, n);
	/* an older agent's run: no statuses at all */
	recs[0] = plain_rec;
	lens[0] = strlen(plain_rec);
	assert_int_equal(fl_run_evidence_store(st, run, recs, lens, 1, NULL, &why), 0);
	free(why);
	assert_int_equal(fl_store_evidence_get(st, run, &pts, &n), 0);
	assert_int_equal(n, 1);
	assert_null(pts[0].locks);
	assert_null(pts[0].vmstat_missing);
	assert_int_equal(pts[0].nlk, 0);
	fl_store_evidence_free(pts, n);
	fl_store_free(st);
	fl_test_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_result_record), cmocka_unit_test(test_profile_record),
	    cmocka_unit_test(test_other_records), cmocka_unit_test(test_bad_records),
	    cmocka_unit_test(test_from_records),  cmocka_unit_test(test_store_run),
	    cmocka_unit_test(test_locks_record),  cmocka_unit_test(test_nodes_result),
	    cmocka_unit_test(test_store_locks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
