/*
 * test_web.c - "faultline serve" on a loopback port, asked with libcurl:
 * every page and API endpoint on a store filled by webfixture.h (status,
 * content, JSON that parses): the dashboard's tags and verdicts, jobs in
 * progress and broken machines, revisions by tag, runs with their
 * environment and console log on disk, bisection steps with the build and
 * boot status of their runs, the revert check, the comparison behind a
 * regression; escaping of everything untrusted (commit subjects, consoles,
 * tag names, conflicting files, kernel releases, run details), traversal
 * attempts raw and encoded, 400/404/405, paging, a writer that is not
 * blocked by the server, the access log, and a clean exit on SIGTERM.
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

#include "lib/buf.h"
#include "store/store.h"
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

/* method: NULL for GET, "HEAD", "POST" (with a body), or any other (without). */
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
	else if (method && strcmp(method, "HEAD"))
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
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

/* The element of a JSON array whose member key is the string value. */
static json_t *find(json_t *array, const char *key, const char *value)
{
	size_t i;
	json_t *e;

	json_array_foreach(array, i, e)
	{
		const char *v = json_string_value(json_object_get(e, key));

		if (v && !strcmp(v, value))
			return e;
	}
	print_error("no element with %s '%s'\n", key, value);
	return NULL;
}

static void test_dashboard(void **state)
{
	char needle[300];

	(void)state;
	expect_page("/", 200, "<a href='/tree/mainline'>mainline</a>");
	expect_page("/", 200, "<td class='num' title='v3.17 against v3.17-rc7'>-25.0%</td>");
	expect_page("/", 200, "<a href='/regression/1'>1</a>");
	expect_page("/", 200, "<a href='/bisect/2'>2</a>");
	expect_page("/", 200, "<link rel=\"stylesheet\" href=\"/static/faultline.css\">");
	/* the newest tags, each against its baseline on every (benchmark, machine) */
	expect_page("/", 200, "<th>page_fault2 on numa2</th><th>page_fault2 on numa8</th>");
	expect_page(
	    "/", 200,
	    "<td class='verdict verdict-worse'><a href='/compare?tree=mainline&amp;a=v3.17-rc7&amp;"
	    "b=v3.17&amp;benchmark=page_fault2&amp;machine=numa2'>worse</a> <span "
	    "class='num'>-25.0%</span>");
	expect_page("/", 200, "<a href='/regression/2'>regression 2</a>");
	expect_page("/", 200, ">better</a> <span class='num'>+4.2%</span>");
	expect_page("/", 200, "<td class='verdict verdict-same'>");
	/* the hostile tag is text, and is linked by its sha */
	expect_page("/", 200, "<span class='tag'>v3.18-rc3&lt;i&gt;</span>");
	snprintf(needle, sizeof(needle), "href='/compare?tree=mainline&amp;a=v3.18-rc2&amp;b=%s&amp;",
		 env.w.sha[19]);
	expect_page("/", 200, needle);
	expect_page("/", 200, ">running</a> <small>2 of 6 runs</small>");
	expect_page("/", 200, ">running</a> <small>queued</small>");
	/* jobs in progress: what they are about, state, attempts, progress */
	expect_page("/", 200, "<h2>Jobs in progress</h2>");
	expect_page("/", 200, "<td>mainline v3.18-rc2 &rarr; v3.18-rc3&lt;i&gt;</td>");
	expect_page("/", 200,
		    "<td class='status status-waiting'>waiting</td><td class='num'>0</td>"
		    "<td>2 of 6 runs</td>");
	expect_page("/", 200,
		    "<td class='status status-queued' title='infra-error: libvirt: "
		    "&lt;connection reset&gt;'>queued</td><td class='num'>1</td>");
	snprintf(needle, sizeof(needle), "<a href='/run/%lld'>run %lld</a>",
		 (long long)env.w.active_run, (long long)env.w.active_run);
	expect_page("/", 200, needle);
	/* bisections in progress: commits left and confidence from the newest step */
	snprintf(needle, sizeof(needle),
		 "2 commits left, best <a class='sha' href='/commit/%s' title='%s'><code>%.12s</code>"
		 "</a> p=0.55",
		 env.w.sha[3], env.w.sha[3], env.w.sha[3]);
	expect_page("/", 200, needle);
	/* machines out of the pool */
	expect_page("/", 200,
		    "<strong>numa8</strong> (libvirt): 1 infra errors in a row: <span "
		    "class='error'>libvirt: cannot connect to qemu+ssh://numa8/system: "
		    "&lt;refused&gt;</span>");
	{
		json_t *j = api("/api/", 200), *tags, *v, *jobs, *job;
		char active[32];

		snprintf(active, sizeof(active), "%lld", (long long)env.w.active_run);
		assert_string_equal(json_string_value(json_object_get(
					json_array_get(json_object_get(j, "trees"), 0), "name")),
				    "mainline");
		assert_int_equal(json_array_size(json_object_get(j, "open_regressions")), 2);
		assert_int_equal(json_array_size(json_object_get(j, "running_bisections")), 1);
		assert_int_equal(json_integer_value(json_object_get(
				     json_array_get(json_object_get(j, "active_runs"), 0), "id")),
				 env.w.active_run);
		tags = json_object_get(json_array_get(json_object_get(j, "trees"), 0), "tags");
		assert_int_equal(json_array_size(tags), 5);
		assert_string_equal(
		    json_string_value(json_object_get(json_array_get(tags, 0), "name")),
		    WF_HOSTILE_TAG);
		v = json_object_get(find(tags, "name", "v3.17"), "verdicts");
		assert_string_equal(
		    json_string_value(json_object_get(json_array_get(v, 0), "verdict")), "worse");
		assert_true(
		    fabs(json_real_value(json_object_get(json_array_get(v, 0), "change_pct")) +
			 25) < 1e-6);
		assert_int_equal(
		    json_integer_value(json_object_get(json_array_get(v, 0), "regression")),
		    env.w.reg1);
		assert_string_equal(
		    json_string_value(json_object_get(json_array_get(v, 1), "verdict")), "worse");
		v = json_object_get(find(tags, "name", WF_HOSTILE_TAG), "verdicts");
		assert_string_equal(
		    json_string_value(json_object_get(json_array_get(v, 0), "verdict")), "running");
		assert_int_equal(
		    json_integer_value(json_object_get(json_array_get(v, 0), "runs_done")), 2);
		assert_int_equal(json_integer_value(json_object_get(json_array_get(v, 0), "runs")),
				 6);
		jobs = json_object_get(j, "jobs");
		assert_int_equal(json_array_size(jobs), 6); /* 2 compare jobs, 4 run jobs */
		job = find(jobs, "state", "running");
		assert_int_equal(json_integer_value(json_object_get(job, "run")), env.w.active_run);
		assert_string_equal(json_string_value(json_object_get(job, "role")), "base");
		assert_string_equal(
		    json_string_value(json_object_get(json_object_get(job, "commit"), "sha")),
		    env.w.sha[16]);
		assert_string_equal(
		    json_string_value(json_object_get(
			json_array_get(json_object_get(j, "broken_machines"), 0), "reason")),
		    WF_BROKEN_REASON);
		assert_int_equal(
		    json_integer_value(json_object_get(
			json_object_get(json_array_get(json_object_get(j, "running_bisections"), 0),
					"progress"),
			"commits_left")),
		    2);
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
	assert_int_equal(json_array_size(json_object_get(j, "regressions")), 2);
	/* newest first: regression 2 on numa8, then 1 */
	assert_true(fabs(json_real_value(json_object_get(
			     json_array_get(json_object_get(j, "regressions"), 1), "change_pct")) +
			 25) < 1e-9);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(json_object_get(j, "regressions"), 1), "tag")),
			    "v3.17");
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(json_object_get(j, "regressions"), 1), "baseline")),
			    "v3.17-rc7");
	assert_int_equal(json_integer_value(json_object_get(
			     json_array_get(json_object_get(j, "regressions"), 1), "bisection")),
			 env.w.bisect1);
	json_decref(j);
	expect_page("/regressions", 200, "<td class='tags'>v3.17-rc7 &rarr; v3.17</td>");
}

