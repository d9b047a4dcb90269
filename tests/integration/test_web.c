/*
 * test_web.c - "faultline serve" on a loopback port, asked with libcurl:
 * every page and API endpoint on a store filled by webfixture.h (status,
 * content, JSON that parses), escaping of commit subjects and consoles,
 * traversal attempts raw and encoded, 400/404/405, paging, a writer that
 * is not blocked by the server, the access log, and a clean exit on
 * SIGTERM.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "store.h"
#include "testlib.h"
#include "webfixture.h"

static struct wf_env env;

struct reply {
	long status;
	char type[128];
	fl_buf head, body;
};

static size_t add_bytes(char *p, size_t size, size_t n, void *buf)
{
	fl_buf_add(buf, p, size * n);
	return size * n;
}

/* method: NULL for GET, "HEAD", or "POST". */
static void request(const char *method, const char *path, struct reply *r)
{
	CURL *c = curl_easy_init();
	char url[1024];
	char *type = NULL;

	memset(r, 0, sizeof(*r));
	snprintf(url, sizeof(url), "%s%s", env.srv.url, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, add_bytes);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &r->body);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, add_bytes);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &r->head);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
	if (method && !strcmp(method, "HEAD"))
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	if (method && !strcmp(method, "POST"))
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, "x=1");
	assert_int_equal(curl_easy_perform(c), CURLE_OK);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &type);
	snprintf(r->type, sizeof(r->type), "%s", type ? type : "");
	curl_easy_cleanup(c);
	fl_buf_str(&r->body);
	fl_buf_str(&r->head);
}

static void done(struct reply *r)
{
	fl_buf_free(&r->body);
	fl_buf_free(&r->head);
}

static void expect_page(const char *path, long status, const char *needle)
{
	struct reply r;

	request(NULL, path, &r);
	if (r.status != status || (needle && !strstr(fl_buf_str(&r.body), needle)))
		print_error("%s: status %ld (wanted %ld), body lacks '%s':\n%.3000s\n", path,
			    r.status, status, needle ? needle : "", fl_buf_str(&r.body));
	assert_int_equal(r.status, status);
	if (needle)
		assert_non_null(strstr(r.body.ptr, needle));
	done(&r);
}

/* GETs an /api/ path and parses it (which fails on invalid UTF-8). */
static json_t *api(const char *path, long status)
{
	struct reply r;
	json_error_t e;
	json_t *j;

	request(NULL, path, &r);
	assert_int_equal(r.status, status);
	assert_string_equal(r.type, "application/json");
	j = json_loads(fl_buf_str(&r.body), 0, &e);
	if (!j)
		print_error("%s: %s\n%.2000s\n", path, e.text, fl_buf_str(&r.body));
	assert_non_null(j);
	done(&r);
	return j;
}

static int setup(void **state)
{
	char link[700];

	(void)state;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (wf_start(&env, "web", 1))
		return -1;
	/* a link out of web/static/ that must never be followed */
	snprintf(link, sizeof(link), "%s/web/static/evil.css", env.dir);
	return symlink("/etc/passwd", link);
}

static int teardown(void **state)
{
	(void)state;
	wf_end(&env);
	curl_global_cleanup();
	return 0;
}

static void test_dashboard(void **state)
{
	(void)state;
	expect_page("/", 200, "<a href='/tree/mainline'>mainline</a>");
	expect_page("/", 200, "<td class='num'>-25.0%</td>");
	expect_page("/", 200, "<a href='/regression/1'>1</a>");
	expect_page("/", 200, "<a href='/bisect/2'>2</a>");
	expect_page("/", 200, "<link rel=\"stylesheet\" href=\"/static/faultline.css\">");
	{
		json_t *j = api("/api/", 200);
		char active[32];

		snprintf(active, sizeof(active), "%lld", (long long)env.w.active_run);
		assert_string_equal(json_string_value(json_object_get(
					json_array_get(json_object_get(j, "trees"), 0), "name")),
				    "mainline");
		assert_int_equal(json_array_size(json_object_get(j, "open_regressions")), 1);
		assert_int_equal(json_array_size(json_object_get(j, "running_bisections")), 1);
		assert_int_equal(json_integer_value(json_object_get(
				     json_array_get(json_object_get(j, "active_runs"), 0), "id")),
				 env.w.active_run);
		json_decref(j);
	}
}

