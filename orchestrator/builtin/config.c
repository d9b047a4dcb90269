/*
 * builtin/config.c - "faultline config check [FILE]": load a configuration,
 * print every problem with its file:line:col, or the normalised form.
 */
#include "builtin/builtin.h"
#include "config/config.h"

#include <getopt.h>
#include <stdio.h>

static int cmd_config(int argc, char **argv)
{
	static const char *const subs[] = {"check", NULL};
	static const struct option none[] = {{NULL, 0, NULL, 0}};
	struct fl_config *cfg;
	int r, sub;

	if ((r = fl_subcommand(argc, argv, &fl_cmd_config, subs, &sub)))
		return r;
	optind = 2;
	if (fl_getopt(argc, argv, "", none) != -1 || argc - optind > 1)
		return fl_usage(&fl_cmd_config);
	r = fl_load_config(&cfg, optind < argc ? argv[optind] : NULL);
	if (r)
		return r;
	fl_config_print(cfg, stdout);
	fl_config_free(cfg);
	return FL_EXIT_OK;
}

const struct fl_command fl_cmd_config = {
    .name = "config",
    .run = cmd_config,
    .usage = "config check [FILE]",
    .summary = "validate a configuration and print it normalised",
    .help = "operands:\n"
	    "  FILE           the configuration to check (default: the global --config,\n"
	    "                 ./faultline.yaml)\n"
	    "  -h, --help     this help\n"
	    "\n"
	    "Prints every problem as file:line:col: path: message and exits 2, or prints\n"
	    "the normalised configuration (defaults filled in, secrets masked), exit 0.\n",
};
