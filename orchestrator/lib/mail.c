/* mail.c - formats and sends mail with libcurl SMTP (see mail.h). */
#include "lib/mail.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

char *fl_mail_header_value(const char *s)
{
	fl_buf b = FL_BUF_INIT;
	int space = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f) {
			space = b.len > 0;
			continue;
		}
		if (space)
			fl_buf_addch(&b, ' ');
		space = 0;
		fl_buf_addch(&b, (char)c);
	}
	return fl_buf_detach(&b);
}

static int is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return 0;
	return 1;
}

/* RFC 2047 "B" encoding, in encoded words short enough for one line each. */
static void add_encoded_words(fl_buf *b, const char *s)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t len = strlen(s), i = 0;

	while (i < len) {
		size_t n = len - i < 45 ? len - i : 45;

		/* Do not split a UTF-8 sequence between two words. */
		while (i + n < len && n > 1 && ((unsigned char)s[i + n] & 0xc0) == 0x80)
			n--;
		fl_buf_adds(b, i ? "\r\n =?UTF-8?B?" : "=?UTF-8?B?");
		for (size_t j = 0; j < n; j += 3) {
			unsigned v = (unsigned char)s[i + j] << 16;

			v |= j + 1 < n ? (unsigned)(unsigned char)s[i + j + 1] << 8 : 0;
			v |= j + 2 < n ? (unsigned char)s[i + j + 2] : 0;
			fl_buf_addch(b, tab[(v >> 18) & 63]);
			fl_buf_addch(b, tab[(v >> 12) & 63]);
			fl_buf_addch(b, j + 1 < n ? tab[(v >> 6) & 63] : '=');
			fl_buf_addch(b, j + 2 < n ? tab[v & 63] : '=');
		}
		fl_buf_adds(b, "?=");
		i += n;
	}
}

static void add_header(fl_buf *b, const char *name, const char *value)
{
	char *clean = fl_mail_header_value(value);

	fl_buf_addf(b, "%s: ", name);
	if (is_ascii(clean))
		fl_buf_adds(b, clean);
	else
		add_encoded_words(b, clean);
	fl_buf_adds(b, "\r\n");
	free(clean);
}

/* The length of the UTF-8 sequence at s (1 to 4), 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
				   : (s[0] & 0xf8) == 0xf0 ? 4 : 0;

	if (!n || (n == 2 && s[0] < 0xc2))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

char *fl_mail_text(const char *s)
{
	fl_buf b = FL_BUF_INIT;
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = utf8_len(p);

		if (!n) {
			fl_buf_addch(&b, '?');
			p++;
			continue;
		}
		if (n == 1 && ((*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r') || *p == 0x7f)) {
			p++;
			continue;
		}
		/* C1 controls (U+0080..U+009F, CSI among them) */
		if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
			p += 2;
			continue;
		}
		fl_buf_add(&b, (const char *)p, n);
		p += n;
	}
	return fl_buf_detach(&b);
}

/*
 * Every line end as CRLF: LF, CRLF and a bare CR (from a commit message)
 * each end one line. RFC 5321 allows CR and LF in DATA only as a pair.
 */
static void add_body(fl_buf *b, const char *text)
{
	char *clean = fl_mail_text(text);
	const char *body = clean;

	for (; *body; body++) {
		if (*body == '\r' || *body == '\n') {
			fl_buf_adds(b, "\r\n");
			body += body[0] == '\r' && body[1] == '\n';
			continue;
		}
		fl_buf_addch(b, *body);
	}
	if (b->len < 2 || strcmp(b->ptr + b->len - 2, "\r\n"))
		fl_buf_adds(b, "\r\n");
	free(clean);
}

