/*
 * queue.c - the job queue's policy: recovery, the machine pool, run jobs in
 * worker threads, coordinator steps (see queue.h).
 */
#include "service/queue.h"
#include "proto/jobline.h"
#include "lib/buf.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/time.h"
#include "dispatch/dispatch.h"
#include "machine/machine.h"
#include "service/measure.h"
#include "build/repo.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

struct worker {
	fl_queue *q;
	struct fl_job job;
	size_t machine;
	pthread_t thread;
	atomic_int finished;
	int recorded; /* the worker wrote the run's end into the store */
	struct worker *next;
};

struct fl_queue {
	struct fl_queue_opts o;
	fl_store *st;
	struct fl_worker me; /* this process among the store's workers */
	int64_t lease_s;
	int64_t next_scan; /* monotonic ms: the next look for gone workers */
	pthread_t beat;	   /* renews me's lease */
	int beating;
	pthread_mutex_t beat_mu;
	pthread_cond_t beat_cv;
	int beat_stop;
	int *held; /* per machine: this worker drives it */
	int entered; /* me is in the store's workers */
	int lock_fd;
	int wake[2];	  /* workers write a byte here when they finish */
	unsigned *active; /* runs in flight per machine */
	int *broken;	  /* per machine, as last read from the store */
	struct worker *workers;
	size_t running, failed;
};

void fl_crashpoint(const char *name)
{
	static atomic_int hits;
	const char *at = getenv("FAULTLINE_CRASH_AT");
	size_t len = strlen(name);

	if (!at || strncmp(at, name, len) || (at[len] && at[len] != ':'))
		return;
	if (atomic_fetch_add(&hits, 1) + 1 < (at[len] ? atoi(at + len + 1) : 1))
		return;
	fl_warn("crash point '%s' reached: killing the process", name);
	raise(SIGKILL);
}

static const struct fl_config *cfg_of(fl_queue *q)
{
	return q->o.cfg;
}

/* A job state's word (pipeline.h), as the store's job statements take it. */
static const char *word(enum fl_job_state s)
{
	return fl_job_state_name(s);
}

static int machine_index(fl_queue *q, const char *name, size_t *i)
{
	for (*i = 0; *i < cfg_of(q)->nmachines; (*i)++)
		if (!strcmp(cfg_of(q)->machines[*i].name, name))
			return 1;
	return 0;
}

/*
 * SQLite: one worker per store (a lock file next to it). Its writers take
 * turns on the whole file, which a second worker polling the queue would
 * hold up; several workers share a PostgreSQL store.
 */
static int take_lock(fl_queue *q)
{
	char *path = fl_xasprintf("%s.watch.lock", cfg_of(q)->store.path);
	int r = 0;

	if (!fl_store_is_file(cfg_of(q)->store.path)) {
		free(path);
		return 0;
	}
	q->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (q->lock_fd < 0)
		r = fl_error_set(FL_EIO, "cannot open %s: %s", path, strerror(errno));
	else if (flock(q->lock_fd, LOCK_EX | LOCK_NB))
		r = fl_error_set(FL_EEXISTS,
				 "another faultline watch is using the store %s (%s); an SQLite "
				 "store has one worker, several share a PostgreSQL store (store.url)",
				 cfg_of(q)->store.path, path);
	free(path);
	return r;
}

static int enter_machines(fl_queue *q)
{
	const struct fl_config *cfg = cfg_of(q);

	q->active = fl_xcalloc(cfg->nmachines + 1, sizeof(*q->active));
	q->broken = fl_xcalloc(cfg->nmachines + 1, sizeof(*q->broken));
	q->held = fl_xcalloc(cfg->nmachines + 1, sizeof(*q->held));
	for (size_t i = 0; i < cfg->nmachines; i++) {
		int64_t id;

		if (fl_store_machine_ensure(q->st, cfg->machines[i].name, cfg->machines[i].backend,
					    &id))
			return FL_ESTORE;
	}
	return 0;
}

