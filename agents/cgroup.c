/*
 * cgroup.c - the child memory cgroup of "cgroup: child" points: v2 or v1,
 * made once, limits set and read back, entered and left around a point
 * (see cgroup.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "agents/cgroup.h"
#include "proto/error.h"

#define CGROUP2_MAGIC 0x63677270L
#define CGROUP1_MAGIC 0x27e0ebL
#define V2_MOUNT      "/sys/fs/cgroup"
#define V1_HOST	      "/sys/fs/cgroup/memory"
#define V1_OWN	      "/tmp/fl-memcg"
#define CHILD	      "faultline"
/* v1's "no limit" reads as a page-rounded LONG_MAX */
#define V1_UNLIMITED (1ULL << 62)

static struct fl_cgroup cg;
static int prepared;

static int fs_is(const char *path, long magic)
{
	struct statfs s;

	return !statfs(path, &s) && (long)s.f_type == magic;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		/* Bounded so the error fits the environment record's 256-byte reason. */
		r = fl_error_set(FL_EIO, "cannot write '%.31s' to %.160s: %s", text, path,
				 strerror(errno));
	if (fd >= 0)
		close(fd);
	return r;
}

/* The first line of path, or "" when it cannot be read. */
static void read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f && fgets(buf, (int)n, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

/* Whether the space-separated list in path holds word. */
static int has_word(const char *path, const char *word)
{
	char line[512], *save = NULL;

	read_line(path, line, sizeof(line));
	for (char *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save))
		if (!strcmp(t, word))
			return 1;
	return 0;
}

/* The agent's own v2 cgroup from /proc/self/cgroup ("0::/x"): "/x", "" for the root. */
static void own_v2_cgroup(char *buf, size_t n)
{
	char line[512];
	FILE *f = fopen("/proc/self/cgroup", "re");

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "0::", 3) && strcmp(line + 3, "/")) {
			snprintf(buf, n, "%.180s", line + 3);
			break;
		}
	}
	if (f)
		fclose(f);
}

static void set_limit(struct fl_cgroup *c, const char *file, uint64_t bytes, int *r)
{
	char path[320], v[32];

	if (!bytes || *r)
		return;
	snprintf(path, sizeof(path), "%s/%s", c->dir, file);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)bytes);
	*r = write_file(path, v);
}

/* What a limit file says, "max" for no limit. */
static void read_limit(const struct fl_cgroup *c, const char *file, char *out, size_t n)
{
	char path[320];

	snprintf(path, sizeof(path), "%s/%s", c->dir, file);
	read_line(path, out, n);
	if (c->v1 && strtoull(out, NULL, 10) >= V1_UNLIMITED)
		snprintf(out, n, "max");
	if (!*out)
		snprintf(out, n, "?");
}

static int make_child(struct fl_cgroup *c)
{
	snprintf(c->dir, sizeof(c->dir), "%.200s/" CHILD, c->parent);
	if (mkdir(c->dir, 0755) && errno != EEXIST)
		return fl_error_set(FL_EIO, "cannot make %.200s: %s", c->dir, strerror(errno));
	return 0;
}

/* 0 made; FL_ENOTFOUND the kernel offers no v2 memory controller (v1 may);
 * another negative code when it failed. */
static int setup_v2(struct fl_cgroup *c, const struct fl_bench_opts *o)
{
	char own[200], path[320];
	int r = 0;

	if (!fs_is(V2_MOUNT, CGROUP2_MAGIC) && mount("cgroup2", V2_MOUNT, "cgroup2", 0, NULL))
		return fl_error_set(FL_ENOTFOUND, "cannot mount cgroup2 at " V2_MOUNT ": %s",
				    strerror(errno));
	own_v2_cgroup(own, sizeof(own));
	snprintf(c->parent, sizeof(c->parent), V2_MOUNT "%.200s", own);
	snprintf(path, sizeof(path), "%s/cgroup.controllers", c->parent);
	if (!has_word(path, "memory"))
		return fl_error_set(FL_ENOTFOUND, "no memory controller in cgroup v2 (%.200s)",
				    path);
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", c->parent);
	if (!has_word(path, "memory") && (r = write_file(path, "+memory")))
		return r;
	if ((r = make_child(c)))
		return r;
	set_limit(c, "memory.max", o->memory_max, &r);
	set_limit(c, "memory.high", o->memory_high, &r);
	read_limit(c, "memory.max", c->max, sizeof(c->max));
	read_limit(c, "memory.high", c->high, sizeof(c->high));
	return r;
}

