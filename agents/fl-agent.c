/*
 * fl-agent.c - the test-machine agent: one static binary that measures the
 * machine it runs on.
 *
 *   fl-agent bench [--test T,..] [--mode M,..] [--tasks N|P%,..] [--warmup 1s]
 *                  [--duration 5s] [--memory 128M] [--placement spread|pack|none]
 *                  [--json | --records]
 *   /init (PID 1 in an initramfs): guest mode, see guest.c
 *   fl-agent guest --cmdline TEXT: guest mode as a plain process, acting on
 *                  TEXT as if it were the kernel command line (frames on
 *                  stdout and in fl.results=); the bare-metal daemon's
 *                  current-kernel runs and its test seam use it
 *   fl-agent daemon --server URL --box NAME --token-file F ...: the
 *                  bare-metal box's agent (daemon.c); only in the dynamically
 *                  linked fl-agent, which has libcurl and libcrypto
 *
 * Host mode prints a table, one JSON object per point (--json), or the FLR1
 * record stream a guest would write (--records).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/daemon.h"
#include "agents/guest.h"
#include "agents/run.h"
#include "proto/error.h"
#include "proto/record.h"
#include "proto/testdef.h"

static int stdout_out(void *arg, const char *frame, size_t len)
{
	(void)arg;
	return fwrite(frame, 1, len, stdout) == len ? 0 : -1;
}

struct host_emit {
	const struct fl_bench_opts *o;
	struct fl_record_writer w;
};

static void host_emit(void *arg, const char *json, const struct fl_bench_point *pt)
{
	struct host_emit *h = arg;

	if (h->o->records) {
		fl_record_write(&h->w, json, strlen(json));
	} else if (h->o->json) {
		printf("%s\n", json);
	} else if (pt) {
		printf("%-12s %-9s tasks=%-3d %12.0f ops/s  per task min %.0f max %.0f\n",
		       pt->test->name, fl_bench_mode_name(pt->mode), pt->ntasks, pt->average,
		       pt->per_task_min, pt->per_task_max);
	} else {
		printf("%s\n", json);
	}
	fflush(stdout);
}

/* The help around its list of tests, which comes from the table. */
static const char help_head[] =
    "usage: fl-agent bench [options]\n"
    "       fl-agent guest --cmdline TEXT\n"
    "       fl-agent daemon --server URL --box NAME --token-file FILE [options]\n"
    "       fl-agent --version\n"
    "\n"
    "Measures the machine it runs on with scalability benchmarks (the tests below).\n"
    "As /init of an initramfs (PID 1) it is a guest's agent.\n"
    "\n"
    "bench options (host mode):\n"
    "  --test T,..           tests of the list below (default: its first)\n"
    "  --mode M,..           processes, threads (default processes)\n"
    "  --tasks N|P%,..       task counts, or shares of the CPUs (default 1)\n"
    "  --warmup DURATION     before each measured point (default 1s)\n"
    "  --duration DURATION   each measured point (default 5s)\n"
    "  --memory SIZE         memory each task maps per iteration (default 128M)\n"
    "  --placement P         spread (default), pack or none: tasks on NUMA nodes\n"
    "  --cgroup C,..         root (default), child: the memory cgroup measured in\n"
    "  --json                one JSON object per point\n"
    "  --records             the FLR1 record stream a guest writes\n"
    "  (any other key of the agent's job line as --KEY VALUE)\n";
static const char help_tail[] =
    "\n"
    "guest options:\n"
    "  --cmdline TEXT        act on TEXT as if it were the kernel command line\n"
    "\n"
    "daemon options (a bare-metal box; not in fl-agent-static):\n"
    "  --server URL          the agent API of faultline run/watch (http:// or https://)\n"
    "  --box NAME            this box's name in the configuration\n"
    "  --token-file FILE     the box's shared secret\n"
    "  --results DIR         the state and results directory\n"
    "  --results-dev DEV     the partition the kernel under test writes results to\n"
    "  --kexec-hook CMD      run CMD instead of kexec -l and kexec -e\n"
    "  --append ARGS         kernel arguments of this box\n"
    "  --poll DURATION       ask for work this often (default 10s)\n"
    "  --batch N             frames per upload request (default 64)\n"
    "  --cacert FILE         the CA of an https:// server\n"
    "  --once                one pass, then exit\n"
    "\n"
    "  -h, --help            this help\n"
    "Exit: 0 done, 1 a benchmark or the daemon failed, 2 usage error.\n";

/* Each test of the table: its name, what a task does, what a sample counts. */
static void help(void)
{
	fputs(help_head, stdout);
	printf("\ntests (--test; a sample is the operations of all tasks in a second):\n");
	for (int i = 0; fl_testdefs[i]; i++) {
		const struct fl_testdef *t = fl_testdefs[i];

		printf("  %-12s  %s\n  %-12s  one operation: %s%s\n", t->name, t->about, "", t->op,
		       t->modes == FL_TESTDEF_THREADS	  ? "; threads only"
		       : t->modes == FL_TESTDEF_PROCESSES ? "; processes only"
							  : "");
	}
	fputs(help_tail, stdout);
}

static int wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") || !strcmp(argv[i], "help"))
			return 1;
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: fl-agent bench [--test T,..] [--mode processes,threads]\n"
			"       [--tasks 1,2,50%%] [--warmup 1s] [--duration 5s] [--memory 128M]\n"
			"       [--placement spread|pack|none] [--json | --records]\n"
			"       fl-agent guest --cmdline TEXT\n"
			"       fl-agent daemon --server URL --box NAME --token-file FILE [...]\n"
			"'fl-agent --help' lists the options\n");
	return 2;
}

static int cmd_bench(int argc, char **argv)
{
	struct fl_bench_opts o;
	struct host_emit h;

	fl_bench_defaults(&o);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			o.json = 1;
		} else if (!strcmp(argv[i], "--records")) {
			o.records = 1;
		} else if (!strncmp(argv[i], "--", 2) && i + 1 < argc) {
			if (fl_bench_set(&o, argv[i] + 2, argv[i + 1])) {
				fprintf(stderr, "fl-agent: %s\n", fl_error_last());
				return 2;
			}
			i++;
		} else {
			return usage();
		}
	}
	if (fl_bench_check(&o)) {
		fprintf(stderr, "fl-agent: %s\n", fl_error_last());
		return 2;
	}
	h.o = &o;
	fl_record_writer_init(&h.w, stdout_out, NULL);
	return fl_agent_run(&o, host_emit, &h) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (getpid() == 1)
		return fl_guest_main(&(struct fl_guest_opts){1, NULL, -1});
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("fl-agent %s\n", FL_VERSION);
		return 0;
	}
	if (wants_help(argc, argv)) {
		help();
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "bench"))
		return cmd_bench(argc - 1, argv + 1);
	if (argc == 4 && !strcmp(argv[1], "guest") && !strcmp(argv[2], "--cmdline"))
		return fl_guest_main(&(struct fl_guest_opts){0, argv[3], STDOUT_FILENO});
	if (argc >= 2 && !strcmp(argv[1], "daemon")) {
#ifdef FL_AGENT_DAEMON
		return fl_daemon_main(argc - 1, argv + 1);
#else
		fprintf(stderr, "fl-agent: this static build has no daemon (it needs libcurl); "
				"run the dynamically linked fl-agent\n");
		return 2;
#endif
	}
	return usage();
}
