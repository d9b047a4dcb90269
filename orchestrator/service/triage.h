/*
 * service/triage.h - a regression's life cycle: its states and what
 * changes them.
 *
 *   open       found and reported (every regression starts here)
 *   fixed      by a commit or a tag: said by a person ("faultline
 *              regression mark", "#faultline fix:" in a reply), or found by
 *              the service when a later tag of the tree measures back at
 *              the baseline at the regressed point (a fixcheck try the
 *              trigger adds for each open regression on each new tag; the
 *              range it was fixed in is kept)
 *   invalid    not a real regression
 *   duplicate  of another regression (which)
 *
 * Each change keeps who made it and when, and is mailed as a reply in the
 * thread of the regression's report (when it has one). The store has the
 * rows (store/triage.h); the mail commands are service/inbox.h's.
 */
#ifndef FL_TRIAGE_H
#define FL_TRIAGE_H

#include "store/store.h"

#include <stdint.h>

struct fl_config;
struct fl_service;
struct fl_tree_conf;

/* The states' words, spelled here once. */
#define FL_REG_OPEN	 "open"
#define FL_REG_FIXED	 "fixed"
#define FL_REG_INVALID	 "invalid"
#define FL_REG_DUPLICATE "duplicate"
/* 0 when s is one of the four, FL_EINVAL naming them otherwise. */
int fl_triage_state_check(const char *s);

struct fl_triage_change {
	const char *state;     /* one of the four */
	const char *by;	       /* who */
	const char *fixed_by;  /* fixed: commit or tag */
	const char *fix_range; /* fixed: where (automatic) */
	int64_t dup_of;	       /* duplicate: the original */
	const char *note;      /* why, or NULL */
};

/*
 * Sets the regression's state inside the caller's transaction, checked
 * (a known state, a duplicate of another existing regression, a fix
 * named). With mail, the change is stored as a reply in the report's
 * thread (*report_id; 0 when the regression has no report). *text (caller
 * frees, may be NULL) is what the change says, one line.
 */
int fl_triage_mark(const struct fl_config *cfg, fl_store *st, int64_t regression_id,
		   const struct fl_triage_change *c, int mail, int64_t *report_id, char **text);

/*
 * A reply in the regression's thread, inside the caller's transaction:
 * "Re: " the first report's subject, its recipients plus extra_cc (NULL:
 * none), under in_reply_to (the mail it answers; NULL: the first report).
 * *report_id 0 when there is no thread.
 */
int fl_triage_reply(const struct fl_config *cfg, fl_store *st, int64_t regression_id,
		    const char *kind, long long kind_id, const char *body, const char *extra_cc,
		    const char *in_reply_to, int64_t *report_id);

/*
 * On a new tag of tree t (sha its commit): a fixcheck try, with its job,
 * for each open regression of the tree the tag comes after (its bad commit
 * an ancestor of the tag), once per regression and tag. Inside the
 * caller's transaction; *added counts them.
 */
int fl_triage_schedule_fixchecks(struct fl_service *svc, fl_store *st, const struct fl_tree_conf *t,
				 const char *tag, const char *sha, unsigned *added);

/* A fixcheck try's verdict: fixed (by the tag, with the range) when it restores. */
struct fl_try;
int fl_triage_fixcheck_done(const struct fl_config *cfg, fl_store *st, const struct fl_try *t,
			    int restores);

#endif
