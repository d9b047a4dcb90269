/* symbols.c - System.map text symbols and profile buckets per function (see symbols.h). */
#include "analysis/symbols.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sym {
	uint64_t addr;
	size_t line; /* file order breaks ties between names at one address */
	char *name;
};

struct fl_symbols {
	struct sym *v;
	size_t n, alloc;
	uint64_t stext, etext;
};

static int is_text_type(char t)
{
	return t == 'T' || t == 't' || t == 'W' || t == 'w';
}

/* Section and linker markers share addresses with real functions:
 * _stext with startup_64, __lock_text_start with a spinlock function. */
static int is_marker(const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(name, "_text") || !strcmp(name, "_stext") || !strcmp(name, "_etext"))
		return 1;
	if (name[0] != '_')
		return 0;
	return (n > 6 && !strcmp(name + n - 6, "_start")) ||
	       (n > 4 && !strcmp(name + n - 4, "_end"));
}

/* "<hex> <type> <name>": 0 and the fields, -1 for anything else. */
static int parse_line(char *line, uint64_t *addr, char *type, char **name)
{
	char *p = line, *end;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!isxdigit((unsigned char)*p))
		return -1;
	errno = 0;
	*addr = strtoull(p, &end, 16);
	if (errno || (*end != ' ' && *end != '\t'))
		return -1;
	p = end + strspn(end, " \t");
	/* nm letters, and "?" for symbols nm cannot place (__nosave_begin in
	 * a 6.1 System.map) */
	if (!isgraph((unsigned char)p[0]) || (p[1] != ' ' && p[1] != '\t'))
		return -1;
	*type = p[0];
	p += 1 + strspn(p + 1, " \t");
	if (!*p || strpbrk(p, " \t"))
		return -1;
	*name = p;
	return 0;
}

static void add_sym(fl_symbols *s, uint64_t addr, size_t line, const char *name)
{
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 4096;
		s->v = fl_xrealloc(s->v, s->alloc * sizeof(*s->v));
	}
	s->v[s->n++] = (struct sym){addr, line, fl_xstrdup(name)};
}

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Sorted by address, one name per address (not a marker when there is a
 * choice), only [_stext, _etext): lookups are a binary search. */
static void settle(fl_symbols *s)
{
	size_t out = 0;

	qsort(s->v, s->n, sizeof(*s->v), by_addr);
	for (size_t i = 0; i < s->n; i++) {
		struct sym *v = &s->v[i];

		if (v->addr < s->stext || v->addr >= s->etext) {
			free(v->name);
			continue;
		}
		if (out && s->v[out - 1].addr == v->addr) {
			struct sym *kept = &s->v[out - 1];

			if (is_marker(kept->name) && !is_marker(v->name)) {
				free(kept->name);
				*kept = *v;
			} else {
				free(v->name);
			}
			continue;
		}
		s->v[out++] = *v;
	}
	s->n = out;
}

static int read_map(fl_symbols *s, FILE *f, const char *name)
{
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	int have_stext = 0, have_etext = 0, r = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, f)) >= 0) {
		uint64_t addr;
		char type, *sym;

		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!len)
			continue;
		if (parse_line(line, &addr, &type, &sym)) {
			r = fl_error_set(
			    FL_EINVAL,
			    "%s:%zu: expected '<hex address> <type> <name>', got '%.60s'", name,
			    lineno, line);
			break;
		}
		if (!strcmp(sym, "_stext"))
			s->stext = addr, have_stext = 1;
		if (!strcmp(sym, "_etext"))
			s->etext = addr, have_etext = 1;
		if (is_text_type(type))
			add_sym(s, addr, lineno, sym);
	}
	free(line);
	if (r)
		return r;
	if (!have_stext || !have_etext)
		return fl_error_set(FL_EINVAL, "%s: no %s symbol: not a kernel's System.map", name,
				    have_stext ? "_etext" : "_stext");
	if (s->etext <= s->stext)
		return fl_error_set(FL_EINVAL,
				    "%s: _etext (%" PRIx64 ") is not above _stext (%" PRIx64 ")",
				    name, s->etext, s->stext);
	settle(s);
	return 0;
}

static int load(fl_symbols **out, FILE *f, const char *name)
{
	fl_symbols *s = fl_xcalloc(1, sizeof(*s));
	int r = read_map(s, f, name);

	if (r) {
		fl_symbols_free(s);
		return r;
	}
	*out = s;
	return 0;
}

int fl_symbols_load(fl_symbols **out, const char *path)
{
	FILE *f = fopen(path, "r");
	int r;

	*out = NULL;
	if (!f)
		return fl_error_set(FL_EIO, "%s: %s", path, strerror(errno));
	r = load(out, f, path);
	fclose(f);
	return r;
}

int fl_symbols_parse(fl_symbols **out, const char *text, size_t len, const char *name)
{
	FILE *f = fmemopen((void *)text, len, "r");
	int r;

	*out = NULL;
	if (!f)
		return fl_error_set(FL_EIO, "%s: %s", name, strerror(errno));
	r = load(out, f, name);
	fclose(f);
	return r;
}

