/*
 * time.h - the two clocks faultline reads, in milliseconds: the wall clock
 * for what is stored and shown (times since the epoch), the monotonic clock
 * for deadlines, timeouts and durations (it never jumps when the wall clock
 * is set).
 */
#ifndef FL_TIME_H
#define FL_TIME_H

#include <stdint.h>

/* Wall clock: ms since the epoch. */
int64_t fl_wall_ms(void);
/* Monotonic clock: ms from an arbitrary start; only differences mean anything. */
int64_t fl_mono_ms(void);

#endif
