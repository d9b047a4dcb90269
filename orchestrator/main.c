/*
 * main.c - the faultline binary: the global options, then git-style
 * dispatch to the command builtin/commands.c names, one file each under
 * builtin/. The commands, their usage and their help are builtin/'s.
 */
#include "builtin/builtin.h"
#include "lib/log.h"

#include <stdio.h>
#include <string.h>

/* -h or --help among a command's options (not in what follows "--", a
 * command of its own): its full help on standard output, exit 0, as every
 * command-line tool answers it. A command with own_help ("bisect": a CMD
 * after its options may take --help) parses its own, and prints the same
 * text. */
static int wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const struct fl_command *c;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))
			fl_log_set_level(FL_LOG_VERBOSE);
		else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			fl_log_set_level(FL_LOG_QUIET);
		else if (!strcmp(argv[i], "--config") && i + 1 < argc)
			fl_opt_config = argv[++i];
		else if (!strncmp(argv[i], "--config=", 9))
			fl_opt_config = argv[i] + 9;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fl_help_overview(stdout);
			return FL_EXIT_OK;
		} else if (!strcmp(argv[i], "--version")) {
			printf("faultline %s\n", FL_VERSION);
			return FL_EXIT_OK;
		} else {
			fprintf(stderr, "faultline: unknown option '%s'\n", argv[i]);
			fl_help_usage(stderr);
			return FL_EXIT_USAGE;
		}
	}
	if (i == argc) {
		fl_help_usage(stderr);
		return FL_EXIT_USAGE;
	}
	c = fl_command_find(argv[i]);
	if (!c) {
		fprintf(stderr, "faultline: '%s' is not a command; see 'faultline help'\n",
			argv[i]);
		return FL_EXIT_USAGE;
	}
	if (!c->own_help && wants_help(argc - i, argv + i)) {
		fl_help_print(c, stdout);
		return FL_EXIT_OK;
	}
	return c->run(argc - i, argv + i);
}
