/*
 * repo.c - git trees through libgit2 (see repo.h). libgit2 is initialised
 * per open repository (it counts), so callers need no global setup.
 */
#include "build/repo.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/version.h"

#include <errno.h>
#include <fnmatch.h>
#include <git2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fl_repo {
	char *name;
	char *path;
	git_repository *git;
};

/* The libgit2 message, or a generic one when it left none. */
static const char *git_msg(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

/*
 * libgit2 for faultline's repositories. Strict hash verification (libgit2's
 * default) hashes every object it reads again to compare it with its id:
 * on a slot's first checkout of Linux (78k blobs) that was about half the
 * CPU, for repositories faultline cloned itself onto its own disk and
 * trusts (git fsck is the place to find a corrupted object, not every
 * build). Off for the whole process.
 *
 * libgit2 is initialised once for the process and never shut down: a
 * shutdown that brings its count to zero on one thread frees the key of
 * its per-thread error state while other threads (the service's workers)
 * still hold theirs, which then leak. Its globals stay reachable to the end.
 */
static void libgit2_once(void)
{
	git_libgit2_init();
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
}

static void libgit2_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, libgit2_once);
}

static int repo_new(fl_repo **out, const char *name, const char *path, git_repository *git)
{
	fl_repo *r = fl_xcalloc(1, sizeof(*r));

	r->name = fl_xstrdup(name);
	r->path = fl_xstrdup(path);
	r->git = git;
	*out = r;
	return 0;
}

