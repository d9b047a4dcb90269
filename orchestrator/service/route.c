/* service/route.c - the recipients of a report (see route.h). */
#include "service/route.h"
#include "config/config.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "lib/log.h"
#include "lib/mail.h"
#include "lib/run-command.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

char *fl_route_bare(const char *addr)
{
	const char *lt = strrchr(addr, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	char *s = lt && gt ? fl_xstrndup(lt + 1, (size_t)(gt - lt - 1)) : fl_xstrdup(addr);

	for (char *p = s; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return s;
}

static char *trim(const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s))
		s++, len--;
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	return fl_xstrndup(s, len);
}

char *fl_route_address(const char *text)
{
	const char *lt = strrchr(text, '<');
	char why[200], *name, *addr, *out;
	int printable = 1;

	if (fl_mail_address_check(text, why, sizeof(why))) {
		fl_error_set(FL_EINVAL, "%s", why);
		return NULL;
	}
	if (!lt)
		return trim(text, strlen(text));
	name = trim(text, (size_t)(lt - text));
	addr = fl_route_bare(text);
	/* an unquoted name with a comma would split the header in two */
	if (name[0] == '"' && strlen(name) >= 2 && name[strlen(name) - 1] == '"') {
		memmove(name, name + 1, strlen(name) - 2);
		name[strlen(name) - 2] = '\0';
	}
	for (char *p = name; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f || *p == '"' ||
		    *p == '\\')
			printable = 0;
	out = printable && *name ? fl_xasprintf("\"%s\" <%s>", name, addr) : fl_xstrdup(addr);
	free(name);
	free(addr);
	return out;
}

/* ---- the list -------------------------------------------------------- */

struct list {
	fl_buf lines;
	char **bare; /* what is in it already */
	size_t n;
	const char *what; /* for the log */
};

static void add(struct list *l, const char *kind, const char *text, const char *source)
{
	char *addr = fl_route_address(text), *bare;

	if (!addr) {
		fl_warn("report: %s: %s address '%s' left out: %s", l->what, source, text,
			fl_error_last());
		return;
	}
	bare = fl_route_bare(addr);
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->bare[i], bare)) {
			free(bare);
			free(addr);
			return;
		}
	l->bare = fl_xrealloc(l->bare, (l->n + 1) * sizeof(*l->bare));
	l->bare[l->n++] = bare;
	fl_buf_addf(&l->lines, "%s %s\n", kind, addr);
	free(addr);
}

static void add_lines(struct list *l, const char *kind, const char *text, const char *source)
{
	for (const char *p = text; p && *p;) {
		size_t len = strcspn(p, "\n");
		char *one = trim(p, len);

		if (*one)
			add(l, kind, one, source);
		free(one);
		p += len + (p[len] == '\n');
	}
}

/* Signed-off-by, Reviewed-by and Acked-by lines of a commit message. */
static void add_trailers(struct list *l, const char *message)
{
	static const char *const keys[] = {"Signed-off-by:", "Reviewed-by:", "Acked-by:"};

	for (const char *p = message; p && *p;) {
		size_t len = strcspn(p, "\n");

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			size_t kl = strlen(keys[k]);

			if (len > kl && !strncasecmp(p, keys[k], kl)) {
				char *who = trim(p + kl, len - kl);

				add(l, "cc", who, keys[k]);
				free(who);
			}
		}
		p += len + (p[len] == '\n');
	}
}