static int setup_v1(struct fl_cgroup *c, const struct fl_bench_opts *o)
{
	const char *mnt = V1_HOST;
	int r = 0;

	c->v1 = 1;
	if (!fs_is(V1_HOST, CGROUP1_MAGIC) || access(V1_HOST "/memory.limit_in_bytes", F_OK)) {
		mnt = V1_OWN;
		if (mkdir(V1_OWN, 0755) && errno != EEXIST)
			return fl_error_set(FL_EIO, "cannot make " V1_OWN ": %s", strerror(errno));
		if (!fs_is(V1_OWN, CGROUP1_MAGIC) && mount("cgroup", V1_OWN, "cgroup", 0, "memory"))
			return fl_error_set(
			    FL_EIO, "cannot mount the cgroup v1 memory hierarchy at " V1_OWN ": %s",
			    strerror(errno));
	}
	snprintf(c->parent, sizeof(c->parent), "%s", mnt);
	if ((r = make_child(c)))
		return r;
	set_limit(c, "memory.limit_in_bytes", o->memory_max, &r);
	set_limit(c, "memory.soft_limit_in_bytes", o->memory_high, &r);
	read_limit(c, "memory.limit_in_bytes", c->max, sizeof(c->max));
	read_limit(c, "memory.soft_limit_in_bytes", c->high, sizeof(c->high));
	return r;
}

const struct fl_cgroup *fl_cgroup_prepare(const struct fl_bench_opts *o)
{
	char v2why[256], v1why[256];
	int r = FL_ENOTFOUND;

	if (!o->cgroups[FL_CGROUP_CHILD])
		return NULL;
	if (prepared)
		return &cg;
	prepared = 1;
	memset(&cg, 0, sizeof(cg));
	if (!o->cgroup_v1)
		r = setup_v2(&cg, o);
	if (r == FL_ENOTFOUND) {
		/* the kernel asks for v1: say why v2 did not do */
		snprintf(v2why, sizeof(v2why), "%s", o->cgroup_v1 ? "" : fl_error_last());
		memset(&cg, 0, sizeof(cg));
		r = setup_v1(&cg, o);
		if (r && !o->cgroup_v1) {
			snprintf(v1why, sizeof(v1why), "%s", fl_error_last());
			fl_error_set(r, "%s (and %.120s)", v1why, v2why);
		}
	}
	/* kept for the environment record, which says why there is no child */
	if (r)
		snprintf(cg.why, sizeof(cg.why), "%s", fl_error_last());
	cg.ready = r == 0;
	return &cg;
}

static int move_to(const char *dir)
{
	char path[320], pid[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	return write_file(path, pid);
}

int fl_cgroup_enter(const struct fl_cgroup *c)
{
	if (!c->ready)
		return fl_error_set(FL_ENOTFOUND, "no child memory cgroup: %s", c->why);
	return move_to(c->dir);
}

int fl_cgroup_leave(const struct fl_cgroup *c)
{
	return c->ready ? move_to(c->parent) : 0;
}

int fl_cgroup_pgfault(const struct fl_cgroup *c, uint64_t *out)
{
	char path[320], name[64];
	unsigned long long v;
	FILE *f;

	if (!c->ready)
		return fl_error_set(FL_ENOTFOUND, "no child memory cgroup: %s", c->why);
	snprintf(path, sizeof(path), "%s/memory.stat", c->dir);
	if (!(f = fopen(path, "re")))
		return fl_error_set(FL_EIO, "%s: %s", path, strerror(errno));
	while (fscanf(f, "%63s %llu", name, &v) == 2)
		if (!strcmp(name, "pgfault")) {
			fclose(f);
			*out = v;
			return 0;
		}
	fclose(f);
	return fl_error_set(FL_ENOTFOUND, "%s has no pgfault", path);
}

void fl_cgroup_json(struct jw *w, const struct fl_cgroup *c)
{
	jw_obj_open(w, "cgroup");
	if (!c->ready) {
		jw_str(w, "error", c->why);
	} else {
		jw_str(w, "hierarchy", c->v1 ? "v1" : "v2");
		jw_str(w, "path", c->dir);
		jw_str(w, "memory.max", c->max);
		jw_str(w, "memory.high", c->high);
	}
	jw_obj_close(w);
}
