# run.sh - builds the record parser's libFuzzer target with clang and runs it
# for a bounded time (FL_FUZZ_SECONDS, default 20) from a seed corpus of
# valid, split and corrupted streams.
. tests/cli/lib.sh
secs=${FL_FUZZ_SECONDS:-20}
bin=$tmp/fuzz_record

if clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -I. \
	tests/fuzz/fuzz_record.c proto/record.c -o "$bin" 2>"$tmp/cc.err"; then
	ok "fuzzer builds"
else
	fail "fuzzer build (clang and libclang-rt-14-dev from install-deps.sh)"
	cat "$tmp/cc.err"
	finish
	exit 1
fi
mkdir "$tmp/corpus"
"$FL_BUILD_DIR/agents/fl-agent" bench --tasks 1 --warmup 0s --duration 1s --memory 4M \
	--records >"$tmp/corpus/valid"
printf 'FLR1 0 2 00000000 {}\r\n[ 1.0] x FLR1 1 2 \n' >"$tmp/corpus/bad"
if "$bin" -max_total_time="$secs" -max_len=8192 "$tmp/corpus" >"$tmp/fuzz.log" 2>&1; then
	ok "no crash in ${secs}s"
	grep -E '^#[0-9]+.*DONE' "$tmp/fuzz.log" | tail -1
else
	fail "fuzzer found a crash"
	tail -40 "$tmp/fuzz.log"
fi
finish
