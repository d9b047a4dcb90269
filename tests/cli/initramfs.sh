# initramfs.sh - the built-in cpio writer, read back by the real cpio.
. tests/cli/lib.sh
agent=$FL_BUILD_DIR/agents/fl-agent

expect_exit 0 "plain image written" "$FAULTLINE" initramfs --agent "$agent" \
	--job "test=page_fault1" "$tmp/plain.cpio"
cpio -t <"$tmp/plain.cpio" >"$tmp/list" 2>/dev/null
for f in init job dev proc sys tmp; do
	grep -qx "$f" "$tmp/list" && ok "plain has $f" || fail "plain lacks $f"
done
expect_exit 0 "gzip image written" "$FAULTLINE" initramfs --agent "$agent" --gzip "$tmp/gz.cpio"
gzip -dc "$tmp/gz.cpio" | cpio -t >"$tmp/list" 2>/dev/null
grep -qx init "$tmp/list" && ok "gzip has init" || fail "gzip lacks init"
# Extracted /init is byte for byte the agent, still executable.
mkdir "$tmp/x" && (cd "$tmp/x" && cpio -id --quiet <"$tmp/plain.cpio")
cmp -s "$tmp/x/init" "$agent" && ok "init is the agent" || fail "init differs"
[ -x "$tmp/x/init" ] && ok "init executable" || fail "init not executable"
[ "$(cat "$tmp/x/job")" = "test=page_fault1" ] && ok "job text" || fail "job text"
expect_exit 4 "missing agent fails" "$FAULTLINE" initramfs --agent /nonexistent "$tmp/y.cpio"
finish
