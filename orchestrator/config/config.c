/*
 * config.c - loads a deployment's YAML file through libyaml's document API.
 *
 * The file is first parsed into libyaml's node tree (which keeps the line and
 * column of every node), then walked against static schema tables: one table
 * per mapping, one row per key, saying its type, where it lands in the C
 * struct, its default (written the way a user would write it) and its range.
 * Checks that need the whole file (duplicate names, references) run after.
 * Every problem is collected, so one run of "config check" shows them all.
 */
#include "config/config.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "lib/mail.h"
#include "lib/units.h"

#include "proto/auth.h"
#include "proto/testdef.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

enum ftype {
	F_STR,
	F_UINT,
	F_SIZE,
	F_DURATION,
	F_PERCENT,
	F_PROB, /* a probability written as 0.95 */
	F_ENUM,
	F_STRLIST,
	F_ENUMLIST,
	F_TASKS,
	F_MATRIX, /* list of lists of unsigned, stored row-major */
	F_MAP,
	F_MAPLIST,
};

enum {
	REQUIRED = 1 << 0,
	SECRET = 1 << 1, /* masked when printed */
	NONEMPTY = 1 << 2, /* a list that must have at least one item */
};

struct schema;

struct field {
	const char *key;
	enum ftype type;
	size_t off;
	size_t count_off; /* lists: where the item count goes */
	unsigned flags;
	const char *def; /* default as YAML text; lists: items separated by ',' */
	const char *const *choices;
	unsigned min, max; /* F_UINT and F_TASKS ranges */
	const struct schema *sub;
};

struct schema {
	size_t size;
	const struct field *fields;
};

#define END {NULL, 0, 0, 0, 0, NULL, NULL, 0, 0, NULL}
#define OFF(type, member) offsetof(type, member)

/* The "backend" key's choices: one entry each in backend_rules below too. */
static const char *const backends[] = {"libvirt", "baremetal", "command", NULL};
static const char *const accels[] = {"auto", "kvm", "tcg", NULL};
static const char *const modes[] = {"processes", "threads", NULL};
static const char *const placements[] = {"spread", "pack", "none", NULL};
static const char *const directions[] = {"higher", "lower", NULL};
static const char *const severities[] = {"error", "warning", NULL};
static const char *const boots[] = {"kexec", "current", NULL};
static const char *const cgroups[] = {"root", "child", NULL};
static const char *const cgroup_versions[] = {"v2", "v1", NULL};
static const char *const routings[] = {"hold", "maintainers", NULL};
static const char *const yes_no[] = {"false", "true", NULL};

#define T struct fl_tree_conf
static const struct field tree_fields[] = {
	{"name", F_STR, OFF(T, name), 0, REQUIRED, NULL, NULL, 0, 0, NULL},
	{"url", F_STR, OFF(T, url), 0, REQUIRED, NULL, NULL, 0, 0, NULL},
	{"branch", F_STR, OFF(T, branch), 0, 0, NULL, NULL, 0, 0, NULL},
	{"branch_base", F_STR, OFF(T, branch_base), 0, 0, NULL, NULL, 0, 0, NULL},
	{"branch_interval", F_DURATION, OFF(T, branch_interval_ms), 0, 0, "1h", NULL, 0, 0, NULL},
	{"tags", F_STRLIST, OFF(T, tags), OFF(T, ntags), 0, "v*", NULL, 0, 0, NULL},
	{"poll", F_DURATION, OFF(T, poll_ms), 0, 0, "10m", NULL, 0, 0, NULL},
	{"baseline", F_STR, OFF(T, baseline), 0, 0, "previous-tag", NULL, 0, 0, NULL},
	{"baseline_tree", F_STR, OFF(T, baseline_tree), 0, 0, NULL, NULL, 0, 0, NULL},
	{"baseline_tags", F_STRLIST, OFF(T, baseline_tags), OFF(T, nbaseline_tags), 0, NULL, NULL,
	 0, 0, NULL},
	{"backfill", F_UINT, OFF(T, backfill), 0, 0, "1", NULL, 0, 100000, NULL},
	{"web_url", F_STR, OFF(T, web_url), 0, 0, NULL, NULL, 0, 0, NULL},
	{"public_url", F_STR, OFF(T, public_url), 0, 0, NULL, NULL, 0, 0, NULL},
	{"routing", F_ENUM, OFF(T, routing), 0, 0, NULL, routings, 0, 0, NULL},
	{"cc", F_STRLIST, OFF(T, cc), OFF(T, ncc), 0, NULL, NULL, 0, 0, NULL},
	END,
};
#undef T
static const struct schema tree_schema = {sizeof(struct fl_tree_conf), tree_fields};

#define T struct fl_kernel_conf
static const struct field kernel_fields[] = {
	{"name", F_STR, OFF(T, name), 0, REQUIRED, NULL, NULL, 0, 0, NULL},
	{"base", F_STR, OFF(T, base), 0, 0, "tinyconfig", NULL, 0, 0, NULL},
	{"fragments", F_STRLIST, OFF(T, fragments), OFF(T, nfragments), 0, NULL, NULL, 0, 0, NULL},
	{"missing_option", F_ENUM, OFF(T, missing_option), 0, 0, "error", severities, 0, 0, NULL},
	END,
};
#undef T
static const struct schema kernel_schema = {sizeof(struct fl_kernel_conf), kernel_fields};

#define T struct fl_machine_conf
static const struct field machine_fields[] = {
	{"name", F_STR, OFF(T, name), 0, REQUIRED, NULL, NULL, 0, 0, NULL},
	{"backend", F_ENUM, OFF(T, backend), 0, 0, "libvirt", backends, 0, 0, NULL},
	{"uri", F_STR, OFF(T, uri), 0, 0, "qemu:///system", NULL, 0, 0, NULL},
	{"pool", F_STR, OFF(T, pool), 0, 0, NULL, NULL, 0, 0, NULL},
	{"pool_dir", F_STR, OFF(T, pool_dir), 0, 0, NULL, NULL, 0, 0, NULL},
	{"accel", F_ENUM, OFF(T, accel), 0, 0, "auto", accels, 0, 0, NULL},
	{"sockets", F_UINT, OFF(T, sockets), 0, 0, "1", NULL, 1, 64, NULL},
	{"cores", F_UINT, OFF(T, cores), 0, 0, "1", NULL, 1, 256, NULL},
	{"threads", F_UINT, OFF(T, threads), 0, 0, "1", NULL, 1, 8, NULL},
	{"memory_per_node", F_SIZE, OFF(T, memory_per_node), 0, 0, "256M", NULL, 0, 0, NULL},
	{"distances", F_MATRIX, OFF(T, distances), OFF(T, ndistances), 0, NULL, NULL, 10, 255,
	 NULL},
	{"max_parallel", F_UINT, OFF(T, max_parallel), 0, 0, "1", NULL, 1, 1024, NULL},
	{"boot_timeout", F_DURATION, OFF(T, boot_timeout_ms), 0, 0, "2m", NULL, 0, 0, NULL},
	{"cmdline", F_STR, OFF(T, cmdline), 0, 0, NULL, NULL, 0, 0, NULL},
	{"command", F_STR, OFF(T, command), 0, 0, NULL, NULL, 0, 0, NULL},
	{"token_file", F_STR, OFF(T, token_file), 0, 0, NULL, NULL, 0, 0, NULL},
	{"boot", F_ENUM, OFF(T, boot), 0, 0, "kexec", boots, 0, 0, NULL},
	{"max_misses", F_UINT, OFF(T, max_misses), 0, 0, "3", NULL, 1, 1000, NULL},
	{"timeout", F_DURATION, OFF(T, timeout_ms), 0, 0, "1h", NULL, 0, 0, NULL},
	{"max_infra_errors", F_UINT, OFF(T, max_infra_errors), 0, 0, "3", NULL, 1, 1000, NULL},
	{"worker_host", F_STR, OFF(T, worker_host), 0, 0, NULL, NULL, 0, 0, NULL},
	END,
};
#undef T
static const struct schema machine_schema = {sizeof(struct fl_machine_conf), machine_fields};

