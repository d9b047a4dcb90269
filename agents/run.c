/*
 * run.c - runs a job point by point and describes each point, the
 * environment and errors as JSON (see agent.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "agent.h"
#include "jsonw.h"

#define VMSTAT_MAX 256

struct vmstat {
	int n;
	char name[VMSTAT_MAX][40];
	unsigned long long val[VMSTAT_MAX];
};

/* /proc/vmstat before and after a point: the fault and NUMA counters say
 * what the kernel did while it was measured. Absent outside Linux /proc. */
static void vmstat_read(struct vmstat *v)
{
	FILE *f = fopen("/proc/vmstat", "r");

	v->n = 0;
	if (!f)
		return;
	while (v->n < VMSTAT_MAX &&
	       fscanf(f, "%39s %llu", v->name[v->n], &v->val[v->n]) == 2)
		v->n++;
	fclose(f);
}

static void vmstat_delta(struct jw *w, const struct vmstat *a, const struct vmstat *b)
{
	jw_obj_open(w, "vmstat_delta");
	for (int i = 0; i < a->n && i < b->n; i++)
		if (!strcmp(a->name[i], b->name[i]) && b->val[i] != a->val[i])
			jw_int(w, a->name[i], (long long)(b->val[i] - a->val[i]));
	jw_obj_close(w);
}

static void point_json(struct jw *w, const struct fl_bench_opts *o,
		       const struct fl_bench_point *pt)
{
	jw_obj_open(w, NULL);
	jw_str(w, "type", "result");
	jw_str(w, "test", fl_bench_test_name(pt->test));
	jw_str(w, "mode", fl_bench_mode_name(pt->mode));
	jw_int(w, "tasks", pt->ntasks);
	jw_str(w, "placement", fl_place_name(o->place));
	jw_uint(w, "memory", o->memsize);
	jw_int(w, "warmup_s", o->warmup_s);
	jw_int(w, "duration_s", o->duration_s);
	jw_arr_open(w, "samples");
	for (int i = 0; i < pt->nsamples; i++)
		jw_double(w, NULL, pt->samples[i]);
	jw_arr_close(w);
	jw_double(w, "average", pt->average);
	jw_arr_open(w, pt->mode == FL_MODE_THREADS ? "per_thread_ops" : "per_process_ops");
	for (int i = 0; i < pt->ntasks; i++)
		jw_uint(w, NULL, pt->task_ops[i]);
	jw_arr_close(w);
	jw_double(w, "per_task_min", pt->per_task_min);
	jw_double(w, "per_task_max", pt->per_task_max);
	jw_arr_open(w, "cpus");
	for (int i = 0; i < pt->ntasks; i++)
		jw_int(w, NULL, pt->task_cpu[i]);
	jw_arr_close(w);
}

void fl_agent_error(fl_agent_emit_fn emit, void *arg, const char *msg)
{
	struct jw w;

	jw_init(&w);
	jw_obj_open(&w, NULL);
	jw_str(&w, "type", "error");
	jw_str(&w, "message", msg);
	jw_obj_close(&w);
	if (!w.failed)
		emit(arg, w.buf, NULL);
	jw_free(&w);
}

static int run_point(const struct fl_bench_opts *o, const struct fl_topo *t,
		     struct fl_bench_point *pt, fl_agent_emit_fn emit, void *arg)
{
	static struct vmstat before, after;
	char why[256];
	struct jw w;

	vmstat_read(&before);
	if (fl_bench_run(o, t, pt, why, sizeof(why))) {
		fl_agent_error(emit, arg, why);
		return -1;
	}
	vmstat_read(&after);
	jw_init(&w);
	point_json(&w, o, pt);
	vmstat_delta(&w, &before, &after);
	jw_obj_close(&w);
	if (!w.failed)
		emit(arg, w.buf, pt);
	jw_free(&w);
	return 0;
}