static void test_jobs(void **state)
{
	json_t *j, *jobs;
	size_t i;
	json_t *e;

	(void)state;
	expect_page("/jobs", 200, "<table class='jobs'>");
	expect_page("/jobs?state=live", 200, "<td class='status status-running'>running</td>");
	expect_page("/jobs?kind=bisect", 200, "<a href='/regression/1'>regression 1</a>");
	expect_page("/jobs?kind=%3Cx%3E", 400, "bad kind");
	/* the kinds are the pipeline's: another name is no filter that finds nothing */
	expect_page(
	    "/jobs?kind=build", 400,
	    "bad kind: no job kind &#39;build&#39; (kinds: compare, bisect, revert, report, "
	    "try, run)");
	expect_page("/jobs?state=failed", 200, "No jobs.");
	j = api("/api/jobs?kind=compare", 200);
	jobs = json_object_get(j, "jobs");
	/* 11 tags on numa2, 2 on numa8 finished and one queued */
	assert_int_equal(json_array_size(jobs), 14);
	json_array_foreach(jobs, i, e)
	    assert_string_equal(json_string_value(json_object_get(e, "kind")), "compare");
	assert_string_equal(
	    json_string_value(json_object_get(find(jobs, "result", "regression"), "tag")), "v3.17");
	json_decref(j);
	j = api("/api/jobs?state=live", 200);
	assert_int_equal(json_array_size(json_object_get(j, "jobs")), 6);
	json_decref(j);
	/* a run job's attempts: the queued one after an infra error */
	j = api("/api/jobs?kind=run&state=queued", 200);
	e = json_array_get(json_object_get(j, "jobs"), 2);
	assert_int_equal(json_integer_value(json_object_get(e, "id")), env.w.queued_run_job);
	assert_int_equal(json_integer_value(json_object_get(e, "attempts")), 1);
	assert_string_equal(json_string_value(json_object_get(e, "error")),
			    "infra-error: libvirt: <connection reset>");
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

	j = api("/api/run/999999", 404);
	assert_non_null(strstr(json_string_value(json_object_get(j, "error")), "no such run"));
	json_decref(j);
	expect_page("/run/999999", 404, "no such run");
	expect_page("/run/abc", 400, "bad id &#39;abc&#39;");
	expect_page("/run/0", 400, "bad id");
	expect_page("/run/-1", 400, "bad id");
	expect_page("/run/99999999999999999999999", 400, "bad id");
	expect_page("/run/", 400, "bad id");
	expect_page("/run/1/nothing", 404, NULL);
	expect_page("/run/1?page=x", 400, "bad page");
}

/* A run through the run path: environment, timings, job, and the console log on disk. */
static void test_run_environment(void **state)
{
	char path[600], *log;
	struct reply r;
	size_t len;
	json_t *j, *e;

	(void)state;
	snprintf(path, sizeof(path), "/run/%lld", (long long)env.w.env_run);
	request(NULL, path, &r);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(
	    r.body.ptr, "<tr><th>kernel release</th><td>3.18.0-rc3-fl&lt;b&gt;x&lt;/b&gt;</td>"));
	assert_non_null(strstr(r.body.ptr, "<tr><th>NUMA nodes</th><td>2</td></tr>"));
	assert_non_null(strstr(r.body.ptr, "<tr><th>CPUs</th><td>4</td></tr>"));
	assert_non_null(strstr(r.body.ptr, "<tr><th>accelerator</th><td>tcg</td></tr>"));
	assert_non_null(
	    strstr(r.body.ptr, "<tr><th>note</th><td>&lt;i&gt;guest&lt;/i&gt;</td></tr>"));
	assert_non_null(strstr(r.body.ptr, "<tr><th>boot to the agent</th><td>41.0 s</td></tr>"));
	assert_non_null(strstr(r.body.ptr, "<tr><th>first sample</th><td>47.5 s</td></tr>"));
	assert_non_null(strstr(r.body.ptr, "<tr><th>total</th><td>95.2 s</td></tr>"));
	assert_non_null(strstr(r.body.ptr, "<dt>label</dt><dd>new v3.18-rc3&lt;i&gt; run 1</dd>"));
	assert_non_null(strstr(r.body.ptr, ": run new, attempt 1, done (for job "));
	/* the console is the end of the log on disk, whole lines, escaped */
	assert_non_null(strstr(r.body.ptr,
			       "fl-agent: &lt;script&gt;alert(&#39;tail&#39;)&lt;/script&gt; &amp; "
			       "done\nWF-LAST-LINE\n</pre>"));
	assert_null(strstr(r.body.ptr, "WF-FIRST-LINE"));
	assert_null(strstr(r.body.ptr, "stored tail"));
	assert_non_null(strstr(r.body.ptr, "<pre class='console'>[ "));
	assert_null(strstr(r.body.ptr, "<script"));
	done(&r);

	snprintf(path, sizeof(path), "%s/var/runs/%lld/console.log", env.dir,
		 (long long)env.w.env_run);
	log = wf_slurp(path, &len);
	assert_non_null(log);
	snprintf(path, sizeof(path), "/run/%lld/console", (long long)env.w.env_run);
	request(NULL, path, &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.type, "text/plain; charset=utf-8");
	assert_int_equal(r.body.len, len);
	assert_memory_equal(r.body.ptr, log, len);
	assert_true(len > 65536);
	done(&r);
	free(log);

	snprintf(path, sizeof(path), "/api/run/%lld", (long long)env.w.env_run);
	j = api(path, 200);
	e = json_object_get(j, "environment");
	assert_string_equal(json_string_value(json_object_get(e, "kernel_release")),
			    WF_KERNEL_RELEASE);
	assert_int_equal(json_integer_value(json_object_get(e, "nodes")), 2);
	assert_int_equal(json_integer_value(json_object_get(e, "cpus")), 4);
	assert_string_equal(json_string_value(json_object_get(e, "accel")), "tcg");
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(e, "guest"), "memory_mib")), 4096);
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(e, "timings_ms"), "agent")) -
		json_integer_value(json_object_get(json_object_get(e, "timings_ms"), "created")),
	    41000);
	assert_true(json_is_true(json_object_get(j, "console_from_file")));
	assert_int_equal(json_integer_value(json_object_get(j, "console_length")), (json_int_t)len);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "commit"), "sha")),
			    env.w.sha[19]);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(j, "job_detail"), "role")), "new");
	json_decref(j);
	snprintf(path, sizeof(path), "/api/run/%lld/console", (long long)env.w.env_run);
	j = api(path, 200);
	assert_int_equal(strlen(json_string_value(json_object_get(j, "console"))), len);
	json_decref(j);
}

/* A stored console_path that is not a run's console is never opened; the detail is escaped. */
static void test_run_console_path_refused(void **state)
{
	char path[64];
	struct reply r;

	(void)state;
	snprintf(path, sizeof(path), "/run/%lld", (long long)env.w.panic_run);
	request(NULL, path, &r);
	assert_int_equal(r.status, 200);
	assert_null(strstr(r.body.ptr, "root:x:0:0"));
	assert_non_null(strstr(r.body.ptr, "<span class='status status-panic'>panic</span>: <span "
					   "class='detail'>Kernel panic - not syncing: "
					   "&lt;b&gt;Fatal&lt;/b&gt; exception</span>"));
	assert_non_null(strstr(r.body.ptr, "<pre class='console'>[    1.2] Kernel panic"));
	done(&r);
	snprintf(path, sizeof(path), "/run/%lld/console", (long long)env.w.panic_run);
	request(NULL, path, &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body.ptr, "[    1.2] " WF_PANIC "\n");
	done(&r);
}

static void test_bisect_page(void **state)
{
	struct reply r;
	json_t *j, *steps;

	(void)state;
	request(NULL, "/bisect/1", &r);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, "<h1>Bisection 1: culprit</h1>"));
	assert_non_null(strstr(r.body.ptr, "<p class='culprit'>Culprit: <a class='sha' "
					   "href='/commit/05b843012335"));
	assert_non_null(strstr(r.body.ptr, WF_CULPRIT_SUBJECT));
	/* where the culprit is, from the summary's path, escaped */
	assert_non_null(strstr(r.body.ptr, "<p class='where'>in the branch merged by "
					   "&lt;b&gt;cafe&lt;/b&gt;</p>"));
	assert_non_null(strstr(r.body.ptr, "<figure class='plot confidence'><svg"));
	assert_non_null(strstr(r.body.ptr, "<figure class='plot strip'><svg"));
	assert_non_null(strstr(r.body.ptr, "05b8430 bad"));
	assert_non_null(strstr(r.body.ptr, "<a href='/regression/1'>1</a>"));
	assert_non_null(strstr(r.body.ptr, "<td class='num'>0.970</td>") ||
			strstr(r.body.ptr, "<dd>0.970</dd>"));
	done(&r);
	j = api("/api/bisect/1", 200);
	steps = json_object_get(j, "steps");
	assert_int_equal(json_array_size(steps), 7);
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
	expect_page("/bisect/2", 200, "<dt>progress</dt><dd>2 commits left, best");
	expect_page("/bisect/4", 404, "no such bisection");
	expect_page("/bisect/x1", 400, "bad id");
}