/* ---- workers -------------------------------------------------------- */

/*
 * Gone: not heard of for a lease, or at once when it ran on this host and
 * its process is no more (a restart after a crash need not wait).
 */
static int worker_gone(fl_queue *q, const struct fl_worker *w, int64_t now)
{
	if (!strcmp(w->name, q->me.name))
		return 0;
	if (w->seen + q->lease_s < now)
		return 1;
	return !strcmp(w->host, q->me.host) && w->pid > 0 && kill((pid_t)w->pid, 0) &&
	       errno == ESRCH;
}

static int take_over(fl_queue *q, const struct fl_worker *w, int64_t now)
{
	unsigned requeued, discarded;
	int r = fl_store_worker_take_over(q->st, w->name, word(FL_STATE_RUNNING),
					  word(FL_STATE_QUEUED), &requeued, &discarded);

	if (!r)
		fl_warn("queue: worker %s (host %s, pid %lld) is gone, last heard of %llds ago: "
			"%u job%s queued again, %u run%s discarded",
			w->name, w->host, (long long)w->pid, (long long)(now - w->seen), requeued,
			FL_S(requeued), discarded, FL_S(discarded));
	return r;
}

/* In one transaction: the gone workers' work taken over, or everything
 * recovered when no worker is left (enter); enter adds this one. */
static int settle_workers(fl_queue *q, int enter)
{
	struct fl_worker *ws = NULL;
	size_t n = 0, live = 0;
	int64_t now = (int64_t)time(NULL);
	unsigned requeued = 0, discarded = 0;
	int r;

	if ((r = fl_store_tx_begin(q->st)))
		return r;
	r = fl_store_workers(q->st, &ws, &n);
	for (size_t i = 0; !r && i < n; i++)
		live += !worker_gone(q, &ws[i], now);
	if (!r && enter && !live) {
		r = fl_store_jobs_recover(q->st, word(FL_STATE_QUEUED), &requeued, &discarded);
		if (!r && (requeued || discarded))
			fl_info("queue: resuming: %u job%s queued again, %u interrupted run%s "
				"discarded",
				requeued, FL_S(requeued), discarded, FL_S(discarded));
	}
	for (size_t i = 0; !r && (!enter || live) && i < n; i++)
		if (worker_gone(q, &ws[i], now))
			r = take_over(q, &ws[i], now);
	if (!r && enter)
		r = fl_store_worker_enter(q->st, &q->me);
	if (!r)
		r = fl_store_tx_commit(q->st);
	if (!r && enter)
		q->entered = 1;
	if (r)
		fl_store_tx_rollback(q->st);
	fl_workers_free(ws, n);
	return r;
}

/* Every third of a lease: whether a worker is gone, and if so take its work over. */
static int scan_workers(fl_queue *q)
{
	struct fl_worker *ws;
	size_t n, gone = 0;
	int64_t now = (int64_t)time(NULL);

	if (fl_mono_ms() < q->next_scan)
		return 0;
	q->next_scan = fl_mono_ms() + q->lease_s * 1000 / 3;
	if (fl_store_workers(q->st, &ws, &n))
		return FL_ESTORE;
	for (size_t i = 0; i < n; i++)
		gone += worker_gone(q, &ws[i], now);
	fl_workers_free(ws, n);
	return gone ? settle_workers(q, 0) : 0;
}

/*
 * Renews the lease every third of it on a connection of its own. A worker
 * whose row is gone was taken for dead and its jobs given to others: it
 * stops at once, so that no job runs twice at the same time.
 */
