/*
 * test_config.c - the configuration loader: valid files load with their
 * defaults, and each kind of error gives its exact message with file:line:col,
 * hostile files included (deep nesting, a second document, broken tag
 * patterns, mail addresses that would add an SMTP command).
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

#include "config/config.h"
#include "lib/error.h"
#include "lib/time.h"
#include "proto/testdef.h"

static char path[64];

/* Writes text to a fresh file and loads it; returns the loader's result. */
static int load(const char *text, struct fl_config **cfg)
{
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/fl-test-config-%d.yaml", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return fl_config_load(cfg, path);
}

/* Loads text, expects failure with exactly "<path>:<msg>". */
static void expect_error(const char *text, const char *msg)
{
	struct fl_config *cfg = NULL;
	char want[2048];

	assert_int_equal(load(text, &cfg), FL_EINVAL);
	assert_null(cfg);
	snprintf(want, sizeof(want), "%s:%s", path, msg);
	assert_string_equal(fl_error_last(), want);
}

static int setup(void **state)
{
	(void)state;
	/* Fragment paths are relative to where faultline runs: the source tree. */
	return chdir(FL_SOURCE_DIR);
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void test_example_loads(void **state)
{
	struct fl_config *cfg;
	const struct fl_machine_conf *m;
	const struct fl_benchmark_conf *b;

	(void)state;
	assert_int_equal(fl_config_load(&cfg, "configs/example.yaml"), 0);
	assert_string_equal(cfg->store.path, "var/faultline.db");
	assert_int_equal(cfg->ntrees, 1);
	assert_string_equal(cfg->trees[0].name, "mainline");
	assert_int_equal(cfg->trees[0].ntags, 2);
	assert_string_equal(cfg->trees[0].tags[1], "v[0-9]*.[0-9]*");
	assert_int_equal(cfg->trees[0].poll_ms, 600000);
	m = fl_config_machine(cfg, "numa8");
	assert_non_null(m);
	assert_int_equal(m->sockets, 8);
	assert_int_equal(m->memory_per_node, 256ULL << 20);
	assert_string_equal(m->accel, "auto");
	b = fl_config_benchmark(cfg, "page_fault2");
	assert_non_null(b);
	assert_int_equal(b->ntasks, 3);
	assert_int_equal(b->tasks[0].value, 1);
	assert_int_equal(b->tasks[0].percent, 0);
	assert_int_equal(b->tasks[1].value, 50);
	assert_int_equal(b->tasks[1].percent, 1);
	assert_int_equal(b->warmup_ms, 2000);
	assert_string_equal(b->kernel, "guest"); /* the only kernel */
	assert_true(cfg->regression.min_change > 0.0199 && cfg->regression.min_change < 0.0201);
	assert_string_equal(cfg->web.listen, "127.0.0.1:8080");
	/* unset, the links of reports are the pages web.listen serves */
	assert_string_equal(cfg->report.url, "http://127.0.0.1:8080");
	assert_non_null(fl_config_where(cfg, &m->sockets));
	assert_string_equal(fl_config_where(cfg, &cfg->trees[0].poll_ms),
			    "configs/example.yaml:12:11: trees[0].poll");
	fl_config_free(cfg);
}

static void test_defaults(void **state)
{
	struct fl_config *cfg;

	(void)state;
	assert_int_equal(load("trees: [{ name: t, url: /srv/git/t }]\n", &cfg), 0);
	assert_string_equal(cfg->var, "var");
	assert_string_equal(cfg->store.path, "var/faultline.db");
	assert_null(cfg->trees[0].branch);
	assert_null(cfg->trees[0].branch_base);
	assert_int_equal(cfg->trees[0].branch_interval_ms, 3600000);
	assert_null(cfg->trees[0].baseline_tree);
	assert_int_equal(cfg->trees[0].nbaseline_tags, 0);
	assert_int_equal(cfg->trees[0].ntags, 1);
	assert_string_equal(cfg->trees[0].tags[0], "v*");
	assert_true(cfg->regression.confidence > 0.949 && cfg->regression.confidence < 0.951);
	assert_int_equal(cfg->build.timeout_ms, 3600000);
	assert_null(fl_config_where(cfg, &cfg->trees[0].branch));
	fl_config_free(cfg);
}

/* build.artifacts: <var>/artifacts by default; a directory, or one to be made. */
static void test_build_artifacts(void **state)
{
	struct fl_config *cfg;

	(void)state;
	assert_int_equal(load("var: /srv/fl\n", &cfg), 0);
	assert_string_equal(cfg->build.artifacts, "/srv/fl/artifacts");
	fl_config_free(cfg);
	assert_int_equal(load("build: { artifacts: /nfs/fl/artifacts }\n", &cfg), 0);
	assert_string_equal(cfg->build.artifacts, "/nfs/fl/artifacts");
	fl_config_free(cfg);
	expect_error("build: { artifacts: /dev/null }\n",
		     "1:21: build.artifacts: '/dev/null' is not a directory");
	expect_error("build:\n  artifacts: ''\n",
		     "2:14: build.artifacts: expected a non-empty string");
}

static void test_unknown_key(void **state)
{
	(void)state;
	expect_error("machines:\n"
		     "  - name: numa8\n"
		     "    socket: 8\n",
		     "3:5: machines[0]: unknown key 'socket' (did you mean 'sockets'?)");
	expect_error("bogus: 1\n", "1:1: unknown key 'bogus'");
	expect_error("store: { pth: x.db }\n",
		     "1:10: store: unknown key 'pth' (did you mean 'path'?)");
}

/* store.url: PostgreSQL's URL or an SQLite file becomes the store's location; errors at its line */
static void test_store_url(void **state)
{
	static const char *const ok[][2] = {
	    {"postgresql://fl@127.0.0.1:5432/faultline", "postgresql://fl@127.0.0.1:5432/faultline"},
	    {"postgres://db.lab/fl", "postgres://db.lab/fl"},
	    {"sqlite:/srv/fl/store.db", "/srv/fl/store.db"},
	    {"state/fl.db", "state/fl.db"},
	};
	struct fl_config *cfg;
	char text[256];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(text, sizeof(text), "store:\n  url: \"%s\"\n", ok[i][0]);
		assert_int_equal(load(text, &cfg), 0);
		assert_string_equal(cfg->store.path, ok[i][1]);
		assert_string_equal(cfg->store.url, ok[i][0]);
		fl_config_free(cfg);
	}
	expect_error("store:\n  url: mysql://db/fl\n",
		     "2:8: store.url: 'mysql://db/fl' is not a store: "
		     "postgresql://USER@HOST:PORT/DATABASE, sqlite:FILE or a file");
	expect_error("store:\n  url: postgresql://\n",
		     "2:8: store.url: 'postgresql://' names no database "
		     "(postgresql://USER@HOST:PORT/DATABASE)");
	expect_error("store:\n  url: 'sqlite:'\n", "2:8: store.url: 'sqlite:' names no file (sqlite:FILE)");
	expect_error("store: { path: a.db, url: b.db }\n",
		     "1:27: store.url: 'url' and 'path' both name the store: keep one");
}

