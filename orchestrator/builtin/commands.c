/*
 * builtin/commands.c - the table of faultline's commands, in the order
 * "faultline help" lists them. Each command's name, usage line, summary
 * and help are its own file's struct fl_command (builtin/NAME.c): the one
 * text "faultline help", "--help", a usage error, the bash completion
 * (dist/bash-completion/, which reads the help) and docs/cli.md's heading
 * for it (tests/cli/help.sh compares them) are made of.
 */
#include "builtin/builtin.h"

#include <stdio.h>
#include <string.h>

extern const struct fl_command fl_cmd_bisect, fl_cmd_build, fl_cmd_compare, fl_cmd_config,
    fl_cmd_db, fl_cmd_initramfs, fl_cmd_profile, fl_cmd_records, fl_cmd_queue, fl_cmd_regression,
    fl_cmd_mail, fl_cmd_report, fl_cmd_serve, fl_cmd_watch, fl_cmd_run, fl_cmd_try, fl_cmd_help;

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

int fl_usage(const char *name)
{
	const struct fl_command *c = fl_command_find(name);

	fprintf(stderr, "usage: faultline %s\n", c ? c->usage : name);
	fprintf(stderr, "'faultline help %s' lists the options\n", name);
	return FL_EXIT_USAGE;
}