#define T struct fl_benchmark_conf
static const struct field benchmark_fields[] = {
	{"name", F_STR, OFF(T, name), 0, REQUIRED, NULL, NULL, 0, 0, NULL},
	{"test", F_ENUM, OFF(T, test), 0, 0, NULL, fl_testdef_names, 0, 0, NULL}, /* the table's */
	{"modes", F_ENUMLIST, OFF(T, modes), OFF(T, nmodes), NONEMPTY, "processes,threads", modes,
	 0, 0, NULL},
	{"tasks", F_TASKS, OFF(T, tasks), OFF(T, ntasks), NONEMPTY, "1", NULL, 1, 4096, NULL},
	{"warmup", F_DURATION, OFF(T, warmup_ms), 0, 0, "2s", NULL, 0, 0, NULL},
	{"duration", F_DURATION, OFF(T, duration_ms), 0, 0, "5s", NULL, 0, 0, NULL},
	{"repeat", F_UINT, OFF(T, repeat), 0, 0, "3", NULL, 1, 1000, NULL},
	{"max_repeat", F_UINT, OFF(T, max_repeat), 0, 0, "0", NULL, 0, 10000, NULL},
	{"memory_per_task", F_SIZE, OFF(T, memory_per_task), 0, 0, "128M", NULL, 0, 0, NULL},
	{"placement", F_ENUM, OFF(T, placement), 0, 0, "spread", placements, 0, 0, NULL},
	{"direction", F_ENUM, OFF(T, direction), 0, 0, "higher", directions, 0, 0, NULL},
	{"kernel", F_STR, OFF(T, kernel), 0, 0, NULL, NULL, 0, 0, NULL},
	{"machines", F_STRLIST, OFF(T, machines), OFF(T, nmachines), 0, NULL, NULL, 0, 0, NULL},
	{"cgroup", F_ENUMLIST, OFF(T, cgroups), OFF(T, ncgroups), NONEMPTY, "root", cgroups, 0, 0,
	 NULL},
	{"cgroup_version", F_ENUM, OFF(T, cgroup_version), 0, 0, "v2", cgroup_versions, 0, 0,
	 NULL},
	{"memory_max", F_SIZE, OFF(T, memory_max), 0, 0, "0", NULL, 0, 0, NULL},
	{"memory_high", F_SIZE, OFF(T, memory_high), 0, 0, "0", NULL, 0, 0, NULL},
	END,
};
#undef T
static const struct schema benchmark_schema = {sizeof(struct fl_benchmark_conf),
					       benchmark_fields};

#define T struct fl_config
static const struct field store_fields[] = {
	{"path", F_STR, OFF(T, store.path) - OFF(T, store), 0, 0, NULL, NULL, 0, 0, NULL},
	{"url", F_STR, OFF(T, store.url) - OFF(T, store), 0, 0, NULL, NULL, 0, 0, NULL},
	END,
};
static const struct schema store_schema = {sizeof(((T *)0)->store), store_fields};

static const struct field build_fields[] = {
	{"slots", F_UINT, OFF(T, build.slots) - OFF(T, build), 0, 0, "1", NULL, 1, 64, NULL},
	{"object_trees", F_UINT, OFF(T, build.object_trees) - OFF(T, build), 0, 0, "3", NULL, 1,
	 16, NULL},
	{"jobs", F_UINT, OFF(T, build.jobs) - OFF(T, build), 0, 0, "0", NULL, 0, 1024, NULL},
	{"timeout", F_DURATION, OFF(T, build.timeout_ms) - OFF(T, build), 0, 0, "1h", NULL, 0, 0,
	 NULL},
	{"cache_size", F_SIZE, OFF(T, build.cache_size) - OFF(T, build), 0, 0, "10G", NULL, 0, 0,
	 NULL},
	{"artifacts", F_STR, OFF(T, build.artifacts) - OFF(T, build), 0, 0, NULL, NULL, 0, 0, NULL},
	END,
};
static const struct schema build_schema = {sizeof(((T *)0)->build), build_fields};

static const struct field regression_fields[] = {
	{"min_change", F_PERCENT, OFF(T, regression.min_change) - OFF(T, regression), 0, 0, "2%",
	 NULL, 0, 0, NULL},
	{"confidence", F_PROB, OFF(T, regression.confidence) - OFF(T, regression), 0, 0, "0.95",
	 NULL, 0, 0, NULL},
	{"max_runs", F_UINT, OFF(T, regression.max_runs) - OFF(T, regression), 0, 0, "200", NULL, 1,
	 100000, NULL},
	END,
};
static const struct schema regression_schema = {sizeof(((T *)0)->regression), regression_fields};

static const struct field report_fields[] = {
	{"smtp", F_STR, OFF(T, report.smtp) - OFF(T, report), 0, 0, NULL, NULL, 0, 0, NULL},
	{"from", F_STR, OFF(T, report.from) - OFF(T, report), 0, 0, "faultline@localhost", NULL, 0,
	 0, NULL},
	{"to", F_STRLIST, OFF(T, report.to) - OFF(T, report), OFF(T, report.nto) - OFF(T, report),
	 0, NULL, NULL, 0, 0, NULL},
	{"username", F_STR, OFF(T, report.username) - OFF(T, report), 0, 0, NULL, NULL, 0, 0, NULL},
	{"password", F_STR, OFF(T, report.password) - OFF(T, report), 0, SECRET, NULL, NULL, 0, 0,
	 NULL},
	{"url", F_STR, OFF(T, report.url) - OFF(T, report), 0, 0, "http://127.0.0.1:8080", NULL, 0,
	 0, NULL},
	{"retry", F_DURATION, OFF(T, report.retry_ms) - OFF(T, report), 0, 0, "1m", NULL, 0, 0,
	 NULL},
	{"routing", F_ENUM, OFF(T, report.routing) - OFF(T, report), 0, 0, "hold", routings, 0, 0,
	 NULL},
	{"cc", F_STRLIST, OFF(T, report.cc) - OFF(T, report), OFF(T, report.ncc) - OFF(T, report),
	 0, NULL, NULL, 0, 0, NULL},
	{"improvements", F_ENUM, OFF(T, report.improvements) - OFF(T, report), 0, 0, "false",
	 yes_no, 0, 0, NULL},
	{"allow", F_STRLIST, OFF(T, report.allow) - OFF(T, report),
	 OFF(T, report.nallow) - OFF(T, report), 0, NULL, NULL, 0, 0, NULL},
	END,
};
static const struct schema report_schema = {sizeof(((T *)0)->report), report_fields};

#define WEB(member) OFF(T, web.member) - OFF(T, web)
static const struct field web_fields[] = {
	{"listen", F_STR, WEB(listen), 0, 0, "127.0.0.1:8080", NULL, 0, 0, NULL},
	{"root", F_STR, WEB(root), 0, 0, "web", NULL, 0, 0, NULL},
	{"max_connections", F_UINT, WEB(limits.connections), 0, 0, "256", NULL, 1, 100000, NULL},
	{"max_per_client", F_UINT, WEB(limits.per_client), 0, 0, "32", NULL, 1, 100000, NULL},
	{"header_timeout", F_DURATION, WEB(limits.header_timeout_ms), 0, 0, "10s", NULL, 0, 0,
	 NULL},
	END,
};
#undef WEB
static const struct schema web_schema = {sizeof(((T *)0)->web), web_fields};

#define API(member) OFF(T, agent_api.member) - OFF(T, agent_api)
static const struct field agent_api_fields[] = {
	{"listen", F_STR, API(listen), 0, 0, NULL, NULL, 0, 0, NULL},
	{"cert", F_STR, API(cert), 0, 0, NULL, NULL, 0, 0, NULL},
	{"key", F_STR, API(key), 0, 0, NULL, NULL, 0, 0, NULL},
	{"window", F_DURATION, API(window_ms), 0, 0, "5m", NULL, 0, 0, NULL},
	{"max_connections", F_UINT, API(limits.connections), 0, 0, "64", NULL, 1, 100000, NULL},
	{"max_per_client", F_UINT, API(limits.per_client), 0, 0, "8", NULL, 1, 100000, NULL},
	{"header_timeout", F_DURATION, API(limits.header_timeout_ms), 0, 0, "10s", NULL, 0, 0,
	 NULL},
	{"body_timeout", F_DURATION, API(limits.body_timeout_ms), 0, 0, "1m", NULL, 0, 0, NULL},
	{"max_body", F_SIZE, API(limits.body_max), 0, 0, "8M", NULL, 0, 0, NULL},
	END,
};
#undef API
static const struct schema agent_api_schema = {sizeof(((T *)0)->agent_api), agent_api_fields};

static const struct field worker_fields[] = {
	{"host", F_STR, OFF(T, worker.host) - OFF(T, worker), 0, 0, NULL, NULL, 0, 0, NULL},
	{"lease", F_DURATION, OFF(T, worker.lease_ms) - OFF(T, worker), 0, 0, "30s", NULL, 0, 0,
	 NULL},
	END,
};
static const struct schema worker_schema = {sizeof(((T *)0)->worker), worker_fields};

