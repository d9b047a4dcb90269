/* evidence.c - vmstat rates and profiles per point from fl-agent records (see evidence.h). */
#include "analysis/evidence.h"
#include "analysis/cgroup.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int fl_vmstat_is_node(const char *name)
{
	return !strncmp(name, FL_NODE_PREFIX "-", strlen(FL_NODE_PREFIX) + 1) ||
	       !strncmp(name, FL_NODE_PREFIX ".", strlen(FL_NODE_PREFIX) + 1);
}

int fl_vmstat_counter(const char *name)
{
	const char *last = strrchr(name, '.');

	if (fl_vmstat_is_node(name) && last) {
		if (!strcmp(last, ".tasks"))
			return 0;
		name = last + 1;
	}
	return strncmp(name, "nr_", 3) != 0;
}

static int bad(const char *field, const char *what)
{
	return fl_error_set(FL_EINVAL, "record field '%s': %s", field, what);
}

static int get_str(json_t *o, const char *key, char **out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		return bad(key, "expected a string");
	*out = fl_xstrdup(json_string_value(v));
	return 0;
}

static int get_uint(json_t *o, const char *key, uint64_t *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return bad(key, "expected a non-negative integer");
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* test, mode, tasks and cgroup: which point a record belongs to (agents
 * that predate cgroup contexts measured in the root). */
static int get_point(json_t *o, struct fl_evidence_point *pt)
{
	json_t *cg = json_object_get(o, "cgroup");
	uint64_t tasks = 0;
	int r;

	if ((r = get_str(o, "test", &pt->test)) || (r = get_str(o, "mode", &pt->mode)) ||
	    (r = get_uint(o, "tasks", &tasks)))
		return r;
	if (!tasks || tasks > 1000000)
		return bad("tasks", "out of range");
	if (cg && !json_is_string(cg))
		return bad("cgroup", "expected a string");
	pt->tasks = (unsigned)tasks;
	pt->cgroup = fl_xstrdup(fl_cgroup_key(cg ? json_string_value(cg) : NULL));
	return 0;
}

/* The window the deltas cover: measured_s, or duration_s from agents that
 * predate it (their window also held the warm-up: a slight under-count). */
static int get_window(json_t *o, double *secs)
{
	json_t *m = json_object_get(o, "measured_s");

	if (!m)
		m = json_object_get(o, "duration_s");
	if (!json_is_number(m) || json_number_value(m) <= 0)
		return bad("measured_s", "expected a positive number of seconds");
	*secs = json_number_value(m);
	return 0;
}

static void vm_add(struct fl_evidence_point *pt, size_t *cap, char *name, int64_t delta,
		   double per_sec)
{
	if (pt->nvm == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		pt->vm = fl_xrealloc(pt->vm, *cap * sizeof(*pt->vm));
	}
	pt->vm[pt->nvm++] = (struct fl_vmstat_rate){name, delta, per_sec};
}

/* "nodes":[{"node":0,"tasks":1,"numastat":{..},"vmstat":{..}}] as LKP's
 * numa-numastat.node0.* and numa-vmstat.node0.* rates and numa.node0.tasks. */
static int from_nodes(json_t *nodes, struct fl_evidence_point *pt, size_t *cap)
{
	static const char *const groups[] = {"numastat", "vmstat"};
	json_t *n, *v;
	const char *key;
	size_t i;

	if (!nodes)
		return 0;
	if (!json_is_array(nodes))
		return bad("nodes", "expected an array");
	json_array_foreach(nodes, i, n)
	{
		json_t *id = json_object_get(n, "node"), *tasks = json_object_get(n, "tasks");

		if (!json_is_integer(id) || json_integer_value(id) < 0 || !json_is_integer(tasks))
			return fl_error_set(FL_EINVAL,
					    "record field 'nodes[%zu]': expected node and tasks", i);
		vm_add(pt, cap,
		       fl_xasprintf(FL_NODE_PREFIX ".node%lld.tasks",
				    (long long)json_integer_value(id)),
		       json_integer_value(tasks), (double)json_integer_value(tasks));
		for (int g = 0; g < 2; g++) {
			json_t *obj = json_object_get(n, groups[g]);

			if (obj && !json_is_object(obj))
				return fl_error_set(FL_EINVAL,
						    "record field 'nodes[%zu].%s': expected an "
						    "object",
						    i, groups[g]);
			json_object_foreach(obj, key, v)
			{
				if (!json_is_integer(v))
					return fl_error_set(FL_EINVAL,
							    "record field 'nodes[%zu].%s.%s': "
							    "expected an integer",
							    i, groups[g], key);
				vm_add(pt, cap,
				       fl_xasprintf(FL_NODE_PREFIX "-%s.node%lld.%s", groups[g],
						    (long long)json_integer_value(id), key),
				       json_integer_value(v),
				       (double)json_integer_value(v) / pt->measured_s);
			}
		}
	}
	return 0;
}

/* "vmstat_missing":["pgfault",..] as "pgfault,.."; absent: NULL. */
static int get_missing(json_t *o, struct fl_evidence_point *pt)
{
	json_t *m = json_object_get(o, "vmstat_missing"), *v;
	fl_buf b = FL_BUF_INIT;
	size_t i;

	if (!m)
		return 0;
	if (!json_is_array(m))
		return bad("vmstat_missing", "expected an array");
	json_array_foreach(m, i, v)
	{
		if (!json_is_string(v)) {
			fl_buf_free(&b);
			return bad("vmstat_missing", "expected names");
		}
		fl_buf_addf(&b, "%s%s", i ? "," : "", json_string_value(v));
	}
	pt->vmstat_missing = fl_buf_detach(&b);
	return 0;
}

static int from_result(json_t *o, struct fl_evidence_point *pt)
{
	json_t *vm = json_object_get(o, "vmstat_delta"), *prof = json_object_get(o, "profile"), *v;
	const char *key;
	int r;

	pt->source = FL_EV_RESULT;
	if ((r = get_point(o, pt)) || (r = get_window(o, &pt->measured_s)))
		return r;
	/* Agents that predate per-point profiles said nothing. */
	pt->profile = fl_xstrdup(json_is_string(prof) ? json_string_value(prof) : "none");
	if (vm && !json_is_object(vm))
		return bad("vmstat_delta", "expected an object");
	json_t *locks = json_object_get(o, "locks");
	size_t cap = json_object_size(vm) + 1;

	if (locks && !json_is_string(locks))
		return bad("locks", "expected a string");
	pt->locks = locks ? fl_xstrdup(json_string_value(locks)) : NULL;
	pt->vm = fl_xcalloc(cap, sizeof(*pt->vm));
	json_object_foreach(vm, key, v)
	{
		if (!json_is_integer(v))
			return fl_error_set(FL_EINVAL,
					    "record field 'vmstat_delta.%s': expected an "
					    "integer",
					    key);
		pt->vm[pt->nvm++] =
		    (struct fl_vmstat_rate){fl_xstrdup(key), json_integer_value(v),
					    (double)json_integer_value(v) / pt->measured_s};
	}
	if ((r = from_nodes(json_object_get(o, "nodes"), pt, &cap)))
		return r;
	return get_missing(o, pt);
}

static int get_u64(json_t *o, const char *key, uint64_t *out, size_t i)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return fl_error_set(FL_EINVAL,
				    "record field 'locks[%zu].%s': expected a non-negative integer",
				    i, key);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* A copy of a name from the guest with control characters made '?': it
 * ends up in mail bodies and pages. */
static char *clean_dup(const char *s)
{
	char *d = fl_xstrdup(s);

	for (char *p = d; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return d;
}

/* A lock's chains as text: "COUNT fn <- caller <- ..." a line. */
static int chains_text(json_t *chains, size_t i, char **out)
{
	fl_buf b = FL_BUF_INIT;
	json_t *c, *f;
	size_t k, j;

	*out = NULL;
	if (chains && !json_is_array(chains))
		return fl_error_set(FL_EINVAL, "record field 'locks[%zu].chains': expected an array",
				    i);
	json_array_foreach(chains, k, c)
	{
		json_t *count = json_object_get(c, "count"), *frames = json_object_get(c, "frames");

		if (!json_is_integer(count) || !json_is_array(frames)) {
			fl_buf_free(&b);
			return fl_error_set(FL_EINVAL,
					    "record field 'locks[%zu].chains[%zu]': expected "
					    "count and frames",
					    i, k);
		}
		fl_buf_addf(&b, "%s%lld", k ? "\n" : "", (long long)json_integer_value(count));
		json_array_foreach(frames, j, f)
		{
			char *fn = clean_dup(json_is_string(f) ? json_string_value(f) : "?");

			fl_buf_addf(&b, "%s%s", j ? " <- " : " ", fn);
			free(fn);
		}
	}
	*out = fl_buf_detach(&b);
	return 0;
}

static int from_locks(json_t *o, struct fl_evidence_point *pt)
{
	json_t *st = json_object_get(o, "status"), *arr = json_object_get(o, "locks"), *l;
	size_t i;
	int r;

	pt->source = FL_EV_LOCKS;
	if ((r = get_point(o, pt)))
		return r;
	if (!json_is_string(st))
		return bad("status", "expected a string");
	pt->locks = fl_xstrdup(json_string_value(st));
	if (arr && !json_is_array(arr))
		return bad("locks", "expected an array");
	pt->lk = fl_xcalloc(json_array_size(arr) + 1, sizeof(*pt->lk));
	json_array_foreach(arr, i, l)
	{
		json_t *name = json_object_get(l, "lock"), *by = json_object_get(l, "named_by");
		struct fl_lock_ev e = {0};
		size_t k;

		if (!json_is_string(name) || !*json_string_value(name))
			return fl_error_set(FL_EINVAL, "record field 'locks[%zu].lock': expected a name",
					    i);
		if ((r = get_u64(l, "contentions", &e.contentions, i)) ||
		    (r = get_u64(l, "wait_ns", &e.wait_ns, i)) ||
		    (r = get_u64(l, "max_wait_ns", &e.max_wait_ns, i)))
			return r;
		if (json_object_get(l, "waits") && (r = get_u64(l, "waits", &e.waits, i)))
			return r;
		for (k = 0; k < pt->nlk; k++)
			if (!strcmp(pt->lk[k].name, json_string_value(name)))
				break;
		if (k < pt->nlk) {
			struct fl_lock_ev *d = &pt->lk[k];

			d->contentions += e.contentions;
			d->waits += e.waits;
			d->wait_ns += e.wait_ns;
			if (e.max_wait_ns > d->max_wait_ns)
				d->max_wait_ns = e.max_wait_ns;
			continue;
		}
		if ((r = chains_text(json_object_get(l, "chains"), i, &e.chains)))
			return r;
		e.name = clean_dup(json_string_value(name));
		e.named_by = clean_dup(json_is_string(by) ? json_string_value(by) : "symbol");
		pt->lk[pt->nlk++] = e;
	}
	return 0;
}

static int get_buckets(json_t *arr, struct fl_profile_bucket **out, size_t *n)
{
	struct fl_profile_bucket *b;
	json_t *pair;
	size_t i;

	if (!json_is_array(arr))
		return bad("buckets", "expected an array");
	b = fl_xcalloc(json_array_size(arr) + 1, sizeof(*b));
	json_array_foreach(arr, i, pair)
	{
		json_t *x = json_array_get(pair, 0), *y = json_array_get(pair, 1);

		if (json_array_size(pair) != 2 || !json_is_integer(x) || !json_is_integer(y) ||
		    json_integer_value(x) < 0 || json_integer_value(y) < 0) {
			free(b);
			return fl_error_set(FL_EINVAL,
					    "record field 'buckets[%zu]': expected "
					    "[bucket, count]",
					    i);
		}
		b[i] = (struct fl_profile_bucket){(uint64_t)json_integer_value(x),
						  (uint64_t)json_integer_value(y)};
	}
	*out = b;
	*n = json_array_size(arr);
	return 0;
}

static int from_profile(json_t *o, const fl_symbols *syms, struct fl_evidence_point *pt)
{
	struct fl_profile_desc p = {0};
	struct fl_profile_bucket *b = NULL;
	uint64_t step = 0;
	int r;

	pt->source = FL_EV_PROFILE;
	if ((r = get_point(o, pt)) || (r = get_uint(o, "step", &step)) ||
	    (r = get_uint(o, "nbuckets", &p.nbuckets)) || (r = get_uint(o, "total", &p.total)) ||
	    (r = get_buckets(json_object_get(o, "buckets"), &b, &p.n)))
		return r;
	if (step > 1u << 30)
		return free(b), bad("step", "out of range");
	p.step = (unsigned)step;
	json_t *d = json_object_get(o, "dropped");
	p.dropped =
	    json_is_integer(d) && json_integer_value(d) > 0 ? (uint64_t)json_integer_value(d) : 0;
	p.b = b;
	pt->profile_samples = p.total;
	if (!syms) {
		pt->profile = fl_xstrdup("unmapped: no usable System.map");
	} else if (fl_profile_by_function(syms, &p, &pt->fn, &pt->nfn)) {
		pt->profile = fl_xasprintf("unmapped: %s", fl_error_last());
	} else {
		pt->profile = fl_xstrdup("recorded");
	}
	free(b);
	return 0;
}

int fl_evidence_from_record(const char *json, size_t len, const fl_symbols *syms,
			    struct fl_evidence_point *pt, int *has)
{
	json_error_t err;
	json_t *o = json_loadb(json, len, 0, &err), *type;
	int r = 0;

	memset(pt, 0, sizeof(*pt));
	*has = 0;
	if (!json_is_object(o)) {
		json_decref(o);
		return fl_error_set(FL_EINVAL, "record is not a JSON object: %s", err.text);
	}
	type = json_object_get(o, "type");
	/* Whole-job profiles of older agents name no point: nothing to add. */
	if (json_is_string(type) && !strcmp(json_string_value(type), "result")) {
		r = from_result(o, pt);
		*has = 1;
	} else if (json_is_string(type) && !strcmp(json_string_value(type), "profile") &&
		   json_object_get(o, "test")) {
		r = from_profile(o, syms, pt);
		*has = 1;
	} else if (json_is_string(type) && !strcmp(json_string_value(type), "locks")) {
		r = from_locks(o, pt);
		*has = 1;
	}
	json_decref(o);
	if (r) {
		fl_evidence_point_release(pt);
		*has = 0;
	}
	return r;
}

void fl_evidence_point_release(struct fl_evidence_point *pt)
{
	free(pt->test);
	free(pt->mode);
	free(pt->cgroup);
	for (size_t i = 0; i < pt->nvm; i++)
		free(pt->vm[i].name);
	free(pt->vm);
	free(pt->profile);
	fl_profile_fns_free(pt->fn, pt->nfn);
	free(pt->vmstat_missing);
	free(pt->locks);
	for (size_t i = 0; i < pt->nlk; i++) {
		free(pt->lk[i].name);
		free(pt->lk[i].named_by);
		free(pt->lk[i].chains);
	}
	free(pt->lk);
	memset(pt, 0, sizeof(*pt));
}

void fl_evidence_points_free(struct fl_evidence_point *pts, size_t n)
{
	for (size_t i = 0; pts && i < n; i++)
		fl_evidence_point_release(&pts[i]);
	free(pts);
}

fl_symbols *fl_evidence_ksyms(const char *const *records, const size_t *lens, size_t n)
{
	fl_symbols *s = NULL;

	for (size_t i = n; i-- > 0 && !s;) {
		json_t *o = json_loadb(records[i], lens[i], 0, NULL), *arr, *e;
		json_t *type = json_object_get(o, "type");
		struct fl_symbol *v;
		size_t k;

		arr = json_object_get(o, "symbols");
		if (!json_is_string(type) || strcmp(json_string_value(type), "ksyms") ||
		    !json_is_array(arr) || !json_is_integer(json_object_get(o, "text"))) {
			json_decref(o);
			continue;
		}
		v = fl_xcalloc(json_array_size(arr) + 1, sizeof(*v));
		json_array_foreach(arr, k, e)
		{
			json_t *off = json_array_get(e, 0), *name = json_array_get(e, 1);

			v[k].offset =
			    json_is_integer(off) ? (uint64_t)json_integer_value(off) : UINT64_MAX;
			v[k].name = json_string_value(name);
		}
		if (fl_symbols_from_offsets(
			&s, (uint64_t)json_integer_value(json_object_get(o, "text")), v,
			json_array_size(arr)))
			s = NULL;
		free(v);
		json_decref(o);
	}
	return s;
}

/* A profile the System.map could not name gets a second chance with the
 * kernel's own names. */
static int point_from_record(const char *json, size_t len, fl_symbols *map, fl_symbols *ksyms,
			     struct fl_evidence_point *pt, int *has)
{
	int r = fl_evidence_from_record(json, len, map ? map : ksyms, pt, has);

	if (!r && *has && map && ksyms && pt->source == FL_EV_PROFILE &&
	    !strncmp(pt->profile, "unmapped", 8)) {
		fl_evidence_point_release(pt);
		r = fl_evidence_from_record(json, len, ksyms, pt, has);
	}
	return r;
}

int fl_evidence_from_records(const char *const *records, const size_t *lens, size_t n,
			     const char *system_map, struct fl_evidence_point **pts, size_t *npts,
			     char **why)
{
	fl_symbols *map = NULL, *ksyms = fl_evidence_ksyms(records, lens, n);
	struct fl_evidence_point *v = fl_xcalloc(n + 1, sizeof(*v));
	size_t k = 0;
	int r = 0;

	*pts = NULL;
	*npts = 0;
	*why = NULL;
	if (system_map && fl_symbols_load(&map, system_map))
		*why = fl_xasprintf("%s%s", fl_error_last(),
				    ksyms ? ": profiles named from the kernel's kallsyms"
					  : ": profiles are kept unmapped");
	else if (!system_map && !ksyms)
		*why = fl_xstrdup("no System.map: profiles are kept unmapped");
	for (size_t i = 0; i < n && !r; i++) {
		int has;

		if ((r = point_from_record(records[i], lens[i], map, ksyms, &v[k], &has)))
			fl_error_wrap(r, "record %zu", i + 1);
		else
			k += has;
	}
	fl_symbols_free(map);
	fl_symbols_free(ksyms);
	if (r) {
		fl_evidence_points_free(v, k);
		return r;
	}
	*pts = v;
	*npts = k;
	return 0;
}
