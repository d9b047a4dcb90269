/*
 * builtin/commands.c - the table of faultline's commands, in the order
 * "faultline help" lists them, and "faultline help [COMMAND]" itself: the
 * program's usage, its global options and the command list, or one
 * command's full help. Each command's name, usage line, summary and help
 * are its own file's struct fl_command (builtin/NAME.c, declared in
 * builtin.h): the one text "faultline help", "--help", a usage error, the
 * bash completion (dist/bash-completion/, which reads the help) and
 * docs/cli.md's heading for it (tests/cli/help.sh compares them) are made
 * of. A new command is its file, its line in builtin.h and one here.
 */
#include "builtin/builtin.h"

#include <stdio.h>
#include <string.h>

static const struct fl_command *const commands[] = {
    &fl_cmd_bisect,	&fl_cmd_build,	 &fl_cmd_compare,
    &fl_cmd_config,	&fl_cmd_db,	 &fl_cmd_initramfs,
    &fl_cmd_profile,	&fl_cmd_records, &fl_cmd_queue,
    &fl_cmd_regression, &fl_cmd_mail,	 &fl_cmd_report,
    &fl_cmd_serve,	&fl_cmd_watch,	 &fl_cmd_run,
    &fl_cmd_try,	&fl_cmd_help,	 NULL,
};

const struct fl_command *const *fl_commands(void)
{
	return commands;
}

const struct fl_command *fl_command_find(const char *name)
{
	for (const struct fl_command *const *c = commands; *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}

void fl_help_overview(FILE *f)
{
	fl_help_usage(f);
	fprintf(f, "\nglobal options:\n"
		   "  -v, --verbose   more detail on standard error\n"
		   "  -q, --quiet     only warnings and errors on standard error\n"
		   "  --config PATH   the configuration (default: ./faultline.yaml)\n"
		   "  --version       print the version and exit\n"
		   "  -h, --help      this help\n\n"
		   "commands:\n");
	for (const struct fl_command *const *c = fl_commands(); *c; c++)
		fprintf(f, "  %-10s %s\n", (*c)->name, (*c)->summary);
	fprintf(f, "\n'faultline help COMMAND' or 'faultline COMMAND --help' prints a command's "
		   "options.\n"
		   "exit codes: 0 ok, 1 negative answer, 2 usage or configuration error,\n"
		   "            3 inconclusive, 4 runtime failure\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct fl_command *c;

	if (argc > 2)
		return fl_usage(&fl_cmd_help);
	if (argc == 2) {
		c = fl_command_find(argv[1]);
		if (!c) {
			fprintf(stderr, "faultline: no command '%s'; 'faultline help' lists them\n",
				argv[1]);
			return FL_EXIT_USAGE;
		}
		fl_help_print(c, stdout);
		return FL_EXIT_OK;
	}
	fl_help_overview(stdout);
	return FL_EXIT_OK;
}

const struct fl_command fl_cmd_help = {
    .name = "help",
    .run = cmd_help,
    .usage = "help [COMMAND]",
    .summary = "show the commands, or one command's usage",
    .help = "operands:\n"
	    "  COMMAND        print this command's help (as faultline COMMAND --help does)\n"
	    "  -h, --help     this help\n",
};
