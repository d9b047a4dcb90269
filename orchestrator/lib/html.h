/*
 * html.h - the one place where text becomes markup (cgit's html.c).
 *
 * Everything from git (subjects, authors) or from consoles is untrusted and
 * goes through these functions; pages never write such text directly. The
 * same escaping serves XML (libvirt domain definitions).
 */
#ifndef FL_HTML_H
#define FL_HTML_H

#include "lib/buf.h"

/* Text content and attribute values: & < > " ' escaped. */
void fl_html_text(fl_buf *out, const char *s);
/* printf into the page, with every %s argument escaped (%S passes raw HTML). */
void fl_html_addf(fl_buf *out, const char *fmt, ...);
/* A query-string component: unreserved characters kept, the rest %XX. */
void fl_html_url_component(fl_buf *out, const char *s);

#endif