int fl_repo_open(fl_repo **out, const char *name, const char *path)
{
	git_repository *git;

	*out = NULL;
	libgit2_init();
	if (git_repository_open_ext(&git, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) {
		fl_error_set(FL_ENOTFOUND, "tree '%s': cannot open repository %s: %s", name, path,
			     git_msg());
		return FL_ENOTFOUND;
	}
	return repo_new(out, name, path, git);
}

int fl_repo_discover(fl_repo **out, const char *dir)
{
	git_repository *git;

	*out = NULL;
	libgit2_init();
	if (git_repository_open_ext(&git, dir, 0, NULL)) {
		return fl_error_set(FL_ENOTFOUND, "%s is not a git repository", dir);
	}
	return repo_new(out, dir, dir, git);
}

/*
 * Transfer progress of a clone or fetch (libgit2's callback): a line at
 * the first objects, then at most one every FL_PROGRESS_MS, and one at the
 * end (progress_done): objects and bytes received, objects indexed.
 */
#define FL_PROGRESS_MS 5000

struct progress {
	const char *tree, *what; /* "cloning", "fetching" */
	int64_t start, last;
	git_indexer_progress now;
	int said;
};

static void progress_line(struct progress *p, const char *when)
{
	double b = (double)p->now.received_bytes;
	char bytes[32];

	if (b >= 1024.0 * 1024.0)
		snprintf(bytes, sizeof(bytes), "%.1f MiB", b / (1024.0 * 1024.0));
	else
		snprintf(bytes, sizeof(bytes), "%.1f KiB", b / 1024.0);
	fl_info("tree '%s': %s: %u/%u objects received (%s), %u indexed%s", p->tree, p->what,
		p->now.received_objects, p->now.total_objects, bytes, p->now.indexed_objects,
		when);
}

static int progress_cb(const git_indexer_progress *stats, void *payload)
{
	struct progress *p = payload;
	int64_t now = fl_mono_ms();

	p->now = *stats;
	if (!stats->total_objects || (p->said && now - p->last < FL_PROGRESS_MS))
		return 0;
	p->last = now;
	p->said = 1;
	progress_line(p, "");
	return 0;
}

static void progress_done(struct progress *p)
{
	char *when;

	if (!p->now.total_objects)
		return;
	when = fl_xasprintf(", done in %.1f s", (double)(fl_mono_ms() - p->start) / 1000.0);
	progress_line(p, when);
	free(when);
}

int fl_repo_clone(fl_repo **out, const char *name, const char *url, const char *var)
{
	struct progress prog = {.tree = name, .what = "cloning", .start = fl_mono_ms()};
	git_clone_options opts;
	git_repository *git;
	char *dir = fl_xasprintf("%s/trees", var);
	char *path = fl_xasprintf("%s/trees/%s", var, name);
	struct stat st;
	int r;

	*out = NULL;
	if (!stat(path, &st)) {
		r = fl_repo_open(out, name, path);
		goto out;
	}
	if ((r = fl_mkdir_p(dir)))
		goto out;
	libgit2_init();
	/* the _INIT macros leave fields out, which -Wextra rejects */
	git_clone_options_init(&opts, GIT_CLONE_OPTIONS_VERSION);
	opts.bare = 1;
	opts.fetch_opts.callbacks.transfer_progress = progress_cb;
	opts.fetch_opts.callbacks.payload = &prog;
	fl_info("tree '%s': cloning %s into %s", name, url, path);
	if (git_clone(&git, url, path, &opts)) {
		r = fl_error_set(FL_EIO, "tree '%s': cannot clone %s: %s", name, url, git_msg());
		goto out;
	}
	progress_done(&prog);
	r = repo_new(out, name, path, git);
out:
	free(dir);
	free(path);
	return r;
}

/* A url without a scheme ("https://") that is not scp-like ("host:path"): a directory. */
static int is_local_path(const char *url)
{
	const char *colon = strchr(url, ':'), *slash = strchr(url, '/');

	return !strstr(url, "://") && (!colon || (slash && slash < colon));
}

int fl_repo_open_tree(fl_repo **out, const char *name, const char *url, const char *var,
		      int *local)
{
	struct stat st;
	int found = !stat(url, &st);

	*local = found && S_ISDIR(st.st_mode);
	if (*local)
		return fl_repo_open(out, name, url);
	/* libgit2 would try it as a URL: "unsupported URL protocol" */
	if (is_local_path(url)) {
		*out = NULL;
		return fl_error_set(FL_ENOTFOUND,
				    "tree '%s': %s '%s' (a url without a scheme is "
				    "a local directory)",
				    name, found ? "not a directory:" : "no such directory", url);
	}
	return fl_repo_clone(out, name, url, var);
}

int fl_repo_open_existing(fl_repo **out, const char *name, const char *url, const char *var)
{
	char *path = fl_xasprintf("%s/trees/%s", var, name);
	struct stat st;
	int local, r;

	*out = NULL;
	if ((!stat(url, &st) && S_ISDIR(st.st_mode)) || !stat(path, &st))
		r = fl_repo_open_tree(out, name, url, var, &local);
	else
		r = fl_error_set(FL_ENOTFOUND, "tree '%s': not on this host (no %s, no clone in %s)",
				 name, url, path);
	free(path);
	return r;
}

int fl_repo_open_current(fl_repo **out, const char *name, const char *url, const char *var)
{
	int local, r = fl_repo_open_tree(out, name, url, var, &local);

	if (!r && !local && (r = fl_repo_fetch(*out))) {
		fl_repo_free(*out);
		*out = NULL;
	}
	return r;
}

int fl_repo_fetch(fl_repo *r)
{
	git_fetch_options opts;
	/* A mirror of the remote: branches and tags as the remote has them. */
	char *specs[] = {"+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"};
	git_strarray refspecs = {specs, 2};
	struct progress prog = {.tree = r->name, .what = "fetching", .start = fl_mono_ms()};
	git_remote *remote;
	int e;

	if (git_remote_lookup(&remote, r->git, "origin"))
		return fl_error_set(FL_ENOTFOUND, "tree '%s': no remote 'origin' in %s: %s",
				    r->name, r->path, git_msg());
	git_fetch_options_init(&opts, GIT_FETCH_OPTIONS_VERSION);
	opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
	opts.prune = GIT_FETCH_PRUNE;
	opts.callbacks.transfer_progress = progress_cb;
	opts.callbacks.payload = &prog;
	e = git_remote_fetch(remote, &refspecs, &opts, "faultline fetch");
	if (e)
		fl_error_set(FL_EIO, "tree '%s': fetch from %s failed: %s", r->name,
			     git_remote_url(remote) ? git_remote_url(remote) : "?", git_msg());
	else
		progress_done(&prog);
	git_remote_free(remote);
	return e ? FL_EIO : 0;
}

struct fetch_deadline {
	int64_t until_ms;
	int late;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* libgit2's transfer callback: -1 (libgit2's "stop") once the deadline passed. */
static int fetch_progress(const git_indexer_progress *p, void *payload)
{
	struct fetch_deadline *d = payload;

	(void)p;
	if (now_ms() > d->until_ms) {
		d->late = 1;
		return -1;
	}
	return 0;
}

static int fetch_sideband(const char *str, int len, void *payload)
{
	(void)str;
	(void)len;
	return fetch_progress(NULL, payload);
}

int fl_repo_fetch_url(fl_repo *r, const char *url, const char *name, const char *ref,
		      int64_t timeout_ms, char sha[41])
{
	static const char *const kinds[] = {"refs/heads/", "refs/tags/"};
	struct fetch_deadline d = {now_ms() + timeout_ms, 0};
	git_fetch_options opts;
	git_remote *remote;
	int e = FL_ENOTFOUND;

	if (strncmp(url, "https://", 8) && strncmp(url, "http://", 7) && strncmp(url, "git://", 6))
		return fl_error_set(FL_EINVAL,
				    "'%s': only http://, https:// and git:// URLs are fetched", url);
	for (const char *p = url; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return fl_error_set(FL_EINVAL, "'%s' is not a URL", url);
	for (size_t k = 0; k < 2 && e == FL_ENOTFOUND; k++) {
		char *full = fl_xasprintf("%s%s", kinds[k], name);
		char *spec = fl_xasprintf("+%s:%s", full, ref);
		char *specs[] = {spec};
		git_strarray refspecs = {specs, 1};
		int valid = 0;

		if (git_reference_name_is_valid(&valid, full) || !valid ||
		    git_remote_create_anonymous(&remote, r->git, url)) {
			e = fl_error_set(FL_EINVAL, "'%s' at %s: not a branch or tag name", name, url);
		} else {
			git_fetch_options_init(&opts, GIT_FETCH_OPTIONS_VERSION);
			opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
			opts.callbacks.transfer_progress = fetch_progress;
			opts.callbacks.sideband_progress = fetch_sideband;
			opts.callbacks.payload = &d;
			if (git_remote_fetch(remote, &refspecs, &opts, "faultline fetch"))
				e = d.late ? fl_error_set(FL_ETIMEOUT, "fetching %s from %s: no end in %lld s",
							  name, url, (long long)timeout_ms / 1000)
					   : fl_error_set(FL_EIO, "fetching %s from %s: %s", name,
							  url, git_msg());
			else if (!fl_repo_resolve(r, ref, sha))
				e = 0;
			else
				e = fl_error_set(FL_ENOTFOUND, "%s has no branch or tag '%s'", url,
						 name);
			git_remote_free(remote);
		}
		free(spec);
		free(full);
	}
	return e;
}

void fl_repo_free(fl_repo *r)
{
	if (!r)
		return;
	git_repository_free(r->git);
	free(r->name);
	free(r->path);
	free(r);
}

const char *fl_repo_name(const fl_repo *r)
{
	return r->name;
}

struct git_repository *fl_repo_git(fl_repo *r)
{
	return r->git;
}

/* Peels rev (tags, annotated tags, short shas) to a commit. */
static int lookup_commit(fl_repo *r, const char *rev, git_commit **out)
{
	git_object *obj, *peeled;

	if (git_revparse_single(&obj, r->git, rev))
		return fl_error_set(FL_ENOTFOUND, "tree '%s': unknown revision '%s'", r->name, rev);
	if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT)) {
		git_object_free(obj);
		return fl_error_set(FL_EINVAL, "tree '%s': revision '%s' is not a commit", r->name,
				    rev);
	}
	git_object_free(obj);
	*out = (git_commit *)peeled;
	return 0;
}