/* Each step's run job: the build and boot status of every attempt, linked; the verification and
 * the revert check. */
static void test_bisect_steps_and_revert(void **state)
{
	char needle[300];
	struct reply r;
	json_t *j, *steps, *job, *v;

	(void)state;
	request(NULL, "/bisect/1", &r);
	assert_int_equal(r.status, 200);
	snprintf(needle, sizeof(needle),
		 "<td class='runs'><a class='status status-panic' href='/run/%lld' title='Kernel "
		 "panic - not syncing: &lt;b&gt;Fatal&lt;/b&gt; exception'>panic</a> &rarr; <a "
		 "class='status status-ok' href='/run/",
		 (long long)env.w.panic_run);
	assert_non_null(strstr(r.body.ptr, needle));
	assert_non_null(strstr(r.body.ptr,
			       "<td class='runs'><span class='status status-untestable'>untestable"
			       "</span>: <span class='detail'>mm/memcontrol.c:1234:5: error: "
			       "&#39;res_counter&#39; undeclared &lt;here&gt;</span></td>"));
	assert_non_null(strstr(r.body.ptr, ">boot-failed</a> &rarr; <a class='status "
					   "status-timeout' href='/run/"));
	assert_non_null(strstr(r.body.ptr, "<td>verify</td>"));
	assert_non_null(strstr(r.body.ptr,
			       "<h2>Verification</h2>\n<p>The culprit against its "
			       "parent, on the bisection's own runs of the two: 25.0% worse; 7 runs "
			       "in all over 5 of 5 commits"));
	/* steps count from 1, as the log and the report count them: the 7th is step 7 */
	assert_non_null(strstr(r.body.ptr, "<a href='#step-7'>step 7</a>"));
	assert_null(strstr(r.body.ptr, "id='step-0'"));
	assert_non_null(strstr(r.body.ptr, "does not revert cleanly"));
	assert_non_null(
	    strstr(r.body.ptr, "<li><code>include/linux/&lt;res_counter&gt;.h</code></li>"));
	assert_null(strstr(r.body.ptr, "<res_counter>"));
	assert_null(strstr(r.body.ptr, "<here>"));
	done(&r);
	j = api("/api/bisect/1", 200);
	steps = json_object_get(j, "steps");
	job = json_object_get(json_array_get(steps, 1), "job");
	assert_int_equal(json_integer_value(json_object_get(job, "attempts")), 2);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(json_object_get(job, "runs"), 0), "status")),
			    "panic");
	assert_int_equal(json_integer_value(json_object_get(
			     json_array_get(json_object_get(job, "runs"), 0), "id")),
			 env.w.panic_run);
	job = json_object_get(json_array_get(steps, 2), "job");
	assert_string_equal(json_string_value(json_object_get(job, "result")), "untestable");
	assert_string_equal(json_string_value(json_object_get(job, "error")), WF_BUILD_ERROR);
	assert_int_equal(json_array_size(json_object_get(job, "runs")), 0);
	job = json_object_get(json_array_get(steps, 3), "job");
	assert_int_equal(json_array_size(json_object_get(job, "runs")), 3);
	assert_int_equal(
	    json_integer_value(json_object_get(json_array_get(steps, 3), "commits_left")), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(steps, 6), "phase")),
			    "verify");
	v = json_object_get(j, "revert");
	assert_string_equal(json_string_value(json_object_get(v, "state")), "conflict");
	assert_string_equal(json_string_value(json_array_get(json_object_get(v, "conflicts"), 1)),
			    WF_CONFLICT_FILE);
	assert_true(
	    fabs(json_real_value(json_object_get(json_object_get(j, "summary"), "change_pct")) -
		 25) < 1e-9);
	json_decref(j);
	/* regression 2's bisection: the revert applied, measured, with its comparison */
	expect_page("/bisect/3", 200,
		    "<span class='revert-state revert-applied'>applies cleanly</span>; measured: "
		    "<strong class='revert-verdict'>restores</strong>");
	expect_page("/bisect/3", 200, "kept as <code>refs/faultline/revert/2</code>");
	expect_page("/bisect/3", 200, "<td class='num change better'>+33.3%</td>");
	j = api("/api/bisect/3", 200);
	v = json_object_get(j, "revert");
	assert_string_equal(json_string_value(json_object_get(v, "verdict")), "restores");
	assert_int_equal(json_array_size(json_object_get(v, "comparisons")), 2);
	json_decref(j);
	j = api("/api/bisect/2", 200);
	assert_true(json_is_null(json_object_get(j, "revert")));
	assert_true(
	    json_is_null(json_object_get(json_array_get(json_object_get(j, "steps"), 0), "job")));
	json_decref(j);
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
	/* the lists show each regression's culprit, linked to its commit (issue 23) */
	expect_page("/regressions", 200,
		    "<th>culprit</th>");
	expect_page("/regressions", 200,
		    "<td class='commit'><a class='sha' href='/commit/05b843012335");
	expect_page("/", 200, "<td class='commit'><a class='sha' href='/commit/05b843012335");
	expect_page("/regression/1", 200, "<a href='/bisect/1'>1</a>");
	expect_page("/regression/1", 200,
		    "href='/compare?tree=mainline&amp;a=v3.17-rc7&amp;b=v3.17&amp;benchmark="
		    "page_fault2&amp;machine=numa2'");
	expect_page("/regression/1", 200,
		    "<dt>tags</dt><dd>v3.17 against its baseline v3.17-rc7</dd>");
	expect_page("/regression/1", 200, "<h2>The comparison that found it</h2>");
	expect_page("/regression/1", 200,
		    "<tr class='primary'><td>threads.ops_per_sec.4</td><td class='num'>3+3</td>");
	expect_page("/regression/1", 200, "<td class='num change worse'>-25.0%</td>");
	expect_page("/regression/1", 200, "<span class='role'>base</span>");
	expect_page("/regression/1", 200,
		    "<li><code>include/linux/&lt;res_counter&gt;.h</code></li>");
	expect_page("/regression/1", 200, "<a href='/bisect/1'>the bisection</a>");
	expect_page("/regression/2", 200, "<strong class='revert-verdict'>restores</strong>");
	expect_page("/report/2", 200, "&lt;r1@faultline&gt;");
	expect_page("/regression/3", 404, "no such regression");
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
	assert_int_equal(json_array_size(json_object_get(j, "comparison")), 6);
	assert_int_equal(json_array_size(json_object_get(j, "runs")), 3);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(j, "revert"), "state")), "conflict");
	assert_string_equal(json_string_value(json_object_get(j, "tag")), "v3.17");
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
	/* positions are the tested tags, in version order, named by the tag */
	j = api("/api/tree/mainline", 200);
	assert_string_equal(json_string_value(json_object_get(j, "by")), "tag");
	assert_string_equal(json_string_value(json_object_get(j, "metric")), "ops_per_sec");
	assert_int_equal(json_integer_value(json_object_get(j, "tasks")), 4);
	pts = json_object_get(j, "points");
	assert_int_equal(json_array_size(pts), WF_NTAGS);
	for (size_t i = 0; i < WF_NTAGS; i++) {
		assert_string_equal(
		    json_string_value(json_object_get(json_array_get(pts, i), "tag")), wf_tags[i]);
		assert_string_equal(json_string_value(json_object_get(
					json_object_get(json_array_get(pts, i), "commit"), "sha")),
				    env.w.sha[wf_tag_at[i]]);
	}
	cps = json_object_get(j, "change_points");
	assert_int_equal(json_array_size(cps), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(cps, 0), "index")),
			 WF_REG_TAG);
	assert_string_equal(json_string_value(json_object_get(json_array_get(cps, 0), "tag")),
			    "v3.17");
	assert_true(fabs(json_real_value(json_object_get(json_array_get(cps, 0), "change_pct")) +
			 25) < 0.1);
	assert_string_equal(
	    json_string_value(json_object_get(
		json_object_get(json_array_get(json_object_get(j, "tags"), 0), "commit"), "sha")),
	    env.w.sha[19]);
	json_decref(j);
	expect_page("/tree/mainline", 200, "<h2>Tags</h2>");
	expect_page("/tree/mainline", 200, ">v3.18-rc2</text>");
	expect_page("/tree/mainline", 200,
		    "<td class='commit'><span class='tag'>v3.18-rc3&lt;i&gt;</span>");
	expect_page("/tree/mainline", 200,
		    "<a href='/compare?tree=mainline&amp;a=v3.17-rc7&amp;b=v3.17&amp;benchmark="
		    "page_fault2&amp;machine=numa2'>compare with previous</a>");
	expect_page("/tree/mainline", 200, "<td class='tag'>v3.18-rc3&lt;i&gt;</td>");
	expect_page("/tree/mainline", 200, "page_fault2 on numa2: worse</span> -25.0%");
	expect_page("/tree/mainline", 200,
		    "<a href='/tree/mainline?benchmark=page_fault2&amp;"
		    "machine=numa2&amp;metric=ops_per_sec&amp;mode=processes&amp;"
		    "tasks=4&amp;by=commit'>by commit</a>");
	/* by commit: every commit with runs, oldest first */
	j = api("/api/tree/mainline?by=commit", 200);
	assert_string_equal(json_string_value(json_object_get(j, "by")), "commit");
	pts = json_object_get(j, "points");
	assert_int_equal(json_array_size(pts), WF_NCOMMITS);
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(json_array_get(pts, 0), "commit"), "sha")),
			    env.w.sha[0]);
	assert_true(json_is_null(json_object_get(json_array_get(pts, 0), "tag")));
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
	/* every tag fits on page 1; page 2 is empty */
	j = api("/api/tree/mainline?by=tag", 200);
	assert_true(json_is_false(json_object_get(j, "more")));
	json_decref(j);
	j = api("/api/tree/mainline?page=2&by=tag", 200);
	assert_int_equal(json_array_size(json_object_get(j, "points")), 0);
	json_decref(j);
	expect_page("/tree/mainline?by=nope", 400, "bad by &#39;nope&#39;");
	expect_page("/tree/nope", 404, "tree &#39;nope&#39;");
	expect_page("/tree/mainline?tasks=abc", 400, "bad tasks");
	expect_page("/tree/mainline?machine=nope", 200, "Nothing measured");
	expect_page("/tree/", 400, "bad tree name");
}

