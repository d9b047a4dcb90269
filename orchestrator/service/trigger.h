/*
 * trigger.h - the first stage of the watch service: new tags of the
 * configured trees become compare jobs, one per (benchmark, machine).
 *
 * A tree is fetched (libgit2; a local path is opened in place and read as
 * it is), its tags matching any of its patterns are listed in version
 * order, and each tag not yet in the store's watch_tags is scheduled once:
 * a tag is never scheduled twice, whatever happens later.
 *
 * Baseline: "previous-tag" (the default) is the closest earlier tag in
 * version order that is an ancestor of the tag (v6.2-rc3 -> v6.2-rc2,
 * v6.2-rc1 -> v6.1; a stable v6.1.5 is not an ancestor of v6.2-rc1 and is
 * passed over), so a bisection has a path from good to bad;
 * "contained-tag" is the newest tag (version order) of baseline_tree
 * matching baseline_tags whose commit the tag contains (linux-next's
 * next-YYYYMMDD -> the mainline tag it is built on), the baseline tree's
 * tags read from its repository and their commits looked for in this
 * tree's (one repository or two); any other value is a revision every tag
 * is compared with. A tag without one is recorded as no-baseline.
 *
 * Branch heads (trees[].branch): the branch's head, when not recorded
 * yet, is recorded as "<branch>@<sha12>" (kind head) and compared with the
 * last head of the branch recorded, or for the first with branch_base
 * (without one the first is recorded untested, as the start). At most one
 * head is scheduled per branch_interval, from the time of the last
 * scheduled one in the store: the newest head then, those pushed in
 * between inside its range. A last head that is not an ancestor of the new
 * one (force-pushed) gives way to the merge base of the new head and
 * branch_base (the old head without one), said in the row's note.
 *
 * The first pass over a tree (no tag of it in the store) schedules only the
 * newest trees[].backfill tags (default 1) and records the older ones as
 * seen (skipped): watching mainline must not start with its whole history.
 */
#ifndef FL_TRIGGER_H
#define FL_TRIGGER_H

#include "lib/buf.h"
#include "service/service.h"

struct fl_config;
struct fl_tree_conf;

#include <stddef.h>

/* One pass over cfg->trees[i]; fetch 0 reads a clone as it is. Adds to *scheduled. */
int fl_trigger_tree(struct fl_service *svc, fl_store *st, size_t i, int fetch, unsigned *scheduled);
/* 1 for a tree whose tags' bases are another tree's tags (contained-tag
 * with a baseline_tree): passed after the others, so those are fetched first. */
int fl_trigger_later(const struct fl_tree_conf *t);
/* One pass over every tree. */
int fl_trigger_pass(struct fl_service *svc, fl_store *st, int fetch, unsigned *scheduled);

/*
 * The tree's tag patterns that match none of its tags ("release-*" on a
 * tree of v* tags: nothing would ever be tested), one line each in *out
 * (appended): the pattern's place in the configuration, the pattern and
 * the newest few tags the tree has. *unmatched: how many. Said by every
 * pass of watch and by "config check" for a tree on this host.
 */
int fl_trigger_unmatched(fl_repo *repo, const struct fl_config *cfg, const struct fl_tree_conf *t,
			 fl_buf *out, unsigned *unmatched);

/*
 * The baseline of tag i among tags in version order: the closest j < i with
 * is_ancestor(ctx, j, i); -1 when there is none.
 */
long fl_trigger_previous(size_t i, int (*is_ancestor)(void *ctx, size_t j, size_t i), void *ctx);

#endif
