/*
 * auth.h - how a bare-metal box and the orchestrator's agent API prove
 * their messages to each other (docs/baremetal.md): HMAC-SHA256, keyed with
 * the box's token, over a canonical text of the request.
 *
 * The canonical request is seven lines joined by '\n', no trailing newline:
 *
 *	FL-HMAC-SHA256
 *	<METHOD>
 *	<path, as sent, query included>
 *	<box name>
 *	<timestamp: decimal seconds since the epoch>
 *	<nonce: 16 to 64 lower-case hex digits, never used twice>
 *	<lower-case hex SHA-256 of the body; of nothing for a GET>
 *
 * and travels as "Authorization: FL-HMAC-SHA256 box=B,ts=T,nonce=N,body=H,sig=S",
 * H being the body's SHA-256 as in the canonical request: the verifier
 * checks the signature from the headers alone, before it reads any of the
 * body, and then that the body has that SHA-256.
 * A JSON answer is signed back over "FL-HMAC-SHA256-RESPONSE\n<status>\n
 * <the request's nonce>\n<hex SHA-256 of the answer body>" in the header
 * X-FL-Signature, so the box knows the answer came from the orchestrator
 * and is the one to its own request.
 *
 * Shared by fl-agent's daemon (signer) and the agent API (verifier) so both
 * build the same bytes. libcrypto does the hashing; not in fl-agent-static,
 * whose guest mode never talks HTTP.
 */
#ifndef FL_AUTH_H
#define FL_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define FL_AUTH_SCHEME	  "FL-HMAC-SHA256"
#define FL_AUTH_HEADER	  "Authorization"
#define FL_AUTH_SIGNATURE "X-FL-Signature"
#define FL_AUTH_HEX	  65 /* 64 hex digits and a NUL */
#define FL_AUTH_NAME_MAX  64 /* box names: [A-Za-z0-9._-], 1 to 64 characters */
#define FL_AUTH_NONCE_MIN 16
#define FL_AUTH_NONCE_MAX 64
/* A token shorter than this is refused: it would be guessable. */
#define FL_AUTH_TOKEN_MIN 16

void fl_sha256_hex(const void *data, size_t len, char out[FL_AUTH_HEX]);
/* The file's SHA-256 and size; 0, or -1 with errno set. */
int fl_sha256_file(const char *path, char out[FL_AUTH_HEX], uint64_t *size);

/* 1 when name is a usable box name. */
int fl_auth_name_ok(const char *name);

/* The canonical request; malloc'd, NULL when out of memory. */
char *fl_auth_canonical(const char *method, const char *path, const char *box, int64_t ts,
			const char *nonce, const char *body_sha256);
/* HMAC-SHA256 of text with key, as hex. */
void fl_auth_hmac(const char *key, size_t keylen, const char *text, char out[FL_AUTH_HEX]);
/* Equal strings, compared in time that does not depend on where they differ. */
int fl_auth_equal(const char *a, const char *b);
/* A fresh nonce: 32 hex digits from getrandom(2); 0 or -1. */
int fl_auth_nonce(char out[33]);

/* The value of the Authorization header; 0, or -1 when it does not fit. */
int fl_auth_header(char *out, size_t n, const char *box, int64_t ts, const char *nonce,
		   const char *body_sha256, const char *sig);

struct fl_auth_fields {
	char box[FL_AUTH_NAME_MAX + 1];
	int64_t ts;
	char nonce[FL_AUTH_NONCE_MAX + 1];
	char body[FL_AUTH_HEX]; /* the body's SHA-256, as signed */
	char sig[FL_AUTH_HEX];
};
/* Parses a header value; 0, or -1 with why it is refused in why. */
int fl_auth_parse(const char *value, struct fl_auth_fields *f, char *why, size_t n);

/* Signs a request: fills the Authorization header value (n bytes). 0 or -1. */
int fl_auth_sign_request(const char *token, const char *box, const char *method, const char *path,
			 const void *body, size_t len, int64_t ts, const char *nonce, char *out,
			 size_t n);
/* The signature of an answer to the request that carried nonce. */
void fl_auth_sign_response(const char *token, int status, const char *nonce, const void *body,
			   size_t len, char out[FL_AUTH_HEX]);

/*
 * Reads a token file: its content without trailing white space. 0, or -1
 * with the reason (missing, empty, too short) in why.
 */
int fl_auth_read_token(const char *path, char **token, char *why, size_t n);

#endif