static void test_types_and_units(void **state)
{
	(void)state;
	expect_error("machines: [{ name: m, sockets: eight }]\n",
		     "1:32: machines[0].sockets: expected an integer from 1 to 64, got 'eight'");
	expect_error("machines: [{ name: m, sockets: 0 }]\n",
		     "1:32: machines[0].sockets: expected an integer from 1 to 64, got '0'");
	expect_error("machines: [{ name: m, memory_per_node: 256MB }]\n",
		     "1:40: machines[0].memory_per_node: expected a size like 256M or 2G, got "
		     "'256MB'");
	expect_error("trees: [{ name: t, url: u, poll: 10 }]\n",
		     "1:34: trees[0].poll: expected a duration like 5s or 10m, got '10'");
	expect_error("regression: { min_change: 2 }\n",
		     "1:27: regression.min_change: expected a percentage from 0% to 1000%, got "
		     "'2'");
	expect_error("regression: { confidence: 95% }\n",
		     "1:27: regression.confidence: expected a probability between 0 and 1 (like "
		     "0.95), got '95%'");
	expect_error("machines: [{ name: m, accel: kvn }]\n",
		     "1:30: machines[0].accel: unknown value 'kvn' (did you mean 'kvm'?)");
	expect_error("benchmarks: [{ name: b, modes: [procs] }]\n",
		     "1:33: benchmarks[0].modes[0]: unknown value 'procs' (expected one of: "
		     "processes, threads)");
	expect_error("benchmarks: [{ name: b, tasks: [1, 150%] }]\n",
		     "1:36: benchmarks[0].tasks[1]: expected a task count (1 to 4096) or a "
		     "percentage of CPUs (1% to 100%), got '150%'");
	expect_error("trees: { name: t }\n", "1:8: trees: expected a list");
	expect_error("store: [a]\n", "1:8: store: expected a mapping of keys to values");
}

