/*
 * store/triage.h - a regression's life cycle and the mail that drives it,
 * in the store (the SQL is in store/triage.c): its state (open, fixed,
 * invalid, duplicate) with who set it and when, the commit or tag that
 * fixed it and the range it was fixed in, the regression it duplicates;
 * the list the command and the pages read; the mails "faultline mail
 * ingest" acted on, once each by Message-ID, and the report a reply
 * belongs to. What a state means and who may set it is the service's
 * (service/triage.c); this file stores and reads rows.
 */
#ifndef FL_STORE_TRIAGE_H
#define FL_STORE_TRIAGE_H

#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

struct fl_regression_state {
	const char *state;     /* open, fixed, invalid, duplicate */
	const char *by;	       /* who: a mail address, "faultline", a user name */
	int64_t at;	       /* seconds since the epoch */
	const char *fixed_by;  /* fixed: the commit or tag, or NULL */
	const char *fix_range; /* fixed: "TAG1..TAG2" where it was fixed, or NULL */
	int64_t dup_of;	       /* duplicate: the original; 0 otherwise */
	const char *note;      /* why, as said; NULL */
};
/* Sets the state; FL_ENOTFOUND naming the id when there is no such regression. */
int fl_store_regression_set_state(fl_store *st, int64_t id, const struct fl_regression_state *s);

struct fl_regression_item {
	int64_t id;
	char *tree, *tag, *baseline, *benchmark, *machine, *metric, *mode, *cgroup;
	unsigned tasks;
	double change;
	char *culprit; /* the bisection's culprit, or NULL */
	char *state, *state_by, *fixed_by, *fix_range, *note;
	int64_t state_at, dup_of, created;
	char *kind; /* regression, improvement */
	int64_t bisection_id;	/* 0: not bisected yet */
	char *bisection_result; /* culprit, range, ...; NULL while it runs */
};
/* Regressions, newest first: of a state and a tree (NULL: any). */
int fl_store_regression_items(fl_store *st, const char *state, const char *tree,
			      struct fl_regression_item **out, size_t *n);
/* One; FL_ENOTFOUND naming the id. */
int fl_store_regression_item(fl_store *st, int64_t id, struct fl_regression_item *out);
void fl_regression_item_release(struct fl_regression_item *g);
void fl_regression_items_free(struct fl_regression_item *g, size_t n);

/* ---- mail read -------------------------------------------------------- */

/* *outcome (caller frees) of a Message-ID already acted on, NULL when new. */
int fl_store_mail_seen(fl_store *st, const char *message_id, char **outcome);
/* Records a mail as acted on; a second record of the same Message-ID is FL_EEXISTS. */
int fl_store_mail_mark(fl_store *st, const char *message_id, const char *sender,
		       int64_t regression_id, const char *outcome);
/* The report (any of a thread's) whose Message-ID is mid: FL_ENOTFOUND when none. */
int fl_store_report_by_message_id(fl_store *st, const char *mid, struct fl_report *r);

#endif
