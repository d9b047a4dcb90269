/*
 * checkout.c - incremental materialisation of a commit's tree into a
 * directory, and private git worktrees (see checkout.h).
 */
#include "build/checkout.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "lib/run-command.h"

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *git_msg(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

/* Creates path's file or symlink, making its directory when missing. */
static int create(const char *path, const git_diff_file *f, const void *data, size_t len)
{
	int fd = -1, r = 0;

	for (int tries = 0; tries < 2; tries++) {
		if (f->mode == GIT_FILEMODE_LINK) {
			char *target = fl_xstrndup(data, len);

			fd = symlink(target, path) ? -1 : 0;
			free(target);
		} else {
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
				  f->mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644);
		}
		/* the directory exists for most files: make it only when it does not */
		if (fd >= 0 || errno != ENOENT || fl_mkdir_parent(path))
			break;
	}
	if (fd < 0)
		return fl_error_set(FL_EIO, "cannot write %s: %s", path, strerror(errno));
	if (f->mode == GIT_FILEMODE_LINK)
		return 0;
	if (write(fd, data, len) != (ssize_t)len)
		r = fl_error_set(FL_EIO, "%s: %s", path,
				 errno == ENOSPC ? "disk full" : strerror(errno));
	if (close(fd) && !r)
		r = fl_error_set(FL_EIO, "%s: %s", path, strerror(errno));
	return r;
}

/* Writes a blob at path; replaces what was there unless the directory started empty. */
static int write_blob(git_repository *git, const git_diff_file *f, const char *path, int fresh)
{
	git_blob *blob;
	int r;

	if (git_blob_lookup(&blob, git, &f->id))
		return fl_error_set(FL_EIO, "blob %s: %s", f->path, git_msg());
	if (!fresh)
		unlink(path); /* a symlink is replaced, not written through; a mode is renewed */
	r = create(path, f, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	return r;
}

static int apply_delta(git_repository *git, const char *dir, const git_diff_delta *d, int fresh,
		       unsigned *written)
{
	char *path;
	int r = 0;

	if (d->new_file.mode == GIT_FILEMODE_COMMIT || d->old_file.mode == GIT_FILEMODE_COMMIT)
		return 0; /* submodules are not materialised */
	(*written)++;
	if (d->status == GIT_DELTA_DELETED) {
		path = fl_xasprintf("%s/%s", dir, d->old_file.path);
		if (unlink(path) && errno != ENOENT)
			r = fl_error_set(FL_EIO, "cannot remove %s: %s", path, strerror(errno));
		free(path);
		return r;
	}
	path = fl_xasprintf("%s/%s", dir, d->new_file.path);
	r = write_blob(git, &d->new_file, path, fresh);
	free(path);
	return r;
}

/*
 * A share of a move into an empty directory, for one thread: every delta
 * adds a file, so shares cannot touch the same path (a directory two of
 * them make is fine: mkdir tolerates EEXIST). Each thread opens the
 * repository itself: libgit2 objects are not shared between threads.
 */
struct share {
	const char *gitdir, *dir;
	const git_diff_delta **deltas;
	size_t n;
	unsigned written;
	int r;
	char *error;
	pthread_t thread;
};

static void *write_share(void *arg)
{
	struct share *s = arg;
	git_repository *git;

	if (git_repository_open(&git, s->gitdir)) {
		s->r = fl_error_set(FL_EIO, "%s: %s", s->gitdir, git_msg());
	} else {
		for (size_t i = 0; !s->r && i < s->n; i++)
			s->r = apply_delta(git, s->dir, s->deltas[i], 1, &s->written);
		git_repository_free(git);
	}
	if (s->r)
		s->error = fl_xstrdup(fl_error_last());
	return NULL;
}

/* Threads for a first checkout (tens of thousands of files), up to 4. */
static unsigned share_count(size_t deltas)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (deltas < 1024 || cpus < 2)
		return 1;
	return cpus > 4 ? 4 : (unsigned)cpus;
}

/* Writes every delta of diff into the empty dir, in shares of consecutive paths. */
static int write_fresh(git_repository *git, const char *dir, git_diff *diff, unsigned *count)
{
	size_t n = git_diff_num_deltas(diff);
	unsigned k = share_count(n);
	const git_diff_delta **deltas = fl_xcalloc(n + 1, sizeof(*deltas));
	struct share *shares = fl_xcalloc(k, sizeof(*shares));
	int r = 0;

	for (size_t i = 0; i < n; i++)
		deltas[i] = git_diff_get_delta(diff, i);
	for (unsigned t = 0; t < k; t++) {
		shares[t] = (struct share){.gitdir = git_repository_path(git),
					   .dir = dir,
					   .deltas = deltas + n * t / k,
					   .n = n * (t + 1) / k - n * t / k};
		if (t > 0 && pthread_create(&shares[t].thread, NULL, write_share, &shares[t])) {
			shares[t].r = fl_error_set(FL_EIO, "checkout: cannot start a thread");
			shares[t].error = fl_xstrdup(fl_error_last());
			shares[t].thread = 0;
		}
	}
	/* the first share in this thread, with its repository */
	for (size_t i = 0; !shares[0].r && i < shares[0].n; i++)
		shares[0].r = apply_delta(git, dir, shares[0].deltas[i], 1, &shares[0].written);
	if (shares[0].r)
		shares[0].error = fl_xstrdup(fl_error_last());
	for (unsigned t = 0; t < k; t++) {
		if (t > 0 && shares[t].thread)
			pthread_join(shares[t].thread, NULL);
		*count += shares[t].written;
		if (shares[t].r && !r)
			r = fl_error_set(shares[t].r, "%s", shares[t].error);
		free(shares[t].error);
	}
	free(shares);
	free(deltas);
	return r;
}

