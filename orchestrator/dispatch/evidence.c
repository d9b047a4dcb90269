/* dispatch/evidence.c - a run's evidence from its records into the store (see
 * dispatch/evidence.h). */
#include "dispatch/evidence.h"
#include "analysis/evidence.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "store/evidence.h"

#include <stdlib.h>

/* A point as the store's row: a view that borrows the point's strings. */
static void point_row(const struct fl_evidence_point *pt, struct fl_evidence_row *row)
{
	*row = (struct fl_evidence_row){.is_profile = pt->source == FL_EV_PROFILE,
					.is_locks = pt->source == FL_EV_LOCKS,
					.locks = pt->locks,
					.vmstat_missing = pt->vmstat_missing,
					.nlk = pt->nlk,
					.test = pt->test,
					.mode = pt->mode,
					.tasks = pt->tasks,
					.cgroup = pt->cgroup,
					.measured_s = pt->measured_s,
					.profile = pt->profile,
					.profile_samples = pt->profile_samples,
					.nvm = pt->nvm,
					.nfn = pt->nfn};
	row->vm = fl_xcalloc(pt->nvm + 1, sizeof(*row->vm));
	for (size_t k = 0; k < pt->nvm; k++)
		row->vm[k] =
		    (struct fl_vmstat_row){pt->vm[k].name, pt->vm[k].delta, pt->vm[k].per_sec};
	row->fn = fl_xcalloc(pt->nfn + 1, sizeof(*row->fn));
	for (size_t k = 0; k < pt->nfn; k++)
		row->fn[k] =
		    (struct fl_profile_row){pt->fn[k].name, pt->fn[k].samples, pt->fn[k].share};
	row->lk = fl_xcalloc(pt->nlk + 1, sizeof(*row->lk));
	for (size_t k = 0; k < pt->nlk; k++)
		row->lk[k] =
		    (struct fl_lock_row){pt->lk[k].name,  pt->lk[k].named_by, pt->lk[k].contentions,
					 pt->lk[k].waits, pt->lk[k].wait_ns,  pt->lk[k].max_wait_ns,
					 pt->lk[k].chains};
}

int fl_run_evidence_store(fl_store *st, int64_t run_id, const char *const *records,
			  const size_t *lens, size_t n, const char *system_map, char **why)
{
	struct fl_evidence_point *pts;
	struct fl_evidence_row *rows;
	size_t npts;
	int r;

	if ((r = fl_evidence_from_records(records, lens, n, system_map, &pts, &npts, why)))
		return fl_error_wrap(r, "run %lld", (long long)run_id);
	rows = fl_xcalloc(npts + 1, sizeof(*rows));
	for (size_t i = 0; i < npts; i++)
		point_row(&pts[i], &rows[i]);
	r = fl_store_evidence_put(st, run_id, rows, npts);
	for (size_t i = 0; i < npts; i++) {
		free(rows[i].vm);
		free(rows[i].fn);
		free(rows[i].lk);
	}
	free(rows);
	fl_evidence_points_free(pts, npts);
	return r;
}
