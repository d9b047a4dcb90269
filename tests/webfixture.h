/*
 * webfixture.h - what the results-page tests share: a store filled through
 * the store API (and sqlite3 for the tables that have no writer yet: the
 * regressions), a configuration, a copy of web/, and a real "faultline
 * serve" started on an ephemeral loopback port, whose URL is read from
 * its first line of output.
 *
 * The history: tree mainline with NCOMMITS commits an hour apart; commit
 * CULPRIT (05b843012335..., as in the 3.17 thread) makes page_fault2 25%
 * slower; commit XSS has the subject "<script>alert(1)</script>"; commits
 * AMBIG_A and AMBIG_B share the prefix "abcd". Every commit has RUNS runs
 * of page_fault2 on numa2, processes and threads at 1, 2 and 4 tasks, 3
 * samples each. Regression 1 (open) covers CULPRIT-1..CULPRIT+3 with a sent
 * and a pending report; bisection 1 finished on the culprit; bisection 2 is
 * running; the last run is still running, and one run's console holds
 * markup and an invalid UTF-8 byte.
 */
#ifndef FL_WEBFIXTURE_H
#define FL_WEBFIXTURE_H

#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store-bisect.h"
#include "store.h"
#include "testlib.h"

#define WF_NCOMMITS	   20
#define WF_RUNS		   3
#define WF_CULPRIT	   8
#define WF_XSS		   5
#define WF_AMBIG_A	   14
#define WF_AMBIG_B	   15
#define WF_T0		   1409000000LL
#define WF_XSS_SUBJECT	   "<script>alert(1)</script>"
#define WF_CULPRIT_SUBJECT "mm: memcontrol: use root_mem_cgroup res_counter"
#define WF_CONSOLE                                                                                 \
	"Linux version 6.1.0 (fl@ci)\n<script>alert('console')</script>\n</pre><h1>owned</h1>\n"   \
	"bad byte: \xff end\nFLR1 done\n"

struct wf_store {
	char sha[WF_NCOMMITS][41];
	int64_t commit[WF_NCOMMITS];
	int64_t console_run; /* the run with WF_CONSOLE */
	int64_t active_run;  /* still running */
	int64_t nruns;
};

static inline void wf_sha(char *sha, int i)
{
	if (i == WF_CULPRIT)
		snprintf(sha, 41, "05b843012335%028x", i);
	else if (i == WF_AMBIG_A || i == WF_AMBIG_B)
		snprintf(sha, 41, "abcd%036x", i);
	else
		snprintf(sha, 41, "c0%02d%036x", i, i);
}

/* The sample every test can recompute: 25% less from the culprit on, a small spread. */
static inline double wf_value(int commit, const char *mode, unsigned tasks, int run, int seq)
{
	double base = (strcmp(mode, "threads") ? 250000.0 : 200000.0) * tasks;
	double jitter = 1 + 0.01 * ((run * 7 + seq * 3 + (int)tasks) % 5 - 2);

	return base * (commit >= WF_CULPRIT ? 0.75 : 1.0) * jitter;
}

static inline int wf_sql(const char *db, const char *sql)
{
	sqlite3 *h;
	int rc;

	if (sqlite3_open(db, &h) != SQLITE_OK)
		return -1;
	rc = sqlite3_exec(h, sql, NULL, NULL, NULL);
	sqlite3_close(h);
	return rc == SQLITE_OK ? 0 : -1;
}

static inline int wf_runs(fl_store *st, struct wf_store *w, int i, int64_t build, int64_t machine)
{
	static const char *const modes[] = {"processes", "threads"};
	static const unsigned tasks[] = {1, 2, 4};
	struct fl_run_info ri = {
		.build_id = build,
		.machine_id = machine,
		.benchmark = "page_fault2",
		.params = "{\"test\":\"page_fault2\",\"duration\":\"5s\",\"repeat\":3}",
	};

	for (int run = 0; run < WF_RUNS; run++) {
		struct fl_sample s[18];
		size_t n = 0;
		int64_t id;

		for (int m = 0; m < 2; m++)
			for (int t = 0; t < 3; t++)
				for (int seq = 0; seq < 3; seq++)
					s[n++] = (struct fl_sample){
					    "ops_per_sec", modes[m], tasks[t], (unsigned)seq,
					    wf_value(i, modes[m], tasks[t], run, seq)};
		if (fl_store_run_create(st, &ri, &id) || fl_store_samples_add(st, id, s, n) ||
		    fl_store_run_finish(st, id, "ok", i == WF_XSS && !run ? WF_CONSOLE : NULL))
			return -1;
		if (i == WF_XSS && !run)
			w->console_run = id;
		w->nruns++;
	}
	return 0;
}

