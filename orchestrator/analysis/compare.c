/* compare.c - base and new runs side by side, LKP's way (see compare.h). */
#include "analysis/compare.h"
#include "lib/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void fl_cmp_opts_init(struct fl_cmp_opts *o)
{
	o->dir = FL_HIGHER_BETTER;
	o->alpha = 0.05;
	o->min_change = 0.02;
	o->profile_rows = 10;
	o->profile_min_pp = 0.1;
	o->vmstat_min_pct = 1;
	o->metrics_only = 0;
}

/* ---- growing arrays ------------------------------------------------------ */

struct vec {
	double *v;
	size_t n, cap;
};

static void vec_add(struct vec *x, double d)
{
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 16;
		x->v = fl_xrealloc(x->v, x->cap * sizeof(*x->v));
	}
	x->v[x->n++] = d;
}

static struct fl_cmp_value summary(const struct vec *x)
{
	struct fl_cmp_value s = {0, 0, 0, x->n};

	if (!x->n)
		return s;
	s.value = fl_stats_mean(x->v, x->n);
	s.stddev = fl_stats_stddev(x->v, x->n);
	if (s.value != 0)
		s.stddev_pct = 100 * s.stddev / fabs(s.value);
	return s;
}

static double pct_change(double base, double new_)
{
	return base != 0 ? 100 * (new_ - base) / fabs(base) : 0;
}

/* Names: a key of (mode, tasks, cgroup, what) seen on either side. */
struct key {
	const char *mode, *what, *cgroup;
	unsigned tasks;
};

struct keys {
	struct key *k;
	size_t n, cap;
};

static void keys_add(struct keys *ks, const char *mode, unsigned tasks, const char *cgroup,
		     const char *what)
{
	cgroup = fl_cgroup_key(cgroup);
	for (size_t i = 0; i < ks->n; i++)
		if (ks->k[i].tasks == tasks && !strcmp(ks->k[i].mode, mode) &&
		    !strcmp(ks->k[i].cgroup, cgroup) && (!what || !strcmp(ks->k[i].what, what)))
			return;
	if (ks->n == ks->cap) {
		ks->cap = ks->cap ? 2 * ks->cap : 32;
		ks->k = fl_xrealloc(ks->k, ks->cap * sizeof(*ks->k));
	}
	ks->k[ks->n++] = (struct key){mode, what, cgroup, tasks};
}

/* The primary metric (per_*_ops) before the totals; then task counts. */
static int metric_rank(const char *m)
{
	return strncmp(m, "per_", 4) != 0;
}

static int by_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	int c = strcmp(x->mode, y->mode);

	if (c)
		return c;
	if (x->what && y->what && metric_rank(x->what) != metric_rank(y->what))
		return metric_rank(x->what) - metric_rank(y->what);
	if (x->what && y->what && (c = strcmp(x->what, y->what)))
		return c;
	if (x->tasks != y->tasks)
		return x->tasks < y->tasks ? -1 : 1;
	return strcmp(x->cgroup, y->cgroup);
}

/* qsort(3) must not be given NULL, which an empty set of keys is. */
static void keys_sort(struct keys *ks)
{
	if (ks->n)
		qsort(ks->k, ks->n, sizeof(*ks->k), by_key);
}

struct build {
	struct fl_comparison *c;
	size_t cap;
	const char *bench;
	const struct fl_cmp_opts *o;
};

