/*
 * dispatch.c - one run kept in the store while a backend runs it (see
 * dispatch.h): the request checked, the kernel or the commit, the run row,
 * the sink that stores what the backend hands back, the evidence; and the
 * runs dead processes left.
 */
#include "dispatch/dispatch.h"
#include "dispatch/evidence.h"
#include "dispatch/priv.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/log.h"
#include "store/jobs.h"
#include "store/run.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One run being kept. */
struct kept {
	const struct fl_dispatch_req *req;
	struct fl_run_req run; /* the backend's request */
	int64_t run_id;
	int ended;	/* the backend handed the end, and it was stored */
	int untestable; /* its end: nothing of it is kept */
	int evidence;	/* its records were read to their end */
};

/* ---- the sink: what the backend hands back, into the store -------------- */

static int sink_record(void *arg, uint64_t seq, const char *type, const char *json, size_t len)
{
	struct kept *x = arg;

	if (fl_store_run_record_add(x->req->store, x->run_id, seq, type, json, len))
		return FL_ESTORE;
	return 0;
}

static int sink_guest(void *arg, const struct fl_machine_guest *g)
{
	struct kept *x = arg;
	struct fl_run_guest row = {g->domain, g->accel, g->facts, g->console_path, g->created_ms};

	return fl_store_run_guest(x->req->store, x->run_id, &row);
}

static int sink_facts(void *arg, const char *json)
{
	struct kept *x = arg;

	return fl_store_machine_set_facts(x->req->store, x->run.machine->name, json);
}

/* The end with the samples of an ok run, in one transaction (store/run.h). */
static int sink_end(void *arg, const struct fl_machine_end *e)
{
	struct kept *x = arg;
	struct fl_sample *s = fl_xcalloc(e->nsamples + 1, sizeof(*s));
	struct fl_run_end row = {.status = fl_run_status_name(e->status),
				 .detail = e->detail,
				 .console_tail = e->console,
				 .nodes = e->nodes,
				 .cpus = e->cpus,
				 .kernel_release = e->kernel_release,
				 .agent_ms = e->agent_ms,
				 .first_sample_ms = e->first_sample_ms,
				 .ended_ms = e->ended_ms,
				 .samples = s,
				 .nsamples = e->nsamples};
	int r;

	if (e->status == FL_RUN_UNTESTABLE) {
		/* like a commit that does not build: its row goes once the backend is done */
		x->untestable = 1;
		free(s);
		return 0;
	}
	for (size_t i = 0; i < e->nsamples; i++)
		s[i] = (struct fl_sample){e->samples[i].metric, e->samples[i].mode,
					  e->samples[i].tasks,	e->samples[i].seq,
					  e->samples[i].value,	e->samples[i].cgroup};
	r = fl_store_run_end(x->req->store, x->run_id, &row);
	free(s);
	x->ended = !r;
	x->evidence = !r && e->evidence;
	return r;
}

static const struct fl_run_sink sink_ops = {sink_record, sink_guest, sink_facts, sink_end, NULL};

/* ---- the run ------------------------------------------------------------------ */

/* What the request must have before anything is built or stored. */
static int check(const struct fl_dispatch_req *req)
{
	const struct fl_run_req *run = &req->run;
	const struct fl_machine_ops *ops;
	int r;

	if (!run->cfg || !run->machine || !run->bench || !req->store)
		return fl_error_set(FL_EINVAL, "a run needs a configuration, a machine, a "
					       "benchmark and a store");
	if ((r = fl_machine_ops_of(run->cfg, run->machine, &ops)))
		return r;
	if (fl_machine_own_kernel(run->machine)) {
		if (req->kernel_image || run->rev)
			return fl_error_set(FL_EINVAL,
					    "machine '%s' measures the box's own kernel (boot: "
					    "current): a run takes no revision or kernel image",
					    run->machine->name);
	} else if (!req->kernel_image == !run->rev)
		return fl_error_set(FL_EINVAL, "a run takes a revision or a kernel image, not %s",
				    run->rev ? "both" : "neither");
	if (!fl_machine_kernel(run->machine) && (!run->tree || !run->repo || !run->rev))
		return fl_error_set(FL_EINVAL,
				    "machine '%s': the %s backend runs a revision of a tree, not "
				    "a kernel image",
				    run->machine->name, ops->name);
	if (fl_machine_kernel(run->machine) && !run->bench->test)
		return fl_error_set(FL_EINVAL, "benchmark '%s' names no test for machine '%s'",
				    run->bench->name, run->machine->name);
	return 0;
}

/* The run row, 'running': its machine's row, what it runs, its parameters. */
static int start_row(struct kept *x, int64_t build_id, int64_t commit_id)
{
	const struct fl_dispatch_req *req = x->req;
	const struct fl_run_req *run = &x->run;
	struct fl_run_new rn;
	int64_t machine_id;
	char *params;
	int r;

	if ((r = fl_store_machine_ensure(req->store, run->machine->name, run->machine->backend,
					 &machine_id)))
		return r;
	params = fl_machine_params(run);
	/* the row keeps the System.map found beside a prebuilt image */
	rn = (struct fl_run_new){machine_id,
				 build_id,
				 commit_id,
				 run->bench->name,
				 params,
				 req->kernel_image,
				 req->kernel_image && run->kernel ? run->kernel->system_map
								  : req->system_map,
				 run->label,
				 req->job_id};
	r = fl_store_run_start(req->store, &rn, &x->run_id);
	free(params);
	return r;
}

