/*
 * test_agentapi.c - the bare-metal agent API (agentapi.h) on a loopback
 * port, asked with libcurl and requests signed as a box's daemon signs them
 * (proto/auth.h), on a real store with a published agent job:
 *   - the box gets its job (answer signed over its nonce), downloads the
 *     kernel byte for byte, reports progress, uploads records (a batch sent
 *     twice adds nothing), ends the upload: a count that does not match is
 *     409 naming the missing seqs, a repeated end is answered the same;
 *   - refused with 401 and a message that says why: no header, an unknown
 *     box, a wrong token, a body changed after signing, a stale timestamp,
 *     a replayed request; 403 for another box's job, whatever it asks;
 *     410 for a job that expired; 404 and 405 for what is not an endpoint;
 *     400 for a line that is not a frame;
 *   - HTTPS with a configured certificate (made by openssl), when this
 *     libmicrohttpd has TLS.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dispatch/agentapi.h"
#include "proto/auth.h"
#include "lib/buf.h"
#include "config/config.h"
#include "lib/error.h"
#include "proto/record.h"
#include "store/agent.h"
#include "store/run.h"
#include "store/store.h"
#include "testlib.h"

#define TOKEN_A "token-of-box-a-0123456789"
#define TOKEN_B "token-of-box-b-0123456789"

static char dir[64], kernel[128], url[160];
static struct fl_config *cfg;
static fl_agentapi *api;
static fl_store *st;
static int64_t job_a, run_a;

struct reply {
	long status;
	fl_buf head, body;
	char sig[FL_AUTH_HEX];
};

struct signer {
	const char *box, *token;
	int64_t ts;		 /* 0: now */
	const char *nonce;	 /* NULL: a fresh one */
	const char *signed_body; /* NULL: the body sent */
	int no_auth;
	const char *ca; /* https */
};

static size_t add_bytes(char *p, size_t size, size_t n, void *buf)
{
	fl_buf_add(buf, p, size * n);
	return size * n;
}

/* One request; the header it sent is kept in auth (for a replay). */
static void send_raw(const char *base, const char *method, const char *path, const char *body,
		     const char *auth, const char *ca, struct reply *r)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = NULL;
	char u[512], line[600];
	const char *sig;

	memset(r, 0, sizeof(*r));
	snprintf(u, sizeof(u), "%.*s%s", (int)strlen(base) - 1, base, path);
	if (auth) {
		snprintf(line, sizeof(line), FL_AUTH_HEADER ": %s", auth);
		h = curl_slist_append(h, line);
	}
	h = curl_slist_append(h, "Expect:");
	curl_easy_setopt(c, CURLOPT_URL, u);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (body)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, add_bytes);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &r->body);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, add_bytes);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &r->head);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
	if (ca)
		curl_easy_setopt(c, CURLOPT_CAINFO, ca);
	assert_int_equal(curl_easy_perform(c), CURLE_OK);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	fl_buf_str(&r->body);
	fl_buf_str(&r->head);
	sig = strcasestr(r->head.ptr, FL_AUTH_SIGNATURE ": ");
	if (sig)
		snprintf(r->sig, sizeof(r->sig), "%.64s", sig + strlen(FL_AUTH_SIGNATURE) + 2);
}

static void sign(const struct signer *s, const char *method, const char *path, const char *body,
		 char *auth, size_t n, char *nonce)
{
	const char *b = s->signed_body ? s->signed_body : body;

	if (s->nonce)
		snprintf(nonce, 65, "%s", s->nonce);
	else
		assert_int_equal(fl_auth_nonce(nonce), 0);
	assert_int_equal(fl_auth_sign_request(s->token, s->box, method, path, b, b ? strlen(b) : 0,
					      s->ts ? s->ts : (int64_t)time(NULL), nonce, auth, n),
			 0);
}

static void call_at(const char *base, const struct signer *s, const char *method, const char *path,
		    const char *body, struct reply *r, char *auth_out)
{
	char auth[512], nonce[65];

	sign(s, method, path, body, auth, sizeof(auth), nonce);
	if (auth_out)
		strcpy(auth_out, auth);
	send_raw(base, method, path, body, s->no_auth ? NULL : auth, s->ca, r);
	/* Every answer that is not an error is signed over the nonce of its request. */
	if (r->status / 100 == 2 && !strstr(path, "/kernel") && !strstr(path, "/initrd")) {
		char want[FL_AUTH_HEX];

		fl_auth_sign_response(s->token, (int)r->status, nonce, r->body.ptr, r->body.len,
				      want);
		assert_string_equal(r->sig, want);
	}
}

