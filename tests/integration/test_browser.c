/*
 * test_browser.c - a real browser on the results pages: headless Chromium
 * (Debian's package) loads the compare, bisection and tree pages and the
 * dashboard from a running "faultline serve"; the rendered DOM
 * (--dump-dom) must hold the SVG plots with both kernels' series, the strip
 * plot with every sample, the dashboard's tag table with its verdicts, and
 * the hostile commit subject and tag name as text, not as elements; the
 * dashboard's compare link with two trees sharing tag names; a regression's
 * and a commit's page.
 * Screenshots go to <build>/artifacts/web/ for CI to keep. Exits 77 (ctest
 * SKIP_RETURN_CODE) only when chromium is not installed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/fs.h"
#include "lib/run-command.h"
#include "lib/time.h"
#include "testlib.h"
#include "webfixture.h"

static char artifacts[600];
static struct wf_env env;
static int profiles;

/*
 * Headless Chromium, one browser per page (chromium()), made to leave
 * nothing behind and to say why when it fails:
 * - a profile (--user-data-dir) and a HOME of its own under the test's
 *   directory: no state shared with another call or another test (the crash
 *   reports' database, caches, the NSS database are under HOME), and a crash
 *   leaves its minidump where the failure message can name it;
 * - shared memory in /tmp, not /dev/shm (--disable-dev-shm-usage): Debian's
 *   /usr/bin/chromium adds the flag only when it finds /dev/shm small, and
 *   its check fails when findmnt lists /dev/shm twice; a full /dev/shm kills
 *   Chromium with SIGBUS;
 * - a process group of its own: at the deadline the browser and its
 *   children get SIGTERM, then SIGKILL; when the browser has ended, what is
 *   left of the group is killed.
 */
struct chromium_run {
	char dir[300];	/* profile-N: the profile, home/ and stderr */
	int status;	/* waitpid's */
	double seconds; /* how long it ran */
	int timed_out;	/* still running at the deadline */
};

/* What chromium said on stderr, but for D-Bus and the wrapper's complaints; its minidumps. */
static void chromium_said(const struct chromium_run *r)
{
	char path[400], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/stderr", r->dir);
	if ((f = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), f))
			if (!strstr(line, "dbus") && !strstr(line, "unexpected operator"))
				print_message("  | %s", line);
		fclose(f);
	}
	fl_test_sh("find '%s/home' -name '*.dmp' -printf '  minidump: %%p (%%s bytes)\\n'", r->dir);
}

