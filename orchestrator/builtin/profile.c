/*
 * builtin/profile.c - "faultline profile [--system-map FILE] [--top N] CONSOLE|-":
 * the kernel profile of every measured point in a guest's console log, per
 * function, most samples first. Functions are named with FILE (the build's
 * System.map) or, without it, with the kernel's own names the agent sent.
 * Exit 1 when no point has a profile.
 */
#include "builtin/builtin.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/error.h"
#include "analysis/evidence.h"
#include "proto/record.h"

struct collected {
	char **json;
	size_t *len, n;
};

static int collect(void *arg, uint64_t seq, const char *json, size_t len)
{
	struct collected *c = arg;

	(void)seq;
	c->json = fl_xrealloc(c->json, (c->n + 1) * sizeof(*c->json));
	c->len = fl_xrealloc(c->len, (c->n + 1) * sizeof(*c->len));
	c->json[c->n] = fl_xstrndup(json, len);
	c->len[c->n++] = len;
	return 0;
}

static int read_console(const char *path, struct collected *c)
{
	struct fl_record_parser p;
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char buf[65536];
	size_t n;

	if (!f)
		return fl_error_set(FL_EIO, "%s: %s", path, strerror(errno));
	fl_record_parser_init(&p, collect, c);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fl_record_feed(&p, buf, n);
	fl_record_finish(&p);
	fl_record_parser_free(&p);
	if (f != stdin)
		fclose(f);
	return 0;
}

static void print_point(const struct fl_evidence_point *pt, size_t top)
{
	printf("%s %s tasks=%u: ", pt->test, pt->mode, pt->tasks);
	if (!pt->nfn) {
		printf("no profile (%s)\n", pt->profile);
		return;
	}
	printf("%llu samples\n", (unsigned long long)pt->profile_samples);
	for (size_t i = 0; i < pt->nfn && i < top; i++)
		printf("  %6.2f%%  %8llu  %s\n", 100 * pt->fn[i].share,
		       (unsigned long long)pt->fn[i].samples, pt->fn[i].name);
}

static int cmd_profile(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"system-map", required_argument, NULL, 's'},
	    {"top", required_argument, NULL, 't'},
	    {NULL, 0, NULL, 0},
	};
	const char *map = NULL, *path;
	struct collected c = { 0 };
	fl_symbols *syms = NULL;
	size_t top = 20, shown = 0;
	int rc = FL_EXIT_OK, o;

	optind = 1;
	while ((o = fl_getopt(argc, argv, "", opts)) != -1) {
		if (o == 's')
			map = optarg;
		else if (o == 't')
			top = strtoul(optarg, NULL, 10);
		else
			return fl_usage(&fl_cmd_profile);
	}
	if (optind + 1 != argc)
		return fl_usage(&fl_cmd_profile);
	path = argv[optind];
	if (map && fl_symbols_load(&syms, map)) {
		fprintf(stderr, "profile: %s\n", fl_error_last());
		return FL_EXIT_USAGE;
	}
	if (read_console(path, &c)) {
		fprintf(stderr, "profile: %s\n", fl_error_last());
		return FL_EXIT_FAIL;
	}
	if (!syms)
		syms = fl_evidence_ksyms((const char *const *)c.json, c.len, c.n);
	for (size_t i = 0; i < c.n && rc == FL_EXIT_OK; i++) {
		struct fl_evidence_point pt;
		int has;

		if (fl_evidence_from_record(c.json[i], c.len[i], syms, &pt, &has)) {
			fprintf(stderr, "profile: %s: record %zu: %s\n", path, i + 1, fl_error_last());
			rc = FL_EXIT_FAIL;
		} else if (has && pt.source != FL_EV_LOCKS &&
			   (pt.source == FL_EV_PROFILE || strcmp(pt.profile, "recorded"))) {
			print_point(&pt, top);
			shown += pt.nfn > 0;
		}
		fl_evidence_point_release(&pt);
	}
	for (size_t i = 0; i < c.n; i++)
		free(c.json[i]);
	free(c.json);
	free(c.len);
	fl_symbols_free(syms);
	if (rc == FL_EXIT_OK && !shown)
		rc = FL_EXIT_NO;
	return rc;
}

const struct fl_command fl_cmd_profile = {
    .name = "profile",
    .run = cmd_profile,
    .usage = "profile [--system-map FILE] [--top N] CONSOLE|-",
    .summary = "the kernel profile of each measured point in a console log, per function",
    .help = "options:\n"
	    "  --system-map FILE   name the functions with this System.map (default: the\n"
	    "                      kernel's own names the agent sent)\n"
	    "  --top N             print the N functions with most samples (default 20)\n"
	    "  CONSOLE|-           a guest's console log, or - for standard input\n"
	    "  -h, --help          this help\n"
	    "\n"
	    "Exit: 0 some point has a profile, 1 none has, 2 a System.map that is not one,\n"
	    "4 the console cannot be read.\n",
};