static void call(const struct signer *s, const char *method, const char *path, const char *body,
		 struct reply *r)
{
	call_at(url, s, method, path, body, r, NULL);
}

static void done_with(struct reply *r)
{
	fl_buf_free(&r->head);
	fl_buf_free(&r->body);
}

/* Expects the status and, for an error, a message containing needle. */
static void expect(const struct signer *s, const char *method, const char *path, const char *body,
		   long status, const char *needle)
{
	struct reply r;

	call(s, method, path, body, &r);
	if (r.status != status || (needle && !strstr(r.body.ptr, needle)))
		fail_msg("%s %s: %ld %s (wanted %ld with '%s')", method, path, r.status, r.body.ptr,
			 status, needle ? needle : "");
	done_with(&r);
}

static const struct signer box_a = {"a", TOKEN_A, 0, NULL, NULL, 0, NULL};
static const struct signer box_b = {"b", TOKEN_B, 0, NULL, NULL, 0, NULL};

static int64_t publish(const char *box, int64_t deadline)
{
	char sha[FL_AUTH_HEX];
	uint64_t size;
	struct fl_agent_job_new j = {.box = box,
				     .run_id = run_a,
				     .mode = "kexec",
				     .job = "test=page_fault1",
				     .cmdline = "panic=-1 fl.job=test=page_fault1"};
	int64_t id;

	assert_int_equal(fl_sha256_file(kernel, sha, &size), 0);
	j.kernel = (struct fl_agent_file){kernel, sha, (int64_t)size};
	j.initrd = (struct fl_agent_file){kernel, sha, (int64_t)size};
	j.created_ms = (int64_t)time(NULL) * 1000;
	j.deadline_ms = deadline;
	assert_int_equal(fl_store_agent_job_add(st, &j, &id), 0);
	return id;
}

static int setup(void **state)
{
	char path[160];
	struct fl_run_new rn = {0};
	int64_t m;

	(void)state;
	if (fl_test_tmpdir(dir, sizeof(dir), "agentapi") ||
	    fl_test_sh("cd %s && printf '%s\\n' > a.token && printf '%s' > b.token && "
		       "head -c 200000 /dev/urandom > bzImage",
		       dir, TOKEN_A, TOKEN_B))
		return -1;
	snprintf(kernel, sizeof(kernel), "%s/bzImage", dir);
	snprintf(path, sizeof(path), "%s/fl.yaml", dir);
	if (fl_test_write(path,
			  "var: %s/var\n"
			  "agent_api: { listen: '127.0.0.1:0', window: 2m }\n"
			  "machines:\n"
			  "  - { name: a, backend: baremetal, token_file: %s/a.token }\n"
			  "  - { name: b, backend: baremetal, token_file: %s/b.token }\n"
			  "benchmarks: [ { name: pf, test: page_fault1 } ]\n",
			  dir, dir, dir))
		return -1;
	if (fl_config_load(&cfg, path) || fl_store_open(&st, fl_test_store(cfg->store.path), 0) ||
	    fl_store_machine_ensure(st, "a", "baremetal", &m))
		return -1;
	rn.machine_id = m;
	rn.benchmark = "pf";
	if (fl_store_run_start(st, &rn, &run_a))
		return -1;
	job_a = publish("a", ((int64_t)time(NULL) + 3600) * 1000);
	if (fl_agentapi_start(&api, cfg, NULL))
		return -1;
	snprintf(url, sizeof(url), "%s", fl_agentapi_url(api));
	curl_global_init(CURL_GLOBAL_DEFAULT);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fl_agentapi_stop(api);
	fl_store_free(st);
	fl_config_free(cfg);
	curl_global_cleanup();
	return fl_test_rmtree(dir);
}

