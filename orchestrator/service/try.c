/*
 * service/try.c - a patch applied with libgit2, and the try step of the
 * watch service (see try.h).
 */
#include "service/try.h"
#include "service/triage.h"
#include "config/config.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/log.h"
#include "service/measure.h"
#include "service/pipeline.h"
#include "service/report.h"
#include "service/service.h"
#include "store/try.h"
#include "store/watch.h"
#include "lib/mail.h"

#include <git2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *git_msg(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

/* ---- a patch series -------------------------------------------------- */

/* One message of a series: its subject, message and diff (views into the text). */
struct message {
	char *subject, *body; /* owned */
	const char *diff;
	size_t diff_len;
	int plain; /* a diff -u or quilt diff: "--- " and "+++ " lines, no "diff --git" */
};

static int starts(const char *line, const char *word)
{
	return !strncmp(line, word, strlen(word));
}

/* The line after p, or end. */
static const char *next_line(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl + 1 : end;
}

/* "[PATCH 2/3] mm: x" -> "mm: x", folded header lines joined. */
static char *read_subject(const char *hdr, const char *end)
{
	fl_buf b = FL_BUF_INIT;
	const char *p = hdr + strlen("Subject: ");
	char *s;

	for (;;) {
		size_t len = strcspn(p, "\n");

		fl_buf_add(&b, p, len);
		p += len + (p[len] == '\n');
		if (p >= end || (*p != ' ' && *p != '\t'))
			break;
		while (*p == ' ' || *p == '\t')
			p++;
		fl_buf_adds(&b, " ");
	}
	s = fl_buf_detach(&b);
	if (s[0] == '[' && strchr(s, ']')) {
		char *rest = strchr(s, ']') + 1;

		while (*rest == ' ')
			rest++;
		memmove(s, rest, strlen(rest) + 1);
	}
	return s;
}

/* A message from text[0..len): headers, the message up to "---", the diff. */
static void read_message(const char *text, size_t len, struct message *m)
{
	const char *end = text + len, *p = text, *diff = NULL, *body = NULL, *body_end = NULL;

	memset(m, 0, sizeof(*m));
	for (; p < end; p = next_line(p, end)) {
		if (!body && !m->subject && starts(p, "Subject: "))
			m->subject = read_subject(p, end);
		else if (!body && *p == '\n')
			body = p + 1;
		else if (body && !body_end && (starts(p, "---\n") || starts(p, "diff --git ")))
			body_end = p;
		if (starts(p, "diff --git ")) {
			diff = p;
			break;
		}
	}
	for (p = text; !diff && p < end; p = next_line(p, end)) {
		if (starts(p, "--- ") && starts(next_line(p, end), "+++ ")) {
			diff = p;
			m->plain = 1;
		}
	}
	if (body && body_end && body_end > body)
		m->body = fl_xstrndup(body, (size_t)(body_end - body));
	m->diff = diff;
	m->diff_len = diff ? (size_t)(end - diff) : 0;
	/* format-patch's signature ("-- \n2.39.5\n") is no part of the diff */
	for (const char *s = diff; s && s < end; s = next_line(s, end)) {
		if (starts(s, "-- \n")) {
			m->diff_len = (size_t)(s - diff);
			break;
		}
	}
}

/* The messages of a format-patch series ("From <sha> Mon Sep 17 ..." lines), or the text as one. */
static size_t split_series(const char *text, struct message **out)
{
	size_t n = 0, cap = 4, len = strlen(text);
	const char *start = text;
	struct message *v = fl_xcalloc(cap, sizeof(*v));

	for (const char *p = text; p && *p;) {
		const char *next = strchr(p, '\n');

		next = next ? next + 1 : NULL;
		if (p != start && starts(p, "From ") && strlen(p) > 46 && p[45] == ' ') {
			if (n == cap)
				v = fl_xrealloc(v, (cap *= 2) * sizeof(*v));
			read_message(start, (size_t)(p - start), &v[n++]);
			start = p;
		}
		p = next;
	}
	if (n == cap)
		v = fl_xrealloc(v, (cap + 1) * sizeof(*v));
	read_message(start, (size_t)(text + len - start), &v[n++]);
	*out = v;
	return n;
}

