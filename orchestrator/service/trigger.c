/*
 * trigger.c - tags to compare jobs (see trigger.h).
 */
#include "service/trigger.h"
#include "lib/buf.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/log.h"
#include "service/pipeline.h"
#include "store/jobs.h"
#include "store/watch.h"

#include <stdlib.h>
#include <string.h>

long fl_trigger_previous(size_t i, int (*is_ancestor)(void *ctx, size_t j, size_t i), void *ctx)
{
	for (size_t j = i; j-- > 0;)
		if (is_ancestor(ctx, j, i))
			return (long)j;
	return -1;
}

static int cmp_version(const void *x, const void *y)
{
	return fl_repo_version_cmp(*(char *const *)x, *(char *const *)y);
}

/* Tags matching any pattern, each once, in version order. */
static int list_tags(fl_repo *repo, const struct fl_tree_conf *t, char ***out, size_t *n)
{
	char **all = NULL;
	size_t k = 0;

	for (size_t p = 0; p < t->ntags; p++) {
		char **v;
		size_t m;
		int r = fl_repo_tags(repo, t->tags[p], &v, &m);

		if (r) {
			fl_repo_strv_free(all, k);
			return r;
		}
		all = fl_xrealloc(all, (k + m + 1) * sizeof(*all));
		for (size_t i = 0; i < m; i++) {
			int dup = 0;

			for (size_t j = 0; j < k && !dup; j++)
				dup = !strcmp(all[j], v[i]);
			if (dup)
				free(v[i]);
			else
				all[k++] = v[i];
		}
		free(v);
	}
	if (k)
		qsort(all, k, sizeof(*all), cmp_version);
	*out = all;
	*n = k;
	return 0;
}

struct tag_list {
	fl_repo *repo;
	char **tags;
	char (*sha)[41]; /* resolved on demand; "" until then */
	size_t n;
};

static const char *sha_of(struct tag_list *l, size_t i)
{
	if (!l->sha[i][0] && fl_repo_resolve(l->repo, l->tags[i], l->sha[i]))
		return NULL;
	return l->sha[i];
}

static int tag_is_ancestor(void *ctx, size_t j, size_t i)
{
	struct tag_list *l = ctx;
	const char *a = sha_of(l, j), *d = sha_of(l, i);

	return a && d && strcmp(a, d) && fl_repo_is_ancestor(l->repo, a, d);
}

/* The compare jobs of a scheduled tag: one per benchmark and machine it runs on. */
static int add_compares(struct fl_service *svc, fl_store *st, const struct fl_tree_conf *t,
			int64_t tag_id, unsigned *jobs)
{
	const struct fl_config *cfg = svc->cfg;
	int r = 0;

	for (size_t b = 0; b < cfg->nbenchmarks && !r; b++) {
		const struct fl_benchmark_conf *bench = &cfg->benchmarks[b];

		for (size_t m = 0; m < cfg->nmachines && !r; m++) {
			const char *machine = cfg->machines[m].name;
			int used = !bench->nmachines;
			int64_t id;

			for (size_t k = 0; k < bench->nmachines; k++)
				used |= !strcmp(bench->machines[k], machine);
			if (!used)
				continue;
			r = fl_service_enqueue(st, FL_JOB_COMPARE,
					       &(struct fl_job_spec){.tree = t->name,
								     .machine = machine,
								     .benchmark = bench->name,
								     .tag_id = tag_id},
					       &id);
			(*jobs)++;
		}
	}
	return r;
}

/* The baseline of tag i into sha and *name: 1, or 0 with the reason in *why. */
static int baseline(const struct fl_tree_conf *t, struct tag_list *l, size_t i, char sha[41],
		    const char **name, char **why)
{
	long j;

	*why = NULL;
	if (strcmp(t->baseline, "previous-tag")) {
		if (fl_repo_resolve(l->repo, t->baseline, sha)) {
			*why = fl_xasprintf("baseline: %s", fl_error_last());
			return 0;
		}
		*name = t->baseline;
	} else if ((j = fl_trigger_previous(i, tag_is_ancestor, l)) < 0) {
		*why = fl_xstrdup("no earlier tag is an ancestor of it");
		return 0;
	} else {
		memcpy(sha, l->sha[j], 41);
		*name = l->tags[j];
	}
	if (!strcmp(sha, l->sha[i])) {
		*why = fl_xasprintf("it is the same commit as its baseline %s", *name);
		return 0;
	}
	return 1;
}

