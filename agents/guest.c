/*
 * guest.c - fl-agent as PID 1 of an initramfs: mount what the benchmarks
 * need, read the job, report the environment, run the job, write records to
 * the console, power off. Whatever goes wrong ends in an error record and a
 * power-off: a guest is never left running.
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
#include <unistd.h>

#include "agent.h"
#include "record.h"

struct console {
	int fd;
	struct fl_record_writer *w;	/* in shared memory */
};

static int console_out(void *arg, const char *frame, size_t len)
{
	struct console *c = arg;

	while (len) {
		ssize_t n = write(c->fd, frame, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		frame += n;
		len -= (size_t)n;
	}
	return 0;
}

static void guest_emit(void *arg, const char *json, const struct fl_bench_point *pt)
{
	struct console *c = arg;

	(void)pt;
	fl_record_write(c->w, json, strlen(json));
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

static char *slurp(const char *path)
{
	static char buf[8192];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = 0;
	return buf;
}

/* fl.job=key=value;key=value on the command line wins over /job. */
static int load_job(struct fl_bench_opts *o)
{
	char *cmd = slurp("/proc/cmdline"), *j, *job;

	fl_bench_defaults(o);
	if (cmd && (j = strstr(cmd, "fl.job="))) {
		j += 7;
		j[strcspn(j, " \n")] = 0;
		return fl_bench_parse_job(o, j);
	}
	job = slurp("/job");
	if (!job)
		return -1;
	return fl_bench_parse_job(o, job);
}

/* A deadline that covers the whole job with room for boot-time noise. */
static int job_timeout(const struct fl_bench_opts *o)
{
	int points = 0, counts[FL_BENCH_MAX_POINTS];

	if (o->timeout_s)
		return o->timeout_s;
	for (int t = 0; t < 3; t++)
		for (int m = 0; m < 2; m++)
			points += o->tests[t] && o->modes[m];
	points *= fl_bench_task_counts(o, 1, counts);
	return 30 + 2 * points * (o->warmup_s + o->duration_s + 2);
}

static void power_off(void)
{
	sync();
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

int fl_guest_main(void)
{
	struct fl_bench_opts o;
	struct fl_topo t;
	struct console c;
	char msg[128];
	pid_t pid;
	int rc, timeout;

	mount_all();
	/* Keep printk off the console while records are written: fewer lines
	 * cut in two. 8 is SYSLOG_ACTION_CONSOLE_LEVEL. */
	klogctl(8, NULL, 1);
	c.fd = open_console();
	c.w = mmap(NULL, sizeof(*c.w), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c.fd < 0 || c.w == MAP_FAILED)
		power_off();
	fl_record_writer_init(c.w, console_out, &c);
	if (fl_topo_read(&t, "/sys/devices/system/node") == 0)
		fl_agent_env(&t, guest_emit, &c);
	if (load_job(&o)) {
		fl_agent_error(guest_emit, &c, "no valid job (fl.job= on the command line or /job)");
		power_off();
	}
	timeout = job_timeout(&o);
	pid = fork();
	if (pid == 0)
		run_child(&o, &c);
	if (pid < 0) {
		fl_agent_error(guest_emit, &c, "fork failed");
		power_off();
	}
	rc = wait_deadline(pid, timeout);
	if (rc < 0) {
		kill(pid, SIGKILL);
		snprintf(msg, sizeof(msg), "watchdog: job still running after %d s, killed", timeout);
		fl_agent_error(guest_emit, &c, msg);
	} else if (rc != 0) {
		snprintf(msg, sizeof(msg), "job failed (status %d)", rc);
		fl_agent_error(guest_emit, &c, msg);
	}
	fl_record_write(c.w, "{\"type\":\"done\"}", 15);
	power_off();
	return 0;
}
