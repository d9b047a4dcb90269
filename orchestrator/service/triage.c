/* service/triage.c - a regression's states and what changes them (see triage.h). */
#include "service/triage.h"
#include "config/config.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/mail.h"
#include "service/measure.h"
#include "service/pipeline.h"
#include "service/report.h"
#include "service/route.h"
#include "service/service.h"
#include "store/triage.h"
#include "store/try.h"
#include "store/watch.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int fl_triage_state_check(const char *s)
{
	static const char *const states[] = {FL_REG_OPEN, FL_REG_FIXED, FL_REG_INVALID,
					     FL_REG_DUPLICATE};

	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (s && !strcmp(s, states[i]))
			return 0;
	return fl_error_set(FL_EINVAL,
			    "no regression state '%s' (states: open, fixed, invalid, duplicate)",
			    s ? s : "");
}

int fl_triage_reply(const struct fl_config *cfg, fl_store *st, int64_t regression_id,
		    const char *kind, long long kind_id, const char *body, const char *extra_cc,
		    const char *in_reply_to, int64_t *report_id)
{
	struct fl_report first = {0};
	fl_buf rcpt = FL_BUF_INIT;
	char *domain, *mid, *subj;
	int r;

	*report_id = 0;
	r = fl_store_report_first(st, regression_id, &first);
	if (r == FL_ENOTFOUND)
		return 0;
	if (r)
		return r;
	if (first.recipients)
		fl_buf_adds(&rcpt, first.recipients);
	else
		for (size_t i = 0; i < cfg->report.nto; i++)
			fl_buf_addf(&rcpt, "to %s\n", cfg->report.to[i]);
	if (extra_cc) {
		char *bare = fl_route_bare(extra_cc);
		int there = 0;

		for (const char *p = rcpt.ptr; p && *p;) {
			size_t len = strcspn(p, "\n");
			char *line = fl_xstrndup(p, len),
			     *b = fl_route_bare(len > 3 ? line + 3 : line);

			there |= !strcmp(b, bare);
			free(b);
			free(line);
			p += len + (p[len] == '\n');
		}
		if (!there)
			fl_buf_addf(&rcpt, "cc %s\n", extra_cc);
		free(bare);
	}
	domain = fl_report_mail_domain(cfg);
	mid = fl_mail_message_id(kind, kind_id, domain);
	subj = fl_xasprintf("%s%s", strncmp(first.subject, "Re: ", 4) ? "Re: " : "", first.subject);
	r = fl_store_report_add_with(
	    st,
	    &(struct fl_report_new){
		.regression_id = regression_id, .message_id = mid, .subject = subj, .body = body},
	    &(struct fl_report_extra){.recipients = rcpt.len ? rcpt.ptr : NULL,
				      .in_reply_to = in_reply_to},
	    report_id);
	free(subj);
	free(mid);
	free(domain);
	fl_buf_free(&rcpt);
	fl_store_report_clear(&first);
	return r;
}

int fl_triage_mark(const struct fl_config *cfg, fl_store *st, int64_t regression_id,
		   const struct fl_triage_change *c, int mail, int64_t *report_id, char **text)
{
	struct fl_regression_item g = {0}, orig = {0};
	fl_buf line = FL_BUF_INIT, body = FL_BUF_INIT;
	int64_t now = (int64_t)time(NULL);
	int r;

	*report_id = 0;
	if (text)
		*text = NULL;
	if ((r = fl_triage_state_check(c->state)) ||
	    (r = fl_store_regression_item(st, regression_id, &g)))
		return r;
	if (!strcmp(c->state, FL_REG_DUPLICATE)) {
		if (!c->dup_of || c->dup_of == regression_id)
			r = fl_error_set(FL_EINVAL,
					 "regression %lld: a duplicate names another regression",
					 (long long)regression_id);
		else if (!(r = fl_store_regression_item(st, c->dup_of, &orig)) && orig.dup_of)
			r = fl_error_set(FL_EINVAL,
					 "regression %lld is itself a duplicate of %lld: name "
					 "that one",
					 (long long)c->dup_of, (long long)orig.dup_of);
	} else if (!strcmp(c->state, FL_REG_FIXED) && (!c->fixed_by || !*c->fixed_by)) {
		r = fl_error_set(FL_EINVAL,
				 "regression %lld: 'fixed' needs the commit or tag that fixes it",
				 (long long)regression_id);
	}
	if (!r)
		r = fl_store_regression_set_state(
		    st, regression_id,
		    &(struct fl_regression_state){
			.state = c->state,
			.by = c->by,
			.at = now,
			.fixed_by = !strcmp(c->state, FL_REG_FIXED) ? c->fixed_by : NULL,
			.fix_range = !strcmp(c->state, FL_REG_FIXED) ? c->fix_range : NULL,
			.dup_of = !strcmp(c->state, FL_REG_DUPLICATE) ? c->dup_of : 0,
			.note = c->note});
	if (!r) {
		fl_buf_addf(&line, "regression %lld is now %s", (long long)regression_id, c->state);
		if (!strcmp(c->state, FL_REG_FIXED))
			fl_buf_addf(&line, " by %s", c->fixed_by);
		if (!strcmp(c->state, FL_REG_FIXED) && c->fix_range)
			fl_buf_addf(&line, " (fixed in %s)", c->fix_range);
		if (!strcmp(c->state, FL_REG_DUPLICATE))
			fl_buf_addf(&line, " of regression %lld", (long long)c->dup_of);
		fl_buf_addf(&line, " (was %s; set by %s)", g.state ? g.state : "open",
			    c->by ? c->by : "?");
		fl_info("triage: %s", line.ptr);
	}
	if (!r && mail) {
		fl_buf_addf(&body, "Hello,\n\n%s.\n", line.ptr);
		if (c->note)
			fl_buf_addf(&body, "\n%s\n", c->note);
		if (cfg->report.url)
			fl_buf_addf(&body, "\n%s/regression/%lld\n", cfg->report.url,
				    (long long)regression_id);
		fl_buf_adds(&body, "\n-- \nfaultline, automated performance bisection\n");
		r = fl_triage_reply(cfg, st, regression_id, "state", (long long)regression_id,
				    body.ptr, NULL, NULL, report_id);
	}
	if (!r && text)
		*text = fl_buf_detach(&line);
	fl_buf_free(&line);
	fl_buf_free(&body);
	fl_regression_item_release(&g);
	fl_regression_item_release(&orig);
	return r;
}