int fl_repo_resolve(fl_repo *r, const char *rev, char sha[41])
{
	git_commit *c = NULL;
	int e;

	if ((e = lookup_commit(r, rev, &c)))
		return e;
	git_oid_tostr(sha, 41, git_commit_id(c));
	git_commit_free(c);
	return 0;
}

int fl_repo_version_cmp(const char *a, const char *b)
{
	return fl_version_cmp(a, b);
}

static int cmp_tags(const void *x, const void *y)
{
	return fl_repo_version_cmp(*(char *const *)x, *(char *const *)y);
}

int fl_repo_tags(fl_repo *r, const char *pattern, char ***tags, size_t *n)
{
	git_strarray all = {0};
	char **v;
	size_t k = 0;

	if (git_tag_list_match(&all, "*", r->git))
		return fl_error_set(FL_EIO, "tree '%s': cannot list tags: %s", r->name, git_msg());
	v = fl_xcalloc(all.count + 1, sizeof(*v));
	for (size_t i = 0; i < all.count; i++)
		if (!pattern || !fnmatch(pattern, all.strings[i], 0))
			v[k++] = fl_xstrdup(all.strings[i]);
	git_strarray_dispose(&all);
	qsort(v, k, sizeof(*v), cmp_tags);
	*tags = v;
	*n = k;
	return 0;
}

