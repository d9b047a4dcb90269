/*
 * replay.c - nonces seen within the window (see replay.h): a chained hash
 * table keyed by "box nonce", swept of expired entries when it fills.
 */
#include "dispatch/replay.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	struct entry *next;
	int64_t expires; /* ts + window: a replay after this fails the timestamp check */
	char key[];
};

struct fl_replay {
	pthread_mutex_t lock;
	int64_t window;
	size_t max, n, nbuckets;
	struct entry **buckets;
};

fl_replay *fl_replay_new(int64_t window_s, size_t max)
{
	fl_replay *r = fl_xcalloc(1, sizeof(*r));

	pthread_mutex_init(&r->lock, NULL);
	r->window = window_s;
	r->max = max ? max : 1;
	r->nbuckets = 1024;
	while (r->nbuckets < r->max / 2 && r->nbuckets < (1u << 20))
		r->nbuckets *= 2;
	r->buckets = fl_xcalloc(r->nbuckets, sizeof(*r->buckets));
	return r;
}

void fl_replay_free(fl_replay *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nbuckets; i++)
		while (r->buckets[i]) {
			struct entry *e = r->buckets[i];

			r->buckets[i] = e->next;
			free(e);
		}
	free(r->buckets);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* FNV-1a: the nonces are random already, the box names are not. */
static size_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)h;
}

static void sweep(fl_replay *r, int64_t now)
{
	for (size_t i = 0; i < r->nbuckets; i++)
		for (struct entry **p = &r->buckets[i]; *p;) {
			struct entry *e = *p;

			if (e->expires >= now) {
				p = &e->next;
				continue;
			}
			*p = e->next;
			free(e);
			r->n--;
		}
}

int fl_replay_check(fl_replay *r, const char *box, const char *nonce, int64_t ts, int64_t now)
{
	size_t blen = strlen(box), nlen = strlen(nonce);
	struct entry *e = fl_xmalloc(sizeof(*e) + blen + nlen + 2);
	size_t b;
	int rc = 0;

	memcpy(e->key, box, blen);
	e->key[blen] = ' ';
	memcpy(e->key + blen + 1, nonce, nlen + 1);
	e->expires = ts + r->window;
	b = hash(e->key) & (r->nbuckets - 1);
	pthread_mutex_lock(&r->lock);
	for (struct entry *x = r->buckets[b]; x && !rc; x = x->next)
		if (!strcmp(x->key, e->key) && x->expires >= now)
			rc = fl_error_set(FL_EEXISTS, "nonce %s of box '%s' was used already",
					  nonce, box);
	if (!rc && r->n >= r->max)
		sweep(r, now);
	if (!rc && r->n >= r->max)
		rc = fl_error_set(FL_EAGAIN,
				  "%zu requests within %lld s: no room to remember another "
				  "nonce; try again later",
				  r->n, (long long)r->window);
	if (!rc) {
		e->next = r->buckets[b];
		r->buckets[b] = e;
		r->n++;
		e = NULL;
	}
	pthread_mutex_unlock(&r->lock);
	free(e);
	return rc;
}

size_t fl_replay_size(fl_replay *r)
{
	size_t n;

	pthread_mutex_lock(&r->lock);
	n = r->n;
	pthread_mutex_unlock(&r->lock);
	return n;
}