static void *beat_main(void *arg)
{
	fl_queue *q = arg;
	fl_store *st = NULL;
	int stop = 0;

	while (!stop) {
		struct timespec until;
		int alive = 1;

		if (!st && fl_store_open(&st, cfg_of(q)->store.path, 0))
			st = NULL;
		if (!st || fl_store_worker_beat(st, q->me.name, (int64_t)time(NULL), &alive))
			fl_warn("worker %s: cannot renew its lease: %s", q->me.name,
				fl_error_last());
		if (!alive) {
			fl_err("worker %s: other workers took its jobs over (not heard of for %llds); "
			       "stopping so that no job runs twice",
			       q->me.name, (long long)q->lease_s);
			_exit(FL_QUEUE_LOST_EXIT);
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += q->lease_s / 3 > 0 ? q->lease_s / 3 : 1;
		pthread_mutex_lock(&q->beat_mu);
		while (!q->beat_stop &&
		       pthread_cond_timedwait(&q->beat_cv, &q->beat_mu, &until) != ETIMEDOUT)
			;
		stop = q->beat_stop;
		pthread_mutex_unlock(&q->beat_mu);
	}
	fl_store_free(st);
	return NULL;
}

static int start_beat(fl_queue *q)
{
	int e;

	pthread_mutex_init(&q->beat_mu, NULL);
	pthread_cond_init(&q->beat_cv, NULL);
	if ((e = pthread_create(&q->beat, NULL, beat_main, q)))
		return fl_error_set(FL_EIO, "cannot start the lease's thread: %s", strerror(e));
	q->beating = 1;
	return 0;
}

static void stop_beat(fl_queue *q)
{
	if (!q->beating)
		return;
	pthread_mutex_lock(&q->beat_mu);
	q->beat_stop = 1;
	pthread_cond_signal(&q->beat_cv);
	pthread_mutex_unlock(&q->beat_mu);
	pthread_join(q->beat, NULL);
	pthread_mutex_destroy(&q->beat_mu);
	pthread_cond_destroy(&q->beat_cv);
	q->beating = 0;
}

static void name_worker(fl_queue *q)
{
	char host[256] = "";
	const char *h = cfg_of(q)->worker.host;

	if (!h) {
		if (gethostname(host, sizeof(host) - 1))
			snprintf(host, sizeof(host), "localhost");
		h = host;
	}
	q->me.host = fl_xstrdup(h);
	q->me.pid = (int64_t)getpid();
	q->me.started = q->me.seen = (int64_t)time(NULL);
	q->me.name = fl_xasprintf("%s:%lld:%lld", q->me.host, (long long)q->me.pid,
				  (long long)q->me.started);
	q->lease_s = (cfg_of(q)->worker.lease_ms + 999) / 1000;
	if (q->lease_s < 3)
		q->lease_s = 3;
}

int fl_queue_open(fl_queue **out, const struct fl_queue_opts *o)
{
	fl_queue *q = fl_xcalloc(1, sizeof(*q));
	int r;

	*out = NULL;
	q->o = *o;
	q->lock_fd = q->wake[0] = q->wake[1] = -1;
	name_worker(q);
	if ((r = fl_store_open(&q->st, o->cfg->store.path, 0)) || (r = take_lock(q)))
		goto fail;
	if (pipe2(q->wake, O_CLOEXEC | O_NONBLOCK)) {
		r = fl_error_set(FL_EIO, "pipe: %s", strerror(errno));
		goto fail;
	}
	if ((r = enter_machines(q)) || (r = settle_workers(q, 1)) || (r = start_beat(q)) ||
	    (r = fl_pipeline_prepare(q->st, o->cfg)))
		goto fail;
	fl_info("queue: worker %s", q->me.name);
	*out = q;
	return 0;
fail:
	fl_queue_free(q);
	return r;
}

const char *fl_queue_worker(fl_queue *q)
{
	return q->me.name;
}

fl_store *fl_queue_store(fl_queue *q)
{
	return q->st;
}

/* ---- run jobs ------------------------------------------------------- */

/* The job's result once its run tells about the commit (dispatch.h's attempts); NULL: again. */
static const char *final_result(enum fl_run_status s, int attempts)
{
	if (fl_dispatch_again(&fl_attempts_job, s, (unsigned)attempts))
		return NULL;
	return s == FL_RUN_OK ? "ok" : s == FL_RUN_UNTESTABLE ? "untestable" : "failed";
}

/*
 * The job is no longer this worker's (taken for dead, its work given to
 * another): the run is not counted, the job is the other worker's.
 */
static int taken_over(struct worker *w, fl_store *st, const struct fl_run_result *res, int r)
{
	if (!r && res->run_id)
		r = fl_store_run_discard(st, res->run_id);
	if (!r && !(r = fl_store_tx_commit(st)))
		fl_warn("job %lld was taken over by another worker while this one ran it: its "
			"run is discarded",
			(long long)w->job.id);
	if (r)
		fl_store_tx_rollback(st);
	return r;
}

/* One transaction: the run's link, the job's state, the machine's count, the parent. */
static int record_outcome(struct worker *w, fl_store *st, const struct fl_run_result *res,
			  const char *detail, int *broken)
{
	const struct fl_machine_conf *m = &cfg_of(w->q)->machines[w->machine];
	const char *result = final_result(res->status, w->job.attempts);
	int held, r;

	*broken = 0;
	if ((r = fl_store_tx_begin(st)))
		return r;
	if ((r = fl_store_job_held(st, w->job.id, word(FL_STATE_RUNNING), w->q->me.name, &held)) ||
	    !held)
		return taken_over(w, st, res, r);
	if (res->run_id)
		r = fl_store_run_set_job(st, res->run_id, w->job.id);
	if (!r)
		r = fl_dispatch_machine_count(st, m, res->status, detail, broken);
	if (!r && result)
		r = fl_store_job_run_done(st, w->job.id, word(FL_STATE_DONE), result,
					  res->status == FL_RUN_OK ? res->run_id : 0, detail);
	else if (!r)
		r = fl_job_set(st, w->job.id, FL_STATE_QUEUED, NULL, detail);
	if (!r && result)
		r = fl_job_wake_parent(st, w->job.id);
	if (!r)
		r = fl_store_tx_commit(st);
	if (r)
		fl_store_tx_rollback(st);
	return r;
}

static void run_job(struct worker *w, fl_store *st)
{
	const struct fl_config *cfg = cfg_of(w->q);
	const struct fl_job *j = &w->job;
	const struct fl_tree_conf *tree = fl_config_tree(cfg, j->tree);
	struct fl_run_result res = {0};
	fl_repo *repo = NULL;
	char *label = fl_xasprintf("%s %.12s on %s (%s%sjob %lld, attempt %d)", fl_role_word(j),
				   j->rev, j->machine, j->point ? j->point : "",
				   j->point ? ", " : "", (long long)j->id, j->attempts);
	const struct fl_benchmark_conf *bench = NULL;
	struct fl_narrow_bench narrow;
	struct fl_point_at *points = NULL;
	size_t npoints;
	const char *detail;
	int local, broken, r;

	r = tree ? fl_repo_open_tree(&repo, tree->name, tree->url, cfg->var, &local)
		 : fl_error_set(FL_EINVAL, "tree '%s' is not in the configuration", j->tree);
	if (!r && !(bench = fl_config_benchmark(cfg, j->benchmark)))
		r = fl_error_set(FL_EINVAL, "benchmark '%s' is not in the configuration",
				 j->benchmark);
	/* a job for some points measures only them (bisections, checks, tries) */
	if (!r && j->point && !(r = fl_points_parse(j->point, &points, &npoints))) {
		fl_point_bench(bench, points, npoints, &narrow);
		bench = &narrow.b;
	}
	if (!r) {
		/* bisection steps measure throughput only (pipeline.h) */
		static const char *const untraced[] = {FL_JOB_LOCKS "=off", NULL};
		struct fl_dispatch_req req = {.run = {.cfg = cfg,
						      .machine = &cfg->machines[w->machine],
						      .bench = bench,
						      .tree = tree,
						      .repo = repo,
						      .rev = j->rev,
						      .label = label},
					      .store = st,
					      .job_id = j->id};

		if (fl_machine_kernel(req.run.machine) && !fl_role_traces_locks(j->role))
			req.run.job_extra = untraced;

		r = fl_dispatch_run(&req, &res);
	}
	/* A request that could not be carried out at all is our trouble, not the commit's. */
	if (r) {
		res.status = FL_RUN_INFRA_ERROR;
		free(res.detail);
		res.detail = fl_xstrdup(fl_error_last());
	}
	fl_crashpoint("run-stored");
	detail = res.detail ? res.detail : "";
	if (record_outcome(w, st, &res, detail, &broken))
		fl_err("run %s: cannot record its end: %s", label, fl_error_last());
	else
		w->recorded = 1;
	fl_info("run: %s %s: %s%s%s", j->benchmark, label, fl_run_status_name(res.status),
		*detail ? ": " : "", detail);
	if (broken)
		fl_err("machine '%s' is taken out of the pool after %u infra errors in a row: %s",
		       j->machine, cfg->machines[w->machine].max_infra_errors, detail);
	fl_run_result_release(&res);
	fl_repo_free(repo);
	free(points);
	free(label);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	fl_store *st;

	if (fl_store_open(&st, cfg_of(w->q)->store.path, 0))
		fl_err("run job %lld: %s", (long long)w->job.id, fl_error_last());
	else {
		run_job(w, st);
		fl_store_free(st);
	}
	atomic_store(&w->finished, 1);
	if (write(w->q->wake[1], "x", 1) < 0 && errno != EAGAIN)
		fl_warn("queue: wake-up pipe: %s", strerror(errno));
	return NULL;
}

/* Queued again, unless another worker took it over meanwhile. */
static int requeue_held(fl_queue *q, const struct fl_job *j)
{
	int held;

	if (fl_store_job_held(q->st, j->id, word(FL_STATE_RUNNING), q->me.name, &held))
		return FL_ESTORE;
	return held ? fl_job_set(q->st, j->id, FL_STATE_QUEUED, NULL,
				 "the run's end could not be stored")
		    : 0;
}

static void reap(fl_queue *q, int all)
{
	struct worker **p = &q->workers;

	while (*p) {
		struct worker *w = *p;

		if (!all && !atomic_load(&w->finished)) {
			p = &w->next;
			continue;
		}
		pthread_join(w->thread, NULL);
		/* a run whose end could not be stored is redone, as after a crash */
		if (!w->recorded && requeue_held(q, &w->job))
			fl_err("job %lld: %s", (long long)w->job.id, fl_error_last());
		q->active[w->machine]--;
		q->running--;
		*p = w->next;
		fl_job_release(&w->job);
		free(w);
	}
}

/* The machines' pool state from the store; says when one has just left it. */
static void refresh_pool(fl_queue *q)
{
	for (size_t i = 0; i < cfg_of(q)->nmachines; i++) {
		struct fl_machine_state m;
		int broken;

		if (fl_store_machine_state(q->st, cfg_of(q)->machines[i].name, &m))
			continue;
		broken = !strcmp(m.state, "broken");
		if (broken && !q->broken[i])
			fl_warn("machine '%s' is out of the pool (%s); its runs wait for "
				"'faultline queue enable %s'",
				cfg_of(q)->machines[i].name, m.reason ? m.reason : "broken",
				cfg_of(q)->machines[i].name);
		q->broken[i] = broken;
		fl_machine_state_release(&m);
	}
}

/* Failed, and its parent woken, in one transaction: no one sees the parent
 * waiting without a live child (the status takes that for the end). */
static void fail_job(fl_queue *q, const struct fl_job *j, const char *why)
{
	if (j->parent_id) /* a run: what its parent makes of it says the rest */
		fl_err("job %lld (%s%s%s): %s", (long long)j->id, j->kind, *j->tree ? " " : "",
		       j->tree, why);
	else
		fl_err("job %lld (%s%s%s): %s ('faultline queue retry %lld' runs it again once "
		       "that is fixed)",
		       (long long)j->id, j->kind, *j->tree ? " " : "", j->tree, why,
		       (long long)j->id);
	q->failed++;
	if (fl_store_tx_begin(q->st) || fl_job_set(q->st, j->id, FL_STATE_FAILED, NULL, why) ||
	    fl_job_wake_parent(q->st, j->id) || fl_store_tx_commit(q->st)) {
		fl_err("job %lld: %s", (long long)j->id, fl_error_last());
		fl_store_tx_rollback(q->st);
	}
}

static int start_worker(fl_queue *q, struct fl_job *j, size_t machine)
{
	struct worker *w = fl_xcalloc(1, sizeof(*w));
	int e;

	w->q = q;
	w->job = *j;
	memset(j, 0, sizeof(*j));
	w->machine = machine;
	if ((e = pthread_create(&w->thread, NULL, worker_main, w))) {
		fl_job_set(q->st, w->job.id, FL_STATE_QUEUED, NULL, NULL);
		fl_job_release(&w->job);
		free(w);
		return fl_error_set(FL_EIO, "cannot start a worker thread: %s", strerror(e));
	}
	w->next = q->workers;
	q->workers = w;
	q->active[machine]++;
	q->running++;
	return 0;
}

/* Queued runs of machines the configuration no longer has cannot run. */
static int fail_strays(fl_queue *q)
{
	struct fl_job *jobs;
	size_t n, mi;

	if (fl_store_jobs_in_state(q->st, word(FL_STATE_QUEUED), fl_job_kind_name(FL_JOB_RUN), 0,
				   &jobs, &n))
		return FL_ESTORE;
	for (size_t i = 0; i < n; i++)
		if (!machine_index(q, jobs[i].machine, &mi))
			fail_job(q, &jobs[i], "its machine is no longer in the configuration");
	fl_jobs_free(jobs, n);
	return 0;
}

/* Whether this worker may drive machine i: in the pool, pinned to its host or to none. */
static int may_drive(fl_queue *q, size_t i)
{
	const char *pin = cfg_of(q)->machines[i].worker_host;

	return !q->broken[i] && (!pin || !strcmp(pin, q->me.host));
}

/*
 * Runs for machine i while it has room: the machine is claimed first (one
 * worker drives it at a time), then its oldest queued runs; a machine this
 * worker left idle goes back for any worker to take.
 */
static int fill_machine(fl_queue *q, size_t i)
{
	const struct fl_machine_conf *m = &cfg_of(q)->machines[i];
	unsigned room = m->max_parallel ? m->max_parallel : 1;
	int r = 0;

	while (may_drive(q, i) && q->active[i] < room && !r) {
		struct fl_job j;

		if (!q->held[i] &&
		    ((r = fl_store_machine_claim(q->st, m->name, q->me.name, &q->held[i])) ||
		     !q->held[i]))
			break;
		r = fl_store_job_claim_next(q->st, fl_job_kind_name(FL_JOB_RUN), m->name,
					    word(FL_STATE_QUEUED), word(FL_STATE_RUNNING),
					    q->me.name, &j);
		if (r == FL_ENOTFOUND) {
			fl_error_clear();
			r = 0;
			break;
		}
		if (!r)
			r = start_worker(q, &j, i);
	}
	if (!r && q->held[i] && !q->active[i]) {
		r = fl_store_machine_release(q->st, m->name, q->me.name);
		q->held[i] = r != 0;
	}
	return r;
}

static int dispatch(fl_queue *q)
{
	int r = fail_strays(q);

	for (size_t i = 0; !r && i < cfg_of(q)->nmachines; i++)
		r = fill_machine(q, i);
	return r;
}

/* ---- coordinators --------------------------------------------------- */

static fl_job_step_fn step_of(fl_queue *q, const struct fl_job *j)
{
	enum fl_job_kind k;

	if (fl_job_kind_parse(j->kind, &k))
		return NULL;
	return q->o.steps ? q->o.steps[k] : fl_job_kind_info(k)->step;
}

static void step_one(fl_queue *q, const struct fl_job *j)
{
	fl_job_step_fn step = step_of(q, j);
	struct fl_job now;
	int claimed;

	if (!step) {
		fail_job(q, j, "no handler for this kind of job");
		return;
	}
	if (fl_store_job_claim(q->st, j->id, word(FL_STATE_QUEUED), word(FL_STATE_RUNNING),
			       q->me.name, &claimed)) {
		fl_err("job %lld: %s", (long long)j->id, fl_error_last());
		return;
	}
	if (!claimed) /* another worker is stepping it */
		return;
	fl_error_clear();
	if (step(q->o.ctx, q->st, j) < 0) {
		fail_job(q, j, fl_error_last());
		return;
	}
	if (!fl_store_job_get(q->st, j->id, &now)) {
		if (fl_job_is(now.state, FL_STATE_RUNNING))
			fail_job(q, j, "its step left it running");
		fl_job_release(&now);
	}
}

/* Steps queued coordinators until none is left (a step may queue the next one). */
static int step_coordinators(fl_queue *q)
{
	for (int round = 0; round < 100; round++) {
		struct fl_job *jobs;
		size_t n;

		if (fl_store_jobs_in_state(q->st, word(FL_STATE_QUEUED),
					   fl_job_kind_name(FL_JOB_RUN), 1, &jobs, &n))
			return FL_ESTORE;
		for (size_t i = 0; i < n; i++)
			step_one(q, &jobs[i]);
		fl_jobs_free(jobs, n);
		if (!n)
			break;
	}
	return 0;
}

int fl_queue_tick(fl_queue *q)
{
	size_t failed;
	int r;

	reap(q, 0);
	refresh_pool(q);
	if ((r = scan_workers(q)))
		return r;
	/* a run job that dispatch fails wakes its parent: step that at once */
	do {
		failed = q->failed;
		if ((r = step_coordinators(q)) || (r = dispatch(q)))
			return r;
	} while (q->failed != failed);
	return 0;
}

void fl_queue_wait(fl_queue *q, int64_t ms)
{
	struct pollfd p = {q->wake[0], POLLIN, 0};
	char buf[64];

	if (poll(&p, 1, ms > 0 ? (int)ms : 0) > 0)
		while (read(q->wake[0], buf, sizeof(buf)) > 0)
			;
}

/* A machine pinned to a host none of the live workers is on. */
static int pinned_away(fl_queue *q, size_t mi, const struct fl_worker *ws, size_t n, int64_t now)
{
	const char *pin = cfg_of(q)->machines[mi].worker_host;

	if (!pin || !strcmp(pin, q->me.host))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ws[i].host, pin) && !worker_gone(q, &ws[i], now))
			return 0;
	return 1;
}

