# compare.sh - evidence from real guests, compared: "faultline run" of
# page_fault1 (configs/test-libvirt.yaml, pf1-evidence: 1 and 2 tasks) with
# Debian's cloud kernel through a real libvirtd, twice two runs. The
# kernel has CONFIG_PROFILING, so it boots with profile=2; its System.map
# is Debian's one-line placeholder, so the profile is named from the
# agent's "ksyms" record (the running kernel's kallsyms). Checked:
#  - every ok run stores evidence for both points: a window, a profile
#    named from kallsyms ("recorded", not "unmapped") whose top functions
#    include the page-fault path, and vmstat pgfault per second > 0;
#  - the run says its System.map was not used and why;
#  - "faultline compare" of the two pairs (run:ID lists: runs of a prebuilt
#    image belong to no commit) prints metric, vmstat and profile rows whose
#    values and signs are those of the stored evidence, no DIFFERENT on two
#    runs a side, and exits 0.
. tests/integration/lib.sh
run() { "$FAULTLINE" run --config "$cfg" --kernel-image "$kernel" --machine numa2 --benchmark pf1-evidence "$@"; }

expect_exit 0 "two runs of page_fault1" run --repeat 2
cat "$tmp/err" "$tmp/out"
expect_grep "$tmp/err" "System.map-6.1.0-57-cloud-amd64:1: expected '<hex address> <type> <name>'" \
	"the placeholder System.map is named as unusable"
expect_grep "$tmp/err" ": profiles named from the kernel's kallsyms" "and kallsyms used instead"
expect_exit 0 "two more" run --repeat 2
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok'")" = 4 ] && ok "four ok runs" ||
	fail "runs: $(q "SELECT id, status, detail FROM runs")"

# -- the evidence of every run
for id in $(q "SELECT id FROM runs WHERE status = 'ok' ORDER BY id"); do
	[ "$(q "SELECT group_concat(tasks || ':' || profile, ' ') FROM (SELECT tasks, profile FROM evidence_points WHERE run_id = $id AND test = 'page_fault1' AND mode = 'processes' AND measured_s > 0 ORDER BY tasks)")" = "1:recorded 2:recorded" ] &&
		ok "run $id: both points have a window and a recorded profile" ||
		fail "run $id points: $(q "SELECT * FROM evidence_points WHERE run_id = $id")"
	for tasks in 1 2; do
		top=$(q "SELECT group_concat(function, ' ') FROM (SELECT f.function FROM evidence_profile f JOIN evidence_points p ON p.id = f.point_id WHERE p.run_id = $id AND p.tasks = $tasks ORDER BY f.samples DESC LIMIT 8)")
		echo "$top" | grep -qE '(^| )(clear_page[a-z_]*|handle_mm_fault|__handle_mm_fault|do_user_addr_fault|exc_page_fault|do_anonymous_page|get_page_from_freelist)( |$)' &&
			ok "run $id, $tasks tasks: the page-fault path is among the top functions ($top)" ||
			fail "run $id, $tasks tasks: top functions: $top"
		pg=$(q "SELECT v.per_sec FROM evidence_vmstat v JOIN evidence_points p ON p.id = v.point_id WHERE p.run_id = $id AND p.tasks = $tasks AND v.name = 'pgfault'")
		awk -v v="${pg:-0}" 'BEGIN { exit !(v > 0) }' && ok "run $id, $tasks tasks: pgfault $pg/s" ||
			fail "run $id, $tasks tasks: pgfault '${pg}'"
	done
done

# -- lock contention and per-node evidence (agents/lockstat.h): Debian's
# kernel has the contention tracepoints and hist triggers, so every point's
# window was traced; the 2-node guest gives per-node rows, each node with
# one of the 2 tasks; the kernel has no CONFIG_DEBUG_TLBFLUSH, and says so.
for id in $(q "SELECT id FROM runs WHERE status = 'ok' ORDER BY id"); do
	[ "$(q "SELECT group_concat(locks, ' ') FROM evidence_points WHERE run_id = $id")" = "recorded recorded" ] &&
		ok "run $id: both windows traced for lock contention" ||
		fail "run $id locks: $(q "SELECT tasks, locks FROM evidence_points WHERE run_id = $id")"
	[ "$(q "SELECT group_concat(v.delta, ' ') FROM evidence_vmstat v JOIN evidence_points p ON p.id = v.point_id WHERE p.run_id = $id AND p.tasks = 2 AND v.name GLOB 'numa.node*.tasks' ORDER BY v.name")" = "1 1" ] &&
		ok "run $id: 2 tasks, one on each node" ||
		fail "run $id node tasks: $(q "SELECT v.name, v.delta FROM evidence_vmstat v JOIN evidence_points p ON p.id = v.point_id WHERE p.run_id = $id AND v.name GLOB 'numa.*'")"
	n=$(q "SELECT count(*) FROM evidence_vmstat v JOIN evidence_points p ON p.id = v.point_id WHERE p.run_id = $id AND v.name GLOB 'numa-numastat.node[01].numa_hit' AND v.delta > 0")
	[ "$n" -ge 2 ] && ok "run $id: numa_hit per node ($n rows)" || fail "run $id: $n per-node numa_hit rows"
	q "SELECT vmstat_missing FROM evidence_points WHERE run_id = $id" | grep -q "nr_tlb_remote_flush" &&
		ok "run $id: the missing TLB counters are named" || fail "run $id: vmstat_missing $(q "SELECT vmstat_missing FROM evidence_points WHERE run_id = $id")"
