/*
 * bench/web.c - how fast the results pages answer on a big store.
 *
 *   web [--runs N] [--seconds S] [--clients C] [--threads T] [--fill-only PATH]
 *
 * Fills a fresh store with N runs (default 100000) of 10 samples each (1M
 * samples) over 2000 commits, 2 benchmarks and 2 machines, plus
 * regressions, bisections and reports, and the watch service's tables (20
 * tags with their compare jobs and comparison rows, a tag still being
 * measured, every bisection step's run job, a broken machine), with its
 * own bulk inserts (one transaction, prepared statements); starts the
 * real "faultline serve" on
 * a loopback port; then for each endpoint runs C concurrent libcurl
 * clients (default 4, keep-alive) for S seconds (default 3) and one
 * sequential client, and prints requests per second and median / p90
 * latency. References on the same machine: the server's own static route
 * (/static/faultline.css: the same HTTP stack and threads without the
 * store or a page to render, so the ratio is what a page costs), and
 * python3 -m http.server serving the same file (a common static server,
 * for scale). Target: median page latency under 50 ms.
 */
#include "lib/buf.h"
#include "service/pipeline.h"
#include "store/store.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NCOMMITS 2000
#define STEP_AT	 1500 /* page_fault2 drops 20% here */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void die(const char *what, sqlite3 *db)
{
	fprintf(stderr, "bench/web: %s: %s\n", what, db ? sqlite3_errmsg(db) : "failed");
	exit(1);
}

static void exec(sqlite3 *db, const char *sql)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		die(sql, db);
}

static sqlite3_stmt *prep(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		die(sql, db);
	return s;
}

static void step(sqlite3 *db, sqlite3_stmt *s)
{
	if (sqlite3_step(s) != SQLITE_DONE)
		die("insert", db);
	sqlite3_reset(s);
}

static void sha_of(char *sha, int i)
{
	snprintf(sha, 41, "%08x%032x", 0x9e3779b9u * (unsigned)(i + 1), i);
}

/* Runs spread evenly over the commits: benchmark, machine, then repeats. */
static void fill_runs(sqlite3 *db, long nruns)
{
	static const char *const modes[] = {"processes", "threads"};
	static const unsigned tasks[] = {1, 2, 4, 8, 16};
	/* as the run path writes them: commit and build; every tenth is an older row
	 * without runs.commit_id, found through its build */
	sqlite3_stmt *run =
	    prep(db, "INSERT INTO runs(build_id, machine_id, benchmark, params, "
		     "status, console, started, finished, commit_id) VALUES (?1, ?2, "
		     "?3, '{\"repeat\":12}', 'ok', ?4, ?5, ?5 + 20, ?6)");
	sqlite3_stmt *sample = prep(db, "INSERT INTO samples(run_id, metric, mode, tasks, seq, "
					"value) VALUES (?1, 'ops_per_sec', ?2, ?3, 0, ?4)");
	uint64_t rng = 42;

	for (long k = 0; k < nruns; k++) {
		int commit = (int)(k * NCOMMITS / nruns), bench = (int)(k % 2),
		    machine = (int)(k / 2 % 2);
		double drop = bench == 0 && commit >= STEP_AT ? 0.8 : 1.0;
		int64_t id;

		sqlite3_bind_int64(run, 1, commit + 1);
		sqlite3_bind_int64(run, 2, machine + 1);
		sqlite3_bind_text(run, 3, bench ? "page_fault1" : "page_fault2", -1, SQLITE_STATIC);
		sqlite3_bind_text(run, 4, k % 1000 ? NULL : "Linux version 6.1.0\nfl-agent: ok\n",
				  -1, SQLITE_STATIC);
		sqlite3_bind_int64(run, 5, 1400000000 + k * 60);
		if (k % 10)
			sqlite3_bind_int64(run, 6, commit + 1);
		else
			sqlite3_bind_null(run, 6);
		step(db, run);
		id = sqlite3_last_insert_rowid(db);
		for (int m = 0; m < 2; m++)
			for (int t = 0; t < 5; t++) {
				rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
				sqlite3_bind_int64(sample, 1, id);
				sqlite3_bind_text(sample, 2, modes[m], -1, SQLITE_STATIC);
				sqlite3_bind_int64(sample, 3, tasks[t]);
				sqlite3_bind_double(
				    sample, 4,
				    250000.0 * tasks[t] * drop *
					(0.95 + 0.1 * (double)(rng >> 40) / (1 << 24)));
				step(db, sample);
			}
	}
	sqlite3_finalize(run);
	sqlite3_finalize(sample);
}

