/*
 * machine/baremetal.c - the baremetal backend of fl_machine_run()
 * (machine.h): a box whose agent daemon ("fl-agent daemon") kexecs into the
 * kernel under test and, back in its own kernel, uploads the records its
 * agent left on the box's disk. docs/baremetal.md has the whole flow.
 *
 * One run, its kernel and run row ready (the dispatcher's): the initramfs
 * with fl-agent-static and the job, exactly as a libvirt guest gets it
 * (machine.c); the box's turn (one run at a time per box, across
 * processes: hostslot.h); an agent job published on the box queue
 * (boxes.h) with the files' SHA-256 and a deadline. Then this waits,
 * reading the job's state, while the agent API (dispatch/agentapi.c,
 * possibly in another thread) hands the job to the box and takes its
 * uploads. Once the box has confirmed the last record, the records are read
 * as a console is (console.h): classified and handed to the sink like a
 * guest's.
 *
 * Nothing waits forever: at the deadline the job expires (a late upload is
 * refused), the run is classified timeout, the box counts a miss, and after
 * max_misses in a row the box is offline: its runs end infra-error at once
 * until its daemon asks for work again. The caller (the watch service's
 * queue) queues the job again as it does for any timeout.
 *
 * boot: current runs the benchmark on the box's running kernel, without
 * kexec: no build, no initramfs, no revision.
 */
#include "machine/machine.h"
#include "machine/priv.h"
#include "machine/boxes.h"
#include "lib/buf.h"
#include "config/config.h"
#include "machine/console.h"
#include "lib/error.h"
#include "machine/hostslot.h"
#include "lib/log.h"
#include "lib/time.h"

#include "proto/auth.h"
#include "lib/cancel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define POLL_MS 250
/* Past the agent's watchdog and two boots: the box polls, downloads, uploads. */
#define MARGIN_MS 60000

struct bm_run {
	const struct fl_run_req *req;
	const struct fl_boxes *q; /* the box queue */
	const char *box;
	int current; /* boot: current: no kernel, no initramfs */
	struct fl_run_watch w;
	struct fl_machine_files f;
	char *cmdline, *records_path;
	int64_t agent_job, deadline_ms, deadline_wall;
	fl_hostslot *slot;
};

static int64_t deadline(const struct fl_run_req *req)
{
	const struct fl_machine_conf *m = req->machine;

	if (req->deadline_ms > 0)
		return req->deadline_ms;
	/* timeout written in the file is the deadline; otherwise derived */
	if (fl_config_where(req->cfg, &m->timeout_ms))
		return m->timeout_ms;
	return 2 * m->boot_timeout_ms + fl_machine_watchdog_s(req) * 1000 + MARGIN_MS;
}

/* The box queue's answers are the backend's to free (boxes.h). */
void fl_box_job_release(struct fl_box_job *j)
{
	free(j->state);
	free(j->progress);
	free(j->message);
	memset(j, 0, sizeof(*j));
}

void fl_box_seen_release(struct fl_box_seen *b)
{
	free(b->state);
	free(b->reason);
	free(b->facts);
	memset(b, 0, sizeof(*b));
}

/* The kernel command line the box boots with, before its own part (results store, console). */
static char *kernel_cmdline(const struct bm_run *x)
{
	const struct fl_machine_conf *m = x->req->machine;

	if (x->current)
		return fl_xasprintf("fl.job=%s", x->req->job);
	return fl_xasprintf("panic=-1%s fl.job=%s%s%s", x->req->kernel->profile ? " profile=2" : "",
			    x->req->job, m->cmdline ? " " : "", m->cmdline ? m->cmdline : "");
}

static int file_of(const char *path, char *sha, struct fl_box_file *f)
{
	uint64_t size;

	if (fl_sha256_file(path, sha, &size))
		return fl_error_set(FL_EIO, "%s: %s", path, strerror(errno));
	*f = (struct fl_box_file){path, sha, (int64_t)size};
	return 0;
}

/* The box's facts, as it last reported them ("{}" before it ever did). */
static char *box_facts(struct bm_run *x)
{
	struct fl_box_seen b = {0};
	char *facts;

	if (x->q->ops->box(x->q->ctx, x->box, &b))
		return fl_xstrdup("{}");
	facts = b.facts ? fl_xstrdup(b.facts) : fl_xstrdup("{}");
	fl_box_seen_release(&b);
	return facts;
}

/* The run's guest is the box as it reported itself; its facts are the machine's too. */
static int note_facts(struct bm_run *x)
{
	const struct fl_run_sink *sink = x->req->sink;
	char *facts = box_facts(x);
	struct fl_machine_guest g = {NULL, NULL, facts, x->records_path, x->w.wall0};
	int r = sink->guest(sink->arg, &g);

	if (!r && strcmp(facts, "{}"))
		r = sink->facts(sink->arg, facts);
	free(facts);
	return r;
}

