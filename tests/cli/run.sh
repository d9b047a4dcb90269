#!/bin/sh
# run.sh - "faultline run" without a hypervisor: a commit that does not
# build is untestable (exit 1), boots nothing and stores no run, and is not
# built again for the repeats; bad arguments are usage errors. The machine
# points at libvirt's test:///default driver, which needs no daemon: nothing
# here may boot. integration/run.sh boots real guests.
. tests/cli/lib.sh

export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@b
cp -a tests/data/fake-kernel "$tmp/src"
(cd "$tmp/src" && git init -q && git add -A && git commit -qm good &&
	echo 'int x(void) { return }' >x.c && git add x.c && git commit -qm bad) >/dev/null
cat >"$tmp/fl.yaml" <<EOT
var: $tmp/var
store: $(fl_store_yaml "$tmp/var/faultline.db")
trees: [{ name: fake, url: $tmp/src }]
kernels: [{ name: small, base: tinyconfig }]
machines:
  - { name: m, backend: libvirt, uri: "test:///default", accel: tcg, sockets: 2 }
  - { name: other, backend: libvirt, uri: "test:///default", accel: tcg }
benchmarks:
  - { name: b, test: page_fault1, modes: [processes], tasks: [1], duration: 1s, machines: [m] }
  - { name: c, test: page_fault1, modes: [processes], tasks: [1], duration: 1s }
build: { slots: 1, timeout: 1m, cache_size: 1G }
EOT
db="$tmp/var/faultline.db"
run() { $FAULTLINE run --config "$tmp/fl.yaml" "$@"; }

expect_exit 1 "a commit that does not build" run --machine m --benchmark b --rev HEAD --repeat 3
expect_grep "$tmp/err" "build-failed" "said build-failed"
expect_grep "$tmp/out" "b on m: 0 of 1 runs ok" "one attempt, not three"
[ "$(fl_sql "$db" "select count(*) from runs")" -eq 0 ] && ok "no run stored" || fail "a run was stored"
[ "$(fl_sql "$db" "select status from builds")" = build-failed ] && ok "the build is recorded" ||
	fail "build row: $(fl_sql "$db" "select status from builds")"

expect_exit 2 "revision and image" run --machine m --benchmark b --rev HEAD --kernel-image /k
expect_exit 2 "System.map without an image" run --machine m --benchmark b --rev HEAD --system-map /m
expect_exit 2 "neither revision nor image" run --machine m --benchmark b
expect_exit 2 "--repeat 0" run --machine m --benchmark b --rev HEAD --repeat 0
expect_exit 2 "unknown benchmark" run --machine m --benchmark nope --rev HEAD
expect_grep "$tmp/err" "no benchmark 'nope'" "unknown benchmark named"
expect_exit 2 "benchmark not on that machine" run --machine other --benchmark b --rev HEAD
expect_grep "$tmp/err" "benchmark 'b' does not run on machine 'other'" "machine mismatch named"
expect_exit 2 "unknown kernel" run --machine m --benchmark b --rev HEAD --kernel big
expect_exit 2 "two machines, none chosen" run --benchmark c --rev HEAD
[ "$(fl_sql "$db" "select count(*) from runs")" -eq 0 ] && ok "still no run stored" || fail "runs stored"
finish
