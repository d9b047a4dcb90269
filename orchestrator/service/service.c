/* service.c - the watch service's shared state (see service.h). */
#include "service/service.h"
#include "lib/buf.h"
#include "config/config.h"
#include "lib/error.h"
#include "build/build.h"
#include "store/watch.h"

#include <stdlib.h>
#include <string.h>

void fl_service_init(struct fl_service *s, const struct fl_config *cfg)
{
	s->cfg = cfg;
	s->repos = fl_xcalloc(cfg->ntrees + 1, sizeof(*s->repos));
	s->local = fl_xcalloc(cfg->ntrees + 1, sizeof(*s->local));
}

void fl_service_release(struct fl_service *s)
{
	for (size_t i = 0; s->repos && i < s->cfg->ntrees; i++)
		fl_repo_free(s->repos[i]);
	free(s->repos);
	free(s->local);
	s->repos = NULL;
	s->local = NULL;
}

int fl_service_repo(struct fl_service *s, const char *tree, fl_repo **out, int *local)
{
	const struct fl_config *cfg = s->cfg;
	int r = 0;

	for (size_t i = 0; i < cfg->ntrees; i++) {
		if (strcmp(cfg->trees[i].name, tree))
			continue;
		if (!s->repos[i])
			r = fl_repo_open_tree(&s->repos[i], tree, cfg->trees[i].url, cfg->var,
					      &s->local[i]);
		*out = s->repos[i];
		if (local)
			*local = s->local[i];
		return r;
	}
	return fl_error_set(FL_ENOTFOUND, "tree '%s' is not in the configuration", tree);
}

int fl_service_commit_id(fl_store *st, fl_repo *repo, int64_t tree_id, const char *sha,
			 int64_t *id)
{
	struct fl_repo_commit c;
	struct fl_commit_info ci;
	int r;

	if ((r = fl_repo_commit(repo, sha, &c)))
		return r;
	ci = (struct fl_commit_info){c.sha, c.subject, c.author, c.time};
	r = fl_store_commit_ensure(st, tree_id, &ci, id);
	if (!r)
		r = fl_build_commit_depth(st, repo, c.sha, *id);
	fl_repo_commit_release(&c);
	return r;
}
