/*
 * web/ui-metrics.c - /metrics: the service's state for Prometheus, in its
 * text exposition format 0.0.4. The store counts rows and lists spans
 * (store/view.h's fl_view_counts, fl_view_spans); this page formats them:
 *
 *   faultline_jobs{kind,state}            the watch service's queue
 *   faultline_runs{status}                runs by status
 *   faultline_build_duration_seconds      histogram of make's time per build
 *   faultline_boot_duration_seconds       the machine's start to the agent's first record
 *   faultline_measure_duration_seconds    the first sample to the run's end
 *   faultline_mails{state}                reports pending, sent, failed
 *   faultline_machines{state}             machines online and broken
 *   faultline_machines_broken             out of the pool (alert on > 0)
 *   faultline_build_info{version}         1
 *
 * Every kind and state the pipeline knows is written, 0 when it has no
 * row, so a series does not vanish when its last job moves on.
 */
#include "web/ui.h"
#include "service/pipeline.h"

#include <string.h>

#ifndef FL_VERSION
#define FL_VERSION "0"
#endif

static const char *const mail_states[] = {"pending", "sent", "failed"};
static const char *const machine_states[] = {"online", "broken"};
/* seconds: from a boot under TCG to a kernel build from scratch */
static const double buckets[] = {1, 2, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600};
#define NBUCKETS (sizeof(buckets) / sizeof(buckets[0]))

/* A label value: backslash, double quote and newline escaped. */
static void label(fl_buf *out, const char *name, const char *v)
{
	fl_buf_addf(out, "%s=\"", name);
	for (; v && *v; v++) {
		if (*v == '\\' || *v == '"')
			fl_buf_addch(out, '\\');
		if (*v == '\n')
			fl_buf_adds(out, "\\n");
		else
			fl_buf_addch(out, *v);
	}
	fl_buf_addch(out, '"');
}

static void head(fl_buf *out, const char *name, const char *type, const char *help)
{
	fl_buf_addf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static int64_t count_of(const struct fl_view_count *c, size_t n, const char *a, const char *b)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].a && !strcmp(c[i].a, a) && (!b || (c[i].b && !strcmp(c[i].b, b))))
			return c[i].n;
	return 0;
}

static int listed(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (s && !strcmp(v[i], s))
			return 1;
	return 0;
}

static void jobs(fl_buf *out, const struct fl_view_count *c, size_t n)
{
	const char *kinds[FL_JOB_NKINDS], *job_states[FL_JOB_NSTATES];

	head(out, "faultline_jobs", "gauge",
	     "Jobs in the watch service's queue by kind and state.");
	for (int s = 0; s < FL_JOB_NSTATES; s++)
		job_states[s] = fl_job_state_name((enum fl_job_state)s);
	for (int k = 0; k < FL_JOB_NKINDS; k++) {
		kinds[k] = fl_job_kind_name((enum fl_job_kind)k);
		for (size_t s = 0; s < FL_JOB_NSTATES; s++) {
			fl_buf_adds(out, "faultline_jobs{");
			label(out, "kind", kinds[k]);
			fl_buf_addch(out, ',');
			label(out, "state", job_states[s]);
			fl_buf_addf(out, "} %lld\n",
				    (long long)count_of(c, n, kinds[k], job_states[s]));
		}
	}
	/* rows of a kind or state this build does not know (an older or newer writer) */
	for (size_t i = 0; i < n; i++) {
		if (listed(kinds, FL_JOB_NKINDS, c[i].a) &&
		    listed(job_states, FL_JOB_NSTATES, c[i].b))
			continue;
		fl_buf_adds(out, "faultline_jobs{");
		label(out, "kind", c[i].a);
		fl_buf_addch(out, ',');
		label(out, "state", c[i].b);
		fl_buf_addf(out, "} %lld\n", (long long)c[i].n);
	}
}

/* One label's values: the known ones (0 without rows), then any other the store has. */
static void by_one(fl_buf *out, const char *name, const char *key, const char *const *known,
		   size_t nknown, const struct fl_view_count *c, size_t n)
{
	for (size_t i = 0; i < nknown; i++) {
		fl_buf_addf(out, "%s{", name);
		label(out, key, known[i]);
		fl_buf_addf(out, "} %lld\n", (long long)count_of(c, n, known[i], NULL));
	}
	for (size_t i = 0; i < n; i++) {
		if (listed(known, nknown, c[i].a))
			continue;
		fl_buf_addf(out, "%s{", name);
		label(out, key, c[i].a);
		fl_buf_addf(out, "} %lld\n", (long long)c[i].n);
	}
}

