/*
 * web/ui-run.c - /run/<id>: a run's parameters, kernel, machine, status
 * with its detail, the environment the agent reported (nodes, CPUs, kernel
 * release) and the guest's facts, the timings (boot to the agent, the first
 * sample, the end), the job it ran for, its samples (a plot per metric and
 * a paginated table), its evidence per measured point (the vmstat rates of
 * the window and the profile's top functions) and its console log: the last
 * CONSOLE_TAIL bytes, escaped, of the whole log the backend kept on disk
 * (console_path), or of the console stored with the run; /run/<id>/console
 * is the whole log as text/plain.
 */
#include "web/ui.h"
#include "lib/html.h"
#include "web/svg.h"
#include "analysis/compare.h"
#include "machine/machine.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONSOLE_TAIL  65536
#define CONSOLE_JSON  (16 << 20) /* the most of a log /api/run/<id>/console returns */
#define PER_PAGE      100
#define TOP_FUNCTIONS 15

struct run_page {
	struct fl_view_run_detail d;
	int console_file; /* the console is the tail of the log on disk */
	struct fl_model_point *pts;
	size_t npts;
	struct fl_view_sample *samples;
	size_t nsamples;
	struct fl_evidence_row *ev; /* per measured point */
	size_t nev;
	int more;
	unsigned page;
	const char *metric; /* the plotted one */
};

/*
 * The run's whole console log on disk (the libvirt backend keeps it at
 * <var>/runs/<id>/console.log): opened only when the stored path has that
 * shape for this run and names a regular file, never through a symbolic
 * link; -1 otherwise.
 */
static int console_open(const char *path, int64_t id, struct stat *sb)
{
	char tail[64];
	size_t n, t;
	int fd;

	if (!path || path[0] != '/' || strstr(path, "/../"))
		return -1;
	snprintf(tail, sizeof(tail), "/runs/%lld/console.log", (long long)id);
	n = strlen(path);
	t = strlen(tail);
	if (n < t || strcmp(path + n - t, tail))
		return -1;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, sb) || !S_ISREG(sb->st_mode))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The last max bytes of the file as a string (NUL bytes as blanks), from a line start when
 * whole_lines asks for it. */
static char *read_tail(fl_pool *p, int fd, const struct stat *sb, size_t max, int whole_lines)
{
	size_t size = (size_t)sb->st_size, off = size > max ? size - max : 0, got = 0;
	char *buf = fl_pool_alloc(p, size - off + 1);
	ssize_t k;

	while (got < size - off &&
	       (k = pread(fd, buf + got, size - off - got, (off_t)(off + got))) > 0)
		got += (size_t)k;
	buf[got] = '\0';
	for (size_t i = 0; i < got; i++)
		if (!buf[i])
			buf[i] = ' ';
	/* a cut line is dropped: the tail starts at a line */
	if (off && whole_lines && strchr(buf, '\n'))
		return strchr(buf, '\n') + 1;
	return buf;
}

static void console_text(struct fl_web_req *req, struct fl_web_resp *resp, int64_t id)
{
	const char *console, *path;
	struct stat sb;
	size_t len;
	int fd, r;

	if ((r = fl_view_run_console(req->st, &req->pool, id, &console, &len, &path))) {
		fl_web_fail_error(req, resp, r);
		return;
	}
	fd = console_open(path, id, &sb);
	if (req->json) {
		json_t *o = json_pack(
		    "{s:I, s:o, s:b}", "run", (json_int_t)id, "console",
		    fl_web_json_str(fd >= 0 ? read_tail(&req->pool, fd, &sb, CONSOLE_JSON, 0)
					    : console),
		    "truncated", fd >= 0 && sb.st_size > CONSOLE_JSON);

		if (fd >= 0)
			close(fd);
		fl_web_send_json(resp, 200, o);
		return;
	}
	/* Served as plain text (and nosniff): the browser shows it, never runs it. */
	fl_buf_reset(&resp->body);
	resp->status = 200;
	resp->type = "text/plain; charset=utf-8";
	if (fd >= 0) {
		resp->fd = fd;
		resp->size = (uint64_t)sb.st_size;
	} else if (console) {
		fl_buf_add(&resp->body, console, len);
	}
}

