# agent-host.sh - fl-agent in host mode: every test in both modes for 1 s
# gives positive rates, and its record stream parses with faultline records.
. tests/cli/lib.sh
agent=$FL_BUILD_DIR/agents/fl-agent

for t in page_fault1 page_fault2 page_fault3; do
	for m in processes threads; do
		expect_exit 0 "$t $m runs" "$agent" bench --test $t --mode $m --tasks 1,2 \
			--warmup 1s --duration 1s --memory 16M --records
		cp "$tmp/out" "$tmp/$t-$m.rec"
		expect_exit 0 "$t $m records parse" "$FAULTLINE" records "$tmp/$t-$m.rec"
		n=$(grep -c '"type":"result"' "$tmp/out")
		[ "$n" -eq 2 ] && ok "$t $m: 2 points" || fail "$t $m: $n points"
		# Every average is a positive number of operations per second.
		bad=$(grep -o '"average":[0-9.]*' "$tmp/out" | awk -F: '$2 < 1000' | wc -l)
		[ "$bad" -eq 0 ] && ok "$t $m rates positive" || fail "$t $m: rate below 1000/s"
		key=per_process_ops; [ $m = threads ] && key=per_thread_ops
		expect_grep "$tmp/out" "\"$key\":[" "$t $m per-task ops"
		# The vmstat window is the measured one: about 1 s, and it saw the
		# faults. A second of warm-up before it: a window that took it in
		# would be 2 s, which a loaded machine's late wake-up (up to 0.9 s
		# here) is not taken for.
		bad=$(grep -o '"measured_s":[0-9.]*' "$tmp/out" | awk -F: '$2 < 0.9 || $2 > 1.9' | wc -l)
		[ "$bad" -eq 0 ] && ok "$t $m measured window 1 s" || fail "$t $m: measured_s off"
		grep -q '"vmstat_delta":{.*"pgfault":[1-9]' "$tmp/out" && ok "$t $m vmstat pgfault delta" ||
			fail "$t $m: no pgfault delta"
		expect_grep "$tmp/out" '"profile":"' "$t $m says whether a profile follows"
	done
done

expect_exit 2 "unknown test refused" "$agent" bench --test page_fault9
expect_exit 1 "oversized run refused" "$agent" bench --tasks 4 --memory 1000G \
	--duration 1s --warmup 0s --json
expect_grep "$tmp/out" "only" "refusal says what is available"
finish