static void free_series(struct message *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].subject);
		free(v[i].body);
	}
	free(v);
}

/* The path of a "--- " or "+++ " line as git applies it (-p1): "a/mm/x.c\t2024-.." -> "mm/x.c". */
static char *plain_path(const char *line, const char *end)
{
	const char *p = line + 4, *e = p, *slash;

	while (e < end && *e != '\n' && *e != '\t')
		e++;
	while (e > p && e[-1] == ' ')
		e--;
	if ((size_t)(e - p) == strlen("/dev/null") && !strncmp(p, "/dev/null", (size_t)(e - p)))
		return NULL;
	slash = memchr(p, '/', (size_t)(e - p));
	if (slash)
		p = slash + 1;
	return fl_xstrndup(p, (size_t)(e - p));
}

/*
 * A plain diff with the "diff --git" line libgit2's parser needs in front of
 * each file, named from its "+++ " line (its "--- " line for a removal),
 * with the timestamps diff -u puts after a tab dropped.
 */
static char *git_headers(const char *diff, size_t len)
{
	const char *end = diff + len;
	fl_buf b = FL_BUF_INIT;

	for (const char *p = diff; p < end;) {
		const char *next = next_line(p, end), *after;

		if (starts(p, "--- ") && next < end && starts(next, "+++ ")) {
			char *from = plain_path(p, end), *to = plain_path(next, end);
			const char *path = to ? to : from;

			after = next_line(next, end);
			if (path) {
				fl_buf_addf(&b, "diff --git a/%s b/%s\n", path, path);
				if (!from || !to)
					fl_buf_addf(&b, "%s file mode 100644\n", from ? "deleted" : "new");
				if (from)
					fl_buf_addf(&b, "--- a/%s\n", path);
				else
					fl_buf_adds(&b, "--- /dev/null\n");
				if (to)
					fl_buf_addf(&b, "+++ b/%s\n", path);
				else
					fl_buf_adds(&b, "+++ /dev/null\n");
			} else {
				fl_buf_add(&b, p, (size_t)(after - p));
			}
			free(from);
			free(to);
			p = after;
			continue;
		}
		fl_buf_add(&b, p, (size_t)(next - p));
		p = next;
	}
	return fl_buf_detach(&b);
}

/* Which file and hunk libgit2 was applying when it gave up. */
struct apply_at {
	char path[512];
	int hunk;
	char header[128];
};

static int on_delta(const git_diff_delta *d, void *payload)
{
	struct apply_at *a = payload;

	snprintf(a->path, sizeof(a->path), "%s",
		 d->new_file.path ? d->new_file.path : d->old_file.path);
	a->hunk = 0;
	a->header[0] = '\0';
	return 0;
}

static int on_hunk(const git_diff_hunk *h, void *payload)
{
	struct apply_at *a = payload;
	size_t len = strcspn(h->header, "\n");

	a->hunk++;
	snprintf(a->header, sizeof(a->header), "%.*s", (int)(len < 120 ? len : 120), h->header);
	return 0;
}