static const struct field top_fields[] = {
	{"var", F_STR, OFF(T, var), 0, 0, "var", NULL, 0, 0, NULL},
	{"store", F_MAP, OFF(T, store), 0, 0, NULL, NULL, 0, 0, &store_schema},
	{"trees", F_MAPLIST, OFF(T, trees), OFF(T, ntrees), 0, NULL, NULL, 0, 0, &tree_schema},
	{"kernels", F_MAPLIST, OFF(T, kernels), OFF(T, nkernels), 0, NULL, NULL, 0, 0,
	 &kernel_schema},
	{"machines", F_MAPLIST, OFF(T, machines), OFF(T, nmachines), 0, NULL, NULL, 0, 0,
	 &machine_schema},
	{"benchmarks", F_MAPLIST, OFF(T, benchmarks), OFF(T, nbenchmarks), 0, NULL, NULL, 0, 0,
	 &benchmark_schema},
	{"build", F_MAP, OFF(T, build), 0, 0, NULL, NULL, 0, 0, &build_schema},
	{"regression", F_MAP, OFF(T, regression), 0, 0, NULL, NULL, 0, 0, &regression_schema},
	{"report", F_MAP, OFF(T, report), 0, 0, NULL, NULL, 0, 0, &report_schema},
	{"web", F_MAP, OFF(T, web), 0, 0, NULL, NULL, 0, 0, &web_schema},
	{"agent_api", F_MAP, OFF(T, agent_api), 0, 0, NULL, NULL, 0, 0, &agent_api_schema},
	{"worker", F_MAP, OFF(T, worker), 0, 0, NULL, NULL, 0, 0, &worker_schema},
	END,
};
#undef T
static const struct schema top_schema = {sizeof(struct fl_config), top_fields};

/* Where each loaded scalar came from, looked up by the address it landed at. */
struct where {
	const void *addr;
	char *text; /* "file:line:col: path" */
};

struct fl_config_priv {
	struct where *where;
	size_t nwhere, awhere;
};

struct loader {
	struct fl_config *cfg;
	yaml_document_t doc;
	fl_buf errors;
	unsigned nerrors;
};

static void *at(void *obj, size_t off)
{
	return (char *)obj + off;
}

static void report(struct loader *L, const yaml_node_t *node, const char *path, const char *fmt,
		   ...) __attribute__((format(printf, 4, 5)));

static void report(struct loader *L, const yaml_node_t *node, const char *path, const char *fmt,
		   ...)
{
	va_list ap;

	fl_buf_addf(&L->errors, "%s%s:%zu:%zu: ", L->nerrors ? "\n" : "", L->cfg->path,
		    node ? node->start_mark.line + 1 : 1, node ? node->start_mark.column + 1 : 1);
	if (path && *path)
		fl_buf_addf(&L->errors, "%s: ", path);
	va_start(ap, fmt);
	{
		char msg[1024];

		vsnprintf(msg, sizeof(msg), fmt, ap);
		fl_buf_adds(&L->errors, msg);
	}
	va_end(ap);
	L->nerrors++;
}

static void remember(struct loader *L, const void *addr, const yaml_node_t *node, const char *path)
{
	struct fl_config_priv *p = L->cfg->priv;

	if (!node)
		return;
	if (p->nwhere == p->awhere) {
		p->awhere = p->awhere ? 2 * p->awhere : 64;
		p->where = fl_xrealloc(p->where, p->awhere * sizeof(*p->where));
	}
	p->where[p->nwhere].addr = addr;
	p->where[p->nwhere].text = fl_xasprintf("%s:%zu:%zu: %s", L->cfg->path,
						node->start_mark.line + 1,
						node->start_mark.column + 1, path);
	p->nwhere++;
}

const char *fl_config_where(const struct fl_config *cfg, const void *field)
{
	/* Newest first: a default never shadows what the file said. */
	for (size_t i = cfg->priv->nwhere; i-- > 0;)
		if (cfg->priv->where[i].addr == field)
			return cfg->priv->where[i].text;
	return NULL;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), prev[64], cur[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof(size_t));
	}
	return prev[lb];
}

/* The closest known word, if it is close enough to be a typo of it. */
static const char *suggest(const char *word, const char *const *words, size_t stride)
{
	const char *best = NULL;
	size_t best_d = 3;

	for (const char *const *w = words; *w; w = (const char *const *)((const char *)w + stride)) {
		size_t d = edit_distance(word, *w);

		if (d < best_d) {
			best_d = d;
			best = *w;
		}
	}
	return best;
}

static void report_choice(struct loader *L, const yaml_node_t *node, const char *path,
			  const char *value, const char *const *choices)
{
	fl_buf list = FL_BUF_INIT;
	const char *s = suggest(value, choices, sizeof(*choices));

	for (const char *const *c = choices; *c; c++)
		fl_buf_addf(&list, "%s%s", c == choices ? "" : ", ", *c);
	if (s)
		report(L, node, path, "unknown value '%s' (did you mean '%s'?)", value, s);
	else
		report(L, node, path, "unknown value '%s' (expected one of: %s)", value,
		       fl_buf_str(&list));
	fl_buf_free(&list);
}

/* ${VAR} from the environment; an unset variable is an error. ${VAR:-word}
 * is word when VAR is unset or empty, as in the shell: one file serves a
 * default deployment and a test's scratch one. */
static char *expand_env(struct loader *L, const yaml_node_t *node, const char *path, const char *s)
{
	fl_buf out = FL_BUF_INIT;

	while (*s) {
		const char *start = strstr(s, "${"), *end;

		if (!start) {
			fl_buf_adds(&out, s);
			break;
		}
		fl_buf_add(&out, s, (size_t)(start - s));
		end = strchr(start + 2, '}');
		if (!end) {
			report(L, node, path, "unterminated '${' in '%s'", s);
			break;
		}
		{
			char *name = fl_xstrndup(start + 2, (size_t)(end - start - 2));
			char *dflt = strstr(name, ":-");
			const char *v;

			if (dflt) {
				*dflt = '\0';
				dflt += 2;
			}
			v = getenv(name);
			if (dflt && (!v || !*v))
				v = dflt;
			if (!*name)
				report(L, node, path, "empty variable name '${}'");
			else if (!v)
				report(L, node, path, "environment variable '%s' is not set", name);
			else
				fl_buf_adds(&out, v);
			free(name);
		}
		s = end + 1;
	}
	return fl_buf_detach(&out);
}