/* A file name for a header: letters, digits, '.', '-', '_' only. */
static char *safe_name(const char *name)
{
	fl_buf b = FL_BUF_INIT;

	for (; *name; name++)
		fl_buf_addch(&b, (*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z') ||
					 (*name >= '0' && *name <= '9') || *name == '.' ||
					 *name == '-' || *name == '_'
				     ? *name
				     : '_');
	if (!b.len)
		fl_buf_adds(&b, "attachment.txt");
	return fl_buf_detach(&b);
}

static void add_addresses(fl_buf *b, const char *name, const char *const *v, size_t n)
{
	fl_buf all = FL_BUF_INIT;

	for (size_t i = 0; i < n; i++)
		fl_buf_addf(&all, "%s%s", i ? ", " : "", v[i]);
	add_header(b, name, fl_buf_str(&all));
	fl_buf_free(&all);
}

char *fl_mail_format(const struct fl_mail *m)
{
	fl_buf b = FL_BUF_INIT;
	char date[64], boundary[80];
	time_t t = m->date ? (time_t)m->date : time(NULL);
	struct tm tm;
	unsigned n = 0;

	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	add_header(&b, "From", m->from);
	add_addresses(&b, "To", m->to, m->nto);
	if (m->ncc)
		add_addresses(&b, "Cc", m->cc, m->ncc);
	add_header(&b, "Subject", m->subject);
	add_header(&b, "Date", date);
	add_header(&b, "Message-ID", m->message_id);
	if (m->in_reply_to) {
		add_header(&b, "In-Reply-To", m->in_reply_to);
		add_header(&b, "References", m->references ? m->references : m->in_reply_to);
	}
	if (!m->attach) {
		fl_buf_adds(&b, "MIME-Version: 1.0\r\n"
				"Content-Type: text/plain; charset=UTF-8\r\n"
				"Content-Transfer-Encoding: 8bit\r\n"
				"X-Mailer: faultline\r\n\r\n");
		add_body(&b, m->body);
		return fl_buf_detach(&b);
	}
	/* a boundary that neither text contains (the same one for the same message) */
	do
		snprintf(boundary, sizeof(boundary), "faultline-part-%u-%lld", n++,
			 (long long)t);
	while (strstr(m->body, boundary) || strstr(m->attach, boundary));
	{
		char *name = safe_name(m->attach_name ? m->attach_name : "");

		fl_buf_addf(&b,
			    "MIME-Version: 1.0\r\n"
			    "Content-Type: multipart/mixed; boundary=\"%s\"\r\n"
			    "X-Mailer: faultline\r\n\r\n"
			    "--%s\r\n"
			    "Content-Type: text/plain; charset=UTF-8\r\n"
			    "Content-Disposition: inline\r\n"
			    "Content-Transfer-Encoding: 8bit\r\n\r\n",
			    boundary, boundary);
		add_body(&b, m->body);
		fl_buf_addf(&b,
			    "--%s\r\n"
			    "Content-Type: text/plain; charset=UTF-8; name=\"%s\"\r\n"
			    "Content-Disposition: attachment; filename=\"%s\"\r\n"
			    "Content-Transfer-Encoding: 8bit\r\n\r\n",
			    boundary, name, name);
		add_body(&b, m->attach);
		fl_buf_addf(&b, "--%s--\r\n", boundary);
		free(name);
	}
	return fl_buf_detach(&b);
}

char *fl_mail_message_id(const char *kind, long long id, const char *domain)
{
	static unsigned long long seq; /* two of a kind in one second of one process */
	unsigned long long nonce = ((unsigned long long)time(NULL) << 20) ^ (unsigned)getpid();
	unsigned long long n = __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED);

	if (!n)
		return fl_xasprintf("<faultline.%s.%lld.%llx@%s>", kind, id, nonce, domain);
	return fl_xasprintf("<faultline.%s.%lld.%llx.%llu@%s>", kind, id, nonce, n, domain);
}

/* s with its control characters visible ("\r\n"), for a message about it. */
static char *visible(const char *s)
{
	fl_buf b = FL_BUF_INIT;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\r' || c == '\n')
			fl_buf_adds(&b, c == '\r' ? "\\r" : "\\n");
		else if (c < 0x20 || c == 0x7f)
			fl_buf_addf(&b, "\\x%02x", c);
		else
			fl_buf_addch(&b, (char)c);
	}
	return fl_buf_detach(&b);
}

int fl_mail_address_check(const char *addr, char *why, size_t n)
{
	const char *lt = strchr(addr, '<'), *gt = strchr(addr, '>'), *at, *start, *end;

	for (const char *p = addr; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			char *v = visible(addr);

			snprintf(why, n,
				 "mail address '%s': a control character in it would end "
				 "the SMTP command",
				 v);
			free(v);
			return fl_error_set(FL_EINVAL, "%s", why);
		}
	if (lt && (!gt || gt < lt || strchr(lt + 1, '<') || strchr(gt + 1, '>') ||
		   gt[strspn(gt + 1, " ") + 1])) {
		snprintf(why, n, "mail address '%s': expected 'user@host' or 'Name <user@host>'",
			 addr);
		return fl_error_set(FL_EINVAL, "%s", why);
	}
	start = lt ? lt + 1 : addr;
	end = lt ? gt : addr + strlen(addr);
	at = memchr(start, '@', (size_t)(end - start));
	if ((!lt && gt) || !at || at == start || at + 1 == end ||
	    memchr(at + 1, '@', (size_t)(end - at - 1)) ||
	    (size_t)(end - start) != strcspn(start, " \t<>,;()[]\\\"")) {
		snprintf(why, n,
			 "'%s' is not a mail address (expected 'user@host' or 'Name "
			 "<user@host>')",
			 addr);
		return fl_error_set(FL_EINVAL, "%s", why);
	}
	return 0;
}

struct upload {
	const char *data;
	size_t len, off;
};

static size_t read_cb(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct upload *u = arg;
	size_t n = size * nmemb;

	if (n > u->len - u->off)
		n = u->len - u->off;
	memcpy(ptr, u->data + u->off, n);
	u->off += n;
	return n;
}

