/*
 * checkout.h - a directory that holds one commit's files, moved from commit
 * to commit by writing only the files that differ (a libgit2 tree-to-tree
 * diff: no index, no HEAD, nothing of the repository's own work tree is
 * touched). Build slots and the command backend's private checkouts are
 * such directories; a private git worktree (below) is the other kind, for
 * a command that runs git in it. A first move (into an empty directory: Linux's 78k
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

/*
 * A private worktree of a repository: "git worktree add --detach" in a new
 * directory under $TMPDIR, so that a command run in it finds a .git, a
 * HEAD at the commit and the repository's objects, while the repository's
 * own work tree, index and HEAD are never touched (what "faultline bisect
 * run" runs its CMD in). git runs as a program here: its command line is
 * the stable interface for worktrees, and libgit2 cannot add a detached
 * one. fl_worktree_free removes the directory and git's record of it.
 */
typedef struct fl_worktree fl_worktree;

/* A worktree of repo at commit sha; FL_EIO naming the directory. */
int fl_worktree_add(fl_worktree **out, fl_repo *repo, const char *sha);
/* Moves it to sha (nothing to do when it is there already). */
int fl_worktree_checkout(fl_worktree *wt, const char *sha);
const char *fl_worktree_dir(const fl_worktree *wt);
void fl_worktree_free(fl_worktree *wt);

#endif