/* A tag the watch service saw names its commit in a URL; shas and prefixes still do. */
static void test_revisions_by_tag(void **state)
{
	char path[300];
	struct reply r;

	(void)state;
	request(NULL, "/api/compare?a=v3.17-rc7&b=v3.17&benchmark=page_fault2&machine=numa2", &r);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, env.w.sha[7]));
	assert_non_null(strstr(r.body.ptr, env.w.sha[11]));
	done(&r);
	/* a baseline name (v3.16 is a skipped tag and rc1's baseline) */
	request(NULL, "/api/compare?a=v3.16&b=v3.17-rc1&benchmark=page_fault2&machine=numa2", &r);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, env.w.sha[0]));
	assert_non_null(strstr(r.body.ptr, env.w.sha[1]));
	done(&r);
	snprintf(path, sizeof(path),
		 "/compare?a=v3.17-rc7&b=%.8s&benchmark=page_fault2&machine=numa2", env.w.sha[11]);
	expect_page(path, 200, "<table class='compare'>");
	expect_page("/compare?a=v3.17-rc8&b=v3.17&benchmark=page_fault2&machine=numa2", 404,
		    "unknown revision &#39;v3.17-rc8&#39;: no tested tag has this name");
	expect_page("/compare?a=release/v1&b=v3.17&benchmark=page_fault2&machine=numa2", 404,
		    "unknown revision &#39;release/v1&#39;");
	expect_page("/compare?a=v3.17/../x&b=v3.17&benchmark=page_fault2&machine=numa2", 400,
		    "bad revision");
	expect_page("/compare?a=/v3.17&b=v3.17&benchmark=page_fault2&machine=numa2", 400,
		    "bad revision");
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
	    strstr(r.body.ptr,
		   "<figure class='plot scalability' data-mode='processes' data-cgroup='root'>"));
	assert_non_null(
	    strstr(r.body.ptr,
		   "<figure class='plot scalability' data-mode='threads' data-cgroup='root'>"));
	assert_null(strstr(r.body.ptr, "data-cgroup='child'"));
	assert_non_null(
	    strstr(r.body.ptr, "<g class='series' data-label='05b843012335'>"));
	assert_non_null(strstr(r.body.ptr, "<table class='compare'>"));
	assert_non_null(strstr(r.body.ptr, "-25.0%"));
	assert_non_null(strstr(r.body.ptr, "page_fault2.threads.ops_per_sec"));
	assert_non_null(strstr(r.body.ptr, "href='/compare?tree=mainline&amp;a=c007"));
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
			base += wf_run_mean(WF_CULPRIT - 1, mode, tasks, run) / WF_RUNS;
			new_ += wf_run_mean(WF_CULPRIT, mode, tasks, run) / WF_RUNS;
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
 * A point measured in a child memory cgroup too: commits 12 and 13 get
 * threads samples in the child context at half the root's values, level
 * across the two commits while the root's moved. The compare page plots the
 * child apart and has its rows (cgroup "child", no change); the run page
 * keeps the child's point apart from the root's; the tree page's series
 * stays the root's.
 */
/* The first run of a commit (the fixture's runs belong to its builds). */
static long long first_run(const char *db, int64_t commit)
{
	char q[160];

	snprintf(q, sizeof(q),
		 "SELECT min(r.id) FROM runs r JOIN builds b ON b.id = r.build_id WHERE "
		 "b.commit_id = %lld",
		 (long long)commit);
	return fl_test_sql_int(db, q);
}

#define TREE_THREADS_4                                                                             \
	"/api/tree/mainline?benchmark=page_fault2&machine=numa2&metric=ops_per_sec&mode=threads&"  \
	"tasks=4&by=commit"