static struct fl_cmp_row *new_row(struct build *b, enum fl_cmp_kind kind, const struct key *k,
				  const char *what, const char *section)
{
	const char *mode = k->mode;
	struct fl_comparison *c = b->c;
	struct fl_cmp_row *r;

	if (c->nrows == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 32;
		c->rows = fl_xrealloc(c->rows, b->cap * sizeof(*c->rows));
	}
	r = &c->rows[c->nrows++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->mode = fl_xstrdup(mode);
	r->tasks = k->tasks;
	r->cgroup = fl_xstrdup(k->cgroup);
	r->what = fl_xstrdup(what);
	r->name = fl_xasprintf("%s%s%s.%s%s", b->bench, *mode ? "." : "", mode, section, what);
	r->verdict = FL_UNKNOWN;
	r->p = 1;
	r->cls = FL_CMP_UNCLEAR;
	return r;
}

static void note(struct fl_comparison *c, char *text)
{
	for (size_t i = 0; i < c->nnotes; i++)
		if (!strcmp(c->notes[i], text)) {
			free(text);
			return;
		}
	c->notes = fl_xrealloc(c->notes, (c->nnotes + 1) * sizeof(*c->notes));
	c->notes[c->nnotes++] = text;
}

/* ---- metrics ------------------------------------------------------------- */

/* One value per run that measured the point: the mean of its samples there. */
static void run_values(const struct fl_cmp_set *s, const struct key *k, struct vec *x)
{
	for (size_t r = 0; r < s->n; r++) {
		double sum = 0;
		size_t n = 0;

		for (size_t i = 0; i < s->runs[r].nsamples; i++) {
			const struct fl_cmp_sample *sm = &s->runs[r].samples[i];

			if (sm->tasks == k->tasks && !strcmp(sm->mode ? sm->mode : "", k->mode) &&
			    !strcmp(fl_cgroup_key(sm->cgroup), k->cgroup) &&
			    !strcmp(sm->metric, k->what)) {
				sum += sm->value;
				n++;
			}
		}
		if (n)
			vec_add(x, sum / (double)n);
	}
}

/* The verdict on the run values and what it means for the service. */
static int decide(const struct fl_cmp_opts *o, const struct vec *x, const struct vec *y,
		  struct fl_cmp_row *row)
{
	double min = 100 * o->min_change;
	struct fl_compare cmp;
	int r;

	if (x->n < 2 || y->n < 2)
		return 0;
	if ((r = fl_stats_compare(x->v, x->n, y->v, y->n, o->alpha, o->min_change, o->dir, &cmp)))
		return r;
	row->verdict = cmp.verdict;
	row->p = cmp.p;
	row->shift_pct = cmp.change_pct;
	if (cmp.verdict == FL_DIFFERENT && cmp.change_pct >= min)
		row->cls = FL_CMP_REGRESSION;
	else if (cmp.verdict == FL_DIFFERENT && cmp.change_pct <= -min)
		row->cls = FL_CMP_IMPROVEMENT;
	else if (cmp.verdict != FL_UNKNOWN)
		row->cls = FL_CMP_SAME;
	return 0;
}

static int metric_rows(struct build *b, const struct fl_cmp_set *base, const struct fl_cmp_set *nw)
{
	struct keys ks = {0};
	const struct fl_cmp_set *sides[2] = {base, nw};
	int r = 0;

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < sides[s]->n; i++)
			for (size_t j = 0; j < sides[s]->runs[i].nsamples; j++) {
				const struct fl_cmp_sample *sm = &sides[s]->runs[i].samples[j];

				keys_add(&ks, sm->mode ? sm->mode : "", sm->tasks, sm->cgroup,
					 sm->metric);
			}
	keys_sort(&ks);
	for (size_t i = 0; i < ks.n && !r; i++) {
		struct vec x = {0}, y = {0};
		struct fl_cmp_row *row = new_row(b, FL_CMP_METRIC, &ks.k[i], ks.k[i].what, "");

		run_values(base, &ks.k[i], &x);
		run_values(nw, &ks.k[i], &y);
		row->base = summary(&x);
		row->new_ = summary(&y);
		row->change = pct_change(row->base.value, row->new_.value);
		r = decide(b->o, &x, &y, row);
		free(x.v);
		free(y.v);
	}
	free(ks.k);
	return r;
}

/* ---- evidence ------------------------------------------------------------ */

static const struct fl_evidence_point *find_point(const struct fl_cmp_run *run,
						  const struct key *pk)
{
	for (size_t i = 0; i < run->npoints; i++)
		if (run->points[i].tasks == pk->tasks && !strcmp(run->points[i].mode, pk->mode) &&
		    !strcmp(fl_cgroup_key(run->points[i].cgroup), pk->cgroup))
			return &run->points[i];
	return NULL;
}

/* Always shown, moved or not: what a page-fault regression shows first. */
static int is_key_counter(const char *name)
{
	return !strcmp(name, "pgfault") || !strcmp(name, "pgfree") ||
	       !strncmp(name, "pgalloc_", 8) || !strcmp(name, "numa_hit") ||
	       !strcmp(name, "numa_miss") || !strcmp(name, "numa_foreign");
}

