/*
 * service.h - the watch service: what its stages share. The pipeline's
 * order, its job kinds and their keys are service/pipeline.h's:
 *
 *   trigger -> compare -> bisect -> revert -> report
 *   (run jobs under compare, bisect and revert)
 *
 *   trigger.c    new tags and branch heads of a tree -> one compare job per (benchmark, machine)
 *   detect.c     compare: tag and baseline interleaved -> regressions, improvements
 *   autobisect.c bisect: the engine (bisect.h) between baseline and tag, one run job a step
 *   revert.c     revert: the culprit reverted on the tag (libgit2), measured
 *   report.c     report: the mail, stored in the outbox
 *   queue.c      steps the coordinators, runs the run jobs on the machines
 *
 * Everything a step decides is in the store before the step returns, so
 * the service can be killed at any moment and started again.
 */
#ifndef FL_SERVICE_H
#define FL_SERVICE_H

#include "service/queue.h"
#include "build/repo.h"

#include <stddef.h>

struct fl_config;

struct fl_service {
	const struct fl_config *cfg;
	fl_repo **repos; /* one per cfg->trees entry, opened on first use */
	int *local;	 /* the tree is a local path opened in place */
};

void fl_service_init(struct fl_service *s, const struct fl_config *cfg);
void fl_service_release(struct fl_service *s);
/* The tree's repository in the service's thread. */
int fl_service_repo(struct fl_service *s, const char *tree, fl_repo **out, int *local);
/* The store's row of a commit of the repository (added with its subject,
 * author and time when new): *id. */
int fl_service_commit_id(fl_store *st, fl_repo *repo, int64_t tree_id, const char *sha,
			 int64_t *id);

/* Job steps, one per stage (see queue.h for their contract); ctx: the fl_service. */
int fl_detect_step(void *svc, fl_store *st, const struct fl_job *job);
int fl_autobisect_step(void *svc, fl_store *st, const struct fl_job *job);
int fl_revert_step(void *svc, fl_store *st, const struct fl_job *job);
int fl_report_step(void *svc, fl_store *st, const struct fl_job *job);
int fl_try_step(void *svc, fl_store *st, const struct fl_job *job);

#endif