static void test_runs_paging(void **state)
{
	json_t *p1, *p2, *a, *b;
	int64_t last = INT64_MAX;

	(void)state;
	p1 = api("/api/runs", 200);
	p2 = api("/api/runs?page=2", 200);
	a = json_object_get(p1, "runs");
	b = json_object_get(p2, "runs");
	assert_int_equal(json_array_size(a), 50);
	assert_true(json_is_true(json_object_get(p1, "more")));
	assert_int_equal(json_array_size(b), (size_t)env.w.nruns - 50);
	assert_true(json_is_false(json_object_get(p2, "more")));
	/* newest first, and page 2 goes on where page 1 stopped */
	for (size_t i = 0; i < 50 + json_array_size(b); i++) {
		json_t *r = i < 50 ? json_array_get(a, i) : json_array_get(b, i - 50);
		int64_t id = json_integer_value(json_object_get(r, "id"));

		assert_true(id < last);
		last = id;
	}
	assert_int_equal(last, 1);
	json_decref(p1);
	json_decref(p2);
	expect_page("/runs", 200, "<a rel='next' href='/runs?page=2'>");
	expect_page("/runs?page=2", 200, "<a rel='prev' href='/runs?page=1'>");
	expect_page("/runs?benchmark=page_fault2&page=2", 200,
		    "href='/runs?benchmark=page_fault2&amp;page=1'");
	expect_page("/runs?page=0", 400, "bad page");
	expect_page("/runs?page=abc", 400, "bad page");
	expect_page("/runs?benchmark=%3Cx%3E", 400, "bad benchmark");
	expect_page("/runs?status=running", 200, "<td class='status status-running'>");
}

static void test_lists(void **state)
{
	json_t *j;

	(void)state;
	expect_page("/regressions", 200, "<table class='regressions'>");
	expect_page("/regressions?state=closed", 200, "No regressions.");
	expect_page("/bisections", 200, "<a href='/bisect/1'>1</a>");
	expect_page("/bisections?state=finished", 200, "05b843012335");
	expect_page("/bisections?state=%3Cb%3E", 400, "bad state &#39;&lt;b&gt;&#39;");
	j = api("/api/bisections?state=running", 200);
	assert_int_equal(json_array_size(json_object_get(j, "bisections")), 1);
	assert_int_equal(json_integer_value(json_object_get(
			     json_array_get(json_object_get(j, "bisections"), 0), "id")),
			 2);
	json_decref(j);
	j = api("/api/regressions?state=open", 200);
	assert_int_equal(json_array_size(json_object_get(j, "regressions")), 1);
	assert_true(fabs(json_real_value(json_object_get(
			     json_array_get(json_object_get(j, "regressions"), 0), "change_pct")) +
			 25) < 1e-9);
	json_decref(j);
}

static void test_run_page(void **state)
{
	char path[64];
	struct reply r;
	json_t *j, *pts;

	(void)state;
	snprintf(path, sizeof(path), "/run/%lld", (long long)env.w.console_run);
	request(NULL, path, &r);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, "<h1>Run "));
	assert_non_null(strstr(r.body.ptr, "<th>duration</th><td>5s</td>"));
	assert_non_null(strstr(r.body.ptr, "<th>nodes</th><td>2</td>"));
	assert_non_null(strstr(r.body.ptr, "<figure class='plot samples'><svg"));
	assert_non_null(strstr(r.body.ptr, "data-label='processes'"));
	assert_non_null(strstr(r.body.ptr, "data-label='threads'"));
	/* the console is text: its markup is escaped, never taken as markup */
	assert_non_null(
	    strstr(r.body.ptr, "&lt;script&gt;alert(&#39;console&#39;)&lt;/script&gt;"));
	assert_non_null(strstr(r.body.ptr, "&lt;/pre&gt;&lt;h1&gt;owned&lt;/h1&gt;"));
	assert_null(strstr(r.body.ptr, "<h1>owned"));
	assert_null(strstr(r.body.ptr, "<script"));
	done(&r);

	snprintf(path, sizeof(path), "/run/%lld/console", (long long)env.w.console_run);
	request(NULL, path, &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.type, "text/plain; charset=utf-8");
	assert_string_equal(r.body.ptr, WF_CONSOLE);
	assert_non_null(strstr(r.head.ptr, "X-Content-Type-Options: nosniff"));
	done(&r);

	snprintf(path, sizeof(path), "/api/run/%lld", (long long)env.w.console_run);
	j = api(path, 200);
	pts = json_object_get(j, "points");
	assert_int_equal(json_array_size(pts), 6);
	assert_int_equal(json_array_size(json_object_get(j, "samples")), 18);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "facts"), "nodes")),
			 2);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "ok");
	/* the invalid byte became U+FFFD; the JSON is valid UTF-8 (it parsed) */
	assert_non_null(strstr(json_string_value(json_object_get(j, "console_tail")),
			       "bad byte: \xef\xbf\xbd end"));
	json_decref(j);

	expect_page("/run/999999", 404, "no such run");
	expect_page("/run/abc", 400, "bad id &#39;abc&#39;");
	expect_page("/run/0", 400, "bad id");
	expect_page("/run/-1", 400, "bad id");
	expect_page("/run/99999999999999999999999", 400, "bad id");
	expect_page("/run/", 400, "bad id");
	expect_page("/run/1/nothing", 404, NULL);
	expect_page("/run/1?page=x", 400, "bad page");
	j = api("/api/run/999999", 404);
	assert_non_null(strstr(json_string_value(json_object_get(j, "error")), "no such run"));
	json_decref(j);
}