static void fill_rest(sqlite3 *db)
{
	char sql[512];

	for (int b = 1; b <= 50; b++) {
		snprintf(
		    sql, sizeof(sql),
		    "INSERT INTO bisections(regression_id, good, bad, state, result, culprit, "
		    "confidence) SELECT NULL, a.sha, z.sha, 'finished', 'culprit', z.sha, 0.97 "
		    "FROM commits a, commits z WHERE a.id = %d AND z.id = %d",
		    STEP_AT - 10 + b % 5, STEP_AT + 1);
		exec(db, sql);
		for (int k = 0; k < 20; k++) {
			snprintf(sql, sizeof(sql),
				 "INSERT INTO bisect_steps(bisection_id, seq, commit_sha, status, "
				 "samples, verdict, confidence) SELECT %d, %d, sha, 'ok', "
				 "'[250000,251000,249500,250500,252000]', 'good', %g FROM commits "
				 "WHERE id = %d",
				 b, k, 0.05 * k, STEP_AT - 10 + k);
			exec(db, sql);
		}
	}
	for (int r = 1; r <= 100; r++) {
		snprintf(
		    sql, sizeof(sql),
		    "INSERT INTO regressions(tree_id, good_commit, bad_commit, benchmark, "
		    "machine_id, metric, mode, tasks, change, p_value, state) VALUES (1, %d, %d, "
		    "'page_fault2', 1, 'ops_per_sec', 'threads', 16, -20.0, 0.001, '%s')",
		    STEP_AT, STEP_AT + 1, r % 10 ? "closed" : "open");
		exec(db, sql);
		snprintf(
		    sql, sizeof(sql),
		    "INSERT INTO reports(regression_id, message_id, subject, body, state) VALUES "
		    "(%d, '<%d@bench>', 'faultline noticed a -20%% regression', 'body', 'sent')",
		    r, r);
		exec(db, sql);
	}
}

/*
 * The watch service: tag v6.K on every 100th commit, each against the one
 * before, a finished compare job (the tag at the step worse, the others
 * the same) with its rows on page_fault2/numa2, the newest tag still
 * measuring (24 run jobs, half done); regressions 1-5 found by that
 * comparison; each bisection step's run job with its run; numa8 broken.
 */