static void test_missing_and_duplicates(void **state)
{
	(void)state;
	expect_error("trees:\n  - url: /x\n", "2:5: trees[0]: missing key 'name'");
	expect_error("machines:\n"
		     "  - { name: a, sockets: 2 }\n"
		     "  - { name: a, sockets: 4 }\n",
		     "3:13: machines[1].name: duplicate machine name 'a'");
	expect_error("web: { listen: a, listen: b }\n", "1:19: web: duplicate key 'listen'");
}

static void test_references(void **state)
{
	(void)state;
	expect_error("kernels: [{ name: guest }]\n"
		     "benchmarks: [{ name: b, kernel: gust }]\n",
		     "2:33: benchmarks[0].kernel: unknown kernel 'gust'");
	expect_error("machines: [{ name: m, backend: command, command: 'true' }]\n"
		     "benchmarks: [{ name: b, machines: [n] }]\n",
		     "2:36: benchmarks[0].machines[0]: unknown machine 'n'");
	expect_error("kernels: [{ name: k, fragments: [kernels/nope.config] }]\n",
		     "1:34: kernels[0].fragments[0]: no such fragment file 'kernels/nope.config'");
	expect_error("machines: [{ name: m, backend: command }]\n",
		     "1:32: machines[0].backend: the command backend needs 'command'");
	expect_error("machines: [{ name: m }]\nbenchmarks: [{ name: b }]\n",
		     "2:22: benchmarks[0].name: benchmark 'b' runs on a kernel machine but names "
		     "no 'test'");
	expect_error("machines: [{ name: m, sockets: 2, distances: [[10, 20], [20]] }]\n",
		     "1:57: machines[0].distances[1]: expected a list of 2 distances (a square "
		     "matrix)");
	expect_error("machines: [{ name: m, sockets: 2, distances: [[10]] }]\n",
		     "1:46: machines[0].distances: 1 x 1 distances for 2 nodes (one node per "
		     "socket)");
	/* A guest's volumes: the host's pool, or faultline's own in pool_dir. */
	expect_error("machines: [{ name: m, pool: images, pool_dir: /srv/fl }]\n",
		     "1:47: machines[0].pool_dir: 'pool_dir' is the directory of the pool "
		     "faultline creates; with 'pool' the pool 'images' is the host's own");
	expect_error("machines: [{ name: m, pool_dir: srv/fl }]\n",
		     "1:33: machines[0].pool_dir: 'srv/fl' is not an absolute path on the host");
	expect_error("machines: [{ name: m, pool: '' }]\n",
		     "1:29: machines[0].pool: expected a non-empty string");
}

/* Trees: a branch, its base and interval; contained-tag bases from another
 * tree; a tree that watches nothing, and keys that need another, refused. */
