/*
 * auth.c - canonical requests, HMAC-SHA256 and tokens (see auth.h).
 */
#include "proto/auth.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

static void to_hex(const unsigned char *d, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[2 * n] = '\0';
}

void fl_sha256_hex(const void *data, size_t len, char out[FL_AUTH_HEX])
{
	unsigned char d[SHA256_DIGEST_LENGTH];

	SHA256(data, len, d);
	to_hex(d, sizeof(d), out);
}

int fl_sha256_file(const char *path, char out[FL_AUTH_HEX], uint64_t *size)
{
	unsigned char buf[65536], d[SHA256_DIGEST_LENGTH];
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = 0;
	ssize_t n;

	*size = 0;
	if (fd < 0 || !ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		e = fd < 0 ? errno : ENOMEM;
		goto out;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			goto out;
		}
		EVP_DigestUpdate(ctx, buf, (size_t)n);
		*size += (uint64_t)n;
	}
	EVP_DigestFinal_ex(ctx, d, NULL);
	to_hex(d, sizeof(d), out);
out:
	EVP_MD_CTX_free(ctx);
	if (fd >= 0)
		close(fd);
	errno = e;
	return e ? -1 : 0;
}

int fl_auth_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n && n <= FL_AUTH_NAME_MAX &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
		   n;
}

char *fl_auth_canonical(const char *method, const char *path, const char *box, int64_t ts,
			const char *nonce, const char *body_sha256)
{
	char *s = NULL;

	if (asprintf(&s, FL_AUTH_SCHEME "\n%s\n%s\n%s\n%" PRId64 "\n%s\n%s", method, path, box, ts,
		     nonce, body_sha256) < 0)
		return NULL;
	return s;
}

void fl_auth_hmac(const char *key, size_t keylen, const char *text, char out[FL_AUTH_HEX])
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned n = 0;

	HMAC(EVP_sha256(), key, (int)keylen, (const unsigned char *)text, strlen(text), d, &n);
	to_hex(d, n, out);
}

int fl_auth_equal(const char *a, const char *b)
{
	size_t n = strlen(a);

	return n == strlen(b) && !CRYPTO_memcmp(a, b, n);
}

int fl_auth_nonce(char out[33])
{
	unsigned char r[16];
	size_t got = 0;

	while (got < sizeof(r)) {
		ssize_t n = getrandom(r + got, sizeof(r) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	to_hex(r, sizeof(r), out);
	return 0;
}

int fl_auth_header(char *out, size_t n, const char *box, int64_t ts, const char *nonce,
		   const char *body_sha256, const char *sig)
{
	int len = snprintf(out, n, FL_AUTH_SCHEME " box=%s,ts=%" PRId64 ",nonce=%s,body=%s,sig=%s",
			   box, ts, nonce, body_sha256, sig);

	return len < 0 || (size_t)len >= n ? -1 : 0;
}

static int is_hex(const char *s, size_t min, size_t max)
{
	size_t n = strlen(s);

	return n >= min && n <= max && strspn(s, "0123456789abcdef") == n;
}

/* One "key=value" of the header into dst (cap bytes); 0 or -1. */
static int take_field(const char *p, size_t len, const char *key, char *dst, size_t cap)
{
	size_t k = strlen(key);

	if (len <= k || strncmp(p, key, k) || p[k] != '=' || len - k - 1 >= cap)
		return -1;
	memcpy(dst, p + k + 1, len - k - 1);
	dst[len - k - 1] = '\0';
	return 0;
}

int fl_auth_parse(const char *value, struct fl_auth_fields *f, char *why, size_t n)
{
	static const char *const keys[] = {"box", "ts", "nonce", "body", "sig"};
	char ts[24] = "", *end;
	char *dst[] = {f->box, ts, f->nonce, f->body, f->sig};
	size_t cap[] = {sizeof(f->box), sizeof(ts), sizeof(f->nonce), sizeof(f->body),
			sizeof(f->sig)};
	const size_t nkeys = sizeof(keys) / sizeof(keys[0]);
	const char *p;

	memset(f, 0, sizeof(*f));
	if (!value || strncmp(value, FL_AUTH_SCHEME " ", strlen(FL_AUTH_SCHEME) + 1)) {
		snprintf(why, n, "no '" FL_AUTH_HEADER ": " FL_AUTH_SCHEME " ...' header");
		return -1;
	}
	p = value + strlen(FL_AUTH_SCHEME) + 1;
	for (size_t i = 0; i < nkeys; i++) {
		size_t len = strcspn(p, ",");

		if (take_field(p, len, keys[i], dst[i], cap[i])) {
			snprintf(why, n, "malformed " FL_AUTH_SCHEME " header: expected %s=...",
				 keys[i]);
			return -1;
		}
		p += len;
		if (i < nkeys - 1 && *p == ',')
			p++;
		else if (i < nkeys - 1 || *p) {
			snprintf(why, n, "malformed " FL_AUTH_SCHEME " header after %s", keys[i]);
			return -1;
		}
	}
	errno = 0;
	f->ts = strtoll(ts, &end, 10);
	if (!fl_auth_name_ok(f->box) || errno || end == ts || *end ||
	    !isdigit((unsigned char)*ts) ||
	    !is_hex(f->nonce, FL_AUTH_NONCE_MIN, FL_AUTH_NONCE_MAX) || !is_hex(f->body, 64, 64) ||
	    !is_hex(f->sig, 64, 64)) {
		snprintf(why, n,
			 "malformed " FL_AUTH_SCHEME " header: box [A-Za-z0-9._-], ts decimal "
			 "seconds, nonce 16-64 hex digits, body and sig 64 hex digits");
		return -1;
	}
	return 0;
}

int fl_auth_sign_request(const char *token, const char *box, const char *method, const char *path,
			 const void *body, size_t len, int64_t ts, const char *nonce, char *out,
			 size_t n)
{
	char body_hex[FL_AUTH_HEX], sig[FL_AUTH_HEX], *c;

	fl_sha256_hex(body ? body : "", body ? len : 0, body_hex);
	c = fl_auth_canonical(method, path, box, ts, nonce, body_hex);
	if (!c)
		return -1;
	fl_auth_hmac(token, strlen(token), c, sig);
	free(c);
	return fl_auth_header(out, n, box, ts, nonce, body_hex, sig);
}

void fl_auth_sign_response(const char *token, int status, const char *nonce, const void *body,
			   size_t len, char out[FL_AUTH_HEX])
{
	char body_hex[FL_AUTH_HEX], *c = NULL;

	fl_sha256_hex(body ? body : "", body ? len : 0, body_hex);
	if (asprintf(&c, FL_AUTH_SCHEME "-RESPONSE\n%d\n%s\n%s", status, nonce, body_hex) < 0) {
		out[0] = '\0';
		return;
	}
	fl_auth_hmac(token, strlen(token), c, out);
	free(c);
}

int fl_auth_read_token(const char *path, char **token, char *why, size_t n)
{
	FILE *f = fopen(path, "re");
	char buf[4096];
	size_t len;

	*token = NULL;
	if (!f) {
		snprintf(why, n, "token file %s: %s", path, strerror(errno));
		return -1;
	}
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	while (len && isspace((unsigned char)buf[len - 1]))
		buf[--len] = '\0';
	if (len < FL_AUTH_TOKEN_MIN || strlen(buf) != len) {
		snprintf(why, n, "token file %s: the token must be at least %d characters of text",
			 path, FL_AUTH_TOKEN_MIN);
		return -1;
	}
	*token = strdup(buf);
	if (!*token) {
		snprintf(why, n, "out of memory");
		return -1;
	}
	return 0;
}
