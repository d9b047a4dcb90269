/*
 * builtin/report.c - "faultline report show ID": a stored report exactly as
 * it was (or will be) mailed, with its delivery state, its own recipients
 * and the name of its attachment; "faultline report list": every report,
 * newest first, one line each (what show takes).
 */
#include "builtin/builtin.h"
#include "config/config.h"
#include "lib/error.h"
#include "store/store.h"

#include <jansson.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* The same, one JSON object: what a script reads (body 0: without it). */
static json_t *report_json(const struct fl_report *r, int body)
{
	json_t *o = json_object();

	json_object_set_new(o, "id", json_integer(r->id));
	json_object_set_new(o, "regression_id",
			    r->regression_id ? json_integer(r->regression_id) : json_null());
	json_object_set_new(o, "state", json_string(r->state));
	json_object_set_new(o, "attempts", json_integer(r->attempts));
	json_object_set_new(o, "last_error", r->last_error ? json_string(r->last_error) : json_null());
	json_object_set_new(o, "created", json_integer(r->created));
	json_object_set_new(o, "sent", r->sent ? json_integer(r->sent) : json_null());
	json_object_set_new(o, "message_id", json_string(r->message_id));
	json_object_set_new(o, "in_reply_to", r->in_reply_to ? json_string(r->in_reply_to) : json_null());
	json_object_set_new(o, "subject", json_string(r->subject));
	if (body)
		json_object_set_new(o, "body", json_string(r->body));
	return o;
}

static void print_json(json_t *o)
{
	json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(o);
}

/* list: one line a report, newest first; exit 1 when there is none. */
static int list(fl_store *st, int json)
{
	struct fl_report *r;
	json_t *all = json_array();
	size_t n;

	if (fl_store_reports_list(st, 0, &r, &n)) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		json_decref(all);
		return FL_EXIT_FAIL;
	}
	for (size_t i = 0; i < n; i++) {
		time_t t = (time_t)(r[i].sent ? r[i].sent : r[i].created);
		char when[32] = "-";
		struct tm tm;

		if (json) {
			json_array_append_new(all, report_json(&r[i], 0));
			continue;
		}
		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
		printf("%5lld  %-7s  regression %-4lld  %s  %s\n", (long long)r[i].id, r[i].state,
		       (long long)r[i].regression_id, when, r[i].subject);
	}
	if (json)
		print_json(all);
	else
		json_decref(all);
	if (!n && !json)
		fprintf(stderr, "faultline: no report stored yet\n");
	fl_store_reports_free(r, n);
	return n ? FL_EXIT_OK : FL_EXIT_NO;
}

static int cmd_report(int argc, char **argv)
{
	static const char *const subs[] = {"show", "list", NULL};
	struct fl_store_opts o;
	struct fl_report r;
	const char *db;
	fl_store *st;
	char *end;
	long long id;
	int rc, sub;

	if ((rc = fl_subcommand(argc, argv, &fl_cmd_report, subs, &sub)))
		return rc;
	if ((rc = fl_store_opts_parse(argc, argv, &fl_cmd_report, FL_STORE_OPTS_JSON, &o)))
		return rc;
	if (sub == 1) {
		if (optind != argc) {
			fl_arg_error("report", "list takes no operand, got '%s'", argv[optind]);
			return fl_usage(&fl_cmd_report);
		}
		if ((rc = fl_store_opts_path(&o, &db)))
			return rc;
		if (fl_store_open(&st, db, FL_STORE_READONLY)) {
			fprintf(stderr, "faultline: %s\n", fl_error_last());
			fl_config_free(o.cfg);
			return FL_EXIT_FAIL;
		}
		rc = list(st, o.json);
		fl_store_free(st);
		fl_config_free(o.cfg);
		return rc;
	}
	if (optind + 1 != argc)
		return fl_usage(&fl_cmd_report);
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
	if (o.json)
		print_json(report_json(&r, 1));
	else
		print_report(&r);
	fl_store_report_clear(&r);
	fl_store_free(st);
	fl_config_free(o.cfg);
	return FL_EXIT_OK;
}

const struct fl_command fl_cmd_report = {
    .name = "report",
    .run = cmd_report,
    .usage = "report list|show ID [--config F | --db PATH] [--json]",
    .summary = "list the stored reports, or print one as it was mailed, with its delivery state",
    .help = "subcommands:\n"
	    "  list           every report, newest first: id, delivery state, regression,\n"
	    "                 when, subject\n"
	    "  show ID        the report with this id, as mailed, with its delivery state\n"
	    "\n"
	    "options:\n"
	    "  --config F     take the store's path from this configuration's store.path\n"
	    "  --db PATH      the SQLite store itself (no configuration read)\n"
	    "  --json         print the report (its state, headers and body) as one JSON\n"
	    "                 object; list: an array of them, without their bodies\n"
	    "  -h, --help     this help\n"
	    "\n"
	    "Exit: 0 printed, 1 no such report (list: none stored), 2 usage error, 4 the store\n"
	    "cannot be read.\n",
};
