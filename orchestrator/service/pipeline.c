/*
 * service/pipeline.c - the table of the pipeline's job kinds and the words
 * of its results (see pipeline.h).
 */
#include "service/pipeline.h"
#include "config/config.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/log.h"
#include "service/service.h"

#include <stdlib.h>
#include <string.h>

static char *compare_key(const struct fl_job_kind_info *k, const struct fl_job_spec *s)
{
	return fl_xasprintf("%s:%lld:%s:%s", k->name, (long long)s->tag_id, s->benchmark,
			    s->machine);
}

static char *regression_key(const struct fl_job_kind_info *k, const struct fl_job_spec *s)
{
	return fl_xasprintf("%s:%lld", k->name, (long long)s->regression_id);
}

static char *try_key(const struct fl_job_kind_info *k, const struct fl_job_spec *s)
{
	return fl_xasprintf("%s:%lld", k->name, (long long)s->try_id);
}

static char *run_key(const struct fl_job_kind_info *k, const struct fl_job_spec *s)
{
	if (s->bisection_id)
		return fl_xasprintf("%s:bisection:%lld:%d:%s", k->name, (long long)s->bisection_id,
				    s->seq, s->rev);
	return fl_xasprintf("%s:%s:%lld:%d", k->name, s->from->kind, (long long)s->from->id,
			    s->seq);
}

static const struct fl_job_kind_info kinds[FL_JOB_NKINDS] = {
    [FL_JOB_COMPARE] = {.name = "compare",
			.step = fl_detect_step,
			.next = {FL_JOB_BISECT, FL_JOB_RUN},
			.nnext = 2,
			.about = FL_ABOUT_TAG,
			.rounds = 1,
			.entry = 1,
			.key = compare_key},
    [FL_JOB_BISECT] = {.name = "bisect",
		       .step = fl_autobisect_step,
		       .next = {FL_JOB_REVERT, FL_JOB_REPORT, FL_JOB_RUN},
		       .nnext = 3,
		       .about = FL_ABOUT_REGRESSION,
		       .key = regression_key},
    [FL_JOB_REVERT] = {.name = "revert",
		       .step = fl_revert_step,
		       .next = {FL_JOB_REPORT, FL_JOB_RUN},
		       .nnext = 2,
		       .about = FL_ABOUT_REGRESSION,
		       .rounds = 1,
		       .key = regression_key},
    [FL_JOB_REPORT] = {.name = "report",
		       .step = fl_report_step,
		       .about = FL_ABOUT_REGRESSION,
		       .key = regression_key},
    [FL_JOB_TRY] = {.name = "try",
		    .step = fl_try_step,
		    .next = {FL_JOB_RUN},
		    .nnext = 1,
		    .about = FL_ABOUT_TRY,
		    .rounds = 1,
		    .entry = 1,
		    .key = try_key},
    [FL_JOB_RUN] = {.name = "run", .about = FL_ABOUT_PARENT, .key = run_key},
};

const struct fl_job_kind_info *fl_job_kind_info(enum fl_job_kind k)
{
	return &kinds[k];
}

const char *fl_job_kind_name(enum fl_job_kind k)
{
	return kinds[k].name;
}

int fl_job_kind_parse(const char *name, enum fl_job_kind *k)
{
	fl_buf all = FL_BUF_INIT;
	int r;

	for (size_t i = 0; i < FL_JOB_NKINDS; i++)
		if (name && !strcmp(name, kinds[i].name)) {
			*k = (enum fl_job_kind)i;
			return 0;
		}
	for (size_t i = 0; i < FL_JOB_NKINDS; i++)
		fl_buf_addf(&all, "%s%s", i ? ", " : "", kinds[i].name);
	r = fl_error_set(FL_EINVAL, "no job kind '%s' (kinds: %s)", name ? name : "", all.ptr);
	fl_buf_free(&all);
	return r;
}

int fl_job_kind_is(const char *name, enum fl_job_kind k)
{
	return name && !strcmp(name, kinds[k].name);
}

int fl_job_kind_follows(const struct fl_job *from, enum fl_job_kind to)
{
	enum fl_job_kind f;

	if (!from)
		return kinds[to].entry;
	for (f = 0; f < FL_JOB_NKINDS && !fl_job_kind_is(from->kind, f); f++)
		;
	for (size_t i = 0; f < FL_JOB_NKINDS && i < kinds[f].nnext; i++)
		if (kinds[f].next[i] == to)
			return 1;
	return 0;
}