static void fill_service(sqlite3 *db)
{
	char sql[1024];

	for (int k = 1; k < NCOMMITS / 100; k++) {
		int last = k == NCOMMITS / 100 - 1, worse = k * 100 == STEP_AT;

		snprintf(
		    sql, sizeof(sql),
		    "INSERT INTO watch_tags(tree_id, tag, commit_id, baseline, baseline_commit, "
		    "state) VALUES (1, 'v6.%d', %d, 'v6.%d', %d, 'scheduled');"
		    "INSERT INTO jobs(kind, key, state, tree, machine, benchmark, tag_id, "
		    "result) VALUES ('compare', 'compare:%d:page_fault2:numa2', '%s', "
		    "'mainline', 'numa2', 'page_fault2', %d, %s)",
		    k, k * 100 + 1, k - 1, (k - 1) * 100 + 1, k, last ? "waiting" : "done", k,
		    last    ? "NULL"
		    : worse ? "'regression'"
			    : "'same'");
		exec(db, sql);
		for (int m = 0; m < 2 && !last; m++)
			for (int t = 1; t <= 16; t *= 2) {
				snprintf(
				    sql, sizeof(sql),
				    "INSERT INTO comparisons(job_id, what, base_commit, "
				    "new_commit, benchmark, machine_id, metric, mode, tasks, "
				    "is_primary, base_runs, base_mean, base_stddev, new_runs, "
				    "new_mean, new_stddev, change, p_value, verdict, class) "
				    "VALUES ((SELECT max(id) FROM jobs), 'tag', %d, %d, "
				    "'page_fault2', 1, 'ops_per_sec', "
				    "'%s', %d, 1, 12, %d, 5000, 12, %d, 5000, %s, 0.001, '%s', "
				    "'%s')",
				    (k - 1) * 100 + 1, k * 100 + 1, m ? "threads" : "processes", t,
				    250000 * t, worse ? 200000 * t : 250000 * t,
				    worse ? "-20.0" : "0.1", worse ? "different" : "same",
				    worse ? "regression" : "same");
				exec(db, sql);
			}
	}
	for (int i = 0; i < 24; i++) {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO jobs(kind, key, parent_id, state, tree, machine, benchmark, "
			 "rev, role, seq, attempts) SELECT 'run', 'run:last:%d', (SELECT id FROM "
			 "jobs WHERE kind = 'compare' AND state = 'waiting'), '%s', 'mainline', "
			 "'numa2', 'page_fault2', sha, '%s', %d, %d FROM commits WHERE id = %d",
			 i,
			 i < 12	   ? "done"
			 : i == 12 ? "running"
				   : "queued",
			 i % 2 ? "new" : "base", i, i <= 12,
			 i % 2 ? NCOMMITS - 99 : NCOMMITS - 199);
		exec(db, sql);
	}
	exec(db, "UPDATE regressions SET job_id = (SELECT id FROM jobs WHERE result = "
		 "'regression') WHERE id = 1;"
		 "UPDATE machines SET state = 'broken', infra_errors = 3, state_reason = "
		 "'libvirt: cannot connect' WHERE name = 'numa8';"
		 "INSERT INTO jobs(kind, key, state, tree, machine, benchmark, rev, role, seq, "
		 "attempts, result, run_id) SELECT 'run', 'run:bisection:' || s.bisection_id || "
		 "':' || s.seq || ':' || s.commit_sha, 'done', 'mainline', 'numa2', "
		 "'page_fault2', s.commit_sha, 'bisect', s.seq, 1, 'ok', (SELECT min(r.id) FROM "
		 "runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = s.commit_sha) FROM "
		 "bisect_steps s;"
		 "UPDATE runs SET job_id = (SELECT id FROM jobs j WHERE j.run_id = runs.id) "
		 "WHERE id IN (SELECT run_id FROM jobs WHERE kind = 'run');"
		 /* what the service says with its words for an ended job (store/jobs.h) */
		 "UPDATE jobs SET ended = 1 WHERE state IN ('done', 'failed');");
}

