#!/bin/sh
# leftovers.sh - tests/leftovers.py, the check after ctest, on planted
# processes: one carrying another build directory's marker (FL_TEST_RUN) is
# a leftover of that run's test and is named and stopped; one of another
# build directory is not touched; one that ends within the wait is not a
# leftover; none left: exit 0. And the exit trap of this lib.sh: a script
# that leaves servers behind has them stopped when it ends, by a failure or
# by SIGTERM too.
. tests/cli/lib.sh

check=tests/leftovers.py
mkdir -p "$tmp/build" "$tmp/other"
alive() { [ -d "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }

FL_TEST_RUN=$tmp/build FL_TEST_NAME=planted sleep 300 & planted=$!
FL_TEST_RUN=$tmp/other FL_TEST_NAME=elsewhere sleep 300 & other=$!
FL_TEST_RUN=$tmp/build FL_TEST_NAME=ending sleep 1 & ending=$!
sleep 0.2
FL_LEFTOVERS_WAIT=3 python3 "$check" "$tmp/build" >"$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
[ "$rc" = 1 ] && ok "a planted leftover fails the check" || fail "a planted leftover fails the check (exit $rc)"
expect_grep "$tmp/out" "pid $planted of test planted" "it is named with its test"
expect_grep "$tmp/out" "sleep 300" "with its command line"
grep -q "test ending\|test elsewhere" "$tmp/out" && fail "only the leftover is named" ||
	ok "only the leftover is named"
wait "$planted" 2>/dev/null
alive "$planted" && fail "the leftover is stopped" || ok "the leftover is stopped"
alive "$other" && ok "another build directory's process is left alone" ||
	fail "another build directory's process is left alone"
kill "$other"
wait "$other" "$ending" 2>/dev/null
expect_exit 0 "nothing left: exit 0" python3 "$check" "$tmp/build"
expect_exit 2 "no build directory: usage" python3 "$check" "$tmp/none"

# lib.sh's exit trap: a script that fails, or gets SIGTERM, with servers
# (and their children) still running
cat >"$tmp/leaves.sh" <<'EOF'
. tests/cli/lib.sh
sleep 300 &
echo $! >"$1.pids"
sh -c 'sleep 301 & echo $! >>"$0.pids"; wait' "$1" &
python3 -c 'import signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
open(sys.argv[1] + ".deaf", "w").close()
time.sleep(302)' "$1" &
echo $! >>"$1.pids"
i=0
while [ ! -e "$1.deaf" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ "${2:-}" = wait ] && { echo ready >"$1.ready"; sleep 30; }
fail "a step"
finish
EOF
for how in fails sigterm; do
	if [ $how = fails ]; then
		FL_TEST_STOP_WAIT=1 FL_TEST_RUN=$tmp/build sh "$tmp/leaves.sh" "$tmp/$how" >"$tmp/$how.out" 2>&1
		rc=$?
		want=1
	else
		FL_TEST_STOP_WAIT=1 FL_TEST_RUN=$tmp/build sh "$tmp/leaves.sh" "$tmp/$how" wait >"$tmp/$how.out" 2>&1 &
		pid=$!
		i=0
		while [ ! -e "$tmp/$how.ready" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		# as ctest's Ctrl-C does, to the script and what runs in its foreground
		kill -TERM "$pid" $(ps -o pid=,args= --ppid "$pid" | awk '$2 == "sleep" && $3 == 30 { print $1 }')
		wait "$pid"
		rc=$?
		want=143
	fi
	[ "$rc" = "$want" ] && ok "$how: the script's status is kept ($rc)" ||
		fail "$how: the script's status is kept ($rc, wanted $want)"
	n=0
	for p in $(cat "$tmp/$how.pids"); do alive "$p" && n=$((n + 1)); done
	[ "$n" = 0 ] && ok "$how: what it started is stopped ($(wc -w <"$tmp/$how.pids") processes)" ||
		{ fail "$how: $n of what it started still run"; for p in $(cat "$tmp/$how.pids"); do alive "$p" && ps -o pid=,stat=,args= -p "$p"; done; }
	expect_grep "$tmp/$how.out" "still running 1 s after SIGTERM, killed" "$how: one that ignores SIGTERM is killed"
	FL_LEFTOVERS_WAIT=0 python3 "$check" "$tmp/build" >"$tmp/out" 2>&1 &&
		ok "$how: the check finds nothing left" || { fail "$how: the check finds nothing left"; cat "$tmp/out"; }
done
finish
