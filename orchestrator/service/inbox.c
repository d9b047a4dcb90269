/* service/inbox.c - replies with #faultline commands (see inbox.h). */
#include "service/inbox.h"
#include "build/repo.h"
#include "config/config.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "lib/log.h"
#include "lib/mail.h"
#include "service/measure.h"
#include "service/pipeline.h"
#include "service/route.h"
#include "service/service.h"
#include "service/triage.h"
#include "store/triage.h"
#include "store/try.h"
#include "store/watch.h"

#include <dirent.h>
#include <fcntl.h>
#include <gmime/gmime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What one mail says, as GMime parsed it. */
struct mail {
	char *path;
	char *message_id; /* "<...>" */
	char *from;	  /* bare address, lower case */
	char *from_full;  /* "Name <addr>" for the answer's Cc */
	char **refs;	  /* In-Reply-To then References, each "<...>" */
	size_t nrefs;
	char *text; /* the first text/plain part that is not an attachment, UTF-8 */
};

static void mail_free(struct mail *m)
{
	free(m->path);
	free(m->message_id);
	free(m->from);
	free(m->from_full);
	for (size_t i = 0; i < m->nrefs; i++)
		free(m->refs[i]);
	free(m->refs);
	free(m->text);
}

static void find_text(GMimeObject *parent, GMimeObject *part, gpointer data)
{
	char **text = data;
	GMimeContentType *ct = g_mime_object_get_content_type(part);

	(void)parent;
	if (*text || !GMIME_IS_TEXT_PART(part) ||
	    !g_mime_content_type_is_type(ct, "text", "plain") ||
	    g_mime_part_is_attachment(GMIME_PART(part)))
		return;
	*text = g_mime_text_part_get_text(GMIME_TEXT_PART(part));
}

static void add_refs(struct mail *m, const char *header)
{
	GMimeReferences *refs;

	if (!header || !(refs = g_mime_references_parse(NULL, header)))
		return;
	for (int i = 0; i < g_mime_references_length(refs); i++) {
		m->refs = fl_xrealloc(m->refs, (m->nrefs + 1) * sizeof(*m->refs));
		m->refs[m->nrefs++] =
		    fl_xasprintf("<%s>", g_mime_references_get_message_id(refs, i));
	}
	g_mime_references_free(refs);
}

/* The mail at path, parsed: 0, or FL_EIO/FL_EINVAL saying what it lacks. */
static int parse_mail(const char *path, struct mail *m)
{
	GMimeStream *stream;
	GMimeParser *parser;
	GMimeMessage *msg;
	InternetAddressList *from;
	InternetAddress *ia;
	const char *mid;
	char *text = NULL;
	int r = 0;

	memset(m, 0, sizeof(*m));
	m->path = fl_xstrdup(path);
	if (!(stream = g_mime_stream_fs_open(path, O_RDONLY, 0, NULL)))
		return fl_error_set(FL_EIO, "mail %s: cannot open it", path);
	parser = g_mime_parser_new_with_stream(stream);
	msg = g_mime_parser_construct_message(parser, NULL);
	g_object_unref(parser);
	g_object_unref(stream);
	if (!msg)
		return fl_error_set(FL_EINVAL, "mail %s: not a mail message", path);
	mid = g_mime_message_get_message_id(msg);
	from = g_mime_message_get_from(msg);
	ia = from && internet_address_list_length(from) ? internet_address_list_get_address(from, 0)
							: NULL;
	if (!mid || !*mid)
		r = fl_error_set(FL_EINVAL, "mail %s: no Message-ID", path);
	else if (!ia || !INTERNET_ADDRESS_IS_MAILBOX(ia))
		r = fl_error_set(FL_EINVAL, "mail %s: no From address", path);
	if (!r) {
		const char *addr = internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(ia));
		const char *name = internet_address_get_name(ia);
		char *full = name && *name ? fl_xasprintf("%s <%s>", name, addr) : fl_xstrdup(addr);

		m->message_id = fl_mail_header_value(mid);
		if (m->message_id[0] != '<') {
			char *v = fl_xasprintf("<%s>", m->message_id);

			free(m->message_id);
			m->message_id = v;
		}
		m->from = fl_route_bare(addr);
		m->from_full = fl_route_address(full);
		free(full);
		add_refs(m, g_mime_object_get_header(GMIME_OBJECT(msg), "In-Reply-To"));
		add_refs(m, g_mime_object_get_header(GMIME_OBJECT(msg), "References"));
		g_mime_message_foreach(msg, find_text, &text);
		m->text = fl_xstrdup(text ? text : "");
		g_free(text);
	}
	g_object_unref(msg);
	return r;
}

