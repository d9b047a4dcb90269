#!/bin/sh
# real.sh - the builder on Linux 6.1 (Debian's linux-source-6.1): a git
# repository with two commits, the second editing one file under mm/;
# tinyconfig + kernels/guest-base.config + memcg + profile. The first
# build is clean, the second runs in the same slot and must rebuild only a
# handful of objects. Minutes on 2 cores: ctest label "kernel".
. tests/cli/lib.sh

[ -f /usr/src/linux-source-6.1.tar.xz ] ||
	{ echo "skip: no /usr/src/linux-source-6.1.tar.xz (apt-get install linux-source-6.1)"; exit 0; }
src=$FL_BUILD_DIR/kernel-test/linux
var=$FL_BUILD_DIR/kernel-test/var
sh tests/kernel/linux-repo.sh "$src" || exit 1
cat >"$tmp/fl.yaml" <<EOT
var: $var
trees: [{ name: linux, url: $src }]
kernels:
  - name: guest
    base: tinyconfig
    fragments: [kernels/guest-base.config, kernels/memcg.config, kernels/profile.config]
build: { slots: 1, timeout: 30m, cache_size: 1G }
EOT
# The objects of an earlier run must not turn the clean build into a cached one.
rm -rf "$var"
for rev in HEAD~1 HEAD; do
	start=$(date +%s)
	expect_exit 0 "build $rev" $FAULTLINE build --config "$tmp/fl.yaml" --rev $rev
	echo "$rev: $(( $(date +%s) - start )) s"; tail -3 "$tmp/err"
	[ -f "$(cat "$tmp/out")/bzImage" ] && ok "$rev has a bzImage" || fail "$rev: no bzImage"
	objects=$(sed -n 's/.*: \([0-9]*\) objects built$/\1/p' "$tmp/err" | tail -1)
	echo "$rev: ${objects:-?} objects"
done
[ "${objects:-9999}" -le 20 ] && ok "the second build rebuilt $objects objects" ||
	fail "the second build rebuilt ${objects:-?} objects"
finish
