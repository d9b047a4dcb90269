/*
 * topo.c - NUMA layout discovery and task placement (see topo.h).
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/topo.h"
#include "proto/error.h"

static int bad_cpulist(const char *s)
{
	return fl_error_set(FL_EINVAL, "cpulist '%.*s' is not a list of CPUs",
			    (int)strcspn(s, "\n"), s);
}

int fl_cpulist_parse(const char *s, int *ids, int max)
{
	const char *all = s;
	int n = 0;

	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0)
			return bad_cpulist(all);
		b = a;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return bad_cpulist(all);
			s = end;
		}
		for (long c = a; c <= b; c++) {
			if (n >= max)
				return bad_cpulist(all);
			ids[n++] = (int)c;
		}
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return bad_cpulist(all);
	}
	return n;
}

static int read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)n, f) != NULL;
	fclose(f);
	return ok ? 0 : -1;
}

static long long node_memtotal(const char *root, int node)
{
	char path[512], line[256];
	long long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/node%d/meminfo", root, node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *m = strstr(line, "MemTotal:");

		if (m) {
			kb = atoll(m + 9);
			break;
		}
	}
	fclose(f);
	return kb;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int node_ids(const char *root, int *ids)
{
	DIR *d = opendir(root);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < FL_TOPO_MAX_NODES) {
		char *end;
		long v;

		if (strncmp(e->d_name, "node", 4))
			continue;
		v = strtol(e->d_name + 4, &end, 10);
		if (end != e->d_name + 4 && !*end)
			ids[n++] = (int)v;
	}
	closedir(d);
	qsort(ids, (size_t)n, sizeof(int), cmp_int);
	return n;
}

int fl_topo_read(struct fl_topo *t, const char *root)
{
	static int list[FL_TOPO_MAX_CPUS];
	int ids[FL_TOPO_MAX_NODES], nn;
	cpu_set_t set;

	memset(t, 0, sizeof(*t));
	if (sched_getaffinity(0, sizeof(set), &set))
		return fl_error_set(FL_EIO, "sched_getaffinity: %s", strerror(errno));
	nn = node_ids(root, ids);
	for (int i = 0; i < nn; i++) {
		char path[512], buf[4096];
		int n;

		snprintf(path, sizeof(path), "%s/node%d/cpulist", root, ids[i]);
		if (read_line(path, buf, sizeof(buf)))
			continue;
		n = fl_cpulist_parse(buf, list, FL_TOPO_MAX_CPUS);
		for (int k = 0; k < n && t->ncpus < FL_TOPO_MAX_CPUS; k++) {
			if (!CPU_ISSET(list[k], &set))
				continue;
			t->cpu[t->ncpus] = list[k];
			t->node_of[t->ncpus++] = t->nnodes;
		}
		t->node_id[t->nnodes] = ids[i];
		t->node_mem_kb[t->nnodes++] = node_memtotal(root, ids[i]);
	}
	if (t->ncpus == 0) {	/* no NUMA information: one node of everything */
		t->nnodes = 1;
		t->node_id[0] = 0;
		t->node_mem_kb[0] = -1;
		for (int c = 0; c < CPU_SETSIZE && t->ncpus < FL_TOPO_MAX_CPUS; c++)
			if (CPU_ISSET(c, &set))
				t->cpu[t->ncpus++] = c;
	}
	return 0;
}

int fl_place_parse(const char *s, enum fl_place *p)
{
	if (!strcmp(s, "spread"))
		*p = FL_PLACE_SPREAD;
	else if (!strcmp(s, "pack"))
		*p = FL_PLACE_PACK;
	else if (!strcmp(s, "none"))
		*p = FL_PLACE_NONE;
	else
		return fl_error_set(FL_EINVAL, "unknown placement '%s' (spread, pack or none)", s);
	return 0;
}

const char *fl_place_name(enum fl_place p)
{
	return p == FL_PLACE_SPREAD ? "spread" : p == FL_PLACE_PACK ? "pack" : "none";
}

/* The usable CPUs in pack order are already sorted by node then id, as
 * fl_topo_read fills them; spread takes the k-th CPU of each node in turn. */
static void spread_order(const struct fl_topo *t, int *order)
{
	int taken[FL_TOPO_MAX_NODES] = { 0 };
	int n = 0;

	while (n < t->ncpus) {
		for (int node = 0; node < t->nnodes; node++) {
			int seen = 0;

			for (int i = 0; i < t->ncpus; i++) {
				if (t->node_of[i] != node)
					continue;
				if (seen++ == taken[node]) {
					order[n++] = t->cpu[i];
					taken[node]++;
					break;
				}
			}
		}
	}
}

void fl_place_tasks(const struct fl_topo *t, enum fl_place p, int ntasks, int *cpus)
{
	static int order[FL_TOPO_MAX_CPUS];

	if (p == FL_PLACE_NONE || t->ncpus == 0) {
		for (int i = 0; i < ntasks; i++)
			cpus[i] = -1;
		return;
	}
	if (p == FL_PLACE_SPREAD)
		spread_order(t, order);
	else
		memcpy(order, t->cpu, sizeof(int) * (size_t)t->ncpus);
	for (int i = 0; i < ntasks; i++)
		cpus[i] = order[i % t->ncpus];
}