static void vm_values(const struct fl_cmp_set *s, const struct key *pk, const char *name,
		      struct vec *x)
{
	for (size_t r = 0; r < s->n; r++) {
		const struct fl_evidence_point *pt = find_point(&s->runs[r], pk);
		double v = 0;

		if (!pt || pt->measured_s <= 0)
			continue;
		for (size_t i = 0; i < pt->nvm; i++)
			if (!strcmp(pt->vm[i].name, name))
				v = pt->vm[i].per_sec;
		vec_add(x, v);
	}
}

static void vmstat_rows(struct build *b, const struct key *pk, const struct fl_cmp_set *base,
			const struct fl_cmp_set *nw)
{
	struct keys names = {0};
	const struct fl_cmp_set *sides[2] = {base, nw};

	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < sides[s]->n; r++) {
			const struct fl_evidence_point *pt = find_point(&sides[s]->runs[r], pk);

			for (size_t i = 0; pt && i < pt->nvm; i++)
				if (fl_vmstat_counter(pt->vm[i].name) &&
				    !fl_vmstat_is_node(pt->vm[i].name))
					keys_add(&names, "", 0, "", pt->vm[i].name);
		}
	keys_sort(&names);
	for (size_t i = 0; i < names.n; i++) {
		struct vec x = {0}, y = {0};
		struct fl_cmp_value bv, nv;
		double change;

		vm_values(base, pk, names.k[i].what, &x);
		vm_values(nw, pk, names.k[i].what, &y);
		bv = summary(&x);
		nv = summary(&y);
		change = pct_change(bv.value, nv.value);
		free(x.v);
		free(y.v);
		if (!is_key_counter(names.k[i].what) && bv.value != 0 &&
		    fabs(change) < b->o->vmstat_min_pct)
			continue;
		if (bv.value == 0 && nv.value == 0)
			continue;
		struct fl_cmp_row *row = new_row(b, FL_CMP_VMSTAT, pk, names.k[i].what, "vmstat.");
		row->base = bv;
		row->new_ = nv;
		row->change = change;
		/* per second */
		char *n = fl_xasprintf("%s/s", row->name);
		free(row->name);
		row->name = n;
	}
	free(names.k);
}

/* The share of fn in each run of s that profiled the point; runs without a
 * profile there add nothing and are named in a note. */
static void shares(const struct fl_cmp_set *s, const struct key *pk, const char *fn, struct vec *x)
{
	for (size_t r = 0; r < s->n; r++) {
		const struct fl_evidence_point *pt = find_point(&s->runs[r], pk);
		double v = 0;

		if (!pt || !pt->nfn)
			continue;
		for (size_t i = 0; i < pt->nfn; i++)
			if (!strcmp(pt->fn[i].name, fn))
				v = 100 * pt->fn[i].share;
		vec_add(x, v);
	}
}

static void profile_notes(struct build *b, const struct key *pk, const struct fl_cmp_set *s)
{
	for (size_t r = 0; r < s->n; r++) {
		const struct fl_evidence_point *pt = find_point(&s->runs[r], pk);
		const char *why;

		if (!pt || pt->nfn)
			continue;
		why = !pt->profile || !strcmp(pt->profile, "none")
			  ? "the kernel has no CONFIG_PROFILING or was booted without profile="
		      : !strcmp(pt->profile, "recorded") ? "no samples in the window"
							 : pt->profile;
		note(b->c, fl_xasprintf("no profile in %s: %s", s->label, why));
	}
}

struct moved {
	const char *fn;
	struct fl_cmp_value base, new_;
	double pp;
};

static int by_move(const void *a, const void *b)
{
	const struct moved *x = a, *y = b;

	if (fabs(x->pp) != fabs(y->pp))
		return fabs(x->pp) > fabs(y->pp) ? -1 : 1;
	return strcmp(x->fn, y->fn);
}