/* One message as a commit on *parent, which becomes it. 1: does not apply. */
static int apply_one(git_repository *git, const struct message *m, const char *name, size_t k,
		     size_t n, git_commit **parent, char **where)
{
	const git_signature *when = git_commit_committer(*parent);
	git_apply_options opts;
	struct apply_at at = {"", 0, ""};
	git_diff *diff = NULL;
	git_tree *tree = NULL, *out_tree = NULL;
	git_index *index = NULL;
	git_signature *sig = NULL;
	git_commit *next = NULL;
	git_oid tree_oid, oid;
	char *msg = NULL, *plain = NULL, *what;
	int r = 0;

	what = n > 1 ? fl_xasprintf("%s: message %zu of %zu ('%s')", name, k + 1, n,
				    m->subject ? m->subject : "")
		     : fl_xstrdup(name);
	git_apply_options_init(&opts, GIT_APPLY_OPTIONS_VERSION);
	opts.delta_cb = on_delta;
	opts.hunk_cb = on_hunk;
	opts.payload = &at;
	if (!m->diff) {
		r = fl_error_set(FL_EINVAL, "%s: no diff in it", what);
		goto out;
	}
	if (m->plain)
		plain = git_headers(m->diff, m->diff_len);
	if (git_diff_from_buffer(&diff, plain ? plain : m->diff,
				 plain ? strlen(plain) : m->diff_len)) {
		r = fl_error_set(FL_EINVAL, "%s: not a diff libgit2 can read: %s", what, git_msg());
		goto out;
	}
	if (git_commit_tree(&tree, *parent)) {
		r = fl_error_set(FL_EIO, "%s: %s", what, git_msg());
		goto out;
	}
	if (git_apply_to_tree(&index, git, tree, diff, &opts)) {
		if (at.hunk)
			*where = fl_xasprintf("%s: %s: hunk %d (%s) does not apply", what, at.path,
					      at.hunk, at.header);
		else
			*where = fl_xasprintf("%s: %s: does not apply (%s)", what,
					      *at.path ? at.path : "?", git_msg());
		r = 1;
		goto out;
	}
	msg = fl_xasprintf("%s\n\n%s%sApplied by faultline to measure it.\n",
			   m->subject ? m->subject : name, m->body ? m->body : "",
			   m->body ? "\n" : "");
	if (git_index_write_tree_to(&tree_oid, index, git) ||
	    git_tree_lookup(&out_tree, git, &tree_oid) ||
	    git_signature_new(&sig, "faultline", "faultline@localhost", when->when.time, 0) ||
	    git_commit_create(&oid, git, NULL, sig, sig, "UTF-8", msg, out_tree, 1,
			      (const git_commit **)parent) ||
	    git_commit_lookup(&next, git, &oid)) {
		r = fl_error_set(FL_EIO, "%s: cannot write the commit: %s", what, git_msg());
		goto out;
	}
	git_commit_free(*parent);
	*parent = next;
out:
	free(msg);
	free(plain);
	free(what);
	git_signature_free(sig);
	git_tree_free(out_tree);
	git_index_free(index);
	git_tree_free(tree);
	git_diff_free(diff);
	return r;
}

int fl_try_apply(fl_repo *repo, const char *onto, const char *patch, const char *name,
		 const char *ref, char sha[41], char **subject, char **where)
{
	git_repository *git = fl_repo_git(repo);
	git_commit *at = NULL;
	git_reference *out = NULL;
	struct message *msgs;
	size_t n = split_series(patch, &msgs);
	git_oid oid;
	int r = 0;

	*subject = *where = NULL;
	if (git_oid_fromstr(&oid, onto) || git_commit_lookup(&at, git, &oid)) {
		free_series(msgs, n);
		return fl_error_set(FL_ENOTFOUND, "tree '%s': no commit %s: %s", fl_repo_name(repo),
				    onto, git_msg());
	}
	for (size_t k = 0; k < n && !r; k++)
		r = apply_one(git, &msgs[k], name, k, n, &at, where);
	if (!r && git_reference_create(&out, git, ref, git_commit_id(at), 1, "faultline: try"))
		r = fl_error_set(FL_EIO, "tree '%s': cannot write %s: %s", fl_repo_name(repo), ref,
				 git_msg());
	if (!r) {
		git_oid_tostr(sha, 41, git_commit_id(at));
		*subject = fl_xstrdup(git_commit_summary(at));
	}
	git_reference_free(out);
	git_commit_free(at);
	free_series(msgs, n);
	return r;
}