/* ---- acting on one mail ------------------------------------------------ */

/* A fix named by another repository's URL: its fetch, at most. */
#define FL_INBOX_FETCH_TIMEOUT_MS 120000

struct act {
	struct fl_service *svc;
	fl_store *st;
	const struct fl_config *cfg;
	struct mail *m;
	struct fl_regression reg;
	fl_buf answer;
	unsigned commands;
	/*
	 * "#faultline test" reaches the network (a fetch of the tree or of
	 * another repository): done in a first pass over the commands, before
	 * the transaction that acts, so no fetch holds the store's write lock.
	 * Each test's revision, or why there is none, in command order.
	 */
	int resolving;
	struct resolved {
		char sha[41];
		char *why; /* NULL: sha */
	} * res;
	size_t nres, next;
	char *words; /* the reply's own words, a state's note (reply_words) */
};

/*
 * What the sender wrote besides the commands, the state's note: the lines
 * that are neither quoted ("> ...") nor commands, up to a signature ("-- "),
 * joined, at most NOTE_MAX bytes; NULL when there are none.
 */
#define NOTE_MAX 300

static char *reply_words(const char *text)
{
	fl_buf b = FL_BUF_INIT;

	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		const char *s = p, *e = p + len;

		p += len + (p[len] == '\n');
		while (e > s && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if ((size_t)(e - s) == 2 && !strncmp(s, "--", 2))
			break;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		if (s == e || *s == '>' || !strncmp(s, "#faultline", 10))
			continue;
		if (b.len)
			fl_buf_addch(&b, ' ');
		fl_buf_add(&b, s, (size_t)(e - s));
	}
	if (b.len > NOTE_MAX) {
		size_t cut = NOTE_MAX;

		while (cut &&
		       ((unsigned char)b.ptr[cut] & 0xc0) == 0x80) /* a whole UTF-8 character */
			cut--;
		b.ptr[cut] = '\0';
		b.len = cut;
		fl_buf_adds(&b, "...");
	}
	return b.len ? fl_buf_detach(&b) : (fl_buf_free(&b), NULL);
}

static int lines_have(const char *lines, const char *bare)
{
	int found = 0;

	for (const char *p = lines; p && *p && !found;) {
		size_t len = strcspn(p, "\n");
		char *line = fl_xstrndup(p, len);
		char *b = fl_route_bare(len > 3 ? line + 3 : line);

		found = !strcmp(b, bare);
		free(b);
		free(line);
		p += len + (p[len] == '\n');
	}
	return found;
}

/* The sender may command: report.allow, or a recipient of the thread's report. */
static int allowed(struct act *a, const struct fl_report *first)
{
	for (size_t i = 0; i < a->cfg->report.nallow; i++) {
		char *b = fl_route_bare(a->cfg->report.allow[i]);
		int same = !strcmp(b, a->m->from);

		free(b);
		if (same)
			return 1;
	}
	if (first->recipients)
		return lines_have(first->recipients, a->m->from);
	for (size_t i = 0; i < a->cfg->report.nto; i++) {
		char *b = fl_route_bare(a->cfg->report.to[i]);
		int same = !strcmp(b, a->m->from);

		free(b);
		if (same)
			return 1;
	}
	return 0;
}

static char *word(const char **p)
{
	const char *s = *p + strspn(*p, " \t");
	size_t len = strcspn(s, " \t");

	*p = s + len;
	return len ? fl_xstrndup(s, len) : NULL;
}

static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x21 || (unsigned char)*s == 0x7f)
			return 0;
	return 1;
}

static int mark(struct act *a, const struct fl_triage_change *c)
{
	char *text = NULL;
	int64_t report;
	int r = fl_triage_mark(a->cfg, a->st, a->reg.id, c, 0, &report, &text);

	if (!r)
		fl_buf_addf(&a->answer, "  done: %s.\n", text);
	free(text);
	return r;
}

