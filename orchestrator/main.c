/*
 * main.c - the faultline binary: global options, then git-style dispatch to
 * one command per file under builtin/.
 */
#include "builtin/builtin.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/log.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *fl_opt_config = "faultline.yaml";

static const struct fl_command commands[] = {
	{"bisect", cmd_bisect,
	 "bisect run [--repo DIR] --good REV [--good REV]... --bad REV [--mode values|exit-code] "
	 "[--direction higher|lower] [--min-change PCT] [--false-pass RATE] [--false-fail RATE] "
	 "[--confidence P] [--max-runs N] [--timeout SECONDS] [--json] [--db PATH] "
	 "-- CMD [ARGS...]",
	 "find the commit that made a noisy benchmark worse or a flaky test fail",
	 cmd_bisect_help},
	{"build", cmd_build, "build [--config F] [--tree T] --rev REV [--kernel K]",
	 "build a kernel, or find it in the artifact cache; prints the artifact directory",
	 cmd_build_help},
	{"compare", cmd_compare,
	 "compare [--config F] --a REV --b REV [--benchmark B] [--machine M] [--tree T] [--json]",
	 "two revisions (or run:ID,... lists) side by side from the stored runs, LKP's way",
	 cmd_compare_help},
	{"config", cmd_config, "config check [FILE]", "validate a configuration and print it normalised",
	 cmd_config_help},
	{"db", cmd_db, "db init|migrate [--config F | --db PATH]", "create or upgrade the SQLite store",
	 cmd_db_help},
	{"initramfs", cmd_initramfs, "initramfs [--agent PATH] [--job TEXT] [--gzip] OUT", "write a guest initramfs with fl-agent as /init",
	 cmd_initramfs_help},
	{"profile", cmd_profile, "profile [--system-map FILE] [--top N] CONSOLE|-",
	 "the kernel profile of each measured point in a console log, per function",
	 cmd_profile_help},
	{"records", cmd_records, "records FILE|-", "check a console log's FLR1 records and print their JSON",
	 cmd_records_help},
	{"queue", cmd_queue,
	 "queue show|enable|retry [MACHINE | JOB | --failed] [--config F | --db PATH] [--json]",
	 "show the watch service's jobs and machines, put a machine back in the pool, retry "
	 "failed jobs",
	 cmd_queue_help},
	{"regression", cmd_regression,
	 "regression list [--state S] [--tree T] [--json] | show ID [--json] | mark ID "
	 "open|invalid|fixed --fix REV|duplicate --dup ID [--by WHO] [--note TEXT] [--json] "
	 "[--config F]",
	 "list regressions and their states, show one, mark it (mailed in its thread)",
	 cmd_regression_help},
	{"mail", cmd_mail, "mail ingest [--config F] MAILDIR",
	 "act on the #faultline commands of replies to reports in a Maildir, each answered in "
	 "its thread",
	 cmd_mail_help},
	{"report", cmd_report, "report list|show ID [--config F | --db PATH] [--json]",
	 "list the stored reports, or print one as it was mailed, with its delivery state",
	 cmd_report_help},
	{"serve", cmd_serve, "serve [--config F] [--db PATH] [--listen HOST:PORT] [--root DIR] [--threads N]",
	 "serve the results pages and their JSON API until SIGINT or SIGTERM",
	 cmd_serve_help},
	{"watch", cmd_watch, "watch [--config F] [--once] [--maildir DIR]",
	 "test new tags of the trees, bisect regressions, mail reports (--once: one pass)",
	 cmd_watch_help},
	{"run", cmd_run,
	 "run [--config F] [--machine M] [--benchmark B] [--tree T --rev REV [--kernel K] | "
	 "--kernel-image PATH [--system-map PATH]] [--repeat N] [--timeout DURATION] "
	 "[--job KEY=VALUE]...",
	 "boot a kernel on a machine, run a benchmark, store and print operations per second",
	 cmd_run_help},
	{"try", cmd_try,
	 "try [--config F] (--regression ID [--base REV] | --base REV) (--patch FILE | --rev REV) "
	 "[--tree T] [--benchmark B] [--machine M] [--point MODE:TASKS[:CGROUP]]... | "
	 "try --resume ID",
	 "measure a proposed fix against its base (and a regression's good commit); "
	 "reply in the regression's thread",
	 cmd_try_help},
	{"help", cmd_help, "help [COMMAND]", "show the commands, or one command's usage",
	 cmd_help_help},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct fl_command *fl_commands(void)
{
	return commands;
}

const struct fl_command *fl_command_find(const char *name)
{
	for (const struct fl_command *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int fl_usage(const char *name)
{
	const struct fl_command *c = fl_command_find(name);

	fprintf(stderr, "usage: faultline %s\n", c ? c->usage : name);
	fprintf(stderr, "'faultline help %s' lists the options\n", name);
	return FL_EXIT_USAGE;
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

int fl_store_opts_parse(int argc, char **argv, const char *cmd, int flags,
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
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'c')
			o->config = optarg;
		else if (c == 'd')
			o->db = optarg;
		else if (c == 'j' && (flags & FL_STORE_OPTS_JSON))
			o->json = 1;
		else
			return fl_usage(cmd);
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

/* -h or --help among a command's options (not in what follows "--", a
 * command of its own): its full help on standard output, exit 0, as every
 * command-line tool answers it. "bisect" parses its own (a CMD after its
 * options may take --help), and prints the same text. */
static int wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	return 0;
}

static int main_usage(void)
{
	fprintf(stderr, "usage: faultline [-v | -q] [--config PATH] <command> [options]\n"
			"       faultline help [command]\n"
			"       faultline --version\n");
	return FL_EXIT_USAGE;
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
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return cmd_help(1, (char *[]){"help", NULL});
		else if (!strcmp(argv[i], "--version")) {
			printf("faultline %s\n", FL_VERSION);
			return FL_EXIT_OK;
		}
		else {
			fprintf(stderr, "faultline: unknown option '%s'\n", argv[i]);
			return main_usage();
		}
	}
	if (i == argc)
		return main_usage();
	c = fl_command_find(argv[i]);
	if (!c) {
		fprintf(stderr, "faultline: '%s' is not a command; see 'faultline help'\n",
			argv[i]);
		return FL_EXIT_USAGE;
	}
	if (wants_help(argc - i, argv + i) && c->run != cmd_bisect)
		return cmd_help(2, (char *[]){"help", argv[i], NULL});
	return c->run(argc - i, argv + i);
}