static void test_compare_cgroup(void **state)
{
	char db[700], path[512];
	json_t *j, *rows;
	struct reply r;
	size_t nchild = 0;
	char *tree_before, *tree_after;

	(void)state;
	snprintf(db, sizeof(db), "%s/fl.db", env.dir);
	j = api(TREE_THREADS_4, 200);
	tree_before = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(j);
	for (int k = 0; k < 2; k++) {
		char sql[1024];

		snprintf(sql, sizeof(sql),
			 "INSERT INTO samples(run_id, metric, mode, tasks, cgroup, seq, value) "
			 "SELECT s.run_id, s.metric, s.mode, s.tasks, 'child', s.seq, 1000 + s.seq "
			 "FROM samples s JOIN runs r ON r.id = s.run_id JOIN builds b ON "
			 "b.id = r.build_id WHERE b.commit_id = %lld AND s.mode = 'threads'",
			 (long long)env.w.commit[12 + k]);
		assert_int_equal(wf_sql(db, sql), 0);
	}
	snprintf(path, sizeof(path),
		 "/api/compare?a=%.12s&b=%.12s&benchmark=page_fault2&machine=numa2", env.w.sha[12],
		 env.w.sha[13]);
	j = api(path, 200);
	rows = json_object_get(j, "rows");
	assert_int_equal(json_array_size(rows), 9);
	for (size_t i = 0; i < json_array_size(rows); i++) {
		json_t *row = json_array_get(rows, i);

		if (strcmp(json_string_value(json_object_get(row, "cgroup")), "child"))
			continue;
		nchild++;
		assert_string_equal(json_string_value(json_object_get(row, "mode")), "threads");
		assert_true(fabs(json_real_value(json_object_get(row, "base")) - 1001) < 1e-9);
		assert_true(fabs(json_real_value(json_object_get(row, "change_pct"))) < 1e-9);
	}
	assert_int_equal(nchild, 3);
	json_decref(j);

	snprintf(path, sizeof(path), "/compare?a=%.12s&b=%.12s&benchmark=page_fault2&machine=numa2",
		 env.w.sha[12], env.w.sha[13]);
	request(NULL, path, &r);
	assert_int_equal(r.status, 200);
	assert_non_null(
	    strstr(r.body.ptr,
		   "<figure class='plot scalability' data-mode='threads' data-cgroup='child'>"));
	assert_non_null(strstr(r.body.ptr, "threads in a child, ops_per_sec"));
	assert_non_null(strstr(r.body.ptr, "<td class='num'>4</td><td>child</td>"));
	assert_non_null(strstr(r.body.ptr, "<td class='num'>4</td><td>root</td>"));
	done(&r);

	/* the run page: the child's point apart (6 root points, 3 child ones) */
	snprintf(path, sizeof(path), "/api/run/%lld", first_run(db, env.w.commit[13]));
	j = api(path, 200);
	rows = json_object_get(j, "points");
	assert_int_equal(json_array_size(rows), 9);
	nchild = 0;
	for (size_t i = 0; i < json_array_size(rows); i++)
		nchild += !strcmp(
		    json_string_value(json_object_get(json_array_get(rows, i), "cgroup")), "child");
	assert_int_equal(nchild, 3);
	json_decref(j);

	/* the tree page's series is the root's: the child's values are not in it */
	j = api(TREE_THREADS_4, 200);
	tree_after = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(j);
	assert_string_equal(tree_before, tree_after);
	free(tree_before);
	free(tree_after);
	assert_int_equal(wf_sql(db, "DELETE FROM samples WHERE cgroup = 'child'"), 0);
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
	run = first_run(db, env.w.commit[3]);
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

/* Lock contention and per-node rows on top of test_evidence's points: the
 * compare page's tables (root_usage only in new, on top; a name from the
 * guest escaped), the JSON, and the run page's per-point locks table. */
static void test_lock_evidence(void **state)
{
	char db[700], sql[4096], path[512];
	json_t *j, *a, *row;
	struct reply r;
	int64_t run;

	(void)state;
	snprintf(db, sizeof(db), "%s/fl.db", env.dir);
	for (int k = 0; k < 2; k++) {
		long long commit = (long long)env.w.commit[2 + k];
		const char *pts = "SELECT p.id FROM evidence_points p JOIN runs r ON r.id = p.run_id "
				  "JOIN builds b ON b.id = r.build_id WHERE b.commit_id = ";

		snprintf(sql, sizeof(sql),
			 "UPDATE evidence_points SET locks = 'recorded', vmstat_missing = "
			 "'nr_tlb_remote_flush' WHERE id IN (%s%lld);"
			 "INSERT INTO evidence_locks SELECT id, 'do_<evil>', 'caller', 50, 50, "
			 "1000000, 9000, '50 do_<evil> <- handle_mm_fault' FROM (%s%lld);"
			 "INSERT INTO evidence_locks SELECT id, 'root_usage', 'symbol', 40000, 40000, "
			 "2000000000, 318000, '23442 root_usage_update <- charge_memcg' FROM (%s%lld) "
			 "WHERE %d;"
			 "INSERT INTO evidence_vmstat SELECT id, 'numa-numastat.node0.numa_hit', 5, %d "
			 "FROM (%s%lld);"
			 "INSERT INTO evidence_vmstat SELECT id, 'numa.node0.tasks', 2, 2 FROM (%s%lld);",
			 pts, commit, pts, commit, pts, commit, k, k ? 600 : 1000, pts, commit, pts,
			 commit);
		assert_int_equal(wf_sql(db, sql), 0);
	}
	snprintf(path, sizeof(path),
		 "/api/compare?a=%.12s&b=%.12s&benchmark=page_fault2&machine=numa2", env.w.sha[2],
		 env.w.sha[3]);
	j = api(path, 200);
	a = json_object_get(j, "locks");
	assert_int_equal(json_array_size(a), 3); /* root_usage's three rows; do_<evil> level */
	row = json_array_get(a, 0);
	assert_string_equal(json_string_value(json_object_get(row, "lock")), "root_usage");
	assert_string_equal(json_string_value(json_object_get(row, "what")),
			    "root_usage.contentions");
	assert_true(fabs(json_real_value(json_object_get(row, "new")) - 8000) < 1e-9);
	assert_string_equal(json_string_value(json_object_get(row, "chains")),
			    "23442 root_usage_update <- charge_memcg");
	a = json_object_get(j, "nodes");
	assert_int_equal(json_array_size(a), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(a, 0), "what")),
			    "numa-numastat.node0.numa_hit");
	assert_true(fabs(json_real_value(json_object_get(json_array_get(a, 0), "change_pct")) +
			 40) < 1e-9);
	json_decref(j);

	snprintf(path, sizeof(path), "/compare?a=%.12s&b=%.12s&benchmark=page_fault2&machine=numa2",
		 env.w.sha[2], env.w.sha[3]);
	request(NULL, path, &r);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, "<h2>Lock contention</h2>\n<table class='deltas locks'>"));
	assert_non_null(strstr(r.body.ptr, "<tr><td><code>root_usage</code></td><td>threads</td>"
					   "<td class='num'>4</td>"));
	assert_non_null(strstr(r.body.ptr, "<pre>23442 root_usage_update &lt;- charge_memcg\n"
					   "</pre>"));
	assert_null(strstr(r.body.ptr, "do_<evil>"));
	assert_non_null(strstr(r.body.ptr, "<h2>Per NUMA node</h2>"));
	assert_non_null(strstr(r.body.ptr, "<td>numa-numastat.node0.numa_hit</td>"));
	assert_null(strstr(r.body.ptr, "<td>numa.node0.tasks</td>")); /* did not change */
	done(&r);

	run = first_run(db, env.w.commit[3]);
	snprintf(path, sizeof(path), "/run/%lld", (long long)run);
	request(NULL, path, &r);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, "<table class='locks'>"));
	assert_non_null(strstr(r.body.ptr, "<tr><td><code>root_usage</code></td><td>symbol</td>"
					   "<td class='num'>40000</td>"));
	assert_non_null(strstr(r.body.ptr, "<tr><td><code>do_&lt;evil&gt;</code></td>"));
	assert_null(strstr(r.body.ptr, "do_<evil>"));
	assert_non_null(strstr(r.body.ptr, "Counters this kernel does not have: nr_tlb_remote_flush"));
	assert_non_null(strstr(r.body.ptr, "<table class='vmstat nodes'>"));
	done(&r);
	snprintf(path, sizeof(path), "/api/run/%lld", (long long)run);
	j = api(path, 200);
	row = json_array_get(json_object_get(j, "evidence"), 0);
	assert_string_equal(json_string_value(json_object_get(row, "locks_status")), "recorded");
	assert_int_equal(json_array_size(json_object_get(row, "locks")), 2);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(json_object_get(row, "locks"), 0), "lock")),
			    "root_usage");
	json_decref(j);
}