static void test_bisect_page(void **state)
{
	struct reply r;
	json_t *j, *steps;

	(void)state;
	request(NULL, "/bisect/1", &r);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, "<h1>Bisection 1: culprit</h1>"));
	assert_non_null(strstr(r.body.ptr, "<p class='culprit'>Culprit: <code class='sha' "
					   "title='05b843012335"));
	assert_non_null(strstr(r.body.ptr, WF_CULPRIT_SUBJECT));
	assert_non_null(strstr(r.body.ptr, "<figure class='plot confidence'><svg"));
	assert_non_null(strstr(r.body.ptr, "<figure class='plot strip'><svg"));
	assert_non_null(strstr(r.body.ptr, "05b8430 bad"));
	assert_non_null(strstr(r.body.ptr, "<a href='/regression/1'>1</a>"));
	assert_non_null(strstr(r.body.ptr, "<td class='num'>0.970</td>") ||
			strstr(r.body.ptr, "<dd>0.970</dd>"));
	done(&r);
	j = api("/api/bisect/1", 200);
	steps = json_object_get(j, "steps");
	assert_int_equal(json_array_size(steps), 6);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(j, "culprit"), "sha")),
	    env.w.sha[WF_CULPRIT]);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(j, "culprit"), "subject")),
	    WF_CULPRIT_SUBJECT);
	assert_int_equal(json_array_size(json_object_get(json_array_get(steps, 3), "samples")), 5);
	assert_string_equal(json_string_value(json_object_get(json_array_get(steps, 3), "verdict")),
			    "bad");
	assert_true(fabs(json_real_value(json_object_get(j, "confidence")) - 0.97) < 1e-9);
	json_decref(j);
	expect_page("/bisect/2", 200, "running");
	expect_page("/bisect/3", 404, "no such bisection");
	expect_page("/bisect/x1", 400, "bad id");
}

static void test_regression_and_reports(void **state)
{
	json_t *j, *reports;

	(void)state;
	expect_page("/regression/1", 200,
		    "<h1>Regression 1: -25.0% page_fault2.threads.ops_per_sec");
	expect_page("/regression/1", 200, "<span class='status status-ok'>sent</span>");
	expect_page("/regression/1", 200,
		    "<span class='status status-pending'>pending</span>, 2 "
		    "failed attempts");
	expect_page("/regression/1", 200, "smtp://127.0.0.1:1: Connection refused");
	expect_page("/regression/1", 200, "A &lt;b&gt;body&lt;/b&gt; line");
	expect_page("/regression/1", 200, "<a href='/bisect/1'>1</a>");
	expect_page("/regression/1", 200, "href='/compare?a=c007");
	expect_page("/report/2", 200, "&lt;r1@faultline&gt;");
	expect_page("/regression/2", 404, "no such regression");
	expect_page("/report/3", 404, "no such report");
	j = api("/api/regression/1", 200);
	reports = json_object_get(j, "reports");
	assert_int_equal(json_array_size(reports), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(reports, 0), "state")),
			    "sent");
	assert_int_equal(
	    json_integer_value(json_object_get(json_array_get(reports, 1), "attempts")), 2);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "bad"), "sha")),
			    env.w.sha[WF_CULPRIT + 3]);
	json_decref(j);
	j = api("/api/report/1", 200);
	assert_string_equal(json_string_value(json_object_get(j, "message_id")), "<r1@faultline>");
	json_decref(j);
}