/* ---- the try step ------------------------------------------------------ */

struct
try {
	struct fl_service *svc;
	fl_store *st;
	const struct fl_job *job;
	const struct fl_benchmark_conf *bench;
	struct fl_try t;
	struct fl_regression reg; /* reg.id 0: a try for no regression */
	fl_repo *repo;
	int64_t tree_id, machine_id, base_commit, good_commit, fix_commit;
	int regression_stays; /* no effect: still below the good commit (regression_verdict) */
};

/* The candidate, made once and kept in the store. */
static int make_candidate(struct try *x)
{
	char sha[41] = "", *subject = NULL, *where = NULL, *ref;
	struct fl_repo_commit c;
	int r;

	if (strcmp(x->t.state, "queued"))
		return 0;
	ref = fl_xasprintf("refs/faultline/try/%lld", (long long)x->t.id);
	if (x->t.rev_sha) {
		if (!(r = fl_repo_commit(x->repo, x->t.rev_sha, &c))) {
			r = fl_store_try_candidate(x->st, x->t.id, "applied", c.sha, NULL,
						   c.subject, NULL, NULL);
			fl_repo_commit_release(&c);
		}
	} else {
		r = fl_try_apply(x->repo, x->t.base_sha, x->t.patch, x->t.patch_name, ref, sha,
				 &subject, &where);
		if (r == 0)
			fl_info("try %lld: %s applied on %.12s as %.12s (%s)", (long long)x->t.id,
				x->t.patch_name, x->t.base_sha, sha, ref);
		else if (r == 1)
			fl_info("try %lld: %s", (long long)x->t.id, where);
		else
			fl_warn("try %lld: %s", (long long)x->t.id, fl_error_last());
		r = fl_store_try_candidate(x->st, x->t.id,
					   r == 0   ? "applied"
					   : r == 1 ? "conflict"
						    : "error",
					   r == 0 ? sha : NULL, r == 0 ? ref : NULL, subject, where,
					   r < 0 ? fl_error_last() : NULL);
	}
	free(subject);
	free(where);
	free(ref);
	if (!r) {
		fl_try_release(&x->t);
		r = fl_store_try_get(x->st, x->job->try_id, &x->t);
	}
	return r;
}

/* ---- the reply ---- */

static void add_row(fl_buf *b, const char *label, const struct fl_cmp_row *row)
{
	if (!row || !row->base.n || !row->new_.n)
		return;
	fl_buf_addf(b, "  fix against %-18s %+7.1f%%  (%.0f -> %.0f, %s, p=%.2g, %zu + %zu runs)\n",
		    label, row->change, row->base.value, row->new_.value, fl_class_name(row->cls),
		    row->p, row->base.n, row->new_.n);
}

