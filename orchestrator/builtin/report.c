/*
 * builtin/report.c - "faultline report show ID": a stored report exactly as
 * it was (or will be) mailed, with its delivery state.
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
	if (r->in_reply_to)
		printf("In-Reply-To: %s\n", r->in_reply_to);
	printf("Subject: %s\n\n%s", r->subject, r->body);
}

const char cmd_report_help[] =
    "subcommands:\n"
    "  show ID        the report with this id, as mailed, with its delivery state\n"
    "\n"
    "options:\n"
    "  --config F     take the store's path from this configuration's store.path\n"
    "  --db PATH      the SQLite store itself (no configuration read)\n"
    "  -h, --help     this help\n"
    "\n"
    "Exit: 0 printed, 1 no such report, 2 usage error, 4 the store cannot be read.\n";

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