static inline int wf_bisections(fl_store *st, const struct wf_store *w)
{
	static const int tested[] = {WF_CULPRIT - 1, WF_CULPRIT + 3, WF_CULPRIT + 1,
				     WF_CULPRIT,     WF_CULPRIT - 1, WF_CULPRIT};
	static const char *const verdicts[] = {"", "", "bad", "bad", "good", "bad"};
	int64_t id, id2;
	int resumed;

	if (fl_store_bisection_open(st, w->sha[WF_CULPRIT - 1], w->sha[WF_CULPRIT + 3], &id,
				    &resumed))
		return -1;
	for (size_t k = 0; k < sizeof(tested) / sizeof(tested[0]); k++) {
		double v[5];
		struct fl_bisect_step_rec rec = {k,	      w->sha[tested[k]],     0, v, 5,
						 verdicts[k], 0.3 + 0.13 * (double)k};

		for (int j = 0; j < 5; j++)
			v[j] = wf_value(tested[k], "threads", 4, (int)k, j);
		if (fl_store_bisect_step_add(st, id, &rec))
			return -1;
	}
	if (fl_store_bisection_finish(st, id, "culprit", w->sha[WF_CULPRIT], 0.97) ||
	    fl_store_bisection_open(st, w->sha[1], w->sha[3], &id2, &resumed))
		return -1;
	return 0;
}

/* Fills dir/fl.db; 0 or -1. */
static inline int wf_fill(const char *dir, struct wf_store *w)
{
	char db[600], sql[4096];
	int64_t tree, machine, build, rid;
	fl_store *st;
	struct fl_run_info ri;

	memset(w, 0, sizeof(*w));
	snprintf(db, sizeof(db), "%s/fl.db", dir);
	if (fl_store_open(&st, db, 0) ||
	    fl_store_tree_ensure(st, "mainline", "/srv/linux.git", &tree) ||
	    fl_store_machine_ensure(st, "numa2", "libvirt", &machine))
		return -1;
	for (int i = 0; i < WF_NCOMMITS; i++) {
		struct fl_commit_info c = {w->sha[i], "mm: a plausible change", "A. Developer",
					   WF_T0 + 3600 * i};
		struct fl_build_outcome ok = {"ok", "/var/artifacts/x", NULL, NULL, 1000, 1};

		wf_sha(w->sha[i], i);
		if (i == WF_CULPRIT)
			c.subject = WF_CULPRIT_SUBJECT;
		if (i == WF_XSS)
			c.subject = WF_XSS_SUBJECT;
		if (fl_store_commit_ensure(st, tree, &c, &w->commit[i]) ||
		    fl_store_build_start(st, w->commit[i], "guest", "cfg1", "gcc-12", &build) ||
		    fl_store_build_finish(st, build, &ok) || wf_runs(st, w, i, build, machine))
			return -1;
	}
	ri = (struct fl_run_info){.build_id = build, .machine_id = machine, .benchmark = "page_fault2", .params = "{}"};
	if (fl_store_run_create(st, &ri, &w->active_run) || wf_bisections(st, w))
		return -1;
	w->nruns++;
	fl_store_free(st);
	snprintf(sql, sizeof(sql),
		 "UPDATE machines SET facts = '{\"sockets\":2,\"nodes\":2,\"cpus\":2}';"
		 "INSERT INTO regressions(tree_id, good_commit, bad_commit, benchmark, machine_id,"
		 " metric, mode, tasks, change, p_value) VALUES (%lld, %lld, %lld, 'page_fault2',"
		 " %lld, 'ops_per_sec', 'threads', 4, -25.0, 0.0001);"
		 "UPDATE bisections SET regression_id = 1 WHERE id = 1;"
		 "INSERT INTO reports(regression_id, message_id, subject, body, state, attempts,"
		 " sent) VALUES (1, '<r1@faultline>', 'faultline noticed a -25.0%% regression',"
		 " 'The culprit: " WF_CULPRIT_SUBJECT "\nA <b>body</b> line\n', 'sent', 1, %lld);"
		 "INSERT INTO reports(regression_id, message_id, in_reply_to, subject, body,"
		 " attempts, last_error, next_attempt) VALUES (1, '<r2@faultline>',"
		 " '<r1@faultline>', 'Re: faultline noticed a -25.0%% regression', 'revert ok',"
		 " 2, 'smtp://127.0.0.1:1: Connection refused', %lld);",
		 (long long)tree, (long long)w->commit[WF_CULPRIT - 1],
		 (long long)w->commit[WF_CULPRIT + 3], (long long)machine, WF_T0 + 86400,
		 WF_T0 + 90000);
	(void)rid;
	return wf_sql(db, sql);
}

