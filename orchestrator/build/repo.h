/*
 * repo.h - kernel trees as git repositories (libgit2): open a local one or
 * keep a bare clone under var/trees/<name>, fetch with tags, resolve
 * revisions to commits, list tags in version order, the range of a
 * bisection as a graph, and read commit metadata. Every error names the
 * tree and the revision:
 *
 *   tree 'mainline': unknown revision 'v6.1-rc9'
 */
#ifndef FL_REPO_H
#define FL_REPO_H

#include "lib/dag.h"

#include <stddef.h>
#include <stdint.h>

typedef struct fl_repo fl_repo;
struct git_repository;

/* Opens the repository at path (work tree or bare); name is for messages. */
int fl_repo_open(fl_repo **out, const char *name, const char *path);
/* The repository dir is in, found as git finds it from a subdirectory of
 * a work tree (or a bare repository, or a linked worktree); dir is its
 * name in messages. FL_ENOTFOUND: "DIR is not a git repository". */
int fl_repo_discover(fl_repo **out, const char *dir);
/*
 * The tree's bare clone in var/trees/<name>: cloned from url on first use,
 * opened after. Does not fetch an existing clone; see fl_repo_fetch().
 */
int fl_repo_clone(fl_repo **out, const char *name, const char *url, const char *var);
/*
 * A configured tree: a url that is an existing local directory is opened in
 * place (never fetched, never written to except refs/faultline/); anything
 * else is the bare clone (fl_repo_clone). *local says which.
 */
int fl_repo_open_tree(fl_repo **out, const char *name, const char *url, const char *var,
		      int *local);
/* The same where it is on this host already (a local directory or an
 * existing clone), never cloned or fetched: FL_ENOTFOUND when it is not. */
int fl_repo_open_existing(fl_repo **out, const char *name, const char *url, const char *var);
/* The same, and a bare clone is fetched first: what one-shot commands want. */
int fl_repo_open_current(fl_repo **out, const char *name, const char *url, const char *var);
/*
 * Fetches one branch or tag (name) of another repository at url into ref
 * (refs/faultline/...) and resolves it to sha: a fix a developer names by
 * its git URL. Only http://, https:// and git:// URLs (no local path, no
 * file:// or ssh); at most timeout_ms of transfer. FL_EINVAL for a URL or
 * name refused, FL_ENOTFOUND when the repository has no such branch or
 * tag, FL_EIO (or FL_ETIMEOUT) when the fetch fails.
 */
int fl_repo_fetch_url(fl_repo *r, const char *url, const char *name, const char *ref,
		      int64_t timeout_ms, char sha[41]);
/* Fetches every branch and tag from origin into the bare clone. A clone
 * or fetch logs its progress (objects and bytes received) at most every
 * 5 s, and its end; errors name the tree and the URL. */
int fl_repo_fetch(fl_repo *r);
void fl_repo_free(fl_repo *r);

const char *fl_repo_name(const fl_repo *r);
struct git_repository *fl_repo_git(fl_repo *r);

/* Any revision git understands (tag, annotated tag, branch, short sha) to a commit's hex sha. */
int fl_repo_resolve(fl_repo *r, const char *rev, char sha[41]);

/* Tags matching the fnmatch(3) pattern, oldest version first; free with fl_repo_strv_free. */
int fl_repo_tags(fl_repo *r, const char *pattern, char ***tags, size_t *n);
/* Version order, v6.1-rc1 < v6.1-rc2 < v6.1 < v6.10: fl_version_cmp (lib/version.h). */
int fl_repo_version_cmp(const char *a, const char *b);

/* The best common ancestor of two revisions (git merge-base), FL_ENOTFOUND for none. */
int fl_repo_merge_base(fl_repo *r, const char *a, const char *b, char sha[41]);

/* 1 when commit ancestor (full hex) is reachable from descendant (or is it), else 0. */
int fl_repo_is_ancestor(fl_repo *r, const char *ancestor, const char *descendant);

/*
 * The paths that differ between the trees of commits from and to (full hex):
 * added, removed or changed files, in git's path order.
 * Free with fl_repo_strv_free.
 */
int fl_repo_changed_paths(fl_repo *r, const char *from, const char *to, char ***paths, size_t *n);

/*
 * The range git bisect searches, bad ^goods, as a graph (lib/dag.h):
 * the commits bad reaches and no good reaches, each with its parents; a
 * parent a good reaches is an outside node. Any revisions; every good must
 * be an ancestor of bad (FL_EINVAL naming it), FL_ENOTFOUND for an unknown
 * one. fl_dag_release() frees it.
 */
int fl_repo_range(fl_repo *r, const char *bad, const char *const *goods, size_t ngoods,
		  struct fl_dag *g);
void fl_repo_strv_free(char **v, size_t n);

struct fl_repo_commit {
	char sha[41];
	char *subject; /* first line of the message */
	char *author;  /* "Name <email>" */
	int64_t time;  /* author time, seconds since the epoch */
};
int fl_repo_commit(fl_repo *r, const char *rev, struct fl_repo_commit *c);
/*
 * How many commits the first-parent line of rev holds, rev included
 * (git rev-list --first-parent --count): its place in the history, what
 * the pages order a tree's commits by (store.h's fl_commit_info.depth).
 * Walks the line: on Linux's mainline about a hundred thousand commits.
 */
int fl_repo_depth(fl_repo *r, const char *rev, int64_t *depth);
void fl_repo_commit_release(struct fl_repo_commit *c);

/* The commit's committer ("Name <email>") and whole message (caller frees both). */
int fl_repo_commit_people(fl_repo *r, const char *rev, char **committer, char **message);
/* The text of the file at path in commit rev (caller frees): FL_ENOTFOUND
 * when the commit has no such file. */
int fl_repo_blob(fl_repo *r, const char *rev, const char *path, char **text, size_t *len);
/* The commit's change against its first parent as a unified diff, the way
 * "git show --format=" prints it (caller frees). */
int fl_repo_commit_diff(fl_repo *r, const char *rev, char **patch);

#endif
