/*
 * replay.h - the agent API's memory of the nonces it has accepted, so that
 * a request captured on the way (the agent API may be plain HTTP) cannot be
 * sent again. A request's timestamp must be within the window of the
 * orchestrator's clock, so a nonce needs remembering only until its
 * timestamp is a window old: past that, the timestamp check refuses the
 * replay. Memory stays bounded by the requests of one window (at most max
 * nonces; beyond that requests are refused until old ones expire).
 *
 * In memory: a restart forgets, and for up to one window a request sent
 * before it could be replayed once. What a replay could do then is what the
 * box already did: the agent API's writes are idempotent (a record is kept
 * once per (job, seq), an ended job stays ended). docs/baremetal.md says so.
 * Thread-safe.
 */
#ifndef FL_REPLAY_H
#define FL_REPLAY_H

#include <stddef.h>
#include <stdint.h>

typedef struct fl_replay fl_replay;

/* window_s: the timestamp window, seconds either side; max: nonces kept at most. */
fl_replay *fl_replay_new(int64_t window_s, size_t max);
void fl_replay_free(fl_replay *r);

/*
 * Remembers (box, nonce) of a request stamped ts, at time now (seconds).
 * 0 when it is new, FL_EEXISTS when it was seen within the window,
 * FL_EAGAIN when max nonces younger than the window are kept.
 */
int fl_replay_check(fl_replay *r, const char *box, const char *nonce, int64_t ts, int64_t now);
/* Nonces kept now. */
size_t fl_replay_size(fl_replay *r);

#endif