void fl_queue_status(fl_queue *q, struct fl_queue_status *s)
{
	struct fl_worker *ws = NULL;
	struct fl_job_counts c;
	struct fl_job *jobs;
	size_t n, nw = 0, mi;
	int64_t now = (int64_t)time(NULL);

	memset(s, 0, sizeof(*s));
	s->running = q->running;
	s->failed = q->failed;
	if (!fl_job_counts(q->st, 0, &c)) {
		s->active = c.queued + c.running;
		s->live = s->active + c.waiting;
	}
	if (!fl_store_workers(q->st, &ws, &nw))
		for (size_t i = 0; i < nw; i++)
			s->others += strcmp(ws[i].name, q->me.name) && !worker_gone(q, &ws[i], now);
	if (!fl_store_jobs_in_state(q->st, word(FL_STATE_QUEUED), fl_job_kind_name(FL_JOB_RUN), 0,
				    &jobs, &n)) {
		for (size_t i = 0; i < n; i++)
			if (machine_index(q, jobs[i].machine, &mi) &&
			    (q->broken[mi] || pinned_away(q, mi, ws, nw, now)))
				s->blocked++;
		fl_jobs_free(jobs, n);
	}
	fl_workers_free(ws, nw);
}

int fl_queue_others_busy(const struct fl_queue_status *s)
{
	return s->others && s->active > s->blocked;
}

