/*
 * builtin/report.c - "faultline report show ID": a stored report exactly as
 * it was (or will be) mailed, with its delivery state, its own recipients
 * and the name of its attachment.
 */
#include "builtin/builtin.h"
#include "config/config.h"
#include "lib/error.h"
#include "store/store.h"

#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

static void print_report(const struct fl_report *r)
{
	printf("Report %lld: %s", (long long)r->id, r->state);
	if (!strcmp(r->state, "sent"))
		printf(" after %d attempt%s", r->attempts, r->attempts == 1 ? "" : "s");
	else if (r->attempts)
		printf(", %d failed attempt%s, last: %s", r->attempts, r->attempts == 1 ? "" : "s",
		       r->last_error ? r->last_error : "?");
	printf("\nMessage-ID: %s\n", r->message_id);
	/* its own recipients ("to X" / "cc X" lines); without them report.to */
	for (const char *p = r->recipients; p && *p;) {
		size_t len = strcspn(p, "\n");

		if (len > 3)
			printf("%s: %.*s\n", strncmp(p, "cc ", 3) ? "To" : "Cc", (int)len - 3, p + 3);
		p += len + (p[len] == '\n');
	}
	if (r->attach_name)
		printf("Attachment: %s (%zu bytes)\n", r->attach_name,
		       r->attach ? strlen(r->attach) : 0);
	if (r->in_reply_to)
		printf("In-Reply-To: %s\n", r->in_reply_to);
	printf("Subject: %s\n\n%s", r->subject, r->body);
}

int cmd_report(int argc, char **argv)
{
	struct fl_store_opts o;
	struct fl_report r;
	const char *db;
	fl_store *st;
	char *end;
	long long id;
	int rc;

	if (argc < 2 || strcmp(argv[1], "show"))
		return fl_usage("report");
	if ((rc = fl_store_opts_parse(argc, argv, "report", &o)))
		return rc;
	if (optind + 1 != argc)
		return fl_usage("report");
	id = strtoll(argv[optind], &end, 10);
	if (*end || id <= 0) {
		fprintf(stderr, "faultline: report id must be a positive number, got '%s'\n",
			argv[optind]);
		return FL_EXIT_USAGE;
	}
	if ((rc = fl_store_opts_path(&o, &db)))
		return rc;
	rc = fl_store_open(&st, db, FL_STORE_READONLY);
	if (!rc)
		rc = fl_store_report_get(st, id, &r);
	if (rc) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		fl_store_free(st);
		fl_config_free(o.cfg);
		return rc == FL_ENOTFOUND ? FL_EXIT_NO : FL_EXIT_FAIL;
	}
	print_report(&r);
	fl_store_report_clear(&r);
	fl_store_free(st);
	fl_config_free(o.cfg);
	return FL_EXIT_OK;
}
