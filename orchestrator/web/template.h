/*
 * web/template.h - the page skeleton kept in web/templates/ as HTML with
 * named slots ({{title}}, {{body}}), read once when the server starts.
 * Not an engine: a slot is replaced by a value the page made already safe
 * with html.c; no loops, no conditions, no escaping here.
 */
#ifndef FL_WEB_TEMPLATE_H
#define FL_WEB_TEMPLATE_H

#include "lib/buf.h"

struct fl_tmpl;

/*
 * Loads path; every {{name}} must be one of slots (a NULL-terminated list),
 * else FL_EINVAL naming file:line and the slot. Slots may be left unused.
 */
int fl_tmpl_load(struct fl_tmpl **out, const char *path, const char *const *slots);
/* values[i] fills slots[i] (NULL is empty). */
void fl_tmpl_render(const struct fl_tmpl *t, fl_buf *out, const char *const *values);
void fl_tmpl_free(struct fl_tmpl *t);

#endif
