/*
 * dispatch/boxes.c - the box queue of machine/boxes.h over the store
 * (store/agent.h): what the baremetal backend publishes and waits on is
 * what the agent API (agentapi.c) hands to the boxes and takes back, in
 * the tables they share. A thin mapping: the store's rows to the
 * backend's views.
 */
#include "dispatch/priv.h"
#include "lib/error.h"
#include "store/agent.h"

#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s)
{
	return s ? fl_xstrdup(s) : NULL;
}

static int box(void *ctx, const char *name, struct fl_box_seen *out)
{
	struct fl_box b;
	int r = fl_store_box_get(ctx, name, &b);

	memset(out, 0, sizeof(*out));
	if (r)
		return r;
	*out = (struct fl_box_seen){dup_or_null(b.state), dup_or_null(b.reason),
				    dup_or_null(b.facts), b.last_seen_ms};
	fl_box_release(&b);
	return 0;
}

static struct fl_agent_file file_row(const struct fl_box_file *f)
{
	return (struct fl_agent_file){f->path, f->sha256, f->size};
}

static int publish(void *ctx, const struct fl_box_job_new *j, int64_t *id)
{
	struct fl_agent_job_new row = {j->box,
				       j->run_id,
				       j->mode,
				       j->job,
				       j->cmdline,
				       file_row(&j->kernel),
				       file_row(&j->initrd),
				       j->created_ms,
				       j->deadline_ms};

	return fl_store_agent_job_add(ctx, &row, id);
}

static int job(void *ctx, int64_t id, struct fl_box_job *out)
{
	struct fl_agent_job j;
	int r = fl_store_agent_job_get(ctx, id, &j);

	memset(out, 0, sizeof(*out));
	if (r)
		return r;
	*out = (struct fl_box_job){.state = dup_or_null(j.state),
				   .live = fl_agent_job_live(&j),
				   .progress = dup_or_null(j.progress),
				   .message = dup_or_null(j.message),
				   .created_ms = j.created_ms,
				   .fetched_ms = j.fetched_ms,
				   .progress_ms = j.progress_ms};
	fl_agent_job_release(&j);
	return 0;
}

static int end(void *ctx, int64_t id, const char *state, const char *message, int64_t now_ms)
{
	return fl_store_agent_job_end(ctx, id, state, message, -1, now_ms);
}

static int miss(void *ctx, const char *name, int max, const char *why, int *offline)
{
	return fl_store_box_miss(ctx, name, max, why, offline);
}

static int records(void *ctx, int64_t id, char **text, size_t *len)
{
	return fl_store_agent_records_text(ctx, id, text, len);
}

static const struct fl_boxes_ops store_boxes = {box, publish, job, end, miss, records};

struct fl_boxes fl_dispatch_boxes(fl_store *st)
{
	return (struct fl_boxes){&store_boxes, st};
}