/* 0, or -1 for anything but a decimal from min to max: the caller says where. */
static int parse_uint(const char *s, unsigned min, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int parse_task(const char *s, const struct field *f, struct fl_task_count *t)
{
	size_t n = strlen(s);

	if (n > 1 && s[n - 1] == '%') {
		char *num = fl_xstrndup(s, n - 1);
		int r = parse_uint(num, 1, 100, &t->value);

		free(num);
		t->percent = 1;
		return r;
	}
	t->percent = 0;
	return parse_uint(s, f->min, f->max, &t->value);
}

/* Converts one scalar into dst; item is the node (NULL for a default). */
static void convert(struct loader *L, const struct field *f, enum ftype type, const char *text,
		    void *dst, const yaml_node_t *node, const char *path)
{
	switch (type) {
	case F_STR: {
		char *v = expand_env(L, node, path, text);

		if (!*v)
			report(L, node, path, "expected a non-empty string");
		*(char **)dst = v;
		break;
	}
	case F_ENUM:
		for (const char *const *c = f->choices; *c; c++) {
			if (!strcmp(*c, text)) {
				*(char **)dst = fl_xstrdup(text);
				goto done;
			}
		}
		report_choice(L, node, path, text, f->choices);
		break;
	case F_UINT:
		if (parse_uint(text, f->min, f->max, (unsigned *)dst))
			report(L, node, path, "expected an integer from %u to %u, got '%s'", f->min,
			       f->max, text);
		break;
	case F_SIZE:
		if (fl_parse_size(text, (uint64_t *)dst))
			report(L, node, path, "%s", fl_error_last());
		break;
	case F_DURATION:
		if (fl_parse_duration(text, (int64_t *)dst))
			report(L, node, path, "%s", fl_error_last());
		break;
	case F_PERCENT:
		if (fl_parse_percent(text, (double *)dst) || *(double *)dst < 0 ||
		    *(double *)dst > 10.0)
			report(L, node, path, "expected a percentage from 0%% to 1000%%, got '%s'",
			       text);
		break;
	case F_PROB: {
		char *end;
		double v;

		errno = 0;
		v = strtod(text, &end);
		if (errno || end == text || *end || !(v > 0.0 && v < 1.0))
			report(L, node, path,
			       "expected a probability between 0 and 1 (like 0.95), got '%s'",
			       text);
		*(double *)dst = v;
		break;
	}
	case F_TASKS:
		if (parse_task(text, f, dst))
			report(L, node, path,
			       "expected a task count (1 to %u) or a percentage of CPUs (1%% to "
			       "100%%), got '%s'",
			       f->max, text);
		break;
	default:
		break;
	}
done:
	remember(L, dst, node, path);
}

static enum ftype item_type(enum ftype list)
{
	switch (list) {
	case F_STRLIST:
		return F_STR;
	case F_ENUMLIST:
		return F_ENUM;
	case F_TASKS:
		return F_TASKS;
	default:
		return F_UINT;
	}
}

static size_t item_size(enum ftype list)
{
	switch (list) {
	case F_TASKS:
		return sizeof(struct fl_task_count);
	case F_MATRIX:
		return sizeof(unsigned);
	default:
		return sizeof(char *);
	}
}

static void load_map(struct loader *L, yaml_node_t *node, const struct schema *s, void *obj,
		     const char *path);

static const char *scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

static int expect_scalar(struct loader *L, const yaml_node_t *n, const char *path, const char *what)
{
	if (n->type == YAML_SCALAR_NODE)
		return 0;
	report(L, n, path, "expected %s, got a %s", what,
	       n->type == YAML_MAPPING_NODE ? "mapping" : "list");
	return FL_EINVAL;
}

static char *index_path(const char *path, size_t index)
{
	return fl_xasprintf("%s[%zu]", path, index);
}

static char *key_path(const char *path, const char *key)
{
	return *path ? fl_xasprintf("%s.%s", path, key) : fl_xstrdup(key);
}

static void load_matrix(struct loader *L, const struct field *f, yaml_node_t *node, void *obj,
			const char *path)
{
	yaml_node_item_t *rows = node->data.sequence.items.start;
	size_t nrows = (size_t)(node->data.sequence.items.top - rows), k = 0;
	unsigned *m = fl_xcalloc(nrows * nrows, sizeof(unsigned));

	for (size_t r = 0; r < nrows; r++) {
		yaml_node_t *row = yaml_document_get_node(&L->doc, rows[r]);
		char *rpath = index_path(path, r);

		if (row->type != YAML_SEQUENCE_NODE ||
		    (size_t)(row->data.sequence.items.top - row->data.sequence.items.start) !=
			    nrows) {
			report(L, row, rpath, "expected a list of %zu distances (a square matrix)",
			       nrows);
			free(rpath);
			continue;
		}
		for (size_t c = 0; c < nrows; c++) {
			yaml_node_t *v = yaml_document_get_node(&L->doc,
								row->data.sequence.items.start[c]);
			char *cpath = index_path(rpath, c);

			if (!expect_scalar(L, v, cpath, "a distance"))
				convert(L, f, F_UINT, scalar(v), &m[r * nrows + c], v, cpath);
			free(cpath);
		}
		free(rpath);
	}
	k = nrows * nrows;
	*(unsigned **)at(obj, f->off) = m;
	*(size_t *)at(obj, f->count_off) = k;
}

static void load_list(struct loader *L, const struct field *f, yaml_node_t *node, void *obj,
		      const char *path)
{
	yaml_node_item_t *items;
	size_t n, isize;
	char *arr;

	if (node->type != YAML_SEQUENCE_NODE) {
		/* A single scalar stands for a list of one: "tags: v*". */
		if (node->type == YAML_SCALAR_NODE && f->type != F_MAPLIST &&
		    f->type != F_MATRIX) {
			isize = item_size(f->type);
			arr = fl_xcalloc(1, isize);
			convert(L, f, item_type(f->type), scalar(node), arr, node, path);
			*(void **)at(obj, f->off) = arr;
			*(size_t *)at(obj, f->count_off) = 1;
			return;
		}
		report(L, node, path, "expected a list");
		return;
	}
	if (f->type == F_MATRIX) {
		load_matrix(L, f, node, obj, path);
		remember(L, at(obj, f->off), node, path);
		return;
	}
	remember(L, at(obj, f->off), node, path);
	items = node->data.sequence.items.start;
	n = (size_t)(node->data.sequence.items.top - items);
	isize = f->type == F_MAPLIST ? f->sub->size : item_size(f->type);
	arr = fl_xcalloc(n, isize);
	*(void **)at(obj, f->off) = arr;
	*(size_t *)at(obj, f->count_off) = n;
	if (!n && (f->flags & NONEMPTY))
		report(L, node, path, "expected at least one item");
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *item = yaml_document_get_node(&L->doc, items[i]);
		char *ipath = index_path(path, i);

		if (f->type == F_MAPLIST)
			load_map(L, item, f->sub, arr + i * isize, ipath);
		else if (!expect_scalar(L, item, ipath, "a single value"))
			convert(L, f, item_type(f->type), scalar(item), arr + i * isize, item,
				ipath);
		free(ipath);
	}
}

static void apply_default(struct loader *L, const struct field *f, void *obj, const char *path)
{
	if (f->type == F_MAP) {
		yaml_node_t empty = {.type = YAML_MAPPING_NODE};

		load_map(L, &empty, f->sub, at(obj, f->off), path);
		return;
	}
	if (!f->def)
		return;
	if (f->type == F_STRLIST || f->type == F_ENUMLIST || f->type == F_TASKS) {
		size_t n = 1, isize = item_size(f->type);
		char *copy = fl_xstrdup(f->def), *save = NULL, *arr;

		for (const char *c = f->def; *c; c++)
			n += *c == ',';
		arr = fl_xcalloc(n, isize);
		n = 0;
		for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			convert(L, f, item_type(f->type), tok, arr + isize * n++, NULL, path);
		free(copy);
		*(void **)at(obj, f->off) = arr;
		*(size_t *)at(obj, f->count_off) = n;
		return;
	}
	convert(L, f, f->type, f->def, at(obj, f->off), NULL, path);
}

static void load_value(struct loader *L, const struct field *f, yaml_node_t *v, void *obj,
		       const char *path)
{
	switch (f->type) {
	case F_MAP:
		load_map(L, v, f->sub, at(obj, f->off), path);
		break;
	case F_MAPLIST:
	case F_STRLIST:
	case F_ENUMLIST:
	case F_TASKS:
	case F_MATRIX:
		load_list(L, f, v, obj, path);
		break;
	default:
		if (!expect_scalar(L, v, path, "a single value"))
			convert(L, f, f->type, scalar(v), at(obj, f->off), v, path);
		break;
	}
}

static void load_map(struct loader *L, yaml_node_t *node, const struct schema *s, void *obj,
		     const char *path)
{
	unsigned char seen[32] = {0};
	size_t nfields = 0;

	while (s->fields[nfields].key)
		nfields++;
	if (node->type != YAML_MAPPING_NODE) {
		report(L, node, path, "expected a mapping of keys to values");
		return;
	}
	for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(&L->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&L->doc, p->value);
		const struct field *f = NULL;
		char *cpath;

		if (k->type != YAML_SCALAR_NODE) {
			report(L, k, path, "keys must be plain words");
			continue;
		}
		for (size_t i = 0; i < nfields; i++)
			if (!strcmp(s->fields[i].key, scalar(k)))
				f = &s->fields[i];
		if (!f) {
			const char *hint = suggest(scalar(k), &s->fields[0].key, sizeof(*s->fields));

			if (hint)
				report(L, k, path, "unknown key '%s' (did you mean '%s'?)",
				       scalar(k), hint);
			else
				report(L, k, path, "unknown key '%s'", scalar(k));
			continue;
		}
		if (seen[f - s->fields]) {
			report(L, k, path, "duplicate key '%s'", scalar(k));
			continue;
		}
		seen[f - s->fields] = 1;
		cpath = key_path(path, f->key);
		load_value(L, f, v, obj, cpath);
		free(cpath);
	}
	for (size_t i = 0; i < nfields; i++) {
		const struct field *f = &s->fields[i];
		char *cpath;

		if (seen[i])
			continue;
		if (f->flags & REQUIRED) {
			report(L, node, path, "missing key '%s'", f->key);
			continue;
		}
		cpath = key_path(path, f->key);
		apply_default(L, f, obj, cpath);
		free(cpath);
	}
}

/* Checks that need the whole file. */