static void test_tree_page(void **state)
{
	json_t *j, *cps, *pts;

	(void)state;
	expect_page("/tree/mainline", 200, "<figure class='plot trend'><svg");
	expect_page("/tree/mainline", 200, "<line class='mark'");
	expect_page("/tree/mainline", 200, "compare with previous");
	expect_page("/tree/mainline?mode=threads&tasks=2", 200,
		    "page_fault2 ops_per_sec threads 2");
	j = api("/api/tree/mainline", 200);
	assert_string_equal(json_string_value(json_object_get(j, "metric")), "ops_per_sec");
	assert_int_equal(json_integer_value(json_object_get(j, "tasks")), 4);
	pts = json_object_get(j, "points");
	assert_int_equal(json_array_size(pts), WF_NCOMMITS);
	/* oldest first */
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(json_array_get(pts, 0), "commit"), "sha")),
			    env.w.sha[0]);
	cps = json_object_get(j, "change_points");
	assert_int_equal(json_array_size(cps), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(cps, 0), "index")),
			 WF_CULPRIT);
	assert_string_equal(json_string_value(json_object_get(json_array_get(cps, 0), "commit")),
			    env.w.sha[WF_CULPRIT]);
	/* throughput fell by a quarter: worse */
	assert_true(fabs(json_real_value(json_object_get(json_array_get(cps, 0), "change_pct")) +
			 25) < 1e-6);
	assert_true(json_is_true(json_object_get(json_array_get(cps, 0), "worse")));
	json_decref(j);
	expect_page("/tree/nope", 404, "tree &#39;nope&#39;");
	expect_page("/tree/mainline?tasks=abc", 400, "bad tasks");
	expect_page("/tree/mainline?machine=nope", 200, "Nothing measured");
	expect_page("/tree/", 400, "bad tree name");
}

static double run_mean(int commit, const char *mode, unsigned tasks, int run)
{
	double s = 0;

	for (int seq = 0; seq < 3; seq++)
		s += wf_value(commit, mode, tasks, run, seq);
	return s / 3;
}

static void test_compare(void **state)
{
	char path[512];
	struct reply r;
	json_t *j, *rows;

	(void)state;
	snprintf(path, sizeof(path), "/compare?a=%.12s&b=%s&benchmark=page_fault2&machine=numa2",
		 env.w.sha[WF_CULPRIT - 1], "3.17.0-rc2-g05b843012335");
	request(NULL, path, &r);
	assert_int_equal(r.status, 200);
	assert_non_null(
	    strstr(r.body.ptr, "<figure class='plot scalability' data-mode='processes'>"));
	assert_non_null(
	    strstr(r.body.ptr, "<figure class='plot scalability' data-mode='threads'>"));
	assert_non_null(
	    strstr(r.body.ptr, "<g class='series' data-label='3.17.0-rc2-g05b843012335'>"));
	assert_non_null(strstr(r.body.ptr, "<table class='compare'>"));
	assert_non_null(strstr(r.body.ptr, "-25.0%"));
	assert_non_null(strstr(r.body.ptr, "page_fault2.threads.ops_per_sec"));
	assert_non_null(strstr(r.body.ptr, "href='/compare?a=c007"));
	assert_non_null(strstr(r.body.ptr, "This store keeps no vmstat or profile evidence"));
	done(&r);

	snprintf(path, sizeof(path), "/api/compare?a=%s&b=%s&benchmark=page_fault2&machine=numa2",
		 env.w.sha[WF_CULPRIT - 1], env.w.sha[WF_CULPRIT]);
	j = api(path, 200);
	rows = json_object_get(j, "rows");
	assert_int_equal(json_array_size(rows), 6);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "runs"), "base")),
			 WF_RUNS);
	for (size_t i = 0; i < 6; i++) {
		json_t *row = json_array_get(rows, i);
		const char *mode = json_string_value(json_object_get(row, "mode"));
		unsigned tasks = (unsigned)json_integer_value(json_object_get(row, "tasks"));
		double base = 0, new_ = 0;

		for (int run = 0; run < WF_RUNS; run++) {
			base += run_mean(WF_CULPRIT - 1, mode, tasks, run) / WF_RUNS;
			new_ += run_mean(WF_CULPRIT, mode, tasks, run) / WF_RUNS;
		}
		assert_true(fabs(json_real_value(json_object_get(row, "base")) - base) <
			    1e-6 * base);
		assert_true(fabs(json_real_value(json_object_get(row, "new")) - new_) <
			    1e-6 * base);
		assert_true(fabs(json_real_value(json_object_get(row, "change_pct")) + 25) < 1e-6);
		assert_int_equal(json_integer_value(json_object_get(row, "base_runs")), WF_RUNS);
	}
	assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "mode")),
			    "processes");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 2), "tasks")), 4);
	json_decref(j);
}

