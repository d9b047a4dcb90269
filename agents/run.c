/*
 * run.c - runs a job point by point and describes each point, the
 * environment and errors as JSON (see run.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "agents/run.h"
#include "agents/cgroup.h"
#include "agents/file.h"
#include "agents/jsonw.h"
#include "agents/lockstat.h"
#include "proto/error.h"

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

/* The counters the evidence always wants: a kernel without them (no
 * CONFIG_VM_EVENT_COUNTERS; the TLB ones need CONFIG_DEBUG_TLBFLUSH) is
 * told apart from one where they did not move. */
static const char *const vmstat_expected[] = {
	"pgfault", "pgmajfault", "pgalloc_normal", "pgfree", "numa_hit", "numa_miss",
	"numa_foreign", "nr_tlb_remote_flush", "nr_tlb_remote_flush_received",
	"nr_tlb_local_flush_all", "nr_tlb_local_flush_one",
};

static void vmstat_missing(struct jw *w, const struct vmstat *v)
{
	if (!v->n)
		return;
	jw_arr_open(w, "vmstat_missing");
	for (size_t k = 0; k < sizeof(vmstat_expected) / sizeof(vmstat_expected[0]); k++) {
		int found = 0;

		for (int i = 0; i < v->n && !found; i++)
			found = !strcmp(v->name[i], vmstat_expected[k]);
		if (!found)
			jw_str(w, NULL, vmstat_expected[k]);
	}
	jw_arr_close(w);
}

/*
 * Per NUMA node, what LKP's numa-numastat and numa-vmstat rows say: the
 * node's numastat (numa_hit, numa_miss, numa_foreign, interleave_hit,
 * local_node, other_node) and its vmstat, before and after the window, and
 * how many of the point's tasks were pinned to the node's CPUs. A
 * cross-node effect (pages allocated off-node, one node's lock holders) is
 * then seen per node, not summed away.
 */
#define NODE_STAT_MAX 128

struct nodestat {
	int n;
	char name[NODE_STAT_MAX][40];
	unsigned long long val[NODE_STAT_MAX];
};

struct nodes {
	int n;
	struct nodestat numa[FL_TOPO_MAX_NODES], vm[FL_TOPO_MAX_NODES];
};

static void nodestat_read(struct nodestat *s, int node, const char *file)
{
	char path[96];
	FILE *f;

	s->n = 0;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/%s", node, file);
	if (!(f = fopen(path, "r")))
		return;
	while (s->n < NODE_STAT_MAX && fscanf(f, "%39s %llu", s->name[s->n], &s->val[s->n]) == 2)
		s->n++;
	fclose(f);
}

static void nodes_read(struct nodes *ns, const struct fl_topo *t)
{
	ns->n = t ? t->nnodes : 0;
	for (int i = 0; i < ns->n; i++) {
		nodestat_read(&ns->numa[i], t->node_id[i], "numastat");
		nodestat_read(&ns->vm[i], t->node_id[i], "vmstat");
	}
}

static void nodestat_delta(struct jw *w, const char *key, const struct nodestat *a,
			   const struct nodestat *b)
{
	jw_obj_open(w, key);
	for (int i = 0; i < a->n && i < b->n; i++)
		if (!strcmp(a->name[i], b->name[i]) && b->val[i] != a->val[i])
			jw_int(w, a->name[i], (long long)(b->val[i] - a->val[i]));
	jw_obj_close(w);
}

/* "nodes":[{"node":0,"tasks":1,"numastat":{..},"vmstat":{..}},..]: the
 * changes of each node, and "tasks_unpinned" when placement let the
 * scheduler decide. */
static void nodes_delta(struct jw *w, const struct fl_topo *t, const struct fl_bench_point *pt,
			const struct nodes *a, const struct nodes *b)
{
	int unpinned = 0;

	if (!t || !a->n || a->n != b->n)
		return;
	jw_arr_open(w, "nodes");
	for (int n = 0; n < a->n; n++) {
		int tasks = 0;

		for (int k = 0; k < pt->ntasks; k++)
			for (int c = 0; c < t->ncpus; c++)
				if (pt->task_cpu[k] == t->cpu[c] && t->node_of[c] == n)
					tasks++;
		jw_obj_open(w, NULL);
		jw_int(w, "node", t->node_id[n]);
		jw_int(w, "tasks", tasks);
		nodestat_delta(w, "numastat", &a->numa[n], &b->numa[n]);
		nodestat_delta(w, "vmstat", &a->vm[n], &b->vm[n]);
		jw_obj_close(w);
	}
	jw_arr_close(w);
	for (int k = 0; k < pt->ntasks; k++)
		unpinned += pt->task_cpu[k] < 0;
	if (unpinned)
		jw_int(w, "tasks_unpinned", unpinned);
}