static void report_at(struct loader *L, const void *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void report_at(struct loader *L, const void *field, const char *fmt, ...)
{
	const char *w = fl_config_where(L->cfg, field);
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fl_buf_addf(&L->errors, "%s%s: %s", L->nerrors ? "\n" : "", w ? w : L->cfg->path, msg);
	L->nerrors++;
}

#define CHECK_UNIQUE(L, arr, n, what)                                                              \
	do {                                                                                       \
		for (size_t i_ = 0; i_ < (n); i_++)                                                \
			for (size_t j_ = 0; j_ < i_; j_++)                                         \
				if ((arr)[i_].name && (arr)[j_].name &&                            \
				    !strcmp((arr)[i_].name, (arr)[j_].name)) {                     \
					report_at(L, &(arr)[i_].name, "duplicate %s name '%s'",    \
						  what, (arr)[i_].name);                           \
					break;                                                     \
				}                                                                  \
	} while (0)

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static const char *const config_targets[] = {"tinyconfig", "defconfig", "allnoconfig",
					     "allmodconfig", "allyesconfig", NULL};

/* A relative kconfig file that is not here: the installed copy
 * (share/faultline/kernels/...), so a configuration works from any directory. */
static void find_data(char **path)
{
	char *p;

	if (!*path || is_file(*path) || !(p = fl_data_path(*path)))
		return;
	if (is_file(p)) {
		free(*path);
		*path = p;
	} else {
		free(p);
	}
}

static void check_kernel(struct loader *L, struct fl_kernel_conf *k)
{
	int target = 0;

	for (const char *const *t = config_targets; *t; t++)
		target |= !strcmp(*t, k->base);
	if (!target)
		find_data(&k->base);
	for (size_t i = 0; i < k->nfragments; i++)
		find_data(&k->fragments[i]);
	if (!target && !is_file(k->base))
		report_at(L, &k->base, "'%s' is neither a kconfig target (tinyconfig, defconfig, "
				       "...) nor a config file",
			  k->base);
	for (size_t i = 0; i < k->nfragments; i++)
		if (k->fragments[i] && !is_file(k->fragments[i]))
			report_at(L, &k->fragments[i], "no such fragment file '%s'", k->fragments[i]);
}

/* A box signs its requests with its name and its token (docs/baremetal.md). */
static void check_box(struct loader *L, struct fl_machine_conf *m)
{
	if (!m->token_file)
		report_at(L, &m->backend, "the baremetal backend needs 'token_file'");
	else if (!is_file(m->token_file))
		report_at(L, &m->token_file, "no such token file '%s'", m->token_file);
	if (m->name && !fl_auth_name_ok(m->name))
		report_at(L, &m->name,
			  "a box's name is 1-64 characters of A-Z, a-z, 0-9, '.', '_' and '-'");
	if (m->max_parallel > 1)
		report_at(L, &m->max_parallel, "a box boots one kernel at a time: max_parallel 1");
	if (!L->cfg->agent_api.listen)
		report_at(L, &m->backend,
			  "the baremetal backend needs 'agent_api.listen': boxes ask it for work");
}

/*
 * A guest boots from volumes of a storage pool on its host (machine/volume.c):
 * the configured pool, or a transient dir pool faultline creates with its
 * target at pool_dir, a path on that host.
 */
static void check_libvirt(struct loader *L, struct fl_machine_conf *m)
{
	if (m->pool && m->pool_dir)
		report_at(L, &m->pool_dir,
			  "'pool_dir' is the directory of the pool faultline creates; with "
			  "'pool' the pool '%s' is the host's own",
			  m->pool);
	if (m->pool_dir && m->pool_dir[0] != '/')
		report_at(L, &m->pool_dir, "'%s' is not an absolute path on the host", m->pool_dir);
}

static void check_command(struct loader *L, struct fl_machine_conf *m)
{
	if (!m->command)
		report_at(L, &m->backend, "the command backend needs 'command'");
}

/* The machine keys every backend reads; the others are some backends' own. */
static const char *const machine_common_keys[] = {
    "name", "backend", "max_parallel", "max_infra_errors", "worker_host", NULL};
static const char *const libvirt_keys[] = {
    "uri",	 "pool",	 "pool_dir", "accel",
    "sockets",	 "cores",	 "threads",  "memory_per_node",
    "distances", "boot_timeout", "cmdline",  NULL};
static const char *const box_keys[] = {"token_file", "boot",	"max_misses", "boot_timeout",
				       "cmdline",    "timeout", NULL};
static const char *const command_keys[] = {"command", "timeout", NULL};

/*
 * Each backend's configuration: whether it boots kernels, its own keys
 * (beyond machine_common_keys: another backend's key written for it is
 * refused, and not printed), and the check of them. In the order of
 * backends[] (the key's choices).
 */
static const struct backend_rule {
	struct fl_backend_conf conf;
	const char *const *keys;
	void (*check)(struct loader *L, struct fl_machine_conf *m);
} backend_rules[] = {
    {{"libvirt", 1}, libvirt_keys, check_libvirt},
    {{"baremetal", 1}, box_keys, check_box},
    {{"command", 0}, command_keys, check_command},
};
_Static_assert(sizeof(backend_rules) / sizeof(backend_rules[0]) ==
		   sizeof(backends) / sizeof(backends[0]) - 1,
	       "one backend rule per backend name");

static const struct backend_rule *backend_rule(const char *name)
{
	for (size_t i = 0; name && i < sizeof(backend_rules) / sizeof(backend_rules[0]); i++)
		if (!strcmp(backend_rules[i].conf.name, name))
			return &backend_rules[i];
	return NULL;
}

const struct fl_backend_conf *fl_config_backend(const char *name)
{
	const struct backend_rule *r = backend_rule(name);

	return r ? &r->conf : NULL;
}

const char *const *fl_config_backend_names(void)
{
	return backends;
}

int fl_config_machine_kernel(const struct fl_machine_conf *m)
{
	const struct fl_backend_conf *b = fl_config_backend(m->backend);

	return b && b->kernel;
}

unsigned fl_config_machine_cpus(const struct fl_machine_conf *m)
{
	return m->sockets * m->cores * m->threads;
}

uint64_t fl_config_machine_memory(const struct fl_machine_conf *m)
{
	return m->memory_per_node * m->sockets;
}

static int listed(const char *const *words, const char *word)
{
	for (; *words; words++)
		if (!strcmp(*words, word))
			return 1;
	return 0;
}

/* Whether the machine key means something to the machine's backend. */
static int machine_key_means(const struct fl_machine_conf *m, const char *key)
{
	const struct backend_rule *rule = backend_rule(m->backend);

	return !rule || listed(machine_common_keys, key) || listed(rule->keys, key);
}

static void words_join(fl_buf *b, const char *const *words)
{
	for (size_t i = 0; words[i]; i++)
		fl_buf_addf(b, "%s%s", i ? ", " : "", words[i]);
}

/* A key another backend reads, written for this one ("sockets: 4" on a
 * command machine): refused, it would be silently ignored. */
static void check_machine_keys(struct loader *L, struct fl_machine_conf *m)
{
	const struct backend_rule *rule = backend_rule(m->backend);

	for (const struct field *f = machine_fields; rule && f->key; f++) {
		fl_buf own = FL_BUF_INIT;

		if (machine_key_means(m, f->key) || !fl_config_where(L->cfg, at(m, f->off)))
			continue;
		words_join(&own, rule->keys);
		report_at(L, at(m, f->off),
			  "'%s' means nothing to a %s machine (its own keys: %s; every machine's: "
			  "name, backend, max_parallel, max_infra_errors, worker_host)",
			  f->key, m->backend, own.ptr);
		fl_buf_free(&own);
	}
}

static void check_machine(struct loader *L, struct fl_machine_conf *m)
{
	const struct backend_rule *rule = backend_rule(m->backend);

	check_machine_keys(L, m);
	if (rule && rule->check)
		rule->check(L, m);
	if (m->ndistances && m->ndistances != (size_t)m->sockets * m->sockets) {
		size_t side = 1;

		while (side * side < m->ndistances)
			side++;
		report_at(L, &m->distances, "%zu x %zu distances for %u nodes (one node per socket)",
			  side, side, m->sockets);
	}
}

/* The table's checks of its test (proto/testdef.h): the modes it runs in,
 * the parameters it takes. */
static void check_test(struct loader *L, struct fl_benchmark_conf *b)
{
	const struct fl_testdef *t = fl_testdef_find(b->test);
	const struct fl_testdef_params p = {.memory = b->memory_per_task};

	if (!t)
		return; /* no test, or one the test: key already refused */
	for (size_t i = 0; i < b->nmodes; i++)
		if (b->modes[i] && fl_testdef_check(t, b->modes[i], NULL))
			report_at(L, &b->modes[i], "%s", fl_error_last());
	if (fl_testdef_check(t, NULL, &p))
		report_at(L, &b->memory_per_task, "%s", fl_error_last());
}

/* Limits are the child's; a command runs wherever its shell does. */
static void check_cgroups(struct loader *L, struct fl_benchmark_conf *b)
{
	int child = 0;

	for (size_t i = 0; i < b->ncgroups; i++) {
		for (size_t k = 0; k < i; k++)
			if (b->cgroups[i] && b->cgroups[k] && !strcmp(b->cgroups[i], b->cgroups[k]))
				report_at(L, &b->cgroups[i], "cgroup '%s' is listed twice",
					  b->cgroups[i]);
		child |= b->cgroups[i] && !strcmp(b->cgroups[i], "child");
	}
	if (child && !b->test)
		report_at(L, &b->cgroups[0],
			  "cgroup 'child' needs a 'test': a command benchmark runs "
			  "where its shell does");
	if (!child && (b->memory_max || b->memory_high))
		report_at(L, b->memory_max ? (void *)&b->memory_max : &b->memory_high,
			  "memory limits apply to the child cgroup, which 'cgroup' does not list");
}

/* The benchmark keys only a kernel machine reads: the agent's page-fault
 * test and its points. A command machine runs its command once a run. */
static const char *const kernel_benchmark_keys[] = {
    "test",	 "modes",  "tasks",	     "warmup",	   "duration",	  "memory_per_task",
    "placement", "cgroup", "cgroup_version", "memory_max", "memory_high", "kernel",
    NULL};

/* How many machines the benchmark runs on, and how many of them boot kernels. */
static void benchmark_machines(const struct fl_config *cfg, const struct fl_benchmark_conf *b,
			       size_t *used, size_t *kernel)
{
	*used = *kernel = 0;
	for (size_t i = 0; i < cfg->nmachines; i++) {
		const struct fl_machine_conf *m = &cfg->machines[i];
		int on = !b->nmachines;

		for (size_t j = 0; j < b->nmachines; j++)
			on |= b->machines[j] && m->name && !strcmp(b->machines[j], m->name);
		*used += on;
		*kernel += on && fl_config_machine_kernel(m);
	}
}

/* Whether the benchmark key means something: a kernel machine's key for a
 * benchmark that runs only on command machines does not. */
static int benchmark_key_means(const struct fl_config *cfg, const struct fl_benchmark_conf *b,
			       const char *key)
{
	size_t used, kernel;

	benchmark_machines(cfg, b, &used, &kernel);
	return !used || kernel || !listed(kernel_benchmark_keys, key);
}

static void check_benchmark_keys(struct loader *L, struct fl_benchmark_conf *b)
{
	for (const struct field *f = benchmark_fields; f->key; f++)
		if (!benchmark_key_means(L->cfg, b, f->key) &&
		    fl_config_where(L->cfg, at(b, f->off)))
			report_at(L, at(b, f->off),
				  "'%s' means nothing to benchmark '%s': it runs only on command "
				  "machines, which run their command (a command benchmark's keys: "
				  "name, repeat, max_repeat, direction, machines)",
				  f->key, b->name ? b->name : "");
}

static void check_benchmark(struct loader *L, struct fl_benchmark_conf *b)
{
	struct fl_config *cfg = L->cfg;
	size_t used, kernel;
	int needs_test;

	if (b->kernel && !fl_config_kernel(cfg, b->kernel))
		report_at(L, &b->kernel, "unknown kernel '%s'", b->kernel);
	if (!b->kernel && cfg->nkernels == 1)
		b->kernel = fl_xstrdup(cfg->kernels[0].name);
	for (size_t i = 0; i < b->nmachines; i++)
		if (b->machines[i] && !fl_config_machine(cfg, b->machines[i]))
			report_at(L, &b->machines[i], "unknown machine '%s'", b->machines[i]);
	if (b->max_repeat && b->max_repeat < b->repeat)
		report_at(L, &b->max_repeat, "max_repeat %u is below repeat %u", b->max_repeat,
			  b->repeat);
	benchmark_machines(cfg, b, &used, &kernel);
	needs_test = kernel > 0;
	if (used && !kernel) { /* the rest is about kernel machines' keys */
		check_benchmark_keys(L, b);
		return;
	}
	if (needs_test && !b->test)
		report_at(L, &b->name, "benchmark '%s' runs on a kernel machine but names no 'test'",
			  b->name);
	check_test(L, b);
	check_cgroups(L, b);
}

/*
 * What is wrong with a fnmatch(3) pattern, or NULL. fnmatch takes any
 * text; a broken pattern just never matches, and the tree is watched for
 * nothing.
 */
static const char *glob_problem(const char *p)
{
	for (; *p; p++) {
		if (*p == '\\') {
			if (!*++p)
				return "it ends in a lone '\\'";
			continue;
		}
		if (*p != '[')
			continue;
		p += p[1] == '!' || p[1] == '^';
		p += p[1] == ']'; /* a ']' first in the brackets is one of the characters */
		if (!(p = strchr(p + 1, ']')))
			return "a '[' without its ']' (write '\\[' for the character)";
	}
	return NULL;
}

/* A commit URL template: http(s), one %s (the sha), no other conversion but %%. */
static const char *web_url_problem(const char *u)
{
	int n = 0;

	if (strncmp(u, "https://", 8) && strncmp(u, "http://", 7))
		return "expected an http:// or https:// URL";
	for (const char *p = u; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == '%') {
			p++;
			continue;
		}
		if (p[1] != 's')
			return "only %s (the commit's sha) and %% may follow a %";
		n++;
		p++;
	}
	return n == 1 ? NULL : "expected one %s where the commit's sha goes";
}