/*
 * The run's vmstat rates and profiles per point from its stored records,
 * named with the kernel's System.map; where that is Debian's placeholder,
 * with the kernel's own names (its "ksyms" record). The samples decide the
 * run's status: evidence that cannot be made is a warning, never a failed run.
 */
static void store_evidence(const struct kept *x)
{
	fl_store *st = x->req->store;
	const char *map = x->run.kernel ? x->run.kernel->system_map : NULL;
	char **json, *why = NULL, *name = fl_machine_run_name(x->run.label, x->run_id);
	size_t *lens, n;
	int r = fl_store_run_records(st, x->run_id, &json, &lens, &n);

	if (!r && n)
		r = fl_run_evidence_store(st, x->run_id, (const char *const *)json, lens, n, map,
					  &why);
	if (r)
		fl_warn("%s: no evidence stored: %s", name, fl_error_last());
	else if (why)
		fl_info("%s: evidence: %s", name, why);
	fl_store_run_records_free(json, lens, n);
	free(why);
	free(name);
}

/* The backend's run of x, its row made; whatever happens, the row is ended or gone. */
static int hand_over(struct kept *x, struct fl_run_result *res)
{
	struct fl_boxes boxes = fl_dispatch_boxes(x->req->store);
	struct fl_run_sink sink = sink_ops;
	int64_t build_id = res->build_id;
	int r;

	sink.arg = x;
	x->run.sink = &sink;
	x->run.boxes = &boxes;
	x->run.run_id = x->run_id;
	r = fl_machine_run(&x->run, res);
	res->run_id = x->run_id;
	res->build_id = build_id;
	if (r && !x->ended && !x->untestable) {
		/* a request the backend could not carry out: ours, and said */
		struct fl_run_end e = {.status = fl_run_status_name(FL_RUN_INFRA_ERROR),
				       .detail = fl_error_last()};
		char *msg = fl_xstrdup(fl_error_last());

		if (fl_store_run_end(x->req->store, x->run_id, &e) && r != FL_ESTORE)
			fl_warn("run %lld: %s", (long long)x->run_id, fl_error_last());
		fl_error_set(r, "%s", msg);
		free(msg);
	}
	if (x->untestable) {
		int d = fl_store_run_discard(x->req->store, x->run_id);

		res->run_id = 0;
		r = r ? r : d;
	} else if (!r && x->evidence)
		store_evidence(x);
	return r;
}

int fl_dispatch_run(const struct fl_dispatch_req *req, struct fl_run_result *res)
{
	struct kept x = {.req = req, .run = req->run};
	struct fl_dispatch_kernel k = {0};
	char sha[41], *job = NULL;
	int64_t commit_id = 0;
	int r;

	memset(res, 0, sizeof(*res));
	res->agent_ms = res->first_sample_ms = res->total_ms = -1;
	if ((r = check(req)))
		return r;
	if (!fl_machine_kernel(req->run.machine)) {
		/* a commit checked out: comparisons select a commit's runs by its row */
		if (!(r = fl_repo_resolve(req->run.repo, req->run.rev, sha)) &&
		    !(r = fl_dispatch_commit_row(req, sha, &commit_id)))
			x.run.sha = sha;
	} else if (!fl_machine_own_kernel(req->run.machine)) {
		r = fl_dispatch_kernel(req, &k, res, &commit_id);
		x.run.kernel = &k.k;
	}
	if (!r && fl_machine_kernel(req->run.machine) && !(r = fl_machine_job(&x.run, &job)))
		x.run.job = job;
	if (!r && !(r = start_row(&x, res->build_id, commit_id)))
		r = hand_over(&x, res);
	fl_dispatch_kernel_release(&k);
	free(job);
	return r == 1 ? 0 : r;
}

/* ---- runs dead processes left --------------------------------------------- */

int fl_dispatch_reap_stale(const struct fl_config *cfg, fl_store *store)
{
	struct fl_run_owner *o;
	char host[256] = "";
	size_t n;
	int r, ended = 0;

	gethostname(host, sizeof(host) - 1);
	if ((r = fl_store_runs_in_flight(store, &o, &n)))
		return r;
	for (size_t i = 0; i < n && !r; i++) {
		char *why;

		if (strcmp(o[i].host, host) || !fl_machine_process_gone(o[i].pid))
			continue;
		why = fl_xasprintf("abandoned: process %d on %s ended during the run", o[i].pid,
				   host);
		r = fl_store_run_abandon(store, o[i].id, why);
		if (r == FL_EEXISTS) /* another process reaped it first */
			r = 0;
		else if (!r) {
			fl_info("run %lld: %s", (long long)o[i].id, why);
			ended++;
		}
		free(why);
	}
	fl_store_run_owners_free(o, n);
	if (!r)
		fl_machine_reap(cfg);
	return r ? r : ended;
}
