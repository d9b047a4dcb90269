/*
 * revert.h - the revert check: does undoing the culprit on top of the bad
 * tag bring the throughput back?
 *
 * fl_revert_commit() reverts a commit onto another one with libgit2 (an
 * in-memory index, no work tree, no HEAD or branch moved) and writes the
 * result as a commit kept alive by a private ref under refs/faultline/.
 * The commit is deterministic (author and date taken from the commit it is
 * made on), so doing it again after a crash gives the same sha. When the
 * revert does not apply cleanly the conflicting files are named, as a
 * kernel developer would have to find by hand.
 *
 * The revert step of the watch service measures the revert commit against
 * the bad tag and the baseline, interleaved on the regression's machine,
 * and stores a verdict: restores (better than the tag and level with the
 * baseline, or not worse than it by min_change where the noise leaves that
 * open), partial (better than the tag, still worse than the baseline),
 * no-effect, unclear (the runs budget ran out), untestable.
 */
#ifndef FL_REVERT_H
#define FL_REVERT_H

#include "build/repo.h"

/*
 * Returns 0 with the revert commit in sha (and ref pointing at it), 1 when
 * it conflicts (*conflicts: the files, one per line, caller frees), or a
 * negative FL_E* code.
 */
int fl_revert_commit(fl_repo *repo, const char *culprit, const char *onto, const char *ref,
		     char sha[41], char **conflicts);

#endif
