/*
 * daemon.h - the bare-metal box's agent daemon (daemon.c): "fl-agent daemon
 * ...". Only in the dynamically linked fl-agent (libcurl, libcrypto).
 */
#ifndef FL_DAEMON_H
#define FL_DAEMON_H

/* The daemon's main: its exit status. */
int fl_daemon_main(int argc, char **argv);

#endif
