/* web/template.c - page skeletons with named slots (see template.h). */
#include "web/template.h"
#include "lib/error.h"
#include "lib/fs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file cut into literal text and slots: part i is text, then slot i (-1: none). */
struct part {
	size_t off, len; /* literal text in t->text */
	int slot;
};

struct fl_tmpl {
	char *text;
	struct part *parts;
	size_t nparts;
};

static int line_of(const char *text, const char *at)
{
	int line = 1;

	for (; text < at; text++)
		line += *text == '\n';
	return line;
}

/* The index of the slot named name, or -1 for none. */
static int slot_index(const char *const *slots, const char *name, size_t len)
{
	for (int i = 0; slots[i]; i++)
		if (strlen(slots[i]) == len && !memcmp(slots[i], name, len))
			return i;
	return -1;
}

int fl_tmpl_load(struct fl_tmpl **out, const char *path, const char *const *slots)
{
	struct fl_tmpl *t;
	fl_buf b = FL_BUF_INIT;
	const char *p, *open;
	size_t alloc = 0;
	int r;

	*out = NULL;
	if ((r = fl_read_file(path, &b))) {
		fl_buf_free(&b);
		return r;
	}
	t = fl_xcalloc(1, sizeof(*t));
	t->text = fl_buf_detach(&b);
	for (p = t->text;; p = strstr(open, "}}") + 2) {
		const char *name, *close;
		int slot = -1;

		open = strstr(p, "{{");
		if (open) {
			name = open + 2;
			close = strstr(name, "}}");
			if (!close ||
			    (slot = slot_index(slots, name, (size_t)(close - name))) < 0) {
				r = fl_error_set(FL_EINVAL, "%s:%d: %s '%.*s'", path,
						 line_of(t->text, open),
						 close ? "unknown slot" : "unclosed slot",
						 close ? (int)(close - name) : 20, name);
				fl_tmpl_free(t);
				return r;
			}
		}
		if (t->nparts == alloc)
			t->parts = fl_xrealloc(t->parts,
					       (alloc = alloc ? 2 * alloc : 8) * sizeof(*t->parts));
		t->parts[t->nparts++] = (struct part){
		    (size_t)(p - t->text), (size_t)((open ? open : p + strlen(p)) - p), slot};
		if (!open)
			break;
	}
	*out = t;
	return 0;
}

void fl_tmpl_render(const struct fl_tmpl *t, fl_buf *out, const char *const *values)
{
	for (size_t i = 0; i < t->nparts; i++) {
		fl_buf_add(out, t->text + t->parts[i].off, t->parts[i].len);
		if (t->parts[i].slot >= 0 && values[t->parts[i].slot])
			fl_buf_adds(out, values[t->parts[i].slot]);
	}
}

void fl_tmpl_free(struct fl_tmpl *t)
{
	if (!t)
		return;
	free(t->text);
	free(t->parts);
	free(t);
}
