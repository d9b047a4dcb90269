/*
 * builtin/config.c - "faultline config check [FILE]": load a configuration,
 * print every problem with its file:line:col, or the normalised form; a
 * tree on this host whose tag patterns match none of its tags is said.
 */
#include "builtin/builtin.h"
#include "build/repo.h"
#include "config/config.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "service/trigger.h"

#include <getopt.h>
#include <stdio.h>

/* The trees on this host: a tag pattern that matches nothing is said (not an
 * error: a new tree may get its first tag later). */
static void check_tags(const struct fl_config *cfg)
{
	for (size_t i = 0; i < cfg->ntrees; i++) {
		const struct fl_tree_conf *t = &cfg->trees[i];
		fl_buf why = FL_BUF_INIT;
		fl_repo *repo;
		unsigned n;

		if (fl_repo_open_existing(&repo, t->name, t->url, cfg->var)) {
			fl_error_clear();
			continue;
		}
		if (fl_trigger_unmatched(repo, cfg, t, &why, &n))
			fprintf(stderr, "faultline: %s\n", fl_error_last());
		else if (n)
			fputs(why.ptr, stderr);
		fl_buf_free(&why);
		fl_repo_free(repo);
	}
}

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
	check_tags(cfg);
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
	    "the normalised configuration (defaults filled in, secrets masked), exit 0.\n"
	    "A tree already on this host (a local directory or faultline's clone) is\n"
	    "opened, never fetched: a tag pattern that matches none of its tags is said\n"
	    "on stderr with the newest tags it has.\n",
};
