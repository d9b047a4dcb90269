# boot.sh - Debian's prebuilt cloud kernel boots under QEMU TCG with the
# initramfs faultline writes, in a 2-node NUMA guest: the environment record
# shows 2 nodes, page_fault1/2/3 records come back and parse, and a job told
# to hang is ended by the watchdog with an error record.
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
expect_exit 2 "a placeholder System.map is refused by name" "$FAULTLINE" profile \
	--system-map "$(dirname "$kernel")/System.map-$(basename "$kernel" | sed 's/^vmlinuz-//')" "$tmp/bench.log"
expect_grep "$tmp/err" "System.map" "the error names the map"

if boot hang "hang=1
timeout=5s"; then ok "hung guest powered off"; else fail "hung guest"; fi
"$FAULTLINE" records "$tmp/hang.log" >"$tmp/hang.json" 2>/dev/null
expect_grep "$tmp/hang.json" '"message":"watchdog: job still running after 5 s' "watchdog error record"
finish