static void test_tree_watch(void **state)
{
	struct fl_config *cfg;

	(void)state;
	assert_int_equal(load("trees:\n"
			      "  - { name: mainline, url: /srv/m }\n"
			      "  - { name: next, url: /srv/n, tags: ['next-*'], baseline: "
			      "contained-tag,\n"
			      "      baseline_tree: mainline, baseline_tags: ['v*'] }\n"
			      "  - { name: mm, url: /srv/n, tags: [], branch: mm-unstable,\n"
			      "      branch_base: v6.1, branch_interval: 1d }\n",
			      &cfg),
			 0);
	assert_string_equal(cfg->trees[1].baseline, "contained-tag");
	assert_string_equal(cfg->trees[1].baseline_tree, "mainline");
	assert_int_equal(cfg->trees[1].nbaseline_tags, 1);
	assert_int_equal(cfg->trees[2].ntags, 0);
	assert_string_equal(cfg->trees[2].branch, "mm-unstable");
	assert_string_equal(cfg->trees[2].branch_base, "v6.1");
	assert_int_equal(cfg->trees[2].branch_interval_ms, 86400000);
	fl_config_free(cfg);
	expect_error("trees: [{ name: t, url: /srv/t, tags: [] }]\n",
		     "1:39: trees[0].tags: tree 't' watches nothing: no tag pattern and no 'branch'");
	expect_error("trees: [{ name: t, url: /srv/t, baseline: contained-tag, baseline_tree: m }]\n",
		     "1:73: trees[0].baseline_tree: no tree 'm' (baseline_tree)");
	expect_error("trees: [{ name: t, url: /srv/t, baseline_tags: ['v*'] }]\n",
		     "1:48: trees[0].baseline_tags: 'baseline_tags' is for 'baseline: contained-tag' "
		     "(baseline is 'previous-tag')");
	expect_error("trees: [{ name: t, url: /srv/t, branch_base: v1 }]\n",
		     "1:46: trees[0].branch_base: 'branch_base' is for a watched 'branch'");
	expect_error("trees: [{ name: t, url: /srv/t, baseline: contained-tag, "
		     "baseline_tags: ['v[1'] }]\n",
		     "1:74: trees[0].baseline_tags[0]: 'v[1' is not a tag pattern: a '[' without "
		     "its ']' (write '\\[' for the character)");
}

/* The cgroup contexts: the root by default; child with its hierarchy and
 * limits; a context twice, child without a page-fault test, limits without
 * a child are refused by place. */
static void test_cgroups(void **state)
{
	struct fl_config *cfg;

	(void)state;
	assert_int_equal(load("benchmarks: [{ name: b, test: page_fault2 }]\n", &cfg), 0);
	assert_int_equal(cfg->benchmarks[0].ncgroups, 1);
	assert_string_equal(cfg->benchmarks[0].cgroups[0], "root");
	assert_string_equal(cfg->benchmarks[0].cgroup_version, "v2");
	assert_int_equal(cfg->benchmarks[0].memory_max, 0);
	fl_config_free(cfg);
	assert_int_equal(load("benchmarks: [{ name: b, test: page_fault2, cgroup: [root, child],\n"
			      "  cgroup_version: v1, memory_max: 512M, memory_high: 256M }]\n",
			      &cfg),
			 0);
	assert_int_equal(cfg->benchmarks[0].ncgroups, 2);
	assert_string_equal(cfg->benchmarks[0].cgroups[1], "child");
	assert_string_equal(cfg->benchmarks[0].cgroup_version, "v1");
	assert_int_equal(cfg->benchmarks[0].memory_max, 512ULL << 20);
	assert_int_equal(cfg->benchmarks[0].memory_high, 256ULL << 20);
	fl_config_free(cfg);
	expect_error("benchmarks: [{ name: b, test: page_fault2, cgroup: [child, child] }]\n",
		     "1:60: benchmarks[0].cgroup[1]: cgroup 'child' is listed twice");
	expect_error(
	    "benchmarks: [{ name: b, test: page_fault2, cgroup: [leaf] }]\n",
	    "1:53: benchmarks[0].cgroup[0]: unknown value 'leaf' (expected one of: root, child)");
	expect_error("machines: [{ name: m, backend: command, command: 'true' }]\n"
		     "benchmarks: [{ name: b, cgroup: [child] }]\n",
		     "2:33: benchmarks[0].cgroup: 'cgroup' means nothing to benchmark 'b': it "
		     "runs only on command machines, which run their command (a command "
		     "benchmark's keys: name, repeat, max_repeat, direction, machines)");
	expect_error("benchmarks: [{ name: b, test: page_fault2, memory_max: 1G }]\n",
		     "1:56: benchmarks[0].memory_max: memory limits apply to the child cgroup, "
		     "which 'cgroup' does not list");
}