static void test_compare_errors(void **state)
{
	json_t *j;

	(void)state;
	expect_page("/compare", 200, "<form class='compare'");
	expect_page("/compare?a=c007", 400, "missing parameter &#39;b&#39;");
	/* left out, the configuration's only machine, as faultline compare takes it */
	expect_page("/compare?a=c007&b=c009&benchmark=page_fault2", 200,
		    "<h1>page_fault2 on numa2: c009 against c007</h1>");
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

/* Every untrusted field the service stores is text wherever it is shown. */
static void test_escaping_service_fields(void **state)
{
	static const char *const raw[] = {"<script", "<i>",	  "<b>",	 "<res_counter>",
					  "<here>",  "<refused>", "<connection", "<early>",
					  "</b>",    NULL};
	const char *pages[] = {"/",
			       "/jobs",
			       "/jobs?state=live",
			       "/bisect/1",
			       "/regression/1",
			       "/regression/2",
			       "/tree/mainline",
			       "/runs",
			       "/regressions",
			       "/bisections",
			       NULL,
			       NULL,
			       NULL};
	char run[64], panic[64];

	(void)state;
	snprintf(run, sizeof(run), "/run/%lld", (long long)env.w.env_run);
	snprintf(panic, sizeof(panic), "/run/%lld", (long long)env.w.panic_run);
	pages[10] = run;
	pages[11] = panic;
	for (int i = 0; pages[i]; i++) {
		struct reply r;

		request(NULL, pages[i], &r);
		assert_int_equal(r.status, 200);
		for (int k = 0; raw[k]; k++)
			if (strstr(r.body.ptr, raw[k])) {
				print_error("%s shows '%s' unescaped\n", pages[i], raw[k]);
				fail();
			}
		done(&r);
	}
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
	/* under /api/ every answer is JSON, errors too (issue 23) */
	for (int i = 0; i < 4; i++) {
		static const char *const method[] = {"POST", "DELETE", NULL, NULL};
		static const char *const path[] = {"/api/runs", "/api/regression/1", "/api/nothing",
						   "/api/run/x"};
		static const long status[] = {405, 405, 404, 400};
		json_error_t e;
		json_t *j;

		request(method[i], path[i], &r);
		assert_int_equal(r.status, status[i]);
		assert_non_null(strstr(r.head.ptr, "Content-Type: application/json"));
		j = json_loads(r.body.ptr, 0, &e);
		if (!j)
			print_error("%s %s: not JSON: %s\n", method[i] ? method[i] : "GET", path[i],
				    r.body.ptr);
		assert_non_null(j);
		assert_non_null(json_string_value(json_object_get(j, "error")));
		json_decref(j);
		done(&r);
	}
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
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	assert_int_equal(fl_store_tx_begin(st), 0);
	assert_int_equal(fl_store_run_create(st, &ri, &id), 0);
	assert_int_equal(fl_store_tx_commit(st), 0);
	fl_store_free(st);
	j = api("/api/runs?benchmark=page_fault3", 200);
	assert_int_equal(json_array_size(json_object_get(j, "runs")), 1);
	assert_int_equal(json_integer_value(
			     json_object_get(json_array_get(json_object_get(j, "runs"), 0), "id")),
			 id);
	json_decref(j);
}

/* The same tag on different commits in two trees is ambiguous; on the same commit it is not. */
static void test_tag_in_two_trees(void **state)
{
	struct fl_commit_info c = {"5ab1e00000000000000000000000000000000017", "stable: a backport",
				   "B. Maintainer", WF_T0};
	struct fl_watch_tag_new t = {0, "v3.17", 0, NULL, 0, "skipped", NULL, NULL, NULL};
	int64_t tree, id;
	char db[300];
	fl_store *st;

	(void)state;
	snprintf(db, sizeof(db), "%s/fl.db", env.dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	assert_int_equal(fl_store_tree_ensure(st, "stable", "/srv/stable.git", &tree), 0);
	t.tree_id = tree;
	/* v3.18-rc1 on the same commit as in mainline */
	t.tag = "v3.18-rc1";
	t.commit_id = env.w.commit[13];
	assert_int_equal(fl_store_watch_tag_add(st, &t, &id), 0);
	assert_int_equal(fl_store_commit_ensure(st, tree, &c, &t.commit_id), 0);
	t.tag = "v3.17";
	assert_int_equal(fl_store_watch_tag_add(st, &t, &id), 0);
	fl_store_free(st);
	expect_page("/compare?a=v3.17-rc7&b=v3.17&benchmark=page_fault2&machine=numa2", 400,
		    "ambiguous revision &#39;v3.17&#39;");
	expect_page("/compare?a=v3.17-rc7&b=v3.18-rc1&benchmark=page_fault2&machine=numa2", 200,
		    "<table class='compare'>");
	/* the tree named: mainline's tags, whatever stable calls its commits (issue 23) */
	expect_page("/compare?tree=mainline&a=v3.17-rc7&b=v3.17&benchmark=page_fault2&machine=numa2",
		    200, "<table class='compare'>");
	expect_page("/compare?tree=stable&a=v3.17-rc7&b=v3.17&benchmark=page_fault2&machine=numa2",
		    404, "unknown revision &#39;v3.17-rc7&#39; in tree stable");
	/* and the links the pages make name it */
	expect_page("/", 200, "href='/compare?tree=mainline&amp;a=v3.17-rc7&amp;b=v3.17&amp;");
	expect_page("/regression/1", 200,
		    "href='/compare?tree=mainline&amp;a=v3.17-rc7&amp;b=v3.17&amp;");
}

/* A bare-metal box's run: no guest was created, and its memory has a unit (issue 23). */
static void test_baremetal_run_page(void **state)
{
	int64_t t0 = (WF_T0 + 3600 * 20) * 1000, box, id;
	struct fl_run_guest g = {NULL, NULL,
				 "{\"hostname\":\"box1\",\"cpus\":8,\"nodes\":2,"
				 "\"memory\":25276071936}",
				 NULL, t0};
	struct fl_run_end e = {"timeout", "no records", NULL, 2, 8, "6.1.0-box", t0 + 30000, 0,
			       t0 + 60000, NULL, 0};
	struct fl_run_new rn = {0,    0,    env.w.commit[19], "page_fault2", "{}",
				NULL, NULL, "box run",	      0};
	char db[300], path[64];
	fl_store *st;

	(void)state;
	snprintf(db, sizeof(db), "%s/fl.db", env.dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	assert_int_equal(fl_store_machine_ensure(st, "box1", "baremetal", &box), 0);
	rn.machine_id = box;
	assert_int_equal(fl_store_run_start(st, &rn, &id), 0);
	assert_int_equal(fl_store_run_guest(st, id, &g), 0);
	assert_int_equal(fl_store_run_end(st, id, &e), 0);
	fl_store_free(st);
	snprintf(path, sizeof(path), "/run/%lld", (long long)id);
	expect_page(path, 200, "<tr><th>job handed to the box</th>");
	expect_page(path, 200, "<tr><th>to the agent&#39;s first record</th><td>30.0 s</td>");
	expect_page(path, 200, "<h3>Machine</h3>");
	expect_page(path, 200, "<td class='size'>23.5 GiB (25276071936 bytes)</td>");
	{
		struct reply r;

		request(NULL, path, &r);
		assert_null(strstr(r.body.ptr, "guest created"));
		assert_null(strstr(r.body.ptr, "<td>25276071936</td>"));
		done(&r);
	}
	/* a guest's run still says so, and its memory_mib has a unit too */
	snprintf(path, sizeof(path), "/run/%lld", (long long)env.w.env_run);
	expect_page(path, 200, "<tr><th>guest created</th>");
	expect_page(path, 200, "<td class='size'>4.00 GiB (4294967296 bytes)</td>");
}

/* Text of 40 hex digits (a whole sha shown as text, not in a title or link): its start, or NULL. */
static const char *full_sha_text(const char *html)
{
	for (const char *p = strchr(html, '>'); p; p = strchr(p + 1, '>')) {
		size_t n = strspn(p + 1, "0123456789abcdef");

		if (n >= 40)
			return p + 1;
	}
	return NULL;
}

/* Tables show 12-digit shas, the whole one in the title and the link (issue 23). */
static void test_short_shas(void **state)
{
	static const char *const pages[] = {"/",	   "/regressions", "/bisections", "/bisect/1",
					    "/bisect/2", "/regression/1", "/regression/2", "/jobs",
					    "/runs",	   "/tree/mainline?by=commit"};
	struct reply r;

	(void)state;
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		const char *at;

		request(NULL, pages[i], &r);
		assert_int_equal(r.status, 200);
		if ((at = full_sha_text(r.body.ptr)))
			print_error("%s shows a whole sha: %.80s\n", pages[i], at);
		assert_null(at);
		done(&r);
	}
}

/*
 * One regression, one headline: its stored change, the same on the
 * dashboard (the tag's verdict and the open regressions), its page, its
 * bisection's page and the compare page it links to, each saying what it
 * compares; the compare page says which runs it pools (issue 23).
 */
static void test_one_headline(void **state)
{
	char db[300], path[300], needle[300];
	json_t *j;

	(void)state;
	snprintf(db, sizeof(db), "%s/fl.db", env.dir);
	/* a stored change no row of the comparison has */
	assert_int_equal(wf_sql(db, "UPDATE regressions SET change = -26.4 WHERE id = 1"), 0);
	expect_page("/", 200, ">worse</a> <span class='num'>-26.4%</span>");
	expect_page("/", 200, "<td class='num' title='v3.17 against v3.17-rc7'>-26.4%</td>");
	expect_page("/regressions", 200, "title='v3.17 against v3.17-rc7'>-26.4%</td>");
	expect_page("/regression/1", 200,
		    "<span class='headline'><strong class='num change regression'>-26.4%</strong> "
		    "v3.17 against v3.17-rc7, page_fault2.threads.ops_per_sec at 4 tasks on numa2"
		    "</span>");
	expect_page("/bisect/1", 200,
		    "Of <a href='/regression/1'>regression 1</a>: <span class='headline'><strong "
		    "class='num change regression'>-26.4%</strong>");
	expect_page("/bisect/1", 200, "The culprit against its parent");
	/* the regression's compare link: its comparison's own runs, 1 + 2 of compare job N */
	snprintf(needle, sizeof(needle),
		 "href='/compare?tree=mainline&amp;a=v3.17-rc7&amp;b=v3.17&amp;benchmark="
		 "page_fault2&amp;machine=numa2&amp;regression=1'>");
	expect_page("/regression/1", 200, needle);
	snprintf(path, sizeof(path),
		 "/compare?tree=mainline&a=v3.17-rc7&b=v3.17&benchmark=page_fault2&machine=numa2"
		 "&regression=1");
	expect_page(path, 200, "<strong class='num change regression'>-26.4%</strong>");
	snprintf(needle, sizeof(needle),
		 "The rows below are made of the same runs: those of compare job %lld, 1 + 2",
		 (long long)env.w.compare[WF_REG_TAG]);
	expect_page(path, 200, needle);
	j = api("/api/compare?a=v3.17-rc7&b=v3.17&benchmark=page_fault2&machine=numa2&tree=mainline"
		"&regression=1",
		200);
	assert_string_equal(json_string_value(json_object_get(j, "pooled")), "job");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "runs"), "base")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "runs"), "new")), 2);
	json_decref(j);
	/* without it, every run is pooled, and the page says so */
	expect_page("/compare?tree=mainline&a=v3.17-rc7&b=v3.17&benchmark=page_fault2&machine=numa2",
		    200, "Every ok run of each commit on numa2 is pooled");
	assert_int_equal(wf_sql(db, "UPDATE regressions SET change = -25.0 WHERE id = 1"), 0);
}