int fl_symbols_from_offsets(fl_symbols **out, uint64_t text, const struct fl_symbol *v, size_t n)
{
	fl_symbols *s;

	*out = NULL;
	if (!text)
		return fl_error_set(FL_EINVAL, "kernel symbols: no text size");
	for (size_t i = 0; i < n; i++)
		if (v[i].offset >= text || !v[i].name || !*v[i].name)
			return fl_error_set(FL_EINVAL,
					    "kernel symbols: entry %zu is past the text (%" PRIu64
					    " bytes) or has no name",
					    i, text);
	s = fl_xcalloc(1, sizeof(*s));
	s->etext = text;
	for (size_t i = 0; i < n; i++)
		add_sym(s, v[i].offset, i, v[i].name);
	settle(s);
	*out = s;
	return 0;
}

void fl_symbols_free(fl_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
	free(s);
}

uint64_t fl_symbols_stext(const fl_symbols *s)
{
	return s->stext;
}

uint64_t fl_symbols_etext(const fl_symbols *s)
{
	return s->etext;
}

size_t fl_symbols_count(const fl_symbols *s)
{
	return s->n;
}

const char *fl_symbols_lookup(const fl_symbols *s, uint64_t addr, uint64_t *offset)
{
	size_t lo = 0, hi = s->n;

	if (offset)
		*offset = 0;
	if (addr >= s->etext)
		return FL_SYM_MODULE;
	if (addr < s->stext || !s->n || addr < s->v[0].addr)
		return FL_SYM_UNKNOWN;
	/* The last symbol at or below addr: v[lo].addr <= addr < v[hi].addr. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (offset)
		*offset = addr - s->v[lo].addr;
	return s->v[lo].name;
}

/* ---- profiles ---------------------------------------------------------- */

struct tally {
	const char *name;
	uint64_t samples;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct tally *)a)->name, ((const struct tally *)b)->name);
}

static int by_samples(const void *a, const void *b)
{
	const struct fl_profile_fn *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int check_profile(const fl_symbols *s, const struct fl_profile_desc *p)
{
	uint64_t text = s->etext - s->stext;

	if (!p->step || (p->step & (p->step - 1)))
		return fl_error_set(FL_EINVAL, "profile step %u is not a power of two", p->step);
	if (p->nbuckets && p->nbuckets != text / p->step)
		return fl_error_set(
		    FL_EINVAL,
		    "profile has %" PRIu64 " buckets of %u bytes, but the System.map's "
		    "text is %" PRIu64 " bytes (%" PRIu64 " buckets): not this kernel's map",
		    p->nbuckets, p->step, text, text / p->step);
	for (size_t i = 0; i < p->n; i++)
		if (p->nbuckets && p->b[i].bucket >= p->nbuckets)
			return fl_error_set(
			    FL_EINVAL, "profile bucket %" PRIu64 " is past the last (%" PRIu64 ")",
			    p->b[i].bucket, p->nbuckets - 1);
	return 0;
}

static const char *bucket_name(const fl_symbols *s, const struct fl_profile_desc *p, uint64_t b)
{
	if (p->nbuckets && b == p->nbuckets - 1)
		return FL_SYM_MODULE;
	return fl_symbols_lookup(s, s->stext + b * p->step, NULL);
}

int fl_profile_by_function(const fl_symbols *s, const struct fl_profile_desc *p,
			   struct fl_profile_fn **out, size_t *n)
{
	struct tally *t;
	struct fl_profile_fn *f;
	uint64_t total = p->total;
	size_t nt = 0, nf = 0;
	int r;

	*out = NULL;
	*n = 0;
	if ((r = check_profile(s, p)))
		return r;
	t = fl_xcalloc(p->n + 1, sizeof(*t));
	for (size_t i = 0; i < p->n; i++)
		if (p->b[i].count)
			t[nt++] = (struct tally){bucket_name(s, p, p->b[i].bucket), p->b[i].count};
	if (p->dropped)
		t[nt++] = (struct tally){FL_SYM_DROPPED, p->dropped};
	qsort(t, nt, sizeof(*t), by_name);
	f = fl_xcalloc(nt ? nt : 1, sizeof(*f));
	for (size_t i = 0; i < nt; i++) {
		if (nf && !strcmp(f[nf - 1].name, t[i].name)) {
			f[nf - 1].samples += t[i].samples;
			continue;
		}
		f[nf++] = (struct fl_profile_fn){fl_xstrdup(t[i].name), t[i].samples, 0};
	}
	free(t);
	if (!total)
		for (size_t i = 0; i < nf; i++)
			total += f[i].samples;
	for (size_t i = 0; i < nf; i++)
		f[i].share = total ? (double)f[i].samples / (double)total : 0;
	qsort(f, nf, sizeof(*f), by_samples);
	*out = f;
	*n = nf;
	return 0;
}

void fl_profile_fns_free(struct fl_profile_fn *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++)
		free(f[i].name);
	free(f);
}