/*
 * Evidence on the compare and run pages: commits 2 and 3 get a vmstat rate
 * and a profile per run at threads, 4 tasks (pgfault 1000/s against 750/s,
 * _raw_spin_lock 10% against 68%); the pages show compare.c's rows for them
 * and the run page its own evidence.
 */
static void test_evidence(void **state)
{
	char db[700], sql[4096], path[512];
	json_t *j, *a, *row;
	struct reply r;
	int64_t run;

	(void)state;
	snprintf(db, sizeof(db), "%s/fl.db", env.dir);
	for (int k = 0; k < 2; k++) {
		long long commit = (long long)env.w.commit[2 + k];

		snprintf(
		    sql, sizeof(sql),
		    "INSERT INTO evidence_points(run_id, test, mode, tasks, measured_s, profile,"
		    " profile_samples) SELECT r.id, 'page_fault2', 'threads', 4, 5, 'recorded',"
		    " 2000 FROM runs r JOIN builds b ON b.id = r.build_id WHERE b.commit_id = %lld;"
		    "INSERT INTO evidence_vmstat SELECT p.id, 'pgfault', %d * 5, %d FROM"
		    " evidence_points p JOIN runs r ON r.id = p.run_id JOIN builds b ON"
		    " b.id = r.build_id WHERE b.commit_id = %lld;"
		    "INSERT INTO evidence_profile SELECT p.id, '_raw_spin_lock', %d, %f FROM"
		    " evidence_points p JOIN runs r ON r.id = p.run_id JOIN builds b ON"
		    " b.id = r.build_id WHERE b.commit_id = %lld;"
		    "INSERT INTO evidence_profile SELECT p.id, 'clear_page_<erms>', %d, %f FROM"
		    " evidence_points p JOIN runs r ON r.id = p.run_id JOIN builds b ON"
		    " b.id = r.build_id WHERE b.commit_id = %lld;",
		    commit, k ? 750 : 1000, k ? 750 : 1000, commit, k ? 1360 : 200, k ? 0.68 : 0.10,
		    commit, k ? 400 : 1000, k ? 0.20 : 0.50, commit);
		assert_int_equal(wf_sql(db, sql), 0);
	}
	snprintf(path, sizeof(path),
		 "/api/compare?a=%.12s&b=%.12s&benchmark=page_fault2&machine=numa2", env.w.sha[2],
		 env.w.sha[3]);
	j = api(path, 200);
	assert_true(json_is_true(json_object_get(j, "evidence")));
	assert_int_equal(json_array_size(json_object_get(j, "rows")), 6);
	a = json_object_get(j, "vmstat");
	assert_int_equal(json_array_size(a), 1);
	row = json_array_get(a, 0);
	assert_string_equal(json_string_value(json_object_get(row, "what")), "pgfault");
	assert_string_equal(json_string_value(json_object_get(row, "mode")), "threads");
	assert_int_equal(json_integer_value(json_object_get(row, "tasks")), 4);
	assert_true(fabs(json_real_value(json_object_get(row, "base")) - 1000) < 1e-9);
	assert_true(fabs(json_real_value(json_object_get(row, "change_pct")) + 25) < 1e-9);
	assert_int_equal(json_integer_value(json_object_get(row, "new_runs")), WF_RUNS);
	a = json_object_get(j, "profile");
	assert_int_equal(json_array_size(a), 2);
	row = json_array_get(a, 0); /* the biggest move first */
	assert_string_equal(json_string_value(json_object_get(row, "what")), "_raw_spin_lock");
	assert_true(fabs(json_real_value(json_object_get(row, "change_pp")) - 58) < 1e-9);
	assert_true(fabs(json_real_value(json_object_get(row, "new")) - 68) < 1e-9);
	json_decref(j);

	snprintf(path, sizeof(path), "/compare?a=%.12s&b=%.12s&benchmark=page_fault2&machine=numa2",
		 env.w.sha[2], env.w.sha[3]);
	request(NULL, path, &r);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, "<table class='deltas'>"));
	assert_non_null(
	    strstr(r.body.ptr, "<td>pgfault</td><td>threads</td><td class='num'>4</td>"));
	assert_non_null(strstr(r.body.ptr, "-25.0%</td>"));
	assert_non_null(strstr(r.body.ptr, "+58.0 pp</td>"));
	assert_non_null(strstr(r.body.ptr, "clear_page_&lt;erms&gt;"));
	assert_null(strstr(r.body.ptr, "This store keeps no vmstat"));
	done(&r);

	/* the run page: the run's own evidence (the first run of commit 3) */
	{
		sqlite3 *h;
		sqlite3_stmt *q;

		assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(h,
						    "SELECT min(r.id) FROM runs r JOIN builds b ON "
						    "b.id = r.build_id WHERE b.commit_id = ?1",
						    -1, &q, NULL),
				 SQLITE_OK);
		sqlite3_bind_int64(q, 1, env.w.commit[3]);
		assert_int_equal(sqlite3_step(q), SQLITE_ROW);
		run = sqlite3_column_int64(q, 0);
		sqlite3_finalize(q);
		sqlite3_close(h);
	}
	assert_true(run > 0);
	snprintf(path, sizeof(path), "/run/%lld", (long long)run);
	request(NULL, path, &r);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, "<h2>Evidence</h2>"));
	assert_non_null(strstr(r.body.ptr, "<h3>page_fault2 threads, 4 tasks</h3>"));
	assert_non_null(strstr(r.body.ptr, "<td>_raw_spin_lock</td><td class='num'>1360</td>"
					   "<td class='num'>68.0%</td>"));
	assert_non_null(strstr(r.body.ptr, "<td>clear_page_&lt;erms&gt;</td>"));
	assert_non_null(strstr(r.body.ptr, "<td>pgfault</td><td class='num'>3750</td>"));
	done(&r);
	snprintf(path, sizeof(path), "/api/run/%lld", (long long)run);
	j = api(path, 200);
	a = json_object_get(j, "evidence");
	assert_int_equal(json_array_size(a), 1);
	row = json_array_get(a, 0);
	assert_int_equal(json_integer_value(json_object_get(row, "tasks")), 4);
	assert_true(
	    fabs(json_real_value(json_object_get(
		     json_object_get(json_object_get(row, "vmstat"), "pgfault"), "per_sec")) -
		 750) < 1e-9);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(json_object_get(row, "functions"), 0), "function")),
			    "_raw_spin_lock");
	json_decref(j);
	/* a run without evidence says so */
	snprintf(path, sizeof(path), "/run/%lld", (long long)env.w.console_run);
	expect_page(path, 200, "No vmstat or profile evidence for this run.");
}