/*
 * A commit's page: subject, author, tags, its tree's web view through
 * trees[].web_url, and the runs, regressions and bisections touching it;
 * every sha elsewhere links to it; the search box finds commits by sha
 * prefix, tags and subject words (issue 23).
 */
static void test_commit_page_and_search(void **state)
{
	char path[200], needle[400];
	struct reply r;
	json_t *j;

	(void)state;
	snprintf(path, sizeof(path), "/commit/%s", env.w.sha[WF_CULPRIT]);
	expect_page(path, 200, "<p class='subject'>" WF_CULPRIT_SUBJECT "</p>");
	expect_page(path, 200, "<dt>author</dt><dd>A. Developer</dd>");
	snprintf(needle, sizeof(needle),
		 "<a class='web-url' href='https://git.example.org/linux.git/commit/?id=%s'>",
		 env.w.sha[WF_CULPRIT]);
	expect_page(path, 200, needle);
	expect_page(path, 200, "<a href='/regression/1'>1</a>");
	expect_page(path, 200, "<a href='/regression/2'>2</a>");
	expect_page(path, 200, "<a href='/bisect/1'>1</a>");
	snprintf(needle, sizeof(needle), "<a href='/run/%lld'>", (long long)env.w.run[WF_CULPRIT][0]);
	expect_page(path, 200, needle);
	/* a tag's commit shows its tags; a prefix names it; the tree may be named */
	snprintf(path, sizeof(path), "/commit/%.10s?tree=mainline", env.w.sha[7]);
	expect_page(path, 200, "<span class='tag'>v3.17-rc7</span>");
	expect_page("/commit/v3.17?tree=mainline", 200, "<span class='tag'>v3.17</span>");
	expect_page("/commit/abcd", 400, "ambiguous revision");
	expect_page("/commit/0123456789", 404, "unknown revision");
	snprintf(path, sizeof(path), "/commit/%s?tree=nosuch", env.w.sha[3]);
	expect_page(path, 404, NULL);
	/* the hostile subject is text */
	snprintf(path, sizeof(path), "/commit/%s", env.w.sha[WF_XSS]);
	request(NULL, path, &r);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.ptr, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_null(strstr(r.body.ptr, "<script"));
	done(&r);
	snprintf(path, sizeof(path), "/api/commit/%s", env.w.sha[WF_CULPRIT]);
	j = api(path, 200);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(j, "commit"), "subject")),
	    WF_CULPRIT_SUBJECT);
	assert_int_equal(json_array_size(json_object_get(j, "regressions")), 2);
	assert_true(json_array_size(json_object_get(j, "runs")) >= WF_RUNS);
	json_decref(j);

	/* every page has the search box; it finds a sha prefix, a tag and subject words */
	expect_page("/", 200, "<form class=\"search\" method=\"get\" action=\"/search\"");
	snprintf(needle, sizeof(needle), "<a class='sha' href='/commit/%s'", env.w.sha[WF_CULPRIT]);
	expect_page("/search?q=05b84301", 200, needle);
	expect_page("/search?q=v3.18-rc", 200, "<span class='tag'>v3.18-rc1</span> in <a "
					      "href='/tree/mainline'>mainline</a>");
	expect_page("/search?q=res_counter%20memcontrol", 200, needle);
	expect_page("/search?q=%3Cscript%3E", 200,
		    "<span class='subject'>&lt;script&gt;alert(1)&lt;/script&gt;</span>");
	request(NULL, "/search?q=%25", &r); /* LIKE's wildcard is taken literally */
	assert_int_equal(r.status, 200);
	assert_null(strstr(r.body.ptr, "class='sha'"));
	done(&r);
	j = api("/api/search?q=memcontrol", 200); /* the culprit and its revert */
	assert_int_equal(json_array_size(json_object_get(j, "by_subject")), 2);
	assert_int_equal(json_array_size(json_object_get(j, "by_sha")), 0);
	json_decref(j);
	expect_page("/api/search", 400, "missing parameter");
}

