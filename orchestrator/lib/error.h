/*
 * error.h - the one error convention, as the orchestrator names it: the
 * FL_E* codes and the kept message (fl_error_set, fl_error_wrap,
 * fl_error_last) live in proto/error.h, which fl-agent links too.
 */
#ifndef FL_ERROR_H
#define FL_ERROR_H

#include "proto/error.h"

#endif