/* The agent job: what the box downloads and boots, and until when. */
static int publish(struct bm_run *x)
{
	char ksha[FL_AUTH_HEX], isha[FL_AUTH_HEX];
	struct fl_box_job_new j = {.box = x->box,
				   .run_id = x->req->run_id,
				   .mode = x->current ? "current" : "kexec",
				   .job = x->req->job,
				   .cmdline = x->cmdline};
	int r;

	if (!x->current && ((r = file_of(x->req->kernel->image, ksha, &j.kernel)) ||
			    (r = file_of(x->f.initrd, isha, &j.initrd))))
		return r;
	fl_run_watch_begin(&x->w);
	j.created_ms = x->w.wall0;
	j.deadline_ms = x->deadline_wall = x->w.wall0 + x->deadline_ms;
	if ((r = x->q->ops->publish(x->q->ctx, &j, &x->agent_job)))
		return r;
	fl_info("%s: agent job %lld for box %s (%s%s), deadline %lld s", x->w.name,
		(long long)x->agent_job, x->box, j.mode, x->current ? ": the box's own kernel" : "",
		(long long)(x->deadline_ms / 1000));
	return note_facts(x);
}

/* "box 'b1' never asked for the job (last heard from 40 s before the deadline)" */
static char *what_box_did(struct bm_run *x, const struct fl_box_job *j)
{
	struct fl_box_seen b = {0};
	char *s;

	if (j->fetched_ms)
		return fl_xasprintf(
		    "box '%s' took the job %.0f s after it was published%s%s%s and sent no "
		    "results in time",
		    x->box, (double)(j->fetched_ms - j->created_ms) / 1000,
		    j->progress_ms ? ", said '" : "", j->progress_ms ? j->state : "",
		    j->progress_ms ? "'" : "");
	if (x->q->ops->box(x->q->ctx, x->box, &b) || !b.last_seen_ms)
		s = fl_xasprintf("box '%s' never asked for the job (its daemon was never heard "
				 "from)",
				 x->box);
	else
		s = fl_xasprintf("box '%s' never asked for the job (last heard from %.0f s before "
				 "the deadline)",
				 x->box, (double)(x->deadline_wall - b.last_seen_ms) / 1000);
	fl_box_seen_release(&b);
	return s;
}

/* The deadline passed: the job expires, the box misses, the run is a timeout. */
static int timed_out(struct bm_run *x, const struct fl_box_job *j)
{
	const struct fl_console_seen *seen = fl_console_seen(x->w.console);
	unsigned max = x->req->machine->max_misses;
	char *did = what_box_did(x, j), *detail, *why;
	int offline = 0;

	fl_console_finish(x->w.console);
	detail = fl_xasprintf("deadline of %lld s passed after %u of %u points: %s",
			      (long long)(x->deadline_ms / 1000), seen->points,
			      fl_machine_points(x->req->bench), did);
	why = fl_xasprintf("%u missed deadline%s in a row", max, max == 1 ? "" : "s");
	if (x->q->ops->miss(x->q->ctx, x->box, (int)max, why, &offline))
		fl_warn("box %s: %s", x->box, fl_error_last());
	else if (offline)
		fl_warn("box %s is offline after %s: %s", x->box, why, did);
	free(why);
	free(did);
	return fl_run_watch_finish(&x->w, FL_RUN_TIMEOUT, detail);
}

/* The records the box uploaded, as a console: kept in a file and fed in seq order. */
static int read_records(struct bm_run *x)
{
	char *text;
	size_t len;
	FILE *f;
	int r = x->q->ops->records(x->q->ctx, x->agent_job, &text, &len);

	if (r)
		return r;
	if ((f = fopen(x->records_path, "we"))) {
		fwrite(text, 1, len, f);
		fclose(f);
	}
	fl_run_watch_feed(&x->w, text, len);
	free(text);
	return 0;
}

/* Said once per change: who has the job, what the box says. */
static void say_progress(struct bm_run *x, const struct fl_box_job *j, char **last)
{
	int says = j->progress && (!strcmp(j->state, "booting") || !strcmp(j->state, "running"));
	char *now = fl_xasprintf("%s%s%s", j->state, says ? ": " : "", says ? j->progress : "");

	if (!*last || strcmp(*last, now))
		fl_info("%s: box %s: job %lld %s", x->w.name, x->box, (long long)x->agent_job, now);
	free(*last);
	*last = now;
}

/* Waits for the box: 0 with *j at its end (uploaded, failed, ...), or 1 interrupted. */
static int wait_box(struct bm_run *x, struct fl_box_job *j, int *passed)
{
	struct timespec tick = {0, POLL_MS * 1000000L};
	char *last = NULL;
	int r;

	*passed = 0;
	for (;;) {
		if ((r = x->q->ops->job(x->q->ctx, x->agent_job, j)))
			break;
		say_progress(x, j, &last);
		if (!j->live)
			break;
		if (fl_cancel_runs() || fl_wall_ms() >= x->deadline_wall) {
			int interrupted = fl_cancel_runs();

			r = x->q->ops->end(
			    x->q->ctx, x->agent_job, interrupted ? "cancelled" : "expired",
			    interrupted ? "interrupted" : "deadline passed", fl_wall_ms());
			if (r == FL_EEXISTS) { /* it ended just now: read that */
				fl_box_job_release(j);
				continue;
			}
			if (!r && interrupted)
				r = 1;
			*passed = !interrupted;
			break;
		}
		fl_box_job_release(j);
		nanosleep(&tick, NULL);
	}
	free(last);
	return r;
}