/* test: takes the table's tests (proto/testdef.h), and the table checks
 * the benchmark's parameters for its test. */
static void test_tests(void **state)
{
	struct fl_config *cfg;

	(void)state;
	for (size_t i = 0; fl_testdef_names[i]; i++) {
		char text[256];

		snprintf(text, sizeof(text), "benchmarks: [{ name: b, test: %s }]\n",
			 fl_testdef_names[i]);
		assert_int_equal(load(text, &cfg), 0);
		assert_string_equal(cfg->benchmarks[0].test, fl_testdef_names[i]);
		fl_config_free(cfg);
	}
	expect_error("benchmarks: [{ name: b, test: page_falut2 }]\n",
		     "1:31: benchmarks[0].test: unknown value 'page_falut2' (did you mean "
		     "'page_fault2'?)");
	expect_error("benchmarks: [{ name: b, test: page_fault1, memory_per_task: 1K }]\n",
		     "1:61: benchmarks[0].memory_per_task: page_fault1: 1024 "
		     "bytes per task is less than a page (4096): one fault per mapping would "
		     "measure mmap, not page faults");
}

static void test_environment(void **state)
{
	struct fl_config *cfg;

	(void)state;
	setenv("FL_TEST_PASSWORD", "s3cret", 1);
	assert_int_equal(load("report: { smtp: 'smtp://h:25', to: [a@b], password: "
			      "'${FL_TEST_PASSWORD}' }\n",
			      &cfg),
			 0);
	assert_string_equal(cfg->report.password, "s3cret");
	fl_config_free(cfg);
	unsetenv("FL_TEST_UNSET_VAR");
	expect_error("report: { password: 'x${FL_TEST_UNSET_VAR}' }\n",
		     "1:21: report.password: environment variable 'FL_TEST_UNSET_VAR' is not set");
	/* ${VAR:-word}: word when VAR is unset or empty, VAR otherwise */
	assert_int_equal(load("var: '${FL_TEST_UNSET_VAR:-var/demo}/x'\n", &cfg), 0);
	assert_string_equal(cfg->var, "var/demo/x");
	fl_config_free(cfg);
	setenv("FL_TEST_EMPTY_VAR", "", 1);
	assert_int_equal(load("var: '${FL_TEST_EMPTY_VAR:-d}'\n", &cfg), 0);
	assert_string_equal(cfg->var, "d");
	fl_config_free(cfg);
	assert_int_equal(load("var: '${FL_TEST_PASSWORD:-d}'\n", &cfg), 0);
	assert_string_equal(cfg->var, "s3cret");
	fl_config_free(cfg);
}

static void test_several_errors(void **state)
{
	struct fl_config *cfg;
	const char *msg;

	(void)state;
	assert_int_equal(load("machines:\n  - { name: a, socket: 1 }\n  - { name: b, cores: x }\n",
			      &cfg),
			 FL_EINVAL);
	msg = fl_error_last();
	assert_non_null(strstr(msg, ":2:16: machines[0]: unknown key 'socket'"));
	assert_non_null(strstr(msg, "\n"));
	assert_non_null(strstr(msg, ":3:23: machines[1].cores: expected an integer"));
}

static void test_syntax_and_io(void **state)
{
	struct fl_config *cfg;

	(void)state;
	expect_error("trees: [\n", "2:1: YAML syntax error: did not find expected node content "
				   "while parsing a flow node");
	assert_int_equal(fl_config_load(&cfg, "/nonexistent/x.yaml"), FL_EIO);
	assert_string_equal(fl_error_last(),
			    "/nonexistent/x.yaml: cannot open: No such file or directory");
}