static void profile_rows(struct build *b, const struct key *pk, const struct fl_cmp_set *base,
			 const struct fl_cmp_set *nw)
{
	struct keys fns = {0};
	const struct fl_cmp_set *sides[2] = {base, nw};
	struct moved *m;
	size_t nm = 0;

	profile_notes(b, pk, base);
	profile_notes(b, pk, nw);
	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < sides[s]->n; r++) {
			const struct fl_evidence_point *pt = find_point(&sides[s]->runs[r], pk);

			for (size_t i = 0; pt && i < pt->nfn; i++)
				keys_add(&fns, "", 0, "", pt->fn[i].name);
		}
	m = fl_xcalloc(fns.n + 1, sizeof(*m));
	for (size_t i = 0; i < fns.n; i++) {
		struct vec x = {0}, y = {0};

		shares(base, pk, fns.k[i].what, &x);
		shares(nw, pk, fns.k[i].what, &y);
		/* A move needs a profile on both sides to be one. */
		if (x.n && y.n) {
			m[nm] = (struct moved){fns.k[i].what, summary(&x), summary(&y), 0};
			m[nm].pp = m[nm].new_.value - m[nm].base.value;
			if (fabs(m[nm].pp) >= b->o->profile_min_pp)
				nm++;
		}
		free(x.v);
		free(y.v);
	}
	qsort(m, nm, sizeof(*m), by_move);
	for (size_t i = 0; i < nm && i < b->o->profile_rows; i++) {
		struct fl_cmp_row *row = new_row(b, FL_CMP_PROFILE, pk, m[i].fn, "profile.");

		row->base = m[i].base;
		row->new_ = m[i].new_;
		row->change = m[i].pp;
	}
	free(m);
	free(fns.k);
}

/* ---- per node ----------------------------------------------------------- */

static void node_rows(struct build *b, const struct key *pk, const struct fl_cmp_set *base,
		      const struct fl_cmp_set *nw)
{
	struct keys names = {0};
	const struct fl_cmp_set *sides[2] = {base, nw};

	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < sides[s]->n; r++) {
			const struct fl_evidence_point *pt = find_point(&sides[s]->runs[r], pk);

			for (size_t i = 0; pt && i < pt->nvm; i++) {
				const char *n = pt->vm[i].name;
				size_t len = strlen(n);

				if (fl_vmstat_is_node(n) &&
				    (fl_vmstat_counter(n) ||
				     (len > 6 && !strcmp(n + len - 6, ".tasks"))))
					keys_add(&names, "", 0, "", n);
			}
		}
	keys_sort(&names);
	for (size_t i = 0; i < names.n; i++) {
		struct vec x = {0}, y = {0};
		struct fl_cmp_value bv, nv;
		double change;
		int tasks = !fl_vmstat_counter(names.k[i].what);

		vm_values(base, pk, names.k[i].what, &x);
		vm_values(nw, pk, names.k[i].what, &y);
		bv = summary(&x);
		nv = summary(&y);
		change = pct_change(bv.value, nv.value);
		free(x.v);
		free(y.v);
		/* only the rows that changed */
		if (bv.value == nv.value || (bv.value != 0 && fabs(change) < b->o->vmstat_min_pct))
			continue;
		struct fl_cmp_row *row = new_row(b, FL_CMP_NODE, pk, names.k[i].what, "");
		row->base = bv;
		row->new_ = nv;
		row->change = change;
		if (!tasks) {
			char *n = fl_xasprintf("%s/s", row->name);
			free(row->name);
			row->name = n;
		}
	}
	free(names.k);
}

/* Says, once per side, which expected vmstat counters its kernel lacks. */
static void missing_notes(struct build *b, const struct fl_cmp_set *s)
{
	for (size_t r = 0; r < s->n; r++)
		for (size_t i = 0; i < s->runs[r].npoints; i++) {
			const char *m = s->runs[r].points[i].vmstat_missing;

			if (m && *m)
				note(b->c, fl_xasprintf("vmstat of %s has no %s (the VM event counters "
							"need CONFIG_VM_EVENT_COUNTERS, "
							"kernels/vmstat.config; nr_tlb_* need "
							"CONFIG_DEBUG_TLBFLUSH)",
							s->label, m));
		}
}

/* ---- lock contention ----------------------------------------------------- */

enum { LK_CONT, LK_WAIT, LK_MAX };
static const char *const lk_suffix[] = {"contentions", "waittime-total", "waittime-max"};

/* The runs of s that traced the point; the others are named in a note,
 * except those of agents that predate lock tracing (no status at all). */
static int traced(const struct fl_evidence_point *pt)
{
	return pt && pt->locks && !strcmp(pt->locks, "recorded") && pt->measured_s > 0;
}

static void lock_notes(struct build *b, const struct key *pk, const struct fl_cmp_set *s)
{
	for (size_t r = 0; r < s->n; r++) {
		const struct fl_evidence_point *pt = find_point(&s->runs[r], pk);

		if (pt && pt->locks && !traced(pt))
			note(b->c, fl_xasprintf("no lock contention in %s: %s", s->label,
						!strcmp(pt->locks, "off")
						    ? "not traced on this run (see bench/README.md, "
						      "lockcost)"
						    : pt->locks));
	}
}

