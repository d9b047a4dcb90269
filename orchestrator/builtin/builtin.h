/*
 * builtin.h - the faultline commands, one file each under builtin/, and what
 * they share: exit codes, the command table and option helpers
 * (options.c). main.c dispatches to them.
 */
#ifndef FL_BUILTIN_H
#define FL_BUILTIN_H

#include <stdio.h>

/* Exit codes, the same for every command (docs/cli.md). */
enum {
	FL_EXIT_OK = 0,
	FL_EXIT_NO = 1,		  /* a negative answer: no regression, check failed */
	FL_EXIT_USAGE = 2,	  /* usage or configuration error */
	FL_EXIT_INCONCLUSIVE = 3, /* the budget ran out before an answer */
	FL_EXIT_FAIL = 4,	  /* runtime failure: store, git, libvirt, I/O */
};

/*
 * A command: one per file, builtin/NAME.c, which defines its
 * "const struct fl_command fl_cmd_NAME"; builtin/commands.c lists them.
 * The usage, summary and help are the only text of the command's use:
 * "faultline help", --help, a usage error and the bash completion print or
 * read them, and docs/cli.md's heading for the command is "faultline " and
 * the usage (tests/cli/help.sh).
 */
struct fl_command {
	const char *name;
	const char *usage;   /* "config check [FILE]" */
	const char *summary; /* one line for "faultline help" */
	const char *help;    /* every option, one per line, and the exit codes */
	/* argv[0] is the name; an exit code (FL_EXIT_*) */
	int (*run)(int argc, char **argv);
	/* parses -h/--help itself: a CMD among its operands may take one */
	int own_help;
};

/* Global options, set by main.c before a command runs. */
extern const char *fl_opt_config; /* --config PATH, default ./faultline.yaml */

/* The commands, each defined in its builtin/NAME.c. */
extern const struct fl_command fl_cmd_bisect, fl_cmd_build, fl_cmd_compare, fl_cmd_config,
    fl_cmd_db, fl_cmd_initramfs, fl_cmd_profile, fl_cmd_records, fl_cmd_queue, fl_cmd_regression,
    fl_cmd_mail, fl_cmd_report, fl_cmd_serve, fl_cmd_watch, fl_cmd_run, fl_cmd_try, fl_cmd_help;

/* builtin/commands.c: the commands, NULL-terminated, in the order "faultline
 * help" lists them; one by name (NULL: none); the overview "faultline help"
 * and "faultline --help" print. */
const struct fl_command *const *fl_commands(void);
const struct fl_command *fl_command_find(const char *name);
void fl_help_overview(FILE *f);

/* builtin/options.c */
/* The program's usage lines (what a wrong global option prints); a
 * command's full help (usage, summary, options): what "faultline help
 * NAME", "faultline NAME --help" and "-h" print. */
void fl_help_usage(FILE *f);
void fl_help_print(const struct fl_command *c, FILE *f);
/* Prints "usage: faultline <usage>" for c to stderr with a hint at its
 * help; returns FL_EXIT_USAGE. */
int fl_usage(const struct fl_command *c);

struct option;
/* Says what is wrong with a command's arguments on stderr, "NAME: what";
 * FL_EINVAL, after which the caller prints its usage. */
int fl_arg_error(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * getopt_long over a command's options (the caller sets optind: 1, or 2
 * after a subcommand), refusing what getopt_long lets through: an empty
 * value ("--rev ''", "--rev="). An unknown option, a missing value (which
 * getopt_long says) and an empty one (said here) are '?' with the reason,
 * naming the option, on stderr; the caller then prints its usage.
 */
int fl_getopt(int argc, char **argv, const char *shortopts, const struct option *opts);
/* argv[1] is one of subs (NULL-terminated): 0 and its index in *which, or
 * FL_EXIT_USAGE once the reason ("'x' is not a subcommand (init,
 * migrate)") and c's usage are printed. */
int fl_subcommand(int argc, char **argv, const struct fl_command *c, const char *const *subs,
		  int *which);

struct fl_config;
/* Loads --config (or path when given) and prints every error; returns 0 or FL_EXIT_*. */
int fl_load_config(struct fl_config **cfg, const char *path);

struct fl_benchmark_conf;
struct fl_machine_conf;
struct fl_tree_conf;
/*
 * What --benchmark, --machine and --tree name (tree NULL: the command takes
 * none), each defaulting to the configuration's only one and looked up.
 * 0 with the entries found (NULL for a name still missing: the caller's
 * usage error), or FL_EXIT_USAGE once an unknown name is printed.
 */
int fl_pick_names(const struct fl_config *cfg, const char **bench, const char **machine,
		  const char **tree, const struct fl_benchmark_conf **b,
		  const struct fl_machine_conf **m, const struct fl_tree_conf **t);

/* "--config F | --db PATH", shared by the commands that only need the store. */
struct fl_store_opts {
	const char *config, *db;
	int json; /* --json, for the commands that pass FL_STORE_OPTS_JSON */
	struct fl_config *cfg; /* loaded by fl_store_opts_path() when --db is absent */
};
/* Parses the options from argv[2]; optind is left at the first operand.
 * flags: FL_STORE_OPTS_JSON accepts --json. */
enum { FL_STORE_OPTS_JSON = 1 };
int fl_store_opts_parse(int argc, char **argv, const struct fl_command *cmd, int flags,
			struct fl_store_opts *o);
/* --db, or the configuration's store.path; 0 or FL_EXIT_*. */
int fl_store_opts_path(struct fl_store_opts *o, const char **path);

#endif