/*
 * What a careless or hostile file does to the loader: deep nesting was
 * parsed in time growing with its square (100000 levels: 39 s), a second
 * document was silently ignored, and a tag pattern that matches nothing
 * was taken.
 */
static void test_hostile_yaml(void **state)
{
	size_t depth = 100000;
	char *deep = malloc(2 * depth + 16);
	struct fl_config *cfg;
	int64_t t0;

	(void)state;
	memcpy(deep, "trees: ", 7);
	memset(deep + 7, '[', depth);
	memset(deep + 7 + depth, ']', depth);
	strcpy(deep + 7 + 2 * depth, "\n");
	t0 = fl_mono_ms();
	expect_error(deep, "1:39: nested more than 32 levels deep");
	assert_true(fl_mono_ms() - t0 < 2000);
	free(deep);
	expect_error("var: a\n---\nvar: b\n",
		     "2:1: a second YAML document: a configuration is one document (remove the "
		     "'---' or what follows it)");
	expect_error("trees: [{ name: t, url: /x, tags: ['['] }]\n",
		     "1:36: trees[0].tags[0]: '[' is not a tag pattern: a '[' without its ']' "
		     "(write '\\[' for the character)");
	expect_error("trees: [{ name: t, url: /x, tags: ['v1\\'] }]\n",
		     "1:36: trees[0].tags[0]: 'v1\\' is not a tag pattern: it ends in a lone '\\'");
	/* a commit URL template: http(s), one %s, nothing else after a % but %% */
	expect_error("trees: [{ name: t, url: /x, web_url: 'ftp://h/%s' }]\n",
		     "1:38: trees[0].web_url: web_url 'ftp://h/%s': expected an http:// or https:// "
		     "URL");
	expect_error("trees: [{ name: t, url: /x, web_url: 'https://h/?id=%d' }]\n",
		     "1:38: trees[0].web_url: web_url 'https://h/?id=%d': only %s (the commit's "
		     "sha) and %% may follow a %");
	expect_error("trees: [{ name: t, url: /x, web_url: 'https://h/%s/%s' }]\n",
		     "1:38: trees[0].web_url: web_url 'https://h/%s/%s': expected one %s where the "
		     "commit's sha goes");
	assert_int_equal(load("trees: [{ name: t, url: /x, web_url: 'https://h/%%7e/?id=%s' }]\n",
			      &cfg),
			 0);
	assert_string_equal(cfg->trees[0].web_url, "https://h/%%7e/?id=%s");
	fl_config_free(cfg);
	assert_int_equal(load("trees: [{ name: t, url: /x, tags: ['v[0-9]*', 'v[!a]*', 'v[]]', "
			      "'v\\[', '[[:digit:]]*'] }]\n",
			      &cfg),
			 0);
	fl_config_free(cfg);
	/* one document with its markers is one document */
	assert_int_equal(load("---\nvar: a\n...\n", &cfg), 0);
	fl_config_free(cfg);
}

/* A CR LF in a recipient made the SMTP server receive a second RCPT TO. */
static void test_mail_addresses(void **state)
{
	(void)state;
	expect_error("report: { to: [\"dev@example.org>\\r\\nRCPT TO:<evil@example.org\"] }\n",
		     "1:16: report.to[0]: mail address 'dev@example.org>\\r\\nRCPT "
		     "TO:<evil@example.org': a control character in it would end the SMTP command");
	expect_error("report: { from: 'robot <robot@x> <evil@y>' }\n",
		     "1:17: report.from: mail address 'robot <robot@x> <evil@y>': expected "
		     "'user@host' or 'Name <user@host>'");
	expect_error("report: { to: [dev] }\n",
		     "1:16: report.to[0]: 'dev' is not a mail address (expected 'user@host' or "
		     "'Name <user@host>')");
}

