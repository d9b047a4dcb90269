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

static void add_body(fl_buf *b, const char *body)
{
	for (; *body; body++) {
		if (*body == '\n' && (b->len == 0 || b->ptr[b->len - 1] != '\r'))
			fl_buf_addch(b, '\r');
		fl_buf_addch(b, *body);
	}
	if (b->len < 2 || strcmp(b->ptr + b->len - 2, "\r\n"))
		fl_buf_adds(b, "\r\n");
}

char *fl_mail_format(const struct fl_mail *m)
{
	fl_buf b = FL_BUF_INIT, to = FL_BUF_INIT;
	char date[64];
	time_t t = m->date ? (time_t)m->date : time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	for (size_t i = 0; i < m->nto; i++)
		fl_buf_addf(&to, "%s%s", i ? ", " : "", m->to[i]);
	add_header(&b, "From", m->from);
	add_header(&b, "To", fl_buf_str(&to));
	add_header(&b, "Subject", m->subject);
	add_header(&b, "Date", date);
	add_header(&b, "Message-ID", m->message_id);
	if (m->in_reply_to) {
		add_header(&b, "In-Reply-To", m->in_reply_to);
		add_header(&b, "References", m->in_reply_to);
	}
	fl_buf_adds(&b, "MIME-Version: 1.0\r\n"
			"Content-Type: text/plain; charset=UTF-8\r\n"
			"Content-Transfer-Encoding: 8bit\r\n"
			"X-Mailer: faultline\r\n\r\n");
	add_body(&b, m->body);
	fl_buf_free(&to);
	return fl_buf_detach(&b);
}

char *fl_mail_message_id(const char *kind, long long id, const char *domain)
{
	unsigned long long nonce = ((unsigned long long)time(NULL) << 20) ^ (unsigned)getpid();

	return fl_xasprintf("<faultline.%s.%lld.%llx@%s>", kind, id, nonce, domain);
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

/* "Name <addr@host>" -> "<addr@host>", as the SMTP envelope wants. */
static char *envelope(const char *addr)
{
	const char *lt = strchr(addr, '<'), *gt = lt ? strchr(lt, '>') : NULL;

	if (lt && gt)
		return fl_xstrndup(lt, (size_t)(gt - lt + 1));
	return fl_xasprintf("<%s>", addr);
}

int fl_mail_send(const struct fl_smtp *s, const struct fl_mail *m)
{
	char *text = fl_mail_format(m), *from = envelope(m->from);
	char errbuf[CURL_ERROR_SIZE] = "";
	struct upload u = {text, strlen(text), 0};
	struct curl_slist *rcpt = NULL;
	CURL *curl = curl_easy_init();
	CURLcode rc;
	int r = 0;

	if (!curl) {
		free(text);
		free(from);
		return fl_error_set(FL_EIO, "smtp: cannot start libcurl");
	}
	for (size_t i = 0; i < m->nto; i++) {
		char *e = envelope(m->to[i]);

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
	/* smtp:// upgrades with STARTTLS when the server offers it; a login insists on it. */
	curl_easy_setopt(curl, CURLOPT_USE_SSL,
			 s->username ? (long)CURLUSESSL_ALL : (long)CURLUSESSL_TRY);
	if (s->username)
		curl_easy_setopt(curl, CURLOPT_USERNAME, s->username);
	if (s->password)
		curl_easy_setopt(curl, CURLOPT_PASSWORD, s->password);
	rc = curl_easy_perform(curl);
	if (rc != CURLE_OK)
		r = fl_error_set(FL_EIO, "smtp %s: %s", s->url, errbuf[0] ? errbuf : curl_easy_strerror(rc));
	curl_slist_free_all(rcpt);
	curl_easy_cleanup(curl);
	free(text);
	free(from);
	return r;
}
