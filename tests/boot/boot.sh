# boot.sh - Debian's prebuilt cloud kernel boots under QEMU TCG with the
# initramfs faultline writes, in a 2-node NUMA guest: the environment record
# shows 2 nodes, page_fault1/2/3 records come back and parse, points run in
# a child memory cgroup the agent makes (cgroup v2 with limits, and v1)
# besides the root, and a job told to hang is ended by the watchdog with an
# error record.
# Exit 77 (skip) only when QEMU or the kernel cannot be had.
. tests/cli/lib.sh
agent=$FL_BUILD_DIR/agents/fl-agent-static

if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "skip: qemu-system-x86_64 not installed (scripts/install-deps.sh)"
	exit 77
fi
if ! kernel=$(scripts/fetch-test-kernel.sh); then
	echo "skip: no test kernel (scripts/fetch-test-kernel.sh failed)"
	exit 77
fi

# boot NAME JOB [CMDLINE]: boots with JOB as /job; console in $tmp/NAME.log.
boot() {
	"$FAULTLINE" initramfs --agent "$agent" --gzip --job "$2" "$tmp/$1.img" || return 1
	start=$(date +%s)
	timeout 300 qemu-system-x86_64 -accel tcg -m 1G -smp 2,sockets=2 \
		-object memory-backend-ram,id=m0,size=512M \
		-object memory-backend-ram,id=m1,size=512M \
		-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
		-kernel "$kernel" -initrd "$tmp/$1.img" \
		-append "console=ttyS0 panic=-1 quiet ${3:-}" \
		-display none -monitor none -no-reboot -serial "file:$tmp/$1.log"
	rc=$?
	echo "$1: qemu exit $rc after $(( $(date +%s) - start ))s"
	return $rc
}

job="test=page_fault1,page_fault2,page_fault3
mode=processes,threads
tasks=2
warmup=0s
duration=1s
memory=16M"
if boot bench "$job" profile=2; then ok "bench guest powered off"; else fail "bench guest"; fi
"$FAULTLINE" records "$tmp/bench.log" >"$tmp/bench.json" 2>"$tmp/bench.err"
[ $? -eq 0 ] && ok "records parse cleanly" || fail "records: $(cat "$tmp/bench.err")"
cat "$tmp/bench.err"
expect_grep "$tmp/bench.json" '"type":"env"' "environment record"
expect_grep "$tmp/bench.json" '"nodes":2' "guest sees 2 NUMA nodes"
for t in page_fault1 page_fault2 page_fault3; do
	for m in processes threads; do
		expect_grep "$tmp/bench.json" "\"test\":\"$t\",\"mode\":\"$m\"" "$t $m record"
	done
done
grep -o '"test":"[a-z_0-9]*","mode":"[a-z]*"\|"average":[0-9.]*' "$tmp/bench.json" | paste - -
bad=$(grep -o '"average":[0-9.]*' "$tmp/bench.json" | awk -F: '$2 < 100' | wc -l)
[ "$bad" -eq 0 ] && ok "guest rates positive" || fail "guest rate below 100/s"
expect_grep "$tmp/bench.json" '"type":"done"' "done record"
# Debian's cloud kernel has CONFIG_PROFILING: with profile=2 every point's
# measured window comes with its own profile.
for t in page_fault1 page_fault2 page_fault3; do
	expect_grep "$tmp/bench.json" "\"type\":\"profile\",\"test\":\"$t\",\"mode\":\"threads\",\"tasks\":2,\"step\":4," "$t profile record (profile=2)"
done
n=$(grep -c '"profile":"recorded"' "$tmp/bench.json")
[ "$n" -eq 6 ] && ok "6 points say their profile was recorded" || fail "$n points recorded a profile"
# Hits were counted in the window: the sum of the buckets is positive.
bad=$(grep -o '"type":"profile".*"total":[0-9]*' "$tmp/bench.json" | grep -o '"total":[0-9]*$' | awk -F: '$2 < 1' | wc -l)
[ "$bad" -eq 0 ] && ok "every profile has hits" || fail "$bad profiles without hits"
# Debian's System.map is a placeholder; the agent's ksyms record names the
# buckets. While page_fault1 runs, the fault path is among the hottest ten.
"$FAULTLINE" profile --top 10 "$tmp/bench.log" >"$tmp/profile.txt" 2>"$tmp/profile.err"
[ $? -eq 0 ] && ok "faultline profile names the profiles" || fail "profile: $(cat "$tmp/profile.err")"
awk '/^page_fault1 processes tasks=2:/ { on = 1; next } /^[^ ]/ { on = 0 } on' "$tmp/profile.txt" >"$tmp/pf1-top.txt"
cat "$tmp/pf1-top.txt"
if grep -Eq ' (do_user_addr_fault|exc_page_fault|handle_mm_fault|__handle_mm_fault|do_anonymous_page|clear_page_[a-z]+|clear_huge_page|asm_exc_page_fault)$' "$tmp/pf1-top.txt"; then
	ok "page_fault1's top functions include the page-fault path"
else
	fail "page_fault1's top functions miss the page-fault path"
