/*
 * fl-agent.c - the test-machine agent: one static binary that measures the
 * machine it runs on.
 *
 *   fl-agent bench [--test T,..] [--mode M,..] [--tasks N|P%,..] [--warmup 1s]
 *                  [--duration 5s] [--memory 128M] [--placement spread|pack|none]
 *                  [--json | --records]
 *   /init (PID 1 in an initramfs): guest mode, see guest.c
 *
 * Host mode prints a table, one JSON object per point (--json), or the FLR1
 * record stream a guest would write (--records).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "record.h"

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
		       fl_bench_test_name(pt->test), fl_bench_mode_name(pt->mode), pt->ntasks,
		       pt->average, pt->per_task_min, pt->per_task_max);
	} else {
		printf("%s\n", json);
	}
	fflush(stdout);
}

static int usage(void)
{
	fprintf(stderr, "usage: fl-agent bench [--test page_fault1,..] [--mode processes,threads]\n"
			"       [--tasks 1,2,50%%] [--warmup 1s] [--duration 5s] [--memory 128M]\n"
			"       [--placement spread|pack|none] [--json | --records]\n");
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
			if (fl_bench_set(&o, argv[i] + 2, argv[i + 1]))
				return 2;
			i++;
		} else {
			return usage();
		}
	}
	h.o = &o;
	fl_record_writer_init(&h.w, stdout_out, NULL);
	return fl_agent_run(&o, host_emit, &h) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (getpid() == 1)
		return fl_guest_main();
	if (argc >= 2 && !strcmp(argv[1], "bench"))
		return cmd_bench(argc - 1, argv + 1);
	return usage();
}