static void histogram(fl_buf *out, const char *name, const char *help, const struct fl_view_span *x,
		      size_t n)
{
	size_t counts[NBUCKETS] = {0};
	double sum = 0;
	size_t total = 0;

	for (size_t i = 0; i < n; i++) {
		double s = (double)(x[i].to_ms - x[i].from_ms) / 1000;

		if (s < 0) /* a clock stepped back: not a duration */
			continue;
		for (size_t b = 0; b < NBUCKETS; b++)
			counts[b] += s <= buckets[b];
		sum += s;
		total++;
	}
	head(out, name, "histogram", help);
	for (size_t b = 0; b < NBUCKETS; b++)
		fl_buf_addf(out, "%s_bucket{le=\"%g\"} %zu\n", name, buckets[b], counts[b]);
	fl_buf_addf(out, "%s_bucket{le=\"+Inf\"} %zu\n%s_sum %.3f\n%s_count %zu\n", name, total,
		    name, sum, name, total);
}

static int load_counts(struct fl_web_req *req, enum fl_view_count_of of, struct fl_view_count **c,
		       size_t *n)
{
	return fl_view_counts(req->st, &req->pool, of, c, n);
}

void fl_ui_metrics(struct fl_web_req *req, struct fl_web_resp *resp)
{
	struct fl_view_count *cj, *cr, *cm, *cmach;
	size_t nj, nr, nm, nmach, nspan[3];
	struct fl_view_span *spans[3];
	fl_buf b = FL_BUF_INIT;
	int r;

	if ((r = load_counts(req, FL_VIEW_COUNT_JOBS, &cj, &nj)) ||
	    (r = load_counts(req, FL_VIEW_COUNT_RUNS, &cr, &nr)) ||
	    (r = load_counts(req, FL_VIEW_COUNT_REPORTS, &cm, &nm)) ||
	    (r = load_counts(req, FL_VIEW_COUNT_MACHINES, &cmach, &nmach)) ||
	    (r = fl_view_spans(req->st, &req->pool, FL_VIEW_SPAN_BUILD, &spans[0], &nspan[0])) ||
	    (r = fl_view_spans(req->st, &req->pool, FL_VIEW_SPAN_BOOT, &spans[1], &nspan[1])) ||
	    (r = fl_view_spans(req->st, &req->pool, FL_VIEW_SPAN_MEASURE, &spans[2], &nspan[2]))) {
		fl_web_fail_error(req, resp, r);
		return;
	}
	head(&b, "faultline_build_info", "gauge", "The faultline that serves these metrics.");
	fl_buf_adds(&b, "faultline_build_info{");
	label(&b, "version", FL_VERSION);
	fl_buf_adds(&b, "} 1\n");
	jobs(&b, cj, nj);
	head(&b, "faultline_runs", "gauge", "Runs by status.");
	by_one(&b, "faultline_runs", "status", NULL, 0, cr, nr);
	histogram(&b, "faultline_build_duration_seconds", "Kernel builds, make's time.", spans[0],
		  nspan[0]);
	histogram(&b, "faultline_boot_duration_seconds",
		  "Runs, from the machine's start to the agent's first record.", spans[1],
		  nspan[1]);
	histogram(&b, "faultline_measure_duration_seconds",
		  "Runs, from the first sample to the run's end.", spans[2], nspan[2]);
	head(&b, "faultline_mails", "gauge", "Report mails by delivery state.");
	by_one(&b, "faultline_mails", "state", mail_states, 3, cm, nm);
	head(&b, "faultline_machines", "gauge", "Machines by pool state.");
	by_one(&b, "faultline_machines", "state", machine_states, 2, cmach, nmach);
	head(&b, "faultline_machines_broken", "gauge", "Machines out of the pool.");
	fl_buf_addf(&b, "faultline_machines_broken %lld\n",
		    (long long)count_of(cmach, nmach, "broken", NULL));
	resp->status = 200;
	resp->type = "text/plain; version=0.0.4; charset=utf-8";
	fl_buf_free(&resp->body);
	resp->body = b;
}
