/*
 * builtin/records.c - "faultline records FILE|-": reads a console log, prints
 * every complete FLR1 record's JSON on its own line and a summary of what was
 * garbled or missing on stderr. Exit 1 when any record was lost or a payload
 * is not a JSON object, so a script can check a guest's output in one step.
 */
#include "builtin/builtin.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"
#include "proto/record.h"

struct check {
	int bad_json;
};

static int print_record(void *arg, uint64_t seq, const char *json, size_t len)
{
	struct check *c = arg;
	json_error_t err;
	json_t *v = json_loadb(json, len, 0, &err);

	if (!json_is_object(v)) {
		fprintf(stderr, "records: seq %llu is not a JSON object: %s\n",
			(unsigned long long)seq, err.text);
		c->bad_json++;
	} else {
		printf("%.*s\n", (int)len, json);
	}
	json_decref(v);
	return 0;
}

static int cmd_records(int argc, char **argv)
{
	static const struct option none[] = {{NULL, 0, NULL, 0}};
	struct fl_record_parser p;
	struct check c = { 0 };
	const char *path;
	char buf[65536];
	FILE *f;
	size_t n;
	int lost;

	optind = 1;
	if (fl_getopt(argc, argv, "", none) != -1 || optind + 1 != argc)
		return fl_usage(&fl_cmd_records);
	path = argv[optind];
	f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		perror(path);
		return FL_EXIT_FAIL;
	}
	fl_record_parser_init(&p, print_record, &c);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (fl_record_feed(&p, buf, n))
			break;
	fl_record_finish(&p);
	if (f != stdin)
		fclose(f);
	fprintf(stderr, "records: %llu record%s, %llu garbled, %llu missing, %llu duplicate, "
		"%llu other line%s\n", (unsigned long long)p.stats.records,
		FL_S(p.stats.records), (unsigned long long)p.stats.garbled,
		(unsigned long long)p.stats.missing, (unsigned long long)p.stats.duplicates,
		(unsigned long long)p.stats.noise, FL_S(p.stats.noise));
	lost = p.stats.garbled || p.stats.missing || c.bad_json;
	fl_record_parser_free(&p);
	return lost ? FL_EXIT_NO : FL_EXIT_OK;
}

const struct fl_command fl_cmd_records = {
    .name = "records",
    .run = cmd_records,
    .usage = "records FILE|-",
    .summary = "check a console log's FLR1 records and print their JSON",
    .help = "operands:\n"
	    "  FILE|-         a console log, or - for standard input\n"
	    "  -h, --help     this help\n"
	    "\n"
	    "Prints every complete FLR1 record's JSON on its own line, and on standard\n"
	    "error how many records were garbled, missing or duplicated.\n"
	    "Exit: 0 every record intact, 1 a record lost or not a JSON object, 4 the file\n"
	    "cannot be read.\n",
};