int fl_route_get_maintainer(const struct fl_config *cfg, fl_repo *repo, const char *sha,
			    char **lines)
{
	char tmpl[] = "/tmp/faultline-gm-XXXXXX", *script = NULL, *maint = NULL, *patch = NULL;
	char *p_script, *p_maint, *p_patch, *p_out;
	size_t len;
	int r, status = 0;
	fl_buf out = FL_BUF_INIT;

	(void)cfg;
	*lines = fl_xstrdup("");
	if (fl_repo_blob(repo, sha, "scripts/get_maintainer.pl", &script, &len) ||
	    fl_repo_blob(repo, sha, "MAINTAINERS", &maint, &len)) {
		fl_info("report: %.12s: no scripts/get_maintainer.pl or MAINTAINERS in the tree: "
			"no maintainers named",
			sha);
		free(script);
		free(maint);
		return 0;
	}
	if ((r = fl_repo_commit_diff(repo, sha, &patch))) {
		free(script);
		free(maint);
		return r;
	}
	if (!mkdtemp(tmpl)) {
		free(script);
		free(maint);
		free(patch);
		return fl_error_set(FL_EIO, "get_maintainer: cannot make a scratch directory: %m");
	}
	p_script = fl_xasprintf("%s/scripts/get_maintainer.pl", tmpl);
	p_maint = fl_xasprintf("%s/MAINTAINERS", tmpl);
	p_patch = fl_xasprintf("%s/culprit.patch", tmpl);
	p_out = fl_xasprintf("%s/out", tmpl);
	if ((r = fl_mkdir_parent(p_script)) || (r = fl_write_file(p_script, script)) ||
	    (r = fl_write_file(p_maint, maint)) || (r = fl_write_file(p_patch, patch))) {
		r = fl_error_wrap(r, "get_maintainer: the scratch directory %s", tmpl);
	} else {
		const char *argv[] = {"perl",
				      "scripts/get_maintainer.pl",
				      "--no-tree",
				      "--no-git",
				      "--no-git-fallback",
				      "--no-rolestats",
				      "--no-multiline",
				      "--separator",
				      "\n",
				      "--email",
				      "--m",
				      "--r",
				      "--l",
				      "culprit.patch",
				      NULL};
		struct fl_child c = {.argv = argv,
				     .dir = tmpl,
				     .out_path = p_out,
				     .err_path = "/dev/null",
				     .timeout_ms = FL_ROUTE_GET_MAINTAINER_TIMEOUT_MS};

		r = fl_run_command(&c, &status);
		if (r == FL_ETIMEOUT)
			r = fl_error_set(FL_ETIMEOUT,
					 "get_maintainer.pl at %.12s: no answer in %d s", sha,
					 FL_ROUTE_GET_MAINTAINER_TIMEOUT_MS / 1000);
		else if (!r && status)
			r = fl_error_set(FL_EIO, "get_maintainer.pl at %.12s: exit %d", sha,
					 status);
		else if (!r && !(r = fl_read_file(p_out, &out))) {
			free(*lines);
			*lines = fl_buf_detach(&out);
		}
	}
	fl_buf_free(&out);
	fl_remove_tree(tmpl);
	free(p_script);
	free(p_maint);
	free(p_patch);
	free(p_out);
	free(script);
	free(maint);
	free(patch);
	return r;
}

int fl_route_report(const struct fl_config *cfg, const struct fl_tree_conf *t, fl_repo *repo,
		    const char *culprit, char **recipients, char **held)
{
	const char *routing = t->routing ? t->routing : cfg->report.routing;
	struct list l = {FL_BUF_INIT, NULL, 0, t->name};
	struct fl_repo_commit c = {0};
	char *committer = NULL, *message = NULL, *gm = NULL;
	int hold = !routing || !strcmp(routing, "hold");

	*recipients = *held = NULL;
	if (culprit && !fl_repo_commit(repo, culprit, &c) &&
	    !fl_repo_commit_people(repo, culprit, &committer, &message)) {
		add(&l, "to", c.author, "author");
		add(&l, "cc", committer, "committer");
		add_trailers(&l, message);
		if (fl_route_get_maintainer(cfg, repo, culprit, &gm))
			fl_warn("report: tree '%s': %s", t->name, fl_error_last());
		add_lines(&l, "cc", gm, "get_maintainer.pl");
	}
	for (size_t i = 0; i < cfg->report.nto; i++)
		add(&l, l.n ? "cc" : "to", cfg->report.to[i], "report.to");
	for (size_t i = 0; i < cfg->report.ncc; i++)
		add(&l, "cc", cfg->report.cc[i], "report.cc");
	for (size_t i = 0; i < t->ncc; i++)
		add(&l, "cc", t->cc[i], "cc");
	if (hold) {
		struct list op = {FL_BUF_INIT, NULL, 0, t->name};

		for (size_t i = 0; i < cfg->report.nto; i++)
			add(&op, "to", cfg->report.to[i], "report.to");
		*held = fl_buf_detach(&l.lines);
		*recipients = op.n ? fl_buf_detach(&op.lines) : NULL;
		fl_buf_free(&op.lines);
		for (size_t i = 0; i < op.n; i++)
			free(op.bare[i]);
		free(op.bare);
	} else {
		*recipients = l.n ? fl_buf_detach(&l.lines) : NULL;
	}
	fl_buf_free(&l.lines);
	for (size_t i = 0; i < l.n; i++)
		free(l.bare[i]);
	free(l.bare);
	free(gm);
	free(committer);
	free(message);
	fl_repo_commit_release(&c);
	return 0;
}
