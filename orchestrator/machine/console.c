/*
 * console.c - reads a guest console into records, samples and panic text,
 * and classifies the end of a run (see console.h).
 */
#include "machine/console.h"
#include "analysis/compare.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "proto/record.h"

#define PANIC_TEXT "Kernel panic - not syncing"
/* Longer lines are cut for matching: a panic line is short. */
#define LINE_MAX_KEPT	1024
#define DETAIL_LINE_MAX 200

/* The next seq of each (mode, tasks, cgroup): a job may measure the same point twice. */
struct point_seq {
	const char *mode, *cgroup;
	unsigned tasks, next;
};

struct fl_console {
	struct fl_console_expect expect;
	struct fl_console_hooks hooks;
	struct fl_record_parser parser;
	struct fl_console_seen seen;
	char line[LINE_MAX_KEPT + 1];
	size_t line_len;
	char *tail; /* ring of FL_CONSOLE_TAIL bytes */
	size_t tail_start, tail_len;
	struct fl_run_sample *samples;
	size_t nsamples, samples_cap;
	struct point_seq *seqs;
	size_t nseqs;
	int hook_error;
};

/* A line for a message: control characters out, at most DETAIL_LINE_MAX bytes. */
static char *clean_line(const char *s, size_t n)
{
	fl_buf b = FL_BUF_INIT;

	for (size_t i = 0; i < n && b.len < DETAIL_LINE_MAX; i++)
		fl_buf_addch(&b, (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i]);
	while (b.len && b.ptr[b.len - 1] == ' ')
		b.ptr[--b.len] = '\0';
	return fl_buf_detach(&b);
}

