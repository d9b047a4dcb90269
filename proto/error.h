/*
 * error.h - the one error convention of faultline and fl-agent.
 *
 * Every function that can fail returns 0 or a negative FL_E* code and leaves
 * a message for its caller, kept per thread until the next error; callers
 * read it with fl_error_last() and may prefix context with fl_error_wrap().
 * Messages name the place: file:line, field, tree, commit. The caller that
 * ends the chain (a command, a record, a log line) shows the message once.
 *
 * Here, in proto/, because both sides link it: the orchestrator (through
 * orchestrator/lib/error.h) and fl-agent. libc only: fl-agent-static
 * links it.
 */
#ifndef FL_PROTO_ERROR_H
#define FL_PROTO_ERROR_H

enum {
	FL_OK = 0,
	FL_ERROR = -1,	   /* generic failure */
	FL_EINVAL = -2,	   /* bad input: config, arguments, records */
	FL_ENOTFOUND = -3, /* unknown name, revision, id */
	FL_EEXISTS = -4,
	FL_EIO = -5,	  /* file system or process trouble */
	FL_ESTORE = -6,	  /* the store (SQLite, PostgreSQL) */
	FL_EVERSION = -7, /* incompatible version (store schema, record format) */
	FL_ETIMEOUT = -8,
	FL_EAGAIN = -9, /* not yet: waiting for work queued elsewhere (a run job) */
};

/* Sets the message and returns code, so "return fl_error_set(...)" works. */
int fl_error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prepends "context: " to the current message; returns code. */
int fl_error_wrap(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *fl_error_last(void);
void fl_error_clear(void);

#endif