int fl_triage_schedule_fixchecks(struct fl_service *svc, fl_store *st, const struct fl_tree_conf *t,
				 const char *tag, const char *sha, unsigned *added)
{
	struct fl_regression_item *items;
	fl_repo *repo;
	size_t n;
	int r;

	if ((r = fl_service_repo(svc, t->name, &repo, NULL)) ||
	    (r = fl_store_regression_items(st, FL_REG_OPEN, t->name, &items, &n)))
		return r;
	for (size_t i = 0; i < n && !r; i++) {
		struct fl_regression reg = {0};
		int64_t have, try_id, job;
		char *point;

		if (items[i].kind && strcmp(items[i].kind, "regression"))
			continue; /* an improvement needs no fix */
		if ((r = fl_store_try_fixcheck_find(st, items[i].id, tag, &have)) || have)
			continue;
		if ((r = fl_store_regression_get(st, items[i].id, &reg)))
			break;
		/* a later tag: the regressed commit is in its history, and it is not that tag */
		if (!strcmp(reg.bad, sha) || !fl_repo_is_ancestor(repo, reg.bad, sha)) {
			fl_regression_release(&reg);
			continue;
		}
		point = *reg.mode ? fl_point_key(reg.mode, reg.tasks, reg.cgroup) : NULL;
		struct fl_try ft = {.regression_id = reg.id,
				    .tree = reg.tree,
				    .benchmark = reg.benchmark,
				    .machine = reg.machine,
				    .base_sha = reg.bad,
				    .good_sha = reg.good,
				    .rev_sha = (char *)sha,
				    .points = point,
				    .purpose = "fixcheck",
				    .tag = (char *)tag,
				    .created = (int64_t)time(NULL)};

		if (!(r = fl_store_try_add(st, &ft, &try_id)))
			r = fl_service_enqueue(st, FL_JOB_TRY,
					       &(struct fl_job_spec){.tree = reg.tree,
								     .machine = reg.machine,
								     .benchmark = reg.benchmark,
								     .regression_id = reg.id,
								     .try_id = try_id},
					       &job);
		if (!r) {
			(*added)++;
			fl_info("watch: tree '%s': %s: does it fix regression %lld? (try %lld)",
				t->name, tag, (long long)reg.id, (long long)try_id);
		}
		free(point);
		fl_regression_release(&reg);
	}
	fl_regression_items_free(items, n);
	return r;
}

/* The tag it was last seen regressed at: the newest fixcheck that did not restore, else its tag. */
static char *last_regressed(fl_store *st, const struct fl_try *t)
{
	struct fl_regression reg = {0};
	int64_t *ids = NULL;
	size_t n = 0;
	char *tag = NULL;

	if (!fl_store_tries_of(st, t->regression_id, &ids, &n))
		for (size_t i = n; i-- > 0 && !tag;) {
			struct fl_try o = {0};

			if (ids[i] != t->id && !fl_store_try_get(st, ids[i], &o) && o.purpose &&
			    !strcmp(o.purpose, "fixcheck") && o.verdict &&
			    strcmp(o.verdict, fl_try_verdict_name(FL_TRY_RESTORES)) && o.tag)
				tag = fl_xstrdup(o.tag);
			fl_try_release(&o);
		}
	free(ids);
	if (!tag && !fl_store_regression_get(st, t->regression_id, &reg))
		tag = fl_xstrdup(reg.tag);
	fl_regression_release(&reg);
	return tag;
}

int fl_triage_fixcheck_done(const struct fl_config *cfg, fl_store *st, const struct fl_try *t,
			    int restores)
{
	struct fl_regression_item g = {0};
	char *from, *range, *note;
	int64_t report;
	int r;

	if (!restores || !t->regression_id)
		return 0;
	if ((r = fl_store_regression_item(st, t->regression_id, &g)))
		return r;
	if (strcmp(g.state, FL_REG_OPEN)) { /* marked meanwhile by someone */
		fl_regression_item_release(&g);
		return 0;
	}
	from = last_regressed(st, t);
	range = fl_xasprintf("%s..%s", from ? from : "?", t->tag ? t->tag : t->rev_sha);
	note = fl_xasprintf("%s (%.12s) measures back at the baseline %s at the regressed point: "
			    "the fix is in %s.",
			    t->tag ? t->tag : "the tag", t->rev_sha, g.baseline, range);
	r = fl_triage_mark(cfg, st, t->regression_id,
			   &(struct fl_triage_change){.state = FL_REG_FIXED,
						      .by = "faultline",
						      .fixed_by = t->tag ? t->tag : t->rev_sha,
						      .fix_range = range,
						      .note = note},
			   1, &report, NULL);
	free(note);
	free(range);
	free(from);
	fl_regression_item_release(&g);
	return r;
}