/* A JSON object's members as a table; anything else as preformatted text. */
/* A size with its unit: "23.5 GiB (25276071936 bytes)". */
static void size_html(fl_buf *out, double bytes)
{
	static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
	double v = bytes;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (!u)
		fl_buf_addf(out, "%.0f bytes", bytes);
	else
		fl_buf_addf(out, "%.*f %s (%.0f bytes)", v < 10 ? 2 : 1, v, unit[u], bytes);
}

/* Facts in bytes (the agent's "memory", "memory_per_node", any "*_bytes")
 * or MiB ("*_mib"): 1 for bytes, 1048576 for MiB, 0 for anything else. */
static double size_fact(const char *key)
{
	size_t n = strlen(key);

	if (!strcmp(key, "memory") || !strcmp(key, "memory_per_node") ||
	    (n > 6 && !strcmp(key + n - 6, "_bytes")))
		return 1;
	if (n > 4 && !strcmp(key + n - 4, "_mib"))
		return 1048576;
	return 0;
}

static void json_table(fl_buf *out, const char *text)
{
	json_t *j = text ? json_loads(text, 0, NULL) : NULL;
	const char *key;
	json_t *v;

	if (!json_is_object(j)) {
		fl_html_addf(out, "<pre>%s</pre>\n", text ? text : "-");
		json_decref(j);
		return;
	}
	fl_buf_adds(out, "<table class='params'>\n");
	json_object_foreach(j, key, v)
	{
		char *s;

		if (json_is_number(v) && size_fact(key) && json_number_value(v) >= 0) {
			fl_html_addf(out, "<tr><th>%s</th><td class='size'>", key);
			size_html(out, json_number_value(v) * size_fact(key));
			fl_buf_adds(out, "</td></tr>\n");
			continue;
		}
		s = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		fl_html_addf(out, "<tr><th>%s</th><td>%s</td></tr>\n", key,
			     s ? s : json_string_value(v));
		free(s);
	}
	fl_buf_adds(out, "</table>\n");
	json_decref(j);
}

/* One plot of the chosen metric: a series per mode and cgroup context, task
 * count on x, spread as error bars. */
static void points_plot(fl_buf *out, fl_pool *p, const struct run_page *rp)
{
	struct fl_svg_series *s = fl_pool_alloc(p, (rp->npts + 1) * sizeof(*s));
	struct fl_svg_plot plot = {.title = rp->metric, .xlabel = "tasks", .ylabel = rp->metric};
	size_t ns = 0;

	for (size_t i = 0, j; i < rp->npts; i = j) {
		double *x, *y, *e;
		const char *label;
		size_t k = 0;

		for (j = i; j < rp->npts && !strcmp(rp->pts[j].metric, rp->pts[i].metric) &&
			    !strcmp(rp->pts[j].mode, rp->pts[i].mode) &&
			    !strcmp(rp->pts[j].cgroup, rp->pts[i].cgroup);
		     j++)
			;
		if (strcmp(rp->pts[i].metric, rp->metric))
			continue;
		label = *rp->pts[i].mode ? rp->pts[i].mode : rp->metric;
		if (*rp->pts[i].cgroup) {
			char *l = fl_pool_alloc(p, 96);

			snprintf(l, 96, "%s %s", label, rp->pts[i].cgroup);
			label = l;
		}
		x = fl_pool_alloc(p, (j - i) * sizeof(double));
		y = fl_pool_alloc(p, (j - i) * sizeof(double));
		e = fl_pool_alloc(p, (j - i) * sizeof(double));
		for (size_t m = i; m < j; m++, k++) {
			x[k] = rp->pts[m].tasks;
			y[k] = rp->pts[m].mean;
			e[k] = rp->pts[m].sd;
		}
		s[ns++] = (struct fl_svg_series){label, x, y, e, k, 0};
	}
	if (!ns)
		return;
	plot.series = s;
	plot.nseries = ns;
	fl_buf_adds(out, "<figure class='plot samples'>");
	fl_svg_lines(out, &plot);
	fl_buf_adds(out, "</figure>\n");
}