/* A sample of promcheck.py's output ("name{k=v,...} value") is there. */
static void expect_sample(const char *parsed, const char *line)
{
	char needle[300];

	snprintf(needle, sizeof(needle), "%s\n", line);
	if (!strstr(parsed, needle)) {
		print_error("/metrics lacks %s in:\n", line);
		for (const char *l = parsed; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
			if (!strstr(l, "_bucket") || strstr(l, "le=60"))
				print_error("  %.*s\n", (int)strcspn(l, "\n"), l);
	}
	assert_non_null(strstr(parsed, needle));
}

/*
 * /metrics in Prometheus's text format 0.0.4, read back by prometheus_client's
 * parser: the queue by kind and state, runs by status, build, boot and
 * measure durations, mails pending and failed, machines broken (issue 23).
 */
static void test_metrics(void **state)
{
	char path[300], cmd[900], *parsed;
	struct reply r;
	FILE *f;

	(void)state;
	request(NULL, "/metrics", &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.type, "text/plain; version=0.0.4; charset=utf-8");
	snprintf(path, sizeof(path), "%s/metrics.txt", env.dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(r.body.ptr, f);
	fclose(f);
	done(&r);
	/* Debian's python, whose python3-prometheus-client it is (as smtpsink.h's aiosmtpd) */
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/tests/integration/promcheck.py %s >%s.parsed",
		 FL_SOURCE_DIR, path, path);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s.parsed", path);
	parsed = wf_slurp(cmd, NULL);
	assert_non_null(parsed);
	/* the last tag's compare job waits for its runs; one run job queued, one running */
	expect_sample(parsed, "faultline_jobs{kind=compare,state=waiting} 1");
	expect_sample(parsed, "faultline_jobs{kind=run,state=queued} 3");
	expect_sample(parsed, "faultline_jobs{kind=try,state=running} 0");
	/* the fixture's run in progress and test_writer_not_blocked's */
	expect_sample(parsed, "faultline_runs{status=running} 2");
	expect_sample(parsed, "faultline_runs{status=panic} 1");
	expect_sample(parsed, "faultline_mails{state=pending} 1");
	expect_sample(parsed, "faultline_mails{state=sent} 1");
	expect_sample(parsed, "faultline_mails{state=failed} 0");
	expect_sample(parsed, "faultline_machines{state=broken} 1");
	expect_sample(parsed, "faultline_machines_broken 1");
	/* the environment run: 41.0 s to the agent, 47.7 s of samples; builds of 1 s */
	expect_sample(parsed, "faultline_boot_duration_seconds_bucket{le=30} 0");
	expect_sample(parsed, "faultline_boot_duration_seconds_bucket{le=60} 1");
	expect_sample(parsed, "faultline_boot_duration_seconds_sum 41");
	expect_sample(parsed, "faultline_measure_duration_seconds_sum 47.7");
	expect_sample(parsed, "faultline_build_duration_seconds_bucket{le=1} 20");
	expect_sample(parsed, "faultline_build_info{version=0.1.0} 1");
	free(parsed);
	/* not under /api/, and only GET and HEAD */
	expect_page("/api/metrics", 404, NULL);
	request("POST", "/metrics", &r);
	assert_int_equal(r.status, 405);
	done(&r);
}

/* Runs of commit id on numa2, ok, the fixture's samples of commit i. */
static void ok_runs(fl_store *st, int64_t commit, int i)
{
	struct fl_run_info ri = {.machine_id = env.w.numa2,
				 .benchmark = "page_fault2",
				 .params = "{}",
				 .commit_id = commit};

	for (int run = 0; run < 2; run++) {
		struct fl_sample s[18];
		size_t n = wf_samples(s, i, run);
		int64_t id;

		assert_int_equal(fl_store_run_create(st, &ri, &id), 0);
		assert_int_equal(fl_store_samples_add(st, id, s, n), 0);
		assert_int_equal(fl_store_run_finish(st, id, "ok", NULL), 0);
	}
}

/*
 * A tree whose commits share one commit time (a series applied in one
 * second) is shown in history order, by the first-parent line's length,
 * not by time or by the order the store saw them; the revert check's
 * commit (refs/faultline/revert/N), newer than all and measured, is
 * neither the tree's newest commit nor a point of its graph (issue 23).
 */
static void test_history_order_and_revert_ref(void **state)
{
	/* stored in this order; their history is 2, 0, 3, 1 */
	static const int64_t depth[4] = {2, 4, 1, 3};
	static const int order[4] = {2, 0, 3, 1};
	char sha[4][41], db[300];
	const char *revert = "4157eeee00000000000000000000000000000000";
	struct fl_commit_info rc = {revert, "Revert \"x\"", "faultline", WF_T0 + 7200};
	struct fl_revert v = {.culprit = sha[1], .state = "applied", .ref = "refs/faultline/revert/3"};
	struct fl_regression_new g = {0};
	int64_t tree, id[4], rid, job;
	json_t *j, *pts, *latest;
	fl_store *st;

	(void)state;
	snprintf(db, sizeof(db), "%s/fl.db", env.dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	assert_int_equal(fl_store_tree_ensure(st, "history", "/srv/history.git", &tree), 0);
	for (int i = 0; i < 4; i++) {
		struct fl_commit_info c = {sha[i], "mm: one of a series", "A. Developer", WF_T0};

		snprintf(sha[i], sizeof(sha[i]), "41570%d%034d", i, 0);
		assert_int_equal(fl_store_commit_ensure(st, tree, &c, &id[i]), 0);
		assert_int_equal(fl_store_commit_needs_depth(st, id[i]), 1);
		assert_int_equal(fl_store_commit_depth(st, id[i], depth[i]), 0);
		assert_int_equal(fl_store_commit_needs_depth(st, id[i]), 0);
		ok_runs(st, id[i], i);
	}
	/* the revert of the newest one: newer, further along, measured */
	assert_int_equal(fl_store_commit_ensure(st, tree, &rc, &rid), 0);
	assert_int_equal(fl_store_commit_depth(st, rid, 5), 0);
	ok_runs(st, rid, 0);
	assert_int_equal(wf_job(st, FL_JOB_COMPARE, "compare:history", 0, "numa2", NULL, "", 0, 0,
				&job),
			 0);
	g = (struct fl_regression_new){job,	    tree,	    id[2], id[1], env.w.numa2,
				       "page_fault2", "ops_per_sec", "threads", 4,	    -25.0,
				       0.001,	    NULL};
	assert_int_equal(fl_store_regression_add(st, &g, &v.regression_id), 0);
	v.onto = sha[1];
	v.commit_sha = (char *)revert;
	assert_int_equal(fl_store_revert_add(st, &v), 0);
	fl_store_free(st);

	j = api("/api/tree/history?by=commit&benchmark=page_fault2&machine=numa2", 200);
	pts = json_object_get(j, "points");
	assert_int_equal(json_array_size(pts), 4);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(json_string_value(json_object_get(
					json_object_get(json_array_get(pts, i), "commit"), "sha")),
				    sha[order[i]]);
	json_decref(j);
	j = api("/api", 200);
	for (size_t i = 0; i < json_array_size(json_object_get(j, "trees")); i++) {
		json_t *t = json_array_get(json_object_get(j, "trees"), i);

		if (strcmp(json_string_value(json_object_get(t, "name")), "history"))
			continue;
		latest = json_object_get(t, "latest");
		assert_true(json_array_size(latest) >= 1);
		assert_string_equal(
		    json_string_value(json_object_get(json_array_get(latest, 0), "sha")),
		    sha[order[3]]);
	}
	json_decref(j);
	expect_page("/tree/history?by=commit", 200, "415701000000");
	{
		struct reply r;

		request(NULL, "/tree/history?by=commit", &r);
		assert_int_equal(r.status, 200);
		assert_null(strstr(r.body.ptr, "4157eeee"));
		done(&r);
		/* the trees' section; the latest runs may show the revert's runs */
		request(NULL, "/", &r);
		assert_non_null(strstr(r.body.ptr, "<section class='trees'>"));
		*strstr(strstr(r.body.ptr, "<section class='trees'>"), "</section>") = '\0';
		assert_non_null(strstr(r.body.ptr, "415701000000"));
		assert_null(strstr(r.body.ptr, "4157eeee"));
		done(&r);
	}
}

/* A line of log in the Common Log Format for this request line and status
 * (bytes: a count, or "-" when 0): 127.0.0.1 - - [dd/Mon/yyyy:hh:mm:ss +0000]
 * "req" status bytes. */
static int clf_line(const char *log, const char *req, int status, int bytes)
{
	for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char day[3], mon[4], tail[5000], got[4200];
		int y, hh, mm, ss, st, n = 0;
		const char *q;

		if (strncmp(l, "127.0.0.1 - - [", 15) ||
		    sscanf(l + 15, "%2[0-9]/%3[A-Za-z]/%4d:%2d:%2d:%2d +0000] \"%n", day, mon, &y,
			   &hh, &mm, &ss, &n) != 6 ||
		    !n)
			continue;
		q = l + 15 + n;
		/* the request line ends at the first '"' not escaped */
		n = 0;
		while (q[n] && q[n] != '\n' && q[n] != '"' && n < (int)sizeof(got) - 2) {
			if (q[n] == '\\' && q[n + 1]) {
				got[n] = q[n];
				n++;
			}
			got[n] = q[n];
			n++;
		}
		got[n] = '\0';
		if (q[n] != '"' || strcmp(got, req))
			continue;
		if (sscanf(q + n + 1, " %d %4999[^\n]", &st, tail) != 2 || st != status)
			continue;
		if (bytes ? strspn(tail, "0123456789") == strlen(tail) && *tail != '0'
			  : !strcmp(tail, "-"))
			return 1;
	}
	print_error("no access log line \"%s\" %d among:\n", req, status);
	for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, "127.0.0.1 - - [", 15))
			print_error("%.*s\n", (int)strcspn(l, "\n"), l);
	return 0;
}

static void test_access_log_and_shutdown(void **state)
{
	struct reply r;
	fl_buf log = FL_BUF_INIT;
	char line[1024];
	FILE *f;

	(void)state;
	expect_page("/run/1?page=1", 200, NULL);
	request("HEAD", "/runs", &r);
	done(&r);
	request(NULL, "/nothing\"<x>\xff", &r); /* what a log must not take as it is */
	assert_int_equal(r.status, 404);
	done(&r);
	assert_int_equal(wf_stop(&env.srv), 0);
	f = fopen(env.errlog, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		fl_buf_adds(&log, line);
	fclose(f);
	/* Common Log Format: host ident user [time] "request line" status bytes (issue 23) */
	assert_true(clf_line(log.ptr, "GET /run/1?page=1 HTTP/1.1", 200, 1));
	assert_true(clf_line(log.ptr, "POST /runs HTTP/1.1", 405, 1));
	assert_true(clf_line(log.ptr, "GET /nothing\\\"<x>%ff HTTP/1.1", 404, 1));
	assert_true(clf_line(log.ptr, "HEAD /runs HTTP/1.1", 200, 0));
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
	    cmocka_unit_test(test_jobs),
	    cmocka_unit_test(test_run_page),
	    cmocka_unit_test(test_run_environment),
	    cmocka_unit_test(test_run_console_path_refused),
	    cmocka_unit_test(test_bisect_page),
	    cmocka_unit_test(test_bisect_steps_and_revert),
	    cmocka_unit_test(test_regression_and_reports),
	    cmocka_unit_test(test_tree_page),
	    cmocka_unit_test(test_revisions_by_tag),
	    cmocka_unit_test(test_compare),
	    cmocka_unit_test(test_compare_cgroup),
	    cmocka_unit_test(test_evidence),
	    cmocka_unit_test(test_lock_evidence),
	    cmocka_unit_test(test_compare_errors),
	    cmocka_unit_test(test_escaping),
	    cmocka_unit_test(test_escaping_service_fields),
	    cmocka_unit_test(test_static_files),
	    cmocka_unit_test(test_methods_and_unknown_paths),
	    cmocka_unit_test(test_writer_not_blocked),
	    cmocka_unit_test(test_metrics),
	    cmocka_unit_test(test_tag_in_two_trees),
	    cmocka_unit_test(test_history_order_and_revert_ref),
	    cmocka_unit_test(test_baremetal_run_page),
	    cmocka_unit_test(test_short_shas),
	    cmocka_unit_test(test_one_headline),
	    cmocka_unit_test(test_commit_page_and_search),
	    cmocka_unit_test(test_access_log_and_shutdown),
	    cmocka_unit_test(test_refuses_to_start),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
