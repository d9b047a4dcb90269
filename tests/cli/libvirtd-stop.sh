#!/bin/sh
# libvirtd-stop.sh - scripts/libvirtd-start.sh stop signals only the
# processes its start recorded, by PID, and only while /proc says each is
# still that process; .ci/run's trap uses a state file of its own. Tried on
# dummy processes (sleep): a libvirtd running on this machine is never
# signalled, and the test checks it is still the same process afterwards.
. tests/cli/lib.sh

script=scripts/libvirtd-start.sh
for f in "$script" .ci/run; do
	if grep -nE '(^|[^#]*[;&|(]|^\s*)(pkill|killall)\b' "$f" >"$tmp/grep"; then
		fail "$f kills by name"; sed 's/^/  | /' "$tmp/grep"
	else
		ok "$f kills nothing by name"
	fi
done
grep -q 'FL_LIBVIRTD_STATE=' .ci/run && ok ".ci/run gives its tests a state file of its own" ||
	fail ".ci/run gives its tests a state file of its own"

real_before=$(pgrep -x libvirtd | sort | tr '\n' ' ')
starttime() { sed -n 's/^.*) //p' "/proc/$1/stat" | awk '{ print $20 }'; }
alive() { [ -d "/proc/$1" ] && [ "$(cat "/proc/$1/comm" 2>/dev/null)" = sleep ] &&
	! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }

sleep 300 & recorded=$!
sleep 300 & reused=$!
sleep 300 & other=$!
sh -c 'trap "" TERM; exec sleep 300' & stubborn=$!
sleep 0.2
state=$tmp/libvirtd.pids
{
	echo "$recorded sleep $(starttime $recorded)"
	echo "$reused sleep 1" # the PID now belongs to a newer process
	echo "$stubborn sleep $(starttime $stubborn)"
} >"$state"
t0=$(date +%s)
FL_LIBVIRTD_STATE=$state FL_LIBVIRTD_STOP_WAIT=1 sh "$script" stop >"$tmp/out" 2>&1 &&
	ok "stop exits 0" || fail "stop exits 0"
wait "$recorded" 2>/dev/null
alive "$recorded" && fail "the recorded process is stopped" || ok "the recorded process is stopped"
alive "$reused" && ok "a PID recorded with another start time is left alone" ||
	fail "a PID recorded with another start time is left alone"
alive "$other" && ok "a process not recorded is left alone" || fail "a process not recorded is left alone"
wait "$stubborn" 2>/dev/null
alive "$stubborn" && fail "one ignoring SIGTERM gets SIGKILL" || ok "one ignoring SIGTERM gets SIGKILL"
[ $(($(date +%s) - t0)) -le 5 ] && ok "after FL_LIBVIRTD_STOP_WAIT" || fail "after FL_LIBVIRTD_STOP_WAIT"
[ ! -e "$state" ] && ok "the state file is removed" || fail "the state file is removed"
expect_grep "$tmp/out" "stopped sleep (pid $recorded)" "says what it stopped"
expect_exit 0 "stop without a state file does nothing" env FL_LIBVIRTD_STATE="$tmp/none" sh "$script" stop
[ ! -s "$tmp/out" ] && ok "and says nothing" || fail "and says nothing"
kill "$reused" "$other" 2>/dev/null

# start beside a libvirtd that runs already: it is used, and nothing is
# recorded, so stop leaves it alone (only when one runs: this test never
# starts or stops the real daemon)
if [ -n "$real_before" ] && virsh -c qemu:///system uri >/dev/null 2>&1; then
	expect_exit 0 "start beside a running libvirtd" env FL_LIBVIRTD_STATE="$tmp/mine" sh "$script" start
	[ ! -e "$tmp/mine" ] && ok "records nothing" || fail "records nothing: $(cat "$tmp/mine")"
	expect_grep "$tmp/out" "already running" "says it uses the running one"
fi
[ "$(pgrep -x libvirtd | sort | tr '\n' ' ')" = "$real_before" ] &&
	ok "the machine's libvirtd is the same process ($real_before)" ||
	fail "the machine's libvirtd changed: '$real_before' -> '$(pgrep -x libvirtd | tr '\n' ' ')'"
finish
