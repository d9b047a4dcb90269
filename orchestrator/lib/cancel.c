/* cancel.c - the stop signals and the flag they set (see cancel.h). */
#include "lib/cancel.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t keep_runs;

static void on_signal(int sig)
{
	stop_signal = sig;
}

void fl_cancel_catch(unsigned flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	keep_runs = !!(flags & FL_CANCEL_KEEP_RUNS);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (flags & FL_CANCEL_HUP)
		sigaction(SIGHUP, &sa, NULL);
	if (flags & FL_CANCEL_PIPE)
		sigaction(SIGPIPE, &sa, NULL);
}

int fl_cancel_requested(void)
{
	return stop_signal;
}

int fl_cancel_runs(void)
{
	return stop_signal && !keep_runs;
}

static void stop_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
}

void fl_cancel_block(void)
{
	sigset_t set;

	stop_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int fl_cancel_wait(void)
{
	sigset_t set;
	int sig = 0;

	stop_set(&set);
	while (sigwait(&set, &sig))
		;
	stop_signal = sig;
	return sig;
}
