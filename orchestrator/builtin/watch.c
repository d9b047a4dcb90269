/*
 * builtin/watch.c - "faultline watch": the service. Every tree is fetched
 * each poll interval and its new tags and branch heads scheduled
 * (trigger.c; a tree whose bases are another tree's tags after the
 * others); the job queue
 * (queue.c) runs the comparisons, bisections, revert checks and reports;
 * the outbox mails what was stored, retrying with backoff. With baremetal
 * machines configured, the agent API (agentapi.h) serves their boxes from
 * this process.
 *
 * --once does one pass: the trees are read once, the work that pass (and
 * any left from an interrupted service) makes is done to the end, the
 * outbox is flushed, and the command exits: 0 when everything finished and
 * was mailed, 4 when a tree could not be read, a job failed, a machine left
 * the pool or a report is still waiting for the mail server. Beside other
 * workers of the store, the pass lasts while they have work left.
 * Several workers may share a PostgreSQL store (queue.h).
 *
 * --maildir DIR reads the replies delivered into a Maildir at every poll
 * (each tree's poll, at least once a minute; with --once, first of all) and
 * acts on their #faultline commands (service/inbox.h): their try jobs run
 * in this service and every answer goes to the thread.
 */
#include "dispatch/agentapi.h"
#include "dispatch/dispatch.h"
#include "lib/buf.h"
#include "lib/cancel.h"
#include "builtin/builtin.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/log.h"
#include "machine/machine.h"
#include "lib/mail.h"
#include "service/inbox.h"
#include "service/outbox.h"
#include "service/queue.h"
#include "service/service.h"
#include "store/store.h"
#include "service/trigger.h"
#include "lib/time.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct watch {
	const struct fl_config *cfg;
	struct fl_service svc;
	fl_queue *q;
	int once;
	int64_t *next_poll; /* per tree */
	struct fl_smtp smtp;
	struct fl_outbox box;
	unsigned pending;    /* reports not sent yet */
	unsigned unreadable; /* --once: trees that could not be read */
	const char *maildir; /* --maildir: replies to read */
	int64_t next_mail;   /* monotonic ms of the next read */
};

/* The Maildir's new replies, at most once a minute (and first of all). */
static void poll_mail(struct watch *w)
{
	struct fl_inbox_counts c;
	int64_t now = fl_mono_ms();

	if (!w->maildir || now < w->next_mail)
		return;
	w->next_mail = w->once ? INT64_MAX : now + 60000;
	if (fl_inbox_ingest(&w->svc, fl_queue_store(w->q), w->maildir, &c))
		fl_err("watch: mail: %s", fl_error_last());
	else if (c.acted || c.refused || c.failed)
		fl_info("watch: mail: %u acted on, %u refused, %u failed", c.acted, c.refused,
			c.failed);
}

/* Trees whose poll interval has passed (every tree on the first call). */
static void poll_trees(struct watch *w)
{
	int64_t now = fl_mono_ms();

	for (size_t k = 0; k < 2 * w->cfg->ntrees; k++) {
		size_t i = k % w->cfg->ntrees;
		unsigned scheduled = 0;

		/* trees whose bases are another tree's tags after the others */
		if (fl_trigger_later(&w->cfg->trees[i]) != (k >= w->cfg->ntrees))
			continue;
		if (now < w->next_poll[i])
			continue;
		/* said by fl_trigger_tree; the service tries again at the next poll */
		if (fl_trigger_tree(&w->svc, fl_queue_store(w->q), i, 1, &scheduled))
			w->unreadable++;
		w->next_poll[i] =
		    now + (w->cfg->trees[i].poll_ms > 0 ? w->cfg->trees[i].poll_ms : 600000);
		if (w->once)
			w->next_poll[i] = INT64_MAX;
	}
}

static void flush_outbox(struct watch *w)
{
	struct fl_report *due;
	unsigned sent, failed;
	size_t n;

	if (!w->cfg->report.smtp)
		return;
	if (fl_outbox_flush(fl_queue_store(w->q), &w->box, (int64_t)time(NULL), &sent, &failed))
		fl_err("outbox: %s", fl_error_last());
	if (!fl_store_reports_due(fl_queue_store(w->q), INT64_MAX, &due, &n)) {
		w->pending = (unsigned)n;
		fl_store_reports_free(due, n);
	}
}

static int64_t next_wake(const struct watch *w)
{
	int64_t wait = 1000, now = fl_mono_ms();

	for (size_t i = 0; i < w->cfg->ntrees; i++)
		if (w->next_poll[i] - now < wait)
			wait = w->next_poll[i] - now;
	return wait > 0 ? wait : 0;
}

/* Whether a machine is pinned to the workers of one host. */
static int pinned(const struct fl_config *cfg)
{
	for (size_t i = 0; i < cfg->nmachines; i++)
		if (cfg->machines[i].worker_host)
			return 1;
	return 0;
}

