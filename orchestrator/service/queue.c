/*
 * queue.c - the job queue's policy: recovery, the machine pool, run jobs in
 * worker threads, coordinator steps (see queue.h).
 */
#include "service/queue.h"
#include "proto/jobline.h"
#include "lib/buf.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "lib/log.h"
#include "machine/machine.h"
#include "service/measure.h"
#include "build/repo.h"
#include "store/store.h"

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

static int machine_index(fl_queue *q, const char *name, size_t *i)
{
	for (*i = 0; *i < cfg_of(q)->nmachines; (*i)++)
		if (!strcmp(cfg_of(q)->machines[*i].name, name))
			return 1;
	return 0;
}

/*
 * One service per store: a second watch on the same store would redo the
 * first one's runs. The lock is a file beside an SQLite store; a database
 * server's store has nothing beside it on this host, so its lock is in var
 * (one service per var directory).
 */
static int take_lock(fl_queue *q)
{
	const struct fl_config *cfg = cfg_of(q);
	char *path = fl_store_is_file(cfg->store.path)
			 ? fl_xasprintf("%s.watch.lock", cfg->store.path)
			 : fl_xasprintf("%s/watch.lock", cfg->var);
	int r = 0;

	q->lock_fd = fl_mkdir_parent(path) ? -1 : open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (q->lock_fd < 0)
		r = fl_error_set(FL_EIO, "cannot open %s: %s", path, strerror(errno));
	else if (flock(q->lock_fd, LOCK_EX | LOCK_NB))
		r = fl_error_set(FL_EEXISTS, "another faultline watch is using the store %s (%s)",
				 cfg_of(q)->store.path, path);
	free(path);
	return r;
}

static int enter_machines(fl_queue *q)
{
	const struct fl_config *cfg = cfg_of(q);

	q->active = fl_xcalloc(cfg->nmachines + 1, sizeof(*q->active));
	q->broken = fl_xcalloc(cfg->nmachines + 1, sizeof(*q->broken));
	for (size_t i = 0; i < cfg->nmachines; i++) {
		int64_t id;

		if (fl_store_machine_ensure(q->st, cfg->machines[i].name, cfg->machines[i].backend,
					    &id))
			return FL_ESTORE;
	}
	return 0;
}

int fl_queue_open(fl_queue **out, const struct fl_queue_opts *o)
{
	fl_queue *q = fl_xcalloc(1, sizeof(*q));
	unsigned requeued = 0, discarded = 0;
	int r;

	*out = NULL;
	q->o = *o;
	q->lock_fd = q->wake[0] = q->wake[1] = -1;
	if ((r = fl_store_open(&q->st, o->cfg->store.path, 0)) || (r = take_lock(q)))
		goto fail;
	if (pipe2(q->wake, O_CLOEXEC | O_NONBLOCK)) {
		r = fl_error_set(FL_EIO, "pipe: %s", strerror(errno));
		goto fail;
	}
	if ((r = enter_machines(q)) || (r = fl_store_jobs_recover(q->st, &requeued, &discarded)) ||
	    (r = fl_pipeline_prepare(q->st, o->cfg)))
		goto fail;
	if (requeued || discarded)
		fl_info("queue: resuming: %u job%s queued again, %u interrupted run%s discarded",
			requeued, FL_S(requeued), discarded, FL_S(discarded));
	*out = q;
	return 0;
fail:
	fl_queue_free(q);
	return r;
}

fl_store *fl_queue_store(fl_queue *q)
{
	return q->st;
}

/* ---- run jobs ------------------------------------------------------- */

/* Whether the job's run tells about the commit: ok or untestable, or failed too often. */
static const char *final_result(enum fl_run_status s, int attempts)
{
	if (s == FL_RUN_OK)
		return "ok";
	if (s == FL_RUN_UNTESTABLE)
		return "untestable";
	if (s != FL_RUN_INFRA_ERROR && attempts >= FL_QUEUE_ATTEMPTS)
		return "failed";
	return NULL;
}

/* One transaction: the run's link, the job's state, the machine's count, the parent. */
static int record_outcome(struct worker *w, fl_store *st, const struct fl_run_result *res,
			  const char *detail, int *broken)
{
	const struct fl_machine_conf *m = &cfg_of(w->q)->machines[w->machine];
	const char *result = final_result(res->status, w->job.attempts);
	int r;

	*broken = 0;
	if ((r = fl_store_begin(st)))
		return r;
	if (res->run_id)
		r = fl_store_run_set_job(st, res->run_id, w->job.id);
	if (!r && res->status == FL_RUN_INFRA_ERROR)
		r = fl_store_machine_infra_error(st, m->name, detail, (int)m->max_infra_errors,
						 broken);
	else if (!r)
		r = fl_store_machine_ok(st, m->name);
	if (!r && result)
		r = fl_store_job_run_done(st, w->job.id, result,
					  res->status == FL_RUN_OK ? res->run_id : 0, detail);
	else if (!r)
		r = fl_store_job_set(st, w->job.id, "queued", NULL, detail);
	if (!r && result)
		r = fl_store_job_wake_parent(st, w->job.id);
	if (!r)
		r = fl_store_commit(st);
	if (r)
		fl_store_rollback(st);
	return r;
}