/* The run is the sink's: its end is handed over on every path. */
static int run_box(struct bm_run *x)
{
	struct fl_box_job j = {0};
	struct fl_box_seen b = {0};
	char *slot;
	int passed, r;

	if (!x->q->ops->box(x->q->ctx, x->box, &b) && !strcmp(b.state, "offline")) {
		char *why = fl_xasprintf("box '%s' is offline: %s; it is back once its daemon "
					 "asks for work",
					 x->box, b.reason ? b.reason : "missed deadlines");

		fl_box_seen_release(&b);
		return fl_run_watch_finish(&x->w, FL_RUN_INFRA_ERROR, why);
	}
	fl_box_seen_release(&b);
	if (!x->current && fl_machine_initramfs(x->req, &x->f))
		return fl_run_watch_infra(&x->w, "preparing the initramfs");
	if (!x->f.dir && fl_machine_run_dir(x->req, &x->f.dir))
		return fl_run_watch_infra(&x->w, "run directory");
	x->records_path = fl_xasprintf("%s/records.log", x->f.dir);
	slot = fl_xasprintf("baremetal:%s", x->box);
	r = fl_hostslot_acquire(&x->slot, x->req->cfg->var, slot, 1, x->w.name, fl_cancel_runs);
	free(slot);
	if (r == 1)
		return fl_run_watch_finish(&x->w, FL_RUN_INFRA_ERROR, fl_xstrdup("interrupted"));
	if (r)
		return fl_run_watch_infra(&x->w, "box slot");
	x->cmdline = kernel_cmdline(x);
	if ((r = publish(x)))
		return fl_run_watch_infra(&x->w, "publishing the agent job");
	r = wait_box(x, &j, &passed);
	if (r < 0) {
		fl_box_job_release(&j);
		return fl_run_watch_infra(&x->w, "store");
	}
	if (r == 1 || (!passed && !strcmp(j.state, "cancelled"))) {
		fl_box_job_release(&j);
		return fl_run_watch_finish(&x->w, FL_RUN_INFRA_ERROR, fl_xstrdup("interrupted"));
	}
	if (!passed && !strcmp(j.state, "failed")) {
		char *why = fl_xasprintf("box '%s' could not run the job: %s", x->box,
					 j.message ? j.message : "(no reason given)");

		fl_box_job_release(&j);
		return fl_run_watch_finish(&x->w, FL_RUN_INFRA_ERROR, why);
	}
	if ((r = read_records(x)) || (r = note_facts(x))) {
		fl_box_job_release(&j);
		return fl_run_watch_infra(&x->w, "store");
	}
	r = passed || strcmp(j.state, "uploaded")
		? timed_out(x, &j)
		: fl_run_watch_end(&x->w, 0, x->deadline_ms, j.message);
	fl_box_job_release(&j);
	return r;
}

static void bm_free(struct bm_run *x)
{
	fl_hostslot_release(x->slot);
	fl_run_watch_release(&x->w);
	fl_machine_files_release(&x->f);
	free(x->cmdline);
	free(x->records_path);
}

/* boot: current, the box's own kernel */
static int own_kernel(const struct fl_machine_conf *m)
{
	return m->boot && !strcmp(m->boot, "current");
}

static int baremetal_run(const struct fl_run_req *req, struct fl_run_result *res)
{
	struct bm_run x = {.req = req, .q = req->boxes, .box = req->machine->name};
	int r;

	x.current = own_kernel(req->machine);
	fl_run_watch_init(&x.w, req, res);
	x.w.replay = 1; /* the box's records come back after its run */
	x.deadline_ms = deadline(req);
	r = run_box(&x);
	bm_free(&x);
	return r;
}

/* A box's topology is what it reports: its facts, which the report adds. */
static void baremetal_describe(const struct fl_machine_conf *m, const struct fl_machine_seen *run,
			       fl_buf *out)
{
	(void)run;
	fl_buf_addf(out, "%s, a bare-metal box (%s)", m->name,
		    own_kernel(m) ? "its own kernel" : "kexec");
}

const struct fl_machine_ops fl_machine_baremetal_ops = {
    .name = "baremetal",
    .run = baremetal_run,
    .describe = baremetal_describe,
    .own_kernel = own_kernel,
    .start_word = "job handed to the box",
    .agent_word = "to the agent's first record",
    .facts_word = "Machine",
    .agent_api = 1,
};
