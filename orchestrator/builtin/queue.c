/*
 * builtin/queue.c - "faultline queue show": what the watch service has to do
 * and the state of its machine pool; "faultline queue enable MACHINE" puts
 * a machine that left the pool after repeated infra errors back into it;
 * "faultline queue retry JOB|--failed" queues failed jobs again
 * (fl_queue_retry: a broken benchmark command fixed, the tag is compared).
 */
#include "builtin/builtin.h"
#include "config/config.h"
#include "lib/error.h"
#include "service/pipeline.h"
#include "service/queue.h"
#include "store/jobs.h"
#include "store/store.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void show_machines(fl_store *st)
{
	char **names;
	size_t n;

	if (fl_store_machine_names(st, &names, &n))
		return;
	printf("machines:\n");
	for (size_t i = 0; i < n; i++) {
		struct fl_machine_state m;

		if (!fl_store_machine_state(st, names[i], &m)) {
			printf("  %-16s %-7s %d infra error%s in a row%s%s\n", names[i], m.state,
			       m.infra_errors, m.infra_errors == 1 ? "" : "s", m.reason ? ": " : "",
			       m.reason ? m.reason : "");
			fl_machine_state_release(&m);
		}
		free(names[i]);
	}
	free(names);
}

/* The states whose jobs are listed one by one; done ones are only counted. */
static const enum fl_job_state listed[] = {FL_STATE_RUNNING, FL_STATE_QUEUED, FL_STATE_WAITING,
					   FL_STATE_FAILED};

static void show_jobs(fl_store *st)
{
	struct fl_job_counts c;
	struct fl_job *jobs;
	size_t n;

	fl_job_counts(st, 1, &c);
	printf("jobs: %zu running, %zu queued, %zu waiting, %zu failed, %zu done\n", c.running,
	       c.queued, c.waiting, c.failed, c.done);
	for (size_t s = 0; s < sizeof(listed) / sizeof(listed[0]); s++) {
		if (fl_store_jobs_in_state(st, fl_job_state_name(listed[s]), NULL, 0, &jobs, &n))
			continue;
		for (size_t i = 0; i < n; i++) {
			const struct fl_job *j = &jobs[i];

			printf("  %6lld %-7s %-7s %s %s on %s", (long long)j->id, j->kind, j->state,
			       j->tree, j->benchmark, j->machine);
			if (fl_job_kind_is(j->kind, FL_JOB_RUN))
				printf(" %s %.12s (%s%sattempt %d)", j->role, j->rev,
				       j->point ? j->point : "", j->point ? ", " : "", j->attempts);
			if (j->error && *j->error)
				printf(": %s", j->error);
			putchar('\n');
		}
		fl_jobs_free(jobs, n);
	}
	if (c.failed)
		printf(
		    "a failed job runs again, once its cause is fixed, with 'faultline queue retry "
		    "JOB' (its failed runs with it) or 'faultline queue retry --failed'\n");
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* The same as one JSON object: {"machines": [...], "jobs": {"counts": {...},
 * "list": [...]}}, the jobs running, queued, waiting and failed. */
static void show_json(fl_store *st)
{
	json_t *o = json_object(), *machines = json_array(), *counts, *list = json_array(),
	       *jobs = json_object();
	struct fl_job_counts c;
	char **names;
	size_t n;

	if (!fl_store_machine_names(st, &names, &n)) {
		for (size_t i = 0; i < n; i++) {
			struct fl_machine_state m;

			if (!fl_store_machine_state(st, names[i], &m)) {
				json_array_append_new(
				    machines, json_pack("{s:s, s:s?, s:i, s:s?}", "name", names[i],
							"state", m.state, "infra_errors",
							m.infra_errors, "reason",
							m.reason));
				fl_machine_state_release(&m);
			}
			free(names[i]);
		}
		free(names);
	}
	fl_job_counts(st, 1, &c);
	counts = json_pack("{s:I, s:I, s:I, s:I, s:I}", "running", (json_int_t)c.running, "queued",
			   (json_int_t)c.queued, "waiting", (json_int_t)c.waiting, "failed",
			   (json_int_t)c.failed, "done", (json_int_t)c.done);
	for (size_t s = 0; s < sizeof(listed) / sizeof(listed[0]); s++) {
		struct fl_job *js;
		size_t nj;

		if (fl_store_jobs_in_state(st, fl_job_state_name(listed[s]), NULL, 0, &js, &nj))
			continue;
		for (size_t i = 0; i < nj; i++) {
			const struct fl_job *j = &js[i];
			json_t *jo = json_pack("{s:I, s:s?, s:s?, s:s?, s:s?, s:s?, s:i}", "id",
					       (json_int_t)j->id, "kind", j->kind, "state", j->state,
					       "tree", j->tree, "benchmark", j->benchmark,
					       "machine", j->machine, "attempts", j->attempts);

			if (fl_job_kind_is(j->kind, FL_JOB_RUN)) {
				json_object_set_new(jo, "role", str_or_null(j->role));
				json_object_set_new(jo, "rev", str_or_null(j->rev));
				json_object_set_new(jo, "point", str_or_null(j->point));
			}
			json_object_set_new(jo, "error",
					    j->error && *j->error ? json_string(j->error) : json_null());
			json_array_append_new(list, jo);
		}
		fl_jobs_free(js, nj);
	}
	json_object_set_new(jobs, "counts", counts);
	json_object_set_new(jobs, "list", list);
	json_object_set_new(o, "machines", machines);
	json_object_set_new(o, "jobs", jobs);
	json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(o);
}

/* retry JOB or --failed: what was queued again, said. */
static int retry(fl_store *st, const char *job)
{
	unsigned jobs = 1, runs;
	char *end;
	long long id = 0;
	int r;

	if (job) {
		id = strtoll(job, &end, 10);
		if (*end || id <= 0) {
			fl_arg_error("queue",
				     "retry: '%s' is not a job id (see 'faultline queue show')",
				     job);
			return FL_EXIT_USAGE;
		}
		r = fl_queue_retry(st, id, &runs);
	} else {
		r = fl_queue_retry_failed(st, &jobs, &runs);
	}
	if (r) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		return r == FL_ENOTFOUND || r == FL_EINVAL ? FL_EXIT_NO : FL_EXIT_FAIL;
	}
	if (job)
		printf("job %lld queued again", id);
	else
		printf("%u failed job%s queued again", jobs, jobs == 1 ? "" : "s");
	printf(" with %u failed run%s; the next 'faultline watch' goes on with %s\n", runs,
	       runs == 1 ? "" : "s", jobs == 1 ? "it" : "them");
	return FL_EXIT_OK;
}