static void test_compare_errors(void **state)
{
	json_t *j;

	(void)state;
	expect_page("/compare", 200, "<form class='compare'");
	expect_page("/compare?a=c007", 400, "missing parameter &#39;b&#39;");
	expect_page("/compare?a=c007&b=c009&benchmark=page_fault2", 400,
		    "missing parameter &#39;machine&#39;");
	expect_page("/compare?a=..%2Fetc&b=c009&benchmark=page_fault2&machine=numa2", 400,
		    "bad revision &#39;../etc&#39;");
	expect_page("/compare?a=%3Cscript%3E&b=c009&benchmark=page_fault2&machine=numa2", 400,
		    "bad revision &#39;&lt;script&gt;&#39;");
	expect_page("/compare?a=abcd&b=c009&benchmark=page_fault2&machine=numa2", 400,
		    "ambiguous revision &#39;abcd&#39;");
	expect_page("/compare?a=ffff0000&b=c009&benchmark=page_fault2&machine=numa2", 404,
		    "unknown revision &#39;ffff0000&#39;");
	expect_page("/compare?a=v6.1&b=c009&benchmark=page_fault2&machine=numa2", 404,
		    "unknown revision &#39;v6.1&#39;");
	expect_page("/compare?a=c007&b=c009&benchmark=page_fault2&machine=nope", 404,
		    "machine &#39;nope&#39;");
	expect_page("/compare?a=c007&b=c009&benchmark=pf%22x&machine=numa2", 400, "bad benchmark");
	expect_page("/compare?a=c007&b=c009&benchmark=page_fault9&machine=numa2", 200,
		    "No samples on either side");
	j = api("/api/compare?a=c007", 400);
	assert_string_equal(json_string_value(json_object_get(j, "error")),
			    "missing parameter 'b'");
	assert_int_equal(json_integer_value(json_object_get(j, "status")), 400);
	json_decref(j);
}