/* The answer as text: what was tried, the verdict, the figures. */
static char *render(struct try *x, enum fl_try_verdict v, const struct fl_cmp_row *vs_base,
		    const struct fl_cmp_row *vs_good, const struct fl_comparison *c)
{
	fl_buf b = FL_BUF_INIT;
	char *point = NULL;

	if (x->reg.id) {
		struct fl_point p = {x->reg.metric, x->reg.mode, x->reg.tasks, x->reg.cgroup};

		point = fl_point_name(x->reg.benchmark, &p, 1);
		fl_buf_addf(&b,
			    "faultline tried a proposed fix for regression %lld (%s %+.1f%% at %s "
			    "against %s, %s on %s).\n\n",
			    (long long)x->reg.id, point, x->reg.change, x->reg.tag, x->reg.baseline,
			    x->reg.benchmark, x->reg.machine);
	} else {
		fl_buf_addf(&b, "faultline tried a proposed fix (%s on %s).\n\n", x->t.benchmark,
			    x->t.machine);
	}
	if (x->t.patch_name)
		fl_buf_addf(&b, "patch:   %s\n", x->t.patch_name);
	/* the words the log's runs use too (fl_role_word): base, fix, good */
	fl_buf_addf(&b, "base:    %.12s%s\n", x->t.base_sha,
		    x->reg.id && x->reg.bad && !strcmp(x->t.base_sha, x->reg.bad)
			? " (the regression's bad commit, the fix's base)"
			: " (the fix's base)");
	if (x->t.good_sha)
		fl_buf_addf(&b, "good:    %.12s (the regression's good commit)\n", x->t.good_sha);
	if (x->t.commit_sha)
		fl_buf_addf(&b, "fix:     %.12s (\"%s\")\n", x->t.commit_sha,
			    x->t.subject ? x->t.subject : "");
	fl_buf_addf(&b, "\nThe fix %s", fl_try_verdict_words(v));
	if (v == FL_TRY_PARTIAL && !isnan(x->t.recovered_pct))
		fl_buf_addf(&b, " (it recovers %.0f%% of the drop)", x->t.recovered_pct);
	if (v == FL_TRY_CONFLICT || v == FL_TRY_ERROR || v == FL_TRY_UNTESTABLE)
		fl_buf_addf(&b, ":\n  %s\n",
			    x->t.conflict ? x->t.conflict
			    : x->t.error  ? x->t.error
					  : "no run of the fix counted");
	else if (point)
		fl_buf_addf(&b, " at %s.\n\n", point);
	else
		fl_buf_adds(&b, " at the primary metric's points.\n\n");
	if (x->regression_stays && vs_good && vs_base)
		fl_buf_addf(&b, "The regression stays: %+.1f%% against the good commit (p=%.2g), and "
				"the runs cannot tell the fix from its base (p=%.2g).\n\n",
			    vs_good->change, vs_good->p, vs_base->p);
	add_row(&b, "the base", vs_base);
	add_row(&b, "the good commit", vs_good);
	if (c) {
		fl_buf_addf(&b, "\n%.12s (the fix) against %.12s (the base):\n\n", x->t.commit_sha,
			    x->t.base_sha);
		fl_comparison_text(c, &b);
	}
	if (v == FL_TRY_RESTORES)
		fl_buf_addf(&b, "\nTested-by: %s\n",
			    x->svc->cfg->report.from ? x->svc->cfg->report.from
						     : "faultline <faultline@localhost>");
	if (x->svc->cfg->report.url)
		fl_buf_addf(&b, "\n%s/try/%lld\n", x->svc->cfg->report.url, (long long)x->t.id);
	free(point);
	return fl_buf_detach(&b);
}

/* The reply in the regression's thread; *id 0 when nothing was mailed about it. */
static int reply(struct try *x, const char *body, int64_t *id)
{
	struct fl_report first = {0};
	char *domain, *mid, *subj;
	int r;

	*id = 0;
	r = fl_store_report_first(x->st, x->reg.id, &first);
	if (r == FL_ENOTFOUND)
		return 0; /* no thread to reply in */
	if (r)
		return r;
	domain = fl_report_mail_domain(x->svc->cfg);
	mid = fl_mail_message_id("try", (long long)x->t.id, domain);
	subj = fl_xasprintf("%s%s", strncmp(first.subject, "Re: ", 4) ? "Re: " : "", first.subject);
	r = fl_store_report_add(x->st, &(struct fl_report_new){x->reg.id, mid, subj, body}, id);
	free(subj);
	free(mid);
	free(domain);
	fl_store_report_clear(&first);
	return r;
}

static int fixcheck(const struct try *x)
{
	return x->t.purpose && !strcmp(x->t.purpose, "fixcheck");
}

