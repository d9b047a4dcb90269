# config.sh - "faultline config check" on the shipped example and on a typo;
# a tag pattern that matches none of a local tree's tags, said by config
# check and by every pass of watch.
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
finish