static void note_error(fl_console *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note_error(fl_console *c, const char *fmt, ...)
{
	va_list ap;
	fl_buf b = FL_BUF_INIT;

	c->seen.errors++;
	if (c->seen.first_error)
		return;
	va_start(ap, fmt);
	fl_buf_grow(&b, 256);
	b.len = (size_t)vsnprintf(b.ptr, b.alloc, fmt, ap);
	va_end(ap);
	if (b.len >= b.alloc)
		b.len = b.alloc - 1;
	/* It quotes the guest's text: no terminal control sequences out of it. */
	c->seen.first_error = clean_line(b.ptr, b.len);
	fl_buf_free(&b);
}

static void end_line(fl_console *c)
{
	const char *l = c->line, *p;
	size_t n = c->line_len;

	c->line_len = 0;
	while (n && (l[n - 1] == '\r' || l[n - 1] == ' '))
		n--;
	if (!n)
		return;
	c->line[n] = '\0';
	if (!c->seen.panic && (p = strstr(l, PANIC_TEXT)))
		c->seen.panic = clean_line(p, n - (size_t)(p - l));
	if (!strstr(l, FL_RECORD_MAGIC)) {
		free(c->seen.last_line);
		c->seen.last_line = clean_line(l, n);
	}
}

static void keep_tail(fl_console *c, const char *data, size_t len)
{
	if (len >= FL_CONSOLE_TAIL) {
		memcpy(c->tail, data + len - FL_CONSOLE_TAIL, FL_CONSOLE_TAIL);
		c->tail_start = 0;
		c->tail_len = FL_CONSOLE_TAIL;
		return;
	}
	for (size_t i = 0; i < len; i++) {
		c->tail[(c->tail_start + c->tail_len) % FL_CONSOLE_TAIL] = data[i];
		if (c->tail_len < FL_CONSOLE_TAIL)
			c->tail_len++;
		else
			c->tail_start = (c->tail_start + 1) % FL_CONSOLE_TAIL;
	}
}

/* mode and cgroup are literals: compared by address */
static unsigned next_seq(fl_console *c, const char *mode, unsigned tasks, const char *cgroup,
			 unsigned count)
{
	unsigned first;

	for (size_t i = 0; i < c->nseqs; i++)
		if (c->seqs[i].mode == mode && c->seqs[i].tasks == tasks &&
		    c->seqs[i].cgroup == cgroup) {
			first = c->seqs[i].next;
			c->seqs[i].next += count;
			return first;
		}
	c->seqs = fl_xrealloc(c->seqs, (c->nseqs + 1) * sizeof(*c->seqs));
	c->seqs[c->nseqs++] = (struct point_seq){mode, cgroup, tasks, count};
	return 0;
}

static void add_sample(fl_console *c, const char *metric, const struct fl_console_point *pt,
		       unsigned seq, double v)
{
	if (c->nsamples == c->samples_cap) {
		c->samples_cap = c->samples_cap ? 2 * c->samples_cap : 64;
		c->samples = fl_xrealloc(c->samples, c->samples_cap * sizeof(*c->samples));
	}
	c->samples[c->nsamples++] =
	    (struct fl_run_sample){metric, pt->mode, pt->tasks, seq, v, pt->cgroup};
}

/* A result's cgroup context as a literal; NULL for one the agent does not make. */
static const char *cgroup_of(json_t *o)
{
	json_t *cg = json_object_get(o, "cgroup");
	const char *s = json_string_value(cg);

	if (!cg || (s && !*fl_cgroup_key(s)))
		return "";
	return s && !strcmp(s, FL_CGROUP_CHILD) ? FL_CGROUP_CHILD : NULL;
}

/* A result record: one sample per measured second, total and per task. */
static void take_result(fl_console *c, uint64_t seq, json_t *o)
{
	const char *test = json_string_value(json_object_get(o, "test"));
	const char *mode_s = json_string_value(json_object_get(o, "mode"));
	json_t *tasks_j = json_object_get(o, "tasks"), *arr = json_object_get(o, "samples"), *v;
	const char *mode, *per_task, *cgroup = cgroup_of(o);
	struct fl_console_point pt;
	json_int_t tasks = json_integer_value(tasks_j);
	unsigned first;
	size_t i;
	double sum = 0;

	if (!test || !mode_s || !json_is_integer(tasks_j) || tasks < 1 || tasks > 100000 ||
	    !json_is_array(arr) || !json_array_size(arr)) {
		note_error(c, "result record %llu lacks test, mode, tasks or samples",
			   (unsigned long long)seq);
		return;
	}
	if (c->expect.test && strcmp(test, c->expect.test)) {
		note_error(c, "result record %llu is for %.40s, the benchmark runs %s",
			   (unsigned long long)seq, test, c->expect.test);
		return;
	}
	if (!strcmp(mode_s, "processes")) {
		mode = "processes";
		per_task = "per_process_ops";
	} else if (!strcmp(mode_s, "threads")) {
		mode = "threads";
		per_task = "per_thread_ops";
	} else {
		note_error(c, "result record %llu: unknown mode '%.40s'", (unsigned long long)seq,
			   mode_s);
		return;
	}
	if (!cgroup) {
		note_error(c, "result record %llu: unknown cgroup context", (unsigned long long)seq);
		return;
	}
	json_array_foreach(arr, i, v) if (!json_is_number(v) || json_number_value(v) < 0)
	{
		note_error(c, "result record %llu: sample %zu is not a rate",
			   (unsigned long long)seq, i);
		return;
	}
	pt = (struct fl_console_point){test, mode, (unsigned)tasks, cgroup, json_array_size(arr),
				       0, 0};
	first = next_seq(c, mode, (unsigned)tasks, cgroup, (unsigned)json_array_size(arr));
	json_array_foreach(arr, i, v)
	{
		double ops = json_number_value(v);

		add_sample(c, "ops", &pt, first + (unsigned)i, ops);
		add_sample(c, per_task, &pt, first + (unsigned)i, ops / (double)tasks);
		sum += ops;
	}
	c->seen.points++;
	pt.ops = sum / (double)json_array_size(arr);
	pt.per_task = pt.ops / (double)tasks;
	if (c->hooks.point)
		c->hooks.point(c->hooks.arg, &pt);
}

static void take_env(fl_console *c, json_t *o)
{
	const char *k = json_string_value(json_object_get(o, "kernel"));

	if (c->seen.env)
		return;
	c->seen.env = 1;
	c->seen.nodes = (int)json_integer_value(json_object_get(o, "nodes"));
	c->seen.cpus = (int)json_integer_value(json_object_get(o, "cpus"));
	if (k)
		c->seen.kernel = clean_line(k, strlen(k));
}

static int on_record(void *arg, uint64_t seq, const char *json, size_t len)
{
	fl_console *c = arg;
	json_t *o = json_loadb(json, len, 0, NULL);
	const char *type = json_string_value(json_object_get(o, "type"));
	int r = 0;

	if (!json_is_object(o)) {
		note_error(c, "record %llu is not a JSON object", (unsigned long long)seq);
	} else if (!type) {
		note_error(c, "record %llu has no type", (unsigned long long)seq);
	} else if (!strcmp(type, "env")) {
		take_env(c, o);
	} else if (!strcmp(type, "result")) {
		take_result(c, seq, o);
	} else if (!strcmp(type, "error")) {
		const char *m = json_string_value(json_object_get(o, "message"));

		note_error(c, "agent: %.200s", m ? m : "(no message)");
	} else if (!strcmp(type, "done")) {
		c->seen.done = 1;
	}
	if (c->hooks.record)
		r = c->hooks.record(c->hooks.arg, seq, type ? type : "", json, len);
	json_decref(o);
	if (r)
		c->hook_error = r;
	return r;
}

fl_console *fl_console_new(const struct fl_console_expect *x, const struct fl_console_hooks *h)
{
	fl_console *c = fl_xcalloc(1, sizeof(*c));

	if (x)
		c->expect = *x;
	if (h)
		c->hooks = *h;
	c->tail = fl_xmalloc(FL_CONSOLE_TAIL);
	fl_record_parser_init(&c->parser, on_record, c);
	return c;
}

int fl_console_feed(fl_console *c, const char *data, size_t len)
{
	int r;

	if (c->hook_error)
		return c->hook_error;
	keep_tail(c, data, len);
	for (size_t i = 0; i < len; i++) {
		if (data[i] == '\n')
			end_line(c);
		else if (c->line_len < LINE_MAX_KEPT)
			c->line[c->line_len++] = data[i] ? data[i] : ' ';
	}
	r = fl_record_feed(&c->parser, data, len);
	if (r < 0 && !c->hook_error)
		return fl_error_set(FL_EIO, "console: out of memory reading records");
	return c->hook_error ? c->hook_error : 0;
}

int fl_console_finish(fl_console *c)
{
	end_line(c);
	fl_record_finish(&c->parser);
	c->seen.garbled = c->parser.stats.garbled;
	c->seen.missing = c->parser.stats.missing;
	return c->hook_error;
}

void fl_console_free(fl_console *c)
{
	if (!c)
		return;
	fl_record_parser_free(&c->parser);
	free(c->seen.kernel);
	free(c->seen.first_error);
	free(c->seen.panic);
	free(c->seen.last_line);
	free(c->tail);
	free(c->samples);
	free(c->seqs);
	free(c);
}

const struct fl_console_seen *fl_console_seen(const fl_console *c)
{
	return &c->seen;
}

const struct fl_run_sample *fl_console_samples(const fl_console *c, size_t *n)
{
	*n = c->nsamples;
	return c->samples;
}

char *fl_console_tail(const fl_console *c)
{
	char *s = fl_xmalloc(c->tail_len + 1);

	for (size_t i = 0; i < c->tail_len; i++) {
		char ch = c->tail[(c->tail_start + i) % FL_CONSOLE_TAIL];

		s[i] = ch ? ch : ' ';
	}
	s[c->tail_len] = '\0';
	return s;
}

static char *lost_note(const struct fl_console_seen *s)
{
	if (!s->garbled && !s->missing)
		return fl_xstrdup("");
	return fl_xasprintf(" (%llu records garbled, %llu missing)", (unsigned long long)s->garbled,
			    (unsigned long long)s->missing);
}

enum fl_run_status fl_console_classify(const fl_console *c, int deadline_passed,
				       int64_t deadline_ms, char **detail)
{
	const struct fl_console_seen *s = &c->seen;
	unsigned want = c->expect.points;
	char *lost = lost_note(s);
	enum fl_run_status st;

	*detail = NULL;
	if (s->panic) {
		st = FL_RUN_PANIC;
		*detail = fl_xstrdup(s->panic);
	} else if (deadline_passed) {
		st = FL_RUN_TIMEOUT;
		if (s->env)
			*detail =
			    fl_xasprintf("deadline of %lld s passed after %u of %u points%s",
					 (long long)(deadline_ms / 1000), s->points, want, lost);
		else
			*detail = fl_xasprintf(
			    "deadline of %lld s passed before the agent started; "
			    "last console line: '%s'",
			    (long long)(deadline_ms / 1000), s->last_line ? s->last_line : "");
	} else if (!s->env) {
		st = FL_RUN_BOOT_FAILED;
		*detail = fl_xasprintf("the kernel never started the agent (no environment "
				       "record)%s; last console line: '%s'",
				       lost, s->last_line ? s->last_line : "");
	} else if (s->first_error) {
		st = FL_RUN_AGENT_ERROR;
		*detail = s->errors > 1
			      ? fl_xasprintf("%s (and %u more)", s->first_error, s->errors - 1)
			      : fl_xstrdup(s->first_error);
	} else if (s->points < want) {
		st = FL_RUN_AGENT_ERROR;
		*detail =
		    fl_xasprintf("the agent ended after %u of %u points%s", s->points, want, lost);
	} else if (!s->done) {
		st = FL_RUN_AGENT_ERROR;
		*detail = fl_xasprintf("the agent ended without its done record%s", lost);
	} else {
		st = FL_RUN_OK;
		if (*lost)
			*detail = fl_xasprintf("complete%s", lost);
	}
	free(lost);
	return st;
}
