/*
 * lockstat.c - lock contention per measured window from tracefs hist
 * triggers on lock:contention_begin/end (see lockstat.h): the hist text
 * parser and the tracefs plumbing.
 */
#include "lockstat.h"
#include "jsonw.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- parsing ------------------------------------------------------------- */

int fl_lockstat_lock_frame(const char *fn)
{
	static const char *const prefixes[] = {
	    "_raw_spin_", "_raw_read_", "_raw_write_", "__raw_spin_", "queued_spin_",
	    "queued_read_", "queued_write_", "native_queued_spin", "__pv_queued_spin",
	    "pv_queued_spin", "do_raw_spin_", "mutex_lock", "__mutex_lock", "mutex_spin_on_owner",
	    "rwsem_down_", "down_read", "down_write", "__down_", "rt_mutex_", "rtlock_",
	    "percpu_down_", "__percpu_down_", "osq_lock", "trace_contention", "__traceiter_",
	    "trace_event_", "perf_trace_", "__bpf_trace_", "spin_lock", "_spin_lock",
	    "lock_contended"};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(fn, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/* "root_usage+0x0/0x2040" -> "root_usage"; "contig_page_data+0x1280/0x..."
 * -> "contig_page_data+0x1280"; "foo+0x10/0x20 [mod]" -> "foo [mod]" for a
 * frame (keep_off 0). An address ("0xffff...") stays as it is. */
static void sym_clean(const char *in, size_t len, char *out, size_t n, int keep_off)
{
	char tmp[256], *plus, *slash, *mod;

	while (len && (in[len - 1] == ' ' || in[len - 1] == '\t' || in[len - 1] == ','))
		len--;
	while (len && (*in == ' ' || *in == '\t')) {
		in++;
		len--;
	}
	if (len >= sizeof(tmp))
		len = sizeof(tmp) - 1;
	memcpy(tmp, in, len);
	tmp[len] = '\0';
	mod = strchr(tmp, ' ');
	if (mod)
		*mod++ = '\0';
	plus = strchr(tmp, '+');
	if (plus && strncmp(tmp, "0x", 2)) {
		slash = strchr(plus, '/');
		if (slash)
			*slash = '\0';
		if (!keep_off || !strcmp(plus, "+0x0"))
			*plus = '\0';
	}
	if (mod && *mod) {
		size_t k = strlen(tmp);

		if (k + 1 + strlen(mod) < sizeof(tmp)) {
			tmp[k] = ' ';
			memmove(tmp + k + 1, mod, strlen(mod) + 1);
		}
	}
	if (n) {
		size_t k = strlen(tmp) < n - 1 ? strlen(tmp) : n - 1;

		memcpy(out, tmp, k);
		out[k] = '\0';
	}
}

static int is_address(const char *s)
{
	return !strncmp(s, "0x", 2) || !*s;
}

/* The number after "key:" in line, or 0. */
static uint64_t field_u64(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	if (!p)
		return 0;
	p += strlen(key);
	while (*p == ' ' || *p == '\t')
		p++;
	return strtoull(p, NULL, 10);
}

/* "{ NAME: [hex] sym..." : the address and the symbol text up to the
 * closing '}' or ','; 0, or -1 when line is not such a key. */
static int key_line(const char *line, const char *name, uint64_t *addr, char *sym, size_t n,
		    int keep_off)
{
	char pre[64];
	const char *p, *end;

	snprintf(pre, sizeof(pre), "{ %s: [", name);
	if (strncmp(line, pre, strlen(pre)))
		return -1;
	p = line + strlen(pre);
	*addr = strtoull(p, (char **)&end, 16);
	if (end == p || *end != ']')
		return -1;
	p = end + 1;
	end = p + strcspn(p, "},\n");
	sym_clean(p, (size_t)(end - p), sym, n, keep_off);
	return 0;
}

static struct fl_lock *find_lock(struct fl_lock *v, int n, uint64_t addr)
{
	for (int i = 0; i < n; i++)
		if (v[i].addr == addr)
			return &v[i];
	return NULL;
}

static int by_wait(const void *a, const void *b)
{
	const struct fl_lock *x = a, *y = b;

	if (x->wait_ns != y->wait_ns)
		return x->wait_ns < y->wait_ns ? 1 : -1;
	if (x->contentions != y->contentions)
		return x->contentions < y->contentions ? 1 : -1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Keeps the FL_LOCK_MAX_CHAINS most frequent chains of l. */
static void chain_add(struct fl_lock *l, const struct fl_lock_chain *c)
{
	int i;

	if (!c->nframes)
		return;
	/* two stacks may differ only inside the locking code: one chain */
	for (i = 0; i < l->nchains; i++) {
		const struct fl_lock_chain *o = &l->chains[i];

		if (o->nframes == c->nframes &&
		    !memcmp(o->frames, c->frames, sizeof(o->frames[0]) * (size_t)c->nframes)) {
			l->chains[i].count += c->count;
			goto sort;
		}
	}
	if (l->nchains < FL_LOCK_MAX_CHAINS)
		l->chains[l->nchains++] = *c;
	else if (c->count > l->chains[l->nchains - 1].count)
		l->chains[l->nchains - 1] = *c;
	else
		return;
sort:
	for (i = l->nchains - 1; i > 0 && l->chains[i].count > l->chains[i - 1].count; i--) {
		struct fl_lock_chain t = l->chains[i];

		l->chains[i] = l->chains[i - 1];
		l->chains[i - 1] = t;
	}
}

int fl_lockstat_parse(const char *waits, const char *stacks, struct fl_lockstat *ls)
{
	/* all contended locks of the window, before the cut to the top ones */
	struct fl_lock *all = NULL, *cur = NULL;
	int n = 0, cap = 0;
	const char *line, *next;

	memset(ls, 0, sizeof(*ls));
	if (!waits || !strstr(waits, "# event histogram"))
		return -1;
	for (line = waits; *line; line = next) {
		char text[512];
		size_t len;
		uint64_t addr;
		char sym[sizeof(all->name)];

		next = line + strcspn(line, "\n");
		len = (size_t)(next - line);
		if (*next)
			next++;
		if (len >= sizeof(text))
			len = sizeof(text) - 1;
		memcpy(text, line, len);
		text[len] = '\0';
		if (!key_line(text, "lock", &addr, sym, sizeof(sym), 1)) {
			if (!(cur = find_lock(all, n, addr))) {
				if (n == cap) {
					struct fl_lock *nv;

					cap = cap ? 2 * cap : 64;
					if (!(nv = realloc(all, (size_t)cap * sizeof(*nv)))) {
						free(all);
						return -1;
					}
					all = nv;
				}
				cur = &all[n++];
				memset(cur, 0, sizeof(*cur));
				cur->addr = addr;
				snprintf(cur->name, sizeof(cur->name), "%s", sym);
			}
			cur->waits += field_u64(text, "hitcount:");
			cur->wait_ns += field_u64(text, "wait_ns:");
		} else if (cur && strstr(text, "max:") && text[strspn(text, " \t")] == 'm') {
			uint64_t mx = field_u64(text, "max:");

			if (mx > cur->max_wait_ns)
				cur->max_wait_ns = mx;
		} else if (text[0] == '{') {
			cur = NULL;
		}
	}
	/* the chains, by lock address */
	for (line = stacks; line && *line;) {
		struct fl_lock_chain c;
		struct fl_lock *l;
		uint64_t addr;
		char sym[sizeof(all->name)], text[512];
		int in_lock = 1;
		size_t len;

		next = line + strcspn(line, "\n");
		len = (size_t)(next - line) < sizeof(text) ? (size_t)(next - line) : sizeof(text) - 1;
		memcpy(text, line, len);
		text[len] = '\0';
		line = *next ? next + 1 : next;
		if (key_line(text, "lock_addr", &addr, sym, sizeof(sym), 1))
			continue;
		memset(&c, 0, sizeof(c));
		/* frames up to the "} hitcount:" line */
		while (*line) {
			char fn[sizeof(c.frames[0])];

			next = line + strcspn(line, "\n");
			len = (size_t)(next - line) < sizeof(text) ? (size_t)(next - line)
								   : sizeof(text) - 1;
			memcpy(text, line, len);
			text[len] = '\0';
			line = *next ? next + 1 : next;
			if (text[strspn(text, " \t")] == '}') {
				c.count = field_u64(text, "hitcount:");
				break;
			}
			sym_clean(text, len, fn, sizeof(fn), 0);
			if (!*fn)
				continue;
			if (in_lock && fl_lockstat_lock_frame(fn))
				continue;
			in_lock = 0;
			if (c.nframes < FL_LOCK_MAX_FRAMES)
				snprintf(c.frames[c.nframes++], sizeof(c.frames[0]), "%s", fn);
		}
		if ((l = find_lock(all, n, addr))) {
			l->contentions += c.count;
			chain_add(l, &c);
		}
	}
	for (int i = 0; i < n; i++)
		if (all[i].contentions < all[i].waits) /* no stacks, or cut at the edge */
			all[i].contentions = all[i].waits;
	if (n)
		qsort(all, (size_t)n, sizeof(*all), by_wait);
	for (int i = 0; i < n; i++) {
		struct fl_lock *l = &all[i];

		if (!is_address(l->name)) {
			l->named_by = "symbol";
		} else if (l->nchains && l->chains[0].nframes &&
			   !is_address(l->chains[0].frames[0])) {
			l->named_by = "caller";
			snprintf(l->name, sizeof(l->name), "%s", l->chains[0].frames[0]);
		} else {
			l->named_by = "address";
			snprintf(l->name, sizeof(l->name), "0x%llx", (unsigned long long)l->addr);
		}
		if (i < FL_LOCK_MAX_LOCKS)
			ls->locks[ls->nlocks++] = *l;
		else
			ls->other_locks++;
	}
	free(all);
	return 0;
}

void fl_lockstat_json(struct jw *w, const struct fl_lockstat *ls)
{
	char addr[32];

	jw_arr_open(w, "locks");
	for (int i = 0; i < ls->nlocks; i++) {
		const struct fl_lock *l = &ls->locks[i];

		jw_obj_open(w, NULL);
		jw_str(w, "lock", l->name);
		jw_str(w, "named_by", l->named_by);
		snprintf(addr, sizeof(addr), "%llx", (unsigned long long)l->addr);
		jw_str(w, "addr", addr);
		jw_uint(w, "contentions", l->contentions);
		jw_uint(w, "waits", l->waits);
		jw_uint(w, "wait_ns", l->wait_ns);
		jw_uint(w, "max_wait_ns", l->max_wait_ns);
		jw_arr_open(w, "chains");
		for (int c = 0; c < l->nchains; c++) {
			jw_obj_open(w, NULL);
			jw_uint(w, "count", l->chains[c].count);
			jw_arr_open(w, "frames");
			for (int f = 0; f < l->chains[c].nframes; f++)
				jw_str(w, NULL, l->chains[c].frames[f]);
			jw_arr_close(w);
			jw_obj_close(w);
		}
		jw_arr_close(w);
		jw_obj_close(w);
	}
	jw_arr_close(w);
	jw_uint(w, "other_locks", ls->other_locks);
}

/* ---- tracefs ------------------------------------------------------------- */

static char tfs[64];  /* the tracefs root in use, "" before open */
static int synth_made; /* fl_lock_wait exists */

#define SYNTH "fl_lock_wait u64 lock; u64 wait_ns"
#define EV_BEGIN "events/lock/contention_begin/trigger"
#define EV_END "events/lock/contention_end/trigger"
#define EV_SYNTH "events/synthetic/fl_lock_wait/trigger"

static const struct {
	const char *file, *trigger;
} triggers[] = {
    /* installed in this order, removed in the reverse */
    {EV_SYNTH, "hist:keys=lock.sym-offset:vals=hitcount,wait_ns:fl_mx=wait_ns:"
	       "onmax($fl_mx).save(lock):sort=wait_ns.descending:size=2048"},
    {EV_BEGIN, "hist:keys=common_pid:fl_ts0=common_timestamp"},
    {EV_BEGIN, "hist:keys=lock_addr.sym-offset,stacktrace:vals=hitcount:"
	       "sort=hitcount.descending:size=4096"},
    {EV_END, "hist:keys=common_pid:fl_wait=common_timestamp-$fl_ts0:"
	     "onmatch(lock.contention_begin).trace(fl_lock_wait,lock_addr,$fl_wait)"},
};
#define NTRIGGERS (int)(sizeof(triggers) / sizeof(triggers[0]))
static int installed; /* triggers[0..installed) are in */

static int exists(const char *rel)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", tfs, rel);
	return stat(p, &st) == 0;
}

/* The last line of the kernel's error_log, which says what a refused
 * command got wrong; cleared for the next one. */
static void error_log(char *out, size_t n)
{
	char p[256], buf[2048];
	ssize_t got;
	int fd;

	out[0] = '\0';
	snprintf(p, sizeof(p), "%s/error_log", tfs);
	if ((fd = open(p, O_RDONLY)) < 0)
		return;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return;
	buf[got] = '\0';
	while (got > 0 && buf[got - 1] == '\n')
		buf[--got] = '\0';
	/* the last "[ts] hist:...: error: ..." and its command line */
	char *last = NULL;
	for (char *s = strstr(buf, "error:"); s; s = strstr(s + 1, "error:"))
		last = s;
	if (last) {
		size_t k = strcspn(last, "\n");

		snprintf(out, n, "%.*s", (int)(k < 200 ? k : 200), last);
	}
	if ((fd = open(p, O_WRONLY | O_TRUNC)) >= 0)
		close(fd);
}

/* Appends text to a tracefs file (never truncates: that would drop every
 * trigger or synthetic event, other users' too). 0 or -errno. */
static int tfs_append(const char *rel, const char *text)
{
	char p[256];
	size_t len = strlen(text);
	ssize_t w;
	int fd, e = 0;

	snprintf(p, sizeof(p), "%s/%s", tfs, rel);
	if ((fd = open(p, O_WRONLY | O_APPEND)) < 0)
		return -errno;
	w = write(fd, text, len);
	if (w != (ssize_t)len)
		e = w < 0 ? -errno : -EIO;
	close(fd);
	return e;
}

static char *tfs_read(const char *rel)
{
	char p[256];
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap + 1);
	ssize_t got;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", tfs, rel);
	if (!buf || (fd = open(p, O_RDONLY)) < 0) {
		free(buf);
		return NULL;
	}
	while ((got = read(fd, buf + len, cap - len)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		len += (size_t)got;
		if (len == cap) {
			char *nb = realloc(buf, 2 * cap + 1);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

static int find_tracefs(void)
{
	static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	const char *env = getenv("FL_TRACEFS");
	struct stat st;
	char p[128];

	if (env && *env) {
		snprintf(p, sizeof(p), "%s/events", env);
		if (stat(p, &st))
			return -1;
		snprintf(tfs, sizeof(tfs), "%.63s", env);
		return 0;
	}
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/events", roots[i]);
		if (!stat(p, &st)) {
			snprintf(tfs, sizeof(tfs), "%s", roots[i]);
			return 0;
		}
	}
	/* a kernel with tracing has the mount point; an initramfs mounts it */
	if (!stat(roots[0], &st) && !mount("nodev", roots[0], "tracefs", 0, NULL)) {
		snprintf(tfs, sizeof(tfs), "%s", roots[0]);
		return 0;
	}
	return -1;
}

int fl_lockstat_open(char *status, size_t n)
{
	int e;

	tfs[0] = '\0';
	if (find_tracefs()) {
		snprintf(status, n, "not available: no tracefs (a kernel without CONFIG_FTRACE)");
		return -1;
	}
	if (!exists("events/lock/contention_begin") || !exists("events/lock/contention_end")) {
		snprintf(status, n,
			 "not available: no lock:contention_begin/end tracepoints (Linux 5.19 "
			 "or later)");
		tfs[0] = '\0';
		return -1;
	}
	if (!exists("events/lock/contention_begin/hist") || !exists("synthetic_events")) {
		snprintf(status, n, "not available: no hist triggers (CONFIG_HIST_TRIGGERS)");
		tfs[0] = '\0';
		return -1;
	}
	if (!exists("events/synthetic/fl_lock_wait") && (e = tfs_append("synthetic_events", SYNTH))) {
		char log[256];

		error_log(log, sizeof(log));
		snprintf(status, n, "failed: synthetic event fl_lock_wait: %s %s", strerror(-e),
			 log);
		tfs[0] = '\0';
		return -1;
	}
	synth_made = 1;
	snprintf(status, n, "ready");
	return 0;
}

static void remove_triggers(void)
{
	char cmd[512];

	while (installed > 0) {
		installed--;
		snprintf(cmd, sizeof(cmd), "!%s", triggers[installed].trigger);
		tfs_append(triggers[installed].file, cmd);
	}
}

int fl_lockstat_begin(char *status, size_t n)
{
	if (!tfs[0])
		return -1;
	remove_triggers();
	for (int i = 0; i < NTRIGGERS; i++) {
		int e = tfs_append(triggers[i].file, triggers[i].trigger);

		if (e) {
			char log[256];

			error_log(log, sizeof(log));
			snprintf(status, n, "failed: %s: %s %s", triggers[i].file, strerror(-e), log);
			remove_triggers();
			return -1;
		}
		installed = i + 1;
	}
	snprintf(status, n, "tracing");
	return 0;
}

int fl_lockstat_end(struct fl_lockstat *ls, char *status, size_t n)
{
	char *waits, *stacks;
	int r;

	memset(ls, 0, sizeof(*ls));
	if (!tfs[0] || installed != NTRIGGERS)
		return -1;
	waits = tfs_read("events/synthetic/fl_lock_wait/hist");
	stacks = tfs_read("events/lock/contention_begin/hist");
	remove_triggers();
	if (getenv("FL_LOCKSTAT_RAW"))
		fprintf(stderr, "=== fl_lock_wait/hist\n%s=== contention_begin/hist\n%s=== end\n",
			waits ? waits : "", stacks ? stacks : "");
	r = fl_lockstat_parse(waits, stacks, ls);
	if (r)
		snprintf(status, n, "failed: cannot read %s/events/synthetic/fl_lock_wait/hist", tfs);
	else
		snprintf(status, n, "recorded");
	free(waits);
	free(stacks);
	return r;
}

void fl_lockstat_close(void)
{
	if (!tfs[0])
		return;
	remove_triggers();
	if (synth_made)
		tfs_append("synthetic_events", "!" SYNTH);
	synth_made = 0;
	tfs[0] = '\0';
}
