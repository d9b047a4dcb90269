/* outbox.c - sends due reports, reschedules failures (see outbox.h). */
#include "lib/buf.h"
#include <stdlib.h>
#include <string.h>
#include "service/outbox.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/mail.h"
#include "store/store.h"

void fl_outbox_init(struct fl_outbox *box, struct fl_smtp *smtp, const struct fl_config *cfg,
		    const char *worker)
{
	*smtp = (struct fl_smtp){cfg->report.smtp, cfg->report.username, cfg->report.password, 30};
	*box = (struct fl_outbox){smtp,
				  cfg->report.from,
				  (const char *const *)cfg->report.to,
				  cfg->report.nto,
				  cfg->report.retry_ms > 0 ? (cfg->report.retry_ms + 999) / 1000 : 60,
				  worker};
}

int64_t fl_outbox_backoff_from(int64_t first_s, int attempts)
{
	int64_t s = first_s > 0 ? first_s : 1;

	for (int i = 1; i < attempts && s < 3600; i++)
		s *= 2;
	return s < 3600 ? s : 3600;
}

int64_t fl_outbox_backoff(int attempts)
{
	return fl_outbox_backoff_from(60, attempts);
}

static int send_to(fl_store *st, const struct fl_outbox *box, const struct fl_report *r,
		   int64_t now, const char *const *to, size_t nto, const char *const *cc,
		   size_t ncc);

/* A report's own recipients ("to ADDR" / "cc ADDR" lines) into to and cc. */
static void split_recipients(const char *lines, char ***to, size_t *nto, char ***cc, size_t *ncc)
{
	for (const char *p = lines; p && *p;) {
		size_t len = strcspn(p, "\n");
		int is_cc = !strncmp(p, "cc ", 3);

		if (len > 3 && (is_cc || !strncmp(p, "to ", 3))) {
			char ***v = is_cc ? cc : to;
			size_t *n = is_cc ? ncc : nto;

			*v = fl_xrealloc(*v, (*n + 1) * sizeof(**v));
			(*v)[(*n)++] = fl_xstrndup(p + 3, len - 3);
		}
		p += len + (p[len] == '\n');
	}
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int send_one(fl_store *st, const struct fl_outbox *box, const struct fl_report *r,
		    int64_t now)
{
	char **to = NULL, **cc = NULL;
	size_t nto = 0, ncc = 0;
	int ret;

	split_recipients(r->recipients, &to, &nto, &cc, &ncc);
	ret = send_to(st, box, r, now, nto ? (const char *const *)to : box->to,
		      nto ? nto : box->nto, (const char *const *)cc, ncc);
	free_strv(to, nto);
	free_strv(cc, ncc);
	return ret;
}

static int send_to(fl_store *st, const struct fl_outbox *box, const struct fl_report *r,
		   int64_t now, const char *const *to, size_t nto, const char *const *cc, size_t ncc)
{
	/*
	 * Dated when the report was stored, not now: SMTP delivers at least
	 * once (a crash between the server taking the message and its 250
	 * sends it again), and the copy is then the same message, byte for
	 * byte, with the same Message-ID, which readers and archives fold.
	 */
	struct fl_report first = {0};
	char *refs = NULL;
	int failed;
	struct fl_mail m = {.from = box->from,
			    .to = to,
			    .nto = nto,
			    .subject = r->subject,
			    .body = r->body,
			    .message_id = r->message_id,
			    .in_reply_to = r->in_reply_to,
			    .date = r->created,
			    .cc = cc,
			    .ncc = ncc,
			    .attach_name = r->attach_name,
			    .attach = r->attach};
	/* an answer to a reply: References the thread's report, then the reply */
	if (r->in_reply_to && r->regression_id &&
	    !fl_store_report_first(st, r->regression_id, &first) &&
	    strcmp(first.message_id, r->in_reply_to))
		m.references = refs = fl_xasprintf("%s %s", first.message_id, r->in_reply_to);
	fl_store_report_clear(&first);
	failed = fl_mail_send(box->smtp, &m);
	free(refs);
	if (failed) {
		int64_t wait = fl_outbox_backoff_from(box->retry_s ? box->retry_s : 60, r->attempts + 1);

		fl_warn("report %lld: %s; next try in %llds", (long long)r->id, fl_error_last(),
			(long long)wait);
		if (fl_store_report_retry(st, r->id, fl_error_last(), now + wait))
			return FL_ESTORE;
		return 1;
	}
	if (fl_store_report_sent(st, r->id, now))
		return FL_ESTORE;
	fl_info("report %lld: sent %s", (long long)r->id, r->message_id);
	return 0;
}

int fl_outbox_flush(fl_store *st, const struct fl_outbox *box, int64_t now, unsigned *sent,
		    unsigned *failed)
{
	struct fl_report *due;
	size_t n;
	int r = 0;

	*sent = *failed = 0;
	if (fl_store_reports_due(st, now, &due, &n))
		return FL_ESTORE;
	for (size_t i = 0; i < n && r >= 0; i++) {
		int mine;

		/* workers sharing the store: the one whose claim took the
		 * report sends it; a dead worker's claims end with its work */
		mine = 1;
		if (box->worker &&
		    (r = fl_store_report_claim(st, due[i].id, now, box->worker, &mine)))
			break;
		if (!mine)
			continue;
		r = send_one(st, box, &due[i], now);
		if (r == 0)
			(*sent)++;
		else if (r > 0)
			(*failed)++;
	}
	fl_store_reports_free(due, n);
	return r < 0 ? r : 0;
}
