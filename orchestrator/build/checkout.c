/*
 * checkout.c - incremental materialisation of a commit's tree into a
 * directory (see checkout.h).
 */
#include "build/checkout.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *git_msg(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

static int write_blob(git_repository *git, const git_diff_file *f, const char *path)
{
	git_blob *blob;
	const void *data;
	size_t len;
	int fd, r = 0;

	if (git_blob_lookup(&blob, git, &f->id))
		return fl_error_set(FL_EIO, "blob %s: %s", f->path, git_msg());
	data = git_blob_rawcontent(blob);
	len = (size_t)git_blob_rawsize(blob);
	unlink(path);
	if (f->mode == GIT_FILEMODE_LINK) {
		char *target = fl_xstrndup(data, len);

		if (symlink(target, path))
			r = fl_error_set(FL_EIO, "symlink %s: %s", path, strerror(errno));
		free(target);
	} else if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC,
			      f->mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644)) < 0) {
		r = fl_error_set(FL_EIO, "cannot write %s: %s", path, strerror(errno));
	} else {
		if (write(fd, data, len) != (ssize_t)len)
			r = fl_error_set(FL_EIO, "%s: %s", path,
					 errno == ENOSPC ? "disk full" : strerror(errno));
		if (close(fd) && !r)
			r = fl_error_set(FL_EIO, "%s: %s", path, strerror(errno));
	}
	git_blob_free(blob);
	return r;
}

static int apply_delta(git_repository *git, const char *dir, const git_diff_delta *d,
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
	*strrchr(path, '/') = '\0';
	r = fl_mkdir_p(path);
	path[strlen(path)] = '/';
	if (!r)
		r = write_blob(git, &d->new_file, path);
	free(path);
	return r;
}

/* The tree of the commit recorded in state, or NULL when unknown. */
static git_tree *recorded_tree(git_repository *git, const char *state)
{
	char line[64] = "";
	git_tree *tree = NULL;
	git_commit *c;
	git_oid oid;
	FILE *f = fopen(state, "r");

	if (!f)
		return NULL;
	if (fgets(line, sizeof(line), f) && strlen(line) >= 40) {
		line[40] = '\0';
		if (!git_oid_fromstr(&oid, line) && !git_commit_lookup(&c, git, &oid)) {
			git_commit_tree(&tree, c);
			git_commit_free(c);
		}
	}
	fclose(f);
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
	FILE *f;
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
	for (size_t i = 0; !r && i < git_diff_num_deltas(diff); i++)
		r = apply_delta(git, dir, git_diff_get_delta(diff, i), &count);
	if (!r && (!(f = fopen(state, "w")) || fprintf(f, "%s\n", sha) < 0 || fclose(f)))
		r = fl_error_set(FL_EIO, "cannot write %s: %s", state, strerror(errno));
out:
	if (written)
		*written = count;
	git_diff_free(diff);
	git_tree_free(old_tree);
	git_tree_free(new_tree);
	git_commit_free(to);
	return r;
}
