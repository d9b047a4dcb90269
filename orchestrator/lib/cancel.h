/*
 * cancel.h - the one way a command is told to stop: SIGINT and SIGTERM
 * (and SIGHUP for the commands that run unattended: watch, bisect run;
 * SIGPIPE for bisect run, whose output may be piped) set
 * a process-wide flag that everything doing long work polls, the machine
 * backends (machine.h: their runs end infra-error "interrupted", guests
 * destroyed), child processes (run-command.h: their group gets SIGTERM)
 * and the commands' own loops.
 *
 * The handler only records the signal: nothing happens inside it, so the
 * flag may be read from any thread.
 */
#ifndef FL_CANCEL_H
#define FL_CANCEL_H

enum {
	/* SIGHUP stops the command too (a closed terminal). */
	FL_CANCEL_HUP = 1 << 0,
	/*
	 * The runs in progress are not told (fl_cancel_runs() stays 0): the
	 * command ends them itself. The watch service exits at once and leaves
	 * its runs to the next start, as after a crash, rather than record
	 * them as failed.
	 */
	FL_CANCEL_KEEP_RUNS = 1 << 1,
	/*
	 * SIGPIPE stops the command too, instead of killing it on the spot: a
	 * reader that went away ("| head -2") then leaves what a stop leaves
	 * (bisect run: its worktree removed, its record resumable), and the
	 * write that met the closed pipe fails with EPIPE.
	 */
	FL_CANCEL_PIPE = 1 << 2,
};

/* Installs the handlers, flags as FL_CANCEL_* say. */
void fl_cancel_catch(unsigned flags);
/* The signal that asked this process to stop, or 0. */
int fl_cancel_requested(void);
/* 1 when work in progress (runs, guests, child processes) should stop. */
int fl_cancel_runs(void);

/*
 * For a command that waits for nothing but a stop (serve): SIGINT and
 * SIGTERM blocked in the calling thread and every thread it starts after,
 * then fl_cancel_wait() returns the one that came.
 */
void fl_cancel_block(void);
int fl_cancel_wait(void);

#endif