void fl_repo_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int fl_repo_merge_base(fl_repo *r, const char *a, const char *b, char sha[41])
{
	git_commit *ca = NULL, *cb = NULL;
	git_oid base;
	int e;

	if ((e = lookup_commit(r, a, &ca)))
		return e;
	if ((e = lookup_commit(r, b, &cb))) {
		git_commit_free(ca);
		return e;
	}
	e = git_merge_base(&base, r->git, git_commit_id(ca), git_commit_id(cb));
	git_commit_free(ca);
	git_commit_free(cb);
	if (e == GIT_ENOTFOUND)
		return fl_error_set(FL_ENOTFOUND, "tree '%s': %s and %s have no common ancestor",
				    r->name, a, b);
	if (e)
		return fl_error_set(FL_EIO, "tree '%s': merge base of %s and %s: %s", r->name, a,
				    b, git_msg());
	git_oid_tostr(sha, 41, &base);
	return 0;
}

int fl_repo_is_ancestor(fl_repo *r, const char *ancestor, const char *descendant)
{
	git_oid a, d;

	if (git_oid_fromstr(&a, ancestor) || git_oid_fromstr(&d, descendant))
		return 0;
	return git_oid_equal(&a, &d) || git_graph_descendant_of(r->git, &d, &a) == 1;
}

/* Each good an ancestor of bad (and not bad itself), or FL_EINVAL naming it. */
static int check_goods(fl_repo *r, const git_oid *bad, const char *bad_rev,
		       const char *const *goods, size_t ngoods, git_oid *oids)
{
	for (size_t i = 0; i < ngoods; i++) {
		git_commit *c;
		int e;

		if ((e = lookup_commit(r, goods[i], &c)))
			return e;
		git_oid_cpy(&oids[i], git_commit_id(c));
		git_commit_free(c);
		if (git_oid_equal(&oids[i], bad))
			return fl_error_set(FL_EINVAL, "tree '%s': good '%s' is bad '%s' itself",
					    r->name, goods[i], bad_rev);
		if (git_graph_descendant_of(r->git, bad, &oids[i]) != 1)
			return fl_error_set(FL_EINVAL,
					    "tree '%s': good '%s' is not an ancestor of bad '%s'",
					    r->name, goods[i], bad_rev);
	}
	return 0;
}

/* The commits bad reaches and no good reaches, in walk order, into *ids. */
static int walk_range(fl_repo *r, const git_oid *bad, const git_oid *goods, size_t ngoods,
		      git_oid **ids, size_t *n)
{
	git_revwalk *walk;
	git_oid oid;
	size_t alloc = 64;
	int e = 0;

	if (git_revwalk_new(&walk, r->git))
		return fl_error_set(FL_EIO, "tree '%s': %s", r->name, git_msg());
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL);
	e = git_revwalk_push(walk, bad);
	for (size_t i = 0; i < ngoods && !e; i++)
		e = git_revwalk_hide(walk, &goods[i]);
	if (e) {
		git_revwalk_free(walk);
		return fl_error_set(FL_EIO, "tree '%s': %s", r->name, git_msg());
	}
	*ids = fl_xmalloc(alloc * sizeof(git_oid));
	*n = 0;
	while (!git_revwalk_next(&oid, walk)) {
		if (*n == alloc)
			*ids = fl_xrealloc(*ids, (alloc *= 2) * sizeof(git_oid));
		git_oid_cpy(&(*ids)[(*n)++], &oid);
	}
	git_revwalk_free(walk);
	return 0;
}

struct oid_index {
	git_oid oid;
	size_t idx;
};

static int cmp_oid_index(const void *a, const void *b)
{
	return git_oid_cmp(&((const struct oid_index *)a)->oid, &((const struct oid_index *)b)->oid);
}

/* The node of a parent: in the range (sorted lookup) or an outside node,
 * added the first time it is seen. */
static size_t parent_node(struct fl_dag *g, const struct oid_index *sorted, size_t nin,
			  const git_oid *p)
{
	struct oid_index key = {.idx = 0};
	const struct oid_index *hit;
	char sha[41];

	git_oid_cpy(&key.oid, p);
	hit = bsearch(&key, sorted, nin, sizeof(*sorted), cmp_oid_index);
	if (hit)
		return hit->idx;
	git_oid_tostr(sha, sizeof(sha), p);
	for (size_t i = nin; i < g->n; i++)
		if (!strcmp(g->nodes[i].sha, sha))
			return i;
	return fl_dag_add(g, sha, 1);
}