/* The job ends with the verdict, the rows and the reply, in one transaction. */
static int conclude(struct try *x, enum fl_try_verdict v, const struct fl_watch_comparison *rows,
		    size_t nrows, const struct fl_cmp_row *vs_base,
		    const struct fl_cmp_row *vs_good, const struct fl_comparison *c)
{
	char *body = render(x, v, vs_base, vs_good, c);
	int64_t report = 0;
	int r;

	if ((r = fl_store_tx_begin(x->st))) {
		free(body);
		return r;
	}
	for (size_t i = 0; i < nrows && !r; i++)
		r = fl_store_comparison_add(x->st, x->job->id, &rows[i]);
	/* a fixcheck (a later tag checked by the service) says only a fix, as a state change */
	if (!r && x->reg.id && fixcheck(x))
		r = fl_triage_fixcheck_done(x->svc->cfg, x->st, &x->t, v == FL_TRY_RESTORES);
	else if (!r && x->reg.id)
		r = reply(x, body, &report);
	if (!r)
		r = fl_store_try_conclude(x->st, x->t.id, fl_try_verdict_name(v),
					  x->t.recovered_pct, body, report, (int64_t)time(NULL));
	if (!r)
		r = fl_job_set(x->st, x->job->id, FL_STATE_DONE, fl_try_verdict_name(v), NULL);
	if (!r)
		r = fl_store_tx_commit(x->st);
	if (r)
		fl_store_tx_rollback(x->st);
	else
		fl_info("try %lld: the fix %s%s", (long long)x->t.id, fl_try_verdict_words(v),
			report ? "; the reply is in the outbox" : "");
	free(body);
	return r;
}

static int more_runs(struct try *x, const struct fl_job *kids, size_t nkids)
{
	struct fl_round_side sides[] = {{FL_ROLE_BAD, x->t.base_sha},
					{FL_ROLE_FIX, x->t.commit_sha},
					{FL_ROLE_BASE, x->t.good_sha}};
	unsigned round;

	return fl_measure_next_round(x->st, x->job, kids, nkids, sides, x->t.good_sha ? 3 : 2,
				     x->bench->repeat, x->t.points, &round);
}

/* Without a regression: the primary metric's points against the base. */
static enum fl_try_verdict plain_verdict(const struct fl_comparison *c)
{
	int worse = 0, better = 0, same = 0, n = 0;

	for (size_t i = 0; i < c->nrows; i++) {
		const struct fl_cmp_row *row = &c->rows[i];

		if (row->kind != FL_CMP_METRIC || !fl_measure_primary(row->what) || !row->new_.n)
			continue;
		n++;
		worse += row->cls == FL_CMP_REGRESSION;
		better += row->cls == FL_CMP_IMPROVEMENT;
		same += row->cls == FL_CMP_SAME;
	}
	if (worse)
		return FL_TRY_WORSE;
	if (better)
		return FL_TRY_BETTER;
	return n && same == n ? FL_TRY_NO_EFFECT : FL_TRY_UNCLEAR;
}

/*
 * With a regression, at its point: as the revert check decides (revert.c),
 * and worse when the fix is clearly worse than the base. On the last round
 * (last), a fix the runs cannot tell from its base while it is still
 * clearly below the good commit has no effect on the regression: on a
 * noisy machine "level with the base" may never be shown, but "the
 * regression is still there" is.
 */
static enum fl_try_verdict regression_verdict(struct try *x, const struct fl_cmp_row *vs_base,
					      const struct fl_cmp_row *vs_good, double min_change,
					      int last)
{
	int better = vs_base->cls == FL_CMP_IMPROVEMENT;

	if (vs_base->cls == FL_CMP_REGRESSION)
		return FL_TRY_WORSE;
	if (!better && vs_base->cls != FL_CMP_SAME && last && vs_good->cls == FL_CMP_REGRESSION) {
		x->regression_stays = 1;
		return FL_TRY_NO_EFFECT;
	}
	if (!better)
		return vs_base->cls == FL_CMP_SAME ? FL_TRY_NO_EFFECT : FL_TRY_UNCLEAR;
	if (vs_good->cls == FL_CMP_SAME || vs_good->cls == FL_CMP_IMPROVEMENT ||
	    (vs_good->cls == FL_CMP_UNCLEAR && vs_good->shift_pct < 100 * min_change))
		return FL_TRY_RESTORES;
	if (vs_good->cls == FL_CMP_REGRESSION) {
		double good = vs_good->base.value, bad = vs_base->base.value;

		x->t.recovered_pct =
		    good != bad ? 100 * (vs_base->new_.value - bad) / (good - bad) : NAN;
		return FL_TRY_PARTIAL;
	}
	return FL_TRY_UNCLEAR;
}