static void fill(const char *path, long nruns)
{
	sqlite3_stmt *commit, *build;
	fl_store *st;
	sqlite3 *db;
	double t0 = now();

	/* the schema, through the store's migrations, and the service's job kinds */
	if (fl_store_open(&st, path, 0) || fl_pipeline_register(st))
		die("create store", NULL);
	fl_store_free(st);
	if (sqlite3_open(path, &db) != SQLITE_OK)
		die("open", db);
	exec(db, "PRAGMA synchronous = OFF; BEGIN;"
		 "INSERT INTO trees(name, url) VALUES ('mainline', '/srv/linux.git');"
		 "INSERT INTO machines(name, backend) VALUES ('numa2', 'libvirt'), "
		 "('numa8', 'libvirt');");
	/* a commit's depth as the run path stores it (migration 16): the pages' history order */
	commit = prep(db, "INSERT INTO commits(tree_id, sha, subject, author, time, depth) VALUES "
			  "(1, ?1, ?2, 'A. Developer', ?3, ?4)");
	build = prep(db, "INSERT INTO builds(commit_id, kernel, config_hash, compiler, status) "
			 "VALUES (?1, 'guest', 'cfg', 'gcc-12', 'ok')");
	for (int i = 0; i < NCOMMITS; i++) {
		char sha[41], subject[64];

		sha_of(sha, i);
		snprintf(subject, sizeof(subject), "mm: change number %d", i);
		sqlite3_bind_text(commit, 1, sha, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(commit, 2, subject, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(commit, 3, 1400000000 + 3600LL * i);
		sqlite3_bind_int64(commit, 4, 100000 + i);
		step(db, commit);
		sqlite3_bind_int64(build, 1, i + 1);
		step(db, build);
	}
	sqlite3_finalize(commit);
	sqlite3_finalize(build);
	fill_runs(db, nruns);
	fill_rest(db);
	fill_service(db);
	exec(db, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE); ANALYZE;");
	sqlite3_close(db);
	fprintf(stderr, "bench/web: filled %ld runs, %ld samples in %.1f s\n", nruns, nruns * 10,
		now() - t0);
}

/* Starts argv with stdout on a pipe; the first line matching prefix gives the URL or port. */
static pid_t start(char *const argv[], char *line, size_t n, int quiet)
{
	int out[2];
	size_t len = 0;
	struct pollfd pfd;
	pid_t pid;

	if (pipe(out))
		exit(1);
	pid = fork();
	if (pid == 0) {
		dup2(out[1], 1);
		if (quiet) /* python's request log */
			dup2(open("/dev/null", O_WRONLY), 2);
		close(out[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(out[1]);
	pfd = (struct pollfd){out[0], POLLIN, 0};
	while (len < n - 1 && poll(&pfd, 1, 30000) == 1) {
		char c;

		if (read(out[0], &c, 1) != 1 || c == '\n')
			break;
		line[len++] = c;
	}
	line[len] = '\0';
	close(out[0]);
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

static size_t discard(char *p, size_t size, size_t n, void *ctx)
{
	(void)p;
	*(size_t *)ctx += size * n;
	return size * n;
}

struct client {
	pthread_t thread;
	const char *url;
	double until;
	long max; /* requests; 0: until the deadline */
	double *lat;
	size_t n, alloc, bytes;
	long errors;
};

static void *client_run(void *arg)
{
	struct client *c = arg;
	CURL *h = curl_easy_init();

	curl_easy_setopt(h, CURLOPT_URL, c->url);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &c->bytes);
	while (c->max ? (long)c->n < c->max : now() < c->until) {
		double t = now();
		long status = 0;

		if (curl_easy_perform(h) != CURLE_OK ||
		    (curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status), status != 200))
			c->errors++;
		if (c->n == c->alloc)
			c->lat = fl_xrealloc(c->lat, (c->alloc = c->alloc ? 2 * c->alloc : 1024) *
							 sizeof(double));
		c->lat[c->n++] = now() - t;
	}
	curl_easy_cleanup(h);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct result {
	double rps, median, p90;
	size_t bytes;
	long errors;
};

/* nclients clients on url for 'seconds' (or max requests each); latencies in ms. */
static struct result measure(const char *url, int nclients, double seconds, long max)
{
	struct client *c = fl_xcalloc((size_t)nclients, sizeof(*c));
	struct result r = {0};
	double t0 = now(), *all;
	size_t n = 0, k = 0;

	for (int i = 0; i < nclients; i++) {
		c[i] = (struct client){.url = url, .until = t0 + seconds, .max = max};
		pthread_create(&c[i].thread, NULL, client_run, &c[i]);
	}
	for (int i = 0; i < nclients; i++) {
		pthread_join(c[i].thread, NULL);
		n += c[i].n;
		r.errors += c[i].errors;
	}
	r.rps = (double)n / (now() - t0);
	all = fl_xmalloc((n ? n : 1) * sizeof(double));
	for (int i = 0; i < nclients; i++) {
		memcpy(all + k, c[i].lat, c[i].n * sizeof(double));
		k += c[i].n;
		r.bytes = c[i].n ? c[i].bytes / c[i].n : r.bytes;
		free(c[i].lat);
	}
	qsort(all, n, sizeof(double), cmp_double);
	r.median = n ? 1e3 * all[n / 2] : 0;
	r.p90 = n ? 1e3 * all[n * 9 / 10] : 0;
	free(all);
	free(c);
	return r;
}

struct endpoint {
	const char *name, *path;
	int page; /* counts for the 50 ms target */
};

int main(int argc, char **argv)
{
	long nruns = 100000;
	double seconds = 3;
	int clients = 4, threads = 4;
	const char *fill_only = NULL;
	char dir[] = "/tmp/fl-bench-web-XXXXXX", db[128], line[256], url[512], threads_s[16];
	char compare[256], run[64], pyport[256];
	struct result seq_static = {0}, conc_static = {0};
	double worst = 0;
	pid_t server, py;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--runs"))
			nruns = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--seconds"))
			seconds = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--clients"))
			clients = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--threads"))
			threads = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--fill-only"))
			fill_only = argv[i + 1];
	}
	if (nruns < NCOMMITS || clients < 1 || threads < 1 || seconds <= 0) {
		fprintf(stderr,
			"usage: web [--runs N>=%d] [--seconds S] [--clients C] "
			"[--threads T]\n",
			NCOMMITS);
		return 2;
	}
	if (fill_only) { /* a store to look at with sqlite3 */
		fill(fill_only, nruns);
		return 0;
	}
	if (!mkdtemp(dir))
		return 1;
	snprintf(db, sizeof(db), "%s/fl.db", dir);
	fill(db, nruns);
	snprintf(threads_s, sizeof(threads_s), "%d", threads);
	server = start((char *[]){FL_FAULTLINE, "serve", "--db", db, "--root", FL_SOURCE_DIR "/web",
				  "--listen", "127.0.0.1:0", "--threads", threads_s, NULL},
		       line, sizeof(line), 0);
	if (strncmp(line, "http://", 7)) {
		fprintf(stderr, "bench/web: faultline serve did not start\n");
		return 1;
	}
	line[strlen(line) - 1] = '\0'; /* the trailing '/' */
	{
		char a[41], b[41];

		sha_of(a, STEP_AT - 1);
		sha_of(b, STEP_AT);
		snprintf(compare, sizeof(compare),
			 "compare?a=%.12s&b=%.12s&benchmark=page_fault2&machine=numa2", a, b);
		snprintf(run, sizeof(run), "%ld", nruns / 2);
	}
	py = start((char *[]){"python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1",
			      "--directory", FL_SOURCE_DIR "/web/static", NULL},
		   pyport, sizeof(pyport), 1);
	/* "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..." */
	{
		const char *p = strstr(pyport, "port ");

		snprintf(pyport, sizeof(pyport), "%d", p ? atoi(p + 5) : 0);
	}
	struct endpoint eps[] = {
	    {"static /static/faultline.css", "/static/faultline.css", 0},
	    {"python3 http.server, same file", NULL, 0},
	    {"/ (5 tags, jobs in progress)", "/", 1},
	    {"/api/", "/api/", 1},
	    {"/compare (2 kernels, 12+13 runs)", NULL, 1},
	    {"/api/compare", NULL, 1},
	    {"/tree/mainline (19 tags)", "/tree/mainline?benchmark=page_fault2&machine=numa2", 1},
	    {"/api/tree/mainline", "/api/tree/mainline?benchmark=page_fault2&machine=numa2", 1},
	    {"/tree/mainline?by=commit (50 commits)",
	     "/tree/mainline?benchmark=page_fault2&machine=numa2&by=commit", 1},
	    {"/api/tree/mainline?by=commit",
	     "/api/tree/mainline?benchmark=page_fault2&machine=numa2&by=commit", 1},
	    {"/run/N", NULL, 1},
	    {"/api/run/N", NULL, 1},
	    {"/bisect/1 (20 steps)", "/bisect/1", 1},
	    {"/api/bisect/1", "/api/bisect/1", 1},
	    {"/runs?page=1000 (deep page)", "/runs?page=1000", 1},
	    {"/api/regression/5", "/api/regression/5", 1},
	    {"/regression/1 (comparison, runs)", "/regression/1", 1},
	    {"/jobs?state=live", "/jobs?state=live", 1},
	    {"/compare?a=v6.14&b=v6.15 (tags)",
	     "/compare?a=v6.14&b=v6.15&benchmark=page_fault2"
	     "&machine=numa2",
	     1},
	    {"/commit/SHA (50 runs, regressions)", NULL, 1},
	    {"/search?q=SHA prefix", NULL, 1},
	    {"/search?q=change number 1500", "/search?q=change%20number%201500", 1},
	    {"/metrics", "/metrics", 1},
	};
	char paths[6][300];

	snprintf(paths[0], sizeof(paths[0]), "/%s", compare);
	snprintf(paths[1], sizeof(paths[1]), "/api/%s", compare);
	snprintf(paths[2], sizeof(paths[2]), "/run/%s", run);
	snprintf(paths[3], sizeof(paths[3]), "/api/run/%s", run);
	eps[4].path = paths[0];
	eps[5].path = paths[1];
	eps[10].path = paths[2];
	eps[11].path = paths[3];
	{
		char sha[41];

		sha_of(sha, STEP_AT);
		snprintf(paths[4], sizeof(paths[4]), "/commit/%s", sha);
		snprintf(paths[5], sizeof(paths[5]), "/search?q=%.8s", sha);
		eps[19].path = paths[4];
		eps[20].path = paths[5];
	}

	curl_global_init(CURL_GLOBAL_DEFAULT);
	printf("store: %ld runs, %ld samples, %d commits; server: %d threads; %.0f s per "
	       "endpoint with %d concurrent clients, then 200 sequential requests\n\n",
	       nruns, nruns * 10, NCOMMITS, threads, seconds, clients);
	printf("%-38s %10s %9s %9s %10s %9s %9s %8s\n", "endpoint", "bytes", "seq med", "seq p90",
	       "conc req/s", "conc med", "conc p90", "x static");
	for (size_t i = 0; i < sizeof(eps) / sizeof(eps[0]); i++) {
		struct result s, c;

		if (eps[i].path)
			snprintf(url, sizeof(url), "%s%s", line, eps[i].path);
		else if (py > 0 && atoi(pyport) > 0)
			snprintf(url, sizeof(url), "http://127.0.0.1:%s/faultline.css", pyport);
		else
			continue;
		measure(url, 1, 0, 5); /* warm: the thread's connection, the page cache */
		s = measure(url, 1, 0, 200);
		c = measure(url, clients, seconds, 0);
		if (i == 0) {
			seq_static = s;
			conc_static = c;
		}
		printf("%-38s %10zu %7.2fms %7.2fms %10.0f %7.2fms %7.2fms %8.1f%s\n", eps[i].name,
		       s.bytes, s.median, s.p90, c.rps, c.median, c.p90,
		       conc_static.median ? c.median / conc_static.median : 0,
		       s.errors || c.errors ? "  ERRORS" : "");
		if (eps[i].page && c.median > worst)
			worst = c.median;
	}
	printf("\nslowest page median under %d concurrent clients: %.2f ms (target < 50 ms: %s); "
	       "static route: %.0f req/s, %.2f ms sequential median\n",
	       clients, worst, worst < 50 ? "met" : "MISSED", conc_static.rps, seq_static.median);
	curl_global_cleanup();
	stop(server);
	if (py > 0)
		stop(py);
	snprintf(url, sizeof(url), "rm -rf %s", dir);
	return system(url) ? 1 : 0;
}
