/*
 * daemon.c - "fl-agent daemon": the agent of a bare-metal box. It asks the
 * orchestrator's agent API for work, boots each kernel under test with
 * kexec_file_load, and after the box is back in its own kernel uploads the
 * records the test kernel's agent left in the results store (results.h).
 * docs/baremetal.md describes the protocol and the flow.
 *
 *   fl-agent daemon --server URL --box NAME --token-file F [--results DIR]
 *                   [--results-dev DEV] [--kexec-hook CMD] [--append ARGS]
 *                   [--poll 10s] [--batch 64] [--cacert F] [--once]
 *
 * Everything a job goes through is kept under DIR/jobs/<id>/ so that the
 * daemon, started again after the kexec (or any crash), carries on where it
 * was:
 *   job.json    the job as the orchestrator handed it out
 *   kernel, initrd   the downloads, checked against their SHA-256
 *   state       new (downloading), fetched (downloaded), booted (handed to
 *               kexec or the hook), collected (records copied out of the
 *               results store), failed (it could not run here; note says why)
 *   note        what the daemon tells the orchestrator with the end
 *   records     the FLR1 frames, one per line, in the order of the store
 *   confirmed   how many of those lines the orchestrator has confirmed
 * A job's directory is removed only once the orchestrator has confirmed
 * every record and the end of the upload (or said the job is gone).
 *
 * The kexec step runs "kexec -s -l KERNEL --initrd INITRD --append CMDLINE"
 * and "kexec -e". --kexec-hook CMD replaces both with "sh -c CMD" (FL_KERNEL,
 * FL_INITRD, FL_CMDLINE and FL_JOB in its environment); when it returns, the
 * daemon goes on as if the box had come back. That is the seam the tests
 * use: CI machines cannot kexec, so their hook runs the initramfs's /init in
 * guest mode as a child process with the same command line.
 *
 * A job's steps (downloads, boot, collecting) return 0 or a negative FL_E*
 * code with the message kept (proto/error.h), and step_end() says it once:
 * a job that cannot run on this box (FL_EINVAL) is failed and the
 * orchestrator told; any other trouble leaves it pending for the next pass.
 * The exchanges with the orchestrator answer with their outcome (confirmed,
 * gone, again, refused) and say it where it is known.
 */
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agents/daemon.h"
#include "agents/results.h"
#include "agents/topo.h"
#include "proto/auth.h"
#include "proto/error.h"
#include "proto/facts.h"
#include "proto/jobline.h"
#include "proto/record.h"

extern char **environ;

#define API	     "/agent/v1"
#define UPLOAD_TRIES 6

struct daemon {
	const char *server, *box, *dir, *dev, *hook, *append, *cacert;
	char *token;
	char prefix[256]; /* the path part of --server, signed with every request */
	int poll_s, batch, once;
	CURL *curl;
};

struct reply {
	long status;
	char *body;
	size_t len;
	char sig[FL_AUTH_HEX];
	char error[CURL_ERROR_SIZE];
	FILE *to; /* a download goes here, not into body */
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char msg[1024], when[32];
	struct timespec ts;
	struct tm tm;
	va_list ap;

	/* one line: the time (ISO 8601, UTC), then the message, a server's
	 * reply in it included, its control characters as ? */
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	fprintf(stderr, "%s.%03ldZ fl-agent daemon: %s\n", when, ts.tv_nsec / 1000000, msg);
}

/* FL_AGENT_CRASH_AT=NAME:N: the N-th time NAME is reached the daemon dies (tests). */
static void crashpoint(const char *name)
{
	static int hits;
	const char *at = getenv("FL_AGENT_CRASH_AT");
	size_t len = strlen(name);

	if (!at || strncmp(at, name, len) || (at[len] && at[len] != ':'))
		return;
	if (++hits < (at[len] ? atoi(at + len + 1) : 1))
		return;
	say("crash point '%s' reached: killing the daemon", name);
	raise(SIGKILL);
}

/* ---- files ------------------------------------------------------------ */

static char *job_path(const struct daemon *d, uint64_t id, const char *name)
{
	char *p = NULL;

	if (asprintf(&p, "%s/jobs/%" PRIu64 "%s%s", d->dir, id, name ? "/" : "", name ? name : "") <
	    0)
		abort();
	return p;
}

static char *jobs_dir(const struct daemon *d)
{
	char *p = NULL;

	if (asprintf(&p, "%s/jobs", d->dir) < 0)
		abort();
	return p;
}