/* Runs chromium on url plus the action, stdout into out (NULL: dropped); 0 when it exited 0. */
static int chromium_once(const char *url, const char *action, const char *out,
			 struct chromium_run *r)
{
	char profile[400], home[400], errpath[400];
	const char *argv[] = {"chromium",
			      "--headless",
			      "--no-sandbox",
			      "--disable-gpu",
			      "--disable-dev-shm-usage",
			      "--disable-background-networking",
			      "--disable-component-update",
			      "--disable-sync",
			      "--no-first-run",
			      profile,
			      "--window-size=1200,1600",
			      action,
			      url,
			      NULL};
	int64_t t0 = fl_mono_ms(), term_at = t0 + 120000, kill_at = term_at + 5000;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "%s/profile-%d", env.dir, profiles++);
	snprintf(profile, sizeof(profile), "--user-data-dir=%s", r->dir);
	snprintf(home, sizeof(home), "%s/home", r->dir);
	snprintf(errpath, sizeof(errpath), "%s/stderr", r->dir);
	if (fl_mkdir_p(home))
		return -1;
	pid = fl_test_fork();
	if (pid == 0) {
		int o = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		setpgid(0, 0);
		setenv("HOME", home, 1);
		dup2(o, 1);
		dup2(e, 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	setpgid(pid, 0); /* as the child does: the group exists for a kill right away */
	while (waitpid(pid, &r->status, WNOHANG) != pid) {
		int64_t now = fl_mono_ms();

		if (now >= term_at && !r->timed_out) {
			r->timed_out = 1;
			kill(-pid, SIGTERM);
		}
		if (now >= kill_at) {
			kill(-pid, SIGKILL);
			waitpid(pid, &r->status, 0);
			break;
		}
		usleep(50000);
	}
	kill(-pid, SIGKILL); /* its children, if any is left */
	r->seconds = (double)(fl_mono_ms() - t0) / 1000;
	return !r->timed_out && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0 ? 0 : -1;
}

static void chromium_failed(const char *url, const char *action, const struct chromium_run *r)
{
	if (r->timed_out)
		print_message("chromium %s %s: still running after 120 s, stopped\n", action, url);
	else if (WIFSIGNALED(r->status))
		print_message("chromium %s %s: killed by signal %d (%s) after %.1f s\n", action,
			      url, WTERMSIG(r->status), strsignal(WTERMSIG(r->status)), r->seconds);
	else
		print_message("chromium %s %s: exit %d after %.1f s\n", action, url,
			      WEXITSTATUS(r->status), r->seconds);
	chromium_said(r);
}

/* file ends as a whole output does: a DOM with its </html>, a PNG with its IEND chunk. */
static int whole(const char *file)
{
	static const char iend[] = "\0\0\0\0IEND\xae\x42\x60\x82";
	size_t len;
	char *s = wf_slurp(file, &len);
	int png = s && len >= 8 && !memcmp(s, "\x89PNG", 4);
	int ok = png ? len >= 12 && !memcmp(s + len - 12, iend, 12) : s && strstr(s, "</html>");

	free(s);
	return ok;
}

/*
 * chromium_once, judged by what it wrote to file (the DOM or the PNG): 0
 * when it exited 0. The browser's exit is not the page's: a browser killed
 * by a signal after writing the whole of file is said and its file used; one
 * killed before that is run once more (said too); a timeout, an exit status
 * or a second death fails.
 */
static int chromium(const char *url, const char *action, const char *out, const char *file)
{
	struct chromium_run r;

	for (int attempt = 1;; attempt++) {
		unlink(file);
		if (!chromium_once(url, action, out, &r))
			return 0;
		chromium_failed(url, action, &r);
		if (r.timed_out || !WIFSIGNALED(r.status))
			return -1;
		if (whole(file)) {
			print_message("  its output is whole: used\n");
			return 0;
		}
		if (attempt == 2)
			return -1;
		print_message("  its output is not whole: once more\n");
	}
}

/* The rendered DOM of path. */
static char *dom(const char *path)
{
	char url[600], out[300], *html;

	snprintf(url, sizeof(url), "%s%s", env.srv.url, path);
	snprintf(out, sizeof(out), "%s/dom.html", env.dir);
	assert_int_equal(chromium(url, "--dump-dom", out, out), 0);
	html = wf_slurp(out, NULL);
	assert_non_null(html);
	return html;
}

/* The element that starts with open, up to its closing tag. */
static char *element(const char *html, const char *open, const char *close)
{
	const char *a = strstr(html, open), *b = a ? strstr(a, close) : NULL;

	if (!a || !b)
		print_error("no %s ... %s in the DOM\n", open, close);
	assert_non_null(b);
	return fl_xstrndup(a, (size_t)(b - a) + strlen(close));
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void screenshot(const char *path, const char *name)
{
	char url[600], file[700], action[800];
	unsigned char head[24];
	struct stat sb;
	FILE *f;

	snprintf(url, sizeof(url), "%s%s", env.srv.url, path);
	snprintf(file, sizeof(file), "%s/%s", artifacts, name);
	snprintf(action, sizeof(action), "--screenshot=%s", file);
	assert_int_equal(chromium(url, action, NULL, file), 0);
	assert_int_equal(stat(file, &sb), 0);
	f = fopen(file, "rb");
	assert_non_null(f);
	assert_int_equal(fread(head, 1, sizeof(head), f), sizeof(head));
	fclose(f);
	/* a PNG of the window's size */
	assert_memory_equal(head, "\x89PNG\r\n\x1a\n", 8);
	assert_int_equal(head[16] << 24 | head[17] << 16 | head[18] << 8 | head[19], 1200);
	assert_int_equal(head[20] << 24 | head[21] << 16 | head[22] << 8 | head[23], 1600);
	printf("screenshot: %s (%lld bytes)\n", file, (long long)sb.st_size);
}

static int setup(void **state)
{
	(void)state;
	snprintf(artifacts, sizeof(artifacts), "%s/artifacts/web", FL_BUILD_DIR);
	if (fl_mkdir_p(artifacts))
		return -1;
	return wf_start(&env, "browser", 0);
}

static int teardown(void **state)
{
	(void)state;
	wf_end(&env);
	return 0;
}

static void test_compare_page(void **state)
{
	char path[400], a[64], b[64];
	char *html, *fig;

	(void)state;
	snprintf(path, sizeof(path), "/compare?a=%.12s&b=%.12s&benchmark=page_fault2&machine=numa2",
		 env.w.sha[WF_CULPRIT - 1], env.w.sha[WF_CULPRIT]);
	html = dom(path);
	/* labelled by tag where the commit has one (v3.17-rc7), else by its short sha */
	snprintf(a, sizeof(a), "data-label=\"%s\"", "v3.17-rc7");
	snprintf(b, sizeof(b), "data-label=\"%.12s\"", env.w.sha[WF_CULPRIT]);
	for (int m = 0; m < 2; m++) {
		fig = element(html,
			      m ? "<figure class=\"plot scalability\" data-mode=\"threads\" "
				  "data-cgroup=\"root\">"
				: "<figure class=\"plot scalability\" data-mode=\"processes\" "
				  "data-cgroup=\"root\">",
			      "</figure>");
		assert_int_equal(count(fig, "<svg"), 1);
		assert_int_equal(count(fig, "<g class=\"series\""), 2);
		/* per task, with linear scaling from the base's one task as a dashed line */
		assert_int_equal(count(fig, "<g class=\"series reference\""), 1);
		assert_non_null(strstr(fig, "linear scaling from v3.17-rc7 at 1"));
		assert_non_null(strstr(fig, "ops_per_sec per task"));
		assert_int_equal(count(strstr(fig, a), "<circle"),
				 6); /* 3 task counts, 2 kernels */
		assert_non_null(strstr(fig, b));
		assert_int_equal(count(fig, "<polyline"), 3);
		assert_int_equal(count(fig, "<line class=\"err\""), 6);
		free(fig);
	}
	assert_non_null(strstr(html, "<table class=\"compare\">"));
	assert_non_null(strstr(html, "-25.0%"));
	free(html);
	screenshot(path, "compare.png");
}

static void test_bisect_page(void **state)
{
	char *html, *fig;

	(void)state;
	html = dom("/bisect/1");
	fig = element(html, "<figure class=\"plot strip\">", "</figure>");
	assert_int_equal(count(fig, "<circle"), 6 * 5); /* every sample of every step */
	assert_non_null(strstr(fig, "05b8430 bad"));
	free(fig);
	fig = element(html, "<figure class=\"plot confidence\">", "</figure>");
	assert_non_null(strstr(fig, "<g class=\"series\" data-label=\"confidence\">"));
	free(fig);
	assert_non_null(strstr(html, "<p class=\"culprit\">"));
	free(html);
	screenshot("/bisect/1", "bisect.png");
}

/* What the browser built from the page: the subject is a text node, not a script. */
static void test_escaped_in_the_browser(void **state)
{
	char *html;

	(void)state;
	html = dom("/tree/mainline");
	assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_null(strstr(html, "<script"));
	assert_non_null(strstr(html, "<figure class=\"plot trend\">"));
	free(html);
	screenshot("/tree/mainline", "tree.png");
}

/* The dashboard as the browser built it: the tag table with its verdicts, the hostile tag as text.
 */
static void test_dashboard_page(void **state)
{
	char *html, *table;

	(void)state;
	html = dom("/");
	table = element(html, "<table class=\"tags\">", "</table>");
	assert_int_equal(count(table, "<tr>"), 6); /* the header and the newest 5 tags */
	assert_non_null(strstr(table, "<td class=\"verdict verdict-worse\">"));
	assert_non_null(strstr(table, "<td class=\"verdict verdict-better\">"));
	assert_non_null(strstr(table, "<span class=\"tag\">v3.18-rc3&lt;i&gt;</span>"));
	assert_null(strstr(html, "<i>"));
	free(table);
	assert_non_null(strstr(html, "<table class=\"jobs\">"));
	free(html);
	screenshot("/", "dashboard.png");
}

/*
 * Two trees share tag names (mainline's and stable's v3.17 are different
 * commits): the dashboard's compare link, followed in the browser, names its
 * tree and shows the comparison, not 400 "ambiguous revision" (issue 23).
 */
static void test_compare_link_names_its_tree(void **state)
{
	struct fl_commit_info c = {"5ab1e00000000000000000000000000000000017", "stable: a backport",
				   "B. Maintainer", WF_T0};
	struct fl_watch_tag_new t = {.tag = "v3.17", .state = "skipped"};
	char db[300], href[600], *html, *cell, *a, *q;
	int64_t tree, id;
	fl_store *st;
	size_t k = 0;

	(void)state;
	snprintf(db, sizeof(db), "%s/fl.db", env.dir);
	assert_int_equal(fl_store_open(&st, fl_test_store(db), 0), 0);
	assert_int_equal(fl_store_tree_ensure(st, "stable", "/srv/stable.git", &tree), 0);
	t.tree_id = tree;
	assert_int_equal(fl_store_commit_ensure(st, tree, &c, &t.commit_id), 0);
	assert_int_equal(fl_store_watch_tag_add(st, &t, &id), 0);
	t.tag = "v3.17-rc7";
	assert_int_equal(fl_store_watch_tag_add(st, &t, &id), 0);
	fl_store_free(st);

	html = dom("/");
	cell = element(html, "<td class=\"verdict verdict-worse\">", "</td>");
	a = strstr(cell, "<a href=\"");
	assert_non_null(a);
	a += strlen("<a href=\"");
	for (q = a; *q && *q != '"' && k < sizeof(href) - 1; q++) {
		href[k++] = *q;
		if (!strncmp(q, "&amp;", 5))
			q += 4;
	}
	href[k] = '\0';
	printf("the dashboard links %s\n", href);
	assert_non_null(strstr(href, "tree=mainline"));
	assert_non_null(strstr(href, "b=v3.17&"));
	free(cell);
	free(html);
	html = dom(href);
	assert_null(strstr(html, "ambiguous"));
	assert_non_null(strstr(html, "<table class=\"compare\">"));
	assert_non_null(strstr(html, "data-label=\"v3.17\""));
	assert_non_null(strstr(html, "data-label=\"v3.17-rc7\""));
	free(html);
	screenshot(href, "compare-tags.png");
}

/* A regression's page and a commit's page as the browser built them (issue 23). */
static void test_regression_and_commit_pages(void **state)
{
	char path[128], *html;

	(void)state;
	html = dom("/regression/1");
	assert_non_null(strstr(html, "<span class=\"headline\">"));
	assert_non_null(strstr(html, "regression=1"));
	free(html);
	screenshot("/regression/1", "regression.png");
	snprintf(path, sizeof(path), "/commit/%s", env.w.sha[WF_CULPRIT]);
	html = dom(path);
	assert_non_null(strstr(html, "<p class=\"subject\">" WF_CULPRIT_SUBJECT "</p>"));
	assert_non_null(strstr(html, "<table class=\"regressions\">"));
	assert_non_null(strstr(html, "class=\"web-url\""));
	free(html);
	screenshot(path, "commit.png");
	/* the hostile subject on its commit's page is text */
	snprintf(path, sizeof(path), "/commit/%s", env.w.sha[WF_XSS]);
	html = dom(path);
	assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_null(strstr(html, "<script"));
	free(html);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_compare_page),
	    cmocka_unit_test(test_bisect_page),
	    cmocka_unit_test(test_escaped_in_the_browser),
	    cmocka_unit_test(test_dashboard_page),
	    cmocka_unit_test(test_compare_link_names_its_tree),
	    cmocka_unit_test(test_regression_and_commit_pages),
	};

	if (!fl_which("chromium")) {
		printf("SKIP: chromium is not installed (Debian package 'chromium'; "
		       "scripts/install-deps.sh runtime installs it)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