/* The spec with what a job takes from the one adding it. */
static struct fl_job_spec inherit(const struct fl_job_spec *s)
{
	struct fl_job_spec out = *s;

	if (!s->from)
		return out;
	out.tree = s->tree ? s->tree : s->from->tree;
	out.machine = s->machine ? s->machine : s->from->machine;
	out.benchmark = s->benchmark ? s->benchmark : s->from->benchmark;
	out.regression_id = s->regression_id ? s->regression_id : s->from->regression_id;
	return out;
}

char *fl_job_key(enum fl_job_kind kind, const struct fl_job_spec *s)
{
	struct fl_job_spec full = inherit(s);

	return kinds[kind].key(&kinds[kind], &full);
}

int fl_service_enqueue(fl_store *st, enum fl_job_kind kind, const struct fl_job_spec *spec,
		       int64_t *id)
{
	const struct fl_job_kind_info *k = &kinds[kind];
	struct fl_job_spec s = inherit(spec);
	struct fl_job_new j = {.kind = k->name,
			       .state = fl_job_state_name(FL_STATE_QUEUED),
			       .tree = s.tree,
			       .machine = s.machine,
			       .benchmark = s.benchmark,
			       .round = FL_JOB_NO_ROUND};
	int r;

	if (!fl_job_kind_follows(spec->from, kind))
		return fl_error_set(FL_EINVAL, "a %s job does not come after %s", k->name,
				    spec->from ? spec->from->kind : "the trigger");
	if (k->about == FL_ABOUT_TAG)
		j.tag_id = s.tag_id;
	else if (k->about == FL_ABOUT_REGRESSION)
		j.regression_id = s.regression_id;
	else if (k->about == FL_ABOUT_TRY) {
		j.try_id = s.try_id;
		j.regression_id = s.regression_id;
	} else {
		j.parent_id = s.from->id;
		j.rev = s.rev;
		j.role = s.role;
		j.seq = s.seq;
		j.point = s.point;
		j.round = s.bisection_id ? FL_JOB_NO_ROUND : (int)s.round;
	}
	if ((r = fl_store_job_kinds_add(st, &k->name, 1)))
		return r;
	j.key = k->key(k, &s);
	r = fl_store_job_add(st, &j, id, NULL);
	free((char *)j.key);
	return r;
}

int fl_service_job_find(fl_store *st, enum fl_job_kind kind, const struct fl_job_spec *s,
			struct fl_job *out)
{
	char *key = fl_job_key(kind, s);
	int r = fl_store_job_find(st, key, out);

	free(key);
	return r;
}

int fl_pipeline_register(fl_store *st)
{
	const char *names[FL_JOB_NKINDS];

	for (size_t k = 0; k < FL_JOB_NKINDS; k++)
		names[k] = kinds[k].name;
	return fl_store_job_kinds_add(st, names, FL_JOB_NKINDS);
}

/* The run jobs of kind's jobs of benchmark b stored before rounds were, numbered
 * the way rounds were counted then: seq / (sides x repeat). */
static int number_rounds(fl_store *st, const char *kind, const struct fl_benchmark_conf *b,
			 unsigned *numbered)
{
	int repeat = b->repeat ? (int)b->repeat : 1, r;
	struct fl_job_unnumbered *u;
	size_t n;

	if ((r = fl_store_jobs_unnumbered(st, kind, b->name, &u, &n)))
		return r;
	for (size_t i = 0; i < n && !r; i++)
		r = fl_store_job_set_round(st, u[i].id, u[i].seq / (repeat * u[i].sides));
	free(u);
	*numbered += r ? 0 : (unsigned)n;
	return r;
}

int fl_pipeline_prepare(fl_store *st, const struct fl_config *cfg)
{
	unsigned numbered = 0;
	int r;

	if ((r = fl_store_tx_begin(st)))
		return r;
	r = fl_pipeline_register(st);
	for (size_t k = 0; k < FL_JOB_NKINDS && !r; k++)
		for (size_t b = 0; kinds[k].rounds && b < cfg->nbenchmarks && !r; b++)
			r = number_rounds(st, kinds[k].name, &cfg->benchmarks[b], &numbered);
	if (!r)
		r = fl_store_tx_commit(st);
	if (r) {
		fl_store_tx_rollback(st);
		return r;
	}
	if (numbered)
		fl_info("queue: %u run jobs from before rounds were stored: numbered into rounds",
			numbered);
	return 0;
}