/* The subject "<script>alert(1)</script>" is text on every page that shows it. */
static void test_escaping(void **state)
{
	const char *pages[] = {"/runs", "/tree/mainline", NULL, NULL, NULL};
	char compare[300], run[64];
	json_t *j;

	(void)state;
	snprintf(run, sizeof(run), "/run/%lld", (long long)env.w.console_run);
	pages[2] = run;
	snprintf(compare, sizeof(compare), "/compare?a=%s&b=%s&benchmark=page_fault2&machine=numa2",
		 env.w.sha[WF_XSS - 1], env.w.sha[WF_XSS]);
	pages[3] = compare;
	for (int i = 0; pages[i]; i++) {
		struct reply r;

		request(NULL, pages[i], &r);
		assert_int_equal(r.status, 200);
		if (!strstr(r.body.ptr, "&lt;script&gt;alert(1)&lt;/script&gt;"))
			print_error("%s does not show the subject escaped\n", pages[i]);
		assert_non_null(strstr(r.body.ptr, "&lt;script&gt;alert(1)&lt;/script&gt;"));
		assert_null(strstr(r.body.ptr, "<script"));
		assert_non_null(strstr(r.head.ptr, "Content-Security-Policy: default-src 'none'"));
		done(&r);
	}
	snprintf(compare, sizeof(compare),
		 "/api/compare?a=%s&b=%s&benchmark=page_fault2&machine=numa2",
		 env.w.sha[WF_XSS - 1], env.w.sha[WF_XSS]);
	j = api(compare, 200);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(j, "new"), "subject")),
	    WF_XSS_SUBJECT);
	json_decref(j);
}

static void expect_refused(const char *path, long status)
{
	struct reply r;

	request(NULL, path, &r);
	if (r.status != status)
		print_error("%s: %ld, wanted %ld\n", path, r.status, status);
	assert_int_equal(r.status, status);
	assert_null(strstr(r.body.ptr, "root:x:0:0"));
	done(&r);
}

static void test_static_files(void **state)
{
	struct reply r;

	(void)state;
	request(NULL, "/static/faultline.css", &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.type, "text/css; charset=utf-8");
	assert_non_null(strstr(r.body.ptr, "figure.plot"));
	assert_non_null(strstr(r.head.ptr, "Cache-Control: max-age=3600"));
	done(&r);
	request(NULL, "/static/favicon.svg", &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.type, "image/svg+xml");
	done(&r);
	expect_refused("/static/../../../../etc/passwd", 400);
	expect_refused("/static/..%2f..%2f..%2f..%2fetc%2fpasswd", 400);
	expect_refused("/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd", 400);
	expect_refused("/static/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd", 400);
	expect_refused("/static/%252e%252e%252f%252e%252e%252fetc%252fpasswd", 400);
	expect_refused("/static/%2fetc%2fpasswd", 400);
	expect_refused("/static//etc/passwd", 400);
	expect_refused("/static/..", 400);
	expect_refused("/static/.hidden", 400);
	expect_refused("/static/", 400);
	expect_refused("/static/evil.css", 403);
	expect_refused("/static/missing.css", 404);
	expect_refused("/../../etc/passwd", 404);
	expect_refused("/static/..\\..\\etc\\passwd", 400);
	expect_refused("/api/static/faultline.css", 404);
}

static void test_methods_and_unknown_paths(void **state)
{
	struct reply r;

	(void)state;
	expect_page("/nothing", 404, "no page at /nothing");
	expect_page("/runs/", 404, NULL);
	expect_page("/api/nothing", 404, NULL);
	request("HEAD", "/runs", &r);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.body.len, 0);
	done(&r);
	request("POST", "/runs", &r);
	assert_int_equal(r.status, 405);
	assert_non_null(strstr(r.head.ptr, "Allow: GET, HEAD"));
	done(&r);
}

