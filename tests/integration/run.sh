# run.sh - "faultline run" through a real libvirtd with Debian's prebuilt
# cloud kernel (configs/test-libvirt.yaml, a scratch state directory):
#  - a 2-socket TCG guest runs page_fault2 and reports 2 nodes; its samples,
#    records, facts and console are in the store; a panicking command line
#    started at the same time waits for the host's only guest slot, then
#    ends as panic
#  - an 8-socket guest reports 8 nodes
#  - a job told to hang is destroyed at its deadline: timeout
#  - faultline killed with SIGKILL leaves a guest that the next run reaps;
#    SIGTERM destroys the guest and ends the run infra-error
#  - bad arguments are usage errors that store nothing
#  - afterwards no domain of these runs is left (virsh list --all)
. tests/integration/lib.sh
fl() { "$FAULTLINE" "$@"; }
run() { fl run --config "$cfg" --kernel-image "$kernel" "$@"; }
# Runs in the background start faultline itself, so that $! is its pid.

# -- a 2-socket guest measures; a panicking one waits for the slot, then panics
"$FAULTLINE" run --config "$cfg" --kernel-image "$kernel" --machine numa2 --benchmark pf2-short \
	>"$tmp/ok.out" 2>"$tmp/ok.err" &
ok_pid=$!
sleep 0.5
"$FAULTLINE" run --config "$cfg" --kernel-image "$kernel" --machine numa2-panic \
	--benchmark pf1-boot >"$tmp/panic.out" 2>"$tmp/panic.err" &
panic_pid=$!
wait $ok_pid; ok_rc=$?
wait $panic_pid; panic_rc=$?
[ $ok_rc -eq 0 ] && ok "numa2 run exits 0" || { fail "numa2 run exits $ok_rc"; cat "$tmp/ok.err"; }
[ $panic_rc -eq 1 ] && ok "panic run exits 1" || { fail "panic run exits $panic_rc"; cat "$tmp/panic.err"; }
cat "$tmp/ok.err" "$tmp/ok.out"
expect_grep "$tmp/ok.err" "accel: tcg (configured)" "accelerator said"
expect_grep "$tmp/ok.err" "page_fault2 threads 2 tasks: " "progress line per point"
expect_grep "$tmp/ok.out" "pf2-short on numa2: 1 of 1 runs ok" "table header"
[ "$(grep -cE '^ +[12] +(processes|threads) +[0-9]+ ' "$tmp/ok.out")" -eq 4 ] &&
	ok "table has 4 rows" || fail "table rows"
grep -q "waiting for a guest slot on qemu:///system" "$tmp/ok.err" "$tmp/panic.err" &&
	ok "second run waited for the slot" || fail "no slot wait seen"
okrun=$(q "select id from runs where status = 'ok'")
[ -n "$okrun" ] && ok "ok run stored ($okrun)" || fail "no ok run"
[ "$(q "select nodes || ' ' || cpus || ' ' || kernel_release || ' ' || accel from runs where id = $okrun")" = "2 2 6.1.0-57-cloud-amd64 tcg" ] &&
	ok "environment: 2 nodes, 2 CPUs, kernel release, accel" ||
	fail "environment facts: $(q "select nodes, cpus, kernel_release, accel from runs where id = $okrun")"
n=$(q "select count(*) from samples where run_id = $okrun")
[ "$n" -eq 8 ] && ok "8 samples (4 points, total and per task)" || fail "$n samples"
[ "$(q "select count(*) from samples where run_id = $okrun and metric = 'per_thread_ops' and mode = 'threads' and tasks = 2 and value > 0")" -eq 1 ] &&
	ok "per_thread_ops sample" || fail "per_thread_ops sample"
[ "$(q "select group_concat(type) from (select type from run_records where run_id = $okrun order by seq)")" = "env,result,profile,locks,result,profile,locks,result,profile,locks,result,profile,locks,ksyms,done" ] &&
	ok "every record stored in order (profile=2 from CONFIG_PROFILING, locks traced as PID 1)" ||
	fail "records: $(q "select group_concat(type) from run_records where run_id = $okrun")"
[ "$(q "select created_ms < agent_ms and agent_ms < first_sample_ms and first_sample_ms < ended_ms from runs where id = $okrun")" = 1 ] &&
	ok "timing: created < agent < first sample < end" || fail "timing"
console=$(q "select console_path from runs where id = $okrun")
expect_grep "$console" "FLR1 0 " "console log kept per run"
expect_grep "$console" "reboot: Power down" "guest powered off"
prun=$(q "select id from runs where status = 'panic'")
[ -n "$prun" ] && ok "panic run classified panic" || fail "panic: $(q "select status, detail from runs")"
expect_grep "$tmp/panic.err" "panic: Kernel panic - not syncing: VFS: Unable to mount root fs" "panic detail"
[ "$(q "select count(*) from samples where run_id in (select id from runs where status != 'ok')")" -eq 0 ] &&
	ok "no samples for runs that are not ok" || fail "samples of a failed run"

# -- an 8-socket guest
run --machine numa8 --benchmark pf1-boot >"$tmp/n8.out" 2>"$tmp/n8.err" &&
	ok "numa8 run exits 0" || { fail "numa8 run"; cat "$tmp/n8.err"; }
