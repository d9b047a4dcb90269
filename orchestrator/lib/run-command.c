/*
 * run-command.c - fork/exec with output capture and timeout (see
 * run-command.h). The child gets its own process group so that a timeout
 * kills make and every compiler it started, not only make.
 */
#include "lib/run-command.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/time.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/*
 * The child's environment: this process's, with c->env's entries in place
 * of those of the same name. Made before fork: in a process with threads
 * the child may only call async-signal-safe functions until it execs, and
 * putenv may allocate while another thread held malloc's lock at the fork
 * (the child would hang, holding the files it inherited).
 */
static char **child_env(const struct fl_child *c)
{
	size_t n = 0, k = 0, extra = 0;
	char **env;

	while (environ && environ[n])
		n++;
	while (c->env && c->env[extra])
		extra++;
	env = fl_xcalloc(n + extra + 1, sizeof(*env));
	for (size_t i = 0; i < n; i++) {
		size_t len = strcspn(environ[i], "=");
		int replaced = 0;

		for (size_t j = 0; j < extra && !replaced; j++)
			replaced = !strncmp(c->env[j], environ[i], len) && c->env[j][len] == '=';
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < extra; j++)
		env[k++] = (char *)c->env[j];
	return env;
}

/* In the child: never returns. Reports an exec failure's errno through errfd. */
static void child_exec(const struct fl_child *c, char **env, int outfd, int errfd)
{
	int e, null = open("/dev/null", O_RDWR);

	setpgid(0, 0);
	/* stdin is /dev/null: in its own process group, a child reading the
	 * terminal would be stopped */
	if (null < 0 || dup2(null, 0) < 0 || dup2(outfd, 1) < 0)
		goto fail;
	if (c->err_path) {
		int fd = open(c->err_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

		if (fd < 0 || dup2(fd, 2) < 0)
			goto fail;
		close(fd);
	} else if (dup2(c->err == FL_ERR_MERGED ? outfd : c->err == FL_ERR_NULL ? null : 2, 2) < 0) {
		goto fail;
	}
	if (null > 2)
		close(null);
	close(outfd);
	if (c->dir && chdir(c->dir))
		goto fail;
	execvpe(c->argv[0], (char *const *)c->argv, env);
fail:
	e = errno;
	if (write(errfd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* Splits what came from the pipe into lines for the callback and the log file. */
struct reader {
	const struct fl_child *c;
	FILE *log;
	fl_buf line;
};

static void reader_feed(struct reader *rd, const char *p, size_t n)
{
	if (rd->log)
		fwrite(p, 1, n, rd->log);
	if (!rd->c->on_line)
		return;
	for (size_t i = 0; i < n; i++) {
		if (p[i] != '\n') {
			fl_buf_addch(&rd->line, p[i]);
			continue;
		}
		rd->c->on_line(rd->c->data, fl_buf_str(&rd->line));
		fl_buf_reset(&rd->line);
	}
}

#define CANCEL_GRACE_MS 5000

/* Reads until EOF or the deadline; returns FL_ETIMEOUT at the deadline. A
 * cancel sends the group SIGTERM, and SIGKILL after a grace. */
static int pump(struct reader *rd, int fd, pid_t pid, int64_t deadline)
{
	int (*cancel)(void) = rd->c->cancel;
	int64_t kill_at = 0;
	char chunk[8192];

	for (;;) {
		struct pollfd pfd = {fd, POLLIN, 0};
		int wait = -1;
		ssize_t n;

		if (cancel && cancel() && !kill_at) {
			kill(-pid, SIGTERM);
			kill_at = fl_mono_ms() + CANCEL_GRACE_MS;
		}
		if (kill_at && fl_mono_ms() >= kill_at) {
			kill(-pid, SIGKILL);
			return 0; /* what survives in the group may hold the pipe open */
		}
		if (deadline) {
			int64_t left = deadline - fl_mono_ms();

			if (left <= 0)
				return FL_ETIMEOUT;
			wait = left > 1000 ? 1000 : (int)left;
		}
		/* a signal can come just before poll: look again soon */
		if (cancel && (wait < 0 || wait > 200))
			wait = 200;
		if (poll(&pfd, 1, wait) < 0) {
			if (errno == EINTR)
				continue;
			return fl_error_set(FL_EIO, "poll: %s", strerror(errno));
		}
		if (!pfd.revents)
			continue;
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		reader_feed(rd, chunk, (size_t)n);
	}
}

static int reap(pid_t pid, int *status)
{
	int ws;

	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return fl_error_set(FL_EIO, "waitpid: %s", strerror(errno));
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	return 0;
}

/* The errno the child sent before exec failed, or 0 when exec succeeded. */
static int exec_errno(int fd)
{
	int e = 0;
	ssize_t n;

	while ((n = read(fd, &e, sizeof(e))) < 0 && errno == EINTR)
		;
	return n == sizeof(e) ? e : 0;
}

int fl_run_command(const struct fl_child *c, int *status)
{
	struct reader rd = {c, NULL, FL_BUF_INIT};
	int out[2], err[2], r, e;
	char **env;
	pid_t pid;

	if (c->out_path && !(rd.log = fopen(c->out_path, "ae")))
		return fl_error_set(FL_EIO, "cannot open %s: %s", c->out_path, strerror(errno));
	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		r = fl_error_set(FL_EIO, "pipe: %s", strerror(errno));
		goto out;
	}
	fflush(NULL);
	env = child_env(c);
	pid = fork();
	if (pid < 0) {
		free(env);
		r = fl_error_set(FL_EIO, "fork: %s", strerror(errno));
		goto out;
	}
	if (!pid)
		child_exec(c, env, out[1], err[1]);
	free(env);
	setpgid(pid, pid); /* as the child does: a kill(-pid) right away must find the group */
	close(out[1]);
	close(err[1]);
	r = pump(&rd, out[0], pid, c->timeout_ms ? fl_mono_ms() + c->timeout_ms : 0);
	if (r == FL_ETIMEOUT) {
		kill(-pid, SIGKILL);
		fl_error_set(FL_ETIMEOUT, "'%s' timed out after %lld ms", c->argv[0],
			     (long long)c->timeout_ms);
	}
	close(out[0]);
	e = reap(pid, status);
	r = r ? r : e;
	if ((e = exec_errno(err[0])))
		r = fl_error_set(FL_ENOTFOUND, "cannot run '%s': %s", c->argv[0], strerror(e));
	close(err[0]);
	if (!r && rd.line.len && c->on_line)
		c->on_line(c->data, fl_buf_str(&rd.line));
out:
	fl_buf_free(&rd.line);
	if (rd.log)
		fclose(rd.log);
	return r;
}

static void keep_first(void *data, const char *line)
{
	char **first = data;

	if (!*first)
		*first = fl_xstrdup(line);
}

int fl_run_capture_line(const char *const *argv, char **line)
{
	struct fl_child c = {.argv = argv, .on_line = keep_first, .data = line,
			     .timeout_ms = 10000};
	int status, r;

	*line = NULL;
	if ((r = fl_run_command(&c, &status)))
		return r;
	if (status || !*line) {
		free(*line);
		*line = NULL;
		return fl_error_set(FL_EIO, "'%s' failed (exit %d)", argv[0], status);
	}
	return 0;
}

int fl_run_checked(const char *const *argv)
{
	char *first = NULL;
	struct fl_child c = {.argv = argv, .on_line = keep_first, .data = &first};
	int status, r = fl_run_command(&c, &status);

	if (!r && status)
		r = fl_error_set(FL_EIO, "'%s' failed (exit %d)%s%s", argv[0], status,
				 first ? ": " : "", first ? first : "");
	free(first);
	return r;
}

char *fl_which_path(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL, *found = NULL;

	if (strchr(name, '/'))
		return access(name, X_OK) ? NULL : fl_xstrdup(name);
	copy = fl_xstrdup(path ? path : "/usr/bin:/bin");
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		found = fl_xasprintf("%s/%s", d, name);
		if (access(found, X_OK)) {
			free(found);
			found = NULL;
		}
	}
	free(copy);
	return found;
}

int fl_which(const char *name)
{
	char *p = fl_which_path(name);
	int found = p != NULL;

	free(p);
	return found;
}
