/*
 * outbox.h - delivers stored reports by mail.
 *
 * Each due report is sent and then marked sent; a failure (server down,
 * refused) keeps it pending with an exponential backoff (1 min, 2, 4, ...
 * capped at 1 hour; the first step is configurable) and the error kept for
 * the results page, so a report is never lost. Delivery is at least once:
 * a process killed after the server took the message but before its 250
 * reached us sends it again at the next start. The copy is the same
 * message byte for byte (its Message-ID and Date are the stored report's),
 * so mail readers and list archives show it once (docs/security.md).
 * Workers sharing a store send each report once: the one whose claim took
 * it (fl_store_report_claim) sends it, the others pass it by.
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
	const char *worker; /* the sender among workers sharing the store (fl_queue_worker);
			     * NULL: a command's own flush, which claims nothing */
};

struct fl_config;
/* The outbox of cfg's report section (smtp filled too, box points at it);
 * worker: as in struct fl_outbox. */
void fl_outbox_init(struct fl_outbox *box, struct fl_smtp *smtp, const struct fl_config *cfg,
		    const char *worker);

/* Seconds to wait after the n-th failed attempt (n >= 1), from a first wait of 60 s. */
int64_t fl_outbox_backoff(int attempts);
/* The same from a first wait of first_s seconds. */
int64_t fl_outbox_backoff_from(int64_t first_s, int attempts);
/* Sends what is due at now (seconds since the epoch); counts what went and what failed. */
int fl_outbox_flush(fl_store *st, const struct fl_outbox *box, int64_t now, unsigned *sent,
		    unsigned *failed);

#endif
