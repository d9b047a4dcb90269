#!/bin/sh
# libvirtd-start.sh - starts virtlogd and libvirtd on a machine without
# systemd (CI, a container), as root, idempotently; "stop" stops only what a
# previous "start" started itself, by PID. What the daemon needs is in
# docs/environment.md: the kvm and libvirt-qemu groups and user, and a
# qemu.conf that runs QEMU as root without relabelling files.
#
#   scripts/libvirtd-start.sh [start|stop]
#
# A libvirtd that is already running (a developer's own, the system's) is
# used as it is and never stopped: start records nothing then. What start
# starts is recorded in $FL_LIBVIRTD_STATE (default
# /var/run/faultline-libvirtd.pids), one "PID NAME STARTTIME" line per
# process (STARTTIME from /proc/PID/stat); stop signals a PID only while
# /proc says it is still that process (not a reused PID), SIGTERM first,
# SIGKILL 10 s later ($FL_LIBVIRTD_STOP_WAIT). .ci/run points FL_LIBVIRTD_STATE at a file of its own,
# so its exit trap stops only what its own tests started.
#
# FL_LIBVIRTD_TCP=1: the libvirtd started here also listens on TCP
# 127.0.0.1:16509 without authentication (loopback only; for the tests that
# use it as a "remote" host, tests/integration/remote.sh): started as
# "libvirtd --listen -f CONF" with CONF written here ($FL_LIBVIRTD_CONF,
# default /var/run/faultline-libvirtd-tcp.conf). A libvirtd already running
# is used as it is, listening or not.
set -eu
cmd=${1:-start}
state=${FL_LIBVIRTD_STATE:-/var/run/faultline-libvirtd.pids}
# The daemons are services that outlive a test starting them, not the
# test's processes (the marks tests/leftovers.py looks for after ctest).
unset FL_TEST_RUN FL_TEST_NAME

running() { virsh -c qemu:///system uri >/dev/null 2>&1; }

# starttime PID: field 22 of /proc/PID/stat (after the command in parentheses)
starttime() {
	sed -n 's/^.*) //p' "/proc/$1/stat" 2>/dev/null | awk '{ print $20 }'
}

# is PID NAME STARTTIME: PID is still the process that was recorded
is() {
	[ -n "$1" ] && [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] &&
		[ "$(starttime "$1")" = "$3" ]
}

# record PID NAME: NAME is what the job execs (its comm may still be the
# shell's for a moment); the start time does not change at exec
record() {
	printf '%s %s %s\n' "$1" "$2" "$(starttime "$1")" >>"$state"
}

case "$cmd" in
stop)
	[ -f "$state" ] || exit 0
	wait_s=${FL_LIBVIRTD_STOP_WAIT:-10}
	# the last started first: libvirtd before its virtlogd
	for entry in $(tac "$state" | tr ' ' ':'); do
		pid=${entry%%:*} rest=${entry#*:}
		name=${rest%%:*} start=${rest#*:}
		is "$pid" "$name" "$start" || continue
		kill -TERM "$pid" 2>/dev/null || true
		i=0
		while is "$pid" "$name" "$start" && [ $i -lt $((wait_s * 10)) ]; do
			sleep 0.1
			i=$((i + 1))
		done
		if is "$pid" "$name" "$start"; then
			kill -KILL "$pid" 2>/dev/null || true
		fi
		echo "libvirtd-start: stopped $name (pid $pid)"
	done
	rm -f "$state"
	exit 0
	;;
start) ;;
*) echo "usage: $0 [start|stop]" >&2; exit 2 ;;
esac

if running; then
	echo "libvirtd: already running (not started here: stop leaves it alone)"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "libvirtd-start: must run as root" >&2; exit 1; }
command -v libvirtd >/dev/null || { echo "libvirtd-start: libvirtd is not installed (scripts/install-deps.sh runtime)" >&2; exit 1; }

getent group kvm >/dev/null || groupadd -r kvm
getent group libvirt-qemu >/dev/null || groupadd -r libvirt-qemu
id libvirt-qemu >/dev/null 2>&1 ||
	useradd -r -g libvirt-qemu -G kvm -d /var/lib/libvirt -s /usr/sbin/nologin libvirt-qemu
mkdir -p /var/log/libvirt /var/run/libvirt /etc/libvirt "$(dirname "$state")"
conf=/etc/libvirt/qemu.conf
if ! grep -q '^dynamic_ownership = 0' "$conf" 2>/dev/null; then
	printf 'user = "root"\ngroup = "root"\ndynamic_ownership = 0\nremember_owner = 0\n' >"$conf"
fi
# In the foreground of a background job (not -d, which forks away), so $!
# is the daemon itself and stop can name it by PID.
if ! pgrep -x virtlogd >/dev/null; then
	setsid virtlogd </dev/null >/dev/null 2>&1 &
	record $! virtlogd
fi
# libvirt double-forks QEMU, so a guest's QEMU is an orphan. Where PID 1 is
# no real init it reaps orphans late: an exited QEMU stays a zombie for
# about 1.5 s, and libvirt waits for it at every domain's end. Under tini
# as a subreaper (-s) the orphans are tini's and are reaped at once; tini
# passes SIGTERM on to libvirtd.
set --
if [ "${FL_LIBVIRTD_TCP:-0}" = 1 ]; then
	tcpconf=${FL_LIBVIRTD_CONF:-/var/run/faultline-libvirtd-tcp.conf}
	printf 'listen_tls = 0\nlisten_tcp = 1\nlisten_addr = "127.0.0.1"\nauth_tcp = "none"\n' >"$tcpconf"
	set -- --listen -f "$tcpconf"
fi
if ! pgrep -x libvirtd >/dev/null; then
	if command -v tini >/dev/null; then
		setsid tini -s -- libvirtd "$@" </dev/null >/dev/null 2>&1 &
		record $! tini
	else
		setsid libvirtd "$@" </dev/null >/dev/null 2>&1 &
		record $! libvirtd
	fi
fi
i=0
until running; do
	i=$((i + 1))
	if [ $i -gt 100 ]; then
		echo "libvirtd-start: libvirtd did not answer within 10 s; see /var/log/libvirt/libvirtd.log" >&2
		exit 1
	fi
	sleep 0.1
done
if [ $# -gt 0 ]; then
	i=0
	until virsh -c qemu+tcp://127.0.0.1/system uri >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 100 ]; then
			echo "libvirtd-start: libvirtd does not answer on TCP 127.0.0.1:16509; see /var/log/libvirt/libvirtd.log" >&2
			exit 1
		fi
		sleep 0.1
	done
	echo "libvirtd: running, listening on TCP 127.0.0.1:16509 (no authentication)"
else
	echo "libvirtd: running"
fi