static void points_table(fl_buf *out, const struct run_page *rp)
{
	fl_buf_adds(out, "<table class='points'>\n<thead><tr><th>metric</th><th>mode</th>"
			 "<th>tasks</th><th>cgroup</th><th>samples</th><th>mean</th>"
			 "<th>%stddev</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < rp->npts; i++) {
		const struct fl_model_point *pt = &rp->pts[i];

		fl_html_addf(out,
			     "<tr><td>%s</td><td>%s</td><td class='num'>%u</td><td>%s</td>"
			     "<td class='num'>%zu</td><td class='num'>",
			     pt->metric, pt->mode, pt->tasks, fl_cgroup_word(pt->cgroup), pt->n);
		fl_web_num(out, pt->mean);
		fl_buf_adds(out, "</td><td class='num'>");
		fl_web_num(out, pt->mean ? 100 * pt->sd / fabs(pt->mean) : NAN);
		fl_buf_adds(out, "</td></tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

static void samples_table(fl_buf *out, const struct run_page *rp, int64_t id)
{
	char base[64];

	fl_buf_adds(out, "<table class='samples'>\n<thead><tr><th>metric</th><th>mode</th>"
			 "<th>tasks</th><th>cgroup</th><th>seq</th><th>value</th></tr></thead>\n"
			 "<tbody>\n");
	for (size_t i = 0; i < rp->nsamples; i++) {
		const struct fl_view_sample *x = &rp->samples[i];

		fl_html_addf(out,
			     "<tr><td>%s</td><td>%s</td><td class='num'>%u</td><td>%s</td>"
			     "<td class='num'>%u</td><td class='num'>",
			     x->metric, x->mode, x->tasks, fl_cgroup_word(x->cgroup), x->seq);
		fl_web_num(out, x->value);
		fl_buf_adds(out, "</td></tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
	snprintf(base, sizeof(base), "/run/%lld", (long long)id);
	fl_web_pager(out, base, rp->page, rp->more);
}

/* "41.0 s" after the run started on its machine, or "-". */
static void after_created(fl_buf *out, const struct fl_view_run_detail *d, int64_t ms)
{
	if (!ms || !d->created_ms)
		fl_buf_adds(out, "-");
	else
		fl_buf_addf(out, "%.1f s", (double)(ms - d->created_ms) / 1000);
}

static void run_facts(fl_buf *b, const struct run_page *rp)
{
	const struct fl_view_run_detail *d = &rp->d;
	const struct fl_view_run *r = &d->run;
	fl_buf v = FL_BUF_INIT;

	fl_buf_adds(b, "<dl class='facts'>\n");
	fl_html_addf(&v, "<span class='status status-%s'>%s</span>", r->status, r->status);
	/* no agent on a command machine: its command is what failed */
	if (d->backend && !strcmp(d->backend, "command") && !strcmp(r->status, "agent-error"))
		fl_buf_adds(&v, " (the command failed)");
	if (r->detail)
		fl_html_addf(&v, ": <span class='detail'>%s</span>", r->detail);
	fl_ui_dl_row(b, "status", v.ptr);
	fl_buf_reset(&v);
	fl_web_commit_html(&v, r->commit.sha, r->commit.subject);
	if (r->commit.tree)
		fl_html_addf(&v, " (tree %s)", r->commit.tree);
	if (d->kernel_image)
		fl_html_addf(&v, "%simage <code>%s</code>", r->commit.sha ? ", " : "",
			     d->kernel_image);
	fl_ui_dl_row(b, "kernel", v.ptr);
	if (r->build_id) {
		fl_buf_reset(&v);
		fl_html_addf(&v, "%lld: %s, %s", (long long)r->build_id,
			     r->kernel ? r->kernel : "-", r->build_status ? r->build_status : "-");
		fl_ui_dl_row(b, "build", v.ptr);
	}
	fl_buf_reset(&v);
	fl_html_addf(&v, "%s (%s)", r->machine, d->backend);
	fl_ui_dl_row(b, "machine", v.ptr);
	if (d->label) {
		fl_buf_reset(&v);
		fl_html_addf(&v, "%s", d->label);
		fl_ui_dl_row(b, "label", v.ptr);
	}
	if (r->job_id) {
		fl_buf_reset(&v);
		fl_html_addf(&v, "%lld: %s %s, attempt %d, %s", (long long)r->job_id,
			     d->job_kind ? d->job_kind : "-", d->job_role ? d->job_role : "",
			     d->job_attempts, d->job_state ? d->job_state : "-");
		if (d->job_parent)
			fl_html_addf(&v, " (for job %lld)", (long long)d->job_parent);
		fl_ui_dl_row(b, "job", v.ptr);
	}
	fl_buf_reset(&v);
	fl_web_time(&v, r->started);
	fl_ui_dl_row(b, "started", v.ptr);
	fl_buf_reset(&v);
	fl_web_time(&v, r->finished);
	fl_ui_dl_row(b, "finished", v.ptr);
	fl_buf_adds(b, "</dl>\n");
	fl_buf_free(&v);
}

/* What the agent reported of the guest and what the backend made of it, in
 * the backend's words: what its run starts with (a libvirt guest is created,
 * a bare-metal box is handed its job, a command is started), whose facts. */
static void environment(fl_buf *b, const struct fl_view_run_detail *d)
{
	const char *start, *to_agent, *facts;

	fl_machine_words(d->backend, &start, &to_agent, &facts);

	fl_buf_adds(b, "<h2>Environment</h2>\n<table class='environment'>\n");
	fl_html_addf(b, "<tr><th>kernel release</th><td>%s</td></tr>\n",
		     d->kernel_release ? d->kernel_release : "-");
	if (d->nodes)
		fl_html_addf(b, "<tr><th>NUMA nodes</th><td>%d</td></tr>\n", d->nodes);
	else
		fl_buf_adds(b, "<tr><th>NUMA nodes</th><td>-</td></tr>\n");
	if (d->cpus)
		fl_html_addf(b, "<tr><th>CPUs</th><td>%d</td></tr>\n", d->cpus);
	else
		fl_buf_adds(b, "<tr><th>CPUs</th><td>-</td></tr>\n");
	fl_html_addf(b, "<tr><th>accelerator</th><td>%s</td></tr>\n", d->accel ? d->accel : "-");
	if (d->domain)
		fl_html_addf(b, "<tr><th>domain</th><td><code>%s</code></td></tr>\n", d->domain);
	fl_buf_adds(b, "</table>\n");
	if (d->machine_facts) {
		fl_html_addf(b, "<h3>%s</h3>\n", facts);
		json_table(b, d->machine_facts);
	}
	fl_html_addf(b, "<h3>Timings</h3>\n<table class='timings'>\n<tr><th>%s</th><td>", start);
	fl_web_time(b, d->created_ms / 1000);
	fl_html_addf(b, "</td></tr>\n<tr><th>%s</th><td>", to_agent);
	after_created(b, d, d->agent_ms);
	fl_buf_adds(b, "</td></tr>\n<tr><th>first sample</th><td>");
	after_created(b, d, d->first_sample_ms);
	fl_buf_adds(b, "</td></tr>\n<tr><th>total</th><td>");
	after_created(b, d, d->ended_ms);
	fl_buf_adds(b, "</td></tr>\n</table>\n");
}

static void console_html(fl_buf *b, const struct run_page *rp)
{
	const struct fl_view_run_detail *d = &rp->d;

	fl_buf_adds(b, "<h2>Console</h2>\n");
	if (!d->console) {
		fl_buf_adds(b, "<p class='empty'>No console log kept.</p>\n");
		return;
	}
	if (d->console_len > CONSOLE_TAIL)
		fl_html_addf(b, "<p>The end of %zu bytes; ", d->console_len);
	else
		fl_buf_adds(b, "<p>");
	fl_html_addf(b, "<a href='/run/%lld/console'>the whole log as text</a>.</p>\n",
		     (long long)d->run.id);
	fl_html_addf(b, "<pre class='console'>%s</pre>\n", d->console);
}

/* The counters that moved in the window, per second (gauges as they changed). */
static void vmstat_table(fl_buf *out, const struct fl_evidence_row *pt)
{
	fl_buf_adds(out, "<table class='vmstat'>\n<thead><tr><th>counter</th><th>change</th>"
			 "<th>per second</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < pt->nvm; i++) {
		const struct fl_vmstat_row *v = &pt->vm[i];

		if (!v->delta || fl_vmstat_is_node(v->name)) /* nodes: nodes_table */
			continue;
		fl_html_addf(out, "<tr><td>%s</td><td class='num'>%lld</td><td class='num'>",
			     v->name, (long long)v->delta);
		fl_web_num(out, fl_vmstat_counter(v->name) ? v->per_sec : NAN);
		fl_buf_adds(out, "</td></tr>\n");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

static void profile_table(fl_buf *out, const struct fl_evidence_row *pt)
{
	if (!pt->nfn) {
		fl_html_addf(
		    out, "<p class='empty'>No profile: %s.</p>\n",
		    !pt->profile || !strcmp(pt->profile, "none")
			? "the kernel has no CONFIG_PROFILING or was booted without profile="
			: pt->profile);
		return;
	}
	fl_buf_adds(out, "<table class='profile'>\n<thead><tr><th>function</th><th>samples</th>"
			 "<th>share</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < pt->nfn; i++)
		fl_html_addf(out,
			     "<tr><td>%s</td><td class='num'>%lld</td><td class='num'>%.1f%%"
			     "</td></tr>\n",
			     pt->fn[i].name, (long long)pt->fn[i].samples, 100 * pt->fn[i].share);
	fl_buf_adds(out, "</tbody></table>\n");
}

/* The per-node rows (LKP's numa-numastat / numa-vmstat names) that moved,
 * and the tasks pinned to each node. */
static void nodes_table(fl_buf *out, const struct fl_evidence_row *pt)
{
	int any = 0;

	for (size_t i = 0; i < pt->nvm; i++) {
		const struct fl_vmstat_row *v = &pt->vm[i];

		if (!v->delta || !fl_vmstat_is_node(v->name))
			continue;
		if (!any++)
			fl_buf_adds(out, "<table class='vmstat nodes'>\n<thead><tr><th>per node</th>"
					 "<th>change</th><th>per second</th></tr></thead>\n<tbody>\n");
		fl_html_addf(out, "<tr><td>%s</td><td class='num'>%lld</td><td class='num'>",
			     v->name, (long long)v->delta);
		fl_web_num(out, fl_vmstat_counter(v->name) ? v->per_sec : NAN);
		fl_buf_adds(out, "</td></tr>\n");
	}
	if (any)
		fl_buf_adds(out, "</tbody></table>\n");
}

/* The window's contended locks (agents/lockstat.h), most wait first, with
 * their chains; why there are none; the expected counters the kernel lacks. */
static void locks_table(fl_buf *out, const struct fl_evidence_row *pt)
{
	if (pt->vmstat_missing && *pt->vmstat_missing)
		fl_html_addf(out,
			     "<p class='missing'>Counters this kernel does not have: %s "
			     "(kernels/vmstat.config; nr_tlb_* need CONFIG_DEBUG_TLBFLUSH).</p>\n",
			     pt->vmstat_missing);
	if (!pt->locks)
		return;
	if (strcmp(pt->locks, "recorded")) {
		fl_html_addf(out, "<p class='empty'>Lock contention: %s.</p>\n", pt->locks);
		return;
	}
	if (!pt->nlk) {
		fl_buf_adds(out, "<p class='empty'>Lock contention: none in the window.</p>\n");
		return;
	}
	fl_buf_adds(out, "<table class='locks'>\n<thead><tr><th>lock</th><th>named by</th>"
			 "<th>contentions</th><th>per second</th><th>wait ms</th>"
			 "<th>longest wait us</th><th>top call chains</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < pt->nlk; i++) {
		const struct fl_lock_row *l = &pt->lk[i];

		fl_html_addf(out, "<tr><td><code>%s</code></td><td>%s</td><td class='num'>%lld</td>"
				  "<td class='num'>",
			     l->lock, l->named_by, (long long)l->contentions);
		fl_web_num(out, pt->measured_s > 0 ? (double)l->contentions / pt->measured_s : NAN);
		fl_buf_adds(out, "</td><td class='num'>");
		fl_web_num(out, (double)l->wait_ns / 1e6);
		fl_buf_adds(out, "</td><td class='num'>");
		fl_web_num(out, (double)l->max_wait_ns / 1e3);
		fl_html_addf(out, "</td><td><pre>%s</pre></td></tr>\n", l->chains ? l->chains : "");
	}
	fl_buf_adds(out, "</tbody></table>\n");
}

static void evidence_html(fl_buf *out, const struct run_page *rp)
{
	fl_buf_adds(out, "<h2>Evidence</h2>\n");
	if (!rp->nev) {
		fl_buf_adds(out, "<p class='empty'>No vmstat or profile evidence for this "
				 "run.</p>\n");
		return;
	}
	for (size_t i = 0; i < rp->nev; i++) {
		const struct fl_evidence_row *pt = &rp->ev[i];

		fl_html_addf(
		    out,
		    "<section class='evidence' data-mode='%s' data-tasks='%u'>\n"
		    "<h3>%s %s, %u task%s%s%s</h3>\n<p>",
		    pt->mode, pt->tasks, pt->test, pt->mode, pt->tasks, pt->tasks == 1 ? "" : "s",
		    *fl_cgroup_key(pt->cgroup) ? ", cgroup " : "", fl_cgroup_key(pt->cgroup));
		if (pt->measured_s > 0)
			fl_html_addf(out, "A window of %.1f s. ", pt->measured_s);
		if (pt->profile_samples)
			fl_html_addf(out, "%lld profile samples, the top %zu functions:",
				     (long long)pt->profile_samples, pt->nfn);
		fl_buf_adds(out, "</p>\n");
		profile_table(out, pt);
		vmstat_table(out, pt);
		nodes_table(out, pt);
		locks_table(out, pt);
		fl_buf_adds(out, "</section>\n");
	}
}

static void run_html(fl_buf *b, fl_pool *p, const struct run_page *rp)
{
	const struct fl_view_run *r = &rp->d.run;

	fl_html_addf(b, "<h1>Run %lld: %s on %s</h1>\n", (long long)r->id, r->benchmark,
		     r->machine);
	run_facts(b, rp);
	fl_buf_adds(b, "<h2>Parameters</h2>\n");
	json_table(b, r->params);
	environment(b, &rp->d);
	if (rp->d.facts) {
		fl_buf_adds(b, "<h2>Machine</h2>\n");
		json_table(b, rp->d.facts);
	}
	fl_buf_adds(b, "<h2>Samples</h2>\n");
	if (!rp->npts) {
		fl_buf_adds(b, "<p class='empty'>No samples.</p>\n");
	} else {
		points_plot(b, p, rp);
		points_table(b, rp);
		samples_table(b, rp, r->id);
	}
	evidence_html(b, rp);
	console_html(b, rp);
}

static json_t *ms_json(int64_t ms)
{
	return ms ? json_integer(ms) : json_null();
}

static json_t *environment_json(const struct fl_view_run_detail *d)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o, s:o, s:o}}",
			 "kernel_release", fl_web_json_str(d->kernel_release), "nodes",
			 d->nodes ? json_integer(d->nodes) : json_null(), "cpus",
			 d->cpus ? json_integer(d->cpus) : json_null(), "accel",
			 fl_web_json_str(d->accel), "domain", fl_web_json_str(d->domain), "label",
			 fl_web_json_str(d->label), "kernel_image",
			 fl_web_json_str(d->kernel_image), "guest",
			 fl_ui_json_text(d->machine_facts), "timings_ms", "created",
			 ms_json(d->created_ms), "agent", ms_json(d->agent_ms), "first_sample",
			 ms_json(d->first_sample_ms), "ended", ms_json(d->ended_ms));
}

/* The point's lock evidence as JSON, added to its object. */
static void locks_json(json_t *o, const struct fl_evidence_row *pt)
{
	json_t *a = json_array();

	for (size_t k = 0; k < pt->nlk; k++)
		json_array_append_new(
		    a, json_pack("{s:o, s:o, s:I, s:I, s:I, s:I, s:o}", "lock",
				 fl_web_json_str(pt->lk[k].lock), "named_by",
				 fl_web_json_str(pt->lk[k].named_by), "contentions",
				 (json_int_t)pt->lk[k].contentions, "waits",
				 (json_int_t)pt->lk[k].waits, "wait_ns", (json_int_t)pt->lk[k].wait_ns,
				 "max_wait_ns", (json_int_t)pt->lk[k].max_wait_ns, "chains",
				 fl_web_json_str(pt->lk[k].chains)));
	json_object_set_new(o, "locks_status", pt->locks ? fl_web_json_str(pt->locks) : json_null());
	json_object_set_new(o, "locks", a);
	json_object_set_new(o, "vmstat_missing", pt->vmstat_missing
						     ? fl_web_json_str(pt->vmstat_missing)
						     : json_null());
}

static json_t *evidence_json(const struct run_page *rp)
{
	json_t *a = json_array();

	for (size_t i = 0; i < rp->nev; i++) {
		const struct fl_evidence_row *pt = &rp->ev[i];
		json_t *vm = json_object(), *fns = json_array();

		for (size_t k = 0; k < pt->nvm; k++)
			json_object_set_new(vm, pt->vm[k].name,
					    json_pack("{s:I, s:o}", "delta",
						      (json_int_t)pt->vm[k].delta, "per_sec",
						      fl_web_json_num(pt->vm[k].per_sec)));
		for (size_t k = 0; k < pt->nfn; k++)
			json_array_append_new(fns,
					      json_pack("{s:o, s:I, s:o}", "function",
							fl_web_json_str(pt->fn[k].name), "samples",
							(json_int_t)pt->fn[k].samples, "share",
							fl_web_json_num(pt->fn[k].share)));
		json_array_append_new(
		    a, json_pack("{s:o, s:o, s:i, s:s, s:o, s:o, s:I, s:o, s:o}", "test",
				 fl_web_json_str(pt->test), "mode", fl_web_json_str(pt->mode),
				 "tasks", (int)pt->tasks, "cgroup", fl_cgroup_word(pt->cgroup),
				 "measured_s", fl_web_json_num(pt->measured_s), "profile",
				 fl_web_json_str(pt->profile), "profile_samples",
				 (json_int_t)pt->profile_samples, "vmstat", vm, "functions", fns));
		locks_json(json_array_get(a, json_array_size(a) - 1), pt);
	}
	return a;
}

static json_t *run_json(const struct run_page *rp)
{
	json_t *o = fl_ui_run_json(&rp->d.run), *pts = json_array(), *xs = json_array();

	for (size_t i = 0; i < rp->npts; i++)
		json_array_append_new(pts, json_pack("{s:o, s:o, s:i, s:s, s:I, s:o, s:o}",
						     "metric", fl_web_json_str(rp->pts[i].metric),
						     "mode", fl_web_json_str(rp->pts[i].mode),
						     "tasks", (int)rp->pts[i].tasks, "cgroup",
						     fl_cgroup_word(rp->pts[i].cgroup), "n",
						     (json_int_t)rp->pts[i].n, "mean",
						     fl_web_json_num(rp->pts[i].mean), "stddev",
						     fl_web_json_num(rp->pts[i].sd)));
	for (size_t i = 0; i < rp->nsamples; i++)
		json_array_append_new(xs, json_pack("{s:o, s:o, s:i, s:s, s:i, s:o}", "metric",
						    fl_web_json_str(rp->samples[i].metric), "mode",
						    fl_web_json_str(rp->samples[i].mode), "tasks",
						    (int)rp->samples[i].tasks, "cgroup",
						    fl_cgroup_word(rp->samples[i].cgroup), "seq",
						    (int)rp->samples[i].seq, "value",
						    fl_web_json_num(rp->samples[i].value)));
	json_object_set_new(o, "backend", fl_web_json_str(rp->d.backend));
	json_object_set_new(o, "facts", fl_ui_json_text(rp->d.facts));
	json_object_set_new(o, "environment", environment_json(&rp->d));
	if (rp->d.run.job_id)
		json_object_set_new(
		    o, "job_detail",
		    json_pack("{s:o, s:o, s:o, s:i, s:o}", "kind", fl_web_json_str(rp->d.job_kind),
			      "role", fl_web_json_str(rp->d.job_role), "state",
			      fl_web_json_str(rp->d.job_state), "attempts", rp->d.job_attempts,
			      "parent",
			      rp->d.job_parent ? json_integer(rp->d.job_parent) : json_null()));
	json_object_set_new(o, "points", pts);
	json_object_set_new(o, "samples", xs);
	json_object_set_new(o, "evidence", evidence_json(rp));
	fl_ui_json_page(o, rp->page, rp->more);
	json_object_set_new(o, "console_length", json_integer((json_int_t)rp->d.console_len));
	json_object_set_new(o, "console_tail", fl_web_json_str(rp->d.console));
	json_object_set_new(o, "console_from_file", json_boolean(rp->console_file));
	return o;
}

/* The console shown: the end of the log on disk when there is one. */
static void console_tail(fl_pool *p, struct run_page *rp)
{
	struct stat sb;
	int fd = console_open(rp->d.console_path, rp->d.run.id, &sb);

	if (fd < 0)
		return;
	rp->d.console = read_tail(p, fd, &sb, CONSOLE_TAIL, 1);
	rp->d.console_len = (size_t)sb.st_size;
	rp->console_file = 1;
	close(fd);
}

void fl_ui_run(struct fl_web_req *req, struct fl_web_resp *resp)
{
	struct run_page rp = {0};
	const char *slash = strchr(req->rest, '/');
	char idtext[32];
	fl_buf b = FL_BUF_INIT;
	int64_t id;
	int r;

	snprintf(idtext, sizeof(idtext), "%.*s",
		 (int)(slash ? (size_t)(slash - req->rest) : strlen(req->rest)), req->rest);
	if (fl_web_id(req, resp, idtext, &id))
		return;
	if (slash) {
		if (strcmp(slash, "/console"))
			fl_web_fail(req, resp, 404, "no page at %s", req->path);
		else
			console_text(req, resp, id);
		return;
	}
	if (fl_web_page_arg(req, resp, &rp.page) ||
	    fl_web_name_arg(req, resp, "metric", &rp.metric))
		return;
	if ((r = fl_view_run_get(req->st, &req->pool, id, CONSOLE_TAIL, &rp.d)) ||
	    (r = fl_model_run_points(req->st, &req->pool, id, &rp.pts, &rp.npts)) ||
	    (r = fl_view_run_samples(req->st, &req->pool, id, rp.page, PER_PAGE, &rp.samples,
				     &rp.nsamples, &rp.more)) ||
	    (r = fl_view_run_evidence(req->st, &req->pool, id, TOP_FUNCTIONS, &rp.ev, &rp.nev))) {
		fl_web_fail_error(req, resp, r);
		return;
	}
	console_tail(&req->pool, &rp);
	if (!rp.metric) {
		rp.metric = rp.npts ? rp.pts[0].metric : "ops_per_sec";
		for (size_t i = 0; i < rp.npts; i++)
			if (!strcmp(rp.pts[i].metric, "ops_per_sec"))
				rp.metric = "ops_per_sec";
	}
	if (req->json) {
		fl_web_send_json(resp, 200, run_json(&rp));
		return;
	}
	run_html(&b, &req->pool, &rp);
	snprintf(idtext, sizeof(idtext), "run %lld", (long long)id);
	fl_web_page(req, resp, idtext, &b);
	fl_buf_free(&b);
}