/* The loop; returns the exit code. */
static int serve(struct watch *w)
{
	struct fl_queue_status s = {0};
	struct fl_log_repeat status = {0};
	int64_t last_status = fl_mono_ms();

	for (;;) {
		poll_mail(w);
		poll_trees(w);
		if (fl_queue_tick(w->q))
			fl_err("queue: %s", fl_error_last());
		flush_outbox(w);
		fl_queue_status(w->q, &s);
		if (fl_cancel_requested()) {
			if (s.running) {
				fl_info(
				    "watch: stopping on signal %d; %zu run%s in flight %s redone "
				    "at the next start",
				    fl_cancel_requested(), s.running, FL_S(s.running),
				    s.running == 1 ? "is" : "are");
				fflush(NULL);
				_exit(FL_EXIT_OK); /* the store is consistent: as after a crash */
			}
			fl_info("watch: stopping on signal %d", fl_cancel_requested());
			fl_info_reset(&status);
			return FL_EXIT_OK;
		}
		/* one pass: until nothing is left that this worker or the
		 * store's other live workers can do */
		if (w->once && !s.running && !fl_queue_others_busy(&s))
			break;
		/* each minute when it changed, every 10 minutes when not: a kernel
		 * build of 13 minutes is not 13 times the same line */
		if (fl_mono_ms() - last_status >= 60000) {
			fl_info_changed(&status, 600000,
					"watch: %zu job%s to do, %zu run%s in flight, %u report%s to send",
					s.live, FL_S(s.live), s.running, FL_S(s.running), w->pending,
					FL_S(w->pending));
			last_status = fl_mono_ms();
		}
		fl_queue_wait(w->q, next_wake(w));
	}
	if (s.live)
		fl_err("watch: %zu job%s cannot go on (%zu run%s wait%s for machines out of the "
		       "pool%s)",
		       s.live, FL_S(s.live), s.blocked, FL_S(s.blocked), s.blocked == 1 ? "s" : "",
		       pinned(w->cfg) ? " or pinned to a host without a live worker" : "");
	if (s.failed)
		fl_err("watch: %zu job%s failed (above); once the cause is fixed, 'faultline queue "
		       "retry --failed' queues %s again",
		       s.failed, FL_S(s.failed), s.failed == 1 ? "it" : "them");
	if (w->pending)
		fl_warn("watch: %u report%s %s not sent yet; the next 'faultline watch' retries",
			w->pending, FL_S(w->pending), w->pending == 1 ? "is" : "are");
	if (w->unreadable)
		fl_err("watch: %u of %zu tree%s could not be read", w->unreadable, w->cfg->ntrees,
		       FL_S(w->cfg->ntrees));
	fl_info_reset(&status);
	return s.live || s.failed || w->pending || w->unreadable ? FL_EXIT_FAIL : FL_EXIT_OK;
}

static int parse(int argc, char **argv, const char **config, int *once, const char **maildir)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"once", no_argument, NULL, 'o'},
	    {"maildir", required_argument, NULL, 'm'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	optind = 1;
	while ((c = fl_getopt(argc, argv, "", opts)) != -1) {
		if (c == 'c')
			*config = optarg;
		else if (c == 'o')
			*once = 1;
		else if (c == 'm')
			*maildir = optarg;
		else
			return FL_EINVAL; /* '?': fl_getopt said what is wrong */
	}
	if (optind == argc)
		return 0;
	return fl_arg_error("watch", "takes no operand, got '%s'", argv[optind]);
}

static int cmd_watch(int argc, char **argv)
{
	struct watch w = {0};
	struct fl_config *cfg;
	struct fl_queue_opts qo;
	fl_agentapi *api = NULL;
	const char *config = NULL;
	int code;

	if (parse(argc, argv, &config, &w.once, &w.maildir))
		return fl_usage(&fl_cmd_watch);
	if ((code = fl_load_config(&cfg, config)))
		return code;
	w.cfg = cfg;
	fl_service_init(&w.svc, cfg);
	qo = (struct fl_queue_opts){.cfg = cfg, .ctx = &w.svc};
	if (fl_queue_open(&w.q, &qo) || fl_agentapi_start_for(&api, cfg, NULL)) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		fl_queue_free(w.q);
		fl_service_release(&w.svc);
		fl_config_free(cfg);
		return FL_EXIT_FAIL;
	}
	/* Guests and volumes that a faultline process of this host left when it died. */
	if (fl_dispatch_reap_stale(cfg, fl_queue_store(w.q)) < 0)
		fl_warn("stale runs: %s", fl_error_last());
	w.next_poll = fl_xcalloc(cfg->ntrees + 1, sizeof(*w.next_poll));
	fl_outbox_init(&w.box, &w.smtp, cfg, fl_queue_worker(w.q));
	fl_info("watch: %zu tree%s, %zu machine%s, %zu benchmark%s; store %s%s", cfg->ntrees,
		FL_S(cfg->ntrees), cfg->nmachines, FL_S(cfg->nmachines), cfg->nbenchmarks,
		FL_S(cfg->nbenchmarks), cfg->store.path, w.once ? "; one pass" : "");
	/* SIGHUP too; runs in flight are left to the next start (serve()) */
	fl_cancel_catch(FL_CANCEL_HUP | FL_CANCEL_KEEP_RUNS);
	code = serve(&w);
	fl_queue_free(w.q); /* waits for the runs in flight, whose boxes need the agent API */
	fl_agentapi_stop(api);
	fl_service_release(&w.svc);
	free(w.next_poll);
	fl_config_free(cfg);
	return code;
}

const struct fl_command fl_cmd_watch = {
    .name = "watch",
    .run = cmd_watch,
    .usage = "watch [--config F] [--once] [--maildir DIR]",
    .summary = "test new tags of the trees, bisect regressions, mail reports (--once: one pass)",
    .help = "options:\n"
	    "  --config F     the configuration (default: the global --config)\n"
	    "  --once         one pass: read the trees once, finish the work scheduled,\n"
	    "                 flush the outbox and exit\n"
	    "  --maildir DIR  read the replies delivered into this Maildir at every poll\n"
	    "                 and act on their #faultline commands (as 'faultline mail\n"
	    "                 ingest' does)\n"
	    "  -h, --help     this help\n"
	    "\n"
	    "Without --once it runs until SIGINT or SIGTERM. Exit (--once): 0 everything\n"
	    "finished and was mailed, 4 a tree could not be read, a job failed, a machine\n"
	    "left the pool or a report is still waiting for the mail server.\n",
};