static void lock_values(const struct fl_cmp_set *s, const struct key *pk, const char *lock,
			int what, struct vec *x, const char **chains, uint64_t *most)
{
	for (size_t r = 0; r < s->n; r++) {
		const struct fl_evidence_point *pt = find_point(&s->runs[r], pk);
		double v = 0;

		if (!traced(pt))
			continue;
		for (size_t i = 0; i < pt->nlk; i++) {
			const struct fl_lock_ev *l = &pt->lk[i];

			if (strcmp(l->name, lock))
				continue;
			v = what == LK_CONT   ? (double)l->contentions / pt->measured_s
			    : what == LK_WAIT ? (double)l->wait_ns / 1e6 / pt->measured_s
					      : (double)l->max_wait_ns / 1e3;
			if (chains && l->chains && *l->chains && l->contentions > *most) {
				*most = l->contentions;
				*chains = l->chains;
			}
		}
		vec_add(x, v);
	}
}

struct lock_move {
	const struct key *pk;
	const char *lock;
	struct fl_cmp_value base[3], new_[3];
	double change[3];
	const char *chains;
	int moved; /* Mann-Whitney says its wait per run differs between the sides */
};

struct lock_moves {
	struct lock_move *m;
	size_t n, cap;
};

static double wait_growth(const struct lock_move *x)
{
	return x->new_[LK_WAIT].value - x->base[LK_WAIT].value;
}

/* Across every point: the locks whose wait time moved beyond the runs'
 * noise first (the culprit's lock, or the lock a fix relieves; not a lock
 * that contended once in one run at another point), each group by how
 * much the wait time moved, growth before an equal fall. */
static int by_wait_move(const void *a, const void *b)
{
	const struct lock_move *x = a, *y = b;
	double dx = wait_growth(x), dy = wait_growth(y);
	int c;

	if (x->moved != y->moved)
		return y->moved - x->moved;
	if (fabs(dx) != fabs(dy))
		return fabs(dx) > fabs(dy) ? -1 : 1;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	if ((c = strcmp(x->lock, y->lock)))
		return c;
	return x->pk < y->pk ? -1 : x->pk > y->pk;
}

/* A point's locks that moved, added to ms. */
static void lock_moves(struct build *b, const struct key *pk, const struct fl_cmp_set *base,
		       const struct fl_cmp_set *nw, struct lock_moves *ms)
{
	struct keys locks = {0};
	const struct fl_cmp_set *sides[2] = {base, nw};

	lock_notes(b, pk, base);
	lock_notes(b, pk, nw);
	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < sides[s]->n; r++) {
			const struct fl_evidence_point *pt = find_point(&sides[s]->runs[r], pk);

			for (size_t i = 0; traced(pt) && i < pt->nlk; i++)
				keys_add(&locks, "", 0, "", pt->lk[i].name);
		}
	for (size_t i = 0; i < locks.n; i++) {
		const char *nchains = NULL, *bchains = NULL;
		uint64_t nmost = 0, bmost = 0;
		struct lock_move m = {.pk = pk, .lock = locks.k[i].what};
		int changed = 0;

		for (int w = 0; w < 3; w++) {
			struct vec x = {0}, y = {0};
			struct fl_mwu u;

			lock_values(base, pk, m.lock, w, &x, &bchains, &bmost);
			lock_values(nw, pk, m.lock, w, &y, &nchains, &nmost);
			m.base[w] = summary(&x);
			m.new_[w] = summary(&y);
			m.change[w] = pct_change(m.base[w].value, m.new_[w].value);
			/* only the rows that changed: seen on one side only, or moved */
			if (m.base[w].value != m.new_[w].value &&
			    (m.base[w].value == 0 || fabs(m.change[w]) >= b->o->vmstat_min_pct))
				changed = 1;
			if (w == LK_WAIT && x.n && y.n && !fl_stats_mwu(x.v, x.n, y.v, y.n, &u))
				m.moved = u.p <= b->o->alpha;
			free(x.v);
			free(y.v);
		}
		m.chains = nchains ? nchains : bchains;
		/* a lock needs a traced run on both sides to have moved */
		if (!changed || !m.base[0].n || !m.new_[0].n)
			continue;
		if (ms->n == ms->cap)
			ms->m = fl_xrealloc(ms->m, (ms->cap = ms->cap ? 2 * ms->cap : 16) * sizeof(*ms->m));
		ms->m[ms->n++] = m;
	}
	free(locks.k);
}

