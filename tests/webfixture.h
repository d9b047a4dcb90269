/*
 * webfixture.h - what the results-page tests share: a store filled through
 * the store API (store.h, store/run.h, store/jobs.h, store/watch.h,
 * store/bisect.h), a configuration, a copy of web/, and a real "faultline
 * serve" started on an ephemeral loopback port, whose URL is read from its
 * first line of output.
 *
 * The history: tree mainline with NCOMMITS commits an hour apart; commit
 * CULPRIT (05b843012335..., as in the 3.17 thread) makes page_fault2 25%
 * slower; commit XSS has the subject "<script>alert(1)</script>"; commits
 * AMBIG_A and AMBIG_B share the prefix "abcd". Every commit has RUNS runs
 * of page_fault2 on numa2 (written the old way, by build only), processes
 * and threads at 1, 2 and 4 tasks, 3 samples each; one run's console holds
 * markup and an invalid UTF-8 byte.
 *
 * The watch service's view of it:
 * - tags (watch_tags): v3.16 (skipped), v3.17-rc1 .. rc7, v3.17, v3.18-rc1,
 *   rc2 and the hostile WF_HOSTILE_TAG on the commits wf_tag_at, each
 *   against the one before; a compare job per tag on numa2 (same but for
 *   v3.17, worse; the last one waiting for its runs: 2 of 6 ended, one
 *   running, one queued after an infra error) and on numa8 for v3.17
 *   (worse), v3.18-rc1 (better) and the last one (queued); comparison rows
 *   for every finished one.
 * - regression 1 (v3.17-rc7 -> v3.17 on numa2, -25%), bisection 1: 7 steps
 *   whose run jobs show an ok run, a panic then ok, an untestable build, a
 *   boot failure and a timeout then ok, and the verification; culprit
 *   CULPRIT; its revert conflicts (WF_CONFLICT_FILE among the files); a
 *   sent and a pending report. Regression 2 (the same tags on numa8,
 *   -24%): bisection 3, revert applied and measured "restores".
 * - bisection 2, started by hand, running: 2 commits left.
 * - numa8 out of the pool (WF_BROKEN_REASON).
 * - the environment run: the last tag's first "new" run, through the run
 *   path with the agent's facts (WF_KERNEL_RELEASE), timings and a console
 *   log on disk longer than the pages show inline; the still running run is
 *   its second "base" run.
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

#include "lib/buf.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "service/pipeline.h"
#include "store/bisect.h"
#include "store/jobs.h"
#include "store/run.h"
#include "store/watch.h"
#include "store/store.h"
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
#define WF_NTAGS	  12
#define WF_REG_TAG	  8 /* v3.17: worse than v3.17-rc7 */
#define WF_HOSTILE_TAG	  "v3.18-rc3<i>"
#define WF_CONFLICT_FILE  "include/linux/<res_counter>.h"
#define WF_KERNEL_RELEASE "3.18.0-rc3-fl<b>x</b>"
#define WF_BUILD_ERROR	  "mm/memcontrol.c:1234:5: error: 'res_counter' undeclared <here>"
#define WF_PANIC	  "Kernel panic - not syncing: <b>Fatal</b> exception"
#define WF_BROKEN_REASON  "libvirt: cannot connect to qemu+ssh://numa8/system: <refused>"
#define WF_REVERT_SHA	  "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e"

static const char *const wf_tags[WF_NTAGS] = {
    "v3.16",	 "v3.17-rc1", "v3.17-rc2", "v3.17-rc3", "v3.17-rc4", "v3.17-rc5",
    "v3.17-rc6", "v3.17-rc7", "v3.17",	   "v3.18-rc1", "v3.18-rc2", WF_HOSTILE_TAG};
static const int wf_tag_at[WF_NTAGS] = {0, 1, 2, 3, 4, 5, 6, 7, 11, 13, 16, 19};