/* The servers' limits: defaults that keep one client from locking out the rest. */
static void test_server_limits(void **state)
{
	struct fl_config *cfg;

	(void)state;
	assert_int_equal(fl_config_defaults(&cfg), 0);
	assert_int_equal(cfg->web.limits.connections, 256);
	assert_int_equal(cfg->web.limits.per_client, 32);
	assert_int_equal(cfg->web.limits.header_timeout_ms, 10000);
	assert_int_equal(cfg->web.limits.body_max, 0);
	assert_int_equal(cfg->agent_api.limits.connections, 64);
	assert_int_equal(cfg->agent_api.limits.per_client, 8);
	assert_int_equal(cfg->agent_api.limits.header_timeout_ms, 10000);
	assert_int_equal(cfg->agent_api.limits.body_timeout_ms, 60000);
	assert_int_equal(cfg->agent_api.limits.body_max, 8 << 20);
	fl_config_free(cfg);
	assert_int_equal(load("web: { max_per_client: 4, header_timeout: 3s }\n"
			      "agent_api: { max_body: 64K, body_timeout: 5s }\n",
			      &cfg),
			 0);
	assert_int_equal(cfg->web.limits.per_client, 4);
	assert_int_equal(cfg->web.limits.header_timeout_ms, 3000);
	assert_int_equal(cfg->agent_api.limits.body_max, 65536);
	assert_int_equal(cfg->agent_api.limits.body_timeout_ms, 5000);
	fl_config_free(cfg);
	expect_error("web: { header_timeout: 500ms }\n",
		     "1:24: web.header_timeout: a header timeout is at least 1s");
	expect_error(
	    "agent_api: { max_body: 1K }\n",
	    "1:24: agent_api.max_body: at least 64K: a box's facts and batches of records");
	expect_error("web: { max_connections: 0 }\n",
		     "1:25: web.max_connections: expected an integer from 1 to 100000, got '0'");
}

/* The worker section and a machine pinned to one host's workers. */
static void test_worker(void **state)
{
	struct fl_config *cfg;

	(void)state;
	assert_int_equal(fl_config_defaults(&cfg), 0);
	assert_null(cfg->worker.host);
	assert_int_equal(cfg->worker.lease_ms, 30000);
	fl_config_free(cfg);
	assert_int_equal(load("worker: { host: lab1, lease: 10s }\n"
			      "machines: [ { name: m, backend: command, command: x, "
			      "worker_host: lab1 } ]\n",
			      &cfg),
			 0);
	assert_string_equal(cfg->worker.host, "lab1");
	assert_int_equal(cfg->worker.lease_ms, 10000);
	assert_string_equal(cfg->machines[0].worker_host, "lab1");
	fl_config_free(cfg);
	expect_error("worker: { lease: 2s }\n", "1:18: worker.lease: a worker's lease is at least 3s");
}

/* A key another backend reads is refused where it is written, and a
 * machine or benchmark prints only what its backend reads (issue 39). */
static void test_backend_keys(void **state)
{
	struct fl_config *cfg;
	char *text = NULL;
	size_t len;
	FILE *f;

	(void)state;
	expect_error("machines: [{ name: m, backend: command, command: 'true', sockets: 4 }]\n",
		     "1:67: machines[0].sockets: 'sockets' means nothing to a command machine "
		     "(its own keys: command, timeout; every machine's: name, backend, "
		     "max_parallel, max_infra_errors, worker_host)");
	expect_error("machines: [{ name: m, command: 'true' }]\n",
		     "1:32: machines[0].command: 'command' means nothing to a libvirt machine (its "
		     "own keys: uri, pool, pool_dir, accel, sockets, cores, threads, "
		     "memory_per_node, distances, boot_timeout, cmdline; every machine's: name, "
		     "backend, max_parallel, max_infra_errors, worker_host)");
	expect_error("machines: [{ name: m, backend: command, command: 'true' }]\n"
		     "benchmarks: [{ name: b, repeat: 2,\n"
		     "               test: page_fault2 }]\n",
		     "3:22: benchmarks[0].test: 'test' means nothing to benchmark 'b': it runs "
		     "only on command machines, which run their command (a command benchmark's "
		     "keys: name, repeat, max_repeat, direction, machines)");
	/* on a kernel machine and a command machine: the kernel's keys count */
	assert_int_equal(load("machines: [{ name: m, backend: command, command: 'true' },\n"
			      "           { name: g }]\n"
			      "benchmarks: [{ name: b, test: page_fault2, tasks: [1, 2] }]\n",
			      &cfg),
			 0);
	fl_config_free(cfg);
	assert_int_equal(load("machines: [{ name: m, backend: command, command: 'true' }]\n"
			      "benchmarks: [{ name: b, direction: lower }]\n",
			      &cfg),
			 0);
	f = open_memstream(&text, &len);
	fl_config_print(cfg, f);
	fclose(f);
	assert_non_null(strstr(text, "command: \"true\""));
	assert_non_null(strstr(text, "direction: \"lower\""));
	assert_non_null(strstr(text, "max_parallel: 1"));
	assert_non_null(strstr(text, "timeout: 1h"));
	for (size_t i = 0; i < 6; i++) {
		static const char *const libvirt[] = {
		    " uri:", " accel:", " sockets:", " modes:", " tasks:", " boot_timeout:"};

		if (strstr(text, libvirt[i]))
			fail_msg("'%s' printed for a command machine:\n%s", libvirt[i], text);
	}
	fl_config_free(cfg);
	free(text);
}

