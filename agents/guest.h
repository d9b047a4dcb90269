/*
 * guest.h - guest mode (guest.c): fl-agent as PID 1 of an initramfs, or its
 * stand-in on a box ("fl-agent guest --cmdline TEXT").
 */
#ifndef FL_GUEST_H
#define FL_GUEST_H

struct fl_guest_opts {
	int pid1;	     /* mount, read /proc/cmdline, power off or reboot at the end */
	const char *cmdline; /* not pid1: the kernel command line to act on */
	int console_fd;	     /* not pid1: where the frames go besides the results store; -1 none */
};
/* Not pid1: 0 when the job ran, 1 when it failed. PID 1 never returns. */
int fl_guest_main(const struct fl_guest_opts *o);

#endif