static int measure(struct try *x, const struct fl_role_runs *base, const struct fl_role_runs *fix,
		   const struct fl_role_runs *good, const struct fl_job *kids, size_t nkids)
{
	struct fl_cmp_side sb = {0}, sf = {0}, sg = {0};
	struct fl_comparison *c[2] = {NULL, NULL};
	struct fl_watch_comparison *rows = NULL;
	static const char *const what[2] = {"try-base", "try-good"};
	const struct fl_cmp_row *at[2] = {NULL, NULL};
	int64_t against[2] = {x->base_commit, x->good_commit};
	enum fl_try_verdict v = FL_TRY_UNCLEAR;
	struct fl_cmp_opts o;
	size_t nrows = 0;
	int r;

	fl_measure_cmp_opts(x->svc->cfg, x->bench, &o);
	if ((r = fl_cmp_side_load(x->st, "base", base->ids, base->n, 0, &sb)) ||
	    (r = fl_cmp_side_load(x->st, "fix", fix->ids, fix->n, 0, &sf)) ||
	    (good->n && (r = fl_cmp_side_load(x->st, "good", good->ids, good->n, 1, &sg))) ||
	    (base->n && (r = fl_compare(x->bench->name, &sb.set, &sf.set, &o, &c[0]))) ||
	    (good->n && (r = fl_compare(x->bench->name, &sg.set, &sf.set, &o, &c[1]))))
		goto out;
	rows = fl_xcalloc((c[0] ? c[0]->nrows : 0) + (c[1] ? c[1]->nrows : 0) + 1, sizeof(*rows));
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; c[k] && i < c[k]->nrows; i++)
			if (c[k]->rows[i].kind == FL_CMP_METRIC && c[k]->rows[i].new_.n)
				rows[nrows++] = fl_measure_comparison(
				    what[k], against[k], x->fix_commit, x->bench->name,
				    x->machine_id, &c[k]->rows[i]);
	if (x->reg.id) {
		for (int k = 0; k < 2; k++)
			if (c[k])
				at[k] =
				    fl_comparison_find(c[k], FL_CMP_METRIC, x->reg.mode,
						       x->reg.tasks, x->reg.cgroup, x->reg.metric);
		if (at[0] && at[1] && at[0]->new_.n && at[0]->base.n && at[1]->base.n)
			v = regression_verdict(x, at[0], at[1], o.min_change,
					       fix->tried >= fl_measure_max_runs(x->bench));
	} else if (c[0]) {
		v = plain_verdict(c[0]);
	}
	if (v == FL_TRY_UNCLEAR && fix->tried < fl_measure_max_runs(x->bench))
		r = more_runs(x, kids, nkids);
	else
		r = conclude(x, v, rows, nrows, at[0], at[1], c[0]);
out:
	free(rows);
	fl_comparison_free(c[0]);
	fl_comparison_free(c[1]);
	fl_cmp_side_release(&sb);
	fl_cmp_side_release(&sf);
	fl_cmp_side_release(&sg);
	return r;
}