static void lock_row(struct build *b, const struct lock_move *m, int w)
{
	char *what = fl_xasprintf("%s.%s", m->lock, lk_suffix[w]);
	struct fl_cmp_row *row = new_row(b, FL_CMP_LOCK, m->pk, what, "lock_stat.");

	free(what);
	row->base = m->base[w];
	row->new_ = m->new_[w];
	row->change = m->change[w];
	row->lock = fl_xstrdup(m->lock);
	if (w == LK_CONT && m->chains)
		row->chains = fl_xstrdup(m->chains);
	if (w != LK_MAX) {
		char *n = fl_xasprintf("%s/s", row->name);
		free(row->name);
		row->name = n;
	}
}

/* The lock rows of every point, in by_wait_move's order, at most
 * profile_rows locks a point. */
static void lock_rows(struct build *b, const struct keys *pks, const struct fl_cmp_set *base,
		      const struct fl_cmp_set *nw)
{
	struct lock_moves ms = {0};
	size_t *shown = fl_xcalloc(pks->n + 1, sizeof(*shown));

	for (size_t i = 0; i < pks->n; i++)
		lock_moves(b, &pks->k[i], base, nw, &ms);
	if (ms.n)
		qsort(ms.m, ms.n, sizeof(*ms.m), by_wait_move);
	for (size_t i = 0; i < ms.n; i++) {
		size_t p = (size_t)(ms.m[i].pk - pks->k);

		if (shown[p]++ >= b->o->profile_rows)
			continue;
		for (int w = 0; w < 3; w++)
			lock_row(b, &ms.m[i], w);
	}
	free(shown);
	free(ms.m);
}

/* Every (mode, tasks, cgroup) with evidence on either side, sorted. */
static void evidence_points(const struct fl_cmp_set *base, const struct fl_cmp_set *nw,
			    struct keys *pks)
{
	const struct fl_cmp_set *sides[2] = {base, nw};

	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < sides[s]->n; r++)
			for (size_t i = 0; i < sides[s]->runs[r].npoints; i++)
				keys_add(pks, sides[s]->runs[r].points[i].mode,
					 sides[s]->runs[r].points[i].tasks,
					 sides[s]->runs[r].points[i].cgroup, NULL);
	keys_sort(pks);
}

int fl_compare(const char *benchmark, const struct fl_cmp_set *base, const struct fl_cmp_set *nw,
	       const struct fl_cmp_opts *o, struct fl_comparison **out)
{
	struct build b = {0};
	struct keys pks = {0};
	int r;

	*out = NULL;
	if (!base->n || !nw->n)
		return fl_error_set(FL_EINVAL, "compare %s: no runs of %s", benchmark,
				    !base->n ? base->label : nw->label);
	b.c = fl_xcalloc(1, sizeof(*b.c));
	b.c->benchmark = fl_xstrdup(benchmark);
	b.c->base_label = fl_xstrdup(base->label);
	b.c->new_label = fl_xstrdup(nw->label);
	b.c->base_runs = base->n;
	b.c->new_runs = nw->n;
	b.bench = benchmark;
	b.o = o;
	if ((r = metric_rows(&b, base, nw))) {
		fl_comparison_free(b.c);
		return fl_error_wrap(r, "compare %s", benchmark);
	}
	if (!o->metrics_only)
		evidence_points(base, nw, &pks);
	for (size_t i = 0; i < pks.n; i++)
		vmstat_rows(&b, &pks.k[i], base, nw);
	for (size_t i = 0; i < pks.n; i++)
		profile_rows(&b, &pks.k[i], base, nw);
	lock_rows(&b, &pks, base, nw);
	for (size_t i = 0; i < pks.n; i++)
		node_rows(&b, &pks.k[i], base, nw);
	if (pks.n) {
		missing_notes(&b, base);
		missing_notes(&b, nw);
	}
	free(pks.k);
	*out = b.c;
	return 0;
}

