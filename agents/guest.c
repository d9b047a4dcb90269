/*
 * guest.c - fl-agent as PID 1 of an initramfs: mount what the benchmarks
 * need, read the job, report the environment, run the job, write records to
 * the console, power off. Whatever goes wrong ends in an error record and a
 * power-off: a guest is never left running.
 *
 * On a bare-metal box the kernel command line also says where the records
 * are kept (fl.results=, results.h: the console of a box is nobody's to
 * read), for which agent job (fl.agentjob=), and that the end is a reboot
 * into the box's own kernel (fl.end=reboot), not a power-off.
 *
 * Not as PID 1 ("fl-agent guest --cmdline TEXT", the daemon's current-kernel
 * mode and its test seam) nothing is mounted or powered off: the same job
 * runs from the given command line, frames go to the given descriptor and
 * the results store, and the function returns.
 *
 * The job runs in a child process; PID 1 only waits for it with the
 * watchdog's deadline, so a stuck job (or a crash in it) cannot keep PID 1
 * from reporting and powering off. The record sequence number lives in
 * shared memory so the watchdog's error record continues the child's seq.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <termios.h>
#include <unistd.h>

#include "agents/guest.h"
#include "agents/run.h"
#include "agents/lockstat.h"
#include "agents/cgroup.h"
#include "agents/results.h"
#include "proto/error.h"
#include "proto/jobline.h"
#include "proto/record.h"

/* Seconds a results partition may take to appear after /init starts. */
#define RESULTS_WAIT_S 30

/* Shared between PID 1 and the job's child: one seq, one store offset. */
struct shared {
	struct fl_record_writer w;
	struct fl_results results;
};

struct console {
	int fd;			/* -1: no console */
	struct shared *sh;	/* in shared memory */
	int results;		/* a results store is open */
};

/* The console gets every frame; the results store too while it works. */
static int console_out(void *arg, const char *frame, size_t len)
{
	struct console *c = arg;
	int r = c->fd >= 0 ? fl_write_full(c->fd, frame, len, -1) : 0;

	if (c->results && fl_results_append(&c->sh->results, frame, len)) {
		static const char msg[] = "fl-agent: results store: write failed\n";

		c->results = 0;
		if (c->fd >= 0)
			fl_write_full(c->fd, msg, sizeof(msg) - 1, -1);
		return -1;
	}
	return r;
}

static void guest_emit(void *arg, const char *json, const struct fl_bench_point *pt)
{
	struct console *c = arg;

	(void)pt;
	fl_record_write(&c->sh->w, json, strlen(json));
}

static void mount_all(void)
{
	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mkdir("/tmp", 01777);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777");
}

/* /dev/console is the kernel's console= device; ttyS0 if that fails. */
static int open_console(void)
{
	int fd = open("/dev/console", O_WRONLY | O_NOCTTY);

	if (fd < 0)
		fd = open("/dev/ttyS0", O_WRONLY | O_NOCTTY);
	return fd;
}

/* The start of a small file; NULL with the error kept when it cannot be read. */
static char *slurp(const char *path)
{
	static char buf[8192];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		fl_error_set(FL_EIO, "%s: %s", path, strerror(errno));
		return NULL;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		fl_error_set(FL_EIO, "%s: %s", path, strerror(errno));
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = 0;
	return buf;
}

/* The value of key= on the command line (up to a blank) into out; 0 or -1. */
static int cmdline_value(const char *cmd, const char *key, char *out, size_t n)
{
	size_t k = strlen(key), len;

	for (const char *p = cmd; p && *p; p += strcspn(p, " \n"), p += strspn(p, " \n")) {
		if (strncmp(p, key, k) || p[k] != '=')
			continue;
		len = strcspn(p + k + 1, " \n");
		if (len >= n)
			return -1;
		memcpy(out, p + k + 1, len);
		out[len] = 0;
		return 0;
	}
	return -1;
}

/* fl.job=key=value;key=value on the command line wins over /job. Lock
 * contention is traced by default only as PID 1, in a kernel the agent
 * owns: tracefs is the whole machine's, and agents run as processes (the
 * tests, a box's stand-in) would trace, and fight over, the host's. 0, or a
 * negative code for a job that cannot be read or run (fl_bench_check). */
static int load_job(const char *cmd, struct fl_bench_opts *o, int pid1)
{
	char j[FL_JOB_MAX], *job;
	int r;

	fl_bench_defaults(o);
	o->locks = pid1;
	if (cmd && !cmdline_value(cmd, "fl.job", j, sizeof(j)))
		job = j;
	else if (!(job = slurp("/job")))
		return FL_EIO;
	return (r = fl_bench_parse_job(o, job)) ? r : fl_bench_check(o);
}

