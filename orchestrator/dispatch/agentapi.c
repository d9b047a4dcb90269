/*
 * agentapi.c - the bare-metal agent API (see agentapi.h): authentication
 * (from the headers, then the body's hash), the five endpoints, the
 * answers and their signatures.
 */
#include "dispatch/agentapi.h"
#include "machine/machine.h"
#include "lib/buf.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "lib/httpd.h"
#include "lib/log.h"
#include "dispatch/replay.h"
#include "store/agent.h"
#include "store/threads.h"

#include "proto/auth.h"
#include "proto/record.h"
#include "lib/time.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FACTS_MAX   16384
#define MESSAGE_MAX 2000
#define FRAMES_MAX  100000
#define REPLAY_MAX  200000
#define THREADS	    4

struct box {
	const char *name;
	char *token;
};

struct fl_agentapi {
	fl_httpd *httpd;
	struct fl_store_threads stores;
	struct box *boxes;
	size_t nboxes;
	fl_replay *replay;
	int64_t window_s;
	char *cert, *key;
	/* FAULTLINE_AGENTAPI_CUT=N: drop one connection once N records are kept (tests) */
	long cut_after;
	atomic_long stored;
	atomic_int cut_done;
};

struct answer {
	int status;
	fl_buf body; /* JSON */
	int fd;	     /* or a file */
	uint64_t size;
	const struct box *box; /* signs the answer once known */
	char nonce[FL_AUTH_NONCE_MAX + 1];
	int drop; /* close the connection without an answer */
};

/* ---- answers ------------------------------------------------------------ */

static void answer_json(struct answer *a, int status, json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);

	a->status = status;
	fl_buf_reset(&a->body);
	fl_buf_adds(&a->body, s ? s : "{}");
	free(s);
	json_decref(o);
}

static void answer_error(struct answer *a, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void answer_error(struct answer *a, int status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	answer_json(a, status, json_pack("{s:s}", "error", msg));
}

static void answer_ok(struct answer *a)
{
	answer_json(a, MHD_HTTP_OK, json_pack("{s:b}", "ok", 1));
}

/* ---- authentication ------------------------------------------------------- */

static const struct box *find_box(const fl_agentapi *api, const char *name)
{
	for (size_t i = 0; i < api->nboxes; i++)
		if (!strcmp(api->boxes[i].name, name))
			return &api->boxes[i];
	return NULL;
}

/* The Authorization header's fields and the box they name; NULL with a 401 answer. */
static const struct box *claimed_box(fl_agentapi *api, struct MHD_Connection *c,
				     struct fl_auth_fields *f, struct answer *a)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, FL_AUTH_HEADER);
	const struct box *box;
	char why[256];

	if (fl_auth_parse(h, f, why, sizeof(why))) {
		answer_error(a, MHD_HTTP_UNAUTHORIZED, "%s", why);
		return NULL;
	}
	if (!(box = find_box(api, f->box))) {
		answer_error(a, MHD_HTTP_UNAUTHORIZED,
			     "unknown box '%s': no baremetal machine of that name is configured",
			     f->box);
		return NULL;
	}
	a->box = box;
	snprintf(a->nonce, sizeof(a->nonce), "%s", f->nonce);
	return box;
}

/*
 * The box that signed the request, from its headers alone (the signature
 * covers the body's SHA-256 the header states, checked against the body
 * once it is read); NULL with the answer (401, 503) set. Nothing of the
 * body is read for a request that fails here.
 */