int fl_repo_range(fl_repo *r, const char *bad, const char *const *goods, size_t ngoods,
		  struct fl_dag *g)
{
	git_oid *ids = NULL, *good_ids = fl_xcalloc(ngoods + 1, sizeof(git_oid)), bad_id;
	struct oid_index *sorted = NULL;
	git_commit *c;
	size_t n = 0;
	int e;

	memset(g, 0, sizeof(*g));
	if ((e = lookup_commit(r, bad, &c)))
		goto out;
	git_oid_cpy(&bad_id, git_commit_id(c));
	git_commit_free(c);
	if ((e = check_goods(r, &bad_id, bad, goods, ngoods, good_ids)) ||
	    (e = walk_range(r, &bad_id, good_ids, ngoods, &ids, &n)))
		goto out;
	sorted = fl_xmalloc((n + 1) * sizeof(*sorted));
	for (size_t i = 0; i < n; i++) {
		char sha[41];

		git_oid_tostr(sha, sizeof(sha), &ids[i]);
		fl_dag_add(g, sha, 0);
		git_oid_cpy(&sorted[i].oid, &ids[i]);
		sorted[i].idx = i;
		if (git_oid_equal(&ids[i], &bad_id))
			g->bad = i;
	}
	qsort(sorted, n, sizeof(*sorted), cmp_oid_index);
	for (size_t i = 0; i < n && !e; i++) {
		if (git_commit_lookup(&c, r->git, &ids[i])) {
			e = fl_error_set(FL_EIO, "tree '%s': %s", r->name, git_msg());
			break;
		}
		for (unsigned p = 0; p < git_commit_parentcount(c); p++)
			fl_dag_add_parent(g, i, parent_node(g, sorted, n, git_commit_parent_id(c, p)));
		git_commit_free(c);
	}
out:
	if (e)
		fl_dag_release(g);
	free(sorted);
	free(ids);
	free(good_ids);
	return e;
}

static int commit_tree(fl_repo *r, const char *sha, git_tree **tree)
{
	git_commit *c;
	git_oid oid;
	int e;

	if (git_oid_fromstr(&oid, sha) || git_commit_lookup(&c, r->git, &oid))
		return fl_error_set(FL_ENOTFOUND, "tree '%s': no commit %s", r->name, sha);
	e = git_commit_tree(tree, c);
	git_commit_free(c);
	if (e)
		return fl_error_set(FL_EIO, "tree '%s': tree of %.12s: %s", r->name, sha,
				    git_msg());
	return 0;
}

int fl_repo_changed_paths(fl_repo *r, const char *from, const char *to, char ***paths, size_t *n)
{
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	git_diff_options opts;
	char **v;
	size_t k = 0;
	int e;

	if ((e = commit_tree(r, from, &a)) || (e = commit_tree(r, to, &b)))
		goto out;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	if (git_diff_tree_to_tree(&diff, r->git, a, b, &opts)) {
		e = fl_error_set(FL_EIO, "tree '%s': diff %.12s..%.12s: %s", r->name, from, to,
				 git_msg());
		goto out;
	}
	v = fl_xcalloc(git_diff_num_deltas(diff) + 1, sizeof(*v));
	for (size_t i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		v[k++] = fl_xstrdup(d->status == GIT_DELTA_DELETED ? d->old_file.path
								   : d->new_file.path);
	}
	*paths = v;
	*n = k;
out:
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	return e;
}

int fl_repo_commit(fl_repo *r, const char *rev, struct fl_repo_commit *c)
{
	const git_signature *sig;
	const char *subject;
	git_commit *gc;
	int e;

	memset(c, 0, sizeof(*c));
	if ((e = lookup_commit(r, rev, &gc)))
		return e;
	git_oid_tostr(c->sha, sizeof(c->sha), git_commit_id(gc));
	subject = git_commit_summary(gc);
	c->subject = fl_xstrdup(subject ? subject : "");
	sig = git_commit_author(gc);
	c->author = fl_xasprintf("%s <%s>", sig->name, sig->email);
	c->time = sig->when.time;
	git_commit_free(gc);
	return 0;
}