/* fl.results=PATH fl.agentjob=ID: the records kept on the box's disk too. */
static void open_results(const char *cmd, struct console *c, int wait_s)
{
	char path[512], id[32], msg[640];

	if (!cmd || cmdline_value(cmd, "fl.results", path, sizeof(path)))
		return;
	if (cmdline_value(cmd, "fl.agentjob", id, sizeof(id)))
		strcpy(id, "0");
	if (fl_results_open(&c->sh->results, path, strtoull(id, NULL, 10), wait_s)) {
		snprintf(msg, sizeof(msg), "fl-agent: %s\n", fl_error_last());
		if (c->fd >= 0)
			fl_write_full(c->fd, msg, strlen(msg), -1);
		return;
	}
	c->results = 1;
}

/* A deadline that covers the whole job with room for boot-time noise. */
static int job_timeout(const struct fl_bench_opts *o)
{
	int points = 0, counts[FL_BENCH_MAX_POINTS];

	if (o->timeout_s)
		return o->timeout_s;
	for (int t = 0; fl_testdefs[t]; t++)
		for (int m = 0; m < 2; m++)
			points += (o->tests >> t & 1) && o->modes[m];
	points *= fl_bench_task_counts(o, 1, counts);
	points *= o->cgroups[0] + o->cgroups[1];
	if (o->locks == 2) /* locks=cost: every point 4 times a cycle */
		points *= 4 * FL_LOCK_COST_CYCLES;
	return 30 + 2 * points * (o->warmup_s + o->duration_s + 2);
}

/* PID 1 powers off (a guest) or reboots (a box, fl.end=reboot); others return. */
static int end(const struct fl_guest_opts *g, const char *cmd, int status)
{
	char how[16];

	if (!g->pid1)
		return status;
	sync();
	if (cmd && !cmdline_value(cmd, "fl.end", how, sizeof(how)) && !strcmp(how, "reboot"))
		reboot(RB_AUTOBOOT);
	reboot(RB_POWER_OFF);
	for (;;)
		pause();	/* PID 1 must not exit: the kernel would panic */
}

static void run_child(struct fl_bench_opts *o, struct console *c)
{
	if (o->hang)
		for (;;)
			pause();
	int err = fl_agent_run(o, guest_emit, c);

	_exit(err ? 1 : 0);
}

/* Waits for pid up to timeout seconds; the exit status, or -1 on timeout. */
static int wait_deadline(pid_t pid, int timeout)
{
	time_t end = time(NULL) + timeout;
	int status;

	while (time(NULL) < end) {
		pid_t r = waitpid(-1, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
		usleep(100 * 1000);
	}
	return -1;
}

/* Runs the job in a child under the watchdog; 0, or 1 when it failed. */
static int run_job(struct fl_bench_opts *o, struct console *c)
{
	int rc, timeout = job_timeout(o);
	char msg[128];
	pid_t pid;

	pid = fork();
	if (pid == 0)
		run_child(o, c);
	if (pid < 0) {
		fl_agent_error(guest_emit, c, "fork failed");
		return 1;
	}
	rc = wait_deadline(pid, timeout);
	if (rc < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		snprintf(msg, sizeof(msg), "watchdog: job still running after %d s, killed", timeout);
		fl_agent_error(guest_emit, c, msg);
	} else if (rc != 0) {
		snprintf(msg, sizeof(msg), "job failed (status %d)", rc);
		fl_agent_error(guest_emit, c, msg);
	}
	return rc != 0;
}

int fl_guest_main(const struct fl_guest_opts *g)
{
	struct fl_bench_opts o;
	struct fl_topo t;
	struct console c = {g->console_fd, NULL, 0};
	const char *cmd = g->cmdline;
	char msg[512];
	int failed = 1, bad_job;

	if (g->pid1) {
		mount_all();
		/* Keep printk off the console while records are written: fewer
		 * lines cut in two. 8 is SYSLOG_ACTION_CONSOLE_LEVEL. */
		klogctl(8, NULL, 1);
		c.fd = open_console();
		cmd = slurp("/proc/cmdline");
	}
	c.sh = mmap(NULL, sizeof(*c.sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if ((g->pid1 && c.fd < 0) || c.sh == MAP_FAILED)
		return end(g, cmd, 1);
	c.sh->results.fd = -1;
	fl_record_writer_init(&c.sh->w, console_out, &c);
	open_results(cmd, &c, g->pid1 ? RESULTS_WAIT_S : 0);
	bad_job = load_job(cmd, &o, g->pid1);
	if (bad_job)
		snprintf(msg, sizeof(msg), "no valid job (fl.job= on the command line or /job): %s",
			 fl_error_last());
	if (fl_topo_read(&t, "/sys/devices/system/node") == 0)
		fl_agent_env(&t, bad_job ? NULL : fl_cgroup_prepare(&o), guest_emit, &c);
	if (bad_job)
		fl_agent_error(guest_emit, &c, msg);
	else
		failed = run_job(&o, &c);
	fl_record_write(&c.sh->w, "{\"type\":\"done\"}", 15);
	/* Everything written goes out of the UART before the power-off: a
	 * console read through a pty (a libvirt stream) pushes back, and what
	 * the tty still holds at power-off is lost, the done record first. */
	if (c.fd >= 0)
		tcdrain(c.fd);
	fl_results_close(&c.sh->results);
	munmap(c.sh, sizeof(*c.sh));
	return end(g, cmd, failed);
}