void fl_comparison_free(struct fl_comparison *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nrows; i++) {
		free(c->rows[i].mode);
		free(c->rows[i].cgroup);
		free(c->rows[i].what);
		free(c->rows[i].name);
		free(c->rows[i].lock);
		free(c->rows[i].chains);
	}
	for (size_t i = 0; i < c->nnotes; i++)
		free(c->notes[i]);
	free(c->notes);
	free(c->rows);
	free(c->benchmark);
	free(c->base_label);
	free(c->new_label);
	free(c);
}

const struct fl_cmp_row *fl_comparison_find(const struct fl_comparison *c, enum fl_cmp_kind kind,
					    const char *mode, unsigned tasks, const char *cgroup,
					    const char *what)
{
	cgroup = fl_cgroup_key(cgroup);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct fl_cmp_row *r = &c->rows[i];

		if (r->kind == kind && r->tasks == tasks && !strcmp(r->mode, mode) &&
		    !strcmp(r->cgroup, cgroup) && !strcmp(r->what, what))
			return r;
	}
	return NULL;
}

int fl_comparison_regressed(const struct fl_comparison *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].cls == FL_CMP_REGRESSION)
			return 1;
	return 0;
}

/* ---- text ---------------------------------------------------------------- */

static void add_value(fl_buf *out, const struct fl_cmp_value *v, int width)
{
	if (!v->n)
		fl_buf_addf(out, "%*s%6s", width, "-", "");
	else if (fabs(v->value) >= 1000)
		fl_buf_addf(out, "%*.0f", width, v->value);
	else
		fl_buf_addf(out, "%*.2f", width, v->value);
	if (v->n && v->stddev_pct >= 1)
		fl_buf_addf(out, " \xc2\xb1%3.0f%%", v->stddev_pct);
	else if (v->n)
		fl_buf_addf(out, "%6s", "");
}

static const char *verdict_word(enum fl_verdict v)
{
	return v == FL_DIFFERENT ? "DIFFERENT" : v == FL_SAME ? "SAME" : "UNKNOWN";
}

void fl_comparison_chains_text(const char *chains, const char *indent, fl_buf *out)
{
	for (const char *p = chains; *p;) {
		size_t n = strcspn(p, "\n");

		fl_buf_addf(out, "%schain: %.*s\n", indent, (int)n, p);
		p += n + (p[n] == '\n');
	}
}

void fl_comparison_text(const struct fl_comparison *c, fl_buf *out)
{
	enum fl_cmp_kind last = FL_CMP_METRIC;

	fl_buf_addf(out, "%-16s %s\n", c->base_label, c->new_label);
	fl_buf_adds(out, "---------------- ---------------------------\n"
			 "         %stddev     %change         %stddev\n"
			 "             \\          |                \\\n");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct fl_cmp_row *r = &c->rows[i];

		if (r->kind != last)
			fl_buf_addch(out, '\n');
		last = r->kind;
		add_value(out, &r->base, 10);
		/* no change of a side without runs, nor in percent of nothing */
		if (!r->base.n || !r->new_.n || (r->kind != FL_CMP_PROFILE && r->base.value == 0))
			fl_buf_addf(out, "%11s", "");
		else if (r->kind == FL_CMP_PROFILE)
			fl_buf_addf(out, "%+11.1f", r->change);
		else
			fl_buf_addf(out, "%+10.1f%%", r->change);
		add_value(out, &r->new_, 11);
		fl_buf_addf(out, "  %s", r->name);
		/* a command's one value needs no task count */
		if (*r->mode || r->tasks != 1)
			fl_buf_addf(out, " tasks=%u", r->tasks);
		if (*r->cgroup)
			fl_buf_addf(out, " cgroup=%s", r->cgroup);
		if (r->kind == FL_CMP_METRIC)
			fl_buf_addf(out, "  %s p=%.2g n=%zu+%zu%s", verdict_word(r->verdict), r->p,
				    r->base.n, r->new_.n,
				    r->cls == FL_CMP_REGRESSION	   ? "  REGRESSION"
				    : r->cls == FL_CMP_IMPROVEMENT ? "  improvement"
								   : "");
		fl_buf_addch(out, '\n');
		if (r->chains)
			fl_comparison_chains_text(r->chains, "                                  ", out);
	}
	if (c->nnotes)
		fl_buf_addch(out, '\n');
	for (size_t i = 0; i < c->nnotes; i++)
		fl_buf_addf(out, "# %s\n", c->notes[i]);
}
