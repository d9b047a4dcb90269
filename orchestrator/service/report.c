/*
 * report.c - the text of a regression report and the report step of the
 * watch service (see report.h).
 */
#include "service/report.h"
#include "analysis/descent.h"
#include "lib/buf.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/mail.h"
#include "machine/machine.h"
#include "service/measure.h"
#include "service/pipeline.h"
#include "service/route.h"
#include "lib/fs.h"
#include "service/service.h"
#include "store/bisect.h"
#include "store/compare.h"
#include "store/jobs.h"
#include "store/run.h"
#include "store/watch.h"
#include "lib/units.h"

#include "proto/facts.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Everything a report says, gathered from the store and the tree. */
struct report {
	struct fl_service *svc;
	fl_store *st;
	const struct fl_config *cfg;
	const struct fl_benchmark_conf *bench;
	const struct fl_machine_conf *machine;
	const struct fl_tree_conf *tree;
	fl_repo *repo;
	struct fl_regression reg;
	struct fl_bisection_row bis;
	json_t *summary; /* the engine's result */
	struct fl_revert rv;
	int have_revert;
	char parent[41];	       /* the culprit's first parent */
	struct fl_repo_commit culprit; /* sha "" when there is none */
	struct fl_cmp_side tag_base, tag_new, c_parent, c_culprit, r_base, r_bad, r_revert;
	struct fl_comparison *tags, *culprit_cmp; /* NULL without runs on a side */
	double culprit_change; /* the culprit against its parent; NAN: not measured */
	char *kconfig, *compiler, *config_text;	  /* the sample run's build, when it had one */
	const char *held;			  /* hold mode: whom it would have reached */
	char attach[32];			  /* the attachment's name: config-<sha10> */
	fl_buf b;
};