/* The revision a test names, fetched as needed: 0 with sha, 1 with *why, or FL_E*. */
static int resolve(struct act *a, const char *tree_arg, const char *rev, char sha[41], char **why)
{
	const struct fl_tree_conf *t = fl_config_tree(a->cfg, a->reg.tree);
	fl_repo *repo;
	int local, r;

	int named = t && (!strcmp(tree_arg, t->name) || !strcmp(tree_arg, t->url) ||
			  (t->public_url && !strcmp(tree_arg, t->public_url)));
	int is_url = strstr(tree_arg, "://") != NULL;

	*why = NULL;
	if (!t || (!named && !is_url)) {
		*why = fl_xasprintf("'%s' is neither the regression's tree '%s' nor a git URL",
				    tree_arg, a->reg.tree);
		return 1;
	}
	if ((r = fl_service_repo(a->svc, t->name, &repo, &local)))
		return r;
	if (!named) {
		/* another repository: the branch or tag fetched into the tree's, under its own ref
		 */
		static unsigned seq;
		char *ref = fl_xasprintf("refs/faultline/mail/%lld/%lld-%u", (long long)a->reg.id,
					 (long long)time(NULL), seq++);

		r = fl_repo_fetch_url(repo, tree_arg, rev, ref, FL_INBOX_FETCH_TIMEOUT_MS, sha);
		free(ref);
		if (r) {
			*why = fl_xstrdup(fl_error_last());
			return 1;
		}
	} else {
		if (!local && fl_repo_fetch(repo))
			fl_warn("mail: %s; resolving with what was fetched before",
				fl_error_last());
		if (fl_repo_resolve(repo, rev, sha)) {
			char *origin = fl_xasprintf("origin/%s", rev);

			r = fl_repo_resolve(repo, origin, sha);
			free(origin);
			if (r) {
				*why = fl_xasprintf("tree '%s' has no revision '%s'", t->name, rev);
				return 1;
			}
		}
	}
	return 0;
}

/* #faultline test <tree-or-url> <rev>: a try of rev against the regression. */
static int test(struct act *a, const char *tree_arg, const char *rev)
{
	struct resolved *x;
	const char *sha;
	char *point = NULL;
	int64_t try_id, job;
	int r;

	if (a->resolving) {
		a->res = fl_xrealloc(a->res, (a->nres + 1) * sizeof(*a->res));
		x = &a->res[a->nres++];
		x->why = NULL;
		r = resolve(a, tree_arg, rev, x->sha, &x->why);
		return r < 0 ? r : 0;
	}
	if (a->next >= a->nres)
		return fl_error_set(FL_EINVAL, "mail %s: a test command no first pass resolved",
				    a->m->message_id);
	x = &a->res[a->next++];
	if (x->why) {
		fl_buf_addf(&a->answer, "  not done: %s.\n", x->why);
		return 0;
	}
	sha = x->sha;
	point = *a->reg.mode ? fl_point_key(a->reg.mode, a->reg.tasks, a->reg.cgroup) : NULL;
	struct fl_try ft = {.regression_id = a->reg.id,
			    .tree = a->reg.tree,
			    .benchmark = a->reg.benchmark,
			    .machine = a->reg.machine,
			    .base_sha = a->reg.bad,
			    .good_sha = a->reg.good,
			    .rev_sha = (char *)sha,
			    .points = point,
			    .created = (int64_t)time(NULL)};

	if (!(r = fl_store_try_add(a->st, &ft, &try_id)))
		r = fl_service_enqueue(a->st, FL_JOB_TRY,
				       &(struct fl_job_spec){.tree = a->reg.tree,
							     .machine = a->reg.machine,
							     .benchmark = a->reg.benchmark,
							     .regression_id = a->reg.id,
							     .try_id = try_id},
				       &job);
	if (!r)
		fl_buf_addf(&a->answer,
			    "  done: try %lld queued: %.12s (%s) measured against %.12s (%s) and "
			    "the good commit %.12s on %s; its answer follows in this thread.\n",
			    (long long)try_id, sha, rev, a->reg.bad, a->reg.tag, a->reg.good,
			    a->reg.machine);
	free(point);
	return r;
}