done

# -- the two pairs compared
set -- $(q "SELECT id FROM runs WHERE status = 'ok' ORDER BY id")
a="run:$1,$2" b="run:$3,$4"
expect_exit 0 "compare $a with $b: no regression, exit 0" \
	"$FAULTLINE" compare --config "$cfg" --a "$a" --b "$b" --benchmark pf1-evidence --machine numa2
cat "$tmp/out"
expect_grep "$tmp/out" "base $a: 2 runs ($1 $2)" "the base runs named"
# two runs a side cannot be DIFFERENT (the smallest p is 1/3): SAME at most
grep -qE "pf1-evidence\.processes\.per_process_ops tasks=2  (SAME|UNKNOWN) p=" "$tmp/out" &&
	ok "metric row at 2 tasks, not DIFFERENT" || fail "metric row at 2 tasks"
expect_grep "$tmp/out" " n=2+2" "two runs a side"
for tasks in 1 2; do
	# pgfault's change as the store has it: means of the run rates
	want=$(q "SELECT printf('%+.1f%%', 100 * (avg(CASE WHEN p.run_id IN ($3, $4) THEN v.per_sec END) - avg(CASE WHEN p.run_id IN ($1, $2) THEN v.per_sec END)) / avg(CASE WHEN p.run_id IN ($1, $2) THEN v.per_sec END)) FROM evidence_vmstat v JOIN evidence_points p ON p.id = v.point_id WHERE v.name = 'pgfault' AND p.tasks = $tasks")
	grep -E "pf1-evidence\.processes\.vmstat\.pgfault/s tasks=$tasks\$" "$tmp/out" | grep -qF -- " $want " &&
		ok "vmstat pgfault/s at $tasks tasks: $want, as stored" ||
		fail "vmstat pgfault/s at $tasks tasks: want $want in: $(grep "pgfault/s tasks=$tasks" "$tmp/out")"
done
# every profile row: the change in points is new - base of the stored shares
grep 'pf1-evidence\.processes\.profile\.' "$tmp/out" >"$tmp/prof"
[ -s "$tmp/prof" ] && ok "profile rows: $(wc -l <"$tmp/prof")" || fail "no profile rows"
bad=0
# the columns: base [± N%] change new [± N%] name tasks=T
awk '{ c = ""; for (i = 1; i <= NF; i++) { if (c == "" && $i ~ /^[+-][0-9.]+$/) c = $i
	if ($i ~ /^pf1-evidence\./) n = $i; if ($i ~ /^tasks=/) t = $i }
	print c, n, t }' "$tmp/prof" >"$tmp/prof.cols"
while read -r change name tasks; do
	fn=${name#pf1-evidence.processes.profile.}
	t=${tasks#tasks=}
	want=$(q "SELECT printf('%+.1f', 100 * (coalesce(avg(CASE WHEN s.run_id IN ($3, $4) THEN s.share END), 0) - coalesce(avg(CASE WHEN s.run_id IN ($1, $2) THEN s.share END), 0))) FROM (SELECT r.id run_id, coalesce((SELECT f.share FROM evidence_profile f WHERE f.point_id = p.id AND f.function = '$fn'), 0) share FROM runs r JOIN evidence_points p ON p.run_id = r.id WHERE r.id IN ($1, $2, $3, $4) AND p.tasks = $t) s")
	[ "$change" = "$want" ] || { bad=$((bad + 1)); echo "  $fn at $t tasks: printed $change, stored $want"; }
done <"$tmp/prof.cols"
[ $bad -eq 0 ] && ok "every profile row's change and sign is that of the stored shares" ||
	fail "$bad profile rows disagree with the store"
expect_grep "$tmp/out" "# vmstat of run:$3,$4 has no nr_tlb_remote_flush" "compare names the missing counters"
[ "$(q "SELECT count(*) FROM runs WHERE status = 'running'")" -eq 0 ] && ok "no run left running" ||
	fail "runs left running"
finish
