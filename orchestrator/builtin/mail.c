/*
 * builtin/mail.c - "faultline mail ingest MAILDIR": the replies in a
 * Maildir acted on (service/inbox.h), once each, every command answered in
 * its thread; the answers are mailed at once when report.smtp is set (else
 * by the next "faultline watch"), and the try jobs a "#faultline test"
 * queued are run by "faultline watch". Exit 0, or 4 when a mail could not
 * be read or acted on.
 */
#include "builtin/builtin.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/mail.h"
#include "service/inbox.h"
#include "service/outbox.h"
#include "service/pipeline.h"
#include "service/service.h"
#include "store/store.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int cmd_mail(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {NULL, 0, NULL, 0},
	};
	const char *config = NULL;
	struct fl_config *cfg;
	struct fl_service svc;
	struct fl_inbox_counts c;
	fl_store *st = NULL;
	static const char *const subs[] = {"ingest", NULL};
	int code, r, o, sub;

	if ((code = fl_subcommand(argc, argv, &fl_cmd_mail, subs, &sub)))
		return code;
	optind = 2;
	while ((o = fl_getopt(argc, argv, "", opts)) != -1) {
		if (o != 'c')
			return fl_usage(&fl_cmd_mail);
		config = optarg;
	}
	if (optind + 1 != argc)
		return fl_usage(&fl_cmd_mail);
	if ((code = fl_load_config(&cfg, config)))
		return code;
	fl_service_init(&svc, cfg);
	r = fl_store_open(&st, cfg->store.path, 0);
	if (!r)
		r = fl_pipeline_register(st);
	if (!r)
		r = fl_inbox_ingest(&svc, st, argv[optind], &c);
	if (!r) {
		printf("mail: %u read: %u acted on, %u read before, %u ignored, %u refused, %u "
		       "failed\n",
		       c.read, c.acted, c.seen_before, c.ignored, c.refused, c.failed);
		if (cfg->report.smtp) {
			struct fl_smtp smtp;
			struct fl_outbox box;
			unsigned sent, failed;

			fl_outbox_init(&box, &smtp, cfg, NULL);

			if (fl_outbox_flush(st, &box, (int64_t)time(NULL), &sent, &failed))
				fprintf(stderr, "faultline: outbox: %s\n", fl_error_last());
		}
	} else {
		fprintf(stderr, "faultline: mail ingest: %s\n", fl_error_last());
	}
	code = r	  ? (r == FL_ENOTFOUND ? FL_EXIT_USAGE : FL_EXIT_FAIL)
	       : c.failed ? FL_EXIT_FAIL
			  : FL_EXIT_OK;
	fl_store_free(st);
	fl_service_release(&svc);
	fl_config_free(cfg);
	return code;
}

const struct fl_command fl_cmd_mail = {
    .name = "mail",
    .run = cmd_mail,
    .usage = "mail ingest [--config F] MAILDIR",
    .summary =
	"act on the #faultline commands of replies to reports in a Maildir, each answered in "
	"its thread",
    .help = "subcommands:\n"
	    "  ingest MAILDIR read the replies to faultline's reports delivered into the\n"
	    "                 Maildir and act on their #faultline commands (test, fix:,\n"
	    "                 invalid, dup:, reopen) from allowed senders or the report's\n"
	    "                 recipients, each answered in its thread, each mail once\n"
	    "\n"
	    "options:\n"
	    "  --config F     the configuration (default: the global --config)\n"
	    "  -h, --help     this help\n"
	    "\n"
	    "Exit: 0 every mail read (acted on, read before, ignored or refused), 2 usage\n"
	    "or configuration error (no such Maildir), 4 a mail could not be read or acted\n"
	    "on, or the store cannot be opened.\n",
};