/* "retry --failed": the flag taken out of argv, which the store's options then parse. */
static int take_failed(int *argc, char **argv)
{
	int found = 0, k = 2;

	for (int i = 2; i < *argc; i++) {
		if (!strcmp(argv[i], "--failed"))
			found = 1;
		else
			argv[k++] = argv[i];
	}
	*argc = k;
	argv[k] = NULL;
	return found;
}

static int cmd_queue(int argc, char **argv)
{
	static const char *const subs[] = {"show", "enable", "retry", NULL};
	struct fl_store_opts o;
	const char *path, *machine = NULL, *job = NULL;
	fl_store *st;
	int code, sub, failed = 0;

	if ((code = fl_subcommand(argc, argv, &fl_cmd_queue, subs, &sub)))
		return code;
	if (sub == 2)
		failed = take_failed(&argc, argv);
	if ((code = fl_store_opts_parse(argc, argv, &fl_cmd_queue, FL_STORE_OPTS_JSON, &o)))
		return code;
	if (sub == 1) {
		if (optind + 1 != argc || o.json)
			return fl_usage(&fl_cmd_queue);
		machine = argv[optind];
	} else if (sub == 2) {
		if (optind + !failed != argc || o.json) {
			fl_arg_error("queue", "retry takes one JOB or --failed%s",
				     o.json ? ", and no --json" : "");
			return fl_usage(&fl_cmd_queue);
		}
		job = failed ? NULL : argv[optind];
	} else if (optind != argc) {
		return fl_usage(&fl_cmd_queue);
	}
	if ((code = fl_store_opts_path(&o, &path)))
		return code;
	if (fl_store_open(&st, path, 0)) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		fl_config_free(o.cfg);
		return FL_EXIT_FAIL;
	}
	if (sub == 2) {
		code = retry(st, job);
	} else if (machine) {
		code = fl_store_machine_enable(st, machine) ? FL_EXIT_FAIL : FL_EXIT_OK;
		if (code)
			fprintf(stderr, "faultline: %s\n", fl_error_last());
		else
			printf("machine '%s' is back in the pool\n", machine);
	} else if (o.json) {
		show_json(st);
	} else {
		show_machines(st);
		show_jobs(st);
	}
	fl_store_free(st);
	fl_config_free(o.cfg);
	return code;
}

const struct fl_command fl_cmd_queue = {
    .name = "queue",
    .run = cmd_queue,
    .usage = "queue show|enable|retry [MACHINE | JOB | --failed] [--config F | --db PATH] [--json]",
    .summary = "show the watch service's jobs and machines, put a machine back in the pool, retry "
	       "failed jobs",
    .help = "subcommands:\n"
	    "  show           the machines of the pool and the jobs running, queued,\n"
	    "                 waiting or failed\n"
	    "  enable MACHINE put a machine that left the pool back into it\n"
	    "  retry JOB      queue a failed job again, with the runs that failed it\n"
	    "                 (their attempts start over): after a broken benchmark\n"
	    "                 command is fixed, say; the next 'faultline watch' steps it\n"
	    "\n"
	    "options:\n"
	    "  --failed       retry: every failed job instead of one\n"
	    "  --config F     take the store's path from this configuration's store.path\n"
	    "  --db PATH      the SQLite store itself (no configuration read)\n"
	    "  --json         show: the machines, the job counts by state and the jobs\n"
	    "                 running, queued, waiting or failed as one JSON object\n"
	    "  -h, --help     this help\n"
	    "\n"
	    "Exit: 0 shown, enabled or queued again, 1 no such machine or job, or a job\n"
	    "that has not failed, 2 usage error, 4 the store cannot be read.\n",
};