static void test_work_and_download(void **state)
{
	char path[96], sha[FL_AUTH_HEX];
	struct reply r;
	json_t *o, *job;
	uint64_t size;

	(void)state;
	expect(&box_b, "POST", "/agent/v1/work", "{}", 200, "\"job\":null");
	call(&box_a, "POST", "/agent/v1/work", "{\"cpus\":64,\"nodes\":8}", &r);
	assert_int_equal(r.status, 200);
	assert_true(r.sig[0]);
	o = json_loads(r.body.ptr, 0, NULL);
	job = json_object_get(o, "job");
	assert_int_equal(json_integer_value(json_object_get(job, "id")), job_a);
	assert_string_equal(json_string_value(json_object_get(job, "mode")), "kexec");
	assert_int_equal(fl_sha256_file(kernel, sha, &size), 0);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(job, "kernel"), "sha256")), sha);
	snprintf(path, sizeof(path), "/agent/v1/jobs/%lld/kernel", (long long)job_a);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(job, "kernel"), "path")), path);
	json_decref(o);
	done_with(&r);

	call(&box_a, "GET", path, NULL, &r);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.body.len, size);
	{
		char got[FL_AUTH_HEX];

		fl_sha256_hex(r.body.ptr, r.body.len, got);
		assert_string_equal(got, sha);
	}
	done_with(&r);
	assert_int_equal(fl_test_sql_int(cfg->store.path,
					 "select count(*) from boxes where name = 'a' and "
					 "facts like '%\"nodes\":8%' and state = 'online'"),
			 1);
}

static void test_refused(void **state)
{
	struct signer wrong = box_a, stale = box_a, changed = box_a, none = box_a, ghost = box_a;
	char auth[512], path[96];
	struct reply r;

	(void)state;
	wrong.token = TOKEN_B;
	stale.ts = (int64_t)time(NULL) - 600;
	changed.signed_body = "{\"cpus\":1}";
	none.no_auth = 1;
	ghost.box = "ghost";
	expect(&none, "POST", "/agent/v1/work", "{}", 401, "no 'Authorization: FL-HMAC-SHA256");
	expect(&ghost, "POST", "/agent/v1/work", "{}", 401, "unknown box 'ghost'");
	expect(&wrong, "POST", "/agent/v1/work", "{}", 401, "signature does not match box 'a'");
	expect(&changed, "POST", "/agent/v1/work", "{\"cpus\":64}", 401,
	       "the body is not the one box 'a' signed");
	expect(&stale, "POST", "/agent/v1/work", "{}", 401, "stale request");
	stale.ts = (int64_t)time(NULL) + 600;
	expect(&stale, "POST", "/agent/v1/work", "{}", 401, "ahead of the orchestrator's clock");

	/* the very same request again: headers and body */
	call_at(url, &box_a, "POST", "/agent/v1/work", "{}", &r, auth);
	assert_int_equal(r.status, 200);
	done_with(&r);
	send_raw(url, "POST", "/agent/v1/work", "{}", auth, NULL, &r);
	assert_int_equal(r.status, 401);
	assert_non_null(strstr(r.body.ptr, "replayed request"));
	done_with(&r);

	/* another box's job, whatever is asked of it */
	snprintf(path, sizeof(path), "/agent/v1/jobs/%lld/kernel", (long long)job_a);
	expect(&box_b, "GET", path, NULL, 403, "another box's");
	snprintf(path, sizeof(path), "/agent/v1/jobs/%lld/records", (long long)job_a);
	expect(&box_b, "POST", path, "FLR1 0 2 00000000 {}\n", 403,
	       "box 'b' sees and uploads only");
	snprintf(path, sizeof(path), "/agent/v1/jobs/%lld/done", (long long)job_a);
	expect(&box_b, "POST", path, "{\"status\":\"failed\"}", 403, "another box's");
	snprintf(path, sizeof(path), "/agent/v1/jobs/%lld/progress", (long long)job_a);
	expect(&box_b, "POST", path, "{\"state\":\"booting\"}", 403, "another box's");
	expect(&box_a, "GET", "/agent/v1/jobs/99999/kernel", NULL, 404, "no agent job 99999");
	expect(&box_a, "GET", "/agent/v1/nothing", NULL, 404, "no endpoint");
	expect(&box_a, "GET", "/agent/v1/work", NULL, 405, "takes POST");
	/* nothing of that changed the job */
	assert_int_equal(fl_test_sql_int(cfg->store.path, "select count(*) from agent_records"), 0);
}

/* n frames from seq first, as the agent writes them. */
static void frames(fl_buf *out, unsigned first, unsigned n)
{
	for (unsigned i = first; i < first + n; i++) {
		char json[64];
		int len = snprintf(json, sizeof(json), "{\"type\":\"x\",\"i\":%u}", i);

		fl_buf_addf(out, "FLR1 %u %d %08x %s\n", i, len,
			    (unsigned)fl_crc32(0, json, (size_t)len), json);
	}
}

