/*
 * web/page.c - what every page uses: parameters checked into 400 pages,
 * error pages, the layout, paging links, numbers, times and JSON strings
 * (see web.h).
 */
#include "web/web.h"
#include "web/template.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/html.h"
#include "service/measure.h"
#include "store/view.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *fl_web_arg(const struct fl_web_req *req, const char *name)
{
	return req->arg ? req->arg(req->arg_ctx, name) : NULL;
}

/* A 400 saying what is wrong with a parameter: FL_EINVAL, the message kept
 * for fl_error_last() too. */
static int bad_arg(struct fl_web_req *req, struct fl_web_resp *resp, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad_arg(struct fl_web_req *req, struct fl_web_resp *resp, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fl_web_fail_error(req, resp, fl_error_set(FL_EINVAL, "%s", msg));
	return FL_EINVAL;
}

/* A decimal from 1 to max: 0, or -1 for anything else (the callers' 400
 * says which parameter). */
static int parse_positive(const char *text, unsigned long long max, unsigned long long *v)
{
	char *end;

	if (!text || !isdigit((unsigned char)*text))
		return -1;
	errno = 0;
	*v = strtoull(text, &end, 10);
	return *end || errno || *v == 0 || *v > max ? -1 : 0;
}

int fl_web_id(struct fl_web_req *req, struct fl_web_resp *resp, const char *text, int64_t *id)
{
	unsigned long long v;

	if (parse_positive(text, INT64_MAX, &v))
		return bad_arg(req, resp, "bad id '%s': expected a positive number", text);
	*id = (int64_t)v;
	return 0;
}

int fl_web_uint_arg(struct fl_web_req *req, struct fl_web_resp *resp, const char *name, unsigned *v)
{
	const char *text = fl_web_arg(req, name);
	unsigned long long x;

	*v = 0;
	if (!text)
		return 0;
	if (parse_positive(text, 1000000000, &x))
		return bad_arg(req, resp, "bad %s '%s': expected a positive number", name, text);
	*v = (unsigned)x;
	return 0;
}

int fl_web_page_arg(struct fl_web_req *req, struct fl_web_resp *resp, unsigned *page)
{
	if (fl_web_uint_arg(req, resp, "page", page))
		return FL_EINVAL;
	if (!*page)
		*page = 1;
	return 0;
}

int fl_web_need_arg(struct fl_web_req *req, struct fl_web_resp *resp, const char *name,
		    const char **v)
{
	*v = fl_web_arg(req, name);
	if (*v && **v)
		return 0;
	return bad_arg(req, resp, "missing parameter '%s'", name);
}

int fl_web_name_arg(struct fl_web_req *req, struct fl_web_resp *resp, const char *name,
		    const char **v)
{
	const char *s = *v = fl_web_arg(req, name);

	if (!s || !*s) {
		*v = NULL;
		return 0;
	}
	for (size_t i = 0; s[i]; i++)
		if (i >= 100 || (!isalnum((unsigned char)s[i]) && !strchr("._:+@-", s[i])))
			return bad_arg(req, resp,
				       "bad %s '%.100s': expected up to 100 letters, digits and "
				       ". _ : + @ -",
				       name, s);
	return 0;
}

static const char *status_text(int status)
{
	switch (status) {
	case 400:
		return "Bad request";
	case 403:
		return "Forbidden";
	case 404:
		return "Not found";
	case 405:
		return "Method not allowed";
	case 413:
		return "Request too large";
	case 414:
		return "Too many parameters";
	case 503:
		return "Service unavailable";
	default:
		return status >= 500 ? "Server error" : "Error";
	}
}

void fl_web_fail(struct fl_web_req *req, struct fl_web_resp *resp, int status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fl_buf_reset(&resp->body);
	if (req->json) {
		fl_web_send_json(
		    resp, status,
		    json_pack("{s:o, s:i}", "error", fl_web_json_str(msg), "status", status));
		return;
	}
	fl_buf body = FL_BUF_INIT;
	char title[64];

	snprintf(title, sizeof(title), "%d %s", status, status_text(status));
	fl_html_addf(&body, "<h1>%s</h1>\n<p class='error'>%s</p>\n", title, msg);
	fl_web_page(req, resp, title, &body);
	resp->status = status;
	fl_buf_free(&body);
}

void fl_web_fail_error(struct fl_web_req *req, struct fl_web_resp *resp, int err)
{
	int status = err == FL_ENOTFOUND ? 404 : err == FL_EINVAL ? 400 : 500;

	fl_web_fail(req, resp, status, "%s", fl_error_last());
}

void fl_web_page(struct fl_web_req *req, struct fl_web_resp *resp, const char *title,
		 const fl_buf *body)
{
	fl_buf t = FL_BUF_INIT;
	const char *values[] = {NULL, fl_buf_str(body), FL_VERSION};

	fl_html_text(&t, title);
	values[0] = t.ptr;
	fl_buf_reset(&resp->body);
	fl_tmpl_render(req->web->layout, &resp->body, values);
	fl_buf_free(&t);
	resp->status = 200;
	resp->type = "text/html; charset=utf-8";
}

void fl_web_send_json(struct fl_web_resp *resp, int status, json_t *root)
{
	char *text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);

	fl_buf_reset(&resp->body);
	fl_buf_adds(&resp->body, text ? text : "null");
	fl_buf_addch(&resp->body, '\n');
	free(text);
	json_decref(root);
	resp->status = status;
	resp->type = "application/json";
}