/* ---- a job's states ---- */

static const struct {
	const char *name;
	int ended;
} states[] = {
    [FL_STATE_QUEUED] = {"queued", 0},	 [FL_STATE_RUNNING] = {"running", 0},
    [FL_STATE_WAITING] = {"waiting", 0}, [FL_STATE_DONE] = {"done", 1},
    [FL_STATE_FAILED] = {"failed", 1},
};

const char *fl_job_state_name(enum fl_job_state s)
{
	return states[s].name;
}

int fl_job_state_parse(const char *name, enum fl_job_state *s)
{
	fl_buf names = FL_BUF_INIT;

	for (size_t i = 0; i < FL_JOB_NSTATES; i++)
		if (name && !strcmp(name, states[i].name)) {
			*s = (enum fl_job_state)i;
			return 0;
		}
	for (size_t i = 0; i < FL_JOB_NSTATES; i++)
		fl_buf_addf(&names, "%s%s", i ? ", " : "", states[i].name);
	fl_error_set(FL_EINVAL, "no job state '%s' (there are %s)", name ? name : "", names.ptr);
	fl_buf_free(&names);
	return FL_EINVAL;
}

int fl_job_state_ended(enum fl_job_state s)
{
	return states[s].ended;
}

int fl_job_is(const char *state, enum fl_job_state s)
{
	return state && !strcmp(state, states[s].name);
}

int fl_job_ended(const char *state)
{
	enum fl_job_state s;

	if (fl_job_state_parse(state, &s)) {
		fl_error_clear();
		return 0;
	}
	return states[s].ended;
}

int fl_job_set(fl_store *st, int64_t id, enum fl_job_state s, const char *result, const char *error)
{
	return fl_store_job_set(st, id, states[s].name, states[s].ended, result, error);
}

int fl_job_wait(fl_store *st, int64_t id)
{
	return fl_store_job_wait(st, id, states[FL_STATE_WAITING].name,
				 states[FL_STATE_QUEUED].name);
}

int fl_job_wake_parent(fl_store *st, int64_t id)
{
	return fl_store_job_wake_parent(st, id, states[FL_STATE_WAITING].name,
					states[FL_STATE_QUEUED].name);
}

int fl_job_counts(fl_store *st, int ended, struct fl_job_counts *c)
{
	const char *names[FL_JOB_NSTATES];
	size_t k = 0, counted[FL_JOB_NSTATES] = {0}, n[FL_JOB_NSTATES] = {0};
	enum fl_job_state of[FL_JOB_NSTATES];
	int r;

	for (size_t i = 0; i < FL_JOB_NSTATES; i++)
		if (ended || !states[i].ended) {
			of[k] = (enum fl_job_state)i;
			names[k++] = states[i].name;
		}
	r = fl_store_jobs_counts(st, names, k, counted);
	for (size_t i = 0; i < k; i++)
		n[of[i]] = counted[i];
	*c = (struct fl_job_counts){n[FL_STATE_QUEUED], n[FL_STATE_RUNNING], n[FL_STATE_WAITING],
				    n[FL_STATE_DONE], n[FL_STATE_FAILED]};
	return r;
}

/* ---- words ---- */

/* decides: a job of that class shows the largest change among rows of it */
static const struct {
	enum fl_cmp_class cls;
	const char *name, *word;
	int decides;
} classes[] = {
    {FL_CMP_REGRESSION, "regression", "worse", 1},
    {FL_CMP_IMPROVEMENT, "improvement", "better", 1},
    {FL_CMP_SAME, "same", "same", 0},
    {FL_CMP_UNCLEAR, "unclear", "unclear", 0},
};

#define NCLASSES (sizeof(classes) / sizeof(classes[0]))

static size_t class_index(enum fl_cmp_class c)
{
	size_t i = 0;

	while (i < NCLASSES - 1 && classes[i].cls != c)
		i++;
	return i; /* the last, unclear, for a value that is no class */
}

const char *fl_class_name(enum fl_cmp_class c)
{
	return classes[class_index(c)].name;
}

const char *fl_class_word(enum fl_cmp_class c)
{
	return classes[class_index(c)].word;
}

int fl_class_parse(const char *name, enum fl_cmp_class *c)
{
	for (size_t i = 0; name && i < NCLASSES; i++)
		if (!strcmp(name, classes[i].name)) {
			*c = classes[i].cls;
			return 0;
		}
	return fl_error_set(FL_EINVAL, "no comparison class '%s'", name ? name : "");
}