/* One command line (after "#faultline"): its answer into a->answer. */
static int command(struct act *a, const char *line)
{
	const char *p = line;
	char *verb = word(&p), *x = NULL, *y = NULL, *extra = NULL;
	int r = 0;

	if (a->resolving && (!verb || strcmp(verb, "test"))) {
		free(verb); /* the first pass only resolves what tests name */
		return 0;
	}
	a->commands++;
	fl_buf_addf(&a->answer, "> #faultline%s\n", line);
	if (!verb) {
		fl_buf_adds(&a->answer, "  not done: no command.\n");
	} else if (!strcmp(verb, "test")) {
		x = word(&p);
		y = word(&p);
		if (!x || !y || (extra = word(&p)) || !printable(x) || !printable(y))
			fl_buf_adds(&a->answer,
				    "  not done: expected '#faultline test <tree-or-git-url> "
				    "<branch-or-sha>'.\n");
		else
			r = test(a, x, y);
	} else if (!strcmp(verb, "fix:")) {
		x = word(&p);
		if (!x || !printable(x) || strlen(x) > 100)
			fl_buf_adds(&a->answer,
				    "  not done: expected '#faultline fix: <sha-or-tag>'.\n");
		else
			r = mark(a, &(struct fl_triage_change){.state = FL_REG_FIXED,
							       .by = a->m->from,
							       .fixed_by = x,
							       .note = a->words});
	} else if (!strcmp(verb, "reopen")) {
		r = mark(a, &(struct fl_triage_change){
				.state = FL_REG_OPEN, .by = a->m->from, .note = a->words});
	} else if (!strcmp(verb, "invalid")) {
		r = mark(a, &(struct fl_triage_change){
				.state = FL_REG_INVALID, .by = a->m->from, .note = a->words});
	} else if (!strcmp(verb, "dup:")) {
		char *end = NULL;
		long long id;

		x = word(&p);
		id = x ? strtoll(x[0] == '#' ? x + 1 : x, &end, 10) : 0;
		if (!x || *end || id <= 0)
			fl_buf_adds(&a->answer, "  not done: expected '#faultline dup: <id>'.\n");
		else if ((r = mark(a, &(struct fl_triage_change){.state = FL_REG_DUPLICATE,
								 .by = a->m->from,
								 .dup_of = id,
								 .note = a->words})) == FL_EINVAL ||
			 r == FL_ENOTFOUND) {
			fl_buf_addf(&a->answer, "  not done: %s.\n", fl_error_last());
			r = 0;
		}
	} else {
		fl_buf_addf(
		    &a->answer,
		    "  not done: unknown command '%s' (test, fix:, invalid, dup:, reopen).\n",
		    verb);
	}
	if (r == FL_EINVAL) { /* a refusal the sender reads, not a failure */
		fl_buf_addf(&a->answer, "  not done: %s.\n", fl_error_last());
		r = 0;
	}
	free(verb);
	free(x);
	free(y);
	free(extra);
	return r;
}

/* The commands of the mail's text; answered together in one reply. */
static int commands(struct act *a)
{
	int r = 0;

	for (const char *p = a->m->text; *p && !r;) {
		size_t len = strcspn(p, "\n");
		char *line = fl_xstrndup(p, len);

		if (len && line[len - 1] == '\r')
			line[len - 1] = '\0';
		if (!strncmp(line, "#faultline", 10) &&
		    (!line[10] || line[10] == ' ' || line[10] == '\t'))
			r = command(a, line + 10);
		free(line);
		p += len + (p[len] == '\n');
	}
	return r;
}

