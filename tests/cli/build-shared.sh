#!/bin/sh
# build-shared.sh - several workers, one artifact directory (build.artifacts):
# two "faultline build" at once on one var build a commit once (the other
# waits for the artifact's lock and finds it) and take different slots for
# different commits; two vars (two hosts, each its own store) sharing one
# directory build a commit once too; a worker that died holding the lock
# releases it, and the temporary directory it left is removed; a
# build.artifacts that is a file is a configuration error with its line.
. tests/cli/lib.sh

export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@b
cp -a tests/data/fake-kernel "$tmp/src"
(cd "$tmp/src" && git init -q && git add -A && git commit -qm one &&
	sed -i 's/1/5/' a.c && git commit -qam two &&
	sed -i 's/2/6/' b.c && git commit -qam three) >/dev/null
printf 'CONFIG_SMP=y\n' >"$tmp/smp.config"
# config VAR [ARTIFACTS]: a configuration file for a worker on VAR
config() {
	cat <<EOT
var: $tmp/$1
trees: [{ name: fake, url: $tmp/src }]
kernels: [{ name: small, base: tinyconfig, fragments: [$tmp/smp.config] }]
build: { slots: 2, timeout: 1m, cache_size: 1G${2:+, artifacts: $2} }
EOT
}
config var >"$tmp/fl.yaml"
export FL_FAKE_MARKER="$tmp/marker" FL_FAKE_SLEEP=4
compiles() { [ -f "$tmp/marker" ] && wc -l <"$tmp/marker" || echo 0; }
leftovers() { [ -d "$1" ] && find "$1" -maxdepth 1 -name '.tmp-*' | wc -l || echo none; }

# build NAME CONFIG REV: a worker in the background, output in $tmp/NAME.*
build() {
	$FAULTLINE build --config "$2" --rev "$3" >"$tmp/$1.out" 2>"$tmp/$1.err" &
}
# settle NAME PID WHAT: waits for worker NAME; ok when it exited 0
settle() {
	if wait "$2"; then ok "$3 exits 0"; else fail "$3 exits 0"; sed 's/^/  | /' "$tmp/$1.err"; fi
}

# Two workers on one var, one commit.
build a "$tmp/fl.yaml" HEAD~2; pa=$!
build b "$tmp/fl.yaml" HEAD~2; pb=$!
settle a $pa "first worker"
settle b $pb "second worker"
[ "$(compiles)" -eq 1 ] && ok "one commit is compiled once" ||
	fail "one commit compiled $(compiles) times"
art=$(cat "$tmp/a.out")
[ -n "$art" ] && [ "$art" = "$(cat "$tmp/b.out")" ] && ok "both print the same artifact" ||
	fail "artifacts '$art' and '$(cat "$tmp/b.out")'"
[ -f "$art/bzImage" ] && ok "the artifact is whole" || fail "no $art/bzImage"
cat "$tmp/a.err" "$tmp/b.err" >"$tmp/ab.err"
expect_grep "$tmp/ab.err" "build: waiting for another worker building" "the waiter says so"
expect_grep "$tmp/ab.err" "cache hit (built by another worker)" "the waiter finds the artifact"
[ "$(leftovers "$tmp/var/artifacts")" = 0 ] && ok "no temporary directory is left" ||
	fail "temporary directories left: $(ls -a "$tmp/var/artifacts")"

# Two workers on one var, two commits: each in its own slot.
build c "$tmp/fl.yaml" HEAD~1; pc=$!
build d "$tmp/fl.yaml" HEAD; pd=$!
settle c $pc "worker on the second commit"
settle d $pd "worker on the third commit"
[ "$(compiles)" -eq 3 ] && ok "two commits, two compiles" || fail "$(compiles) compiles in all"
cat "$tmp/c.err" "$tmp/d.err" >"$tmp/cd.err"
expect_grep "$tmp/cd.err" "build: slot 0: make bzImage" "one worker in slot 0"
expect_grep "$tmp/cd.err" "build: slot 1: make bzImage" "the other in slot 1"

# Two hosts: each its own var and store, one shared artifact directory.
mkdir "$tmp/shared"
config host1 "$tmp/shared" >"$tmp/h1.yaml"
config host2 "$tmp/shared" >"$tmp/h2.yaml"
build h1 "$tmp/h1.yaml" HEAD~2; p1=$!
build h2 "$tmp/h2.yaml" HEAD~2; p2=$!
settle h1 $p1 "worker on host 1"
settle h2 $p2 "worker on host 2"
[ "$(compiles)" -eq 4 ] && ok "two hosts compile a commit once" || fail "$(compiles) compiles in all"
art=$(cat "$tmp/h1.out")
case $art in "$tmp/shared/"*) ok "the artifact is in the shared directory" ;;
*) fail "artifact $art" ;; esac
[ "$art" = "$(cat "$tmp/h2.out")" ] && ok "both hosts print it" || fail "host 2: $(cat "$tmp/h2.out")"

# A worker died building it: its lock goes with it, its temporary directory
# is removed by the next build.
rm -rf "$art"
name=$(basename "$art")
mkdir "$tmp/shared/.tmp-$name-Ab12Cd" && echo half >"$tmp/shared/.tmp-$name-Ab12Cd/bzImage"
(exec 9>"$tmp/shared/$name.lock" && flock 9 && exec sleep 60) &
holder=$!
sleep 0.5
FL_FAKE_SLEEP=0
build e "$tmp/h2.yaml" HEAD~2; pe=$!
for _ in $(seq 50); do grep -q "waiting for another worker" "$tmp/e.err" && break; sleep 0.2; done
expect_grep "$tmp/e.err" "build: waiting for another worker building" "a held lock is waited for"
kill -9 $holder
settle e $pe "worker after the other died"
[ "$(compiles)" -eq 5 ] && ok "it builds once the holder is gone" || fail "$(compiles) compiles in all"
[ -f "$art/bzImage" ] && [ "$(cat "$tmp/e.out")" = "$art" ] && ok "and publishes" ||
	fail "no $art/bzImage"
expect_grep "$tmp/e.err" "left by a worker that died" "the dead worker's temporary directory is named"
[ "$(leftovers "$tmp/shared")" = 0 ] && ok "and removed" ||
	fail "temporary directories left: $(ls -a "$tmp/shared")"

# build.artifacts must be a directory.
: >"$tmp/afile"
config var "$tmp/afile" >"$tmp/bad.yaml"
expect_exit 2 "build.artifacts that is a file" $FAULTLINE config check "$tmp/bad.yaml"
expect_grep "$tmp/err" "$tmp/bad.yaml:4:" "the error names the file and line"
expect_grep "$tmp/err" "build.artifacts: '$tmp/afile' is not a directory" "and the key"
finish