static void run_job(struct worker *w, fl_store *st)
{
	const struct fl_config *cfg = cfg_of(w->q);
	const struct fl_job *j = &w->job;
	const struct fl_tree_conf *tree = fl_config_tree(cfg, j->tree);
	struct fl_run_result res = {0};
	fl_repo *repo = NULL;
	char *label = fl_xasprintf("%s %.12s on %s (%s%sjob %lld, attempt %d)", j->role, j->rev,
				   j->machine, j->point ? j->point : "", j->point ? ", " : "",
				   (long long)j->id, j->attempts);
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
		struct fl_run_req req = {.cfg = cfg,
					 .machine = &cfg->machines[w->machine],
					 .bench = bench,
					 .store = st,
					 .tree = tree,
					 .repo = repo,
					 .rev = j->rev,
					 .label = label,
					 .job_id = j->id};

		if (fl_machine_kernel(req.machine) && !fl_role_traces_locks(j->role))
			req.job_extra = untraced;

		r = fl_machine_run(&req, &res);
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
		if (!w->recorded && fl_store_job_set(q->st, w->job.id, "queued", NULL,
						     "the run's end could not be stored"))
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

static void fail_job(fl_queue *q, const struct fl_job *j, const char *why)
{
	fl_err("job %lld (%s%s%s): %s", (long long)j->id, j->kind, *j->tree ? " " : "", j->tree,
	       why);
	q->failed++;
	if (fl_store_job_set(q->st, j->id, "failed", NULL, why) ||
	    fl_store_job_wake_parent(q->st, j->id))
		fl_err("job %lld: %s", (long long)j->id, fl_error_last());
}

static int start_worker(fl_queue *q, struct fl_job *j, size_t machine)
{
	struct worker *w = fl_xcalloc(1, sizeof(*w));
	int e;

	if (fl_store_job_start(q->st, j->id, 1)) {
		free(w);
		return FL_ESTORE;
	}
	w->q = q;
	w->job = *j;
	w->job.attempts++;
	memset(j, 0, sizeof(*j));
	w->machine = machine;
	if ((e = pthread_create(&w->thread, NULL, worker_main, w))) {
		fl_store_job_set(q->st, w->job.id, "queued", NULL, NULL);
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

static int dispatch(fl_queue *q)
{
	struct fl_job *jobs;
	size_t n, mi;
	int r = 0;

	if (fl_store_jobs_in_state(q->st, "queued", fl_job_kind_name(FL_JOB_RUN), 0, &jobs, &n))
		return FL_ESTORE;
	for (size_t i = 0; i < n && !r; i++) {
		struct fl_job *j = &jobs[i];
		const struct fl_machine_conf *m;

		if (!machine_index(q, j->machine, &mi)) {
			fail_job(q, j, "its machine is no longer in the configuration");
			continue;
		}
		m = &cfg_of(q)->machines[mi];
		if (q->broken[mi] || q->active[mi] >= (m->max_parallel ? m->max_parallel : 1))
			continue;
		r = start_worker(q, j, mi);
	}
	fl_jobs_free(jobs, n);
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

	if (!step) {
		fail_job(q, j, "no handler for this kind of job");
		return;
	}
	if (fl_store_job_start(q->st, j->id, 0)) {
		fl_err("job %lld: %s", (long long)j->id, fl_error_last());
		return;
	}
	fl_error_clear();
	if (step(q->o.ctx, q->st, j) < 0) {
		fail_job(q, j, fl_error_last());
		return;
	}
	if (!fl_store_job_get(q->st, j->id, &now)) {
		if (!strcmp(now.state, "running"))
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

		if (fl_store_jobs_in_state(q->st, "queued", fl_job_kind_name(FL_JOB_RUN), 1, &jobs,
					   &n))
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

void fl_queue_status(fl_queue *q, struct fl_queue_status *s)
{
	struct fl_job *jobs;
	size_t n, mi;

	memset(s, 0, sizeof(*s));
	s->running = q->running;
	s->failed = q->failed;
	fl_store_jobs_live(q->st, &s->live);
	if (fl_store_jobs_in_state(q->st, "queued", fl_job_kind_name(FL_JOB_RUN), 0, &jobs, &n))
		return;
	for (size_t i = 0; i < n; i++)
		if (machine_index(q, jobs[i].machine, &mi) && q->broken[mi])
			s->blocked++;
	fl_jobs_free(jobs, n);
}

void fl_queue_free(fl_queue *q)
{
	if (!q)
		return;
	reap(q, 1);
	if (q->wake[0] >= 0) {
		close(q->wake[0]);
		close(q->wake[1]);
	}
	if (q->lock_fd >= 0)
		close(q->lock_fd);
	fl_store_free(q->st);
	free(q->active);
	free(q->broken);
	free(q);
}
