# profile.sh - faultline profile on console logs made here: functions named
# with a System.map or with the agent's ksyms record, points without a
# profile said so, a junk System.map refused naming file:line.
. tests/cli/lib.sh

# frames FILE JSON...: FLR1 frames of each JSON, with printk noise between.
frames() {
	python3 - "$@" <<'PY'
import sys, zlib
out = open(sys.argv[1], "w")
out.write("[    0.000000] Linux version 6.1.0 (noise)\n")
for seq, j in enumerate(sys.argv[2:]):
    b = j.encode()
    out.write("FLR1 %d %d %08x %s\n" % (seq, len(b), zlib.crc32(b) & 0xffffffff, j))
    out.write("[    1.0] printk between records\n")
PY
}

result='{"type":"result","test":"page_fault1","mode":"threads","tasks":2,"measured_s":2.0,"profile":"recorded","vmstat_delta":{"pgfault":400000}}'
profile='{"type":"profile","test":"page_fault1","mode":"threads","tasks":2,"step":4,"nbuckets":256,"buckets":[[64,10],[96,60],[200,30]],"total":100,"dropped":0}'
ksyms='{"type":"ksyms","text":1024,"symbols":[[256,"handle_mm_fault"],[384,"_raw_spin_lock"],[768,"clear_page_erms"]]}'
frames "$tmp/console" "$result" "$profile" "$ksyms"

expect_exit 0 "names from the agent's ksyms" "$FAULTLINE" profile "$tmp/console"
expect_grep "$tmp/out" "page_fault1 threads tasks=2: 100 samples" "point and samples"
expect_grep "$tmp/out" " 60.00%        60  _raw_spin_lock" "hottest first, with its share"
expect_grep "$tmp/out" " 10.00%        10  handle_mm_fault" "third"

printf 'ffffffff81000000 T _stext\nffffffff81000100 T do_page_fault\nffffffff81000300 t copy_page\nffffffff81000400 T _etext\n' >"$tmp/System.map"
expect_exit 0 "names from a System.map" "$FAULTLINE" profile --system-map "$tmp/System.map" --top 1 "$tmp/console"
expect_grep "$tmp/out" " 70.00%        70  do_page_fault" "the map's names win"
n=$(grep -c '%' "$tmp/out")
[ "$n" -eq 1 ] && ok "--top 1 shows one function" || fail "--top 1 showed $n"

printf 'ffffffff81000000 T _stext\nnot a symbol line\n' >"$tmp/junk.map"
expect_exit 2 "a junk System.map is refused" "$FAULTLINE" profile --system-map "$tmp/junk.map" "$tmp/console"
expect_grep "$tmp/err" "junk.map:2: expected" "the error names file:line"

none='{"type":"result","test":"page_fault1","mode":"threads","tasks":2,"measured_s":2.0,"profile":"none","vmstat_delta":{}}'
frames "$tmp/none" "$none"
expect_exit 1 "a kernel without CONFIG_PROFILING: no profile, exit 1" "$FAULTLINE" profile "$tmp/none"
expect_grep "$tmp/out" "page_fault1 threads tasks=2: no profile (none)" "says no profile"

expect_exit 2 "usage" "$FAULTLINE" profile
finish