/* Writes a small file whole: a temporary, synced, renamed over. 0 or FL_EIO. */
static int put_file(const char *path, const char *data, size_t len)
{
	char tmp[PATH_MAX];
	int fd, r;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return fl_error_set(FL_EIO, "cannot write %s: %s", tmp, strerror(errno));
	r = fl_write_full(fd, data, len, -1);
	if (!r && fsync(fd))
		r = fl_error_set(FL_EIO, "fsync: %s", strerror(errno));
	close(fd);
	if (!r && rename(tmp, path))
		r = fl_error_set(FL_EIO, "rename: %s", strerror(errno));
	return r ? fl_error_wrap(r, "cannot write %s", path) : 0;
}

static char *get_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (cap - n < 4096) {
			char *bigger = realloc(buf, cap = cap * 2 + 4096);

			if (!bigger) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = bigger;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static int set_state(const struct daemon *d, uint64_t id, const char *state)
{
	char *p = job_path(d, id, "state");
	int r = put_file(p, state, strlen(state));

	free(p);
	return r;
}

static void remove_job(const struct daemon *d, uint64_t id)
{
	static const char *const names[] = {"job.json", "kernel",    "initrd",	"state", "results",
					    "records",	"confirmed", "console", "note"};
	char *dir = job_path(d, id, NULL);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = job_path(d, id, names[i]);

		unlink(p);
		free(p);
	}
	if (rmdir(dir))
		say("job %" PRIu64 ": cannot remove %s: %s", id, dir, strerror(errno));
	free(dir);
}

/* ---- HTTP --------------------------------------------------------------- */

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct reply *r = arg;
	size_t len = size * n;
	char *bigger;

	if (r->to && r->status / 100 == 2)
		return fwrite(data, 1, len, r->to);
	bigger = realloc(r->body, r->len + len + 1);
	if (!bigger)
		return 0;
	r->body = bigger;
	memcpy(r->body + r->len, data, len);
	r->len += len;
	r->body[r->len] = '\0';
	return len;
}

static size_t on_header(char *data, size_t size, size_t n, void *arg)
{
	struct reply *r = arg;
	size_t len = size * n, k = strlen(FL_AUTH_SIGNATURE);

	if (!strncmp(data, "HTTP/", 5) && memchr(data, ' ', len))
		r->status = strtol(memchr(data, ' ', len), NULL, 10);
	if (len > k + 2 && !strncasecmp(data, FL_AUTH_SIGNATURE ":", k + 1)) {
		const char *v = data + k + 1;

		v += strspn(v, " ");
		snprintf(r->sig, sizeof(r->sig), "%.*s", (int)strcspn(v, "\r\n"), v);
	}
	return len;
}

static void reply_free(struct reply *r)
{
	free(r->body);
	memset(r, 0, sizeof(*r));
}

/* The "error" an answer gives, or its status. */
static const char *reply_error(struct reply *r)
{
	json_t *o = r->body ? json_loads(r->body, 0, NULL) : NULL;
	const char *e = json_string_value(json_object_get(o, "error"));

	if (e)
		snprintf(r->error, sizeof(r->error), "%ld: %s", r->status, e);
	else if (!r->error[0])
		snprintf(r->error, sizeof(r->error), "HTTP status %ld", r->status);
	json_decref(o);
	return r->error;
}

/*
 * One signed request. 0 when an answer came (any status; the signature of
 * a 2xx answer that is not a download checked: downloads are checked
 * against the SHA-256 of the signed job), -1 when none did or a 2xx answer
 * is not signed with the box's token (r->error says why).
 */
