/*
 * builtin/help.c - "faultline help [COMMAND]": the command list, or one
 * command's full help (the text "faultline COMMAND --help" prints too).
 */
#include "builtin/builtin.h"

#include <stdio.h>

const char cmd_help_help[] =
    "operands:\n"
    "  COMMAND        print this command's help (as faultline COMMAND --help does)\n"
    "  -h, --help     this help\n";

void fl_help_print(const struct fl_command *c, FILE *f)
{
	fprintf(f, "usage: faultline %s\n\n%c%s.\n\n%s", c->usage,
		c->summary[0] >= 'a' && c->summary[0] <= 'z' ? c->summary[0] - 'a' + 'A'
							     : c->summary[0],
		c->summary + 1, c->help);
}

int cmd_help(int argc, char **argv)
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
	printf("usage: faultline [-v | -q] [--config PATH] <command> [options]\n"
	       "       faultline help [command]\n"
	       "       faultline --version\n\n"
	       "global options:\n"
	       "  -v, --verbose   more detail on standard error\n"
	       "  -q, --quiet     only warnings and errors on standard error\n"
	       "  --config PATH   the configuration (default: ./faultline.yaml)\n"
	       "  --version       print the version and exit\n"
	       "  -h, --help      this help\n\n"
	       "commands:\n");
	for (c = fl_commands(); c->name; c++)
		printf("  %-10s %s\n", c->name, c->summary);
	printf("\n'faultline help COMMAND' or 'faultline COMMAND --help' prints a command's options.\n"
	       "exit codes: 0 ok, 1 negative answer, 2 usage or configuration error,\n"
	       "            3 inconclusive, 4 runtime failure\n");
	return FL_EXIT_OK;
}