enum fl_direction fl_web_direction(const struct fl_web *web, const char *benchmark)
{
	const struct fl_benchmark_conf *b =
	    web->cfg && benchmark ? fl_config_benchmark(web->cfg, benchmark) : NULL;

	return b ? fl_measure_direction(b) : FL_HIGHER_BETTER;
}

void fl_web_time(fl_buf *out, int64_t t)
{
	time_t tt = (time_t)t;
	char s[40];
	struct tm tm;

	if (!t || !gmtime_r(&tt, &tm) || !strftime(s, sizeof(s), "%Y-%m-%d %H:%M UTC", &tm)) {
		fl_buf_adds(out, "-");
		return;
	}
	fl_buf_adds(out, s);
}

void fl_web_commit_html(fl_buf *out, const char *sha, const char *subject)
{
	char abbrev[13];

	if (!sha) {
		fl_buf_adds(out, "-");
		return;
	}
	snprintf(abbrev, sizeof(abbrev), "%.12s", sha);
	if (strlen(sha) >= 40 && strspn(sha, "0123456789abcdef") == strlen(sha))
		fl_html_addf(out, "<a class='sha' href='/commit/%s' title='%s'><code>%s</code></a>",
			     sha, sha, abbrev);
	else
		fl_html_addf(out, "<code class='sha' title='%s'>%s</code>", sha, abbrev);
	if (subject && *subject)
		fl_html_addf(out, " <span class='subject'>%s</span>", subject);
}

void fl_web_rev_html(fl_buf *out, const char *rev)
{
	if (rev && strlen(rev) >= 40 && strspn(rev, "0123456789abcdef") == strlen(rev))
		fl_web_commit_html(out, rev, NULL);
	else
		fl_html_addf(out, "<code>%s</code>", rev ? rev : "-");
}

void fl_web_url(fl_buf *out, const char *path, const char *const *kv)
{
	char sep = '?';

	fl_buf_adds(out, path);
	for (; kv[0]; kv += 2) {
		if (!kv[1])
			continue;
		fl_buf_addch(out, sep);
		fl_html_url_component(out, kv[0]);
		fl_buf_addch(out, '=');
		fl_html_url_component(out, kv[1]);
		sep = '&';
	}
}

void fl_web_compare_url(fl_buf *out, const char *tree, const char *a, const char *b,
			const char *benchmark, const char *machine)
{
	fl_web_url(out, "/compare",
		   (const char *const[]){"tree", tree, "a", a, "b", b, "benchmark", benchmark,
					 "machine", machine, NULL});
}

const char *fl_web_link_rev(const char *tag, const char *sha)
{
	return tag && fl_view_rev_ok(tag) ? tag : sha;
}

void fl_web_pager(fl_buf *out, const char *base, unsigned page, int more)
{
	const char *sep = strchr(base, '?') ? "&" : "?";

	if (page <= 1 && !more)
		return;
	fl_buf_adds(out, "<nav class='pager'>");
	if (page > 1)
		fl_html_addf(out, "<a rel='prev' href='%s%spage=%u'>&laquo; newer</a> ", base, sep,
			     page - 1);
	fl_html_addf(out, "<span>page %u</span>", page);
	if (more)
		fl_html_addf(out, " <a rel='next' href='%s%spage=%u'>older &raquo;</a>", base, sep,
			     page + 1);
	fl_buf_adds(out, "</nav>\n");
}

void fl_web_num(fl_buf *out, double v)
{
	if (!isfinite(v))
		fl_buf_adds(out, "-");
	else if (fabs(v) >= 1e4)
		fl_buf_addf(out, "%.0f", v);
	else
		fl_buf_addf(out, "%.4g", v);
}

/* The length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong, surrogates, beyond U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

json_t *fl_web_json_str(const char *s)
{
	fl_buf b = FL_BUF_INIT;
	json_t *j;

	if (!s)
		return json_null();
	if ((j = json_string(s)))
		return j;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_len(p);

		if (n) {
			fl_buf_add(&b, p, n);
			p += n;
		} else {
			fl_buf_adds(&b, "\xef\xbf\xbd");
			p++;
		}
	}
	j = json_string(fl_buf_str(&b));
	fl_buf_free(&b);
	return j ? j : json_null();
}

json_t *fl_web_json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}
