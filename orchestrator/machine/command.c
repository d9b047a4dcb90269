/*
 * machine/command.c - the command backend: a machine whose run is a shell
 * command run in a private checkout of the commit, for projects that are
 * not kernels and for fast tests (see machine.h).
 *
 * The checkout is var/checkouts/<machine>/<slot>/src, moved from commit to
 * commit by checkout.c; the user's own tree, index and HEAD are never
 * touched. The command runs under sh -c with FAULTLINE_COMMIT=<sha> in its
 * environment and the machine's timeout. Each line of its standard output
 * that is a single number is one sample (metric "value", mode "", tasks
 * 1); standard error is kept apart for the console. Exit 125 means the
 * commit cannot be tested (a build that fails): the run ends untestable
 * (the dispatcher keeps nothing of it), and the first line of standard
 * error that says "error" is the reason given. Any other failure of the
 * command is the commit's (agent-error, timeout); a checkout that cannot
 * be made is ours (infra-error). The samples, the console (standard
 * output, then standard error's tail) and the host's facts go to the
 * request's sink.
 */
#include "lib/buf.h"
#include "build/checkout.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "lib/log.h"
#include "machine/priv.h"
#include "lib/run-command.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <unistd.h>

#define CONSOLE_MAX (64 * 1024) /* what is kept of a run's output */

struct cmd_run {
	const struct fl_run_req *req;
	char *slot_dir, *src, *state, *err;
	int lock_fd;
	/* stdout while the command runs */
	double *v;
	size_t n, alloc;
	fl_buf out;
};

/* A line that is exactly one finite number, blanks around allowed. */
static int number_line(const char *line, double *x)
{
	char *end;

	errno = 0;
	*x = strtod(line, &end);
	if (end == line || errno || !isfinite(*x))
		return 0;
	while (*end == ' ' || *end == '\t' || *end == '\r')
		end++;
	return !*end;
}

static void on_line(void *data, const char *line)
{
	struct cmd_run *x = data;
	double v;

	if (x->out.len < CONSOLE_MAX) {
		fl_buf_adds(&x->out, line);
		fl_buf_addch(&x->out, '\n');
	}
	if (!number_line(line, &v))
		return;
	if (x->n == x->alloc) {
		x->alloc = x->alloc ? 2 * x->alloc : 16;
		x->v = fl_xrealloc(x->v, x->alloc * sizeof(double));
	}
	x->v[x->n++] = v;
}

/* The first free slot of the machine (the queue never runs more than max_parallel). */
static int slot_lock(struct cmd_run *x)
{
	const struct fl_machine_conf *m = x->req->machine;
	unsigned n = m->max_parallel ? m->max_parallel : 1;
	char *dir = fl_xasprintf("%s/checkouts/%s", x->req->cfg->var, m->name);
	int r = fl_mkdir_p(dir);

	for (unsigned i = 0; !r && i < n; i++) {
		char *p = fl_xasprintf("%s/%u.lock", dir, i);
		int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

		free(p);
		if (fd < 0) {
			r = fl_error_set(FL_EIO, "machine '%s': slot lock: %s", m->name,
					 strerror(errno));
			break;
		}
		if (!flock(fd, LOCK_EX | LOCK_NB) || (i == n - 1 && !flock(fd, LOCK_EX))) {
			x->lock_fd = fd;
			x->slot_dir = fl_xasprintf("%s/%u", dir, i);
			break;
		}
		close(fd);
	}
	if (!r) {
		x->src = fl_xasprintf("%s/src", x->slot_dir);
		x->state = fl_xasprintf("%s/HEAD", x->slot_dir);
		x->err = fl_xasprintf("%s/stderr", x->slot_dir);
		r = fl_mkdir_p(x->slot_dir);
	}
	free(dir);
	return r;
}

/* What a report can say about a command machine: the host it runs on. */
static void record_facts(struct cmd_run *x)
{
	struct utsname u;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), pages = sysconf(_SC_PHYS_PAGES);
	json_t *o = json_object();
	char *text;

	if (!uname(&u)) {
		json_object_set_new(o, "host", json_string(u.nodename));
		json_object_set_new(o, "kernel", json_string(u.release));
		json_object_set_new(o, "arch", json_string(u.machine));
	}
	json_object_set_new(o, "cpus", json_integer(cpus));
	if (pages > 0)
		json_object_set_new(o, "memory",
				    json_integer((json_int_t)pages * sysconf(_SC_PAGESIZE)));
	text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	if (text && x->req->sink->facts(x->req->sink->arg, text))
		fl_warn("machine '%s': %s", x->req->machine->name, fl_error_last());
	free(text);
	json_decref(o);
}

/* The run row's parameters: the command and the commit it ran on. */
static char *command_params(const struct fl_run_req *req)
{
	json_t *p = json_pack("{s:s, s:s, s:s}", "command", req->machine->command, "commit",
			      req->sha, "tree", req->tree->name);
	char *params = json_dumps(p, JSON_COMPACT | JSON_SORT_KEYS), *copy;

	json_decref(p);
	copy = fl_xstrdup(params ? params : "{}");
	free(params);
	return copy;
}

/* The last non-blank line of stderr; first_error: the first that says "error"
 * if one does (what a build that fails is known by), else the last. */
static char *err_line(const char *path, int first_error)
{
	char line[512], last[512] = "", error[512] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (!line[strspn(line, " \t\r\n")])
			continue;
		snprintf(last, sizeof(last), "%.*s", (int)strcspn(line, "\r\n"), line);
		if (first_error && !error[0] && strstr(line, "error"))
			snprintf(error, sizeof(error), "%s", last);
	}
	fclose(f);
	return error[0] ? fl_xstrdup(error) : last[0] ? fl_xstrdup(last) : NULL;
}