static void check_tree(struct loader *L, struct fl_tree_conf *t)
{
	int contained = t->baseline && !strcmp(t->baseline, "contained-tag");
	const char *why;

	for (size_t i = 0; i < t->ntags; i++)
		if (t->tags[i] && (why = glob_problem(t->tags[i])))
			report_at(L, &t->tags[i], "'%s' is not a tag pattern: %s", t->tags[i], why);
	for (size_t i = 0; i < t->nbaseline_tags; i++)
		if (t->baseline_tags[i] && (why = glob_problem(t->baseline_tags[i])))
			report_at(L, &t->baseline_tags[i], "'%s' is not a tag pattern: %s",
				  t->baseline_tags[i], why);
	if (!t->ntags && !t->branch)
		report_at(L, &t->tags, "tree '%s' watches nothing: no tag pattern and no 'branch'",
			  t->name);
	if (t->baseline_tree && !contained)
		report_at(L, &t->baseline_tree,
			  "'baseline_tree' is for 'baseline: contained-tag' (baseline is '%s')",
			  t->baseline);
	if (t->nbaseline_tags && !contained)
		report_at(L, &t->baseline_tags,
			  "'baseline_tags' is for 'baseline: contained-tag' (baseline is '%s')",
			  t->baseline);
	if (t->branch_base && !t->branch)
		report_at(L, &t->branch_base, "'branch_base' is for a watched 'branch'");
	if (t->web_url && (why = web_url_problem(t->web_url)))
		report_at(L, &t->web_url, "web_url '%s': %s", t->web_url, why);
}

static void check_address(struct loader *L, char **addr)
{
	char why[160];

	if (*addr && fl_mail_address_check(*addr, why, sizeof(why)))
		report_at(L, addr, "%s", why);
}

/* The links of reports when report.url is unset: the pages "faultline
 * serve" answers at web.listen; a wildcard address is this host's name. */
static char *pages_url(const char *listen)
{
	const char *colon = listen ? strrchr(listen, ':') : NULL;
	char host[256] = "localhost";

	if (!colon)
		return fl_xstrdup("http://127.0.0.1:8080");
	if (colon == listen || !strncmp(listen, "0.0.0.0:", 8) || !strncmp(listen, "[::]:", 5)) {
		if (gethostname(host, sizeof(host) - 1))
			snprintf(host, sizeof(host), "localhost");
		return fl_xasprintf("http://%s%s", host, colon);
	}
	return fl_xasprintf("http://%s", listen);
}

