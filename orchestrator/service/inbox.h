/*
 * service/inbox.h - replies drive a regression's life cycle: the mails of
 * a Maildir (new/ and cur/, as fetchmail, getmail or procmail deliver them)
 * are parsed with GMime (libgmime-3.0: headers, RFC 2047, MIME parts,
 * transfer encodings and charsets, which are a parser's job and not this
 * file's) and each reply to one of faultline's reports (In-Reply-To or
 * References naming a report's Message-ID) is searched for command lines,
 * each on a line of its own, starting the line (quoted lines "> ..." are
 * not commands):
 *
 *   #faultline test <tree-or-git-url> <branch-or-sha>  a try of that
 *       revision against the regression (its answer comes in the thread);
 *       the tree is the regression's tree (its name, url or public_url:
 *       any revision of it), or the http(s):// or git:// URL of another
 *       repository whose branch or tag is fetched into the tree's under
 *       refs/faultline/mail/ (at most 2 minutes)
 *   #faultline fix: <sha-or-tag>   fixed by it
 *   #faultline invalid             invalid
 *   #faultline dup: <id>           a duplicate of regression <id>
 *   #faultline reopen              open again (not fixed after all, or back)
 *
 * A state a command sets keeps the reply's own words (its lines that are
 * neither quoted nor commands, before a signature) as its note. The
 * answer threads under the reply it answers (In-Reply-To the reply,
 * References the report and the reply).
 *
 * Acted on only from senders report.allow names or who received the
 * thread's report; every command is answered in the thread (one reply per
 * mail, the sender copied). A mail is acted on once: its Message-ID is
 * recorded with what was done in the same transaction (store/triage.h), so
 * ingesting the Maildir again does nothing. Mails from report.from (our
 * own, looping back through a list) and mails that reply to no report are
 * recorded and ignored. An unknown sender gets no answer (no mail to a
 * thread on a stranger's word); the refusal is logged and recorded.
 */
#ifndef FL_INBOX_H
#define FL_INBOX_H

#include "store/store.h"

struct fl_service;

struct fl_inbox_counts {
	unsigned read, acted, seen_before, ignored, refused, failed;
};

/* Reads every mail of the Maildir once; counts what happened. */
int fl_inbox_ingest(struct fl_service *svc, fl_store *st, const char *maildir,
		    struct fl_inbox_counts *c);

#endif