void fl_checkout_head(const char *state, char sha[41])
{
	char line[64] = "";
	FILE *f = fopen(state, "r");

	sha[0] = '\0';
	if (f && fgets(line, sizeof(line), f) && strlen(line) >= 40) {
		memcpy(sha, line, 40);
		sha[40] = '\0';
	}
	if (f)
		fclose(f);
}

/* The tree of the commit recorded in state, or NULL when unknown. */
static git_tree *recorded_tree(git_repository *git, const char *state)
{
	char sha[41];
	git_tree *tree = NULL;
	git_commit *c;
	git_oid oid;

	fl_checkout_head(state, sha);
	if (*sha && !git_oid_fromstr(&oid, sha) && !git_commit_lookup(&c, git, &oid)) {
		git_commit_tree(&tree, c);
		git_commit_free(c);
	}
	return tree;
}

int fl_checkout(fl_repo *repo, const char *dir, const char *state, const char *sha,
		unsigned *written)
{
	git_repository *git = fl_repo_git(repo);
	git_tree *old_tree, *new_tree = NULL;
	git_commit *to = NULL;
	git_diff_options opts;
	git_diff *diff = NULL;
	unsigned count = 0;
	git_oid oid;
	int r = 0;

	if (git_oid_fromstr(&oid, sha) || git_commit_lookup(&to, git, &oid))
		return fl_error_set(FL_ENOTFOUND, "tree '%s': no commit %s", fl_repo_name(repo),
				    sha);
	old_tree = recorded_tree(git, state);
	if (unlink(state) && errno != ENOENT) {
		r = fl_error_set(FL_EIO, "cannot remove %s: %s", state, strerror(errno));
		goto out;
	}
	/* Unknown state: start from an empty directory. */
	if (!old_tree && ((r = fl_remove_tree(dir)) || (r = fl_mkdir_p(dir))))
		goto out;
	if (git_commit_tree(&new_tree, to)) {
		r = fl_error_set(FL_EIO, "tree of commit %.12s: %s", sha, git_msg());
		goto out;
	}
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	if (git_diff_tree_to_tree(&diff, git, old_tree, new_tree, &opts)) {
		r = fl_error_set(FL_EIO, "diff to %.12s: %s", sha, git_msg());
		goto out;
	}
	if (!old_tree)
		r = write_fresh(git, dir, diff, &count);
	for (size_t i = 0; old_tree && !r && i < git_diff_num_deltas(diff); i++)
		r = apply_delta(git, dir, git_diff_get_delta(diff, i), 0, &count);
	if (!r) {
		char *line = fl_xasprintf("%s\n", sha);

		r = fl_write_file(state, line);
		free(line);
	}
out:
	if (written)
		*written = count;
	git_diff_free(diff);
	git_tree_free(old_tree);
	git_tree_free(new_tree);
	git_commit_free(to);
	return r;
}

/* ---- private worktrees ------------------------------------------------------ */

struct fl_worktree {
	char *repo;   /* the repository's directory, where git runs */
	char *dir;    /* the worktree */
	char sha[41]; /* the commit checked out there */
};

/* git -C dir ARGS... (NULL-terminated), its output not kept: 0, or FL_EIO
 * naming git's status and first line. */
static int git(const char *dir, ...)
{
	const char *argv[12] = {"git", "-C", dir};
	size_t k = 3;
	va_list ap;

	va_start(ap, dir);
	while (k + 1 < sizeof(argv) / sizeof(*argv) && (argv[k] = va_arg(ap, const char *)))
		k++;
	va_end(ap);
	argv[k] = NULL;
	return fl_run_checked(argv);
}

int fl_worktree_add(fl_worktree **out, fl_repo *repo, const char *sha)
{
	git_repository *g = fl_repo_git(repo);
	const char *tmp = getenv("TMPDIR"), *top = git_repository_workdir(g);
	fl_worktree *wt;

	*out = NULL;
	wt = fl_xcalloc(1, sizeof(*wt));
	wt->repo = fl_xstrdup(top ? top : git_repository_path(g));
	wt->dir = fl_xasprintf("%s/faultline-worktree-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(wt->dir)) {
		int r = fl_error_set(FL_EIO, "cannot create a temporary directory: %s",
				     strerror(errno));

		free(wt->dir);
		wt->dir = NULL;
		fl_worktree_free(wt);
		return r;
	}
	rmdir(wt->dir); /* git worktree add wants to create it */
	if (git(wt->repo, "worktree", "add", "--detach", wt->dir, sha, NULL)) {
		int r = fl_error_wrap(FL_EIO, "%s: cannot create a worktree in %s",
				      fl_repo_name(repo), wt->dir);

		fl_worktree_free(wt); /* what git made of it before it failed */
		return r;
	}
	snprintf(wt->sha, sizeof(wt->sha), "%s", sha);
	*out = wt;
	return 0;
}

int fl_worktree_checkout(fl_worktree *wt, const char *sha)
{
	if (!strcmp(wt->sha, sha))
		return 0;
	wt->sha[0] = '\0';
	if (git(wt->dir, "checkout", "--quiet", "--detach", "--force", sha, NULL))
		return fl_error_wrap(FL_EIO, "%s: cannot check out %.12s", wt->dir, sha);
	snprintf(wt->sha, sizeof(wt->sha), "%s", sha);
	return 0;
}

const char *fl_worktree_dir(const fl_worktree *wt)
{
	return wt->dir;
}

void fl_worktree_free(fl_worktree *wt)
{
	if (!wt)
		return;
	if (wt->dir) {
		git(wt->repo, "worktree", "remove", "--force", wt->dir, NULL);
		git(wt->repo, "worktree", "prune", NULL);
	}
	free(wt->repo);
	free(wt->dir);
	free(wt);
}
