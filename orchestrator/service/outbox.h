/*
 * outbox.h - delivers stored reports by mail.
 *
 * Each due report is sent once and then marked sent; a failure (server
 * down, refused) keeps it pending with an exponential backoff (1 min, 2, 4,
 * ... capped at 1 hour; the first step is configurable) and the error kept for the results page, so a report
 * is never lost and never sent twice by the outbox.
 */
#ifndef FL_OUTBOX_H
#define FL_OUTBOX_H

#include <stddef.h>
#include <stdint.h>

struct fl_smtp;
typedef struct fl_store fl_store;

struct fl_outbox {
	const struct fl_smtp *smtp;
	const char *from;
	const char *const *to;
	size_t nto;
	int64_t retry_s; /* wait after the first failure; 0 for 60 s */
};

/* Seconds to wait after the n-th failed attempt (n >= 1), from a first wait of 60 s. */
int64_t fl_outbox_backoff(int attempts);
/* The same from a first wait of first_s seconds. */
int64_t fl_outbox_backoff_from(int64_t first_s, int attempts);
/* Sends what is due at now (seconds since the epoch); counts what went and what failed. */
int fl_outbox_flush(fl_store *st, const struct fl_outbox *box, int64_t now, unsigned *sent,
		    unsigned *failed);

#endif