struct wf_store {
	char sha[WF_NCOMMITS][41];
	int64_t commit[WF_NCOMMITS], build[WF_NCOMMITS];
	int64_t run[WF_NCOMMITS][WF_RUNS];
	int64_t tree, numa2, numa8;
	int64_t console_run; /* the run with WF_CONSOLE */
	int64_t active_run;  /* still running */
	int64_t env_run;     /* through the run path, console on disk */
	int64_t panic_run;   /* a panic, its console_path not a console */
	int64_t nruns;
	int64_t tag[WF_NTAGS];
	int64_t compare[WF_NTAGS]; /* numa2's compare jobs (0 for v3.16) */
	int64_t reg1, reg2, bisect1, bisect2, bisect3;
	int64_t queued_run_job; /* the last tag's queued run job after an infra error */
	char dir[300];
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

/* A run's mean at a point, and the mean and stddev of the run means of a commit. */
static inline double wf_run_mean(int commit, const char *mode, unsigned tasks, int run)
{
	double s = 0;

	for (int seq = 0; seq < 3; seq++)
		s += wf_value(commit, mode, tasks, run, seq);
	return s / 3;
}

static inline void wf_commit_stats(int commit, const char *mode, unsigned tasks, double *mean,
				   double *sd)
{
	double m = 0, v = 0;

	for (int run = 0; run < WF_RUNS; run++)
		m += wf_run_mean(commit, mode, tasks, run) / WF_RUNS;
	for (int run = 0; run < WF_RUNS; run++)
		v += pow(wf_run_mean(commit, mode, tasks, run) - m, 2) / (WF_RUNS - 1);
	*mean = m;
	*sd = sqrt(v);
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

static const char *const wf_modes[] = {"processes", "threads"};
static const unsigned wf_tasks[] = {1, 2, 4};

/* The 18 samples of run 'run' of commit i. */
static inline size_t wf_samples(struct fl_sample *s, int i, int run)
{
	size_t n = 0;

	for (int m = 0; m < 2; m++)
		for (int t = 0; t < 3; t++)
			for (int seq = 0; seq < 3; seq++)
				s[n++] = (struct fl_sample){
				    "ops_per_sec", wf_modes[m], wf_tasks[t], (unsigned)seq,
				    wf_value(i, wf_modes[m], wf_tasks[t], run, seq), NULL};
	return n;
}

/* The old way: a run of a build (no runs.commit_id), finished with fl_store_run_finish. */
static inline int wf_runs(fl_store *st, struct wf_store *w, int i, int64_t build, int64_t machine)
{
	struct fl_run_info ri = {
	    .build_id = build,
	    .machine_id = machine,
	    .benchmark = "page_fault2",
	    .params = "{\"test\":\"page_fault2\",\"duration\":\"5s\",\"repeat\":3}",
	};

	for (int run = 0; run < WF_RUNS; run++) {
		struct fl_sample s[18];
		size_t n = wf_samples(s, i, run);
		int64_t id;

		if (fl_store_run_create(st, &ri, &id) || fl_store_samples_add(st, id, s, n) ||
		    fl_store_run_finish(st, id, "ok", i == WF_XSS && !run ? WF_CONSOLE : NULL))
			return -1;
		if (i == WF_XSS && !run)
			w->console_run = id;
		w->run[i][run] = id;
		w->nruns++;
	}
	return 0;
}

/* A run through the run path (commit and build, owner, facts) of commit i, ended as e says. */
static inline int wf_run_path(fl_store *st, struct wf_store *w, int i, int64_t job,
			      const struct fl_run_guest *g, struct fl_run_end *e, int64_t *id)
{
	struct fl_run_new rn = {w->numa2,
				w->build[i],
				w->commit[i],
				"page_fault2",
				"{\"test\":\"page_fault2\"}",
				NULL,
				NULL,
				"fixture run",
				job};

	if (fl_store_run_start(st, &rn, id) || (g && fl_store_run_guest(st, *id, g)) ||
	    fl_store_run_end(st, *id, e))
		return -1;
	w->nruns++;
	return 0;
}

/* The environment run: the agent's facts, timings, the whole console on disk. */
static inline int wf_env_run(fl_store *st, struct wf_store *w, int64_t job)
{
	char dir[400], path[500];
	int64_t t0 = (WF_T0 + 3600 * 19) * 1000;
	struct fl_run_guest g = {"fl-fixture-19", "tcg",
				 "{\"sockets\":2,\"nodes\":2,\"cpus\":4,\"memory_mib\":4096,"
				 "\"note\":\"<i>guest</i>\"}",
				 path, t0};
	struct fl_sample s[18];
	struct fl_run_end e = {"ok",
			       NULL,
			       "stored tail: WF-LAST-LINE\n",
			       2,
			       4,
			       WF_KERNEL_RELEASE,
			       t0 + 41000,
			       t0 + 47500,
			       t0 + 95200,
			       s,
			       wf_samples(s, 19, 0)};
	struct fl_run_new rn = {w->numa2,
				w->build[19],
				w->commit[19],
				"page_fault2",
				"{\"test\":\"page_fault2\"}",
				NULL,
				NULL,
				"new " WF_HOSTILE_TAG " run 1",
				job};
	FILE *f;

	if (fl_store_run_start(st, &rn, &w->env_run))
		return -1;
	snprintf(dir, sizeof(dir), "%s/var/runs/%lld", w->dir, (long long)w->env_run);
	snprintf(path, sizeof(path), "%s/console.log", dir);
	if (fl_mkdir_p(dir) || !(f = fopen(path, "w")))
		return -1;
	fputs("WF-FIRST-LINE <early>\n", f);
	for (int i = 0; i < 1600; i++)
		fprintf(f, "[%5d.000000] filler line of the boot log\n", i);
	fputs("fl-agent: <script>alert('tail')</script> & done\nWF-LAST-LINE\n", f);
	if (fclose(f) || fl_store_run_guest(st, w->env_run, &g) ||
	    fl_store_run_end(st, w->env_run, &e))
		return -1;
	w->nruns++;
	return 0;
}

/* A job as the service adds it; ref: what it is about (its kind's row: a watch tag or a
 * regression; run jobs have none). */
static inline int wf_job(fl_store *st, enum fl_job_kind kind, const char *key, int64_t parent,
			 const char *machine, const char *rev, const char *role, int seq,
			 int64_t ref, int64_t *id)
{
	enum fl_job_about about = fl_job_kind_info(kind)->about;
	const char *name = fl_job_kind_name(kind);
	struct fl_job_new j = {.kind = name,
			       .state = "queued",
			       .key = key,
			       .parent_id = parent,
			       .tree = "mainline",
			       .machine = machine,
			       .benchmark = "page_fault2",
			       .rev = rev ? rev : "",
			       .role = role,
			       .seq = seq,
			       .tag_id = about == FL_ABOUT_TAG ? ref : 0,
			       .regression_id = about == FL_ABOUT_REGRESSION ? ref : 0};

	return fl_store_job_add(st, &j, id, NULL);
}

/* A coordinator that ended with result. */
static inline int wf_done(fl_store *st, int64_t id, const char *result)
{
	return fl_store_job_start(st, id, "running", 0) ||
	       fl_job_set(st, id, FL_STATE_DONE, result, NULL);
}

/* A run job's attempts: the failed runs (statuses, NULL-ended), then its end with ok_run
 * (0: none; WF_FRESH: a new ok run made after the failed ones). */
#define WF_FRESH (-1)
static inline int wf_attempts(fl_store *st, struct wf_store *w, int64_t job, int commit,
			      const char *const *failed, const char *result, int64_t ok_run,
			      const char *error)
{
	for (; *failed; failed++) {
		struct fl_run_guest g = {0};
		struct fl_run_end e = {.status = *failed};
		int64_t run;
		int panic = !strcmp(*failed, "panic");

		e.detail = panic			     ? WF_PANIC
			   : !strcmp(*failed, "boot-failed") ? "no agent record within 120 s"
							     : "the deadline (600 s) passed";
		e.console_tail = panic ? "[    1.2] " WF_PANIC "\n" : NULL;
		g.console_path = "/etc/passwd"; /* not a console: never shown */
		if (fl_store_job_start(st, job, "running", 1) ||
		    wf_run_path(st, w, commit, job, panic ? &g : NULL, &e, &run) ||
		    fl_job_set(st, job, FL_STATE_QUEUED, NULL, e.detail))
			return -1;
		if (panic)
			w->panic_run = run;
	}
	if (fl_store_job_start(st, job, "running", 1))
		return -1;
	if (ok_run == WF_FRESH) {
		struct fl_sample s[18];
		struct fl_run_end e = {
		    .status = "ok", .samples = s, .nsamples = wf_samples(s, commit, 0)};

		if (wf_run_path(st, w, commit, job, NULL, &e, &ok_run))
			return -1;
	} else if (ok_run && fl_store_run_set_job(st, ok_run, job)) {
		return -1;
	}
	return fl_store_job_run_done(st, job, "done", result, ok_run, error);
}

/* Comparison rows of a tag's compare job on numa2, from the samples. */
static inline int wf_rows(fl_store *st, struct wf_store *w, int64_t job, int base, int new_)
{
	for (int m = 0; m < 2; m++)
		for (int t = 0; t < 3; t++) {
			double bm, bs, nm, ns, change;
			struct fl_watch_comparison c;

			wf_commit_stats(base, wf_modes[m], wf_tasks[t], &bm, &bs);
			wf_commit_stats(new_, wf_modes[m], wf_tasks[t], &nm, &ns);
			change = 100 * (nm - bm) / bm;
			c = (struct fl_watch_comparison){"tag",
							 w->commit[base],
							 w->commit[new_],
							 "page_fault2",
							 w->numa2,
							 "ops_per_sec",
							 wf_modes[m],
							 wf_tasks[t],
							 1,
							 WF_RUNS,
							 WF_RUNS,
							 bm,
							 bs,
							 nm,
							 ns,
							 change,
							 fabs(change) > 2 ? 0.0001 : 0.9,
							 fabs(change) > 2 ? "different" : "same",
							 change < -2  ? "regression"
							 : change > 2 ? "improvement"
								      : "same", NULL};
			if (fl_store_comparison_add(st, job, &c))
				return -1;
		}
	return 0;
}

/* One primary row on numa8 (no runs there: the service's claim). */
static inline int wf_row8(fl_store *st, struct wf_store *w, int64_t job, const char *what,
			  int64_t base, int64_t new_, double change, const char *cls)
{
	struct fl_watch_comparison c = {what,	   base,
					new_,	   "page_fault2",
					w->numa8,  "ops_per_sec",
					"threads", 4,
					1,	   3,
					3,	   800000,
					4000,	   800000 * (1 + change / 100),
					4000,	   change,
					0.001,	   strcmp(cls, "same") ? "different" : "same",
					cls, NULL};

	return fl_store_comparison_add(st, job, &c);
}

static inline int wf_tag(fl_store *st, struct wf_store *w, int i)
{
	struct fl_watch_tag_new t = {w->tree,
				     wf_tags[i],
				     w->commit[wf_tag_at[i]],
				     NULL,
				     0,
				     "skipped",
				     "older than the newest tags on the first pass "
				     "(trees[].backfill)",
				     NULL,
				     NULL};

	if (i) {
		t.baseline = wf_tags[i - 1];
		t.baseline_commit = w->commit[wf_tag_at[i - 1]];
		t.state = "scheduled";
		t.note = NULL;
	}
	return fl_store_watch_tag_add(st, &t, &w->tag[i]);
}

/* The last tag on numa2: waiting for its runs: 2 of 6 ended, one running, one queued after an
 * error. */
static inline int wf_last_tag(fl_store *st, struct wf_store *w, int64_t job)
{
	static const char *const none[] = {NULL};
	int64_t kids[6];
	char key[64];

	for (int k = 0; k < 6; k++) {
		snprintf(key, sizeof(key), "run:%lld:%s:%d", (long long)job, k % 2 ? "new" : "base",
			 k / 2);
		if (wf_job(st, FL_JOB_RUN, key, job, "numa2",
			   w->sha[wf_tag_at[WF_NTAGS - 2 + k % 2]], k % 2 ? "new" : "base", k, 0,
			   &kids[k]))
			return -1;
	}
	w->queued_run_job = kids[3];
	if (fl_store_job_start(st, job, "running", 0) || fl_job_wait(st, job) ||
	    wf_attempts(st, w, kids[0], 16, none, "ok", w->run[16][0], NULL) ||
	    fl_store_job_start(st, kids[1], "running", 1) || wf_env_run(st, w, kids[1]) ||
	    fl_store_job_run_done(st, kids[1], "done", "ok", w->env_run, NULL) ||
	    fl_store_job_start(st, kids[2], "running", 1) ||
	    fl_store_run_set_job(st, w->active_run, kids[2]) ||
	    fl_store_job_start(st, kids[3], "running", 1) ||
	    fl_job_set(st, kids[3], FL_STATE_QUEUED, NULL,
		       "infra-error: libvirt: <connection reset>"))
		return -1;
	return 0;
}

/* Tags, their compare jobs and comparison rows, the regressions. */
static inline int wf_watch(fl_store *st, struct wf_store *w)
{
	static const char *const none[] = {NULL};
	const int last = WF_NTAGS - 1;
	struct fl_regression_new g = {0};
	int64_t job8, kid;
	char key[64];

	for (int i = 0; i < WF_NTAGS; i++) {
		if (wf_tag(st, w, i))
			return -1;
		if (!i)
			continue;
		snprintf(key, sizeof(key), "compare:%lld:page_fault2:numa2", (long long)w->tag[i]);
		if (wf_job(st, FL_JOB_COMPARE, key, 0, "numa2", NULL, "", 0, w->tag[i],
			   &w->compare[i]))
			return -1;
		if (i == last)
			continue;
		if (wf_rows(st, w, w->compare[i], wf_tag_at[i - 1], wf_tag_at[i]) ||
		    wf_done(st, w->compare[i], i == WF_REG_TAG ? "regression" : "same"))
			return -1;
	}
	if (wf_last_tag(st, w, w->compare[last]))
		return -1;
	/* v3.17's comparison ran on these runs: a base and two new ones */
	for (int k = 0; k < 3; k++) {
		snprintf(key, sizeof(key), "run:%lld:%d", (long long)w->compare[WF_REG_TAG], k);
		if (wf_job(st, FL_JOB_RUN, key, w->compare[WF_REG_TAG], "numa2", w->sha[k ? 11 : 7],
			   k ? "new" : "base", k, 0, &kid) ||
		    wf_attempts(st, w, kid, k ? 11 : 7, none, "ok",
				k ? w->run[11][k] : w->run[7][2], NULL))
			return -1;
	}
	g = (struct fl_regression_new){w->compare[WF_REG_TAG],
				       w->tree,
				       w->commit[7],
				       w->commit[11],
				       w->numa2,
				       "page_fault2",
				       "ops_per_sec",
				       "threads",
				       4,
				       -25.0,
				       0.0001, NULL};
	if (fl_store_regression_add(st, &g, &w->reg1))
		return -1;
	/* numa8: v3.17 worse, v3.18-rc1 better, the last one queued */
	for (int i = WF_REG_TAG; i < WF_NTAGS; i++) {
		int reg = i == WF_REG_TAG;

		if (i == last - 1)
			continue;
		snprintf(key, sizeof(key), "compare:%lld:page_fault2:numa8", (long long)w->tag[i]);
		if (wf_job(st, FL_JOB_COMPARE, key, 0, "numa8", NULL, "", 0, w->tag[i], &job8) ||
		    (i < last && (wf_row8(st, w, job8, "tag", w->commit[wf_tag_at[i - 1]],
					  w->commit[wf_tag_at[i]], reg ? -24.0 : 4.2,
					  reg ? "regression" : "improvement") ||
				  wf_done(st, job8, reg ? "regression" : "improvement"))))
			return -1;
		if (reg) {
			g.job_id = job8;
			g.machine_id = w->numa8;
			g.change = -24.0;
			if (fl_store_regression_add(st, &g, &w->reg2))
				return -1;
		}
	}
	return 0;
}

static inline int wf_step(fl_store *st, struct wf_store *w, int64_t bisection, size_t seq, int c,
			  const char *verdict, const char *phase, size_t left, int best,
			  double conf)
{
	double v[5];
	struct fl_bisect_step_rec rec = {
	    seq,  w->sha[c], !strcmp(verdict, "skip"),	      v,    5, verdict,
	    conf, left,	     best >= 0 ? w->sha[best] : NULL, phase, NULL};

	if (rec.skipped)
		rec.n = 0;
	for (int j = 0; j < 5; j++)
		v[j] = wf_value(c, "threads", 4, (int)seq, j);
	return fl_store_bisect_step_add(st, bisection, &rec);
}

/* Bisection 1 of regression 1: every step's run job and its attempts. */
static inline int wf_bisection1(fl_store *st, struct wf_store *w)
{
	static const int tested[] = {WF_CULPRIT - 1, WF_CULPRIT + 3, WF_CULPRIT + 2, WF_CULPRIT + 1,
				     WF_CULPRIT,     WF_CULPRIT - 1, WF_CULPRIT};
	static const char *const verdicts[] = {"", "", "skip", "bad", "bad", "good", "bad"};
	static const char *const phases[] = {"confirm", "confirm", "search", "search",
					     "search",	"verify",  "verify"};
	static const size_t left[] = {0, 0, 4, 2, 1, 1, 1};
	static const char *const none[] = {NULL}, *const panic[] = {"panic", NULL},
				 *const boot[] = {"boot-failed", "timeout", NULL};
	const char *const *failed[] = {none, panic, none, boot, none, none, none};
	const int64_t ok_run[] = {w->run[7][0], WF_FRESH,     0,	   WF_FRESH,
				  w->run[8][0], w->run[7][1], w->run[8][1]};
	int64_t job, kid;
	int resumed;
	char key[128];

	if (fl_store_regression_bisection(st, w->reg1, w->sha[7], w->sha[11], &w->bisect1,
					  &resumed) ||
	    wf_job(st, FL_JOB_BISECT, "bisect:1", 0, "numa2", NULL, "", 0, w->reg1, &job) ||
	    fl_store_job_start(st, job, "running", 0))
		return -1;
	for (size_t k = 0; k < 7; k++) {
		snprintf(key, sizeof(key), "run:bisection:%lld:%zu:%s", (long long)w->bisect1, k,
			 w->sha[tested[k]]);
		if (wf_job(st, FL_JOB_RUN, key, job, "numa2", w->sha[tested[k]], "bisect", (int)k,
			   w->reg1, &kid) ||
		    wf_attempts(st, w, kid, tested[k], failed[k], ok_run[k] ? "ok" : "untestable",
				ok_run[k], ok_run[k] ? NULL : WF_BUILD_ERROR) ||
		    wf_step(st, w, w->bisect1, k, tested[k], verdicts[k], phases[k], left[k],
			    k > 1 ? WF_CULPRIT : -1, k > 1 ? 0.3 + 0.1 * (double)k : 0))
			return -1;
	}
	return fl_store_bisection_finish(st, w->bisect1, "culprit", w->sha[WF_CULPRIT], 0.97) ||
	       fl_store_bisection_summary(
		   st, w->bisect1,
		   "{\"result\":\"culprit\",\"confidence\":0.97,\"change_pct\":25.0,\"runs\":7,"
		   "\"commits_tested\":5,\"commits\":5,"
		   "\"path\":[{\"merge\":\"<b>cafe</b>\",\"parent\":1}]}") ||
	       wf_done(st, job, "culprit");
}

/* Regression 1's revert conflicts; regression 2's applies and restores. */
static inline int wf_reverts(fl_store *st, struct wf_store *w)
{
	struct fl_revert v1 = {.regression_id = w->reg1,
			       .culprit = w->sha[WF_CULPRIT],
			       .onto = w->sha[11],
			       .state = "conflict",
			       .conflicts = "mm/memcontrol.c\n" WF_CONFLICT_FILE "\n"};
	struct fl_revert v2 = {.regression_id = w->reg2,
			       .culprit = w->sha[WF_CULPRIT],
			       .onto = w->sha[11],
			       .state = "applied",
			       .commit_sha = WF_REVERT_SHA,
			       .ref = "refs/faultline/revert/2"};
	struct fl_commit_info rc = {WF_REVERT_SHA, "Revert \"" WF_CULPRIT_SUBJECT "\"", "faultline",
				    WF_T0 + 3600 * 11};
	int64_t job, revert;
	int resumed;

	if (fl_store_revert_add(st, &v1) ||
	    wf_job(st, FL_JOB_REVERT, "revert:1", 0, "numa2", NULL, "", 0, w->reg1, &job) ||
	    wf_done(st, job, "conflict") ||
	    wf_job(st, FL_JOB_REPORT, "report:1", 0, "numa2", NULL, "", 0, w->reg1, &job) ||
	    wf_done(st, job, NULL))
		return -1;
	if (fl_store_regression_bisection(st, w->reg2, w->sha[7], w->sha[11], &w->bisect3,
					  &resumed) ||
	    fl_store_bisection_finish(st, w->bisect3, "culprit", w->sha[WF_CULPRIT], 0.96) ||
	    fl_store_commit_ensure(st, w->tree, &rc, &revert) || fl_store_revert_add(st, &v2) ||
	    wf_job(st, FL_JOB_REVERT, "revert:2", 0, "numa8", NULL, "", 0, w->reg2, &job) ||
	    wf_row8(st, w, job, "revert-bad", w->commit[11], revert, 33.3, "improvement") ||
	    wf_row8(st, w, job, "revert-base", w->commit[7], revert, -0.2, "same") ||
	    fl_store_revert_verdict(st, w->reg2, "restores") || wf_done(st, job, "restores"))
		return -1;
	return 0;
}

static inline int wf_reports(fl_store *st, struct wf_store *w)
{
	struct fl_report_new r1 = {w->reg1, "<r1@faultline>",
				   "faultline noticed a -25.0% regression",
				   "The culprit: " WF_CULPRIT_SUBJECT "\nA <b>body</b> line\n"};
	struct fl_report_new r2 = {w->reg1, "<r2@faultline>",
				   "Re: faultline noticed a -25.0% regression", "revert ok"};
	int64_t id1, id2;

	return fl_store_report_add(st, &r1, &id1) || fl_store_report_sent(st, id1, WF_T0 + 86400) ||
	       fl_store_report_add(st, &r2, &id2) ||
	       fl_store_report_retry(st, id2, "smtp://127.0.0.1:1: Connection refused",
				     WF_T0 + 90000) ||
	       fl_store_report_retry(st, id2, "smtp://127.0.0.1:1: Connection refused",
				     WF_T0 + 90000);
}

/* Bisection 2, started by hand: measured its ends and one commit, 2 left. */
static inline int wf_bisection2(fl_store *st, struct wf_store *w)
{
	int64_t other;
	int resumed;

	return fl_store_bisection_open(st, w->sha[1], w->sha[3], NULL, &w->bisect2, &resumed,
				       &other) ||
	       wf_step(st, w, w->bisect2, 0, 1, "", "confirm", 0, -1, 0) ||
	       wf_step(st, w, w->bisect2, 1, 3, "", "confirm", 0, -1, 0) ||
	       wf_step(st, w, w->bisect2, 2, 2, "good", "search", 2, 3, 0.55);
}

/* Fills dir/fl.db; 0 or -1. */
static inline int wf_fill(const char *dir, struct wf_store *w)
{
	char db[600];
	fl_store *st;
	struct fl_run_info ri;
	struct fl_machine_state broken = {"broken", WF_BROKEN_REASON, 1};
	int r;

	memset(w, 0, sizeof(*w));
	snprintf(w->dir, sizeof(w->dir), "%s", dir);
	snprintf(db, sizeof(db), "%s/fl.db", dir);
	if (fl_store_open(&st, fl_test_store(db), 0))
		return -1;
	r = fl_pipeline_register(st) ||
	    fl_store_tree_ensure(st, "mainline", "/srv/linux.git", &w->tree) ||
	    fl_store_machine_ensure(st, "numa2", "libvirt", &w->numa2) ||
	    fl_store_machine_ensure(st, "numa8", "libvirt", &w->numa8) ||
	    fl_store_machine_set_facts(st, "numa2", "{\"sockets\":2,\"nodes\":2,\"cpus\":2}") ||
	    fl_store_machine_set_state(st, "numa8", &broken);
	for (int i = 0; i < WF_NCOMMITS && !r; i++) {
		struct fl_commit_info c = {w->sha[i], "mm: a plausible change", "A. Developer",
					   WF_T0 + 3600 * i};
		struct fl_build_outcome ok = {"ok", "/var/artifacts/x", NULL, NULL, 1000, 1};

		wf_sha(w->sha[i], i);
		if (i == WF_CULPRIT)
			c.subject = WF_CULPRIT_SUBJECT;
		if (i == WF_XSS)
			c.subject = WF_XSS_SUBJECT;
		r = fl_store_commit_ensure(st, w->tree, &c, &w->commit[i]) ||
		    fl_store_build_start(st, w->commit[i], "guest", "cfg1", "gcc-12",
					 &w->build[i]) ||
		    fl_store_build_finish(st, w->build[i], &ok) ||
		    wf_runs(st, w, i, w->build[i], w->numa2);
	}
	ri = (struct fl_run_info){.build_id = w->build[19],
				  .machine_id = w->numa2,
				  .benchmark = "page_fault2",
				  .params = "{}"};
	if (!r)
		r = fl_store_run_create(st, &ri, &w->active_run) || wf_watch(st, w) ||
		    wf_bisection1(st, w) || wf_bisection2(st, w) || wf_reverts(st, w) ||
		    wf_reports(st, w);
	w->nruns++;
	if (r)
		fprintf(stderr, "webfixture: %s\n", fl_error_last());
	fl_store_free(st);
	return r ? -1 : 0;
}

/* A whole file (NUL-terminated, caller frees), its length in *len (may be NULL); NULL when it
 * cannot be read. */
static inline char *wf_slurp(const char *path, size_t *len)
{
	fl_buf b = FL_BUF_INIT;
	char chunk[8192];
	size_t got;
	FILE *f = fopen(path, "rb");

	if (!f)
		return NULL;
	while ((got = fread(chunk, 1, sizeof(chunk), f)))
		fl_buf_add(&b, chunk, got);
	fclose(f);
	if (len)
		*len = b.len;
	fl_buf_str(&b);
	return fl_buf_detach(&b);
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
	    "trees: [{ name: mainline, url: /srv/linux.git,"
	    " web_url: \"https://git.example.org/linux.git/commit/?id=%%s\" }]\n"
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
	s->pid = fl_test_fork();
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