void fl_queue_free(fl_queue *q)
{
	if (!q)
		return;
	reap(q, 1);
	stop_beat(q);
	if (q->entered && fl_store_worker_leave(q->st, q->me.name))
		fl_warn("worker %s: %s", q->me.name, fl_error_last());
	if (q->wake[0] >= 0) {
		close(q->wake[0]);
		close(q->wake[1]);
	}
	if (q->lock_fd >= 0)
		close(q->lock_fd);
	fl_store_free(q->st);
	free(q->active);
	free(q->broken);
	free(q->held);
	free(q->me.name);
	free(q->me.host);
	free(q);
}

/* ---- retry ---------------------------------------------------------- */

/* Whether a failed job's child is one of the runs that failed it. */
static int failed_it(const struct fl_job *parent, const struct fl_job *kid)
{
	enum fl_job_kind k;

	if (fl_job_is(kid->state, FL_STATE_FAILED))
		return 1;
	return fl_job_is(kid->state, FL_STATE_DONE) && kid->result &&
	       !strcmp(kid->result, "failed") && !fl_job_kind_parse(parent->kind, &k) &&
	       fl_job_kind_info(k)->rounds;
}

static int retry_job(fl_store *st, const struct fl_job *j, unsigned *runs)
{
	struct fl_job *kids;
	size_t n;
	int r;

	if (j->parent_id)
		return fl_error_set(FL_EINVAL,
				    "job %lld is a run of job %lld: 'faultline queue retry %lld' "
				    "retries it with its failed runs",
				    (long long)j->id, (long long)j->parent_id,
				    (long long)j->parent_id);
	if (!fl_job_is(j->state, FL_STATE_FAILED))
		return fl_error_set(FL_EINVAL, "job %lld (%s) is %s, not failed", (long long)j->id,
				    j->kind, j->state);
	if ((r = fl_store_jobs_children(st, j->id, &kids, &n)))
		return r;
	r = fl_store_job_requeue(st, j->id, word(FL_STATE_QUEUED));
	for (size_t i = 0; !r && i < n; i++)
		if (failed_it(j, &kids[i]) &&
		    !(r = fl_store_job_requeue(st, kids[i].id, word(FL_STATE_QUEUED))))
			(*runs)++;
	fl_jobs_free(kids, n);
	return r;
}

int fl_queue_retry(fl_store *st, int64_t id, unsigned *runs)
{
	struct fl_job j;
	int r;

	*runs = 0;
	if ((r = fl_store_tx_begin(st)))
		return r;
	if (!(r = fl_store_job_get(st, id, &j))) {
		r = retry_job(st, &j, runs);
		fl_job_release(&j);
	}
	if (!r)
		r = fl_store_tx_commit(st);
	if (r)
		fl_store_tx_rollback(st);
	return r;
}

int fl_queue_retry_failed(fl_store *st, unsigned *jobs, unsigned *runs)
{
	struct fl_job *failed;
	size_t n;
	int r;

	*jobs = *runs = 0;
	if ((r = fl_store_tx_begin(st)))
		return r;
	if (!(r = fl_store_jobs_in_state(st, word(FL_STATE_FAILED), fl_job_kind_name(FL_JOB_RUN), 1,
					 &failed, &n))) {
		for (size_t i = 0; !r && i < n; i++)
			if (!(r = retry_job(st, &failed[i], runs)))
				(*jobs)++;
		fl_jobs_free(failed, n);
	}
	if (!r)
		r = fl_store_tx_commit(st);
	if (r)
		fl_store_tx_rollback(st);
	return r;
}
