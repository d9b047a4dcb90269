/* time.c - the wall and monotonic clocks in milliseconds (see time.h). */
#include "lib/time.h"

#include <time.h>

static int64_t ms_of(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t fl_wall_ms(void)
{
	return ms_of(CLOCK_REALTIME);
}

int64_t fl_mono_ms(void)
{
	return ms_of(CLOCK_MONOTONIC);
}
