/*
 * builtin/regression.c - "faultline regression list|show|mark": the
 * regressions and their life cycle (service/triage.h). list and show read
 * the store (--json for scripts); mark sets a state, keeps who and when, and
 * mails the change as a reply in the report's thread (sent at once when
 * report.smtp is set, else by the next "faultline watch").
 *
 *   faultline regression list [--state S] [--tree T] [--json]
 *   faultline regression show ID [--json]
 *   faultline regression mark ID fixed --fix REV | invalid | duplicate --dup ID | open
 *             [--by WHO] [--note TEXT]
 */
#include "builtin/builtin.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/mail.h"
#include "service/outbox.h"
#include "service/triage.h"
#include "store/store.h"
#include "store/triage.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct opts {
	const char *config, *state, *tree, *fix, *by, *note;
	long long dup;
	int json;
};

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"state", required_argument, NULL, 's'},
	    {"tree", required_argument, NULL, 't'},
	    {"fix", required_argument, NULL, 'f'},
	    {"dup", required_argument, NULL, 'd'},
	    {"by", required_argument, NULL, 'b'},
	    {"note", required_argument, NULL, 'n'},
	    {"json", no_argument, NULL, 'j'},
	    {NULL, 0, NULL, 0},
	};
	char *end;
	int c;

	optind = 2;
	while ((c = fl_getopt(argc, argv, "", opts)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 's':
			o->state = optarg;
			break;
		case 't':
			o->tree = optarg;
			break;
		case 'f':
			o->fix = optarg;
			break;
		case 'b':
			o->by = optarg;
			break;
		case 'n':
			o->note = optarg;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'd':
			o->dup = strtoll(optarg, &end, 10);
			if (*end || o->dup <= 0)
				return fl_arg_error("regression",
						    "--dup: a regression id is a positive number, "
						    "got '%s'",
						    optarg);
			break;
		default:
			return FL_EINVAL; /* '?': fl_getopt said what is wrong */
		}
	}
	return 0;
}

static json_t *item_json(const struct fl_regression_item *g)
{
	json_t *o = json_object();

	json_object_set_new(o, "id", json_integer(g->id));
	json_object_set_new(o, "tree", json_string(g->tree));
	json_object_set_new(o, "tag", json_string(g->tag));
	json_object_set_new(o, "baseline", json_string(g->baseline));
	json_object_set_new(o, "benchmark", json_string(g->benchmark));
	json_object_set_new(o, "machine", json_string(g->machine));
	json_object_set_new(o, "metric", json_string(g->metric));
	json_object_set_new(o, "mode", json_string(g->mode));
	json_object_set_new(o, "tasks", json_integer(g->tasks));
	json_object_set_new(o, "cgroup", json_string(g->cgroup));
	json_object_set_new(o, "change_pct", json_real(g->change));
	json_object_set_new(o, "culprit", g->culprit ? json_string(g->culprit) : json_null());
	json_object_set_new(o, "kind", json_string(g->kind ? g->kind : "regression"));
	json_object_set_new(o, "state", json_string(g->state));
	json_object_set_new(o, "state_by", g->state_by ? json_string(g->state_by) : json_null());
	json_object_set_new(o, "state_at", g->state_at ? json_integer(g->state_at) : json_null());
	json_object_set_new(o, "fixed_by", g->fixed_by ? json_string(g->fixed_by) : json_null());
	json_object_set_new(o, "fix_range", g->fix_range ? json_string(g->fix_range) : json_null());
	json_object_set_new(o, "duplicate_of", g->dup_of ? json_integer(g->dup_of) : json_null());
	json_object_set_new(o, "note", g->note ? json_string(g->note) : json_null());
	json_object_set_new(o, "bisection",
			    g->bisection_id ? json_integer(g->bisection_id) : json_null());
	json_object_set_new(o, "created", json_integer(g->created));
	return o;
}

static void print_line(const struct fl_regression_item *g)
{
	printf("%5lld  %-9s  %s %s vs %s  %s on %s  %s %+.1f%%  %.12s", (long long)g->id, g->state,
	       g->tree, g->tag, g->baseline, g->benchmark, g->machine, g->metric, g->change,
	       g->culprit ? g->culprit : "-");
	if (g->fixed_by)
		printf("  fixed by %s", g->fixed_by);
	if (g->dup_of)
		printf("  duplicate of %lld", (long long)g->dup_of);
	printf("\n");
}