/* Records tag i as scheduled (with its compare jobs), skipped or without baseline. */
static int schedule(struct fl_service *svc, fl_store *st, const struct fl_tree_conf *t,
		    int64_t tree_id, struct tag_list *l, size_t i, int skip, unsigned *scheduled)
{
	struct fl_watch_tag_new w = {.tree_id = tree_id, .tag = l->tags[i]};
	char base_sha[41] = "", *why = NULL;
	const char *base_name = NULL;
	unsigned jobs = 0;
	int64_t id;
	int r;

	if (!sha_of(l, i))
		return fl_error_wrap(FL_ENOTFOUND, "tree '%s'", t->name);
	if ((r = fl_store_begin(st)))
		return r;
	r = fl_service_commit_id(st, l->repo, tree_id, l->sha[i], &w.commit_id);
	if (!r && skip) {
		w.state = "skipped";
		w.note = "older than the newest tags on the first pass (trees[].backfill)";
	} else if (!r && baseline(t, l, i, base_sha, &base_name, &why)) {
		w.state = "scheduled";
		w.baseline = base_name;
		r = fl_service_commit_id(st, l->repo, tree_id, base_sha, &w.baseline_commit);
	} else if (!r) {
		w.state = "no-baseline";
		w.note = why;
	}
	if (!r)
		r = fl_store_watch_tag_add(st, &w, &id);
	if (!r && !strcmp(w.state, "scheduled"))
		r = add_compares(svc, st, t, id, &jobs);
	if (!r)
		r = fl_store_commit(st);
	if (r)
		fl_store_rollback(st);
	else if (!strcmp(w.state, "scheduled")) {
		fl_info("watch: tree '%s': %s scheduled against %s (%u comparison%s)", t->name,
			l->tags[i], base_name, jobs, FL_S(jobs));
		(*scheduled)++;
	} else if (!strcmp(w.state, "no-baseline"))
		fl_warn("watch: tree '%s': %s is not tested: %s", t->name, l->tags[i], why);
	free(why);
	return r;
}

static int pass_tree(struct fl_service *svc, fl_store *st, const struct fl_tree_conf *t, int fetch,
		     unsigned *scheduled)
{
	struct tag_list l = {0};
	size_t known, fresh = 0, keep;
	int64_t tree_id;
	int local, r, seen;
	char *is_new;

	if ((r = fl_service_repo(svc, t->name, &l.repo, &local)))
		return r;
	if (fetch && !local && fl_repo_fetch(l.repo))
		fl_warn("watch: %s; going on with the tags already fetched", fl_error_last());
	if ((r = list_tags(l.repo, t, &l.tags, &l.n)) ||
	    (r = fl_store_tree_ensure(st, t->name, t->url, &tree_id)) ||
	    (r = fl_store_watch_tags_count(st, tree_id, &known))) {
		fl_repo_strv_free(l.tags, l.n);
		return r;
	}
	l.sha = fl_xcalloc(l.n + 1, sizeof(*l.sha));
	is_new = fl_xcalloc(l.n + 1, 1);
	for (size_t i = 0; i < l.n && !r; i++) {
		r = fl_store_watch_tag_seen(st, tree_id, l.tags[i], &seen);
		is_new[i] = !seen;
		fresh += !seen;
	}
	keep = known ? fresh : (t->backfill < fresh ? t->backfill : fresh);
	if (!known && fresh > keep)
		fl_info("watch: tree '%s': first pass over %zu tags: testing the newest %zu, the "
			"older ones are recorded as seen (trees[].backfill)",
			t->name, fresh, keep);
	for (size_t i = 0, left = fresh; i < l.n && !r; i++) {
		if (!is_new[i])
			continue;
		r = schedule(svc, st, t, tree_id, &l, i, left-- > keep, scheduled);
	}
	free(is_new);
	free(l.sha);
	fl_repo_strv_free(l.tags, l.n);
	return r;
}

int fl_trigger_tree(struct fl_service *svc, fl_store *st, size_t i, int fetch, unsigned *scheduled)
{
	int r = pass_tree(svc, st, &svc->cfg->trees[i], fetch, scheduled);

	if (r)
		fl_err("watch: tree '%s': %s", svc->cfg->trees[i].name, fl_error_last());
	return r;
}

int fl_trigger_pass(struct fl_service *svc, fl_store *st, int fetch, unsigned *scheduled)
{
	int r = 0, e;

	*scheduled = 0;
	for (size_t i = 0; i < svc->cfg->ntrees; i++)
		if ((e = fl_trigger_tree(svc, st, i, fetch, scheduled)))
			r = e;
	return r;
}
