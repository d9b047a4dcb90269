# config.sh - "faultline config check" on the shipped example and on a typo;
# a tag pattern that matches none of a local tree's tags, said by config
# check and by every pass of watch; a command machine's configuration
# printed without other backends' keys, and their keys refused there.
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
# ---- a tag pattern that matches nothing --------------------------------------
# "release-*" on a tree of v* tags: watch exited 0 without a word, every pass
repo="$tmp/repo"
mkdir -p "$repo" && (cd "$repo" && git init -q && for i in 1 2 3 4 5 6 7; do
	echo "$i" >f && git add f && git -c user.name=A -c user.email=a@b.c commit -qm "c$i" && git tag "v1.$i"
done) || fail "a repository with tags v1.1 .. v1.7"
cat >"$tmp/pattern.yaml" <<EOF
var: $tmp/var
store: { path: $tmp/fl.db }
trees:
  - { name: toy, url: $repo, tags: ["v*",
      "release-*"], poll: 1s }
  - { name: far, url: "https://git.example.org/none.git", tags: ["none-*"] }
machines:
  - { name: local, backend: command, command: "echo 1" }
benchmarks:
  - { name: b }
EOF
said="$tmp/pattern.yaml:5:7: trees[0].tags[1]: tree 'toy': tag pattern 'release-*' matches none of its 7 tags (it has v1.7, v1.6, v1.5, v1.4, v1.3, ...): nothing is tested for it"
expect_exit 0 "config check: a pattern matching nothing is no error" "$FAULTLINE" config check "$tmp/pattern.yaml"
expect_grep "$tmp/err" "$said" "config check names the pattern, its line and the tree's newest tags"
grep -q "tags\[0\]\|none-\*" "$tmp/err" && fail "only the pattern that matches nothing, only a tree on this host" ||
	ok "only the pattern that matches nothing, only a tree on this host"
[ -e "$tmp/var/trees/far" ] && fail "config check clones nothing" || ok "config check clones nothing"
sed -i '/name: far/d' "$tmp/pattern.yaml"
for pass in 1 2; do
	expect_exit 0 "watch pass $pass" "$FAULTLINE" watch --config "$tmp/pattern.yaml" --once
	expect_grep "$tmp/err" "warning watch: $said" "watch pass $pass says it"
done
# ---- a command machine: only its own keys ------------------------------------
# config check echoed uri, sockets, accel and modes for a command machine and
# took sockets: 4 and test: page_fault2 there without a word
cat >"$tmp/command.yaml" <<'YAML'
machines:
  - { name: local, backend: command, command: ./bench.sh }
benchmarks:
  - { name: mine, repeat: 5 }
YAML
expect_exit 0 "a command machine checks" "$FAULTLINE" config check "$tmp/command.yaml"
for key in uri: accel: sockets: cores: memory_per_node: boot_timeout: modes: tasks: warmup: placement: cgroup:; do
	grep -q "^ *$key" "$tmp/out" && fail "config check does not echo $key for a command machine" ||
		ok "config check does not echo $key for a command machine"
done
expect_grep "$tmp/out" 'command: "./bench.sh"' "it echoes the command"
expect_grep "$tmp/out" 'repeat: 5' "and the benchmark's repeat"
cat >"$tmp/command-bad.yaml" <<'YAML'
machines:
  - { name: local, backend: command, command: ./bench.sh,
      sockets: 4 }
benchmarks:
  - { name: mine, test: page_fault2 }
YAML
expect_exit 2 "keys another backend reads are refused" "$FAULTLINE" config check "$tmp/command-bad.yaml"
expect_grep "$tmp/err" "$tmp/command-bad.yaml:3:16: machines[0].sockets: 'sockets' means nothing to a command machine" \
	"sockets on a command machine, with its file:line"
expect_grep "$tmp/err" "$tmp/command-bad.yaml:5:25: benchmarks[0].test: 'test' means nothing to benchmark 'mine': it runs only on command machines" \
	"a page-fault test for a command benchmark, with its file:line"
finish
