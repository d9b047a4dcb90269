# config.sh - "faultline config check" on the shipped example and on a typo.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "example config checks" "$FAULTLINE" config check configs/example.yaml
expect_grep "$tmp/out" 'name: "numa8"' "normalised output lists the machines"
expect_grep "$tmp/out" 'memory_per_node: 256M' "sizes are printed in their unit"
for f in mainline linux-next maintainer; do
	expect_exit 0 "configs/$f.yaml checks" "$FAULTLINE" config check "configs/$f.yaml"
done
expect_grep "$tmp/out" 'branch: "mm-unstable"' "the maintainer's branch is printed"
expect_grep "$tmp/out" 'branch_interval: 1d' "with its interval"

cat >"$tmp/typo.yaml" <<'YAML'
machines:
  - name: numa8
    backend: libvirt
    socket: 8
YAML
expect_exit 2 "a typo is a configuration error" "$FAULTLINE" config check "$tmp/typo.yaml"
expect_grep "$tmp/err" "$tmp/typo.yaml:4:5: machines[0]: unknown key 'socket' (did you mean 'sockets'?)" \
	"the message names file, line, column and key"

expect_exit 2 "--config is the default file" "$FAULTLINE" --config "$tmp/typo.yaml" config check
expect_exit 2 "a missing file" "$FAULTLINE" config check "$tmp/none.yaml"
expect_grep "$tmp/err" "none.yaml: cannot open: No such file or directory" "names the missing file"
expect_exit 2 "usage error" "$FAULTLINE" config frobnicate
expect_exit 2 "unknown command" "$FAULTLINE" frobnicate
expect_grep "$tmp/err" "'frobnicate' is not a command" "names the unknown command"
expect_exit 0 "help lists commands" "$FAULTLINE" help
expect_grep "$tmp/out" "config" "help mentions config"
expect_exit 0 "help for one command" "$FAULTLINE" help db
expect_grep "$tmp/out" "usage: faultline db init|migrate" "db usage"
finish