/*
 * The server's last refusal (a 4xx or 5xx reply), for the error: libcurl
 * says only "RCPT failed: 550" or "Weird server reply", the server says
 * why. Its lines come to the debug callback (CURLINFO_HEADER_IN); a reply
 * ends with the line whose code is followed by a space.
 */
struct replies {
	fl_buf cur, last;
};

static int on_debug(CURL *curl, curl_infotype type, char *data, size_t size, void *arg)
{
	struct replies *r = arg;
	size_t len = size;

	(void)curl;
	if (type != CURLINFO_HEADER_IN)
		return 0;
	while (len && (data[len - 1] == '\n' || data[len - 1] == '\r'))
		len--;
	if (r->cur.len)
		fl_buf_addch(&r->cur, ' ');
	for (size_t i = 0; i < len; i++)
		fl_buf_addch(&r->cur, (unsigned char)data[i] < 0x20 ? ' ' : data[i]);
	if (len < 4 || data[3] != '-') {
		if (r->cur.len && (r->cur.ptr[0] == '4' || r->cur.ptr[0] == '5')) {
			fl_buf_reset(&r->last);
			fl_buf_add(&r->last, r->cur.ptr, r->cur.len);
		}
		fl_buf_reset(&r->cur);
	}
	return 0;
}

/* "Name <addr@host>" -> "<addr@host>", as the SMTP envelope wants. */
static char *envelope(const char *addr)
{
	const char *lt = strchr(addr, '<'), *gt = lt ? strchr(lt, '>') : NULL;

	if (lt && gt)
		return fl_xstrndup(lt, (size_t)(gt - lt + 1));
	return fl_xasprintf("<%s>", addr);
}

/* The envelope's addresses, checked again: a CR or LF in one would add an SMTP command. */
static int check_envelope(const struct fl_mail *m)
{
	char why[160];

	if (fl_mail_address_check(m->from, why, sizeof(why)))
		return fl_error_set(FL_EINVAL, "smtp: From: %s", why);
	for (size_t i = 0; i < m->nto; i++)
		if (fl_mail_address_check(m->to[i], why, sizeof(why)))
			return fl_error_set(FL_EINVAL, "smtp: To: %s", why);
	for (size_t i = 0; i < m->ncc; i++)
		if (fl_mail_address_check(m->cc[i], why, sizeof(why)))
			return fl_error_set(FL_EINVAL, "smtp: Cc: %s", why);
	return 0;
}

int fl_mail_send(const struct fl_smtp *s, const struct fl_mail *m)
{
	char *text, *from;
	char errbuf[CURL_ERROR_SIZE] = "";
	struct upload u;
	struct replies said = {FL_BUF_INIT, FL_BUF_INIT};
	struct curl_slist *rcpt = NULL;
	CURL *curl;
	CURLcode rc;
	int r = 0;

	if ((r = check_envelope(m)))
		return r;
	text = fl_mail_format(m);
	from = envelope(m->from);
	u = (struct upload){text, strlen(text), 0};
	curl = curl_easy_init();
	if (!curl) {
		free(text);
		free(from);
		return fl_error_set(FL_EIO, "smtp: cannot start libcurl");
	}
	for (size_t i = 0; i < m->nto + m->ncc; i++) {
		char *e = envelope(i < m->nto ? m->to[i] : m->cc[i - m->nto]);

		rcpt = curl_slist_append(rcpt, e);
		free(e);
	}
	curl_easy_setopt(curl, CURLOPT_URL, s->url);
	curl_easy_setopt(curl, CURLOPT_MAIL_FROM, from);
	curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(curl, CURLOPT_READDATA, &u);
	curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, s->timeout_s > 0 ? s->timeout_s : 60L);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_DEBUGFUNCTION, on_debug);
	curl_easy_setopt(curl, CURLOPT_DEBUGDATA, &said);
	curl_easy_setopt(curl, CURLOPT_VERBOSE, 1L);
	/* smtp:// upgrades with STARTTLS when the server offers it; a login insists on it. */
	curl_easy_setopt(curl, CURLOPT_USE_SSL,
			 s->username ? (long)CURLUSESSL_ALL : (long)CURLUSESSL_TRY);
	if (s->username)
		curl_easy_setopt(curl, CURLOPT_USERNAME, s->username);
	if (s->password)
		curl_easy_setopt(curl, CURLOPT_PASSWORD, s->password);
	rc = curl_easy_perform(curl);
	if (rc != CURLE_OK)
		r = fl_error_set(
		    FL_EIO, "smtp %s: %s%s%s", s->url, errbuf[0] ? errbuf : curl_easy_strerror(rc),
		    said.last.len ? "; the server said: " : "", fl_buf_str(&said.last));
	fl_buf_free(&said.cur);
	fl_buf_free(&said.last);
	curl_slist_free_all(rcpt);
	curl_easy_cleanup(curl);
	free(text);
	free(from);
	return r;
}