/* dir/web: a copy of the source tree's web/ the tests may add files to. */
static inline int wf_copy_web(const char *dir, const char *source)
{
	char cmd[1400];

	snprintf(cmd, sizeof(cmd), "cp -r '%s/web' '%s/web'", source, dir);
	return system(cmd) == 0 ? 0 : -1;
}

static inline int wf_config(const char *dir, char *path, size_t n)
{
	FILE *f;

	snprintf(path, n, "%s/faultline.yaml", dir);
	if (!(f = fopen(path, "w")))
		return -1;
	fprintf(
	    f,
	    "var: %s/var\nstore: { path: %s/fl.db }\n"
	    "trees: [{ name: mainline, url: /srv/linux.git }]\n"
	    "machines: [{ name: numa2, backend: libvirt, uri: \"qemu:///system\", sockets: 2 }]\n"
	    "benchmarks: [{ name: page_fault2, test: page_fault2, modes: [processes, threads],"
	    " tasks: [1, 2, 4] }]\n"
	    "regression: { min_change: 2%%, confidence: 0.95 }\n"
	    "web: { listen: \"127.0.0.1:8080\", root: %s/web }\n",
	    dir, dir, dir);
	return fclose(f) ? -1 : 0;
}

struct wf_server {
	pid_t pid;
	char url[128];
};

/*
 * Starts argv (faultline ... serve ...) with stdout on a pipe and stderr
 * in errlog; waits up to 20 s for the first line, the URL. 0 or -1.
 */
static inline int wf_serve(struct wf_server *s, char *const argv[], const char *errlog)
{
	int out[2], len = 0;
	struct pollfd pfd;

	memset(s, 0, sizeof(*s));
	if (pipe(out))
		return -1;
	s->pid = fork();
	if (s->pid == 0) {
		int err = open(errlog, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(out[1], 1);
		dup2(err, 2);
		close(out[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(out[1]);
	pfd = (struct pollfd){out[0], POLLIN, 0};
	while (len < (int)sizeof(s->url) - 1 && poll(&pfd, 1, 20000) == 1) {
		char c;

		if (read(out[0], &c, 1) != 1 || c == '\n')
			break;
		s->url[len++] = c;
	}
	close(out[0]);
	s->url[len] = '\0';
	if (strncmp(s->url, "http://", 7)) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
		s->pid = 0;
		return -1;
	}
	len = (int)strlen(s->url);
	if (s->url[len - 1] == '/')
		s->url[len - 1] = '\0';
	return 0;
}

/* SIGTERM, then the exit status (-1 when it does not stop within 10 s). */
static inline int wf_stop(struct wf_server *s)
{
	int status;

	if (s->pid <= 0)
		return -1;
	kill(s->pid, SIGTERM);
	for (int i = 0; i < 200; i++) {
		if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
			s->pid = 0;
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		}
		usleep(50000);
	}
	kill(s->pid, SIGKILL);
	waitpid(s->pid, NULL, 0);
	s->pid = 0;
	return -1;
}

/* A test's world: scratch directory, store, web/ copy, configuration, server. */
struct wf_env {
	char dir[128], cfg[600], errlog[600];
	struct wf_store w;
	struct wf_server srv;
};

/* Builds it all and starts "faultline [-v] serve --config F --listen 127.0.0.1:0"; 0 or -1. */
static inline int wf_start(struct wf_env *e, const char *tag, int verbose)
{
	char *argv[] = {FL_FAULTLINE, "-v",	  "serve",	 "--config",
			e->cfg,	      "--listen", "127.0.0.1:0", NULL};

	if (fl_test_tmpdir(e->dir, sizeof(e->dir), tag) || wf_fill(e->dir, &e->w) ||
	    wf_copy_web(e->dir, FL_SOURCE_DIR) || wf_config(e->dir, e->cfg, sizeof(e->cfg)))
		return -1;
	snprintf(e->errlog, sizeof(e->errlog), "%s/serve.err", e->dir);
	if (!verbose) /* drop "-v" */
		memmove(&argv[1], &argv[2], sizeof(argv) - 2 * sizeof(argv[0]));
	return wf_serve(&e->srv, argv, e->errlog);
}

static inline void wf_end(struct wf_env *e)
{
	if (e->srv.pid > 0)
		wf_stop(&e->srv);
	fl_test_rmtree(e->dir);
}

#endif
