#!/bin/sh
# libvirtd-start.sh - starts virtlogd and libvirtd on a machine without
# systemd (CI, this sandbox), as root, idempotently; "stop" stops what a
# previous "start" started. What the daemon needs here is measured in
# ../shared/ENVIRONMENT.md: the kvm and libvirt-qemu groups and user, and a
# qemu.conf that runs QEMU as root without relabelling files.
#
#   scripts/libvirtd-start.sh [start|stop]
set -eu
cmd=${1:-start}
pidfile=/var/run/faultline-libvirtd.started

running() { virsh -c qemu:///system uri >/dev/null 2>&1; }

case "$cmd" in
stop)
	[ -f "$pidfile" ] || exit 0
	pkill -x libvirtd 2>/dev/null || true
	pkill -x virtlogd 2>/dev/null || true
	rm -f "$pidfile"
	echo "libvirtd: stopped"
	exit 0
	;;
start) ;;
*) echo "usage: $0 [start|stop]" >&2; exit 2 ;;
esac

if running; then
	echo "libvirtd: already running"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "libvirtd-start: must run as root" >&2; exit 1; }
command -v libvirtd >/dev/null || { echo "libvirtd-start: libvirtd is not installed (scripts/install-deps.sh runtime)" >&2; exit 1; }

getent group kvm >/dev/null || groupadd -r kvm
getent group libvirt-qemu >/dev/null || groupadd -r libvirt-qemu
id libvirt-qemu >/dev/null 2>&1 ||
	useradd -r -g libvirt-qemu -G kvm -d /var/lib/libvirt -s /usr/sbin/nologin libvirt-qemu
mkdir -p /var/log/libvirt /var/run/libvirt /etc/libvirt
conf=/etc/libvirt/qemu.conf
if ! grep -q '^dynamic_ownership = 0' "$conf" 2>/dev/null; then
	printf 'user = "root"\ngroup = "root"\ndynamic_ownership = 0\nremember_owner = 0\n' >"$conf"
fi
pgrep -x virtlogd >/dev/null || virtlogd -d
# libvirt double-forks QEMU, so a guest's QEMU is an orphan. Here PID 1 is
# no real init and reaps orphans late: an exited QEMU stays a zombie for
# about 1.5 s, and libvirt waits for it at every domain's end. Under tini
# as a subreaper (-s) the orphans are tini's and are reaped at once.
if ! pgrep -x libvirtd >/dev/null; then
	if command -v tini >/dev/null; then
		setsid tini -s -- libvirtd </dev/null >/dev/null 2>&1 &
	else
		libvirtd -d
	fi
fi
touch "$pidfile"
i=0
until running; do
	i=$((i + 1))
	if [ $i -gt 100 ]; then
		echo "libvirtd-start: libvirtd did not answer within 10 s; see /var/log/libvirt/libvirtd.log" >&2
		exit 1
	fi
	sleep 0.1
done
echo "libvirtd: running"
