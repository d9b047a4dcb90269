#!/bin/sh
# build.sh - "faultline build" on the synthetic kernel tree: the artifact
# path on stdout, a cache hit the second time, a failing commit is
# build-failed (exit 1), an unknown revision names the tree.
. tests/cli/lib.sh

export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@b
cp -a tests/data/fake-kernel "$tmp/src"
(cd "$tmp/src" && git init -q && git add -A && git commit -qm good &&
	echo 'int x(void) { return }' >x.c && git add x.c && git commit -qm bad) >/dev/null
printf 'CONFIG_SMP=y\n' >"$tmp/smp.config"
cat >"$tmp/fl.yaml" <<EOT
var: $tmp/var
store: $(fl_store_yaml "$tmp/var/faultline.db")
trees: [{ name: fake, url: $tmp/src }]
kernels: [{ name: small, base: tinyconfig, fragments: [$tmp/smp.config] }]
build: { slots: 2, timeout: 1m, cache_size: 1G }
EOT

expect_exit 0 "build prints the artifact" $FAULTLINE build --config "$tmp/fl.yaml" --rev HEAD~1
art=$(cat "$tmp/out")
[ -f "$art/bzImage" ] && ok "bzImage in the artifact" || fail "no $art/bzImage"
expect_grep "$tmp/err" "objects built" "progress counts objects"
expect_exit 0 "second build" $FAULTLINE build --config "$tmp/fl.yaml" --tree fake --rev HEAD~1 --kernel small
expect_grep "$tmp/err" "cache hit" "second build is a cache hit"
expect_exit 1 "failing commit" $FAULTLINE build --config "$tmp/fl.yaml" --rev HEAD
expect_grep "$tmp/err" "build-failed" "classified build-failed"
expect_exit 4 "unknown revision" $FAULTLINE build --config "$tmp/fl.yaml" --rev v6.1-rc9
expect_grep "$tmp/err" "tree 'fake': unknown revision 'v6.1-rc9'" "error names tree and revision"
expect_exit 2 "no --rev" $FAULTLINE build --config "$tmp/fl.yaml"
finish