const char *fl_class_name_word(const char *name)
{
	enum fl_cmp_class c = FL_CMP_UNCLEAR;

	return fl_class_parse(name, &c) ? name : fl_class_word(c);
}

int fl_class_decides(const char *name)
{
	enum fl_cmp_class c = FL_CMP_UNCLEAR;

	return !fl_class_parse(name, &c) && classes[class_index(c)].decides;
}

const char *fl_verdict_word(const char *state, const char *result)
{
	if (fl_job_is(state, FL_STATE_FAILED))
		return "failed";
	if (!fl_job_is(state, FL_STATE_DONE))
		return "running";
	return result ? fl_class_name_word(result) : fl_class_word(FL_CMP_UNCLEAR);
}

static const char *const roles[] = {
    [FL_ROLE_BASE] = "base", [FL_ROLE_NEW] = "new",	  [FL_ROLE_BISECT] = "bisect",
    [FL_ROLE_BAD] = "bad",   [FL_ROLE_REVERT] = "revert", [FL_ROLE_FIX] = "fix",
};

const char *fl_role_name(enum fl_run_role r)
{
	return roles[r];
}

const char *fl_role_word(const struct fl_job *run)
{
	/* a try's runs: run_key's "run:try:ID:SEQ" */
	char *try_runs = fl_xasprintf("%s:%s:", kinds[FL_JOB_RUN].name, kinds[FL_JOB_TRY].name);
	int of_try = run->key && !strncmp(run->key, try_runs, strlen(try_runs));

	free(try_runs);
	if (of_try && !strcmp(run->role, roles[FL_ROLE_BAD]))
		return "base";
	if (of_try && !strcmp(run->role, roles[FL_ROLE_BASE]))
		return "good";
	return run->role;
}

int fl_role_traces_locks(const char *role)
{
	return !role || strcmp(role, roles[FL_ROLE_BISECT]) != 0;
}

static const char *const revert_verdicts[] = {
    [FL_REVERT_RESTORES] = "restores",	   [FL_REVERT_PARTIAL] = "partial",
    [FL_REVERT_NO_EFFECT] = "no-effect",   [FL_REVERT_UNCLEAR] = "unclear",
    [FL_REVERT_UNTESTABLE] = "untestable",
};

const char *fl_revert_verdict_name(enum fl_revert_verdict v)
{
	return revert_verdicts[v];
}

int fl_revert_verdict_parse(const char *name, enum fl_revert_verdict *v)
{
	for (size_t i = 0; name && i < sizeof(revert_verdicts) / sizeof(revert_verdicts[0]); i++)
		if (!strcmp(name, revert_verdicts[i])) {
			*v = (enum fl_revert_verdict)i;
			return 0;
		}
	return fl_error_set(FL_EINVAL, "no revert verdict '%s'", name ? name : "");
}

static const struct {
	const char *name, *words;
} try_verdicts[FL_TRY_NVERDICTS] = {
    [FL_TRY_RESTORES] = {"restores", "restores the throughput"},
    [FL_TRY_PARTIAL] = {"partial", "partly restores the throughput"},
    [FL_TRY_NO_EFFECT] = {"no-effect", "has no effect"},
    [FL_TRY_WORSE] = {"worse", "makes it worse"},
    [FL_TRY_BETTER] = {"better", "makes it better"},
    [FL_TRY_UNCLEAR] = {"unclear", "gives no clear answer"},
    [FL_TRY_UNTESTABLE] = {"untestable", "could not be measured"},
    [FL_TRY_CONFLICT] = {"conflict", "does not apply"},
    [FL_TRY_ERROR] = {"error", "could not be tried"},
};

const char *fl_try_verdict_name(enum fl_try_verdict v)
{
	return try_verdicts[v].name;
}

const char *fl_try_verdict_words(enum fl_try_verdict v)
{
	return try_verdicts[v].words;
}

int fl_try_verdict_parse(const char *name, enum fl_try_verdict *v)
{
	for (size_t i = 0; name && i < FL_TRY_NVERDICTS; i++)
		if (!strcmp(name, try_verdicts[i].name)) {
			*v = (enum fl_try_verdict)i;
			return 0;
		}
	return fl_error_set(FL_EINVAL, "no try verdict '%s'", name ? name : "");
}