/* stdout, then stderr's tail, as the run's console. */
static char *console(struct cmd_run *x)
{
	fl_buf b = FL_BUF_INIT;
	char chunk[4096];
	FILE *f = fopen(x->err, "r");
	size_t got;

	fl_buf_adds(&b, fl_buf_str(&x->out));
	if (f) {
		fseek(f, 0, SEEK_END);
		if (ftell(f) > CONSOLE_MAX)
			fseek(f, -CONSOLE_MAX, SEEK_END);
		else
			fseek(f, 0, SEEK_SET);
		fl_buf_adds(&b, "--- stderr ---\n");
		while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
			fl_buf_add(&b, chunk, got);
		fclose(f);
	}
	return fl_buf_detach(&b);
}

/* The end to the sink: the samples of an ok run, the console when the command ran. */
static int hand_end(struct cmd_run *x, const struct fl_run_result *res, const char *console)
{
	const struct fl_run_sink *sink = x->req->sink;
	struct fl_machine_end e = {
	    .status = res->status, .detail = res->detail, .console = console};
	struct fl_run_sample *s = NULL;
	int r;

	if (res->status == FL_RUN_OK) {
		s = fl_xcalloc(x->n, sizeof(*s));
		for (size_t i = 0; i < x->n; i++)
			s[i] = (struct fl_run_sample){"value", "", 1, (unsigned)i, x->v[i], ""};
		e.samples = s;
		e.nsamples = x->n;
	}
	r = sink->end(sink->arg, &e);
	free(s);
	return r;
}

/* Runs the command in the checkout and classifies its end. */
static int run_command(struct cmd_run *x, struct fl_run_result *res)
{
	const struct fl_machine_conf *m = x->req->machine;
	const char *argv[] = {"sh", "-c", m->command, NULL};
	char *commit = fl_xasprintf("FAULTLINE_COMMIT=%s", x->req->sha);
	const char *env[] = {commit, NULL};
	struct fl_child c = {.argv = argv,
			     .env = env,
			     .dir = x->src,
			     .err_path = x->err,
			     .on_line = on_line,
			     .data = x,
			     .timeout_ms = m->timeout_ms};
	int status = 0, r;
	char *why;

	unlink(x->err);
	r = fl_run_command(&c, &status);
	free(commit);
	if (r == FL_ETIMEOUT) {
		res->status = FL_RUN_TIMEOUT;
		res->detail = fl_xstrdup(fl_error_last());
	} else if (r) {
		res->status = FL_RUN_INFRA_ERROR;
		res->detail = fl_xstrdup(fl_error_last());
	} else if (status == 125) {
		why = err_line(x->err, 1);
		res->status = FL_RUN_UNTESTABLE;
		res->detail = fl_xasprintf("exit 125: the commit cannot be tested%s%s",
					   why ? ": " : "", why ? why : "");
		free(why);
	} else if (status) {
		why = err_line(x->err, 0);
		res->status = FL_RUN_AGENT_ERROR;
		res->detail = fl_xasprintf("exit %d%s%s", status, why ? ": " : "", why ? why : "");
		free(why);
	} else if (!x->n) {
		res->status = FL_RUN_AGENT_ERROR;
		res->detail = fl_xstrdup("no number on standard output");
	} else {
		res->status = FL_RUN_OK;
	}
	return 0;
}

static int command_run(const struct fl_run_req *req, struct fl_run_result *res)
{
	struct cmd_run x = {.req = req, .lock_fd = -1, .out = FL_BUF_INIT};
	char *text = NULL;
	unsigned written;
	int r;

	if (!req->tree || !req->repo || !req->sha)
		return fl_error_set(FL_EINVAL,
				    "machine '%s': the command backend runs a "
				    "commit of a tree, not a kernel image",
				    req->machine->name);
	if (!req->machine->command)
		return fl_error_set(FL_EINVAL, "machine '%s': no command", req->machine->name);
	record_facts(&x);
	if ((r = slot_lock(&x)) ||
	    (r = fl_checkout(req->repo, x.src, x.state, req->sha, &written))) {
		res->status = FL_RUN_INFRA_ERROR;
		res->detail = fl_xasprintf("cannot check out %.12s: %s", req->sha, fl_error_last());
		r = hand_end(&x, res, res->detail);
		goto out;
	}
	fl_verbose("run: %s: %.12s checked out in %s (%u file%s written)",
		   req->label ? req->label : req->machine->name, req->sha, x.src, written,
		   FL_S(written));
	run_command(&x, res);
	/* untestable too: like a commit that does not build, nothing of it is kept */
	text = res->status == FL_RUN_UNTESTABLE ? NULL : console(&x);
	r = hand_end(&x, res, text);
out:
	if (x.lock_fd >= 0)
		close(x.lock_fd);
	free(text);
	free(x.v);
	fl_buf_free(&x.out);
	free(x.slot_dir);
	free(x.src);
	free(x.state);
	free(x.err);
	return r;
}

static void command_describe(const struct fl_machine_conf *m, const struct fl_machine_seen *run,
			     fl_buf *out)
{
	(void)run;
	fl_buf_addf(out, "%s, the command backend", m->name);
}

/* The command is the machine: a recipient runs it on theirs. */
static void command_repro_keys(const struct fl_machine_conf *m, fl_buf *out,
			       void (*quote)(fl_buf *out, const char *text))
{
	fl_buf_adds(out, ", command: ");
	quote(out, m->command);
}

const struct fl_machine_ops fl_machine_command_ops = {
    .name = "command",
    .run = command_run,
    .describe = command_describe,
    .params = command_params,
    .repro_keys = command_repro_keys,
    .start_word = "started",
    .agent_word = "to the agent's first record",
    .facts_word = "Machine",
};
