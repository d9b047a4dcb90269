/*
 * lockstat.c - lock contention per measured window from tracefs hist
 * triggers on lock:contention_begin/end (see lockstat.h): the hist text
 * parser and the tracefs plumbing.
 */
#include "agents/lockstat.h"
#include "agents/file.h"
#include "agents/jsonw.h"
#include "proto/error.h"

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
	    "lock_contended", "mmap_read_lock", "mmap_write_lock", "mmap_read_trylock"};

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

/* Frames of the tracing machinery itself: the waits' stacks are taken in
 * the synthetic event's trigger, inside contention_end's. */
static int trace_frame(const char *fn)
{
	static const char *const prefixes[] = {"event_hist_trigger", "event_triggers_call",
					       "trace_event_", "trace_contention", "__traceiter_",
					       "perf_trace_", "__bpf_trace_", "action_trace",
					       "trace_synth", "synth_event"};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(fn, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
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

/* One entry of a hist keyed by NAME.sym-offset,stacktrace: the lock, its
 * chain from the caller of the lock op, and the values. */
struct entry {
	uint64_t addr;
	char sym[96];
	struct fl_lock_chain chain;
	uint64_t hits, wait_ns, max_ns;
};

/* Copies the next line of *p into buf (cut to n) and advances; 0 at the end. */
static int next_line(const char **p, char *buf, size_t n)
{
	const char *s = *p, *e;
	size_t len;

	if (!s || !*s)
		return 0;
	e = s + strcspn(s, "\n");
	len = (size_t)(e - s) < n - 1 ? (size_t)(e - s) : n - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*p = *e ? e + 1 : e;
	return 1;
}

/*
 * The next entry "{ NAME: [hex] sym , stacktrace:\n frames\n} hitcount: N
 * [wait_ns: W]\n[\tmax: M ...]" of text from *p; 0 at the end. Entries of
 * other shapes (the common_pid hist on the same event) are skipped. A file
 * holds one histogram per trigger, each after its "# trigger info:" line:
 * *onmax says whether the entry's is the onmax() one (its hitcount counts
 * the same waits again and is not to be added).
 */
static int next_entry(const char **p, const char *name, struct entry *e, int *onmax)
{
	char pre[64], line[512];
	size_t plen;

	snprintf(pre, sizeof(pre), "{ %s: [", name);
	plen = strlen(pre);
	while (next_line(p, line, sizeof(line))) {
		const char *q, *end;
		int in_lock = 1;

		if (!strncmp(line, "# trigger info:", 15))
			*onmax = strstr(line, "onmax(") != NULL;
		if (strncmp(line, pre, plen))
			continue;
		memset(e, 0, sizeof(*e));
		q = line + plen;
		e->addr = strtoull(q, (char **)&end, 16);
		if (end == q || *end != ']')
			continue;
		q = end + 1;
		end = q + strcspn(q, "},");
		sym_clean(q, (size_t)(end - q), e->sym, sizeof(e->sym), 1);
		/* a hist without the stacktrace key: the values on the key's line */
		if (strstr(line, "} hitcount:")) {
			e->hits = field_u64(line, "hitcount:");
			e->wait_ns = field_u64(line, "wait_ns:");
			in_lock = -1;
		}
		while (in_lock >= 0 && next_line(p, line, sizeof(line))) {
			char fn[sizeof(e->chain.frames[0])];

			if (line[strspn(line, " \t")] == '}') {
				e->hits = field_u64(line, "hitcount:");
				e->wait_ns = field_u64(line, "wait_ns:");
				break;
			}
			sym_clean(line, strlen(line), fn, sizeof(fn), 0);
			if (!*fn || (in_lock && (fl_lockstat_lock_frame(fn) || trace_frame(fn))))
				continue;
			in_lock = 0;
			if (e->chain.nframes < FL_LOCK_MAX_FRAMES)
				snprintf(e->chain.frames[e->chain.nframes++], sizeof(fn), "%s", fn);
		}
		/* onmax's line follows the entry */
		q = *p;
		if (next_line(&q, line, sizeof(line)) && line[strspn(line, " \t")] == 'm' &&
		    strstr(line, "max:")) {
			e->max_ns = field_u64(line, "max:");
			*p = q;
		}
		e->chain.count = e->hits;
		return 1;
	}
	return 0;
}

/* What a lock is called: the kernel's symbol for a static one; for one
 * inside an object, the function that took it (perf lock contention's "by
 * caller"), else its address. */
static void identity(const struct entry *e, char *name, size_t n, const char **by)
{
	if (!is_address(e->sym)) {
		*by = "symbol";
		snprintf(name, n, "%s", e->sym);
	} else if (e->chain.nframes && !is_address(e->chain.frames[0])) {
		*by = "caller";
		snprintf(name, n, "%s", e->chain.frames[0]);
	} else {
		*by = "address";
		snprintf(name, n, "0x%llx", (unsigned long long)e->addr);
	}
}

static struct fl_lock *find_lock(struct fl_lock *v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
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
	return strcmp(x->name, y->name);
}

/* Keeps the FL_LOCK_MAX_CHAINS most frequent chains of l; chains that
 * differ only inside the locking code or past the depth kept are one. */
static void chain_add(struct fl_lock *l, const struct fl_lock_chain *c)
{
	int i;

	if (!c->nframes)
		return;
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
	i = l->nchains - 1;
sort:
	for (; i > 0 && l->chains[i].count > l->chains[i - 1].count; i--) {
		struct fl_lock_chain t = l->chains[i];

		l->chains[i] = l->chains[i - 1];
		l->chains[i - 1] = t;
	}
}

static struct fl_lock *lock_get(struct fl_lock **all, int *n, int *cap, const struct entry *e)
{
	char name[sizeof((*all)->name)];
	const char *by;
	struct fl_lock *l;

	identity(e, name, sizeof(name), &by);
	if ((l = find_lock(*all, *n, name)))
		return l;
	if (*n == *cap) {
		struct fl_lock *nv;

		*cap = *cap ? 2 * *cap : 64;
		if (!(nv = realloc(*all, (size_t)*cap * sizeof(*nv))))
			return NULL;
		*all = nv;
	}
	l = &(*all)[(*n)++];
	memset(l, 0, sizeof(*l));
	l->addr = e->addr;
	l->named_by = by;
	snprintf(l->name, sizeof(l->name), "%s", name);
	return l;
}

int fl_lockstat_parse(const char *waits, const char *stacks, struct fl_lockstat *ls)
{
	struct fl_lock *all = NULL, *l;
	int n = 0, cap = 0, onmax = 0;
	struct entry e;
	const char *p;

	memset(ls, 0, sizeof(*ls));
	if (!waits || !strstr(waits, "# event histogram"))
		return fl_error_set(FL_EINVAL, "not a hist file");
	/* the timed waits, per lock and chain, and their longest */
	for (p = waits; next_entry(&p, "lock", &e, &onmax);) {
		if (!(l = lock_get(&all, &n, &cap, &e)))
			goto oom;
		if (e.max_ns > l->max_wait_ns)
			l->max_wait_ns = e.max_ns;
		if (onmax)
			continue;
		l->waits += e.hits;
		l->wait_ns += e.wait_ns;
		chain_add(l, &e.chain);
	}
	/* the contentions (begins), per lock and chain */
	for (p = stacks; next_entry(&p, "lock_addr", &e, &onmax);) {
		char name[sizeof(all->name)];
		const char *by;

		identity(&e, name, sizeof(name), &by);
		if ((l = find_lock(all, n, name)))
			l->contentions += e.hits;
	}
	for (int i = 0; i < n; i++)
		if (all[i].contentions < all[i].waits) /* a pair cut at the window's edge */
			all[i].contentions = all[i].waits;
	if (n)
		qsort(all, (size_t)n, sizeof(*all), by_wait);
	for (int i = 0; i < n; i++) {
		if (i < FL_LOCK_MAX_LOCKS)
			ls->locks[ls->nlocks++] = all[i];
		else
			ls->other_locks++;
	}
	free(all);
	return 0;
oom:
	free(all);
	return fl_error_set(FL_ERROR, "out of memory for %d locks", n);
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
	int per_window; /* 1: a map read per window, cleared at its start; 2: the
			 * max, whose variable a clear cannot take: re-added */
} triggers[] = {
    /* installed in this order, removed in the reverse */
    {EV_SYNTH, "hist:keys=lock.sym-offset,stacktrace:vals=hitcount,wait_ns:"
	       "sort=wait_ns.descending:size=2048", 1},
    {EV_BEGIN, "hist:keys=common_pid:fl_ts0=common_timestamp", 0},
    {EV_BEGIN, "hist:keys=lock_addr.sym-offset,stacktrace:vals=hitcount:"
	       "sort=hitcount.descending:size=4096", 1},
    {EV_END, "hist:keys=common_pid:fl_wait=common_timestamp-$fl_ts0:"
	     "onmatch(lock.contention_begin).trace(fl_lock_wait,lock_addr,$fl_wait)", 0},
    {EV_SYNTH, "hist:keys=lock.sym-offset,stacktrace:fl_mx=wait_ns:onmax($fl_mx).save(lock):"
	       "size=2048", 2},
};
#define NTRIGGERS (int)(sizeof(triggers) / sizeof(triggers[0]))
static int installed; /* triggers[0..installed) are in */
static pid_t self;    /* the agent, whose own contentions are not counted */

/*
 * Trigger i as written: pre ("!" removes it), its text, attr (":clear")
 * and the filter that leaves out the agent's own contentions: adding a
 * trigger or clearing a map allocates, and the allocator's lock
 * (slob_lock on the demo's kernel) contended then would count in the
 * window. The kernel matches a clear or a removal with the filter too.
 */
static void trigger_text(int i, const char *pre, const char *attr, char *out, size_t n)
{
	snprintf(out, n, "%s%s%s if common_pid != %d", pre, triggers[i].trigger, attr, (int)self);
}

static int install(void);
static void remove_triggers(void);

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

	snprintf(p, sizeof(p), "%s/%s", tfs, rel);
	return fl_agent_read_file(p, 1 << 16);
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

int fl_lockstat_open(void)
{
	int e;

	tfs[0] = '\0';
	self = getpid();
	if (find_tracefs())
		return fl_error_set(FL_ENOTFOUND, "no tracefs (a kernel without CONFIG_FTRACE)");
	if (!exists("events/lock/contention_begin") || !exists("events/lock/contention_end")) {
		tfs[0] = '\0';
		return fl_error_set(FL_ENOTFOUND, "no lock:contention_begin/end tracepoints (Linux "
						  "5.19 or later)");
	}
	if (!exists("events/lock/contention_begin/hist") || !exists("synthetic_events")) {
		tfs[0] = '\0';
		return fl_error_set(FL_ENOTFOUND, "no hist triggers (CONFIG_HIST_TRIGGERS)");
	}
	if (!exists("events/synthetic/fl_lock_wait") && (e = tfs_append("synthetic_events", SYNTH))) {
		char log[256];

		error_log(log, sizeof(log));
		tfs[0] = '\0';
		return fl_error_set(FL_EIO, "synthetic event fl_lock_wait: %s %s", strerror(-e),
				    log);
	}
	synth_made = 1;
	if ((e = install()))
		fl_lockstat_close(); /* keeps install's message */
	return e;
}

/* The triggers, once a run: enabling a tracepoint patches kernel text and
 * removing one waits for RCU, a second or more each under TCG, where
 * clearing a map between windows is one RCU wait. */
static int install(void)
{
	char cmd[512];

	for (int i = 0; i < NTRIGGERS; i++) {
		int e;

		trigger_text(i, "", "", cmd, sizeof(cmd));
		e = tfs_append(triggers[i].file, cmd);

		if (e) {
			char log[256];

			error_log(log, sizeof(log));
			fl_error_set(FL_EIO, "%s: %s %s", triggers[i].file, strerror(-e), log);
			remove_triggers();
			return FL_EIO;
		}
		installed = i + 1;
	}
	return 0;
}

static void remove_triggers(void)
{
	char cmd[512];

	while (installed > 0) {
		installed--;
		trigger_text(installed, "!", "", cmd, sizeof(cmd));
		tfs_append(triggers[installed].file, cmd);
	}
}

void fl_lockstat_off(void)
{
	if (tfs[0])
		remove_triggers();
}

int fl_lockstat_begin(void)
{
	char cmd[512];

	if (!tfs[0])
		return fl_error_set(FL_EIO, "lock tracing is not set up");
	/* after fl_lockstat_off: the triggers again (fresh maps) */
	if (installed != NTRIGGERS)
		return install();
	/* empty maps for the window: the onmax() one re-added first, as adding
	 * a trigger allocates its map, and the allocator's lock contended then
	 * (slob_lock, on the demo's kernel) would count in the window */
	for (int pass = 2; pass >= 1; pass--)
		for (int i = 0; i < NTRIGGERS; i++) {
			int e = 0;

			if (triggers[i].per_window != pass)
				continue;
			if (pass == 1) {
				trigger_text(i, "", ":clear", cmd, sizeof(cmd));
				e = tfs_append(triggers[i].file, cmd);
			} else {
				trigger_text(i, "!", "", cmd, sizeof(cmd));
				if (!(e = tfs_append(triggers[i].file, cmd))) {
					trigger_text(i, "", "", cmd, sizeof(cmd));
					e = tfs_append(triggers[i].file, cmd);
				}
			}
			if (e) {
				char log[256];

				error_log(log, sizeof(log));
				return fl_error_set(FL_EIO, "window start, %s: %s %s",
						    triggers[i].file, strerror(-e), log);
			}
		}
	return 0;
}

int fl_lockstat_end(struct fl_lockstat *ls)
{
	char *waits, *stacks;
	int r;

	memset(ls, 0, sizeof(*ls));
	if (!tfs[0] || installed != NTRIGGERS)
		return fl_error_set(FL_EIO, "the window's triggers are not installed");
	waits = tfs_read("events/synthetic/fl_lock_wait/hist");
	stacks = tfs_read("events/lock/contention_begin/hist");
	if (getenv("FL_LOCKSTAT_RAW"))
		fprintf(stderr, "=== fl_lock_wait/hist\n%s=== contention_begin/hist\n%s=== end\n",
			waits ? waits : "", stacks ? stacks : "");
	r = fl_lockstat_parse(waits, stacks, ls);
	if (r)
		r = fl_error_set(FL_EIO, "cannot read %s/events/synthetic/fl_lock_wait/hist", tfs);
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