[ "$(q "select nodes || ' ' || cpus from runs where status = 'ok' order by id desc limit 1")" = "8 8" ] &&
	ok "8-socket guest reports 8 nodes" || fail "numa8: $(q "select nodes, cpus from runs")"

# -- a job told to hang: the deadline destroys the guest
t0=$(date +%s)
run --machine numa2 --benchmark pf1-boot --job hang=1 --job timeout=3600s --timeout 45s \
	>"$tmp/hang.out" 2>"$tmp/hang.err"
rc=$?
took=$(( $(date +%s) - t0 ))
[ $rc -eq 1 ] && ok "hang run exits 1" || { fail "hang run exits $rc"; cat "$tmp/hang.err"; }
hrun=$(q "select max(id) from runs")
[ "$(q "select status from runs where id = $hrun")" = timeout ] && ok "hang classified timeout" ||
	fail "hang: $(q "select status, detail from runs where id = $hrun")"
[ "$(q "select detail from runs where id = $hrun")" = "deadline of 45 s passed after 0 of 1 points" ] &&
	ok "the agent started, then the job hung" || fail "hang detail: $(q "select detail from runs where id = $hrun")"
[ $took -ge 45 ] && ok "destroyed at the deadline (${took}s)" || fail "ended after ${took}s"

# wait_domain RUN_ID: waits until the run's domain runs; prints its name.
wait_domain() {
	i=0
	while [ $i -lt 600 ]; do
		d=$(q "select domain from runs where id = $1" 2>/dev/null)
		if [ -n "$d" ] && virsh -c qemu:///system domstate "$d" 2>/dev/null | grep -q running; then
			echo "$d"
			return 0
		fi
		i=$((i + 1))
		sleep 0.1
	done
	return 1
}
last=$(q "select max(id) from runs")

# -- SIGKILL: the guest outlives faultline; the next run reaps it and the run row
"$FAULTLINE" run --config "$cfg" --kernel-image "$kernel" --machine numa2 --benchmark pf1-boot \
	--job hang=1 >"$tmp/kill.out" 2>"$tmp/kill.err" &
pid=$!
if dom=$(wait_domain $((last + 1))); then
	kill -KILL $pid
	wait $pid 2>/dev/null
	virsh -c qemu:///system domstate "$dom" >/dev/null 2>&1 && ok "SIGKILL leaves $dom" ||
		fail "domain vanished on SIGKILL"
else
	fail "killed run never booted"; cat "$tmp/kill.err"
fi

# -- SIGTERM: the guest is destroyed, the run ends infra-error
"$FAULTLINE" run --config "$cfg" --kernel-image "$kernel" --machine numa2 --benchmark pf1-boot \
	--job hang=1 >"$tmp/term.out" 2>"$tmp/term.err" &
pid=$!
if tdom=$(wait_domain $((last + 2))); then
	kill -TERM $pid
	wait $pid; rc=$?
	[ $rc -eq 4 ] && ok "SIGTERM: exit 4" || fail "SIGTERM: exit $rc"
	virsh -c qemu:///system domstate "$tdom" >/dev/null 2>&1 && fail "SIGTERM left $tdom" ||
		ok "SIGTERM destroyed the guest"
else
	fail "SIGTERM run never booted"; kill -KILL $pid; cat "$tmp/term.err"
fi
cat "$tmp/term.err"
expect_grep "$tmp/term.err" "reaped guest $dom" "next run reaped the killed run's guest"
expect_grep "$tmp/term.err" "run $((last + 1)): abandoned: process" "and ended its run"
[ "$(q "select status || ': ' || detail from runs where id = $((last + 2))")" = "infra-error: interrupted" ] &&
	ok "interrupted run is infra-error" || fail "SIGTERM run: $(q "select status, detail from runs where id = $((last + 2))")"

# -- bad input stores nothing and boots nothing
before=$(q "select count(*) from runs")
expect_exit 2 "image and revision together" run --machine numa2 --benchmark pf1-boot --rev HEAD
expect_exit 2 "missing image" fl run --config "$cfg" --machine numa2 --benchmark pf1-boot --kernel-image "$tmp/nope"
expect_grep "$tmp/err" "kernel image $tmp/nope: No such file or directory" "missing image named"
expect_exit 2 "unknown machine" run --machine numa3 --benchmark pf1-boot
expect_grep "$tmp/err" "no machine 'numa3'" "unknown machine named"
expect_exit 2 "job key with a space" run --machine numa2 --benchmark pf1-boot --job "hang=1 x"
expect_exit 2 "bad timeout" run --machine numa2 --benchmark pf1-boot --timeout 5parsecs
[ "$(q "select count(*) from runs")" -eq "$before" ] && ok "no run stored for bad input" || fail "bad input stored a run"

# -- nothing of ours survives
q "select domain from runs where domain is not null" >"$tmp/ours"
virsh -c qemu:///system list --all --name >"$tmp/all"
left=$(grep -xFf "$tmp/ours" "$tmp/all" || true)
[ -z "$left" ] && ok "no domain of these runs is left ($(wc -l <"$tmp/ours") runs)" ||
	{ fail "domains left: $left"; for d in $left; do virsh -c qemu:///system destroy "$d"; done; }
[ "$(q "select count(*) from runs where status = 'running'")" -eq 0 ] && ok "no run left running" ||
	fail "runs left running"
finish