/* report.url unset follows web.listen: the mail's links open the pages
 * "faultline serve" answers (they said 127.0.0.1:8080 whatever it was). */
static void test_report_url(void **state)
{
	struct fl_config *cfg;
	char host[256] = "", want[300];

	(void)state;
	assert_int_equal(load("web: { listen: \"127.0.0.1:8765\" }\n", &cfg), 0);
	assert_string_equal(cfg->report.url, "http://127.0.0.1:8765");
	fl_config_free(cfg);
	assert_int_equal(load("web: { listen: \"0.0.0.0:8765\" }\n", &cfg), 0);
	assert_int_equal(gethostname(host, sizeof(host) - 1), 0);
	snprintf(want, sizeof(want), "http://%s:8765", host);
	assert_string_equal(cfg->report.url, want);
	fl_config_free(cfg);
	assert_int_equal(load("web: { listen: \"127.0.0.1:8765\" }\n"
			      "report: { url: \"https://perf.example.org\" }\n",
			      &cfg),
			 0);
	assert_string_equal(cfg->report.url, "https://perf.example.org");
	fl_config_free(cfg);
}

static void test_print_roundtrip(void **state)
{
	struct fl_config *cfg, *again;
	char out[64];
	FILE *f;

	(void)state;
	assert_int_equal(fl_config_load(&cfg, "configs/example.yaml"), 0);
	snprintf(out, sizeof(out), "/tmp/fl-test-print-%d.yaml", (int)getpid());
	f = fopen(out, "w");
	fl_config_print(cfg, f);
	fclose(f);
	assert_int_equal(fl_config_load(&again, out), 0);
	assert_int_equal(again->nmachines, cfg->nmachines);
	assert_int_equal(again->machines[0].memory_per_node, cfg->machines[0].memory_per_node);
	assert_int_equal(again->benchmarks[0].tasks[1].percent, 1);
	assert_int_equal(again->trees[0].poll_ms, cfg->trees[0].poll_ms);
	fl_config_free(again);
	fl_config_free(cfg);
	unlink(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example_loads),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_build_artifacts),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_store_url),
		cmocka_unit_test(test_types_and_units),
		cmocka_unit_test(test_missing_and_duplicates),
		cmocka_unit_test(test_references),
		cmocka_unit_test(test_tree_watch),
		cmocka_unit_test(test_cgroups),
		cmocka_unit_test(test_tests),
		cmocka_unit_test(test_environment),
		cmocka_unit_test(test_several_errors),
		cmocka_unit_test(test_syntax_and_io),
		cmocka_unit_test(test_backend_keys),
		cmocka_unit_test(test_report_url),
		cmocka_unit_test(test_print_roundtrip),
		cmocka_unit_test(test_hostile_yaml),
		cmocka_unit_test(test_mail_addresses),
		cmocka_unit_test(test_server_limits),
		cmocka_unit_test(test_worker),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