static const struct box *authenticate(fl_agentapi *api, struct MHD_Connection *c,
				      const struct fl_httpd_req *rq, struct answer *a)
{
	struct fl_auth_fields f;
	char sig[FL_AUTH_HEX], *canon;
	int64_t now = fl_wall_ms() / 1000, off;
	const struct box *box;
	int r;

	if (!(box = claimed_box(api, c, &f, a)))
		return NULL;
	off = f.ts - now;
	if (off > api->window_s || -off > api->window_s) {
		answer_error(a, MHD_HTTP_UNAUTHORIZED,
			     "stale request: timestamp %lld is %lld s %s the orchestrator's clock "
			     "(window %lld s); check the box's clock",
			     (long long)f.ts, (long long)(off < 0 ? -off : off),
			     off < 0 ? "behind" : "ahead of", (long long)api->window_s);
		return NULL;
	}
	canon = fl_auth_canonical(rq->method, rq->url, f.box, f.ts, f.nonce, f.body);
	fl_auth_hmac(box->token, strlen(box->token), canon ? canon : "", sig);
	free(canon);
	if (!fl_auth_equal(sig, f.sig)) {
		answer_error(a, MHD_HTTP_UNAUTHORIZED,
			     "signature does not match box '%s''s token: a wrong token, or the "
			     "request was changed on the way",
			     f.box);
		return NULL;
	}
	r = fl_replay_check(api->replay, f.box, f.nonce, f.ts, now);
	if (r) {
		answer_error(a,
			     r == FL_EAGAIN ? MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_UNAUTHORIZED,
			     "%s%s", r == FL_EEXISTS ? "replayed request: " : "", fl_error_last());
		return NULL;
	}
	return box;
}

/* The body, now read, is the one the box signed; 0, or FL_EINVAL with a 401 answer. */
static int body_signed(const struct fl_auth_fields *f, const fl_buf *body, struct answer *a)
{
	char hex[FL_AUTH_HEX];

	fl_sha256_hex(body->ptr ? body->ptr : "", body->len, hex);
	if (fl_auth_equal(hex, f->body))
		return 0;
	answer_error(a, MHD_HTTP_UNAUTHORIZED,
		     "the body is not the one box '%s' signed (its SHA-256 differs): the request "
		     "was changed on the way",
		     f->box);
	return FL_EINVAL;
}

/* ---- the endpoints ------------------------------------------------------------ */

static json_t *file_json(int64_t id, const char *what, const char *sha, int64_t size)
{
	char path[96];

	snprintf(path, sizeof(path), FL_AGENTAPI_PREFIX "/jobs/%lld/%s", (long long)id, what);
	return json_pack("{s:s, s:s, s:I}", "path", path, "sha256", sha, "size", (json_int_t)size);
}

static json_t *job_json(const struct fl_agent_job *j)
{
	json_t *o = json_pack("{s:I, s:I, s:s, s:s, s:s, s:I}", "id", (json_int_t)j->id, "run",
			      (json_int_t)j->run_id, "mode", j->mode, "job", j->job, "cmdline",
			      j->cmdline, "deadline_ms", (json_int_t)j->deadline_ms);

	if (j->kernel_path)
		json_object_set_new(o, "kernel",
				    file_json(j->id, "kernel", j->kernel_sha256, j->kernel_size));
	if (j->initrd_path)
		json_object_set_new(o, "initrd",
				    file_json(j->id, "initrd", j->initrd_sha256, j->initrd_size));
	return o;
}

/* The box's facts as compact JSON, or NULL (none or not an object: then said in *bad). */
static char *facts_of(const fl_buf *body, int *bad)
{
	json_t *o;
	char *s;

	*bad = 0;
	if (!body->len)
		return NULL;
	o = json_loadb(body->ptr, body->len, 0, NULL);
	if (!json_is_object(o) || body->len > FACTS_MAX) {
		json_decref(o);
		*bad = 1;
		return NULL;
	}
	s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	return s;
}