static void test_upload(void **state)
{
	char path[96], done[96];
	fl_buf b = FL_BUF_INIT;

	(void)state;
	snprintf(path, sizeof(path), "/agent/v1/jobs/%lld/progress", (long long)job_a);
	expect(&box_a, "POST", path, "{\"state\":\"booting\",\"message\":\"kexec\"}", 200, NULL);
	expect(&box_a, "POST", path, "{\"state\":\"dancing\"}", 400, "expected booting or running");
	snprintf(path, sizeof(path), "/agent/v1/jobs/%lld/records", (long long)job_a);
	snprintf(done, sizeof(done), "/agent/v1/jobs/%lld/done", (long long)job_a);
	frames(&b, 0, 3);
	expect(&box_a, "POST", path, b.ptr, 200, "\"stored\":3,\"duplicates\":0,\"have\":3");
	/* the same batch again (its answer was lost): nothing new */
	expect(&box_a, "POST", path, b.ptr, 200, "\"stored\":0,\"duplicates\":3,\"have\":3");
	fl_buf_reset(&b);
	frames(&b, 4, 2);
	expect(&box_a, "POST", path, b.ptr, 200, "\"stored\":2,\"duplicates\":0,\"have\":5");
	expect(&box_a, "POST", path, "FLR1 9 2 00000000 {}\n", 400, "line 1 is not an FLR1 frame");
	expect(&box_a, "POST", done, "{\"status\":\"complete\",\"records\":6}", 409,
	       "missing seq 3");
	fl_buf_reset(&b);
	frames(&b, 3, 1);
	expect(&box_a, "POST", path, b.ptr, 200, "\"have\":6");
	expect(&box_a, "POST", done, "{\"status\":\"complete\",\"records\":6}", 200, "\"ok\":true");
	/* the end again: its confirmation was lost on the way */
	expect(&box_a, "POST", done, "{\"status\":\"complete\",\"records\":6}", 200, "\"ok\":true");
	fl_buf_free(&b);
	assert_int_equal(fl_test_sql_int(cfg->store.path, "select count(*) from agent_records"), 6);
	assert_int_equal(fl_test_sql_int(cfg->store.path,
					 "select records from agent_jobs where state = 'uploaded'"),
			 6);
}

static void test_expired(void **state)
{
	int64_t id = publish("a", ((int64_t)time(NULL) + 3600) * 1000);
	char path[96];

	(void)state;
	assert_int_equal(fl_store_agent_job_end(st, id, "expired", "deadline passed", -1, 1), 0);
	snprintf(path, sizeof(path), "/agent/v1/jobs/%lld/records", (long long)id);
	expect(&box_a, "POST", path, "FLR1 0 2 00000000 {}\n", 410, "expired");
	snprintf(path, sizeof(path), "/agent/v1/jobs/%lld/initrd", (long long)id);
	expect(&box_a, "GET", path, NULL, 410, "its run ended timeout");
	expect(&box_a, "POST", "/agent/v1/work", "{}", 200, "\"job\":null");
}

static void test_https(void **state)
{
	char cert[128], key[128], path[160];
	struct fl_config *tls;
	fl_agentapi *s;
	struct signer a = box_a;
	struct reply r;

	(void)state;
	snprintf(cert, sizeof(cert), "%s/cert.pem", dir);
	snprintf(key, sizeof(key), "%s/key.pem", dir);
	if (fl_test_sh("openssl req -x509 -newkey rsa:2048 -nodes -keyout %s -out %s -days 1 "
		       "-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null",
		       key, cert))
		skip();
	snprintf(path, sizeof(path), "%s/tls.yaml", dir);
	assert_int_equal(
	    fl_test_write(path,
			  "var: %s/var\n"
			  "agent_api: { listen: '127.0.0.1:0', cert: %s, key: %s }\n"
			  "machines: [ { name: a, backend: baremetal, token_file: %s/a.token } ]\n",
			  dir, cert, key, dir),
	    0);
	assert_int_equal(fl_config_load(&tls, path), 0);
	if (fl_agentapi_start(&s, tls, NULL)) {
		assert_non_null(strstr(fl_error_last(), "no TLS"));
		fl_config_free(tls);
		skip();
	}
	assert_int_equal(strncmp(fl_agentapi_url(s), "https://", 8), 0);
	a.ca = cert;
	call_at(fl_agentapi_url(s), &a, "POST", "/agent/v1/work", "{}", &r, NULL);
	assert_int_equal(r.status, 200);
	assert_true(r.sig[0]);
	done_with(&r);
	fl_agentapi_stop(s);
	fl_config_free(tls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_work_and_download),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_upload),
	    cmocka_unit_test(test_expired),
	    cmocka_unit_test(test_https),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
