/* store/threads.c - a store connection per thread (see store/threads.h). */
#include "store/threads.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <stdlib.h>
#include <string.h>

static void close_store(void *st)
{
	fl_store_free(st);
}

int fl_store_threads_init(struct fl_store_threads *t, const char *path, unsigned flags)
{
	memset(t, 0, sizeof(*t));
	if (pthread_key_create(&t->key, close_store))
		return fl_error_set(FL_EIO, "pthread_key_create failed");
	t->have_key = 1;
	t->path = fl_xstrdup(path);
	t->flags = flags;
	return 0;
}

fl_store *fl_store_thread(struct fl_store_threads *t)
{
	fl_store *st = pthread_getspecific(t->key);

	if (!st && !fl_store_open(&st, t->path, t->flags))
		pthread_setspecific(t->key, st);
	return st;
}

void fl_store_threads_fini(struct fl_store_threads *t)
{
	if (t->have_key)
		pthread_key_delete(t->key);
	free(t->path);
	memset(t, 0, sizeof(*t));
}
