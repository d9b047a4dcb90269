#!/bin/sh
# demo.sh - the main job on its embedded defaults (make demo): find the
# injected page-fault regression of the demo history (kernels/demo/) end to
# end, the way a deployment would.
#
#   1. libvirtd (scripts/libvirtd-start.sh) and the demo history
#      (kernels/demo/make-history.sh: made once, reused afterwards);
#   2. an SMTP sink on loopback (python3-aiosmtpd) that keeps every mail it
#      receives as a file in the Maildir var/demo/state/mail (mail/new/*);
#   3. faultline watch --once on configs/demo.yaml: v6.1-fl1 against
#      v6.1-fl0 on a 2-socket NUMA guest, the regression bisected, verified,
#      revert-checked and reported by mail; its log is var/demo/demo.log and
#      goes to the terminal as it happens;
#   4. the culprit, the mail as it arrived, and faultline serve on the
#      bisection's page (until Ctrl-C; FL_DEMO_SERVE=0 stops after printing
#      instead).
#
# Ctrl-C (or SIGTERM) at any point stops what the demo started (the SMTP
# sink, faultline watch, faultline serve; watch destroys the guest of a run
# in progress) and ends the demo; under make it exits 0 so that make dies
# of the SIGINT itself instead of printing "make: *** [demo] Error 130".
# Needs root: it installs packages and starts libvirtd.
#
# Environment: FL_DEMO_VAR (var/demo), FL_DEMO_TREE (var/demo/linux),
# FL_DEMO_SMTP_PORT (2525), FL_DEMO_WEB_PORT (8080), FL_DEMO_SERVE (1).
# The store keeps what a run found: a second make demo finds the tag done
# and prints the same result without measuring again (rm -r var/demo/state
# to start over: store, build slots and artifacts; the history stays).
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
FAULTLINE=${FAULTLINE:-$root/build/orchestrator/faultline}
export FL_DEMO_VAR=${FL_DEMO_VAR:-var/demo/state}
export FL_DEMO_TREE=${FL_DEMO_TREE:-var/demo/linux}
export FL_DEMO_SMTP_PORT=${FL_DEMO_SMTP_PORT:-2525}
export FL_DEMO_WEB_PORT=${FL_DEMO_WEB_PORT:-8080}
config=configs/demo.yaml
mkdir -p "$FL_DEMO_VAR"
log=$FL_DEMO_VAR/demo.log
maildir=$FL_DEMO_VAR/mail
db=$FL_DEMO_VAR/faultline.db
# Debian's python3 has aiosmtpd (scripts/install-deps.sh); a python3 earlier
# in PATH (pyenv, venv) may not.
PY=/usr/bin/python3
smtp_pid= serve_pid= watch_pid= tail_pid=
# stop NAME PID: SIGTERM, then wait for it (at most 30 s, then SIGKILL)
stop() {
	[ -n "$2" ] && kill -0 "$2" 2>/dev/null || return 0
	kill -TERM "$2" 2>/dev/null
	i=0
	while kill -0 "$2" 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -0 "$2" 2>/dev/null && kill -KILL "$2" 2>/dev/null
	wait "$2" 2>/dev/null || true # its status is a signal's: set -e must not end us here
	return 0
}
# the guests a stopped faultline watch left (it leaves its runs to its next
# start): their names carry its PID, fl-<host>-<pid>-<run>
reap_guests() {
	[ -n "$1" ] || return 0
	for d in $(virsh -c qemu:///system list --name 2>/dev/null | grep -E "^fl-.*-$1-[0-9]+$"); do
		virsh -c qemu:///system destroy "$d" >/dev/null 2>&1 && echo "demo: destroyed guest $d"
	done
	return 0
}
cleanup() {
	w=$watch_pid
	stop "faultline watch" "$watch_pid"
	reap_guests "$w"
	stop "tail" "$tail_pid"
	stop "faultline serve" "$serve_pid"
	stop "the SMTP sink" "$smtp_pid"
}
interrupted() {
	trap - EXIT INT TERM
	echo
	echo "demo: stopping (the store keeps what was done: make demo again continues)"
	cleanup
	# under make, end as make expects of a stopped recipe: make itself got
	# the SIGINT and dies of it, without its "Error 130" line
	[ -n "${MAKELEVEL:-}" ] && exit 0
	exit 130
}
trap cleanup EXIT
trap interrupted INT TERM
say() { printf '\n== %s\n' "$*"; }
start=$(date +%s)

say "configuration ($config)"
"$FAULTLINE" config check "$config" >/dev/null && echo "$config: ok"

say "libvirtd"
scripts/libvirtd-start.sh start

say "the demo history ($FL_DEMO_TREE)"
kernels/demo/make-history.sh "$FL_DEMO_TREE"
git -C "$FL_DEMO_TREE" log --oneline v6.1-fl0..v6.1-fl1 | sed 's/^/  /'

say "SMTP sink on 127.0.0.1:$FL_DEMO_SMTP_PORT (Maildir $maildir)"
# the subdirectories too: Python's Maildir makes them only when it makes
# the directory itself, and then fails on the first mail
mkdir -p "$maildir/tmp" "$maildir/new" "$maildir/cur"
"$PY" -m aiosmtpd -n -l "127.0.0.1:$FL_DEMO_SMTP_PORT" \
	-c aiosmtpd.handlers.Mailbox "$maildir" >"$FL_DEMO_VAR/smtp.log" 2>&1 &
smtp_pid=$!
i=0
until "$PY" -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 1)" \
	"$FL_DEMO_SMTP_PORT" 2>/dev/null; do
	i=$((i + 1))
	kill -0 "$smtp_pid" 2>/dev/null && [ $i -lt 100 ] || {
		echo "demo: the SMTP sink did not start (port $FL_DEMO_SMTP_PORT taken?)" >&2
		cat "$FL_DEMO_VAR/smtp.log" >&2
		exit 1
	}
	sleep 0.1