/* Where the fix could not be measured: the first error line its runs gave. */
static int untestable(struct try *x, const struct fl_role_runs *fix)
{
	const char *why = fix->last_error ? fix->last_error : "no run of the fix counted";
	size_t len = strcspn(why, "\n");
	char *line =
	    fl_xasprintf("%.12s does not build or run: %.*s", x->t.commit_sha, (int)len, why);
	int r;

	free(x->t.error);
	x->t.error = line;
	if ((r = fl_store_tx_begin(x->st)))
		return r;
	r = fl_store_try_candidate(x->st, x->t.id, x->t.state, x->t.commit_sha, x->t.ref,
				   x->t.subject, NULL, line);
	if (!r)
		r = fl_store_tx_commit(x->st);
	else
		fl_store_tx_rollback(x->st);
	return r ? r : conclude(x, FL_TRY_UNTESTABLE, NULL, 0, NULL, NULL, NULL);
}

static int step(struct try *x)
{
	struct fl_role_runs base, fix, good;
	enum fl_try_verdict v;
	struct fl_job *kids;
	size_t nkids;
	int r;

	if ((r = make_candidate(x)))
		return r;
	if (strcmp(x->t.state, "applied")) {
		v = !strcmp(x->t.state, "conflict") ? FL_TRY_CONFLICT : FL_TRY_ERROR;
		return conclude(x, v, NULL, 0, NULL, NULL, NULL);
	}
	if ((r = fl_service_commit_id(x->st, x->repo, x->tree_id, x->t.base_sha,
				      &x->base_commit)) ||
	    (x->t.good_sha && (r = fl_service_commit_id(x->st, x->repo, x->tree_id, x->t.good_sha,
							&x->good_commit))) ||
	    (r = fl_service_commit_id(x->st, x->repo, x->tree_id, x->t.commit_sha,
				      &x->fix_commit)) ||
	    (r = fl_store_jobs_children(x->st, x->job->id, &kids, &nkids)))
		return r;
	fl_role_runs(kids, nkids, FL_ROLE_BAD, &base);
	fl_role_runs(kids, nkids, FL_ROLE_FIX, &fix);
	fl_role_runs(kids, nkids, FL_ROLE_BASE, &good);
	if (!nkids)
		r = more_runs(x, kids, 0);
	else if (base.live || fix.live || good.live)
		r = fl_job_wait(x->st, x->job->id);
	else if (!fix.n)
		r = untestable(x, &fix);
	else
		r = measure(x, &base, &fix, &good, kids, nkids);
	fl_role_runs_release(&base);
	fl_role_runs_release(&fix);
	fl_role_runs_release(&good);
	fl_jobs_free(kids, nkids);
	return r;
}

int fl_try_step(void *ctx, fl_store *st, const struct fl_job *job)
{
	struct try x = {.svc = ctx, .st = st, .job = job};
	const struct fl_machine_conf *m;
	int r;

	if ((r = fl_store_try_get(st, job->try_id, &x.t)))
		return r;
	x.t.recovered_pct = NAN;
	if (x.t.regression_id && (r = fl_store_regression_get(st, x.t.regression_id, &x.reg)))
		goto out;
	x.bench = fl_config_benchmark(x.svc->cfg, x.t.benchmark);
	m = fl_config_machine(x.svc->cfg, x.t.machine);
	if (!x.bench || !m || !fl_config_tree(x.svc->cfg, x.t.tree))
		r = fl_error_set(FL_EINVAL,
				 "try %lld: tree '%s', benchmark '%s' or machine '%s' is no longer "
				 "in the configuration",
				 (long long)x.t.id, x.t.tree, x.t.benchmark, x.t.machine);
	if (!r)
		r = fl_service_repo(x.svc, x.t.tree, &x.repo, NULL);
	if (!r)
		r = fl_store_tree_ensure(st, x.t.tree, fl_config_tree(x.svc->cfg, x.t.tree)->url,
					 &x.tree_id);
	if (!r)
		r = fl_store_machine_ensure(st, m->name, m->backend, &x.machine_id);
	if (!r)
		r = step(&x);
out:
	fl_regression_release(&x.reg);
	fl_try_release(&x.t);
	return r;
}