/*
 * Walks the first parents by hand rather than with a revwalk: a revwalk's
 * end (GIT_ITEROVER) clears libgit2's per-thread error state, which
 * allocates it in a thread that had none, and a pool thread's is never
 * freed (LeakSanitizer). A lookup that succeeds touches no such state.
 */
int fl_repo_depth(fl_repo *r, const char *rev, int64_t *depth)
{
	git_commit *gc, *parent;
	int e;

	*depth = 0;
	if ((e = lookup_commit(r, rev, &gc)))
		return e;
	for (;;) {
		(*depth)++;
		if (!git_commit_parentcount(gc))
			break;
		if (git_commit_lookup(&parent, r->git, git_commit_parent_id(gc, 0))) {
			e = fl_error_set(FL_EIO, "tree '%s': %s: history walk: %s", r->name, rev,
					 git_msg());
			break;
		}
		git_commit_free(gc);
		gc = parent;
	}
	git_commit_free(gc);
	return e;
}

void fl_repo_commit_release(struct fl_repo_commit *c)
{
	free(c->subject);
	free(c->author);
	c->subject = c->author = NULL;
}

int fl_repo_commit_people(fl_repo *r, const char *rev, char **committer, char **message)
{
	const git_signature *sig;
	const char *msg;
	git_commit *gc = NULL;
	int e;

	*committer = *message = NULL;
	if ((e = lookup_commit(r, rev, &gc)))
		return e;
	sig = git_commit_committer(gc);
	*committer = fl_xasprintf("%s <%s>", sig->name, sig->email);
	msg = git_commit_message(gc);
	*message = fl_xstrdup(msg ? msg : "");
	git_commit_free(gc);
	return 0;
}

int fl_repo_blob(fl_repo *r, const char *rev, const char *path, char **text, size_t *len)
{
	git_commit *gc;
	git_tree *tree = NULL;
	git_tree_entry *ent = NULL;
	git_blob *blob = NULL;
	int e;

	*text = NULL;
	*len = 0;
	if ((e = lookup_commit(r, rev, &gc)))
		return e;
	if (git_commit_tree(&tree, gc))
		e = fl_error_set(FL_EIO, "tree '%s': %s: %s", r->name, rev, git_msg());
	else if (git_tree_entry_bypath(&ent, tree, path))
		e = fl_error_set(FL_ENOTFOUND, "tree '%s': no file '%s' at %s", r->name, path, rev);
	else if (git_tree_entry_type(ent) != GIT_OBJECT_BLOB ||
		 git_blob_lookup(&blob, r->git, git_tree_entry_id(ent)))
		e = fl_error_set(FL_ENOTFOUND, "tree '%s': '%s' at %s is not a file", r->name, path,
				 rev);
	else {
		*len = (size_t)git_blob_rawsize(blob);
		*text = fl_xmalloc(*len + 1);
		memcpy(*text, git_blob_rawcontent(blob), *len);
		(*text)[*len] = '\0';
	}
	git_blob_free(blob);
	git_tree_entry_free(ent);
	git_tree_free(tree);
	git_commit_free(gc);
	return e;
}

static int add_diff_line(const git_diff_delta *d, const git_diff_hunk *h, const git_diff_line *l,
			 void *payload)
{
	fl_buf *b = payload;

	(void)d;
	(void)h;
	if (l->origin == GIT_DIFF_LINE_CONTEXT || l->origin == GIT_DIFF_LINE_ADDITION ||
	    l->origin == GIT_DIFF_LINE_DELETION)
		fl_buf_addch(b, l->origin);
	fl_buf_add(b, l->content, l->content_len);
	return 0;
}

int fl_repo_commit_diff(fl_repo *r, const char *rev, char **patch)
{
	git_commit *gc, *parent = NULL;
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	fl_buf out = FL_BUF_INIT;
	int e;

	*patch = NULL;
	if ((e = lookup_commit(r, rev, &gc)))
		return e;
	if ((git_commit_parentcount(gc) && (git_commit_parent(&parent, gc, 0) ||
					    git_commit_tree(&a, parent))) ||
	    git_commit_tree(&b, gc) || git_diff_tree_to_tree(&diff, r->git, a, b, NULL) ||
	    git_diff_print(diff, GIT_DIFF_FORMAT_PATCH, add_diff_line, &out))
		e = fl_error_set(FL_EIO, "tree '%s': the diff of %s: %s", r->name, rev, git_msg());
	else
		*patch = fl_buf_detach(&out);
	fl_buf_free(&out);
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	git_commit_free(parent);
	git_commit_free(gc);
	return e;
}