done

say "faultline watch --once (log: $log)"
# in the background, so the traps can stop it by PID; its log is followed
# on the terminal as it grows
: >>"$log"
from=$(($(wc -l <"$log") + 1))
"$FAULTLINE" watch --once --config "$config" >>"$log" 2>&1 &
watch_pid=$!
tail -n +"$from" -f --pid="$watch_pid" "$log" &
tail_pid=$!
rc=0
wait "$watch_pid" || rc=$?
watch_pid=
wait "$tail_pid" 2>/dev/null || true
tail_pid=
"$FAULTLINE" queue show --config "$config" || true
end=$(date +%s)

say "result after $((end - start)) s"
culprit=$(sed -n 's/.*bisect: regression [0-9]*: culprit \([0-9a-f]*\).*/\1/p' "$log" | tail -n1)
if [ -z "$culprit" ]; then
	echo "no culprit was found; the log is $log"
	exit 1
fi
echo "culprit: $(git -C "$FL_DEMO_TREE" log -1 --format='%h ("%s") by %an' "$culprit")"
echo "the injected regression is kernels/demo/$(cat kernels/demo/CULPRIT)"
got=0
for m in "$maildir"/new/*; do
	[ -f "$m" ] || continue
	say "the mail, as the SMTP sink received it ($m)"
	# its headers a reader looks at, then the body
	sed -n '/^$/q; /^\(From\|To\|Cc\|Date\|Subject\|Message-ID\|In-Reply-To\): /p' "$m"
	echo
	sed '1,/^$/d' "$m"
	got=1
done
if [ $got = 0 ]; then
	echo "  none: see $log and the sink's log $FL_DEMO_VAR/smtp.log"
	[ $rc = 0 ] && rc=1
fi

if [ "${FL_DEMO_SERVE:-1}" = 0 ]; then
	exit $rc
fi
kill "$smtp_pid" 2>/dev/null
smtp_pid=
"$FAULTLINE" serve --config "$config" >"$FL_DEMO_VAR/serve.url" 2>>"$log" &
serve_pid=$!
url=
i=0
while [ -z "$url" ] && [ $i -lt 100 ]; do
	url=$(head -n1 "$FL_DEMO_VAR/serve.url" 2>/dev/null || true)
	i=$((i + 1))
	sleep 0.1
done
[ -n "$url" ] || { echo "demo: faultline serve did not start; see $log" >&2; exit 1; }
bid=$(curl -fsS "${url%/}/api/bisections" | "$PY" -c '
import json, sys
b = [x for x in json.load(sys.stdin)["bisections"] if x["result"] == "culprit"]
print(b[0]["id"] if b else "")')
echo
echo "results pages: $url"
[ -n "$bid" ] && echo "the bisection: ${url%/}/bisect/$bid"
echo "(Ctrl-C stops the server)"
wait "$serve_pid"