int fl_agent_run(const struct fl_bench_opts *o, fl_agent_emit_fn emit, void *arg)
{
	static struct fl_bench_point pt;
	static struct fl_topo t;
	int counts[FL_BENCH_MAX_POINTS], npoints, err = 0;

	if (fl_topo_read(&t, "/sys/devices/system/node")) {
		fl_agent_error(emit, arg, "cannot read the CPU topology");
		return -1;
	}
	npoints = fl_bench_task_counts(o, t.ncpus, counts);
	pt.task_ops = calloc(FL_BENCH_MAX_TASKS, sizeof(*pt.task_ops));
	pt.task_cpu = calloc(FL_BENCH_MAX_TASKS, sizeof(*pt.task_cpu));
	for (int test = 1; test <= 3; test++) {
		if (!o->tests[test - 1])
			continue;
		for (int m = 0; m < 2; m++) {
			if (!o->modes[m])
				continue;
			for (int i = 0; i < npoints; i++) {
				pt.test = test;
				pt.mode = (enum fl_bench_mode)m;
				pt.ntasks = counts[i];
				if (run_point(o, &t, &pt, emit, arg))
					err = -1;
			}
		}
	}
	free(pt.task_ops);
	free(pt.task_cpu);
	pt.task_ops = NULL;
	pt.task_cpu = NULL;
	return err;
}

#define PROFILE_MAX_BUCKETS 50000

/*
 * /proc/profile (kernel booted with profile=2): an unsigned int holding the
 * sample step, then one counter per step-sized slice of kernel text from
 * _stext. Only non-zero buckets go out, as [bucket, count] pairs; the host
 * maps bucket b to _stext + b * step with System.map. Large: it is split over
 * several records by the writer.
 */
void fl_agent_profile(fl_agent_emit_fn emit, void *arg)
{
	FILE *f = fopen("/proc/profile", "rb");
	unsigned int step, count;
	int kept = 0;
	struct jw w;

	if (!f)
		return;
	if (fread(&step, sizeof(step), 1, f) != 1) {
		fclose(f);
		return;
	}
	jw_init(&w);
	jw_obj_open(&w, NULL);
	jw_str(&w, "type", "profile");
	jw_uint(&w, "step", step);
	jw_arr_open(&w, "buckets");
	for (long b = 0; fread(&count, sizeof(count), 1, f) == 1; b++) {
		if (!count || kept >= PROFILE_MAX_BUCKETS)
			continue;
		jw_arr_open(&w, NULL);
		jw_int(&w, NULL, b);
		jw_uint(&w, NULL, count);
		jw_arr_close(&w);
		kept++;
	}
	jw_arr_close(&w);
	jw_int(&w, "truncated", kept >= PROFILE_MAX_BUCKETS);
	jw_obj_close(&w);
	fclose(f);
	if (!w.failed)
		emit(arg, w.buf, NULL);
	jw_free(&w);
}

static void read_file_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (!f)
		return;
	if (fgets(buf, (int)n, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

void fl_agent_env(const struct fl_topo *t, fl_agent_emit_fn emit, void *arg)
{
	struct utsname u;
	char cmdline[2048];
	struct jw w;

	uname(&u);
	read_file_line("/proc/cmdline", cmdline, sizeof(cmdline));
	jw_init(&w);
	jw_obj_open(&w, NULL);
	jw_str(&w, "type", "env");
	jw_str(&w, "kernel", u.release);
	jw_str(&w, "machine", u.machine);
	jw_int(&w, "cpus", t->ncpus);
	jw_int(&w, "nodes", t->nnodes);
	jw_arr_open(&w, "node_cpus");
	for (int n = 0; n < t->nnodes; n++) {
		jw_arr_open(&w, NULL);
		for (int i = 0; i < t->ncpus; i++)
			if (t->node_of[i] == n)
				jw_int(&w, NULL, t->cpu[i]);
		jw_arr_close(&w);
	}
	jw_arr_close(&w);
	jw_arr_open(&w, "node_mem_kb");
	for (int n = 0; n < t->nnodes; n++)
		jw_int(&w, NULL, t->node_mem_kb[n]);
	jw_arr_close(&w);
	jw_str(&w, "cmdline", cmdline);
	jw_obj_close(&w);
	if (!w.failed)
		emit(arg, w.buf, NULL);
	jw_free(&w);
}
