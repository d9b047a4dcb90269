/*
 * builtin/help.c - "faultline help [COMMAND]": the program's usage, its
 * global options and the command list, or one command's full help (the
 * text "faultline COMMAND --help" prints too), made of the command's own
 * struct fl_command.
 */
#include "builtin/builtin.h"

#include <stdio.h>

void fl_help_usage(FILE *f)
{
	fprintf(f, "usage: faultline [-v | -q] [--config PATH] <command> [options]\n"
		   "       faultline help [command]\n"
		   "       faultline --version\n");
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

void fl_help_print(const struct fl_command *c, FILE *f)
{
	fprintf(f, "usage: faultline %s\n\n%c%s.\n\n%s", c->usage,
		c->summary[0] >= 'a' && c->summary[0] <= 'z' ? c->summary[0] - 'a' + 'A'
							     : c->summary[0],
		c->summary + 1, c->help);
}

static int cmd_help(int argc, char **argv)
{
	const struct fl_command *c;

	if (argc > 2)
		return fl_usage("help");
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
