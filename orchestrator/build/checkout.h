/*
 * checkout.h - a directory that holds one commit's files, moved from commit
 * to commit by writing only the files that differ (a libgit2 tree-to-tree
 * diff: no index, no HEAD, nothing of the repository's own work tree is
 * touched). Build slots and the command backend's private checkouts are
 * such directories. A first move (into an empty directory: Linux's 78k
 * files) writes in up to 4 threads, one per CPU.
 *
 * The commit a directory holds is recorded in a state file kept outside it
 * (the caller names it). The file is removed while a move runs, so a move
 * that was interrupted (a crash, a full disk) starts over from an empty
 * directory instead of trusting half-written files. Files the directory
 * gained that git does not track (build outputs) are left alone.
 */
#ifndef FL_CHECKOUT_H
#define FL_CHECKOUT_H

#include "build/repo.h"

/*
 * Moves dir to commit sha (full hex) of repo; *written counts the files
 * written or removed (may be NULL). FL_ENOTFOUND for an unknown commit,
 * FL_EIO for file-system trouble, with the path in the message.
 */
int fl_checkout(fl_repo *repo, const char *dir, const char *state, const char *sha,
		unsigned *written);

/* The commit (full hex) the state file records, "" when there is none. */
void fl_checkout_head(const char *state, char sha[41]);

#endif
