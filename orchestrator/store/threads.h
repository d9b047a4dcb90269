/*
 * store/threads.h - one store connection per thread, for the HTTP servers
 * (web/server.c, dispatch/agentapi.c): SQLite connections are not shared
 * across threads, so each thread opens its own on first use, and it is
 * closed when the thread ends.
 */
#ifndef FL_STORE_THREADS_H
#define FL_STORE_THREADS_H

#include "store/store.h"

#include <pthread.h>

struct fl_store_threads {
	pthread_key_t key;
	int have_key;
	char *path;
	unsigned flags; /* fl_store_open's */
};
int fl_store_threads_init(struct fl_store_threads *t, const char *path, unsigned flags);
/* This thread's connection; NULL with the reason in fl_error_last(). */
fl_store *fl_store_thread(struct fl_store_threads *t);
/* After the server's threads ended. */
void fl_store_threads_fini(struct fl_store_threads *t);

#endif