fi
# Debian's kernel has the lock:contention_* tracepoints and hist triggers:
# every point's window was traced (agents/lockstat.h), as the agent is the
# guest's PID 1, and each says it; per-node rows for both nodes.
n=$(grep -c '"type":"locks","test":"[a-z0-9_]*","mode":"[a-z]*","tasks":2,"cgroup":"root","status":"recorded"' "$tmp/bench.json")
[ "$n" -eq 6 ] && ok "6 points traced for lock contention" || fail "$n points with a recorded locks record"
n=$(grep -c '"locks":"recorded"' "$tmp/bench.json")
[ "$n" -eq 6 ] && ok "6 results say their locks were recorded" || fail "$n results say locks recorded"
n=$(grep -c '"nodes":\[{"node":0,"tasks":1,.*{"node":1,"tasks":1,' "$tmp/bench.json")
[ "$n" -eq 6 ] && ok "6 results with per-node rows, a task on each node" || fail "$n results with both nodes"
expect_grep "$tmp/bench.json" '"vmstat_missing":["nr_tlb_remote_flush"' "the missing TLB counters named"
expect_exit 2 "a placeholder System.map is refused by name" "$FAULTLINE" profile \
	--system-map "$(dirname "$kernel")/System.map-$(basename "$kernel" | sed 's/^vmlinuz-//')" "$tmp/bench.log"
expect_grep "$tmp/err" "System.map" "the error names the map"

# The cgroup context: the agent mounts cgroup2, makes /sys/fs/cgroup/faultline
# with the limits asked for, says so in the environment record, and runs each
# point in the root and in the child; the child's own fault counter moves
# while a child point runs (its tasks were in it), and the child's numbers
# are close to the root's (no limit is reached with 2 x 16M).
job="test=page_fault2
mode=processes,threads
tasks=2
cgroup=root,child
memory_max=256M
memory_high=192M
warmup=0s
duration=1s
memory=16M"
if boot cgroup "$job"; then ok "cgroup guest powered off"; else fail "cgroup guest"; fi
"$FAULTLINE" records "$tmp/cgroup.log" >"$tmp/cgroup.json" 2>"$tmp/cgroup.err"
[ $? -eq 0 ] && ok "cgroup records parse cleanly" || fail "cgroup records: $(cat "$tmp/cgroup.err")"
expect_grep "$tmp/cgroup.json" '"cgroup":{"hierarchy":"v2","path":"/sys/fs/cgroup/faultline","memory.max":"268435456","memory.high":"201326592"}' \
	"the environment record shows the child cgroup v2 and its limits"
for m in processes threads; do
	for c in root child; do
		expect_grep "$tmp/cgroup.json" "\"test\":\"page_fault2\",\"mode\":\"$m\",\"tasks\":2,\"cgroup\":\"$c\"" "$m in $c"
	done
done
n=$(grep -c '"type":"error"' "$tmp/cgroup.json")
[ "$n" -eq 0 ] && ok "no point failed" || fail "$n error records: $(grep '"type":"error"' "$tmp/cgroup.json")"
faults=$(grep -o '"cgroup":"child".*"cgroup_pgfault":[0-9]*' "$tmp/cgroup.json" | grep -o '"cgroup_pgfault":[0-9]*$' | cut -d: -f2)
echo "child faults per point: $faults"
[ "$(echo "$faults" | awk '$1 > 1000' | wc -l)" -eq 2 ] &&
	ok "the child cgroup counted the faults of both child points" ||
	fail "the child cgroup counted the faults of both child points ($faults)"
[ "$(grep -c '"cgroup":"root".*"cgroup_pgfault"' "$tmp/cgroup.json")" -eq 0 ] &&
	ok "root points say nothing of the child" || fail "root points say nothing of the child"
# cgroup v1 when the job asks: the memory hierarchy mounted by the agent
job="test=page_fault2
mode=threads
tasks=1
cgroup=child
cgroup_version=v1
memory_max=128M
warmup=0s
duration=1s
memory=16M"
if boot cgroupv1 "$job"; then ok "cgroup v1 guest powered off"; else fail "cgroup v1 guest"; fi
"$FAULTLINE" records "$tmp/cgroupv1.log" >"$tmp/cgroupv1.json" 2>/dev/null
expect_grep "$tmp/cgroupv1.json" '"cgroup":{"hierarchy":"v1","path":"/tmp/fl-memcg/faultline","memory.max":"134217728","memory.high":"max"}' \
	"the environment record shows the child in cgroup v1"
expect_grep "$tmp/cgroupv1.json" '"mode":"threads","tasks":1,"cgroup":"child"' "a point in the v1 child"
grep -q '"cgroup":"child".*"cgroup_pgfault":[1-9]' "$tmp/cgroupv1.json" &&
	ok "the v1 child counted the point's faults" || fail "the v1 child counted the point's faults"

if boot hang "hang=1
timeout=5s"; then ok "hung guest powered off"; else fail "hung guest"; fi
"$FAULTLINE" records "$tmp/hang.log" >"$tmp/hang.json" 2>/dev/null
expect_grep "$tmp/hang.json" '"message":"watchdog: job still running after 5 s' "watchdog error record"
finish
