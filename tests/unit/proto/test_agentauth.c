/*
 * test_agentauth.c - how boxes and the agent API prove their messages
 * (proto/auth.h) and the API's memory of nonces (replay.h):
 *   - SHA-256 and HMAC-SHA256 against published vectors (FIPS 180-2,
 *     RFC 4231), so both sides compute what any other implementation does;
 *   - the canonical request is exactly the documented text, and a
 *     signature changes with each of its parts (method, path, box,
 *     timestamp, nonce, body);
 *   - the header round-trips, and malformed headers are refused with a
 *     reason; answers are signed over status, the request's nonce and body;
 *   - tokens: trailing white space trimmed, short or missing ones refused;
 *   - the replay cache refuses a nonce seen within the window (per box),
 *     forgets it once its timestamp is a window old, and refuses new ones
 *     when full until old ones expire.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/auth.h"
#include "lib/error.h"
#include "dispatch/replay.h"
#include "testlib.h"

static const char token[] = "a-token-of-32-characters-length!";

static void test_vectors(void **state)
{
	char hex[FL_AUTH_HEX];

	(void)state;
	fl_sha256_hex("abc", 3, hex);
	assert_string_equal(hex,
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	fl_sha256_hex("", 0, hex);
	assert_string_equal(hex,
			    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	/* RFC 4231, test case 2 */
	fl_auth_hmac("Jefe", 4, "what do ya want for nothing?", hex);
	assert_string_equal(hex,
			    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

static void test_canonical(void **state)
{
	char *c =
	    fl_auth_canonical("POST", "/agent/v1/jobs/12/records", "box-1", 1700000000,
			      "00112233445566778899aabbccddeeff",
			      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

	(void)state;
	assert_string_equal(c,
			    "FL-HMAC-SHA256\nPOST\n/agent/v1/jobs/12/records\nbox-1\n1700000000\n"
			    "00112233445566778899aabbccddeeff\n"
			    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	free(c);
}

/* The sig= of a request signed with these parts. */
static void sig_of(const char *method, const char *path, const char *box, int64_t ts,
		   const char *nonce, const char *body, char *sig)
{
	char header[512], body_hex[FL_AUTH_HEX];
	struct fl_auth_fields f;
	char why[128];

	assert_int_equal(fl_auth_sign_request(token, box, method, path, body,
					      body ? strlen(body) : 0, ts, nonce, header,
					      sizeof(header)),
			 0);
	assert_int_equal(fl_auth_parse(header, &f, why, sizeof(why)), 0);
	fl_sha256_hex(body ? body : "", body ? strlen(body) : 0, body_hex);
	assert_string_equal(f.body, body_hex);
	assert_string_equal(f.box, box);
	assert_int_equal(f.ts, ts);
	assert_string_equal(f.nonce, nonce);
	strcpy(sig, f.sig);
}

static void test_signature(void **state)
{
	/* each differs from the first in one part */
	static const struct {
		const char *method, *path, *box;
		int64_t ts;
		const char *nonce, *body;
	} v[] = {
	    {"POST", "/agent/v1/work", "b1", 1700000000, "0123456789abcdef0123456789abcdef", "{}"},
	    {"GET", "/agent/v1/work", "b1", 1700000000, "0123456789abcdef0123456789abcdef", "{}"},
	    {"POST", "/agent/v1/jobs/1/done", "b1", 1700000000, "0123456789abcdef0123456789abcdef",
	     "{}"},
	    {"POST", "/agent/v1/work", "b2", 1700000000, "0123456789abcdef0123456789abcdef", "{}"},
	    {"POST", "/agent/v1/work", "b1", 1700000001, "0123456789abcdef0123456789abcdef", "{}"},
	    {"POST", "/agent/v1/work", "b1", 1700000000, "0123456789abcdef0123456789abcdee", "{}"},
	    {"POST", "/agent/v1/work", "b1", 1700000000, "0123456789abcdef0123456789abcdef", "{ }"},
	};
	char base[FL_AUTH_HEX], other[FL_AUTH_HEX], want[FL_AUTH_HEX], body_hex[FL_AUTH_HEX];
	char *c;

	(void)state;
	sig_of(v[0].method, v[0].path, v[0].box, v[0].ts, v[0].nonce, v[0].body, base);
	/* what the server recomputes from the parts and the body it received */
	fl_sha256_hex("{}", 2, body_hex);
	c = fl_auth_canonical("POST", "/agent/v1/work", "b1", 1700000000, v[0].nonce, body_hex);
	fl_auth_hmac(token, strlen(token), c, want);
	free(c);
	assert_true(fl_auth_equal(base, want));
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sig_of(v[i].method, v[i].path, v[i].box, v[i].ts, v[i].nonce, v[i].body, other);
		assert_int_equal(fl_auth_equal(base, other), i == 0);
	}
}

#define Z64 "0000000000000000000000000000000000000000000000000000000000000000"

static void test_parse_refuses(void **state)
{
	static const char *const bad[] = {
	    NULL,
	    "",
	    "Basic dXNlcjpwYXNz",
	    "FL-HMAC-SHA256 box=b1,ts=1,nonce=0123456789abcdef0123456789abcdef",
	    "FL-HMAC-SHA256 box=b1,ts=1,nonce=0123456789abcdef,body=" Z64 ",sig=abc",
	    "FL-HMAC-SHA256 box=b1,ts=1,nonce=short,body=" Z64 ",sig=" Z64,
	    "FL-HMAC-SHA256 box=b1,ts=1,nonce=0123456789ABCDEF,body=" Z64 ",sig=" Z64,
	    "FL-HMAC-SHA256 box=b 1,ts=1,nonce=0123456789abcdef,body=" Z64 ",sig=" Z64,
	    "FL-HMAC-SHA256 box=b1,ts=-1,nonce=0123456789abcdef,body=" Z64 ",sig=" Z64,
	    "FL-HMAC-SHA256 box=b1,ts=1x,nonce=0123456789abcdef,body=" Z64 ",sig=" Z64,
	    "FL-HMAC-SHA256 ts=1,box=b1,nonce=0123456789abcdef,body=" Z64 ",sig=" Z64,
	    "FL-HMAC-SHA256 box=b1,ts=1,nonce=0123456789abcdef,body=" Z64 ",sig=" Z64 ",x=1",
	    /* the body's hash is what lets the signature be checked before the body is read */
	    "FL-HMAC-SHA256 box=b1,ts=1,nonce=0123456789abcdef,sig=" Z64,
	    "FL-HMAC-SHA256 box=b1,ts=1,nonce=0123456789abcdef,body=abc,sig=" Z64,
	    "FL-HMAC-SHA256 box=b1,ts=1,nonce=0123456789abcdef,sig=" Z64 ",body=" Z64,
	};
	const char *good =
	    "FL-HMAC-SHA256 box=b1,ts=1,nonce=0123456789abcdef,body=" Z64 ",sig=" Z64;
	struct fl_auth_fields f;
	char why[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(fl_auth_parse(bad[i], &f, why, sizeof(why)), -1);
		assert_true(strlen(why) > 10);
	}
	assert_int_equal(fl_auth_parse(good, &f, why, sizeof(why)), 0);
	assert_int_equal(f.ts, 1);
	assert_string_equal(f.body, Z64);
	assert_true(fl_auth_name_ok("box-1.lab_2"));
	assert_false(fl_auth_name_ok("box/1"));
	assert_false(fl_auth_name_ok(""));
}

static void test_response(void **state)
{
	const char *n = "0123456789abcdef";
	char a[FL_AUTH_HEX], b[FL_AUTH_HEX];

	(void)state;
	fl_auth_sign_response(token, 200, n, "{\"job\":null}", 12, a);
	fl_auth_sign_response(token, 200, n, "{\"job\":null}", 12, b);
	assert_string_equal(a, b);
	fl_auth_sign_response(token, 401, n, "{\"job\":null}", 12, b);
	assert_string_not_equal(a, b);
	fl_auth_sign_response(token, 200, "0123456789abcdee", "{\"job\":null}", 12, b);
	assert_string_not_equal(a, b);
	fl_auth_sign_response(token, 200, n, "{\"job\":1}", 9, b);
	assert_string_not_equal(a, b);
	fl_auth_sign_response("another-token-of-some-length", 200, n, "{\"job\":null}", 12, b);
	assert_string_not_equal(a, b);
}

static void test_token(void **state)
{
	char dir[64], path[128], why[512], *t;

	(void)state;
	assert_int_equal(fl_test_tmpdir(dir, sizeof(dir), "auth"), 0);
	snprintf(path, sizeof(path), "%s/token", dir);
	assert_int_equal(fl_test_sh("printf '%s\\n\\n' > %s", token, path), 0);
	assert_int_equal(fl_auth_read_token(path, &t, why, sizeof(why)), 0);
	assert_string_equal(t, token);
	free(t);
	assert_int_equal(fl_test_sh("echo short > %s", path), 0);
	assert_int_equal(fl_auth_read_token(path, &t, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "at least 16"));
	assert_int_equal(fl_auth_read_token("/nonexistent/token", &t, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "/nonexistent/token"));
	fl_test_rmtree(dir);
}

static void test_nonce(void **state)
{
	char a[33], b[33];

	(void)state;
	assert_int_equal(fl_auth_nonce(a), 0);
	assert_int_equal(fl_auth_nonce(b), 0);
	assert_int_equal(strlen(a), 32);
	assert_int_equal(strspn(a, "0123456789abcdef"), 32);
	assert_string_not_equal(a, b);
}

static void test_replay(void **state)
{
	fl_replay *r = fl_replay_new(300, 1000);

	(void)state;
	assert_int_equal(fl_replay_check(r, "b1", "aaaa", 1000, 1000), 0);
	assert_int_equal(fl_replay_check(r, "b1", "aaaa", 1000, 1001), FL_EEXISTS);
	assert_non_null(strstr(fl_error_last(), "used already"));
	/* the same nonce from another box is another request */
	assert_int_equal(fl_replay_check(r, "b2", "aaaa", 1000, 1001), 0);
	assert_int_equal(fl_replay_check(r, "b1", "bbbb", 1000, 1001), 0);
	/* a replay late in the window is still caught */
	assert_int_equal(fl_replay_check(r, "b1", "aaaa", 1000, 1300), FL_EEXISTS);
	/* past the window the timestamp check refuses it; the cache need not remember */
	assert_int_equal(fl_replay_check(r, "b1", "aaaa", 1000, 1301), 0);
	assert_int_equal(fl_replay_size(r), 4);
	fl_replay_free(r);
}

static void test_replay_full(void **state)
{
	fl_replay *r = fl_replay_new(10, 3);

	(void)state;
	assert_int_equal(fl_replay_check(r, "b", "n1", 100, 100), 0);
	assert_int_equal(fl_replay_check(r, "b", "n2", 100, 100), 0);
	assert_int_equal(fl_replay_check(r, "b", "n3", 105, 105), 0);
	assert_int_equal(fl_replay_check(r, "b", "n4", 105, 105), FL_EAGAIN);
	assert_int_equal(fl_replay_check(r, "b", "n1", 105, 105), FL_EEXISTS);
	/* n1 and n2 are a window old at 111: swept to make room, n3 is kept */
	assert_int_equal(fl_replay_check(r, "b", "n4", 111, 111), 0);
	assert_int_equal(fl_replay_size(r), 2);
	assert_int_equal(fl_replay_check(r, "b", "n3", 105, 111), FL_EEXISTS);
	fl_replay_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_vectors),	cmocka_unit_test(test_canonical),
	    cmocka_unit_test(test_signature),	cmocka_unit_test(test_parse_refuses),
	    cmocka_unit_test(test_response),	cmocka_unit_test(test_token),
	    cmocka_unit_test(test_nonce),	cmocka_unit_test(test_replay),
	    cmocka_unit_test(test_replay_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