/* The server holds read-only connections; a writer still writes, and pages show it at once. */
static void test_writer_not_blocked(void **state)
{
	struct fl_run_info ri = {.machine_id = 1, .benchmark = "page_fault3", .params = "{}"};
	char db[300];
	fl_store *st;
	int64_t id;
	json_t *j;

	(void)state;
	json_decref(api("/api/runs", 200));
	snprintf(db, sizeof(db), "%s/fl.db", env.dir);
	assert_int_equal(fl_store_open(&st, db, 0), 0);
	assert_int_equal(fl_store_begin(st), 0);
	assert_int_equal(fl_store_run_create(st, &ri, &id), 0);
	assert_int_equal(fl_store_commit(st), 0);
	fl_store_free(st);
	j = api("/api/runs?benchmark=page_fault3", 200);
	assert_int_equal(json_array_size(json_object_get(j, "runs")), 1);
	assert_int_equal(json_integer_value(
			     json_object_get(json_array_get(json_object_get(j, "runs"), 0), "id")),
			 id);
	json_decref(j);
}

static void test_access_log_and_shutdown(void **state)
{
	fl_buf log = FL_BUF_INIT;
	char line[1024];
	FILE *f;

	(void)state;
	expect_page("/run/1?page=1", 200, NULL);
	assert_int_equal(wf_stop(&env.srv), 0);
	f = fopen(env.errlog, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		fl_buf_adds(&log, line);
	fclose(f);
	assert_non_null(strstr(log.ptr, "serve: 127.0.0.1 \"GET /run/1?page=1\" 200 "));
	assert_non_null(strstr(log.ptr, "\"POST /runs\" 405 "));
	assert_non_null(strstr(log.ptr, "serve: Terminated, stopping"));
	fl_buf_free(&log);
}

/* A store of another schema version, or a broken template: a clear error at start, exit 4. */
static void test_refuses_to_start(void **state)
{
	char db[300], web[300], cmd[1400];
	FILE *f;

	(void)state;
	snprintf(db, sizeof(db), "%s/old.db", env.dir);
	assert_int_equal(wf_sql(db, "CREATE TABLE t(x); PRAGMA user_version = 2;"), 0);
	snprintf(cmd, sizeof(cmd),
		 "%s serve --db %s --root %s/web --listen 127.0.0.1:0 2>%s/start.err; "
		 "test $? -eq 4 && grep -q 'schema version 2, expected' %s/start.err",
		 FL_FAULTLINE, db, env.dir, env.dir, env.dir);
	assert_int_equal(system(cmd), 0);
	snprintf(web, sizeof(web), "%s/web2", env.dir);
	snprintf(cmd, sizeof(cmd), "cp -r %s/web %s", env.dir, web);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/templates/layout.html", web);
	f = fopen(cmd, "a");
	assert_non_null(f);
	fputs("\n{{titel}}\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "%s serve --config %s --root %s --listen 127.0.0.1:0 2>%s/start.err; "
		 "test $? -eq 4 && grep -q 'layout.html:[0-9]*: unknown slot .titel.' %s/start.err",
		 FL_FAULTLINE, env.cfg, web, env.dir, env.dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd),
		 "%s serve --config %s --listen nonsense 2>%s/start.err; "
		 "test $? -eq 4 && grep -q \"listen address 'nonsense': expected HOST:PORT\" "
		 "%s/start.err",
		 FL_FAULTLINE, env.cfg, env.dir, env.dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dashboard),
	    cmocka_unit_test(test_runs_paging),
	    cmocka_unit_test(test_lists),
	    cmocka_unit_test(test_run_page),
	    cmocka_unit_test(test_bisect_page),
	    cmocka_unit_test(test_regression_and_reports),
	    cmocka_unit_test(test_tree_page),
	    cmocka_unit_test(test_compare),
	    cmocka_unit_test(test_evidence),
	    cmocka_unit_test(test_compare_errors),
	    cmocka_unit_test(test_escaping),
	    cmocka_unit_test(test_static_files),
	    cmocka_unit_test(test_methods_and_unknown_paths),
	    cmocka_unit_test(test_writer_not_blocked),
	    cmocka_unit_test(test_access_log_and_shutdown),
	    cmocka_unit_test(test_refuses_to_start),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
