/*
 * run-command.h - running a program the way every stage needs it (git's
 * run-command in spirit): an argv, environment additions, a working
 * directory, standard output (and error, unless told otherwise) into a file
 * and/or a line callback, a timeout that kills the whole process group,
 * and a cancel it polls (cancel.h).
 */
#ifndef FL_RUN_COMMAND_H
#define FL_RUN_COMMAND_H

#include <stdint.h>

/* Where the child's standard error goes. */
enum fl_child_err {
	FL_ERR_MERGED = 0, /* with standard output, to out_path and on_line */
	FL_ERR_OURS,	   /* to our standard error, as it is */
	FL_ERR_NULL,	   /* nowhere */
};

/* The child runs in its own process group with /dev/null as standard input. */
struct fl_child {
	const char *const *argv; /* argv[0] is looked up in PATH */
	const char *const *env;	 /* "NAME=value" added to the environment, NULL-terminated */
	const char *dir;	 /* working directory, NULL for ours */
	const char *out_path;	 /* stdout+stderr appended here; NULL: not kept */
	const char *err_path;	 /* set: stderr appended here, apart from stdout (err ignored) */
	/* each line of stdout+stderr, without its newline, while the child runs */
	void (*on_line)(void *data, const char *line);
	void *data;
	int64_t timeout_ms; /* 0: none */
	enum fl_child_err err;
	/* Polled while the child runs (fl_cancel_requested of cancel.h, say);
	 * once it returns non-zero the child's process group gets SIGTERM, and
	 * SIGKILL 5 s later if it is still there; fl_run_command then returns
	 * as usual with its status. NULL: never. */
	int (*cancel)(void);
};

/*
 * Runs the child to the end. Returns 0 with *status = its exit code (128 +
 * signal when killed by one, cancelled ones too), FL_ENOTFOUND when the
 * program cannot be run, FL_ETIMEOUT after killing it at the timeout, FL_EIO
 * for our own trouble.
 */
int fl_run_command(const struct fl_child *c, int *status);

/* Runs argv and keeps the first line of its output in *line (caller frees). */
int fl_run_capture_line(const char *const *argv, char **line);

/*
 * Runs argv to the end, its output not kept. A non-zero exit is FL_EIO,
 * naming the program, its status and the first line it printed.
 */
int fl_run_checked(const char *const *argv);

/* Whether name is an executable in PATH. */
int fl_which(const char *name);

/* The path of the executable name in PATH (caller frees), or NULL. */
char *fl_which_path(const char *name);

#endif
