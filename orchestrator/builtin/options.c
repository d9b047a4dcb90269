/*
 * builtin/options.c - what the commands share around their arguments: the
 * global --config, a command's usage and help as printed, parsing that says
 * what is wrong with an option or a subcommand, the configuration and the
 * names it defaults, and the "--config F | --db PATH" of the commands that
 * only need the store. It knows each command by its struct fl_command, not
 * the table of them (commands.c, above it).
 */
#include "builtin/builtin.h"
#include "config/config.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *fl_opt_config = "faultline.yaml";

void fl_help_usage(FILE *f)
{
	fprintf(f, "usage: faultline [-v | -q] [--config PATH] <command> [options]\n"
		   "       faultline help [command]\n"
		   "       faultline --version\n");
}

void fl_help_print(const struct fl_command *c, FILE *f)
{
	fprintf(f, "usage: faultline %s\n\n%c%s.\n\n%s", c->usage,
		c->summary[0] >= 'a' && c->summary[0] <= 'z' ? c->summary[0] - 'a' + 'A'
							     : c->summary[0],
		c->summary + 1, c->help);
}

int fl_usage(const struct fl_command *c)
{
	fprintf(stderr, "usage: faultline %s\n", c->usage);
	fprintf(stderr, "'faultline help %s' lists the options\n", c->name);
	return FL_EXIT_USAGE;
}

int fl_arg_error(const char *name, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return FL_EINVAL;
}

int fl_getopt(int argc, char **argv, const char *shortopts, const struct option *opts)
{
	int idx = -1, c = getopt_long(argc, argv, shortopts, opts, &idx);

	if (c != -1 && c != '?' && idx >= 0 && opts[idx].has_arg == required_argument && !*optarg) {
		fl_arg_error(argv[0], "option '--%s' needs a value, not an empty one",
			     opts[idx].name);
		return '?';
	}
	return c;
}

int fl_subcommand(int argc, char **argv, const struct fl_command *c, const char *const *subs,
		  int *which)
{
	fl_buf list = FL_BUF_INIT;

	for (int i = 0; subs[i]; i++)
		if (argc > 1 && !strcmp(argv[1], subs[i])) {
			*which = i;
			return 0;
		}
	for (int i = 0; subs[i]; i++)
		fl_buf_addf(&list, "%s%s", i ? ", " : "", subs[i]);
	if (argc > 1)
		fl_arg_error(argv[0], "'%s' is not a subcommand (%s)", argv[1], list.ptr);
	else
		fl_arg_error(argv[0], "a subcommand is needed (%s)", list.ptr);
	fl_buf_free(&list);
	return fl_usage(c);
}

int fl_load_config(struct fl_config **cfg, const char *path)
{
	if (fl_config_load(cfg, path ? path : fl_opt_config)) {
		fprintf(stderr, "%s\n", fl_error_last());
		return FL_EXIT_USAGE;
	}
	return 0;
}

int fl_pick_names(const struct fl_config *cfg, const char **bench, const char **machine,
		  const char **tree, const struct fl_benchmark_conf **b,
		  const struct fl_machine_conf **m, const struct fl_tree_conf **t)
{
	const char *what = NULL, *name = NULL;

	if (!*bench && cfg->nbenchmarks == 1)
		*bench = cfg->benchmarks[0].name;
	if (!*machine && cfg->nmachines == 1)
		*machine = cfg->machines[0].name;
	if (tree && !*tree && cfg->ntrees == 1)
		*tree = cfg->trees[0].name;
	*b = *bench ? fl_config_benchmark(cfg, *bench) : NULL;
	*m = *machine ? fl_config_machine(cfg, *machine) : NULL;
	*t = tree && *tree ? fl_config_tree(cfg, *tree) : NULL;
	if (*bench && !*b)
		what = "benchmark", name = *bench;
	else if (*machine && !*m)
		what = "machine", name = *machine;
	else if (tree && *tree && !*t)
		what = "tree", name = *tree;
	if (!what)
		return 0;
	fprintf(stderr, "faultline: %s: no %s '%s'\n", cfg->path, what, name);
	return FL_EXIT_USAGE;
}

int fl_store_opts_parse(int argc, char **argv, const struct fl_command *cmd, int flags,
			struct fl_store_opts *o)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"db", required_argument, NULL, 'd'},
	    {"json", no_argument, NULL, 'j'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	optind = 2;
	while ((c = fl_getopt(argc, argv, "", opts)) != -1) {
		if (c == 'c')
			o->config = optarg;
		else if (c == 'd')
			o->db = optarg;
		else if (c == 'j' && (flags & FL_STORE_OPTS_JSON))
			o->json = 1;
		else {
			if (c == 'j')
				fl_arg_error(cmd->name, "--json is not an option of %s", cmd->name);
			return fl_usage(cmd);
		}
	}
	return 0;
}

int fl_store_opts_path(struct fl_store_opts *o, const char **path)
{
	int r;

	if (!o->db) {
		if ((r = fl_load_config(&o->cfg, o->config)))
			return r;
		o->db = o->cfg->store.path;
	}
	*path = o->db;
	return 0;
}