/*
 * The kernel profile, /proc/profile (a kernel with CONFIG_PROFILING booted
 * with profile=N): an unsigned int step (bytes of kernel text per bucket,
 * 1 << N), then one counter per bucket from _stext. The kernel clamps hits
 * outside [_stext, _etext) - modules, mostly - into the last bucket, so the
 * record says how many buckets there are and the host can tell that one
 * apart. Only timer ticks that interrupt the kernel count: user time is
 * not in the profile.
 */
#define PROFILE_PATH "/proc/profile"
/* Non-zero buckets per point at most: a few thousand is usual (a bucket per
 * hot instruction); past the cap the rarest go, and their hits are counted
 * in "dropped" so shares keep the true denominator. */
#define PROFILE_MAX_BUCKETS 20000

struct profile {
	unsigned *buf; /* step, then the counters, as read */
	size_t cap;    /* unsigned ints buf holds */
	size_t nbuckets;
	uint8_t *hits; /* buckets sent for any point: the symbols to name */
	size_t hits_bits;
	int valid;	  /* buf holds this point's profile */
	char status[160]; /* "recorded", "none", or what went wrong */
};

/* Writing resets the counters. One byte, not four: on SMP kernels a write of
 * exactly sizeof(int) sets the profiling multiplier instead, which x86
 * refuses (EINVAL) without resetting anything. */
static void profile_reset(struct profile *p)
{
	int fd = open(PROFILE_PATH, O_WRONLY);

	p->valid = 0;
	if (fd < 0) {
		if (errno == ENOENT)
			snprintf(p->status, sizeof(p->status), "none");
		else
			snprintf(p->status, sizeof(p->status), "cannot reset %s: %s",
				 PROFILE_PATH, strerror(errno));
		return;
	}
	if (write(fd, "0", 1) != 1)
		snprintf(p->status, sizeof(p->status), "cannot reset %s: %s", PROFILE_PATH,
			 strerror(errno));
	else
		snprintf(p->status, sizeof(p->status), "reset");
	close(fd);
}

/* One read() for the whole buffer: the kernel folds its per-CPU pending hits
 * in once, at the start of each read, so a single read is one snapshot. */