static int one(struct fl_service *svc, fl_store *st, const char *path, struct fl_inbox_counts *c)
{
	struct act a = {.svc = svc, .st = st, .cfg = svc->cfg, .answer = FL_BUF_INIT};
	struct fl_report first = {0}, thread = {0};
	struct mail m;
	char *seen = NULL, *ours = fl_route_bare(svc->cfg->report.from);
	const char *outcome = NULL;
	int r, found = 0;

	c->read++;
	if ((r = parse_mail(path, &m))) {
		fl_warn("mail: %s; ignored", fl_error_last());
		c->ignored++;
		mail_free(&m);
		free(ours);
		return 0;
	}
	a.m = &m;
	if ((r = fl_store_mail_seen(st, m.message_id, &seen)) || seen) {
		c->seen_before += !r;
		free(seen);
		mail_free(&m);
		free(ours);
		return r;
	}
	for (size_t i = 0; i < m.nrefs && !found; i++) {
		if (!(r = fl_store_report_by_message_id(st, m.refs[i], &thread)))
			found = 1;
		else if (r != FL_ENOTFOUND)
			break;
		r = 0;
	}
	if (!r && found)
		r = fl_store_regression_get(st, thread.regression_id, &a.reg);
	if (!r && found)
		r = fl_store_report_first(st, thread.regression_id, &first);
	if (r)
		goto out;
	if (!strcmp(m.from, ours))
		outcome = "ignored: our own mail";
	else if (!found)
		outcome = "ignored: not a reply to a report";
	else if (!allowed(&a, &first))
		outcome = "refused: the sender is neither in report.allow nor a recipient of the "
			  "report";
	a.words = reply_words(m.text);
	if (!outcome) { /* the fetches, outside the transaction; the answers come below */
		a.resolving = 1;
		r = commands(&a);
		a.resolving = 0;
		a.commands = 0;
		fl_buf_reset(&a.answer);
	}
	if (!r && !(r = fl_store_tx_begin(st))) {
		if (!outcome)
			r = commands(&a);
		if (!r && !outcome && !a.commands)
			outcome = "ignored: no #faultline command";
		if (!r && !outcome) {
			fl_buf body = FL_BUF_INIT;
			int64_t report;

			fl_buf_addf(&body,
				    "Hello,\n\nfaultline read %u command%s from %s in %s:\n\n%s",
				    a.commands, a.commands == 1 ? "" : "s", m.from, m.message_id,
				    a.answer.ptr);
			if (a.cfg->report.url)
				fl_buf_addf(&body, "\n%s/regression/%lld\n", a.cfg->report.url,
					    (long long)a.reg.id);
			fl_buf_adds(&body, "\n-- \nfaultline, automated performance bisection\n");
			/* under the reply it answers, not beside it */
			r = fl_triage_reply(a.cfg, st, a.reg.id, "answer", (long long)a.reg.id,
					    body.ptr, m.from_full, m.message_id, &report);
			fl_buf_free(&body);
			outcome = "acted";
		}
		if (!r)
			r = fl_store_mail_mark(st, m.message_id, m.from, found ? a.reg.id : 0,
					       outcome);
		if (!r)
			r = fl_store_tx_commit(st);
		if (r)
			fl_store_tx_rollback(st);
	}
	if (!r) {
		if (!strcmp(outcome, "acted"))
			c->acted++;
		else if (!strncmp(outcome, "refused", 7))
			c->refused++;
		else
			c->ignored++;
		fl_info("mail: %s from %s%s%lld: %s", m.message_id, m.from,
			found ? " on regression " : "", found ? (long long)a.reg.id : 0LL,
			!strcmp(outcome, "acted") ? "answered in the thread" : outcome);
	}
out:
	free(a.words);
	fl_regression_release(&a.reg);
	fl_store_report_clear(&first);
	fl_store_report_clear(&thread);
	fl_buf_free(&a.answer);
	for (size_t i = 0; i < a.nres; i++)
		free(a.res[i].why);
	free(a.res);
	mail_free(&m);
	free(ours);
	return r;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

int fl_inbox_ingest(struct fl_service *svc, fl_store *st, const char *maildir,
		    struct fl_inbox_counts *c)
{
	static const char *const subdirs[] = {"cur", "new"};
	int r = 0, any = 0;

	memset(c, 0, sizeof(*c));
	g_mime_init();
	for (size_t s = 0; s < 2 && r >= 0; s++) {
		char *dir = fl_xasprintf("%s/%s", maildir, subdirs[s]);
		DIR *d = opendir(dir);
		struct dirent *e;
		char **names = NULL;
		size_t n = 0;

		if (!d) {
			free(dir);
			continue;
		}
		any = 1;
		while ((e = readdir(d)))
			if (e->d_name[0] != '.') {
				names = fl_xrealloc(names, (n + 1) * sizeof(*names));
				names[n++] = fl_xasprintf("%s/%s", dir, e->d_name);
			}
		closedir(d);
		/* delivery order: Maildir names start with the time they came */
		if (n)
			qsort(names, n, sizeof(*names), cmp_str);
		for (size_t i = 0; i < n; i++) {
			if (r >= 0 && (r = one(svc, st, names[i], c))) {
				fl_err("mail: %s: %s", names[i], fl_error_last());
				c->failed++;
				r = r == FL_ESTORE ? r : 0;
			}
			free(names[i]);
		}
		free(names);
		free(dir);
	}
	g_mime_shutdown();
	if (!any && r >= 0)
		return fl_error_set(FL_ENOTFOUND, "'%s' is not a Maildir (no cur/ or new/ in it)",
				    maildir);
	return r < 0 ? r : 0;
}
