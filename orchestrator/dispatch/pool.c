/*
 * dispatch/pool.c - the rules around a run's end (see dispatch.h): how
 * many times a run is tried, and when a machine leaves the pool. The
 * store keeps the machine's count and state as this gives them.
 */
#include "dispatch/dispatch.h"
#include "config/config.h"
#include "lib/cancel.h"
#include "lib/error.h"
#include "lib/log.h"
#include "store/jobs.h"

#include <stdlib.h>
#include <string.h>

#define ATTEMPTS 3

const struct fl_attempts fl_attempts_once = {.failures = 1, .infra = ATTEMPTS};
const struct fl_attempts fl_attempts_job = {.failures = ATTEMPTS, .infra = 0};

int fl_dispatch_again(const struct fl_attempts *a, enum fl_run_status s, unsigned attempt)
{
	unsigned max = s == FL_RUN_INFRA_ERROR ? a->infra : a->failures;

	if (s == FL_RUN_OK || s == FL_RUN_UNTESTABLE)
		return 0;
	return !max || attempt < max;
}

int fl_dispatch_run_attempts(const struct fl_dispatch_req *req, const struct fl_attempts *a,
			     struct fl_run_result *res)
{
	int r;

	for (unsigned attempt = 1;; attempt++) {
		if (attempt > 1) {
			fl_info("run %lld was %s (%s): trying again (%u of %u)",
				(long long)res->run_id, fl_run_status_name(res->status),
				res->detail ? res->detail : "", attempt,
				res->status == FL_RUN_INFRA_ERROR ? a->infra : a->failures);
			fl_run_result_release(res);
		}
		r = fl_dispatch_run(req, res);
		if (r || fl_cancel_runs() || !fl_dispatch_again(a, res->status, attempt))
			return r;
	}
}

int fl_dispatch_machine_count(fl_store *st, const struct fl_machine_conf *m, enum fl_run_status s,
			      const char *why, int *broken)
{
	struct fl_machine_state ms;
	int r;

	*broken = 0;
	if ((r = fl_store_machine_state_locked(st, m->name, &ms)))
		return r;
	if (s != FL_RUN_INFRA_ERROR)
		ms.infra_errors = 0; /* the run reached the commit */
	else if (++ms.infra_errors >= (int)m->max_infra_errors) {
		free(ms.state);
		free(ms.reason);
		ms.state = fl_xstrdup("broken");
		ms.reason = fl_xstrdup(why ? why : "infra error");
	}
	*broken = !strcmp(ms.state, "broken");
	r = fl_store_machine_set_state(st, m->name, &ms);
	fl_machine_state_release(&ms);
	return r;
}
