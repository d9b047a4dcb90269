/*
 * revert.c - the revert commit (libgit2) and the revert step of the watch
 * service (see revert.h).
 */
#include "service/revert.h"
#include "lib/buf.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/log.h"
#include "service/measure.h"
#include "service/pipeline.h"
#include "service/service.h"
#include "store/compare.h"
#include "store/watch.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

static const char *git_msg(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

static int lookup(git_repository *git, const char *sha, git_commit **c)
{
	git_oid oid;

	if (git_oid_fromstr(&oid, sha) || git_commit_lookup(c, git, &oid))
		return fl_error_set(FL_ENOTFOUND, "no commit %s: %s", sha, git_msg());
	return 0;
}

/* The conflicting paths of an index, one per line. */
static char *conflict_list(git_index *index)
{
	const git_index_entry *anc, *ours, *theirs;
	git_index_conflict_iterator *it;
	fl_buf b = FL_BUF_INIT;

	if (git_index_conflict_iterator_new(&it, index))
		return fl_xstrdup("(the conflicting files could not be listed)\n");
	while (!git_index_conflict_next(&anc, &ours, &theirs, it)) {
		const char *path = ours ? ours->path : theirs ? theirs->path : anc->path;

		fl_buf_addf(&b, "%s\n", path);
	}
	git_index_conflict_iterator_free(it);
	return fl_buf_detach(&b);
}

/* Writes the index as a commit on onto, authored like onto so the sha is reproducible. */
static int write_commit(git_repository *git, git_index *index, git_commit *culprit,
			git_commit *onto, const char *ref, char sha[41])
{
	const git_signature *when = git_commit_committer(onto);
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	git_reference *out = NULL;
	git_oid tree_oid, oid;
	char culprit_hex[41];
	char *msg;
	int r = 0;

	git_oid_tostr(culprit_hex, sizeof(culprit_hex), git_commit_id(culprit));
	msg = fl_xasprintf("Revert \"%s\"\n\nThis reverts commit %s.\n\nMade by faultline to check "
			   "whether the revert brings the throughput back.\n",
			   git_commit_summary(culprit), culprit_hex);
	if (git_index_write_tree_to(&tree_oid, index, git) ||
	    git_tree_lookup(&tree, git, &tree_oid) ||
	    git_signature_new(&sig, "faultline", "faultline@localhost", when->when.time, 0) ||
	    git_commit_create(&oid, git, NULL, sig, sig, "UTF-8", msg, tree, 1,
			      (const git_commit **)&onto) ||
	    git_reference_create(&out, git, ref, &oid, 1, "faultline: revert check"))
		r = fl_error_set(FL_EIO, "cannot write the revert of %.12s: %s", culprit_hex,
				 git_msg());
	else
		git_oid_tostr(sha, 41, &oid);
	git_reference_free(out);
	git_signature_free(sig);
	git_tree_free(tree);
	free(msg);
	return r;
}

int fl_revert_commit(fl_repo *repo, const char *culprit, const char *onto, const char *ref,
		     char sha[41], char **conflicts)
{
	git_repository *git = fl_repo_git(repo);
	git_commit *c = NULL, *o = NULL;
	git_index *index = NULL;
	int r;

	*conflicts = NULL;
	if ((r = lookup(git, culprit, &c)) || (r = lookup(git, onto, &o)))
		goto out;
	/* a merge is reverted against its first parent, as git revert -m 1 does */
	if (git_revert_commit(&index, git, c, o, git_commit_parentcount(c) > 1 ? 1 : 0, NULL)) {
		r = fl_error_set(FL_EIO, "tree '%s': cannot revert %.12s onto %.12s: %s",
				 fl_repo_name(repo), culprit, onto, git_msg());
		goto out;
	}
	if (git_index_has_conflicts(index)) {
		*conflicts = conflict_list(index);
		r = 1;
		goto out;
	}
	r = write_commit(git, index, c, o, ref, sha);
out:
	git_index_free(index);
	git_commit_free(c);
	git_commit_free(o);
	return r;
}

/* ---- the revert step ------------------------------------------------ */

struct revert {
	struct fl_service *svc;
	fl_store *st;
	const struct fl_job *job;
	const struct fl_benchmark_conf *bench;
	struct fl_regression reg;
	struct fl_revert rv;
	fl_repo *repo;
	int64_t revert_commit, good_commit, bad_commit;
};

/* The revert commit, made once and kept in the store. */
static int make_revert(struct revert *x)
{
	struct fl_bisection_row b = {0};
	struct fl_revert v = {.regression_id = x->reg.id};
	char sha[41] = "", *conflicts = NULL, *ref;
	int64_t bid;
	int resumed, r;

	if ((r = fl_store_revert_get(x->st, x->reg.id, &x->rv)) != FL_ENOTFOUND)
		return r;
	if ((r = fl_store_regression_bisection(x->st, x->reg.id, x->reg.good, x->reg.bad, &bid,
					       &resumed)) ||
	    (r = fl_store_bisection_get(x->st, bid, &b)))
		return r;
	if (!b.culprit) {
		fl_bisection_row_release(&b);
		return fl_error_set(FL_EINVAL, "regression %lld has no culprit to revert",
				    (long long)x->reg.id);
	}
	ref = fl_xasprintf("refs/faultline/revert/%lld", (long long)x->reg.id);
	r = fl_revert_commit(x->repo, b.culprit, x->reg.bad, ref, sha, &conflicts);
	v.culprit = b.culprit;
	v.onto = x->reg.bad;
	v.state = r == 0 ? "applied" : r == 1 ? "conflict" : "error";
	v.commit_sha = r == 0 ? sha : NULL;
	v.ref = r == 0 ? ref : NULL;
	v.conflicts = conflicts;
	v.error = r < 0 ? (char *)fl_error_last() : NULL;
	if (r < 0)
		fl_warn("revert: regression %lld: %s", (long long)x->reg.id, fl_error_last());
	else if (r == 1)
		fl_info("revert: regression %lld: %.12s does not revert cleanly onto %s; conflicts "
			"in:\n%s",
			(long long)x->reg.id, b.culprit, x->reg.tag, conflicts);
	else
		fl_info("revert: regression %lld: %.12s reverted onto %s as %.12s (%s)",
			(long long)x->reg.id, b.culprit, x->reg.tag, sha, ref);
	r = fl_store_revert_add(x->st, &v);
	if (!r)
		r = fl_store_revert_get(x->st, x->reg.id, &x->rv);
	free(conflicts);
	free(ref);
	fl_bisection_row_release(&b);
	return r;
}

/* The job ends with a verdict and hands on to the report. */
static int conclude(struct revert *x, const char *verdict, const struct fl_watch_comparison *rows,
		    size_t nrows)
{
	int64_t id;
	int r;

	if ((r = fl_store_tx_begin(x->st)))
		return r;
	for (size_t i = 0; i < nrows && !r; i++)
		r = fl_store_comparison_add(x->st, x->job->id, &rows[i]);
	if (!r && strcmp(x->rv.state, "applied") == 0)
		r = fl_store_revert_verdict(x->st, x->reg.id, verdict);
	if (!r)
		r = fl_service_enqueue(
		    x->st, FL_JOB_REPORT,
		    &(struct fl_job_spec){.from = x->job, .regression_id = x->reg.id}, &id);
	if (!r)
		r = fl_job_set(x->st, x->job->id, FL_STATE_DONE, verdict, NULL);
	if (!r)
		r = fl_store_tx_commit(x->st);
	if (r)
		fl_store_tx_rollback(x->st);
	else
		fl_info("revert: regression %lld: %s", (long long)x->reg.id, verdict);
	return r;
}

static int more_runs(struct revert *x, const struct fl_job *kids, size_t nkids)
{
	struct fl_round_side sides[] = {{FL_ROLE_BASE, x->reg.good},
					{FL_ROLE_BAD, x->reg.bad},
					{FL_ROLE_REVERT, x->rv.commit_sha}};
	char *point = fl_point_key(x->reg.mode, x->reg.tasks, x->reg.cgroup);
	unsigned round;
	int r;

	/* the verdict is read at the regression's point: only it is measured */
	r = fl_measure_next_round(x->st, x->job, kids, nkids, sides, 3, x->bench->repeat, point,
				  &round);
	free(point);
	return r;
}

/*
 * Level with the baseline is what a revert that restores looks like, but
 * an equivalence test needs the noise well inside min_change, which a TCG
 * guest's ~15% spread between boots does not give in any number of runs a
 * check can afford. So a revert clearly better than the tag whose shift
 * against the baseline is unclear restores when the estimate is not worse
 * than the baseline by min_change; partial needs the baseline to be clearly
 * better.
 */
static enum fl_revert_verdict verdict_of(const struct fl_cmp_row *vs_bad,
					 const struct fl_cmp_row *vs_base, double min_change)
{
	int better = vs_bad->cls == FL_CMP_IMPROVEMENT;

	if (better && (vs_base->cls == FL_CMP_SAME || vs_base->cls == FL_CMP_IMPROVEMENT))
		return FL_REVERT_RESTORES;
	if (better && vs_base->cls == FL_CMP_UNCLEAR && vs_base->shift_pct < 100 * min_change)
		return FL_REVERT_RESTORES;
	if (better && vs_base->cls == FL_CMP_REGRESSION)
		return FL_REVERT_PARTIAL;
	if (!better && vs_bad->cls != FL_CMP_UNCLEAR)
		return FL_REVERT_NO_EFFECT;
	return FL_REVERT_UNCLEAR;
}

/*
 * The revert against the tag and against the baseline (compare.c, one value
 * per run): every point the revert measured is stored, and the verdict is
 * read at the regression's point.
 */
static int measure(struct revert *x, const struct fl_role_runs *base,
		   const struct fl_role_runs *bad, const struct fl_role_runs *rev,
		   const struct fl_job *kids, size_t nkids)
{
	struct fl_cmp_side sb = {0}, sd = {0}, sr = {0};
	struct fl_comparison *c[2] = {NULL, NULL};
	struct fl_watch_comparison *rows = NULL;
	static const char *const what[2] = {"revert-bad", "revert-base"};
	const struct fl_cmp_row *at[2] = {NULL, NULL};
	/* the revert never measured the regression's point */
	enum fl_revert_verdict verdict = FL_REVERT_UNTESTABLE;
	int64_t against_commit[2] = {x->bad_commit, x->good_commit};
	struct fl_cmp_opts o;
	size_t nrows = 0;
	int r;

	fl_measure_cmp_opts(x->svc->cfg, x->bench, &o);
	o.metrics_only = 1;
	if ((r = fl_cmp_side_load(x->st, x->reg.baseline, base->ids, base->n, 1, &sb)) ||
	    (r = fl_cmp_side_load(x->st, x->reg.tag, bad->ids, bad->n, 1, &sd)) ||
	    (r = fl_cmp_side_load(x->st, "revert", rev->ids, rev->n, 1, &sr)) ||
	    (bad->n && (r = fl_compare(x->bench->name, &sd.set, &sr.set, &o, &c[0]))) ||
	    (base->n && (r = fl_compare(x->bench->name, &sb.set, &sr.set, &o, &c[1]))))
		goto out;
	/* without runs of the tag or the baseline there is nothing to say yet */
	if (!c[0] || !c[1])
		verdict = FL_REVERT_UNCLEAR;
	rows = fl_xcalloc((c[0] ? c[0]->nrows : 0) + (c[1] ? c[1]->nrows : 0) + 1, sizeof(*rows));
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; c[k] && i < c[k]->nrows; i++)
			if (c[k]->rows[i].new_.n)
				rows[nrows++] = fl_measure_comparison(
				    what[k], against_commit[k], x->revert_commit, x->bench->name,
				    x->reg.machine_id, &c[k]->rows[i]);
		if (c[k])
			at[k] = fl_comparison_find(c[k], FL_CMP_METRIC, x->reg.mode, x->reg.tasks,
						   x->reg.cgroup, x->reg.metric);
	}
	if (at[0] && at[1] && at[0]->new_.n)
		verdict = verdict_of(at[0], at[1], o.min_change);
	if (verdict == FL_REVERT_UNCLEAR && rev->tried < fl_measure_max_runs(x->bench))
		r = more_runs(x, kids, nkids);
	else
		r = conclude(x, fl_revert_verdict_name(verdict), rows, nrows);
