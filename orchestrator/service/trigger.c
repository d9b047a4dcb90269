/*
 * trigger.c - tags to compare jobs (see trigger.h).
 */
#include "service/trigger.h"
#include "lib/buf.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/units.h"
#include "service/pipeline.h"
#include "service/triage.h"
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

/* The newest few tags a tree has, for a pattern that matches none. */
#define SHOWN_TAGS 5

int fl_trigger_unmatched(fl_repo *repo, const struct fl_config *cfg, const struct fl_tree_conf *t,
			 fl_buf *out, unsigned *unmatched)
{
	char **all = NULL;
	size_t nall = 0;
	int r = 0;

	*unmatched = 0;
	for (size_t p = 0; p < t->ntags && !r; p++) {
		const char *where = fl_config_where(cfg, &t->tags[p]);
		char **v;
		size_t m;

		if ((r = fl_repo_tags(repo, t->tags[p], &v, &m)))
			break;
		fl_repo_strv_free(v, m);
		if (m)
			continue;
		if (!all && (r = fl_repo_tags(repo, "*", &all, &nall)))
			break;
		(*unmatched)++;
		fl_buf_addf(out, "%s%stree '%s': tag pattern '%s' matches none of its %zu tag%s",
			    where ? where : "", where ? ": " : "", t->name, t->tags[p], nall,
			    FL_S(nall));
		for (size_t i = 0; i < nall && i < SHOWN_TAGS; i++) /* newest first */
			fl_buf_addf(out, "%s%s", i ? ", " : " (it has ", all[nall - 1 - i]);
		fl_buf_addf(out,
			    "%s: nothing is tested for it (trees[].tags are fnmatch patterns)\n",
			    nall > SHOWN_TAGS ? ", ...)"
			    : nall	      ? ")"
					      : "");
	}
	fl_repo_strv_free(all, nall);
	return r;
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

/*
 * contained-tag: the newest tag (version order) of the baseline tree
 * matching its patterns whose commit the tag contains, looked up in the
 * watched tree's repository (the two may be one repository or two, the
 * baseline tree's commits reached from the tag): 1 with it in sha and
 * *name (owned by *names), 0 with the reason in *why, or an error.
 */
static int contained_tag(struct fl_service *svc, const struct fl_tree_conf *t, struct tag_list *l,
			 size_t i, char sha[41], const char **name, char ***names, size_t *nnames,
			 char **why)
{
	const struct fl_tree_conf *bt =
	    t->baseline_tree ? fl_config_tree(svc->cfg, t->baseline_tree) : t;
	struct fl_tree_conf pat = *bt;
	fl_repo *brepo;
	int r;

	if (!bt)
		return fl_error_set(FL_ENOTFOUND, "tree '%s': no baseline tree '%s'", t->name,
				    t->baseline_tree);
	if (t->nbaseline_tags) {
		pat.tags = t->baseline_tags;
		pat.ntags = t->nbaseline_tags;
	}
	if ((r = fl_service_repo(svc, bt->name, &brepo, NULL)) ||
	    (r = list_tags(brepo, &pat, names, nnames)))
		return r;
	for (size_t k = *nnames; k-- > 0;) {
		if (bt == t && !strcmp((*names)[k], l->tags[i]))
			continue;
		if (fl_repo_resolve(brepo, (*names)[k], sha))
			continue;
		if (fl_repo_is_ancestor(l->repo, sha, l->sha[i])) {
			*name = (*names)[k];
			return 1;
		}
	}
	*why = fl_xasprintf("it contains no tag of tree '%s' matching %s%s", bt->name,
			    pat.ntags ? pat.tags[0] : "(no pattern)", pat.ntags > 1 ? ", ..." : "");
	return 0;
}

/* The baseline of tag i into sha and *name: 1, or 0 with the reason in *why, or an error. */
static int baseline(struct fl_service *svc, const struct fl_tree_conf *t, struct tag_list *l,
		    size_t i, char sha[41], const char **name, char ***names, size_t *nnames,
		    char **why)
{
	long j;
	int r;

	*why = NULL;
	if (!strcmp(t->baseline, "contained-tag")) {
		if ((r = contained_tag(svc, t, l, i, sha, name, names, nnames, why)) <= 0)
			return r;
	} else if (strcmp(t->baseline, "previous-tag")) {
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
	char base_sha[41] = "", *why = NULL, **names = NULL;
	const char *base_name = NULL;
	size_t nnames = 0;
	unsigned jobs = 0, fixchecks = 0;
	int64_t id;
	int r, b = 0;

	if (!sha_of(l, i)) /* the repository's message names the tree */
		return FL_ENOTFOUND;
	if ((r = fl_store_tx_begin(st)))
		return r;
	/* another worker of the store may have recorded it since the pass began */
	if ((r = fl_store_watch_tag_seen(st, tree_id, l->tags[i], &b)) || b) {
		fl_store_tx_rollback(st);
		return r;
	}
	r = fl_service_commit_id(st, l->repo, tree_id, l->sha[i], &w.commit_id);
	if (!r && skip) {
		w.state = "skipped";
		w.note = "older than the newest tags on the first pass (trees[].backfill)";
	} else if (!r &&
		   (b = baseline(svc, t, l, i, base_sha, &base_name, &names, &nnames, &why)) < 0) {
		r = b;
	} else if (!r && b) {
		w.state = "scheduled";
		w.baseline = base_name;
		if (!strcmp(t->baseline, "contained-tag"))
			w.note = why = fl_xasprintf("the newest tag of tree '%s' it contains",
						    t->baseline_tree ? t->baseline_tree : t->name);
		r = fl_service_commit_id(st, l->repo, tree_id, base_sha, &w.baseline_commit);
	} else if (!r) {
		w.state = "no-baseline";
		w.note = why;
	}
	if (!r)
		r = fl_store_watch_tag_add(st, &w, &id);
	if (!r && !strcmp(w.state, "scheduled"))
		r = add_compares(svc, st, t, id, &jobs);
	/* any new tag, scheduled or not (a first pass's older tags are not new) */
	if (!r && !skip)
		r = fl_triage_schedule_fixchecks(svc, st, t, l->tags[i], l->sha[i], &fixchecks);
	if (!r)
		r = fl_store_tx_commit(st);
	if (r)
		fl_store_tx_rollback(st);
	else if (!strcmp(w.state, "scheduled")) {
		char fx[40] = "";

		if (fixchecks)
			snprintf(fx, sizeof(fx), ", %u fix check%s", fixchecks, FL_S(fixchecks));
		fl_info("watch: tree '%s': %s scheduled against %s (%u comparison%s%s)%s%s", t->name,
			l->tags[i], base_name, jobs, FL_S(jobs), fx, why ? ": " : "", why ? why : "");
		(*scheduled)++;
	} else if (!strcmp(w.state, "no-baseline"))
		fl_warn("watch: tree '%s': %s is not tested: %s", t->name, l->tags[i], why);
	free(why);
	fl_repo_strv_free(names, nnames);
	return r;
}

/* What a new head of a branch is compared with (see trigger.h). */
struct head_plan {
	const char *state; /* scheduled, skipped */
	char base[41];
	char *base_name, *note;
};

/* The merge base of head and the configured base (or, without one, the old head). */
static int force_pushed(const struct fl_tree_conf *t, fl_repo *repo, const char *head,
			const struct fl_watch_head *last, struct head_plan *p)
{
	const char *with = t->branch_base ? t->branch_base : last->sha;
	int r;

	if ((r = fl_repo_merge_base(repo, head, with, p->base)))
		return r;
	p->base_name = fl_xasprintf("%.12s", p->base);
	p->note = fl_xasprintf("force-pushed: the last head %s is not an ancestor of it; compared "
			       "with its merge base %.12s with %s",
			       last->name, p->base, t->branch_base ? t->branch_base : last->name);
	return 0;
}

static int plan_head(const struct fl_tree_conf *t, fl_repo *repo, const char *head,
		     const struct fl_watch_head *last, int found, struct head_plan *p)
{
	char base[41];
	int r;

	p->state = "scheduled";
	if (found && fl_repo_is_ancestor(repo, last->sha, head)) {
		memcpy(p->base, last->sha, 41);
		p->base_name = fl_xstrdup(last->name);
	} else if (found) {
		if ((r = force_pushed(t, repo, head, last, p)))
			return r;
	} else if (!t->branch_base) {
		p->state = "skipped";
		p->note = fl_xstrdup("the first head seen: later heads are compared with it "
				     "(trees[].branch_base: what a first head is compared with)");
		return 0;
	} else if ((r = fl_repo_resolve(repo, t->branch_base, base))) {
		return fl_error_wrap(r, "branch_base");
	} else if (fl_repo_is_ancestor(repo, base, head)) {
		memcpy(p->base, base, 41);
		p->base_name = fl_xstrdup(t->branch_base);
	} else {
		if ((r = fl_repo_merge_base(repo, head, base, p->base)))
			return r;
		p->base_name = fl_xasprintf("%.12s", p->base);
		p->note = fl_xasprintf("compared with its merge base %.12s with %s (the branch "
				       "does not contain %s)",
				       p->base, t->branch_base, t->branch_base);
	}
	if (!strcmp(p->base, head)) {
		p->state = "skipped";
		free(p->note);
		p->note = fl_xasprintf("the same commit as its base %s", p->base_name);
	}
	return 0;
}

/*
 * The head of the watched branch: recorded once ("<branch>@<sha12>"),
 * compared with the branch's last recorded head, at most one scheduled
 * per branch_interval (the newest head then; the ones in between are in
 * its range). Everything it decides on is in the store.
 */
static int pass_branch(struct fl_service *svc, fl_store *st, const struct fl_tree_conf *t,
		       fl_repo *repo, int64_t tree_id, unsigned *scheduled)
{
	struct fl_watch_head last;
	struct head_plan p = {0};
	char head[41], *name;
	int64_t tested, id, now = fl_wall_ms() / 1000;
	unsigned jobs = 0;
	int r, seen, found;

	if ((r = fl_repo_resolve(repo, t->branch, head)))
		return fl_error_wrap(r, "branch '%s' of %s", t->branch, t->url);
	name = fl_xasprintf("%s@%.12s", t->branch, head);
	if ((r = fl_store_watch_tag_seen(st, tree_id, name, &seen)) || seen) {
		free(name);
		return r;
	}
	if ((r = fl_store_watch_head_last(st, tree_id, t->branch, &last, &found, &tested))) {
		free(name);
		return r;
	}
	if (tested && (now - tested) * 1000 < t->branch_interval_ms) {
		char every[32];

		fl_format_duration(t->branch_interval_ms, every, sizeof(every));
		fl_info("watch: tree '%s': branch %s: head %.12s waits, one test every %s "
			"(branch_interval), next in %llds",
			t->name, t->branch, head, every,
			(long long)(t->branch_interval_ms / 1000 - (now - tested)));
		goto out;
	}
	if ((r = plan_head(t, repo, head, &last, found, &p)))
		goto out;
	if ((r = fl_store_tx_begin(st)))
		goto out;
	/* another worker of the store may have recorded it since the pass began */
	if ((r = fl_store_watch_tag_seen(st, tree_id, name, &seen)) || seen) {
		fl_store_tx_rollback(st);
		goto out;
	}
	{
		struct fl_watch_tag_new w = {.tree_id = tree_id,
					     .tag = name,
					     .state = p.state,
					     .note = p.note,
					     .kind = "head",
					     .ref = t->branch};

		r = fl_service_commit_id(st, repo, tree_id, head, &w.commit_id);
		if (!r && !strcmp(p.state, "scheduled")) {
			w.baseline = p.base_name;
			r = fl_service_commit_id(st, repo, tree_id, p.base, &w.baseline_commit);
		}
		if (!r)
			r = fl_store_watch_tag_add(st, &w, &id);
		if (!r && !strcmp(p.state, "scheduled"))
			r = add_compares(svc, st, t, id, &jobs);
		if (!r)
			r = fl_store_tx_commit(st);
		if (r)
			fl_store_tx_rollback(st);
	}
	if (r)
		goto out;
	if (!strcmp(p.state, "scheduled")) {
		fl_info("watch: tree '%s': branch %s: head %s scheduled against %s (%u "
			"comparison%s)%s%s",
			t->name, t->branch, name, p.base_name, jobs, FL_S(jobs), p.note ? ": " : "",
			p.note ? p.note : "");
		(*scheduled)++;
	} else
		fl_info("watch: tree '%s': branch %s: head %s recorded, not tested: %s", t->name,
			t->branch, name, p.note);
out:
	free(p.base_name);
	free(p.note);
	fl_watch_head_release(&last);
	free(name);
	return r;
}

/* Every pass: a pattern that matches nothing is said, or the tree looks idle forever. */
static int say_unmatched(struct fl_service *svc, fl_repo *repo, const struct fl_tree_conf *t)
{
	fl_buf why = FL_BUF_INIT;
	unsigned n;
	int r = fl_trigger_unmatched(repo, svc->cfg, t, &why, &n);

	for (char *line = why.ptr, *end; !r && n && line && *line; line = end + 1) {
		end = strchr(line, '\n');
		*end = '\0';
		fl_warn("watch: %s", line);
	}
	fl_buf_free(&why);
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
		fl_warn("watch: %s; going on with what was fetched before", fl_error_last());
	if (!(r = say_unmatched(svc, l.repo, t)))
		r = list_tags(l.repo, t, &l.tags, &l.n);
	if (r || (r = fl_store_tree_ensure(st, t->name, t->url, &tree_id)) ||
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
	if (!r && t->branch)
		r = pass_branch(svc, st, t, l.repo, tree_id, scheduled);
	free(is_new);
	free(l.sha);
	fl_repo_strv_free(l.tags, l.n);
	return r;
}

int fl_trigger_tree(struct fl_service *svc, fl_store *st, size_t i, int fetch, unsigned *scheduled)
{
	const char *name = svc->cfg->trees[i].name;
	int r = pass_tree(svc, st, &svc->cfg->trees[i], fetch, scheduled);
	char *said;

	if (!r)
		return 0;
	/* the repository's messages name the tree already (repo.h) */
	said = fl_xasprintf("tree '%s': ", name);
	if (!strncmp(fl_error_last(), said, strlen(said)))
		fl_err("watch: %s", fl_error_last());
	else
		fl_err("watch: %s%s", said, fl_error_last());
	free(said);
	return r;
}

int fl_trigger_later(const struct fl_tree_conf *t)
{
	return !strcmp(t->baseline, "contained-tag") && t->baseline_tree &&
	       strcmp(t->baseline_tree, t->name);
}

int fl_trigger_pass(struct fl_service *svc, fl_store *st, int fetch, unsigned *scheduled)
{
	int r = 0, e;

	*scheduled = 0;
	for (int later = 0; later < 2; later++)
		for (size_t i = 0; i < svc->cfg->ntrees; i++)
			if (fl_trigger_later(&svc->cfg->trees[i]) == later &&
			    (e = fl_trigger_tree(svc, st, i, fetch, scheduled)))
				r = e;
	return r;
}