static void profile_read(struct profile *p)
{
	struct stat st;
	size_t want, got = 0;
	int fd;

	if (strcmp(p->status, "reset"))
		return;
	fd = open(PROFILE_PATH, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || st.st_size < (off_t)(2 * sizeof(unsigned))) {
		snprintf(p->status, sizeof(p->status), "cannot read %s", PROFILE_PATH);
		goto out;
	}
	want = (size_t)st.st_size / sizeof(unsigned);
	if (want > p->cap) {
		unsigned *nb = realloc(p->buf, want * sizeof(unsigned));

		if (!nb) {
			snprintf(p->status, sizeof(p->status), "%s: out of memory for %zu bytes",
				 PROFILE_PATH, want * sizeof(unsigned));
			goto out;
		}
		p->buf = nb;
		p->cap = want;
	}
	while (got < want * sizeof(unsigned)) {
		ssize_t n = read(fd, (char *)p->buf + got, want * sizeof(unsigned) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got != want * sizeof(unsigned)) {
		snprintf(p->status, sizeof(p->status), "short read of %s: %zu of %zu bytes",
			 PROFILE_PATH, got, want * sizeof(unsigned));
		goto out;
	}
	p->nbuckets = want - 1;
	p->valid = 1;
	snprintf(p->status, sizeof(p->status), "recorded");
out:
	if (fd >= 0)
		close(fd);
}

static void hits_mark(struct profile *p, size_t b)
{
	if (p->hits_bits != p->nbuckets) {
		free(p->hits);
		p->hits = calloc(p->nbuckets / 8 + 1, 1);
		p->hits_bits = p->hits ? p->nbuckets : 0;
	}
	if (p->hits && b < p->hits_bits)
		p->hits[b / 8] |= (uint8_t)(1u << (b % 8));
}

/* The smallest count a bucket needs to be sent so that at most
 * PROFILE_MAX_BUCKETS are: 1 unless the profile is unusually flat. */
static unsigned profile_threshold(const unsigned *c, size_t n)
{
	enum { H = 4096 };
	static size_t hist[H + 1];
	size_t kept = 0;
	unsigned thr;

	memset(hist, 0, sizeof(hist));
	for (size_t i = 0; i < n; i++)
		if (c[i])
			hist[c[i] < H ? c[i] : H]++;
	for (thr = H + 1; thr > 1; thr--) {
		if (kept + hist[thr - 1] > PROFILE_MAX_BUCKETS)
			break;
		kept += hist[thr - 1];
	}
	return thr;
}

/* {"type":"profile","test":..,"mode":..,"tasks":..,"step":4,"nbuckets":N,
 *  "total":hits,"dropped":hits,"buckets":[[bucket,count],..]}: the sparse
 * non-zero buckets of one point; the writer splits it over frames. */
static void profile_emit(struct profile *p, const struct fl_bench_point *pt,
			 fl_agent_emit_fn emit, void *arg)
{
	const unsigned *c = p->buf + 1;
	unsigned thr = profile_threshold(c, p->nbuckets);
	uint64_t total = 0, dropped = 0;
	struct jw w;

	jw_init(&w);
	jw_obj_open(&w, NULL);
	jw_str(&w, "type", "profile");
	jw_str(&w, "test", pt->test->name);
	jw_str(&w, "mode", fl_bench_mode_name(pt->mode));
	jw_int(&w, "tasks", pt->ntasks);
	jw_uint(&w, "step", p->buf[0]);
	jw_uint(&w, "nbuckets", p->nbuckets);
	jw_arr_open(&w, "buckets");
	for (size_t b = 0; b < p->nbuckets; b++) {
		total += c[b];
		if (!c[b])
			continue;
		if (c[b] < thr) {
			dropped += c[b];
			continue;
		}
		jw_arr_open(&w, NULL);
		jw_uint(&w, NULL, b);
		jw_uint(&w, NULL, c[b]);
		jw_arr_close(&w);
		hits_mark(p, b);
	}
	jw_arr_close(&w);
	jw_uint(&w, "total", total);
	jw_uint(&w, "dropped", dropped);
	jw_str(&w, "cgroup", fl_bench_cgroup_name(pt->cgroup));
	jw_obj_close(&w);
	if (!w.failed)
		emit(arg, w.buf, NULL);
	jw_free(&w);
}

/*
 * The kernel's own names for the profiled buckets, from /proc/kallsyms: a
 * kernel that comes without a usable System.map (Debian ships a
 * placeholder) can still have its profile named on the host. Only the
 * text symbols that hold a bucket sent for some point go out - every
 * name at such an address, the host picks - as offsets from _stext, which
 * KASLR does not move:
 *   {"type":"ksyms","text":_etext - _stext,"symbols":[[offset,"name"],..]}
 */
struct ksym {
	uint64_t addr;
	const char *name; /* into struct ksyms' text */
};

struct ksyms {
	char *text; /* the whole of /proc/kallsyms, names cut in place */
	struct ksym *v;
	size_t n;
	uint64_t stext, etext;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * One line, "ffffffff81000000 T _stext" or "... t name\t[module]", cut in
 * place; 0 for a symbol of the kernel image (not a module's), *is_text
 * saying whether it is code. By hand: under TCG, fgets and sscanf per line
 * made the whole read of a distribution kernel's 100k-odd lines about 1 s
 * of every run; this way it is about 0.6 s, most of it the kernel writing
 * the text.
 */
static int ksym_line(char *line, struct ksym *k, int *is_text)
{
	char *p, *name;
	char type;

	k->addr = strtoull(line, &p, 16);
	if (p == line || *p != ' ')
		return -1;
	type = p[1];
	if (!type || p[2] != ' ')
		return -1;
	name = p + 3;
	p = name + strcspn(name, " \t");
	if (*p) /* "\t[module]" */
		return -1;
	k->name = name;
	*is_text = type == 'T' || type == 't' || type == 'W' || type == 'w';
	return 0;
}

/* Text symbols of the kernel image, sorted; 0, or -1 when unreadable. */
static int ksyms_read(struct ksyms *ks)
{
	size_t cap = 0;
	char *line, *next;

	memset(ks, 0, sizeof(*ks));
	if (!(ks->text = fl_agent_read_file("/proc/kallsyms", 1 << 20)))
		return -1;
	for (line = ks->text; *line; line = next) {
		struct ksym k;
		int is_text;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (ksym_line(line, &k, &is_text))
			continue;
		if (!strcmp(k.name, "_stext"))
			ks->stext = k.addr;
		if (!strcmp(k.name, "_etext"))
			ks->etext = k.addr;
		if (!is_text)
			continue;
		if (ks->n == cap) {
			struct ksym *nv;

			cap = cap ? 2 * cap : 4096;
			if (!(nv = realloc(ks->v, cap * sizeof(*nv))))
				break;
			ks->v = nv;
		}
		ks->v[ks->n++] = k;
	}
	if (ks->n)
		qsort(ks->v, ks->n, sizeof(*ks->v), ksym_cmp);
	return 0;
}

static void ksyms_release(struct ksyms *ks)
{
	free(ks->text);
	free(ks->v);
}

/* Index of the last symbol at or below addr (v sorted, v[0].addr <= addr). */
static size_t ksym_find(const struct ksym *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void ksyms_emit(struct profile *p, fl_agent_emit_fn emit, void *arg)
{
	uint64_t last = UINT64_MAX, step = p->buf ? p->buf[0] : 0;
	struct ksyms ks;
	const struct ksym *v;
	struct jw w;

	/* Addresses read as 0 when kptr_restrict hides them. */
	if (ksyms_read(&ks) || !ks.n || !ks.stext || ks.etext <= ks.stext || !step) {
		ksyms_release(&ks);
		return;
	}
	v = ks.v;
	jw_init(&w);
	jw_obj_open(&w, NULL);
	jw_str(&w, "type", "ksyms");
	jw_uint(&w, "text", ks.etext - ks.stext);
	jw_arr_open(&w, "symbols");
	for (size_t b = 0; b < p->hits_bits; b++) {
		uint64_t addr = ks.stext + b * step;
		size_t i;

		if (!(p->hits[b / 8] & (1u << (b % 8))) || addr < v[0].addr || addr >= ks.etext)
			continue;
		i = ksym_find(v, ks.n, addr);
		if (v[i].addr == last)
			continue;
		last = v[i].addr;
		while (i > 0 && v[i - 1].addr == last)
			i--;
		for (; i < ks.n && v[i].addr == last; i++) {
			jw_arr_open(&w, NULL);
			jw_uint(&w, NULL, v[i].addr - ks.stext);
			jw_str(&w, NULL, v[i].name);
			jw_arr_close(&w);
		}
	}
	jw_arr_close(&w);
	jw_obj_close(&w);
	if (!w.failed)
		emit(arg, w.buf, NULL);
	jw_free(&w);
	ksyms_release(&ks);
}

static void point_json(struct jw *w, const struct fl_bench_opts *o,
		       const struct fl_bench_point *pt)
{
	jw_obj_open(w, NULL);
	jw_str(w, "type", "result");
	jw_str(w, "test", pt->test->name);
	jw_str(w, "mode", fl_bench_mode_name(pt->mode));
	jw_int(w, "tasks", pt->ntasks);
	jw_str(w, "cgroup", fl_bench_cgroup_name(pt->cgroup));
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

/* What is read around a point's measured window (see fl_bench_window). */
struct window {
	struct vmstat before, after;
	struct nodes nodes_before, nodes_after;
	const struct fl_topo *topo;
	struct profile prof;
	/* lock contention (lockstat.h): traced is whether this window is */
	int traced;
	double lock_setup_s, lock_read_s; /* what the tracing's begin and end took */
	char lock_status[240];
	struct fl_lockstat locks;
	/* a child point: the faults its cgroup counted in the window, which
	 * says the tasks ran in it */
	const struct fl_cgroup *cg;
	uint64_t cg_before, cg_after;
	int cg_ok;
};

/* A lock status from what a lockstat call returned: ok, or why not
 * ("not available: " when the kernel cannot trace, "failed: " otherwise). */
static void lock_status(char *status, size_t n, int r, const char *ok)
{
	if (!r)
		snprintf(status, n, "%s", ok);
	else
		snprintf(status, n, "%s: %s", r == FL_ENOTFOUND ? "not available" : "failed",
			 fl_error_last());
}

static void window_begin(void *arg)
{
	struct window *w = arg;

	if (w->traced) {
		struct timespec a, b;
		int r;

		clock_gettime(CLOCK_MONOTONIC, &a);
		r = fl_lockstat_begin();
		lock_status(w->lock_status, sizeof(w->lock_status), r, "tracing");
		w->traced = !r;
		clock_gettime(CLOCK_MONOTONIC, &b);
		w->lock_setup_s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	}
	profile_reset(&w->prof);
	nodes_read(&w->nodes_before, w->topo);
	vmstat_read(&w->before);
	w->cg_ok = w->cg && !fl_cgroup_pgfault(w->cg, &w->cg_before);
}

static void window_end(void *arg)
{
	struct window *w = arg;

	vmstat_read(&w->after);
	nodes_read(&w->nodes_after, w->topo);
	w->cg_ok = w->cg_ok && !fl_cgroup_pgfault(w->cg, &w->cg_after);
	profile_read(&w->prof);
	if (w->traced) {
		struct timespec a, b;
		int r;

		clock_gettime(CLOCK_MONOTONIC, &a);
		r = fl_lockstat_end(&w->locks);
		lock_status(w->lock_status, sizeof(w->lock_status), r, "recorded");
		w->traced = !r;
		clock_gettime(CLOCK_MONOTONIC, &b);
		w->lock_read_s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	}
}

/* Whether lock contention can be traced in this run: set once by
 * fl_agent_run; lock_run_status says why not. */
static int lock_run_ok;
static char lock_run_status[240];

/* {"type":"locks","test":..,"mode":..,"tasks":..,"cgroup":..,"status":..,
 *  "locks":[{"lock":..,"named_by":..,"addr":..,"contentions":N,"wait_ns":T,
 *  "max_wait_ns":M,"chains":[{"count":c,"frames":[..]}]}],"other_locks":n} */
static void locks_emit(const struct window *wi, const struct fl_bench_point *pt,
		       fl_agent_emit_fn emit, void *arg)
{
	struct jw w;

	jw_init(&w);
	jw_obj_open(&w, NULL);
	jw_str(&w, "type", "locks");
	jw_str(&w, "test", pt->test->name);
	jw_str(&w, "mode", fl_bench_mode_name(pt->mode));
	jw_int(&w, "tasks", pt->ntasks);
	jw_str(&w, "cgroup", fl_bench_cgroup_name(pt->cgroup));
	jw_str(&w, "status", wi->lock_status);
	/* outside the measured seconds, but what a window costs the guest */
	jw_double_p(&w, "setup_s", wi->lock_setup_s, 3);
	jw_double_p(&w, "read_s", wi->lock_read_s, 3);
	fl_lockstat_json(&w, &wi->locks);
	jw_obj_close(&w);
	if (!w.failed)
		emit(arg, w.buf, NULL);
	jw_free(&w);
}

static struct window win;

/* fl_bench_run, in the child memory cgroup for a child point: the tasks
 * start inside it. 0, or a negative code. */
static int measure(const struct fl_bench_opts *o, const struct fl_topo *t,
		   struct fl_bench_point *pt)
{
	const struct fl_cgroup *cg = fl_cgroup_prepare(o);
	int r;

	if (pt->cgroup != FL_CGROUP_CHILD)
		return fl_bench_run(o, t, pt);
	r = cg ? fl_cgroup_enter(cg) : fl_error_set(FL_EINVAL, "not asked for");
	if (!r && (r = fl_bench_run(o, t, pt))) {
		/* back out of the child all the same; the point's own error is the one */
		char why[512];

		snprintf(why, sizeof(why), "%s", fl_error_last());
		fl_cgroup_leave(cg);
		return fl_error_set(r, "%s", why);
	}
	if (!r)
		r = fl_cgroup_leave(cg);
	if (r)
		fl_error_wrap(r, "%s %s tasks=%d in a child memory cgroup", pt->test->name,
			      fl_bench_mode_name(pt->mode), pt->ntasks);
	return r;
}

static int run_point(const struct fl_bench_opts *o, const struct fl_topo *t,
		     struct fl_bench_point *pt, int traced, fl_agent_emit_fn emit, void *arg)
{
	struct fl_bench_window hooks = {window_begin, window_end, &win};
	struct jw w;
	int r;

	pt->window = &hooks;
	win.before.n = win.after.n = 0;
	win.nodes_before.n = win.nodes_after.n = 0;
	win.topo = t;
	win.traced = traced && lock_run_ok;
	win.lock_setup_s = win.lock_read_s = 0;
	/* an untraced point of a traced run (locks=cost): tracepoints off */
	if (!traced && lock_run_ok)
		fl_lockstat_off();
	memset(&win.locks, 0, sizeof(win.locks));
	snprintf(win.lock_status, sizeof(win.lock_status), "%s",
		 !traced ? "off" : lock_run_ok ? "failed: the window did not start" : lock_run_status);
	win.cg = pt->cgroup == FL_CGROUP_CHILD ? fl_cgroup_prepare(o) : NULL;
	if ((r = measure(o, t, pt))) {
		pt->window = NULL;
		fl_agent_error(emit, arg, fl_error_last());
		return r;
	}
	pt->window = NULL;
	jw_init(&w);
	point_json(&w, o, pt);
	jw_double_p(&w, "measured_s", pt->measured_s, 3);
	jw_str(&w, "profile", win.prof.status);
	jw_str(&w, "locks", win.lock_status);
	if (win.cg_ok)
		jw_uint(&w, "cgroup_pgfault", win.cg_after - win.cg_before);
	vmstat_delta(&w, &win.before, &win.after);
	vmstat_missing(&w, &win.after);
	nodes_delta(&w, t, pt, &win.nodes_before, &win.nodes_after);
	jw_obj_close(&w);
	if (!w.failed)
		emit(arg, w.buf, pt);
	jw_free(&w);
	if (win.prof.valid)
		profile_emit(&win.prof, pt, emit, arg);
	if (traced)
		locks_emit(&win, pt, emit, arg);
	return 0;
}

/* A point, or with locks=cost the same point FL_LOCK_COST_CYCLES times four
 * (untraced, traced, traced, untraced: each cycle cancels a linear drift,
 * and a shared host's load comes and goes slower than a cycle), for
 * bench/lockcost. */
static int run_points(const struct fl_bench_opts *o, const struct fl_topo *t,
		      struct fl_bench_point *pt, fl_agent_emit_fn emit, void *arg)
{
	static const int abba[4] = {0, 1, 1, 0};
	int err = 0, r;

	if (o->locks != 2)
		return run_point(o, t, pt, o->locks, emit, arg);
	for (int i = 0; i < 4 * FL_LOCK_COST_CYCLES; i++)
		if ((r = run_point(o, t, pt, abba[i % 4], emit, arg)))
			err = r;
	return err;
}

int fl_agent_run(const struct fl_bench_opts *o, fl_agent_emit_fn emit, void *arg)
{
	static struct fl_bench_point pt;
	static struct fl_topo t;
	int counts[FL_BENCH_MAX_POINTS], npoints, failed = 0, r;

	if ((r = fl_topo_read(&t, "/sys/devices/system/node"))) {
		fl_error_wrap(r, "cannot read the CPU topology");
		fl_agent_error(emit, arg, fl_error_last());
		return r;
	}
	npoints = fl_bench_task_counts(o, t.ncpus, counts);
	lock_run_ok = 0;
	snprintf(lock_run_status, sizeof(lock_run_status), "off");
	if (o->locks) {
		r = fl_lockstat_open();
		lock_status(lock_run_status, sizeof(lock_run_status), r, "ready");
		lock_run_ok = !r;
	}
	pt.task_ops = calloc(FL_BENCH_MAX_TASKS, sizeof(*pt.task_ops));
	pt.task_cpu = calloc(FL_BENCH_MAX_TASKS, sizeof(*pt.task_cpu));
	for (int test = 0; fl_testdefs[test]; test++) {
		if (!(o->tests >> test & 1))
			continue;
		for (int m = 0; m < 2; m++) {
			if (!o->modes[m])
				continue;
			for (int i = 0; i < npoints; i++)
				for (int c = 0; c < 2; c++) {
					if (!o->cgroups[c])
						continue;
					pt.test = fl_testdefs[test];
					pt.mode = (enum fl_bench_mode)m;
					pt.ntasks = counts[i];
					pt.cgroup = (enum fl_bench_cgroup)c;
					failed += run_points(o, &t, &pt, emit, arg) != 0;
				}
		}
	}
	if (lock_run_ok)
		fl_lockstat_close();
	free(pt.task_ops);
	free(pt.task_cpu);
	pt.task_ops = NULL;
	pt.task_cpu = NULL;
	if (win.prof.hits_bits)
		ksyms_emit(&win.prof, emit, arg);
	if (failed)
		return fl_error_set(FL_ERROR,
				    "%d point%s failed (each said why in its error object)", failed,
				    failed == 1 ? "" : "s");
	return 0;
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

void fl_agent_env(const struct fl_topo *t, const struct fl_cgroup *cg, fl_agent_emit_fn emit,
		  void *arg)
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
	if (cg)
		fl_cgroup_json(&w, cg);
	jw_obj_close(&w);
	if (!w.failed)
		emit(arg, w.buf, NULL);
	jw_free(&w);
}