static int request(struct daemon *d, const char *method, const char *path, const char *body,
		   size_t len, const char *type, struct reply *r)
{
	char url[1024], full[512], auth[512], hdr[600], nonce[33], sig[FL_AUTH_HEX];
	struct curl_slist *h = NULL;
	CURLcode rc;

	r->status = 0;
	r->error[0] = '\0';
	snprintf(full, sizeof(full), "%s%s", d->prefix, path);
	snprintf(url, sizeof(url), "%s%s", d->server, path);
	if (fl_auth_nonce(nonce) ||
	    fl_auth_sign_request(d->token, d->box, method, full, body, len, (int64_t)time(NULL),
				 nonce, auth, sizeof(auth))) {
		snprintf(r->error, sizeof(r->error), "cannot sign the request");
		return -1;
	}
	snprintf(hdr, sizeof(hdr), FL_AUTH_HEADER ": %s", auth);
	h = curl_slist_append(h, hdr);
	if (type) {
		snprintf(hdr, sizeof(hdr), "Content-Type: %s", type);
		h = curl_slist_append(h, hdr);
	}
	h = curl_slist_append(h, "Expect:");
	curl_easy_reset(d->curl);
	curl_easy_setopt(d->curl, CURLOPT_URL, url);
	if (body) {
		curl_easy_setopt(d->curl, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(d->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	}
	curl_easy_setopt(d->curl, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(d->curl, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(d->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(d->curl, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(d->curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(d->curl, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(d->curl, CURLOPT_ERRORBUFFER, r->error);
	curl_easy_setopt(d->curl, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(d->curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(d->curl, CURLOPT_LOW_SPEED_TIME, 60L);
	curl_easy_setopt(d->curl, CURLOPT_NOSIGNAL, 1L);
	/*
	 * A fresh connection each time: libcurl sends a request again by itself
	 * when a kept-alive connection turns out dead, with the same nonce,
	 * which the orchestrator rightly refuses as a replay. The daemon
	 * retries with a new signature instead.
	 */
	curl_easy_setopt(d->curl, CURLOPT_FORBID_REUSE, 1L);
	if (d->cacert)
		curl_easy_setopt(d->curl, CURLOPT_CAINFO, d->cacert);
	rc = curl_easy_perform(d->curl);
	curl_slist_free_all(h);
	if (rc != CURLE_OK) {
		if (!r->error[0])
			snprintf(r->error, sizeof(r->error), "%s", curl_easy_strerror(rc));
		return -1;
	}
	curl_easy_getinfo(d->curl, CURLINFO_RESPONSE_CODE, &r->status);
	/* Errors need not be trusted to be acted on; what the box acts on must be. */
	if (r->status / 100 != 2 || r->to)
		return 0;
	fl_auth_sign_response(d->token, (int)r->status, nonce, r->body, r->len, sig);
	if (!fl_auth_equal(r->sig, sig)) {
		snprintf(
		    r->error, sizeof(r->error),
		    "the answer (HTTP %ld) is not signed with this box's token: a wrong server, "
		    "or a token that differs from the orchestrator's",
		    r->status);
		r->status = 0;
		return -1;
	}
	return 0;
}

/* POSTs o (taken) as JSON. */
static int post_json(struct daemon *d, const char *path, json_t *o, struct reply *r)
{
	char *body = json_dumps(o, JSON_COMPACT);
	int rc = request(d, "POST", path, body ? body : "{}", body ? strlen(body) : 2,
			 "application/json", r);

	free(body);
	json_decref(o);
	return rc;
}

/* ---- talking to the orchestrator -------------------------------------- */

/* What the box is: the orchestrator keeps it as the box's facts. */
static json_t *facts(void)
{
	struct utsname u;
	struct fl_topo t;
	char host[256] = "";
	long pages = sysconf(_SC_PHYS_PAGES);
	json_t *o = json_object();

	gethostname(host, sizeof(host) - 1);
	json_object_set_new(o, FL_FACT_HOSTNAME, json_string(host));
	if (!uname(&u)) {
		json_object_set_new(o, FL_FACT_KERNEL, json_string(u.release));
		json_object_set_new(o, FL_FACT_ARCH, json_string(u.machine));
	}
	if (!fl_topo_read(&t, "/sys/devices/system/node")) {
		json_object_set_new(o, FL_FACT_CPUS, json_integer(t.ncpus));
		json_object_set_new(o, FL_FACT_NODES, json_integer(t.nnodes));
	}
	if (pages > 0)
		json_object_set_new(o, FL_FACT_MEMORY,
				    json_integer((json_int_t)pages * sysconf(_SC_PAGESIZE)));
	return o;
}

static void progress(struct daemon *d, uint64_t id, const char *state, const char *message)
{
	char path[128];
	struct reply r = {0};
	json_t *o = json_pack("{s:s, s:s}", "state", state, "message", message ? message : "");

	snprintf(path, sizeof(path), API "/jobs/%" PRIu64 "/progress", id);
	if (post_json(d, path, o, &r) || r.status != 200)
		say("job %" PRIu64 ": progress '%s' not taken: %s", id, state, reply_error(&r));
	reply_free(&r);
}

/*
 * Tells the orchestrator how the job ended on this side: "complete" with
 * the number of records, or "failed" with why. 0 when it took that (or the
 * job is gone), 1 when it wants the records again, -1 otherwise.
 */
static int finish(struct daemon *d, uint64_t id, const char *status, size_t records,
		  const char *message)
{
	char path[128];
	struct reply r = {0};
	json_t *o = json_pack("{s:s, s:I, s:s}", "status", status, "records", (json_int_t)records,
			      "message", message ? message : "");
	int rc = -1;

	snprintf(path, sizeof(path), API "/jobs/%" PRIu64 "/done", id);
	if (post_json(d, path, o, &r))
		say("job %" PRIu64 ": end not confirmed: %s", id, r.error);
	else if (r.status == 200 || r.status == 410 || r.status == 404) {
		say("job %" PRIu64 ": %s", id,
		    r.status == 200 ? "the orchestrator confirmed the end" : reply_error(&r));
		rc = 0;
	} else if (r.status == 409) {
		say("job %" PRIu64 ": %s: sending every record again", id, reply_error(&r));
		rc = 1;
	} else
		say("job %" PRIu64 ": end refused: %s", id, reply_error(&r));
	reply_free(&r);
	return rc;
}

/*
 * A job that cannot run here: kept as failed with why, said to the
 * orchestrator (the run ends infra-error), then forgotten. Until the
 * orchestrator has heard it, the job stays pending in state failed.
 */
static void fail_job(struct daemon *d, uint64_t id, const char *why)
{
	char *p = job_path(d, id, "note"), note[1024];

	/* why may be the kept message, which the writes below replace on failure */
	snprintf(note, sizeof(note), "%s", why);
	say("job %" PRIu64 ": %s", id, note);
	if (put_file(p, note, strlen(note)) || set_state(d, id, "failed"))
		say("job %" PRIu64 ": cannot keep its failure: %s", id, fl_error_last());
	else if (!finish(d, id, "failed", 0, note))
		remove_job(d, id);
	free(p);
}

/* The end of a job's step (rc, its message kept): says a failure once. */
static int step_end(struct daemon *d, uint64_t id, int rc)
{
	if (rc == FL_EINVAL)
		fail_job(d, id, fl_error_last());
	else if (rc < 0)
		say("job %" PRIu64 ": %s", id, fl_error_last());
	return rc;
}

/* ---- uploading ---------------------------------------------------------- */

struct lines {
	char *data;
	char **at;
	size_t n;
};

static void lines_free(struct lines *l);

/* The lines of path: 0, or FL_EIO with l empty. */
static int read_lines(const char *path, struct lines *l)
{
	size_t len;

	memset(l, 0, sizeof(*l));
	l->data = get_file(path, &len);
	if (!l->data)
		return fl_error_set(FL_EIO, "cannot read %s: %s", path, strerror(errno));
	for (char *p = l->data, *nl; *p; p = nl + 1) {
		char **bigger;

		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		if (nl == p)
			continue;
		bigger = realloc(l->at, (l->n + 1) * sizeof(*l->at));
		if (!bigger) {
			lines_free(l);
			return fl_error_set(FL_EIO, "cannot read %s: out of memory", path);
		}
		l->at = bigger;
		l->at[l->n++] = p;
	}
	return 0;
}

static void lines_free(struct lines *l)
{
	free(l->data);
	free(l->at);
	memset(l, 0, sizeof(*l));
}

static size_t read_count(const struct daemon *d, uint64_t id, const char *name)
{
	char *p = job_path(d, id, name), *text = get_file(p, NULL);
	size_t n = text ? strtoull(text, NULL, 10) : 0;

	free(text);
	free(p);
	return n;
}

static int write_count(const struct daemon *d, uint64_t id, const char *name, size_t n)
{
	char *p = job_path(d, id, name), text[32];
	int r;

	snprintf(text, sizeof(text), "%zu\n", n);
	r = put_file(p, text, strlen(text));
	free(p);
	return r;
}

/* Sends records[from, to) once; 0 confirmed, 410 gone (or unknown), 1 no answer, -1 refused. */
static int send_batch(struct daemon *d, uint64_t id, const struct lines *l, size_t from, size_t to)
{
	char path[128], *body;
	size_t len = 0, off = 0;
	struct reply r = {0};
	int rc;

	for (size_t i = from; i < to; i++)
		len += strlen(l->at[i]) + 1;
	body = malloc(len + 1);
	if (!body)
		return -1;
	for (size_t i = from; i < to; i++)
		off += (size_t)sprintf(body + off, "%s\n", l->at[i]);
	snprintf(path, sizeof(path), API "/jobs/%" PRIu64 "/records", id);
	rc = request(d, "POST", path, body, len, "text/plain", &r);
	free(body);
	if (rc) {
		say("job %" PRIu64 ": upload of records %zu-%zu cut: %s", id, from, to - 1,
		    r.error);
		rc = 1;
	} else if (r.status == 410 || r.status == 404) {
		/* expired, cancelled, or unknown to the orchestrator: not wanted any more */
		say("job %" PRIu64 ": %s", id, reply_error(&r));
		rc = 410;
	} else if (r.status != 200) {
		say("job %" PRIu64 ": upload refused: %s", id, reply_error(&r));
		rc = r.status >= 500 ? 1 : -1;
	}
	reply_free(&r);
	return rc;
}

/*
 * Uploads a collected job from where the last confirmation left it, then
 * its end. 0 done (the directory is gone), 1 to be tried again later, -1
 * refused.
 */
static int upload(struct daemon *d, uint64_t id)
{
	char *path = job_path(d, id, "records"), *notep = job_path(d, id, "note");
	char *note = get_file(notep, NULL);
	size_t confirmed = read_count(d, id, "confirmed");
	struct lines l;
	int tries = 0, rounds = 0, rc = 0;

	if (read_lines(path, &l)) {
		say("job %" PRIu64 ": %s", id, fl_error_last());
		rc = -1;
		goto out;
	}
	if (confirmed > l.n)
		confirmed = 0;
	if (confirmed)
		say("job %" PRIu64 ": resuming the upload after %zu confirmed records", id,
		    confirmed);
	while (rc == 0) {
		while (confirmed < l.n && rc == 0) {
			size_t to =
			    confirmed + (size_t)d->batch < l.n ? confirmed + (size_t)d->batch : l.n;

			rc = send_batch(d, id, &l, confirmed, to);
			if (rc == 1 && ++tries < UPLOAD_TRIES) {
				sleep(1u << (tries - 1)); /* 1, 2, 4, 8, 16 s */
				rc = 0;
				continue;
			}
			if (rc)
				break;
			crashpoint("upload");
			confirmed = to;
			if (write_count(d, id, "confirmed", confirmed))
				say("job %" PRIu64 ": cannot keep the upload position: %s", id,
				    fl_error_last());
		}
		if (rc == 410) {
			remove_job(d, id);
			rc = 0;
			break;
		}
		if (rc)
			break;
		rc = finish(d, id, "complete", l.n, note);
		if (rc == 1 && ++rounds < 2) {
			confirmed = 0;
			rc = 0;
			continue;
		}
		if (rc == 0)
			remove_job(d, id);
		break;
	}
	if (rc == 0)
		say("job %" PRIu64 ": %zu records uploaded", id, l.n);
	lines_free(&l);
out:
	free(note);
	free(notep);
	free(path);
	return rc;
}

/* ---- after the test kernel ------------------------------------------------ */

static char *store_path(const struct daemon *d, uint64_t id)
{
	return d->dev ? strdup(d->dev) : job_path(d, id, "results");
}

/*
 * Copies the job's frames out of the results store into DIR/jobs/ID/records
 * (only frames that check out: a reset may cut the last one). 0 or a
 * negative code.
 */
static int collect(struct daemon *d, uint64_t id)
{
	char *store = store_path(d, id), *frames = NULL, *path, note[512] = "";
	uint64_t owner = 0;
	size_t len = 0, kept = 0, bad = 0;
	char *out = NULL;
	size_t olen = 0;
	int rc = fl_results_read(store, &owner, &frames, &len);

	/* a file store nothing was written to is not there: no records */
	if (rc < 0 && (d->dev || rc != FL_ENOTFOUND)) {
		free(store);
		return fl_error_wrap(rc, "cannot read the results store");
	}
	if (rc || owner != id) {
		snprintf(note, sizeof(note),
			 "the results store %s holds no records of job %" PRIu64 " (%s)", store, id,
			 rc ? "nothing was written to it" : "it holds another job's");
		say("job %" PRIu64 ": %s", id, note);
	}
	out = malloc(len + 1);
	for (const char *p = rc || owner != id ? "" : frames; out && *p;) {
		const char *e = p + strcspn(p, "\n");
		const char *payload;
		uint64_t seq;
		size_t plen;

		if (!fl_record_parse_frame(p, (size_t)(e - p), &seq, &payload, &plen)) {
			memcpy(out + olen, p, (size_t)(e - p));
			olen += (size_t)(e - p);
			out[olen++] = '\n';
			kept++;
		} else if (e > p)
			bad++;
		p = *e ? e + 1 : e;
	}
	if (bad)
		snprintf(note + strlen(note), sizeof(note) - strlen(note),
			 "%s%zu damaged lines of the results store dropped", *note ? "; " : "",
			 bad);
	path = job_path(d, id, "records");
	rc = out ? put_file(path, out, olen)
		 : fl_error_set(FL_EIO, "out of memory for %zu bytes of records", len);
	free(path);
	path = job_path(d, id, "note");
	if (!rc)
		rc = put_file(path, note, strlen(note));
	free(path);
	if (!rc) {
		say("job %" PRIu64 ": %zu records collected from %s", id, kept, store);
		rc = set_state(d, id, "collected");
	}
	free(out);
	free(frames);
	free(store);
	return rc;
}

/* ---- running a job ---------------------------------------------------------- */

/* Runs argv and waits; its exit status, or FL_EIO when it could not. */
static int run_wait(char *const argv[], const char *out_path)
{
	posix_spawn_file_actions_t fa;
	int status, rc;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	if (out_path)
		posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out_path,
						 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return fl_error_set(FL_EIO, "cannot run %s: %s", argv[0], strerror(rc));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return fl_error_set(FL_EIO, "waiting for %s: %s", argv[0], strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The test kernel's command line: the orchestrator's, then where the records go. */
static char *kernel_cmdline(const struct daemon *d, uint64_t id, json_t *job, int kexec)
{
	const char *base = json_string_value(json_object_get(job, "cmdline"));
	char *store = store_path(d, id), *c = NULL;

	if (asprintf(&c, "%s fl.agentjob=%" PRIu64 " fl.results=%s%s%s%s", base ? base : "", id,
		     store, kexec ? " fl.end=reboot" : "", d->append ? " " : "",
		     d->append ? d->append : "") < 0)
		abort();
	free(store);
	return c;
}

/* Gets a file of the job and checks it against the SHA-256 and size handed
 * out; 0, or FL_EINVAL: the job cannot run here. */
static int download(struct daemon *d, uint64_t id, json_t *job, const char *what)
{
	json_t *f = json_object_get(job, what);
	const char *url = json_string_value(json_object_get(f, "path"));
	const char *want = json_string_value(json_object_get(f, "sha256"));
	json_int_t size = json_integer_value(json_object_get(f, "size"));
	char *path = job_path(d, id, what), got[FL_AUTH_HEX];
	struct reply r = {0};
	uint64_t len = 0;
	int rc;

	if (!url || !want || strncmp(url, API "/", strlen(API) + 1)) {
		rc = fl_error_set(FL_EINVAL, "the job names no %s to download", what);
		goto out;
	}
	r.to = fopen(path, "we");
	if (!r.to) {
		rc = fl_error_set(FL_EINVAL, "%s: %s", path, strerror(errno));
		goto out;
	}
	rc = request(d, "GET", url, NULL, 0, NULL, &r);
	if (fclose(r.to) && !rc)
		rc = -1;
	r.to = NULL;
	if (rc || r.status != 200)
		rc = fl_error_set(FL_EINVAL, "%s download failed: %s", what,
				  rc ? r.error : reply_error(&r));
	else if (fl_sha256_file(path, got, &len) || strcmp(got, want) || (json_int_t)len != size)
		rc = fl_error_set(FL_EINVAL,
				  "%s download does not check out: sha256 %.16s..., %" PRIu64
				  " bytes; the job says %.16s..., %" PRId64 " bytes",
				  what, got, len, want, (int64_t)size);
	else
		say("job %" PRIu64 ": %s: %" PRIu64 " bytes, sha256 %.16s... verified", id, what,
		    len, got);
out:
	reply_free(&r);
	free(path);
	return rc;
}

/* The benchmark on the running kernel: guest mode as a child of this process. */
static int run_current(struct daemon *d, uint64_t id, const char *cmdline)
{
	char self[PATH_MAX], *console = job_path(d, id, "console");
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *argv[] = {self, "guest", "--cmdline", (char *)cmdline, NULL};
	int rc;

	if (n <= 0) {
		free(console);
		return fl_error_set(FL_EIO, "/proc/self/exe: %s", strerror(errno));
	}
	self[n] = '\0';
	say("job %" PRIu64 ": running on the current kernel", id);
	rc = run_wait(argv, console);
	free(console);
	return rc < 0 ? rc : 0;
}

/* kexec into the kernel under test; returns only when that failed, with
 * FL_EINVAL: the job cannot run here. */
static int run_kexec(struct daemon *d, uint64_t id, const char *cmdline)
{
	char *kernel = job_path(d, id, "kernel"), *initrd = job_path(d, id, "initrd");
	char *load[] = {"kexec",	 "-s", "-l", kernel, "--initrd", initrd, "--append",
			(char *)cmdline, NULL};
	char *exec[] = {"kexec", "-e", NULL};
	int rc;

	say("job %" PRIu64 ": kexec -s -l %s --initrd %s --append \"%s\"", id, kernel, initrd,
	    cmdline);
	rc = run_wait(load, NULL);
	if (rc == 0) {
		sync();
		rc = run_wait(exec, NULL);
		rc = rc < 0
			 ? fl_error_wrap(FL_EINVAL, "kexec -e")
			 : fl_error_set(FL_EINVAL,
					"kexec -e returned (status %d): the box did not boot the "
					"kernel under test",
					rc);
	} else
		rc = rc < 0 ? fl_error_wrap(FL_EINVAL, "kexec -s -l")
			    : fl_error_set(FL_EINVAL,
					   "kexec -s -l failed (status %d): the box refuses this "
					   "kernel (kexec_file_load)",
					   rc);
	free(kernel);
	free(initrd);
	return rc;
}

/* The kexec step of the tests: sh -c HOOK with the job's files in its environment. */
static int run_hook(struct daemon *d, uint64_t id, const char *cmdline)
{
	char *kernel = job_path(d, id, "kernel"), *initrd = job_path(d, id, "initrd"), num[32];
	char *argv[] = {"/bin/sh", "-c", (char *)d->hook, NULL};
	int rc;

	snprintf(num, sizeof(num), "%" PRIu64, id);
	setenv("FL_KERNEL", kernel, 1);
	setenv("FL_INITRD", initrd, 1);
	setenv("FL_CMDLINE", cmdline, 1);
	setenv("FL_JOB", num, 1);
	say("job %" PRIu64 ": kexec hook instead of kexec: %s", id, d->hook);
	rc = run_wait(argv, NULL);
	free(kernel);
	free(initrd);
	if (rc < 0)
		return fl_error_wrap(FL_EINVAL, "the kexec hook");
	if (rc)
		return fl_error_set(FL_EINVAL, "the kexec hook exited with status %d", rc);
	return 0;
}

/* Boots the fetched job (kexec, hook or current kernel); 0 when the
 * results store is to be read, or a negative code. */
static int boot(struct daemon *d, uint64_t id, json_t *job)
{
	const char *mode = json_string_value(json_object_get(job, "mode"));
	int current = mode && !strcmp(mode, "current");
	char *cmdline = kernel_cmdline(d, id, job, !current);
	int rc;

	progress(d, id, current ? "running" : "booting", cmdline);
	if ((rc = set_state(d, id, "booted")))
		;
	else if (current)
		rc = run_current(d, id, cmdline);
	else if (d->hook)
		rc = run_hook(d, id, cmdline);
	else if (!d->dev)
		rc = fl_error_set(
		    FL_EINVAL, "this box has no --results-dev: the kernel under test can keep its "
			       "records only on a raw partition of the box's disk");
	else
		rc = run_kexec(d, id, cmdline);
	free(cmdline);
	return rc;
}

static json_t *load_job(const struct daemon *d, uint64_t id)
{
	char *p = job_path(d, id, "job.json");
	json_error_t e;
	json_t *j = json_load_file(p, 0, &e);

	if (!j)
		fl_error_set(FL_EIO, "%s: %s", p, e.text);
	free(p);
	return j;
}

/* Downloads what a kexec job boots, then boots it; 0 when its results are
 * to be read, or a negative code. */
static int start(struct daemon *d, uint64_t id, json_t *job)
{
	const char *mode = json_string_value(json_object_get(job, "mode"));
	int rc;

	if (!mode || strcmp(mode, "current"))
		if ((rc = download(d, id, job, "kernel")) || (rc = download(d, id, job, "initrd")))
			return rc;
	if ((rc = set_state(d, id, "fetched")))
		return rc;
	return boot(d, id, job);
}

/*
 * Carries a job on from the state it was left in: new (downloads not
 * finished), fetched (not booted yet), booted (its results are in the
 * store), collected (uploading). 0 finished, else it stays pending.
 */
static int resume(struct daemon *d, uint64_t id)
{
	char *p = job_path(d, id, "state"), *text = get_file(p, NULL);
	const char *state = text ? text : "";
	int rc = 0;

	free(p);
	if (!strcmp(state, "new") || !strcmp(state, "fetched")) {
		json_t *job = load_job(d, id);

		rc = step_end(d, id, job ? start(d, id, job) : FL_EIO);
		json_decref(job);
		state = "booted";
	}
	if (!rc && !strcmp(state, "booted")) {
		rc = step_end(d, id, collect(d, id));
		state = "collected";
	}
	if (!rc && !strcmp(state, "collected"))
		rc = upload(d, id);
	else if (!rc && !strcmp(state, "failed")) {
		char *np = job_path(d, id, "note"), *note = get_file(np, NULL);

		rc = finish(d, id, "failed", 0, note);
		if (!rc)
			remove_job(d, id);
		free(note);
		free(np);
	} else if (!rc) {
		rc = step_end(d, id,
			      fl_error_set(FL_EIO, "unknown state '%s' in its directory", state));
	}
	free(text);
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Every job left in DIR/jobs, oldest first; how many are still pending after. */
static int pending(struct daemon *d)
{
	char *dir = jobs_dir(d);
	uint64_t ids[256];
	size_t n = 0;
	struct dirent *e;
	DIR *dh;
	int left = 0;

	dh = opendir(dir);
	free(dir);
	while (dh && (e = readdir(dh)) && n < sizeof(ids) / sizeof(ids[0]))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' &&
		    strspn(e->d_name, "0123456789") == strlen(e->d_name))
			ids[n++] = strtoull(e->d_name, NULL, 10);
	if (dh)
		closedir(dh);
	qsort(ids, n, sizeof(ids[0]), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		char *p = job_path(d, ids[i], NULL);
		struct stat st;

		if (resume(d, ids[i]) && !stat(p, &st))
			left++;
		free(p);
	}
	return left;
}

/* Asks for work; runs what comes. 1 ran a job, 0 none, -1 no answer or refused. */
static int ask(struct daemon *d)
{
	struct reply r = {0};
	json_t *o, *job;
	uint64_t id;
	char *dir, *p;
	int rc = -1;

	if (post_json(d, API "/work", facts(), &r)) {
		say("asking for work: %s", r.error);
		return -1;
	}
	if (r.status != 200) {
		say("asking for work: %s", reply_error(&r));
		reply_free(&r);
		return -1;
	}
	o = json_loads(r.body ? r.body : "", 0, NULL);
	reply_free(&r);
	job = json_object_get(o, "job");
	if (!json_is_object(job)) {
		json_decref(o);
		return 0;
	}
	id = (uint64_t)json_integer_value(json_object_get(job, "id"));
	dir = job_path(d, id, NULL);
	p = job_path(d, id, "job.json");
	say("job %" PRIu64 ": %s, %s", id, json_string_value(json_object_get(job, "mode")),
	    json_string_value(json_object_get(job, "job")));
	if (!id || (mkdir(dir, 0700) && errno != EEXIST) || json_dump_file(job, p, 0))
		say("job %" PRIu64 ": cannot keep it in %s: %s", id, dir, strerror(errno));
	else if (set_state(d, id, "new"))
		say("job %" PRIu64 ": cannot keep it: %s", id, fl_error_last());
	else
		rc = step_end(d, id, start(d, id, job)) ? -1 : 1;
	free(p);
	free(dir);
	json_decref(o);
	return rc;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: fl-agent daemon --server URL --box NAME --token-file FILE\n"
		"       [--results DIR] [--results-dev DEV] [--kexec-hook CMD] [--append ARGS]\n"
		"       [--poll 10s] [--batch 64] [--cacert FILE] [--once]\n");
	return 2;
}

static int parse_args(struct daemon *d, int argc, char **argv)
{
	const char *token_file = NULL;
	char why[512];

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int used = 1;

		if (!strcmp(a, "--once")) {
			d->once = 1;
			continue;
		}
		if (!v)
			return usage();
		if (!strcmp(a, "--server"))
			d->server = v;
		else if (!strcmp(a, "--box"))
			d->box = v;
		else if (!strcmp(a, "--token-file"))
			token_file = v;
		else if (!strcmp(a, "--results"))
			d->dir = v;
		else if (!strcmp(a, "--results-dev"))
			d->dev = v;
		else if (!strcmp(a, "--kexec-hook"))
			d->hook = v;
		else if (!strcmp(a, "--append"))
			d->append = v;
		else if (!strcmp(a, "--cacert"))
			d->cacert = v;
		else if (!strcmp(a, "--poll"))
			used = !fl_jobline_seconds(v, &d->poll_s);
		else if (!strcmp(a, "--batch"))
			used = (d->batch = atoi(v)) > 0;
		else
			return usage();
		if (!used)
			return usage();
		i++;
	}
	if (!d->server || !d->box || !token_file)
		return usage();
	if (strncmp(d->server, "http://", 7) && strncmp(d->server, "https://", 8)) {
		say("--server %s: expected an http:// or https:// URL", d->server);
		return 2;
	}
	if (!fl_auth_name_ok(d->box)) {
		say("--box %s: a box name is 1-64 characters of [A-Za-z0-9._-]", d->box);
		return 2;
	}
	if (fl_auth_read_token(token_file, &d->token, why, sizeof(why))) {
		say("%s", why);
		return 2;
	}
	return 0;
}

/* URL without a trailing slash; the path part of it, signed with every request. */
static void split_server(struct daemon *d)
{
	static char server[512];
	const char *slash;
	size_t n;

	snprintf(server, sizeof(server), "%s", d->server);
	n = strlen(server);
	while (n && server[n - 1] == '/')
		server[--n] = '\0';
	d->server = server;
	slash = strchr(strstr(server, "://") + 3, '/');
	snprintf(d->prefix, sizeof(d->prefix), "%s", slash ? slash : "");
}

int fl_daemon_main(int argc, char **argv)
{
	struct daemon d = {.dir = "/var/lib/fl-agent", .poll_s = 10, .batch = 64};
	char *jobs;
	int rc, left;

	if ((rc = parse_args(&d, argc, argv)))
		return rc;
	split_server(&d);
	jobs = jobs_dir(&d);
	if ((mkdir(d.dir, 0700) && errno != EEXIST) || (mkdir(jobs, 0700) && errno != EEXIST)) {
		say("%s: %s", jobs, strerror(errno));
		free(jobs);
		free(d.token);
		return 1;
	}
	free(jobs);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	d.curl = curl_easy_init();
	say("box %s, server %s, results in %s%s%s", d.box, d.server, d.dir,
	    d.hook ? ", kexec hook: " : "", d.hook ? d.hook : "");
	for (;;) {
		left = pending(&d);
		rc = left ? -1 : ask(&d);
		if (rc == 1)
			left = pending(&d);
		if (d.once)
			break;
		if (rc != 1)
			sleep((unsigned)d.poll_s);
	}
	curl_easy_cleanup(d.curl);
	curl_global_cleanup();
	free(d.token);
	return left || rc < 0 ? 1 : 0;
}