static const char *sj(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static int is_culprit(const struct report *x)
{
	return x->culprit.sha[0] != '\0';
}

static int is_head(const struct report *x)
{
	return x->reg.tag_kind && !strcmp(x->reg.tag_kind, "head") && x->reg.ref;
}

/* An improvement reported (report.improvements): bisected toward better, not reverted. */
static int is_improvement(const struct report *x)
{
	return x->reg.kind && !strcmp(x->reg.kind, "improvement");
}

static const char *what(const struct report *x)
{
	return is_improvement(x) ? "improvement" : "regression";
}

/* ---- the comparison tables ------------------------------------------- */

/* compare.c's comparison of two sides, the service's options; NULL when a
 * side has no runs (or it cannot be made: the report says so). */
static struct fl_comparison *compare(struct report *x, const struct fl_cmp_side *base,
				     const struct fl_cmp_side *new_, int metrics_only)
{
	struct fl_comparison *c = NULL;
	struct fl_cmp_opts o;

	if (!base->set.n || !new_->set.n)
		return NULL;
	fl_measure_cmp_opts(x->cfg, x->bench, &o);
	o.metrics_only = metrics_only;
	if (fl_compare(x->reg.benchmark, &base->set, &new_->set, &o, &c))
		fl_warn("report: regression %lld: %s", (long long)x->reg.id, fl_error_last());
	return c;
}

/* The table in LKP's shape; returns the vmstat and profile rows it showed. */
static size_t add_table(struct report *x, const struct fl_comparison *c)
{
	size_t deltas = 0;

	if (!c) {
		fl_buf_adds(&x->b, "  (no runs to compare on one side)\n");
		return 0;
	}
	fl_comparison_text(c, &x->b);
	for (size_t i = 0; i < c->nrows; i++)
		deltas += c->rows[i].kind != FL_CMP_METRIC;
	return deltas;
}

/* ---- gathering ------------------------------------------------------- */

static int64_t sample_run(const struct report *x);

/* The kernel config, its .config and the compiler of the run the numbers come from. */
static void gather_build(struct report *x)
{
	struct fl_run_row row = {0};
	int64_t run = sample_run(x);
	char *artifact = NULL;

	snprintf(x->attach, sizeof(x->attach), "config-%.10s",
		 is_culprit(x) ? x->culprit.sha : x->reg.bad);
	if (run && !fl_store_run_get(x->st, run, &row) && row.build_id &&
	    !fl_store_build_about(x->st, row.build_id, &x->kconfig, &x->compiler, &artifact) &&
	    artifact) {
		char *path = fl_xasprintf("%s/config", artifact);
		fl_buf text = FL_BUF_INIT;

		if (!fl_read_file(path, &text))
			x->config_text = fl_buf_detach(&text);
		else
			fl_warn("report: regression %lld: %s", (long long)x->reg.id, fl_error_last());
		fl_buf_free(&text);
		free(path);
	}
	free(artifact);
	fl_store_run_row_release(&row);
}

/* The ok runs of a job's children with a role (NULL: any) and a commit (NULL: any). */
static int load_runs(struct report *x, int64_t parent, const char *role, const char *rev,
		     const char *label, struct fl_cmp_side *side)
{
	struct fl_job *kids = NULL;
	size_t n = 0, k = 0;
	int64_t *ids;
	int r;

	if (parent && (r = fl_store_jobs_children(x->st, parent, &kids, &n)))
		return r;
	ids = fl_xcalloc(n + 1, sizeof(*ids));
	for (size_t i = 0; i < n; i++)
		if ((!role || !strcmp(kids[i].role, role)) && (!rev || !strcmp(kids[i].rev, rev)) &&
		    kids[i].result && !strcmp(kids[i].result, "ok") && kids[i].run_id)
			ids[k++] = kids[i].run_id;
	r = fl_cmp_side_load(x->st, label, ids, k, 0, side);
	free(ids);
	fl_jobs_free(kids, n);
	return r;
}

/* The regression's job of a kind; 0 when it has none. */
static int64_t job_id(struct report *x, enum fl_job_kind kind)
{
	struct fl_job j;
	int64_t id = 0;

	if (!fl_service_job_find(x->st, kind, &(struct fl_job_spec){.regression_id = x->reg.id},
				 &j)) {
		id = j.id;
		fl_job_release(&j);
	}
	return id;
}

static int gather(struct report *x, int64_t regression_id)
{
	const struct fl_cmp_row *at;
	char parent[13], culprit[13], revert[13];
	int64_t bid, bisect_job, revert_job;
	int resumed, r;

	if ((r = fl_store_regression_get(x->st, regression_id, &x->reg)))
		return r;
	x->bench = fl_config_benchmark(x->cfg, x->reg.benchmark);
	x->machine = fl_config_machine(x->cfg, x->reg.machine);
	x->tree = fl_config_tree(x->cfg, x->reg.tree);
	if (!x->bench || !x->machine || !x->tree)
		return fl_error_set(FL_EINVAL,
				    "regression %lld: its benchmark, machine or tree is "
				    "no longer in the configuration",
				    (long long)regression_id);
	if ((r = fl_service_repo(x->svc, x->reg.tree, &x->repo, NULL)) ||
	    (r = fl_store_regression_bisection(x->st, x->reg.id, x->reg.good, x->reg.bad, &bid,
					       &resumed)) ||
	    (r = fl_store_bisection_get(x->st, bid, &x->bis)))
		return r;
	x->summary = x->bis.summary ? json_loads(x->bis.summary, 0, NULL) : NULL;
	if (!x->summary)
		x->summary = json_object();
	if (x->bis.culprit) {
		char *rev = fl_xasprintf("%s^", x->bis.culprit);

		r = fl_repo_commit(x->repo, x->bis.culprit, &x->culprit);
		if (!r)
			r = fl_repo_resolve(x->repo, rev, x->parent);
		free(rev);
		if (r)
			return r;
	}
	x->have_revert = !fl_store_revert_get(x->st, x->reg.id, &x->rv);
	bisect_job = job_id(x, FL_JOB_BISECT);
	revert_job = job_id(x, FL_JOB_REVERT);
	snprintf(parent, sizeof(parent), "%.12s", x->parent);
	snprintf(culprit, sizeof(culprit), "%.12s", x->culprit.sha);
	snprintf(revert, sizeof(revert), "%.12s",
		 x->have_revert && x->rv.commit_sha ? x->rv.commit_sha : "revert");
	if ((r = load_runs(x, x->reg.job_id, fl_role_name(FL_ROLE_BASE), NULL, x->reg.baseline,
			   &x->tag_base)) ||
	    (r = load_runs(x, x->reg.job_id, fl_role_name(FL_ROLE_NEW), NULL, x->reg.tag,
			   &x->tag_new)) ||
	    (r = load_runs(x, is_culprit(x) ? bisect_job : 0, NULL, x->parent, parent,
			   &x->c_parent)) ||
	    (r = load_runs(x, is_culprit(x) ? bisect_job : 0, NULL, x->culprit.sha, culprit,
			   &x->c_culprit)) ||
	    (r = load_runs(x, revert_job, fl_role_name(FL_ROLE_BASE), NULL, x->reg.baseline,
			   &x->r_base)) ||
	    (r = load_runs(x, revert_job, fl_role_name(FL_ROLE_BAD), NULL, x->reg.tag,
			   &x->r_bad)) ||
	    (r = load_runs(x, revert_job, fl_role_name(FL_ROLE_REVERT), NULL, revert,
			   &x->r_revert)))
		return r;
	x->tags = compare(x, &x->tag_base, &x->tag_new, 0);
	x->culprit_cmp = compare(x, &x->c_parent, &x->c_culprit, 0);
	/* a second number, said as what it compares: the headline is the regression's own */
	at = x->culprit_cmp ? fl_comparison_find(x->culprit_cmp, FL_CMP_METRIC, x->reg.mode,
						 x->reg.tasks, x->reg.cgroup, x->reg.metric)
			    : NULL;
	x->culprit_change = at && at->base.n && at->new_.n ? at->change : NAN;
	gather_build(x);
	return 0;
}

/* ---- the text ---------------------------------------------------------- */

static char *metric_name(const struct report *x)
{
	struct fl_point p = {x->reg.metric, x->reg.mode, x->reg.tasks, x->reg.cgroup};

	return fl_point_name(x->reg.benchmark, &p, 0);
}

/* The run the report's numbers come from: the culprit's first, else the tag's. */
static int64_t sample_run(const struct report *x)
{
	return x->c_culprit.set.n ? x->c_culprit.ids[0] : x->tag_new.set.n ? x->tag_new.ids[0] : 0;
}

/* The machine as its backend describes it, with the run the numbers come from. */
static void add_backend(struct report *x)
{
	const struct fl_machine_ops *ops;
	struct fl_run_row row = {0};
	int64_t run = sample_run(x);
	int have = run && !fl_store_run_get(x->st, run, &row);
	struct fl_machine_seen seen = {row.id,	  row.machine_facts, row.accel, row.kernel_release,
				       row.nodes, row.cpus};

	if (fl_machine_ops_of(x->cfg, x->machine, &ops))
		fl_buf_addf(&x->b, "%s (%s)", x->machine->name, fl_error_last());
	else
		ops->describe(x->machine, have ? &seen : NULL, &x->b);
	fl_store_run_row_release(&row);
}

static void add_machine(struct report *x)
{
	const struct fl_machine_conf *m = x->machine;
	char *facts = NULL;
	json_t *f = NULL;

	fl_buf_adds(&x->b, "on test machine: ");
	add_backend(x);
	if (!fl_store_machine_facts(x->st, m->name, &facts) && facts)
		f = json_loads(facts, 0, NULL);
	if (f && json_is_object(f)) {
		const char *key;
		json_t *v;
		char *s;

		fl_buf_adds(&x->b, "\n                 ");
		json_object_foreach(f, key, v)
		{
			if (!strcmp(key, FL_FACT_MEMORY) && json_is_integer(v)) {
				fl_buf_addf(&x->b, " memory=%.1fG",
					    (double)json_integer_value(v) / (1 << 30));
				continue;
			}
			s = json_is_string(v) ? fl_xstrdup(json_string_value(v))
					      : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
			fl_buf_addf(&x->b, " %s=%s", key, s ? s : "?");
			free(s);
		}
	}
	fl_buf_adds(&x->b, "\n");
	json_decref(f);
	free(facts);
	if (!fl_machine_kernel(x->machine)) {
		fl_buf_adds(&x->b, "kernel config: none (the command backend measures each commit "
				   "with the machine's command)\n");
	} else {
		fl_buf_addf(&x->b, "kernel config: %s", x->kconfig ? x->kconfig : "-");
		if (x->config_text)
			fl_buf_addf(&x->b, " (the .config is attached as %s)", x->attach);
		fl_buf_addf(&x->b, "\ncompiler: %s\n", x->compiler ? x->compiler : "-");
	}
}

/* The contexts, when the benchmark measures in a child memory cgroup too. */
static void add_cgroups(struct report *x)
{
	const struct fl_benchmark_conf *b = x->bench;
	char size[32];
	int child = 0;

	for (size_t i = 0; i < b->ncgroups; i++)
		child |= !!*fl_cgroup_key(b->cgroups[i]);
	if (!child)
		return;
	fl_buf_adds(&x->b, "\n\tcgroup:");
	for (size_t i = 0; i < b->ncgroups; i++)
		fl_buf_addf(&x->b, "%s %s", i ? "," : "", b->cgroups[i]);
	fl_buf_addf(&x->b, " (child: cgroup %s", b->cgroup_version ? b->cgroup_version : "v2");
	for (int k = 0; k < 2; k++) {
		uint64_t v = k ? b->memory_high : b->memory_max;

		fl_format_size(v, size, sizeof(size));
		fl_buf_addf(&x->b, ", memory.%s %s", k ? "high" : "max", v ? size : "max");
	}
	fl_buf_adds(&x->b, ")");
}

static void add_params(struct report *x)
{
	const struct fl_benchmark_conf *b = x->bench;
	char d1[32], d2[32], size[32];

	fl_buf_adds(&x->b, "with following parameters:\n\n");
	if (!fl_machine_kernel(x->machine)) {
		fl_buf_addf(&x->b, "\tcommand: %s\n", x->machine->command);
	} else {
		fl_buf_addf(&x->b, "\ttest: %s\n\tmodes:", b->test ? b->test : "-");
		for (size_t i = 0; i < b->nmodes; i++)
			fl_buf_addf(&x->b, "%s %s", i ? "," : "", b->modes[i]);
		fl_buf_adds(&x->b, "\n\ttasks:");
		for (size_t i = 0; i < b->ntasks; i++)
			fl_buf_addf(&x->b, "%s %u%s", i ? "," : "", b->tasks[i].value,
				    b->tasks[i].percent ? "%" : "");
		add_cgroups(x);
		fl_format_duration(b->warmup_ms, d1, sizeof(d1));
		fl_format_duration(b->duration_ms, d2, sizeof(d2));
		fl_format_size(b->memory_per_task, size, sizeof(size));
		fl_buf_addf(&x->b,
			    "\n\twarmup: %s\n\tduration: %s\n\tmemory_per_task: %s\n\tplacement: "
			    "%s\n\tkernel: %s\n",
			    d1, d2, size, b->placement, b->kernel ? b->kernel : "-");
	}
	fl_buf_addf(&x->b, "\trepeat: %u (up to %u runs a side when unclear)\n", b->repeat,
		    fl_measure_max_runs(b));
	fl_buf_addf(&x->b, "\tdirection: %s is better\n\n", b->direction);
}

static void add_tables(struct report *x)
{
	size_t deltas = 0;

	fl_buf_adds(&x->b, "Details are as below:\n"
			   "-------------------------------------------------------------------"
			   "------------------------------->\n\n");
	if (is_culprit(x) && x->culprit_cmp) {
		fl_buf_addf(&x->b, "commit:\n  %.12s (the culprit's parent)\n  %.12s (\"%s\")\n\n",
			    x->parent, x->culprit.sha, x->culprit.subject);
		deltas += add_table(x, x->culprit_cmp);
		fl_buf_adds(&x->b, "\n");
	}
	fl_buf_addf(&x->b, "tags:\n  %s (baseline)\n  %s\n\n", x->reg.baseline, x->reg.tag);
	deltas += add_table(x, x->tags);
	if (!deltas)
		fl_buf_addf(&x->b,
			    "\nvmstat and profile deltas: none, the runs on %s carry no "
			    "vmstat or profile records.\n",
			    x->machine->name);
	fl_buf_adds(&x->b, "\n");
}

/*
 * Lock contention, the way the 2014 and 2024 threads were settled: the lock
 * whose wait time moved most, beyond the noise of the runs (compare.h's
 * order), between the culprit's parent and the culprit
 * (else between the tags: bisection steps do not trace, pipeline.h), first,
 * with its contentions, wait time, longest wait and call chains; the others
 * that changed after it. Nothing when no run traced locks (compare.c's
 * notes in the table say why).
 */
static int has_locks(const struct fl_comparison *c)
{
	for (size_t i = 0; c && i < c->nrows; i++)
		if (c->rows[i].kind == FL_CMP_LOCK)
			return 1;
	return 0;
}

static void add_locks(struct report *x)
{
	const struct fl_comparison *c = has_locks(x->culprit_cmp) ? x->culprit_cmp : x->tags;
	int any = 0;

	for (size_t i = 0; c && i < c->nrows; i++) {
		const struct fl_cmp_row *r = &c->rows[i], *w = r + 1, *m = r + 2;

		if (r->kind != FL_CMP_LOCK || !r->chains || i + 2 >= c->nrows ||
		    strcmp(w->lock, r->lock) || strcmp(m->lock, r->lock))
			continue;
		if (!any++)
			fl_buf_addf(&x->b, "\nlock contention (lock:contention_begin/end tracepoints, "
					   "%s against %s, the locks whose wait time moved beyond "
					   "the runs' noise first):\n",
				    c->new_label, c->base_label);
		fl_buf_addf(&x->b,
			    "  %s (%s tasks=%u%s%s): %.0f -> %.0f contentions/s, waiting "
			    "%.1f -> %.1f ms/s, longest wait %.0f -> %.0f us\n",
			    r->lock, *r->mode ? r->mode : "-", r->tasks, *r->cgroup ? " cgroup=" : "",
			    r->cgroup, r->base.value, r->new_.value, w->base.value, w->new_.value,
			    m->base.value, m->new_.value);
		fl_comparison_chains_text(r->chains, "    ", &x->b);
	}
	if (any)
		fl_buf_addch(&x->b, '\n');
}

struct log_ctx {
	struct report *x;
	size_t runs;
};

static int log_step(void *ctx, const struct fl_bisect_step_rec *s)
{
	struct log_ctx *l = ctx;
	fl_buf *b = &l->x->b;

	l->runs++;
	fl_buf_addf(b, "  %4zu  %.12s  %-7s  ", s->seq + 1, s->sha,
		    s->skipped	  ? "skip"
		    : *s->verdict ? s->verdict
				  : "end");
	if (*s->verdict)
		fl_buf_addf(b, "%5.3f  ", s->confidence);
	else
		fl_buf_adds(b, "    -  ");
	if (s->skipped)
		fl_buf_adds(b, "untestable\n");
	else if (s->n <= 5) {
		for (size_t i = 0; i < s->n; i++)
			fl_buf_addf(b, "%s%.6g", i ? " " : "", s->v[i]);
		fl_buf_adds(b, "\n");
	} else {
		fl_buf_addf(b, "%zu samples, median %.6g, mean %.6g\n", s->n,
			    fl_stats_median(s->v, s->n), fl_stats_mean(s->v, s->n));
	}
	return 0;
}

/* What the report says of a revert check's verdict. */
static const char *verdict_text(const char *verdict)
{
	static const char *const text[] = {
	    [FL_REVERT_RESTORES] = "the revert brings the throughput back to the baseline's "
				   "(restores)",
	    [FL_REVERT_PARTIAL] = "the revert recovers part of the loss, still worse than the "
				  "baseline (partial)",
	    [FL_REVERT_NO_EFFECT] = "the revert does not bring the throughput back (no-effect)",
	    [FL_REVERT_UNCLEAR] = "no clear answer within the runs budget (unclear)",
	    [FL_REVERT_UNTESTABLE] = "the revert commit cannot be tested (untestable)",
	};
	enum fl_revert_verdict v;

	if (!verdict)
		return "not measured";
	return fl_revert_verdict_parse(verdict, &v) ? text[FL_REVERT_UNCLEAR] : text[v];
}

static void add_bisection(struct report *x)
{
	json_t *s = x->summary;
	struct log_ctx l = {x, 0};

	fl_buf where = FL_BUF_INIT;
	json_t *change = json_object_get(s, "change_pct");

	fl_buf_addf(&x->b,
		    "Bisection (good %s = %.12s, bad %s = %.12s, %lld commits in the range, "
		    "merged branches included; the steps of %s/bisect/%lld):\n\n"
		    "  step  commit        verdict  p(best) samples\n",
		    x->reg.baseline, x->reg.good, x->reg.tag, x->reg.bad,
		    (long long)json_integer_value(json_object_get(s, "commits")),
		    x->cfg->report.url, (long long)x->bis.id);
	fl_store_bisect_steps_each(x->st, x->bis.id, log_step, &l);
	fl_buf_addf(&x->b, "\nresult: %s", x->bis.result ? x->bis.result : "(none)");
	if (is_culprit(x))
		fl_buf_addf(&x->b, " %.12s", x->culprit.sha);
	else if (!strcmp(sj(s, "result"), "range"))
		fl_buf_addf(&x->b, " %.12s..%.12s (the commits in between cannot be tested)",
			    sj(s, "first"), sj(s, "last"));
	/* where it is: "in the branch merged by M", an evil merge said so */
	fl_descent_summary_where(&where, x->bis.summary);
	if (where.len) {
		const char *w = where.ptr;

		while (*w == ' ' || *w == ';')
			w++;
		fl_buf_addf(&x->b, "\n        %s\n       ", w);
	}
	fl_buf_free(&where);
	fl_buf_addf(&x->b, ", confidence %.3f (required %.2f), ", x->bis.confidence,
		    x->cfg->regression.confidence);
	if (json_is_number(change))
		fl_buf_addf(&x->b, "%.1f%% %s", json_number_value(change),
			    is_improvement(x) ? "better" : "worse");
	else
		fl_buf_addf(&x->b, "%s from a value of 0", is_improvement(x) ? "better" : "worse");
	fl_buf_addf(&x->b, " %s, %lld runs, %lld commits tested\n\n",
		    is_culprit(x) ? "verified against the parent with fresh runs"
				  : "between the ends",
		    (long long)json_integer_value(json_object_get(s, "runs")),
		    (long long)json_integer_value(json_object_get(s, "commits_tested")));
}

static void add_revert(struct report *x)
{
	const struct fl_revert *v = &x->rv;

	if (!x->have_revert)
		return;
	fl_buf_adds(&x->b, "Revert check:\n\n");
	if (!strcmp(v->state, "conflict")) {
		fl_buf_addf(&x->b,
			    "  %.12s does not revert cleanly on top of %s; the revert conflicts "
			    "in:\n\n",
			    v->culprit, x->reg.tag);
		for (const char *p = v->conflicts; p && *p;) {
			size_t len = strcspn(p, "\n");

			fl_buf_addf(&x->b, "\t%.*s\n", (int)len, p);
			p += len + (p[len] == '\n');
		}
		fl_buf_adds(&x->b, "\n  so it could not be measured.\n\n");
		return;
	}
	if (strcmp(v->state, "applied")) {
		fl_buf_addf(&x->b, "  the revert could not be made: %s\n\n",
			    v->error ? v->error : "unknown error");
		return;
	}
	fl_buf_addf(&x->b, "  %.12s reverted on top of %s as %.12s (kept as %s)\n\n", v->culprit,
		    x->reg.tag, v->commit_sha, v->ref);
	/* against the tag it was made on, then against the baseline */
	for (int k = 0; k < 2; k++) {
		struct fl_comparison *c = compare(x, k ? &x->r_base : &x->r_bad, &x->r_revert, 1);

		if (k)
			fl_buf_adds(&x->b, "\n");
		add_table(x, c);
		fl_comparison_free(c);
	}
	fl_buf_addf(&x->b, "\n  verdict: %s\n\n", verdict_text(v->verdict));
}

/* s as one shell word: 'it'\''s' */
static char *shell_quote(const char *s)
{
	fl_buf b = FL_BUF_INIT;

	fl_buf_addch(&b, '\'');
	for (; *s; s++)
		if (*s == '\'')
			fl_buf_adds(&b, "'\\''");
		else
			fl_buf_addch(&b, *s);
	fl_buf_addch(&b, '\'');
	return fl_buf_detach(&b);
}

/* s as a YAML double-quoted scalar. */
static void add_yaml_str(fl_buf *b, const char *s)
{
	fl_buf_addch(b, '"');
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			fl_buf_addf(b, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fl_buf_addf(b, "\\x%02x", (unsigned char)*s);
		else
			fl_buf_addch(b, *s);
	fl_buf_addch(b, '"');
}

/* What a recipient clones: the tree's public_url, else its url when that is
 * not a path on this host. NULL: neither (the mail then says so). */
static const char *public_url(const struct report *x)
{
	const char *u = x->tree->public_url ? x->tree->public_url : x->tree->url;

	if (x->tree->public_url)
		return u;
	if (strstr(u, "://") || (strchr(u, '@') && strchr(u, ':') && u[0] != '/'))
		return u;
	return NULL;
}

static void add_list(fl_buf *b, char *const *v, size_t n)
{
	fl_buf_adds(b, "[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			fl_buf_adds(b, ", ");
		add_yaml_str(b, v[i]);
	}
	fl_buf_adds(b, "]");
}

/* A configuration for the recipient's machine, written from this mail's facts. */
static void add_repro_config(struct report *x, const char *url)
{
	const struct fl_benchmark_conf *b = x->bench;
	const struct fl_machine_conf *m = x->machine;
	const struct fl_machine_ops *ops = fl_machine_backend(m->backend);
	fl_buf *o = &x->b;
	char v[32];

	/* <<- drops the tab every line of the mail starts with: YAML takes no tab */
	fl_buf_adds(o, "\tcat >repro.yaml <<-'EOF'\n\ttrees:\n\t  - { name: ");
	add_yaml_str(o, x->tree->name);
	fl_buf_adds(o, ", url: ");
	add_yaml_str(o, url ? url : "<the tree's URL>");
	fl_buf_adds(o, " }\n");
	if (fl_machine_kernel(m)) {
		fl_buf_adds(o, "\tkernels:\n\t  - { name: ");
		add_yaml_str(o, x->kconfig ? x->kconfig : "kernel");
		fl_buf_addf(o, ", base: ./%s }   # the attached .config\n", x->attach);
	}
	fl_buf_adds(o, "\tmachines:\n\t  - { name: ");
	add_yaml_str(o, m->name);
	fl_buf_addf(o, ", backend: %s", m->backend);
	if (ops && ops->repro_keys)
		ops->repro_keys(m, o, add_yaml_str);
	fl_buf_adds(o, " }\n\tbenchmarks:\n\t  - { name: ");
	add_yaml_str(o, b->name);
	fl_buf_addf(o, ", repeat: %u, direction: %s", b->repeat, b->direction);
	if (fl_machine_kernel(m)) {
		fl_buf_addf(o, ",\n\t      test: %s, modes: ", b->test ? b->test : "-");
		add_list(o, b->modes, b->nmodes);
		fl_buf_adds(o, ", tasks: [");
		for (size_t i = 0; i < b->ntasks; i++)
			fl_buf_addf(o, "%s%u%s", i ? ", " : "", b->tasks[i].value,
				    b->tasks[i].percent ? "%" : "");
		fl_format_duration(b->warmup_ms, v, sizeof(v));
		fl_buf_addf(o, "], warmup: %s", v);
		fl_format_duration(b->duration_ms, v, sizeof(v));
		fl_buf_addf(o, ", duration: %s", v);
		fl_format_size(b->memory_per_task, v, sizeof(v));
		fl_buf_addf(o, ", memory_per_task: %s, placement: %s,\n\t      cgroup: ", v,
			    b->placement);
		add_list(o, b->cgroups, b->ncgroups);
		fl_buf_adds(o, ", kernel: ");
		add_yaml_str(o, x->kconfig ? x->kconfig : "kernel");
	}
	fl_buf_addf(o, " }\n\tregression: { min_change: %g%%, confidence: %g }\n\tEOF\n",
		    100 * x->cfg->regression.min_change, x->cfg->regression.confidence);
}

/* The benchmark as a command on a machine booted into each kernel. */
static void add_plain_bench(struct report *x)
{
	const struct fl_benchmark_conf *b = x->bench;
	char w[32], d[32], m[32];

	fl_format_duration(b->warmup_ms, w, sizeof(w));
	fl_format_duration(b->duration_ms, d, sizeof(d));
	fl_format_size(b->memory_per_task, m, sizeof(m));
	fl_buf_addf(&x->b, "\tfl-agent bench --test %s --mode %s --tasks %u --warmup %s --duration "
			   "%s --memory %s --placement %s\n",
		    b->test ? b->test : "-", *x->reg.mode ? x->reg.mode : "processes",
		    x->reg.tasks ? x->reg.tasks : 1, w, d, m, b->placement);
}

/*
 * Steps a recipient runs on their own machine: nothing of this host in
 * them (no configuration path, no local repository, no var/): the public
 * tree, shas, the attached .config, a configuration written from the mail.
 */
static void add_reproduce(struct report *x)
{
	const char *rev = is_culprit(x) ? x->culprit.sha : x->reg.bad;
	const char *base = is_culprit(x) ? x->parent : x->reg.good;
	const char *url = public_url(x), *t = x->tree->name;
	const char *m = x->machine->name, *b = x->bench->name;

	fl_buf_adds(&x->b, "To reproduce:\n\n");
	if (url)
		fl_buf_addf(&x->b, "\tgit clone %s linux && cd linux\n", url);
	else
		fl_buf_addf(&x->b,
			    "\t# the tree '%s' has no public URL in faultline's configuration "
			    "(trees[].public_url):\n\t# clone it from where you know it\n",
			    t);
	if (!fl_machine_kernel(x->machine)) {
		char *cmd = shell_quote(x->machine->command);

		for (int k = 0; k < 2; k++) {
			fl_buf_addf(&x->b, "\tgit checkout --detach %s\n", k ? base : rev);
			fl_buf_addf(&x->b, "\tFAULTLINE_COMMIT=%s sh -c %s\n", k ? base : rev, cmd);
		}
		fl_buf_addf(&x->b,
			    "\t# or let faultline bisect it again in the clone:\n\tfaultline bisect "
			    "run --good %s --bad %s --direction %s --min-change %g --confidence %g -- "
			    "sh -c %s\n",
			    x->reg.good, x->reg.bad, x->bench->direction,
			    100 * x->cfg->regression.min_change, x->cfg->regression.confidence, cmd);
		free(cmd);
	} else {
		fl_buf_addf(&x->b, "\t# save the attached .config as %s\n", x->attach);
	}
	fl_buf_adds(&x->b, "\t# with faultline, from a configuration written from this mail:\n");
	add_repro_config(x, url);
	if (fl_machine_kernel(x->machine)) {
		for (int k = 0; k < 2; k++)
			fl_buf_addf(&x->b, "\tfaultline build --config repro.yaml --tree %s --rev %s\n",
				    t, k ? base : rev);
		for (int k = 0; k < 2; k++)
			fl_buf_addf(&x->b,
				    "\tfaultline run --config repro.yaml --machine %s --benchmark %s "
				    "--tree %s --rev %s --repeat %u\n",
				    m, b, t, k ? base : rev, x->bench->repeat);
		fl_buf_addf(&x->b,
			    "\tfaultline compare --config repro.yaml --a %s --b %s --benchmark %s "
			    "--machine %s\n",
			    base, rev, b, m);
		fl_buf_adds(&x->b, "\t# or the benchmark alone, on a machine booted into each "
				   "kernel (fl-agent is faultline's agent):\n");
		add_plain_bench(x);
	} else {
		fl_buf_addf(&x->b,
			    "\tfaultline try --config repro.yaml --tree %s --benchmark %s "
			    "--machine %s --base %s --rev %s\n",
			    t, b, m, base, rev);
	}
	fl_buf_adds(&x->b, "\n");
}

/* What was tested and what with: a tag and its baseline, or a head of a
 * branch and the last tested head (or its base), with how it was found; the
 * tree by the URL a recipient can clone. */
static void add_what(struct report *x)
{
	size_t n = x->reg.ref ? strlen(x->reg.ref) : 0;

	fl_buf_addf(&x->b, "tree:   %s (%s)\n", x->reg.tree,
		    public_url(x) ? public_url(x) : "no public URL");
	if (!is_head(x))
		fl_buf_addf(&x->b, "tags:   %s, compared with its baseline %s\n", x->reg.tag,
			    x->reg.baseline);
	else if (!strncmp(x->reg.baseline, x->reg.ref, n) && x->reg.baseline[n] == '@')
		fl_buf_addf(&x->b, "branch: %s at %.12s, compared with its last tested head %s\n",
			    x->reg.ref, x->reg.bad, x->reg.baseline);
	else
		fl_buf_addf(&x->b, "branch: %s at %.12s, compared with %s\n", x->reg.ref,
			    x->reg.bad, x->reg.baseline);
	if (x->reg.note && *x->reg.note)
		fl_buf_addf(&x->b, "        (%s)\n", x->reg.note);
	fl_buf_adds(&x->b, "\n");
}

/* The lines a fixer pastes into the fix, as the 0-day robot asks. */
static void add_tags(struct report *x)
{
	fl_buf_addf(&x->b,
		    "If you fix the issue in a separate patch/commit (i.e. not just a new version "
		    "of\nthe same patch/commit), kindly add following tags\n"
		    "| Reported-by: %s\n| Closes: %s/regression/%lld\n\n",
		    x->cfg->report.from, x->cfg->report.url, (long long)x->reg.id);
}

/* Hold mode: the operator reads whom it would have gone to. */
static void add_held(struct report *x)
{
	if (!x->held)
		return;
	fl_buf_adds(&x->b, "[held: report.routing is 'hold', so this went to the operator only. "
			   "With\n routing 'maintainers' it would have gone to:\n");
	for (const char *p = x->held; *p;) {
		size_t len = strcspn(p, "\n");

		if (len > 3)
			fl_buf_addf(&x->b, "   %s %.*s\n", !strncmp(p, "cc ", 3) ? "Cc:" : "To:",
				    (int)len - 3, p + 3);
		p += len + (p[len] == '\n');
	}
	fl_buf_adds(&x->b, "]\n\n");
}

/*
 * What the headline compares, the number of the subject and of every page
 * of the regression: the tag against its baseline, the comparison that found
 * it (its verdict, the most runs; known from the start, never changing). The
 * culprit against its parent, on the bisection's runs, is a second number,
 * said as such.
 */
static void add_headline(struct report *x, const char *metric)
{
	fl_buf_addf(
	    &x->b, "The headline %+.1f%% is the %s against its baseline: %s against %s, on %s",
	    x->reg.change, is_head(x) ? "head" : "tag", x->reg.tag, x->reg.baseline, metric);
	if (*x->reg.mode)
		fl_buf_addf(&x->b, " at %u task%s", x->reg.tasks, x->reg.tasks == 1 ? "" : "s");
	if (*x->reg.cgroup)
		fl_buf_addf(&x->b, " in a %s memory cgroup", x->reg.cgroup);
	fl_buf_addf(&x->b, " (p=%.2g over %zu + %zu runs), as every page of the regression says.\n",
		    x->reg.p, x->tag_base.set.n, x->tag_new.set.n);
	if (is_culprit(x) && isfinite(x->culprit_change))
		fl_buf_addf(
		    &x->b,
		    "The culprit against its parent: %+.1f%%, on the bisection's runs of the "
		    "two (%zu + %zu), on the same machine.\n",
		    x->culprit_change, x->c_parent.set.n, x->c_culprit.set.n);
	fl_buf_adds(&x->b, "\n");
}

static void add_body(struct report *x)
{
	char *metric = metric_name(x);
	const char *url = x->cfg->report.url;

	add_held(x);
	fl_buf_adds(&x->b, "Greeting,\n\n");
	if (is_culprit(x))
		fl_buf_addf(&x->b,
			    "FYI, faultline noticed a %+.1f%% %s of %s due to commit:\n\n"
			    "commit: %s (\"%s\")\nauthor: %s\n",
			    x->reg.change, what(x), metric, x->culprit.sha, x->culprit.subject,
			    x->culprit.author);
	else
		fl_buf_addf(&x->b,
			    "FYI, faultline noticed a %+.1f%% %s of %s between %s and %s;\n"
			    "the bisection did not single out one commit (%s).\n\n",
			    x->reg.change, what(x), metric, x->reg.baseline, x->reg.tag,
			    x->bis.result ? x->bis.result : "not finished");
	add_what(x);
	fl_buf_addf(&x->b, "in testcase: %s\n", x->reg.benchmark);
	add_machine(x);
	add_params(x);
	if (!is_improvement(x))
		add_tags(x);
	add_headline(x, metric);
	add_tables(x);
	add_locks(x);
	add_bisection(x);
	add_revert(x);
	add_reproduce(x);
	fl_buf_addf(&x->b, "Results:\n\n\t%s/regression/%lld\n\t%s/bisect/%lld\n\n", url,
		    (long long)x->reg.id, url, (long long)x->bis.id);
	fl_buf_adds(&x->b, "Replies to this mail may say, each on a line of its own:\n"
			   "  #faultline test <tree-or-git-url> <branch-or-sha>   measure a fix\n"
			   "  #faultline fix: <sha>     the commit that fixes it\n"
			   "  #faultline invalid        not a real regression\n"
			   "  #faultline dup: <id>      the same as regression <id>\n"
			   "  #faultline reopen         not fixed after all, or back\n\n");
	fl_buf_adds(&x->b, "-- \nfaultline, automated performance bisection\n");
	free(metric);
}

/*
 * The culprit subject's subsystem: its first "word:" prefix, "mm" of
 * "mm: memcontrol: use root_mem_cgroup res_counter"; NULL without one
 * (caller frees).
 */
char *fl_report_subsystem(const char *subject)
{
	size_t len = strcspn(subject, ": \t[]");

	if (!len || len > 40 || subject[len] != ':' || subject[len + 1] != ' ')
		return NULL;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)subject[i];

		if (!(c == '_' || c == '-' || c == '/' || c == '.' || c == ',' ||
		      (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			return NULL;
	}
	return fl_xstrndup(subject, len);
}

/* "[tree:branch]": the head's branch, or the branch the tree names; "[tree]"
 * for a tag of a tree that watches no branch. */
static char *tree_prefix(const struct report *x)
{
	const char *branch = is_head(x) ? x->reg.ref : x->tree->branch;

	return branch ? fl_xasprintf("[%s:%s]", x->reg.tree, branch)
		      : fl_xasprintf("[%s]", x->reg.tree);
}

/* [tree:branch] [subsystem] sha10: benchmark.metric -N% regression */
static char *subject(const struct report *x)
{
	char *metric = metric_name(x), *where = tree_prefix(x), *s;

	if (is_culprit(x)) {
		char *sub = fl_report_subsystem(x->culprit.subject);
		char *tag = sub ? fl_xasprintf("[%s] ", sub) : fl_xstrdup("");

		s = fl_xasprintf("%s %s%.10s: %s %+.1f%% %s", where, tag, x->culprit.sha, metric,
				 x->reg.change, what(x));
		free(tag);
		free(sub);
	} else {
		s = fl_xasprintf("%s %s %+.1f%% %s since %s (%s)", where, metric, x->reg.change,
				 what(x), x->reg.baseline, x->reg.tag);
	}
	free(where);
	free(metric);
	return s;
}

static void release(struct report *x)
{
	fl_regression_release(&x->reg);
	fl_bisection_row_release(&x->bis);
	json_decref(x->summary);
	fl_revert_release(&x->rv);
	fl_repo_commit_release(&x->culprit);
	fl_comparison_free(x->tags);
	fl_comparison_free(x->culprit_cmp);
	fl_cmp_side_release(&x->tag_base);
	fl_cmp_side_release(&x->tag_new);
	fl_cmp_side_release(&x->c_parent);
	fl_cmp_side_release(&x->c_culprit);
	fl_cmp_side_release(&x->r_base);
	fl_cmp_side_release(&x->r_bad);
	fl_cmp_side_release(&x->r_revert);
	free(x->kconfig);
	free(x->compiler);
	free(x->config_text);
	fl_buf_free(&x->b);
}

/* What a report step stores: the text, its recipients, the attachment. */
struct rendered {
	char *subject, *body, *recipients, *held, *attach_name, *attach;
};

static int render(struct fl_service *svc, fl_store *st, int64_t regression_id, int route,
		  struct rendered *out)
{
	struct report x = {.svc = svc, .st = st, .cfg = svc->cfg, .b = FL_BUF_INIT};
	int r;

	memset(out, 0, sizeof(*out));
	if (!(r = gather(&x, regression_id))) {
		if (route)
			fl_route_report(x.cfg, x.tree, x.repo, is_culprit(&x) ? x.culprit.sha : NULL,
					&out->recipients, &out->held);
		x.held = out->held;
		add_body(&x);
		out->subject = subject(&x);
		out->body = fl_buf_detach(&x.b);
		if (x.config_text) {
			out->attach_name = fl_xstrdup(x.attach);
			out->attach = x.config_text;
			x.config_text = NULL;
		}
	}
	release(&x);
	return r;
}

static void rendered_free(struct rendered *o)
{
	free(o->subject);
	free(o->body);
	free(o->recipients);
	free(o->held);
	free(o->attach_name);
	free(o->attach);
}

int fl_report_render(struct fl_service *svc, fl_store *st, int64_t regression_id, char **subj,
		     char **body)
{
	struct rendered o;
	int r = render(svc, st, regression_id, 0, &o);

	*subj = o.subject;
	*body = o.body;
	o.subject = o.body = NULL;
	rendered_free(&o);
	return r;
}

/* ---- the report step --------------------------------------------------- */

char *fl_report_mail_domain(const struct fl_config *cfg)
{
	const char *at = cfg->report.from ? strrchr(cfg->report.from, '@') : NULL;
	size_t len = at ? strcspn(at + 1, ">") : 0;

	return len ? fl_xstrndup(at + 1, len) : fl_xstrdup("localhost");
}

int fl_report_step(void *ctx, fl_store *st, const struct fl_job *job)
{
	struct fl_service *svc = ctx;
	char *domain = fl_report_mail_domain(svc->cfg), *mid;
	struct rendered o;
	int64_t id;
	int r;

	if ((r = render(svc, st, job->regression_id, 1, &o))) {
		free(domain);
		return r;
	}
	mid = fl_mail_message_id("regression", (long long)job->regression_id, domain);
	if (!(r = fl_store_tx_begin(st))) {
		r = fl_store_report_add_with(
		    st,
		    &(struct fl_report_new){.regression_id = job->regression_id,
					    .message_id = mid,
					    .subject = o.subject,
					    .body = o.body},
		    &(struct fl_report_extra){.recipients = o.recipients,
					      .held = o.held,
					      .attach_name = o.attach_name,
					      .attach = o.attach},
		    &id);
		fl_crashpoint("report-store");
		if (!r)
			r = fl_job_set(st, job->id, FL_STATE_DONE, "stored", NULL);
		if (!r)
			r = fl_store_tx_commit(st);
		if (r)
			fl_store_tx_rollback(st);
		else
			fl_info("report: regression %lld: report %lld stored: %s",
				(long long)job->regression_id, (long long)id, o.subject);
	}
	free(mid);
	rendered_free(&o);
	free(domain);
	return r;
}
