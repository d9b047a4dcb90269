/*
 * agentapi.h - the bare-metal agent API: the HTTP(S) server (libmicrohttpd)
 * the boxes' daemons ("fl-agent daemon") ask for work, download kernels and
 * initramfs images from, report progress to and upload records to.
 * docs/baremetal.md describes the endpoints and the signatures.
 *
 * It runs in the process that runs machines: "faultline watch" and
 * "faultline run" start it when a baremetal machine is configured, on
 * agent_api.listen. It shares nothing with the runs but the store
 * (store/agent.h): machine/baremetal.c publishes an agent job on the box
 * queue (machine/boxes.h, dispatch/boxes.c keeps it in the store) and
 * waits for its state to change; this server hands the job out and
 * records what the box says. Its own server rather than the results pages' because those
 * are read-only, unauthenticated GET pages; what both need (the daemon with
 * its limits on connections, timeouts and bodies: agent_api.*) is in
 * lib/httpd.h, a store connection per thread in store/threads.h.
 *
 * Every request is signed by a configured box with its token (auth.h),
 * checked from the headers before any of the body is read: refused with
 * 401 and a plain message when the signature, the timestamp
 * (agent_api.window) or the nonce (replay.h) is wrong, or when the body
 * read then is not the one signed; 403 when the job is another box's. A
 * box sees and changes only its own jobs.
 */
#ifndef FL_AGENTAPI_H
#define FL_AGENTAPI_H

struct fl_config;
struct fl_machine_conf;
typedef struct fl_agentapi fl_agentapi;

/* The path every endpoint is under. */
#define FL_AGENTAPI_PREFIX "/agent/v1"

/*
 * Reads every baremetal machine's token, binds cfg->agent_api.listen (or
 * listen when not NULL; port 0 picks a free one) and serves in its own
 * threads until fl_agentapi_stop(). HTTPS when agent_api.cert and key are set.
 */
int fl_agentapi_start(fl_agentapi **out, const struct fl_config *cfg, const char *listen);
/* "http://127.0.0.1:8443/": where it listens. */
const char *fl_agentapi_url(const fl_agentapi *a);
void fl_agentapi_stop(fl_agentapi *a);

/*
 * What "run" and "watch" call: starts the API when m (NULL: any machine of
 * cfg) is a baremetal machine, and says where it listens; *out NULL when
 * none is needed.
 */
int fl_agentapi_start_for(fl_agentapi **out, const struct fl_config *cfg,
			  const struct fl_machine_conf *m);

#endif