static void check_report(struct loader *L)
{
	struct fl_config *cfg = L->cfg;

	if (cfg->report.smtp && strncmp(cfg->report.smtp, "smtp://", 7) &&
	    strncmp(cfg->report.smtp, "smtps://", 8))
		report_at(L, &cfg->report.smtp, "expected an smtp:// or smtps:// URL, got '%s'",
			  cfg->report.smtp);
	check_address(L, &cfg->report.from);
	for (size_t i = 0; i < cfg->report.nto; i++)
		check_address(L, &cfg->report.to[i]);
	for (size_t i = 0; i < cfg->report.ncc; i++)
		check_address(L, &cfg->report.cc[i]);
	for (size_t i = 0; i < cfg->report.nallow; i++)
		check_address(L, &cfg->report.allow[i]);
	for (size_t t = 0; t < cfg->ntrees; t++)
		for (size_t i = 0; i < cfg->trees[t].ncc; i++)
			check_address(L, &cfg->trees[t].cc[i]);
	if (cfg->report.smtp && !cfg->report.nto)
		report_at(L, &cfg->report.smtp, "reports are sent by SMTP but 'report.to' is empty");
	if (!fl_config_where(cfg, &cfg->report.url)) { /* not written: web.listen's */
		free(cfg->report.url);
		cfg->report.url = pages_url(cfg->web.listen);
	}
}

/* min_port 0: a free port is picked at start and said on standard error. */
static void check_listen(struct loader *L, char **listen, unsigned min_port)
{
	const char *colon = strrchr(*listen, ':');
	unsigned port;

	if (!colon || colon == *listen || parse_uint(colon + 1, min_port, 65535, &port))
		report_at(L, listen, "expected host:port, got '%s'", *listen);
}

/* Timeouts below a second: libmicrohttpd counts in seconds. */
static void check_limits(struct loader *L, struct fl_httpd_limits *l, int body)
{
	if (l->header_timeout_ms < 1000)
		report_at(L, &l->header_timeout_ms, "a header timeout is at least 1s");
	if (body && l->body_timeout_ms < 1000)
		report_at(L, &l->body_timeout_ms, "a body timeout is at least 1s");
	if (body && l->body_max < 65536)
		report_at(L, &l->body_max, "at least 64K: a box's facts and batches of records");
}

/*
 * store.url: a PostgreSQL database (postgresql:// or postgres://, as libpq
 * takes it), or an SQLite file (sqlite:FILE, or FILE); it becomes
 * store.path, the location the store is opened at.
 */
static void check_store(struct loader *L)
{
	struct fl_config *cfg = L->cfg;
	const char *u = cfg->store.url, *scheme_end;

	if (!u)
		return;
	if (cfg->store.path) {
		report_at(L, &cfg->store.url, "'url' and 'path' both name the store: keep one");
		return;
	}
	scheme_end = strstr(u, "://");
	if (!strncmp(u, "postgresql://", 13) || !strncmp(u, "postgres://", 11)) {
		if (!scheme_end[3] || scheme_end[3] == '?')
			report_at(L, &cfg->store.url,
				  "'%s' names no database (postgresql://USER@HOST:PORT/DATABASE)",
				  u);
		else
			cfg->store.path = fl_xstrdup(u);
	} else if (!strncmp(u, "sqlite:", 7)) {
		if (!u[7])
			report_at(L, &cfg->store.url, "'sqlite:' names no file (sqlite:FILE)");
		else
			cfg->store.path = fl_xstrdup(u + 7);
	} else if (scheme_end || !*u) {
		report_at(L, &cfg->store.url,
			  "'%s' is not a store: postgresql://USER@HOST:PORT/DATABASE, "
			  "sqlite:FILE or a file",
			  u);
	} else {
		cfg->store.path = fl_xstrdup(u);
	}
}

/*
 * build.artifacts: a directory (made at the first build when missing), the
 * same for every worker that shares the store (docs/deployment.md).
 */
static void check_artifacts(struct loader *L)
{
	struct fl_config *cfg = L->cfg;
	struct stat st;

	if (!cfg->build.artifacts) {
		if (cfg->var)
			cfg->build.artifacts = fl_xasprintf("%s/artifacts", cfg->var);
		return;
	}
	if (!stat(cfg->build.artifacts, &st) && !S_ISDIR(st.st_mode))
		report_at(L, &cfg->build.artifacts, "'%s' is not a directory",
			  cfg->build.artifacts);
}

static void check_whole(struct loader *L)
{
	struct fl_config *cfg = L->cfg;

	CHECK_UNIQUE(L, cfg->trees, cfg->ntrees, "tree");
	CHECK_UNIQUE(L, cfg->kernels, cfg->nkernels, "kernel");
	CHECK_UNIQUE(L, cfg->machines, cfg->nmachines, "machine");
	CHECK_UNIQUE(L, cfg->benchmarks, cfg->nbenchmarks, "benchmark");
	for (size_t i = 0; i < cfg->ntrees; i++) {
		struct fl_tree_conf *t = &cfg->trees[i];

		check_tree(L, t);
		if (t->baseline_tree && !fl_config_tree(cfg, t->baseline_tree))
			report_at(L, &t->baseline_tree, "no tree '%s' (baseline_tree)",
				  t->baseline_tree);
	}
	for (size_t i = 0; i < cfg->nkernels; i++)
		check_kernel(L, &cfg->kernels[i]);
	for (size_t i = 0; i < cfg->nmachines; i++)
		check_machine(L, &cfg->machines[i]);
	for (size_t i = 0; i < cfg->nbenchmarks; i++)
		check_benchmark(L, &cfg->benchmarks[i]);
	check_report(L);
	if (cfg->web.listen)
		check_listen(L, &cfg->web.listen, 1);
	if (cfg->agent_api.listen)
		check_listen(L, &cfg->agent_api.listen, 0);
	check_limits(L, &cfg->web.limits, 0);
	check_limits(L, &cfg->agent_api.limits, 1);
	/* the heartbeat renews a third of the lease: a second or more */
	if (cfg->worker.lease_ms < 3000)
		report_at(L, &cfg->worker.lease_ms, "a worker's lease is at least 3s");
	if (!cfg->agent_api.cert != !cfg->agent_api.key)
		report_at(L, cfg->agent_api.cert ? (void *)&cfg->agent_api.cert : &cfg->agent_api.key,
			  "HTTPS needs both 'cert' and 'key'");
	for (char **f = &cfg->agent_api.cert; f <= &cfg->agent_api.key; f++)
		if (*f && !is_file(*f))
			report_at(L, f, "no such file '%s'", *f);
	check_store(L);
	check_artifacts(L);
	if (!cfg->store.path && cfg->var)
		cfg->store.path = fl_xasprintf("%s/faultline.db", cfg->var);
}

/*
 * Nesting the schema never needs (it goes four levels deep): refused before
 * libyaml builds its tree, whose time grows with the square of the depth
 * (100000 levels took 39 s).
 */
#define YAML_DEPTH_MAX 32

static int yaml_error(yaml_parser_t *p, const char *path)
{
	return fl_error_set(FL_EINVAL, "%s:%zu:%zu: YAML syntax error: %s%s%s", path,
			    p->problem_mark.line + 1, p->problem_mark.column + 1,
			    p->problem ? p->problem : "unreadable", p->context ? " " : "",
			    p->context ? p->context : "");
}

/* The text as libyaml's events: one document, at most YAML_DEPTH_MAX deep. */
static int check_shape(const fl_buf *text, const char *path)
{
	yaml_parser_t p;
	yaml_event_t e;
	int depth = 0, docs = 0, r = 0, done = 0;

	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)text->ptr, text->len);
	while (!r && !done) {
		if (!yaml_parser_parse(&p, &e)) {
			r = yaml_error(&p, path);
			break;
		}
		if (e.type == YAML_SEQUENCE_START_EVENT || e.type == YAML_MAPPING_START_EVENT)
			depth++;
		else if (e.type == YAML_SEQUENCE_END_EVENT || e.type == YAML_MAPPING_END_EVENT)
			depth--;
		if (depth > YAML_DEPTH_MAX)
			r = fl_error_set(FL_EINVAL, "%s:%zu:%zu: nested more than %d levels deep",
					 path, e.start_mark.line + 1, e.start_mark.column + 1,
					 YAML_DEPTH_MAX);
		else if (e.type == YAML_DOCUMENT_START_EVENT && ++docs > 1)
			r = fl_error_set(FL_EINVAL,
					 "%s:%zu:%zu: a second YAML document: a configuration is "
					 "one document (remove the '---' or what follows it)",
					 path, e.start_mark.line + 1, e.start_mark.column + 1);
		done = e.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&e);
	}
	yaml_parser_delete(&p);
	return r;
}