/* Its bisection and reports, where "faultline report show" and the pages find them. */
static void print_links(fl_store *st, const struct fl_config *cfg,
			const struct fl_regression_item *g)
{
	struct fl_report *r = NULL;
	size_t n = 0;

	if (g->bisection_id)
		printf("bisection: %lld, %s; %s/bisect/%lld\n", (long long)g->bisection_id,
		       g->bisection_result ? g->bisection_result : "running", cfg->report.url,
		       (long long)g->bisection_id);
	else
		printf("bisection: not started\n");
	if (fl_store_reports_list(st, g->id, &r, &n))
		fprintf(stderr, "faultline: %s\n", fl_error_last());
	for (size_t i = n; i-- > 0;) /* oldest first: the report, then its thread */
		printf("%-10s %lld, %s: %s ('faultline report show %lld')\n",
		       i == n - 1 ? "reports:" : "", (long long)r[i].id, r[i].state, r[i].subject,
		       (long long)r[i].id);
	if (!n)
		printf("reports:   none yet\n");
	printf("page:      %s/regression/%lld\n", cfg->report.url, (long long)g->id);
	fl_store_reports_free(r, n);
}

static void print_show(const struct fl_regression_item *g)
{
	char when[32] = "-";
	time_t t = (time_t)g->state_at;
	struct tm tm;

	if (g->state_at && gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	printf("regression %lld: %s\n", (long long)g->id, g->state);
	printf("tree:      %s, %s against its baseline %s\n", g->tree, g->tag, g->baseline);
	printf("benchmark: %s on %s, %s", g->benchmark, g->machine, g->metric);
	if (*g->mode)
		printf(" at %u %s", g->tasks, g->mode);
	/* the headline every page shows, and what it compares */
	printf(" %+.1f%% (%s against %s)\nculprit:   %s\n", g->change, g->tag, g->baseline,
	       g->culprit ? g->culprit : "-");
	if (g->state_by)
		printf("set by:    %s, %s\n", g->state_by, when);
	if (g->fixed_by)
		printf("fixed by:  %s%s%s\n", g->fixed_by, g->fix_range ? " in " : "",
		       g->fix_range ? g->fix_range : "");
	if (g->dup_of)
		printf("duplicate of regression %lld\n", (long long)g->dup_of);
	if (g->note)
		printf("note:      %s\n", g->note);
}

static int id_arg(const char *s, int64_t *id)
{
	char *end;
	long long v = strtoll(s, &end, 10);

	if (*end || v <= 0) {
		fprintf(stderr, "faultline: a regression id is a positive number, got '%s'\n", s);
		return FL_EXIT_USAGE;
	}
	*id = v;
	return 0;
}

static int mark(struct fl_config *cfg, fl_store *st, int64_t id, const char *state,
		const struct opts *o)
{
	const char *user = getenv("USER");
	char *text = NULL;
	int64_t report;
	int r;

	if ((r = fl_store_tx_begin(st)))
		return r;
	r = fl_triage_mark(cfg, st, id,
			   &(struct fl_triage_change){.state = state,
						      .by = o->by  ? o->by
							    : user ? user
								   : "operator",
						      .fixed_by = o->fix,
						      .dup_of = o->dup,
						      .note = o->note},
			   1, &report, &text);
	if (!r)
		r = fl_store_tx_commit(st);
	if (r) {
		fl_store_tx_rollback(st);
		return r;
	}
	printf("%s%s\n", text, report ? "; mailed in the report's thread" : "");
	free(text);
	if (report && cfg->report.smtp) {
		struct fl_smtp smtp;
		struct fl_outbox box;
		unsigned sent, failed;

		fl_outbox_init(&box, &smtp, cfg, NULL);

		if (fl_outbox_flush(st, &box, (int64_t)time(NULL), &sent, &failed))
			fprintf(stderr, "faultline: outbox: %s\n", fl_error_last());
	}
	return 0;
}

static int cmd_regression(int argc, char **argv)
{
	static const char *const subs[] = {"list", "show", "mark", NULL};
	struct opts o = {0};
	struct fl_config *cfg = NULL;
	struct fl_regression_item *items = NULL, one = {0};
	const char *sub = argc > 1 ? argv[1] : "";
	fl_store *st = NULL;
	size_t n = 0;
	int64_t id = 0;
	int code, r = 0, which;

	if ((code = fl_subcommand(argc, argv, &fl_cmd_regression, subs, &which)))
		return code;
	if (parse(argc, argv, &o))
		return fl_usage(&fl_cmd_regression);
	if (!strcmp(sub, "list")   ? optind != argc
	    : !strcmp(sub, "show") ? optind + 1 != argc
				   : optind + 2 != argc)
		return fl_usage(&fl_cmd_regression);
	if (strcmp(sub, "list") && (code = id_arg(argv[optind], &id)))
		return code;
	/* what the state needs, said with the option that gives it */
	if (!strcmp(sub, "mark") && !strcmp(argv[optind + 1], FL_REG_FIXED) && !o.fix) {
		fprintf(stderr, "faultline: regression mark: 'fixed' needs --fix REV, the commit "
				"or tag that fixes it\n");
		return FL_EXIT_USAGE;
	}
	if (!strcmp(sub, "mark") && !strcmp(argv[optind + 1], FL_REG_DUPLICATE) && !o.dup) {
		fprintf(stderr, "faultline: regression mark: 'duplicate' needs --dup ID, the "
				"regression it duplicates\n");
		return FL_EXIT_USAGE;
	}
	if (o.state && fl_triage_state_check(o.state)) {
		fprintf(stderr, "faultline: --state: %s\n", fl_error_last());
		return FL_EXIT_USAGE;
	}
	if ((code = fl_load_config(&cfg, o.config)))
		return code;
	r = fl_store_open(&st, cfg->store.path, 0);
	if (!r && !strcmp(sub, "list")) {
		if (!(r = fl_store_regression_items(st, o.state, o.tree, &items, &n))) {
			if (o.json) {
				json_t *a = json_array();

				for (size_t i = 0; i < n; i++)
					json_array_append_new(a, item_json(&items[i]));
				json_dumpf(a, stdout, JSON_INDENT(2));
				printf("\n");
				json_decref(a);
			} else {
				for (size_t i = 0; i < n; i++)
					print_line(&items[i]);
			}
		}
	} else if (!r && !strcmp(sub, "mark")) {
		r = mark(cfg, st, id, argv[optind + 1], &o);
	}
	if (!r && strcmp(sub, "list") && !(r = fl_store_regression_item(st, id, &one))) {
		if (o.json) {
			json_t *j = item_json(&one);

			json_dumpf(j, stdout, JSON_INDENT(2));
			printf("\n");
			json_decref(j);
		} else if (!strcmp(sub, "show")) {
			print_show(&one);
			print_links(st, cfg, &one);
		}
	}
	if (r) {
		fprintf(stderr, "faultline: regression %s: %s\n", sub, fl_error_last());
		code = r == FL_EINVAL	   ? FL_EXIT_USAGE
		       : r == FL_ENOTFOUND ? FL_EXIT_NO
					   : FL_EXIT_FAIL;
	}
	fl_regression_items_free(items, n);
	fl_regression_item_release(&one);
	fl_store_free(st);
	fl_config_free(cfg);
	return code;
}

const struct fl_command fl_cmd_regression = {
    .name = "regression",
    .run = cmd_regression,
    .usage = "regression list [--state S] [--tree T] [--json] | show ID [--json] | mark ID "
	     "open|invalid|fixed --fix REV|duplicate --dup ID [--by WHO] [--note TEXT] [--json] "
	     "[--config F]",
    .summary = "list regressions and their states, show one, mark it (mailed in its thread)",
    .help = "subcommands:\n"
	    "  list           the regressions, newest first, with their state and culprit\n"
	    "  show ID        one regression: its change, state, who set it and when, its\n"
	    "                 bisection, its reports and its page\n"
	    "  mark ID STATE  set its state (open, invalid, fixed, duplicate) and mail the\n"
	    "                 change as a reply in the report's thread\n"
	    "\n"
	    "options:\n"
	    "  --config F     the configuration (default: the global --config)\n"
	    "  --state S      list: only regressions in state S\n"
	    "  --tree T       list: only regressions of tree T\n"
	    "  --fix REV      mark fixed: the commit or tag that fixes it\n"
	    "  --dup ID       mark duplicate: the regression it duplicates\n"
	    "  --by WHO       mark: who set the state (default: the user running it)\n"
	    "  --note TEXT    mark: why\n"
	    "  --json         list, show, mark: one JSON value instead of text\n"
	    "  -h, --help     this help\n"
	    "\n"
	    "Exit: 0 listed, shown or marked, 1 no such regression, 2 usage or configuration\n"
	    "error (a state without what it needs: fixed --fix REV, duplicate --dup ID), 4\n"
	    "the store cannot be read or written.\n",
};