static void work(fl_store *st, const struct box *box, const fl_buf *body, struct answer *a)
{
	struct fl_agent_job j;
	int64_t now = fl_wall_ms();
	int bad, r;
	char *facts = facts_of(body, &bad);

	if (bad) {
		answer_error(a, MHD_HTTP_BAD_REQUEST,
			     "the body of a work request is the box's facts: a JSON object of at "
			     "most %d bytes",
			     FACTS_MAX);
		return;
	}
	r = fl_store_box_seen(st, box->name, facts, now);
	free(facts);
	if (!r)
		r = fl_store_agent_job_next(st, box->name, now, &j);
	if (r == FL_ENOTFOUND) {
		answer_json(a, MHD_HTTP_OK, json_pack("{s:n}", "job"));
		return;
	}
	if (r) {
		answer_error(a, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", fl_error_last());
		return;
	}
	if (j.fetched_ms == now)
		fl_info("agent api: box %s took job %lld (run %lld, %s)", box->name,
			(long long)j.id, (long long)j.run_id, j.mode);
	answer_json(a, MHD_HTTP_OK, json_pack("{s:o}", "job", job_json(&j)));
	fl_agent_job_release(&j);
}

/* 410 for a job that ended: what happened to it. */
static void answer_gone(struct answer *a, const struct fl_agent_job *j)
{
	if (!strcmp(j->state, "expired"))
		answer_error(a, MHD_HTTP_GONE,
			     "job %lld expired: its deadline passed first, its run ended timeout, "
			     "and its records are not wanted any more",
			     (long long)j->id);
	else
		answer_error(a, MHD_HTTP_GONE, "job %lld is %s%s%s", (long long)j->id, j->state,
			     j->message ? ": " : "", j->message ? j->message : "");
}

static void download(const struct fl_agent_job *j, const char *what, struct answer *a)
{
	const char *path = !strcmp(what, "kernel") ? j->kernel_path : j->initrd_path;
	int64_t size = !strcmp(what, "kernel") ? j->kernel_size : j->initrd_size;
	struct stat sb;

	if (!fl_agent_job_live(j)) {
		answer_gone(a, j);
		return;
	}
	if (!path) {
		answer_error(a, MHD_HTTP_NOT_FOUND, "job %lld runs the box's own kernel: no %s",
			     (long long)j->id, what);
		return;
	}
	a->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (a->fd < 0 || fstat(a->fd, &sb) || sb.st_size != size) {
		answer_error(a, MHD_HTTP_INTERNAL_SERVER_ERROR, "job %lld: %s %s: %s",
			     (long long)j->id, what, path,
			     a->fd < 0 ? strerror(errno) : "changed since the job was published");
		if (a->fd >= 0)
			close(a->fd);
		a->fd = -1;
		return;
	}
	a->size = (uint64_t)sb.st_size;
	a->status = MHD_HTTP_OK;
}

/* The body as a JSON object; NULL with a 400 answer. */
static json_t *json_body(const fl_buf *body, struct answer *a, const char *what)
{
	json_error_t e;
	json_t *o = json_loadb(body->ptr ? body->ptr : "", body->len, 0, &e);

	if (!json_is_object(o)) {
		answer_error(a, MHD_HTTP_BAD_REQUEST, "%s: expected a JSON object (%s)", what,
			     o ? "not an object" : e.text);
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A message from the box, bounded and on one line. */
static char *box_message(json_t *o)
{
	const char *m = json_string_value(json_object_get(o, "message"));
	fl_buf b = FL_BUF_INIT;

	for (size_t i = 0; m && m[i] && b.len < MESSAGE_MAX; i++)
		fl_buf_addch(&b, (unsigned char)m[i] < 0x20 ? ' ' : m[i]);
	return m && *m ? fl_buf_detach(&b) : (fl_buf_free(&b), NULL);
}

static void progress(fl_store *st, const struct fl_agent_job *j, const fl_buf *body,
		     struct answer *a)
{
	json_t *o = json_body(body, a, "progress");
	const char *state = json_string_value(json_object_get(o, "state"));
	char *msg = box_message(o);
	int r;

	if (!o)
		return;
	r = fl_store_agent_job_progress(st, j->id, state ? state : "", msg, fl_wall_ms());
	if (r == FL_EEXISTS)
		answer_gone(a, j);
	else if (r == FL_EINVAL)
		answer_error(a, MHD_HTTP_BAD_REQUEST, "%s", fl_error_last());
	else if (r)
		answer_error(a, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", fl_error_last());
	else {
		fl_info("agent api: box %s: job %lld %s", j->box, (long long)j->id, state);
		answer_ok(a);
	}
	free(msg);
	json_decref(o);
}

/* Frames, one per line; n of them, or 0 with a 400 answer. */
static size_t parse_frames(const fl_buf *body, struct fl_agent_frame **out, struct answer *a)
{
	const char *p = body->ptr ? body->ptr : "", *end = p + body->len;
	struct fl_agent_frame *f = NULL;
	size_t n = 0, line = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *payload;
		size_t len = (size_t)((nl ? nl : end) - p), plen;
		uint64_t seq;

		line++;
		if (len && n >= FRAMES_MAX) {
			answer_error(a, 413, "more than %d records in one request", FRAMES_MAX);
			free(f);
			return 0;
		}
		if (len && fl_record_parse_frame(p, len, &seq, &payload, &plen)) {
			answer_error(
			    a, MHD_HTTP_BAD_REQUEST,
			    "line %zu is not an FLR1 frame (its length or CRC does not match)",
			    line);
			free(f);
			return 0;
		}
		if (len) {
			f = fl_xrealloc(f, (n + 1) * sizeof(*f));
			f[n++] = (struct fl_agent_frame){seq, p, len};
		}
		p += len + 1;
	}
	if (!n)
		answer_error(a, MHD_HTTP_BAD_REQUEST, "no records in the request");
	*out = f;
	return n;
}

static void records(fl_agentapi *api, fl_store *st, const struct fl_agent_job *j,
		    const fl_buf *body, struct answer *a)
{
	struct fl_agent_frame *f = NULL;
	size_t n, added, have;
	long total;

	if (!fl_agent_job_live(j) && strcmp(j->state, "uploaded")) {
		answer_gone(a, j);
		return;
	}
	if (!(n = parse_frames(body, &f, a)))
		return;
	if (fl_store_agent_records_add(st, j->id, f, n, fl_wall_ms(), &added) ||
	    fl_store_agent_records_count(st, j->id, 0, &have, NULL)) {
		answer_error(a, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", fl_error_last());
		free(f);
		return;
	}
	free(f);
	if (added < n)
		fl_info("agent api: box %s: job %lld: %zu record%s, %zu of them kept already",
			j->box, (long long)j->id, n, FL_S(n), n - added);
	answer_json(a, MHD_HTTP_OK,
		    json_pack("{s:I, s:I, s:I}", "stored", (json_int_t)added, "duplicates",
			      (json_int_t)(n - added), "have", (json_int_t)have));
	total = atomic_fetch_add(&api->stored, (long)added) + (long)added;
	if (api->cut_after > 0 && total >= api->cut_after && !atomic_exchange(&api->cut_done, 1)) {
		fl_warn("agent api: FAULTLINE_AGENTAPI_CUT=%ld: dropping the connection after %ld "
			"records kept, before the box hears it (a fault injected for tests)",
			api->cut_after, total);
		a->drop = 1;
	}
}

static void done(fl_store *st, const struct fl_agent_job *j, const fl_buf *body, struct answer *a)
{
	json_t *o = json_body(body, a, "done");
	const char *status = json_string_value(json_object_get(o, "status"));
	json_int_t want = json_integer_value(json_object_get(o, "records"));
	char *msg = box_message(o), *missing = NULL;
	size_t have = 0;
	int complete = status && !strcmp(status, "complete"), r;

	if (!o)
		return;
	if (!complete && (!status || strcmp(status, "failed")))
		answer_error(a, MHD_HTTP_BAD_REQUEST, "done: status is 'complete' or 'failed'");
	else if (complete && !strcmp(j->state, "uploaded"))
		answer_ok(a); /* the confirmation was lost on the way: the same answer again */
	else if (!fl_agent_job_live(j))
		answer_gone(a, j);
	else if (complete &&
		 (want < 0 || fl_store_agent_records_count(st, j->id, want, &have, &missing)))
		answer_error(
		    a, want < 0 ? MHD_HTTP_BAD_REQUEST : MHD_HTTP_INTERNAL_SERVER_ERROR, "%s",
		    want < 0 ? "done: 'records' is the number of records" : fl_error_last());
	else if (complete && (*missing || (json_int_t)have < want))
		answer_error(a, MHD_HTTP_CONFLICT,
			     "have %zu of the %lld records of job %lld; missing seq %s", have,
			     (long long)want, (long long)j->id, *missing ? missing : "(beyond)");
	else if ((r = fl_store_agent_job_end(st, j->id, complete ? "uploaded" : "failed", msg,
					     complete ? want : -1, fl_wall_ms())))
		answer_error(a, r == FL_EEXISTS ? MHD_HTTP_GONE : MHD_HTTP_INTERNAL_SERVER_ERROR,
			     "%s", fl_error_last());
	else {
		fl_info("agent api: box %s: job %lld %s%s%s", j->box, (long long)j->id,
			complete ? "uploaded" : "failed", msg ? ": " : "", msg ? msg : "");
		answer_ok(a);
	}
	free(missing);
	free(msg);
	json_decref(o);
}

/* /agent/v1/jobs/<id>/<what>: 0 with both, -1 for another path. */
static int job_path(const char *url, int64_t *id, char *what, size_t n)
{
	const char *p = url + strlen(FL_AGENTAPI_PREFIX "/jobs/");
	char *end;
	long long v;

	if (strncmp(url, FL_AGENTAPI_PREFIX "/jobs/", strlen(FL_AGENTAPI_PREFIX "/jobs/")) ||
	    *p < '1' || *p > '9')
		return -1;
	errno = 0;
	v = strtoll(p, &end, 10);
	if (errno || *end != '/' || strlen(end + 1) >= n || strchr(end + 1, '/'))
		return -1;
	*id = v;
	snprintf(what, n, "%s", end + 1);
	return 0;
}

static int method_is(const char *method, const char *want, struct answer *a)
{
	if (!strcmp(method, want))
		return 1;
	answer_error(a, MHD_HTTP_METHOD_NOT_ALLOWED, "%.15s: this endpoint takes %s", method, want);
	return 0;
}

static void route(fl_agentapi *api, fl_store *st, const struct box *box, const char *method,
		  const char *url, const fl_buf *body, struct answer *a)
{
	struct fl_agent_job j;
	char what[16];
	int64_t id;
	int r;

	if (!strcmp(url, FL_AGENTAPI_PREFIX "/work")) {
		if (method_is(method, "POST", a))
			work(st, box, body, a);
		return;
	}
	if (job_path(url, &id, what, sizeof(what))) {
		answer_error(a, MHD_HTTP_NOT_FOUND, "no endpoint %.100s", url);
		return;
	}
	if ((r = fl_store_agent_job_get(st, id, &j))) {
		answer_error(
		    a, r == FL_ENOTFOUND ? MHD_HTTP_NOT_FOUND : MHD_HTTP_INTERNAL_SERVER_ERROR,
		    "%s", fl_error_last());
		return;
	}
	if (strcmp(j.box, box->name))
		answer_error(
		    a, MHD_HTTP_FORBIDDEN,
		    "job %lld is another box's: box '%s' sees and uploads only its own jobs",
		    (long long)id, box->name);
	else if (!strcmp(what, "kernel") || !strcmp(what, "initrd")) {
		if (method_is(method, "GET", a))
			download(&j, what, a);
	} else if (!strcmp(what, "progress")) {
		if (method_is(method, "POST", a))
			progress(st, &j, body, a);
	} else if (!strcmp(what, "records")) {
		if (method_is(method, "POST", a))
			records(api, st, &j, body, a);
	} else if (!strcmp(what, "done")) {
		if (method_is(method, "POST", a))
			done(st, &j, body, a);
	} else
		answer_error(a, MHD_HTTP_NOT_FOUND, "no endpoint %.100s", url);
	fl_agent_job_release(&j);
}

/* ---- lib/httpd.h's steps ------------------------------------------------------ */

static int send_answer(struct MHD_Connection *c, struct fl_httpd_req *rq, struct answer *a)
{
	struct MHD_Response *r;
	uint64_t bytes = a->fd >= 0 ? a->size : a->body.len;

	if (a->drop) {
		if (a->fd >= 0)
			close(a->fd);
		return MHD_NO;
	}
	if (a->fd >= 0)
		r = MHD_create_response_from_fd64(a->size, a->fd);
	else {
		size_t len = a->body.len;
		char sig[FL_AUTH_HEX];

		if (a->box)
			fl_auth_sign_response(a->box->token, a->status, a->nonce, a->body.ptr, len,
					      sig);
		r = MHD_create_response_from_buffer(len, fl_buf_detach(&a->body),
						    MHD_RESPMEM_MUST_FREE);
		if (r && a->box)
			MHD_add_response_header(r, FL_AUTH_SIGNATURE, sig);
	}
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				a->fd >= 0 ? "application/octet-stream" : "application/json");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	return fl_httpd_queue(c, rq, a->status, r, bytes);
}

/* Refusals are warnings (the path is the client's: log.c keeps it on its line). */
static int answer_request(struct MHD_Connection *c, struct fl_httpd_req *rq, struct answer *a)
{
	int ret;

	if (a->status == MHD_HTTP_UNAUTHORIZED || a->status == MHD_HTTP_FORBIDDEN)
		fl_warn("agent api: %s \"%s %.200s\" refused (%d): %s", rq->client, rq->method,
			rq->url, a->status, a->body.ptr ? a->body.ptr : "");
	ret = send_answer(c, rq, a);
	fl_buf_free(&a->body);
	return ret;
}

/* Authentication, before any of the body is read. */
static int head(void *cls, struct MHD_Connection *c, struct fl_httpd_req *rq)
{
	struct answer a = {.status = 500, .body = FL_BUF_INIT, .fd = -1};

	if (authenticate(cls, c, rq, &a))
		return 0;
	return answer_request(c, rq, &a) == MHD_YES ? 1 : -1;
}

static int handle(void *cls, struct MHD_Connection *c, struct fl_httpd_req *rq)
{
	fl_agentapi *api = cls;
	struct answer a = {.status = 500, .body = FL_BUF_INIT, .fd = -1};
	struct fl_auth_fields f;
	const struct box *box = claimed_box(api, c, &f, &a); /* head() checked it */
	fl_store *st;

	if (box && !body_signed(&f, &rq->body, &a)) {
		if ((st = fl_store_thread(&api->stores)))
			route(api, st, box, rq->method, rq->url, &rq->body, &a);
		else
			answer_error(&a, MHD_HTTP_SERVICE_UNAVAILABLE, "%s", fl_error_last());
	}
	return answer_request(c, rq, &a);
}

static int refuse(void *cls, struct MHD_Connection *c, struct fl_httpd_req *rq, int status,
		  const char *message)
{
	struct answer a = {.status = 500, .body = FL_BUF_INIT, .fd = -1};

	(void)cls;
	answer_error(&a, status, "%s", message);
	return answer_request(c, rq, &a);
}

static const struct fl_httpd_ops api_ops = {head, handle, refuse};

/* ---- start and stop -------------------------------------------------------------- */

/* A box: its backend's machines ask this API for work. */
static int asks_agent_api(const struct fl_machine_conf *m)
{
	const struct fl_machine_ops *ops = fl_machine_backend(m->backend);

	return ops && ops->agent_api;
}

static int load_boxes(fl_agentapi *api, const struct fl_config *cfg)
{
	char why[512];

	api->boxes = fl_xcalloc(cfg->nmachines + 1, sizeof(*api->boxes));
	for (size_t i = 0; i < cfg->nmachines; i++) {
		const struct fl_machine_conf *m = &cfg->machines[i];
		struct box *b = &api->boxes[api->nboxes];

		if (!asks_agent_api(m))
			continue;
		if (fl_auth_read_token(m->token_file, &b->token, why, sizeof(why)))
			return fl_error_set(FL_EINVAL, "machine '%s': %s", m->name, why);
		b->name = m->name;
		api->nboxes++;
	}
	return 0;
}

/* A PEM file as libmicrohttpd takes it: the whole text, NUL-ended. */
static int read_pem(const char *path, char **out)
{
	fl_buf b = FL_BUF_INIT;
	int r = fl_read_file(path, &b);

	if (r)
		fl_buf_free(&b);
	else
		*out = fl_buf_detach(&b);
	return r;
}

static int load_tls(fl_agentapi *api, const struct fl_config *cfg)
{
	if (!cfg->agent_api.cert)
		return 0;
	if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
		return fl_error_set(FL_EINVAL, "agent_api.cert: this libmicrohttpd has no TLS");
	if (read_pem(cfg->agent_api.cert, &api->cert) || read_pem(cfg->agent_api.key, &api->key))
		return fl_error_wrap(FL_EIO, "agent_api");
	return 0;
}

int fl_agentapi_start(fl_agentapi **out, const struct fl_config *cfg, const char *listen)
{
	fl_agentapi *api = fl_xcalloc(1, sizeof(*api));
	const char *at = listen ? listen : cfg->agent_api.listen;
	struct fl_httpd_opts ho = {"agent api", at,   THREADS,	&cfg->agent_api.limits,
				   NULL,	NULL, &api_ops, api};
	int r;

	*out = NULL;
	api->window_s = cfg->agent_api.window_ms > 0 ? cfg->agent_api.window_ms / 1000 : 300;
	api->replay = fl_replay_new(api->window_s, REPLAY_MAX);
	api->cut_after =
	    getenv("FAULTLINE_AGENTAPI_CUT") ? atol(getenv("FAULTLINE_AGENTAPI_CUT")) : 0;
	if (!at)
		r = fl_error_set(FL_EINVAL, "%s: no agent_api.listen for the boxes to reach",
				 cfg->path);
	else if (!(r = load_boxes(api, cfg)) && !(r = load_tls(api, cfg)) &&
		 !(r = fl_store_threads_init(&api->stores, cfg->store.path, 0))) {
		ho.cert = api->cert;
		ho.key = api->key;
		r = fl_httpd_start(&api->httpd, &ho);
	}
	if (r) {
		fl_agentapi_stop(api);
		return fl_error_wrap(r, "agent api");
	}
	*out = api;
	return 0;
}

const char *fl_agentapi_url(const fl_agentapi *a)
{
	return fl_httpd_url(a->httpd);
}

void fl_agentapi_stop(fl_agentapi *api)
{
	if (!api)
		return;
	fl_httpd_stop(api->httpd);
	fl_store_threads_fini(&api->stores);
	for (size_t i = 0; i < api->nboxes; i++)
		free(api->boxes[i].token);
	free(api->boxes);
	fl_replay_free(api->replay);
	free(api->cert);
	free(api->key);
	free(api);
}

int fl_agentapi_start_for(fl_agentapi **out, const struct fl_config *cfg,
			  const struct fl_machine_conf *m)
{
	int need = 0, r;

	*out = NULL;
	for (size_t i = 0; i < cfg->nmachines && !need; i++)
		need = (!m || m == &cfg->machines[i]) && asks_agent_api(&cfg->machines[i]);
	if (!need)
		return 0;
	if ((r = fl_agentapi_start(out, cfg, NULL)))
		return r;
	fl_info("agent api: listening on %s for %zu box%s", fl_agentapi_url(*out), (*out)->nboxes,
		(*out)->nboxes == 1 ? "" : "es");
	return 0;
}