static int parse_file(struct loader *L, const char *path)
{
	fl_buf text = FL_BUF_INIT;
	yaml_parser_t parser;
	int r;

	if ((r = fl_read_file(path, &text)) || (r = check_shape(&text, path))) {
		fl_buf_free(&text);
		return r;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text.ptr, text.len);
	if (!yaml_parser_load(&parser, &L->doc))
		r = yaml_error(&parser, path);
	yaml_parser_delete(&parser);
	fl_buf_free(&text);
	return r;
}

/* path NULL: no file, every key at its default. */
static int load(struct fl_config **out, const char *path)
{
	struct loader L = {0};
	yaml_node_t *root = NULL, empty = {.type = YAML_MAPPING_NODE};
	int err;

	*out = NULL;
	L.cfg = fl_xcalloc(1, sizeof(*L.cfg));
	L.cfg->priv = fl_xcalloc(1, sizeof(*L.cfg->priv));
	L.cfg->path = fl_xstrdup(path ? path : "(defaults)");
	if (path && (err = parse_file(&L, path))) {
		fl_config_free(L.cfg);
		return err;
	}
	if (path)
		root = yaml_document_get_root_node(&L.doc);
	load_map(&L, root ? root : &empty, &top_schema, L.cfg, "");
	if (!L.nerrors)
		check_whole(&L);
	if (path)
		yaml_document_delete(&L.doc);
	if (L.nerrors) {
		fl_error_set(FL_EINVAL, "%s", fl_buf_str(&L.errors));
		fl_buf_free(&L.errors);
		fl_config_free(L.cfg);
		return FL_EINVAL;
	}
	fl_buf_free(&L.errors);
	*out = L.cfg;
	return 0;
}

int fl_config_load(struct fl_config **out, const char *path)
{
	return load(out, path);
}

int fl_config_defaults(struct fl_config **out)
{
	return load(out, NULL);
}

static void free_obj(const struct schema *s, void *obj)
{
	for (const struct field *f = s->fields; f->key; f++) {
		void *p = at(obj, f->off);

		switch (f->type) {
		case F_STR:
		case F_ENUM:
			free(*(char **)p);
			break;
		case F_STRLIST:
		case F_ENUMLIST:
			for (size_t i = 0; i < *(size_t *)at(obj, f->count_off); i++)
				free((*(char ***)p)[i]);
			free(*(void **)p);
			break;
		case F_TASKS:
		case F_MATRIX:
			free(*(void **)p);
			break;
		case F_MAP:
			free_obj(f->sub, p);
			break;
		case F_MAPLIST:
			for (size_t i = 0; i < *(size_t *)at(obj, f->count_off); i++)
				free_obj(f->sub, *(char **)p + i * f->sub->size);
			free(*(void **)p);
			break;
		default:
			break;
		}
	}
}

void fl_config_free(struct fl_config *cfg)
{
	if (!cfg)
		return;
	free_obj(&top_schema, cfg);
	if (cfg->priv) {
		for (size_t i = 0; i < cfg->priv->nwhere; i++)
			free(cfg->priv->where[i].text);
		free(cfg->priv->where);
		free(cfg->priv);
	}
	free(cfg->path);
	free(cfg);
}

/* Printing: the same tables, walked to write YAML back. */

static void print_scalar(FILE *out, const struct field *f, enum ftype type, const void *p)
{
	char tmp[64];

	switch (type) {
	case F_STR:
	case F_ENUM:
		if (f->flags & SECRET)
			fputs("\"***\"", out);
		else
			fprintf(out, "\"%s\"", *(char *const *)p);
		break;
	case F_UINT:
		fprintf(out, "%u", *(const unsigned *)p);
		break;
	case F_SIZE:
		fl_format_size(*(const uint64_t *)p, tmp, sizeof(tmp));
		fputs(tmp, out);
		break;
	case F_DURATION:
		fl_format_duration(*(const int64_t *)p, tmp, sizeof(tmp));
		fputs(tmp, out);
		break;
	case F_PERCENT:
		fl_format_percent(*(const double *)p, tmp, sizeof(tmp));
		fputs(tmp, out);
		break;
	case F_PROB:
		fprintf(out, "%g", *(const double *)p);
		break;
	case F_TASKS: {
		const struct fl_task_count *t = p;

		fprintf(out, t->percent ? "\"%u%%\"" : "%u", t->value);
		break;
	}
	default:
		break;
	}
}

static int is_set(const struct field *f, const void *obj)
{
	const void *p = (const char *)obj + f->off;

	switch (f->type) {
	case F_STR:
	case F_ENUM:
		return *(char *const *)p != NULL;
	case F_STRLIST:
	case F_ENUMLIST:
	case F_TASKS:
	case F_MATRIX:
	case F_MAPLIST:
		return *(const size_t *)((const char *)obj + f->count_off) != 0;
	default:
		return 1;
	}
}

/* Whether the key is printed: not a key another backend reads (a command
 * machine has no sockets, its benchmark no modes). */
static int printed(const struct fl_config *cfg, const struct schema *s, const void *obj,
		   const struct field *f)
{
	if (s == &machine_schema)
		return machine_key_means(obj, f->key);
	if (s == &benchmark_schema)
		return benchmark_key_means(cfg, obj, f->key);
	return 1;
}

static void print_obj(FILE *out, const struct fl_config *cfg, const struct schema *s,
		      const void *obj, int indent, int first_dash)
{
	int first = 1;

	for (const struct field *f = s->fields; f->key; f++) {
		const void *p = (const char *)obj + f->off;
		int pad = first && first_dash ? 0 : indent;

		if (!is_set(f, obj) || !printed(cfg, s, obj, f))
			continue;
		fprintf(out, "%*s%s:", pad, "", f->key);
		first = 0;
		if (f->type == F_MAP) {
			fputc('\n', out);
			print_obj(out, cfg, f->sub, p, indent + 2, 0);
		} else if (f->type == F_MAPLIST) {
			size_t n = *(const size_t *)((const char *)obj + f->count_off);

			fputc('\n', out);
			for (size_t i = 0; i < n; i++) {
				fprintf(out, "%*s- ", indent + 2, "");
				print_obj(out, cfg, f->sub, *(char *const *)p + i * f->sub->size,
					  indent + 4, 1);
			}
		} else if (f->type == F_MATRIX) {
			size_t n = *(const size_t *)((const char *)obj + f->count_off), side = 1;
			const unsigned *m = *(unsigned *const *)p;

			while (side * side < n)
				side++;
			fputs(" [", out);
			for (size_t r = 0; r < side; r++) {
				fputs(r ? ", [" : "[", out);
				for (size_t c = 0; c < side; c++)
					fprintf(out, c ? ", %u" : "%u", m[r * side + c]);
				fputc(']', out);
			}
			fputs("]\n", out);
		} else if (f->type == F_STRLIST || f->type == F_ENUMLIST || f->type == F_TASKS) {
			size_t n = *(const size_t *)((const char *)obj + f->count_off);
			size_t isize = item_size(f->type);

			fputs(" [", out);
			for (size_t i = 0; i < n; i++) {
				if (i)
					fputs(", ", out);
				print_scalar(out, f, item_type(f->type),
					     *(char *const *)p + i * isize);
			}
			fputs("]\n", out);
		} else {
			fputc(' ', out);
			print_scalar(out, f, f->type, p);
			fputc('\n', out);
		}
	}
}

void fl_config_print(const struct fl_config *cfg, FILE *out)
{
	fprintf(out, "# normalised from %s\n", cfg->path);
	print_obj(out, cfg, &top_schema, cfg, 0, 0);
}

#define FIND(arr, n, name)                                                                         \
	do {                                                                                       \
		for (size_t i_ = 0; i_ < (n); i_++)                                                \
			if ((arr)[i_].name && !strcmp((arr)[i_].name, name))                       \
				return &(arr)[i_];                                                 \
		return NULL;                                                                       \
	} while (0)

const struct fl_tree_conf *fl_config_tree(const struct fl_config *cfg, const char *name)
{
	FIND(cfg->trees, cfg->ntrees, name);
}

const struct fl_kernel_conf *fl_config_kernel(const struct fl_config *cfg, const char *name)
{
	FIND(cfg->kernels, cfg->nkernels, name);
}

const struct fl_machine_conf *fl_config_machine(const struct fl_config *cfg, const char *name)
{
	FIND(cfg->machines, cfg->nmachines, name);
}

const struct fl_benchmark_conf *fl_config_benchmark(const struct fl_config *cfg, const char *name)
{
	FIND(cfg->benchmarks, cfg->nbenchmarks, name);
}