out:
	/* the comparison rows point into the comparisons' strings: free those last */
	free(rows);
	fl_comparison_free(c[0]);
	fl_comparison_free(c[1]);
	fl_cmp_side_release(&sb);
	fl_cmp_side_release(&sd);
	fl_cmp_side_release(&sr);
	return r;
}

static int step(struct revert *x)
{
	struct fl_role_runs base, bad, rev;
	struct fl_job *kids;
	size_t nkids;
	int r;

	if ((r = make_revert(x)))
		return r;
	if (strcmp(x->rv.state, "applied"))
		return conclude(x, x->rv.state, NULL, 0);
	if ((r = fl_service_commit_id(x->st, x->repo, x->reg.tree_id, x->rv.commit_sha,
				      &x->revert_commit)) ||
	    (r = fl_service_commit_id(x->st, x->repo, x->reg.tree_id, x->reg.good,
				      &x->good_commit)) ||
	    (r = fl_service_commit_id(x->st, x->repo, x->reg.tree_id, x->reg.bad,
				      &x->bad_commit)) ||
	    (r = fl_store_jobs_children(x->st, x->job->id, &kids, &nkids)))
		return r;
	fl_role_runs(kids, nkids, FL_ROLE_BASE, &base);
	fl_role_runs(kids, nkids, FL_ROLE_BAD, &bad);
	fl_role_runs(kids, nkids, FL_ROLE_REVERT, &rev);
	if (!nkids)
		r = more_runs(x, kids, 0);
	else if (base.live || bad.live || rev.live)
		r = fl_job_wait(x->st, x->job->id);
	else if (!rev.n)
		r = conclude(x, fl_revert_verdict_name(FL_REVERT_UNTESTABLE), NULL, 0);
	else
		r = measure(x, &base, &bad, &rev, kids, nkids);
	fl_role_runs_release(&base);
	fl_role_runs_release(&bad);
	fl_role_runs_release(&rev);
	fl_jobs_free(kids, nkids);
	return r;
}

int fl_revert_step(void *ctx, fl_store *st, const struct fl_job *job)
{
	struct revert x = {.svc = ctx, .st = st, .job = job};
	int r;

	if ((r = fl_store_regression_get(st, job->regression_id, &x.reg)))
		return r;
	x.bench = fl_config_benchmark(x.svc->cfg, x.reg.benchmark);
	if (!x.bench)
		r = fl_error_set(FL_EINVAL, "benchmark '%s' is no longer in the configuration",
				 x.reg.benchmark);
	if (!r && !(r = fl_service_repo(x.svc, x.reg.tree, &x.repo, NULL)))
		r = step(&x);
	fl_revert_release(&x.rv);
	fl_regression_release(&x.reg);
	return r;
}
