/* builtin/help.c - "faultline help [COMMAND]": the command list or one usage. */
#include "builtin/builtin.h"

#include <stdio.h>

int cmd_help(int argc, char **argv)
{
	const struct fl_command *c;

	if (argc > 2)
		return fl_usage("help");
	if (argc == 2) {
		c = fl_command_find(argv[1]);
		if (!c) {
			fprintf(stderr, "faultline: no command '%s'\n", argv[1]);
			return FL_EXIT_USAGE;
		}
		printf("usage: faultline %s\n\n  %s\n", c->usage, c->summary);
		return FL_EXIT_OK;
	}
	printf("usage: faultline [-v | -q] [--config PATH] <command> [options]\n\ncommands:\n");
	for (c = fl_commands(); c->name; c++)
		printf("  %-10s %s\n", c->name, c->summary);
	printf("\nexit codes: 0 ok, 1 negative answer, 2 usage or configuration error,\n"
	       "            3 inconclusive, 4 runtime failure\n");
	return FL_EXIT_OK;
}
