# bisect-merges.sh - "faultline bisect run" on merge-shaped histories, as
# mainline is made: topic branches merged into a line with a few direct
# commits. The benchmark prints 100 +- 1 (Gaussian), 90 once a file named
# "slow" exists, or once both "x" and "y" exist (what neither of two branches
# does alone: their merge does). The exit-code test fails once "slow" exists.
. "$(dirname "$0")/lib.sh"

cat >"$tmp/bench" <<'SH'
#!/bin/sh
base=100
if [ -f slow ] || { [ -f x ] && [ -f y ]; }; then base=90; fi
awk -v seed="$$$(date +%N)" -v base=$base 'BEGIN {
	srand(seed % 2147483647)
	for (i = 0; i < 3; i++)
		printf "%.3f\n", base + sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand())
}'
SH
# exit-code mode: fails once "slow" exists; FLAKY=N: then passes every Nth run
cat >"$tmp/test" <<'SH'
#!/bin/sh
n=$(($(cat "$COUNTER" 2>/dev/null || echo 0) + 1))
echo $n >"$COUNTER"
[ -f slow ] || exit 0
[ -n "${FLAKY:-}" ] && [ $((n % FLAKY)) = 0 ] && exit 0
exit 1
SH
chmod +x "$tmp/bench" "$tmp/test"
export COUNTER="$tmp/counter"

new_repo() {
	repo="$tmp/$1"
	git init -q -b master "$repo"
	git -C "$repo" config user.email t@example.com
	git -C "$repo" config user.name test
}
# commit NAME [FILE...]: a commit named NAME that adds NAME.txt and the files
commit() {
	name=$1
	shift
	echo "$name" >"$repo/$name.txt"
	for f in "$@"; do echo "$name" >"$repo/$f"; done
	git -C "$repo" add -A
	git -C "$repo" commit -qm "$name"
}
sha() { git -C "$repo" rev-parse "$1"; }
# branch NAME FROM: a topic branch NAME started at FROM, checked out
branch() { git -C "$repo" checkout -q -b "$1" "$2"; }
# merge NAME: NAME merged into master with a merge commit
merge() {
	git -C "$repo" checkout -q master
	git -C "$repo" merge -q --no-ff -m "Merge branch '$1'" "$1"
}

# repo "flat": direct commits, topic A (6), direct, topic B (7, the culprit
# its 4th commit), direct
new_repo flat
commit m1
commit m2
commit m3
branch topic-a master
for i in 1 2 3 4 5 6; do commit "a$i"; done
merge topic-a
commit m4
branch topic-b master
commit b1
commit b2
commit b3
commit b4 slow
culprit=$(sha HEAD)
good_b2=$(sha HEAD~2)
commit b5
commit b6
commit b7
merge topic-b
merge_b=$(sha HEAD)
commit m5
good=$(sha master~5) # m3: before both topics

expect_exit 0 "the culprit inside a merged branch" "$FAULTLINE" bisect run --repo "$repo" --good "$good" --bad master -- "$tmp/bench"
expect_grep "$tmp/out" "culprit $culprit b4" "names the commit, not the merge"
expect_grep "$tmp/out" "in the branch merged by $merge_b (\"Merge branch 'topic-b'\")" "says where it is"
expect_grep "$tmp/err" "descending into the branch merged by" "says it descends"

expect_exit 0 "--json gives the path" "$FAULTLINE" bisect run --repo "$repo" --good "$good" --bad master --json -- "$tmp/bench"
python3 - "$tmp/out" "$culprit" "$merge_b" <<'PY' && ok "json path" || fail "json path"
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert o["result"] == "culprit" and o["commit"] == sys.argv[2], o
assert o["path"] == [{"merge": sys.argv[3], "parent": 1, "subject": "Merge branch 'topic-b'"}], o
assert "merge" not in o, o
PY

# goods off bad's first-parent line, several of them, as git bisect takes them
expect_exit 0 "a good inside the merged branch" "$FAULTLINE" bisect run --repo "$repo" --good "$good_b2" --bad master -- "$tmp/bench"
expect_grep "$tmp/out" "culprit $culprit" "finds it"
expect_exit 0 "two goods" "$FAULTLINE" bisect run --repo "$repo" --good "$good_b2" --good master~2 --bad master -- "$tmp/bench"
expect_grep "$tmp/out" "culprit $culprit" "finds it from both"
expect_exit 2 "a good that is not an ancestor of bad" "$FAULTLINE" bisect run --repo "$repo" --good master --bad "$good_b2" -- "$tmp/bench"
expect_grep "$tmp/err" "is not an ancestor of bad" "says so"

# a skipped neighbour inside the branch: a range inside the branch
expect_exit 0 "a skip inside a branch" "$FAULTLINE" bisect run --repo "$repo" --good "$good" --bad master -- \
	sh -c '[ "$FAULTLINE_COMMIT" = "$0" ] && exit 125; exec "$1"' "$(sha topic-b~4)" "$tmp/bench"
expect_grep "$tmp/out" "range $(sha topic-b~4) $culprit" "is a range inside it"
expect_grep "$tmp/out" "in the branch merged by $merge_b" "with its place"

# exit-code mode: a deterministic test, and one that passes every 4th run
# after the culprit, its rate stated (one that never contradicts itself
# cannot be told from a reliable test: without a rate it is believed, as git does)
expect_exit 0 "exit-code mode" "$FAULTLINE" bisect run --repo "$repo" --good "$good" --bad master --mode exit-code -- "$tmp/test"
expect_grep "$tmp/out" "culprit $culprit" "finds it"
runs=$(cat "$COUNTER")
[ "$runs" -le 12 ] && ok "a deterministic test takes few runs ($runs)" || fail "a deterministic test takes few runs ($runs)"
rm -f "$COUNTER"
expect_exit 0 "a flaky test" env FLAKY=4 "$FAULTLINE" bisect run --repo "$repo" --good "$good" --bad master --mode exit-code --false-pass 0.25 -- "$tmp/test"
expect_grep "$tmp/out" "culprit $culprit" "finds the culprit despite false passes"
expect_grep "$tmp/out" "estimated flakes" "says the flake rates it estimated"

# repo "nested": topic C merges its own sub-topic D, whose 3rd commit is the culprit
new_repo nested
commit m1
commit m2
branch topic-c master
commit c1
commit c2
branch topic-d topic-c
commit d1
commit d2
commit d3 slow
culprit=$(sha HEAD)
commit d4
git -C "$repo" checkout -q topic-c
commit c3
git -C "$repo" merge -q --no-ff -m "Merge branch 'topic-d' into topic-c" topic-d
merge_d=$(sha HEAD)
commit c4
merge topic-c
merge_c=$(sha HEAD)
commit m3
expect_exit 0 "nested branches" "$FAULTLINE" bisect run --repo "$repo" --good master~3 --bad master -- "$tmp/bench"
expect_grep "$tmp/out" "culprit $culprit d3" "finds the culprit two merges down"
expect_grep "$tmp/out" "in the branch merged by $merge_d" "inside the inner merge"
expect_grep "$tmp/out" "in the branch merged by $merge_c" "inside the outer merge"

# repo "evil": topic X adds x, topic Y adds y; each alone is fast, merged both are slow
new_repo evil
commit m1
commit m2
branch topic-x master
commit x1
commit x2 x
commit x3
merge topic-x
commit m3
branch topic-y master~2 # m2: no x
commit y1
commit y2 y
commit y3
merge topic-y
evil=$(sha HEAD)
commit m4
expect_exit 0 "an evil merge" "$FAULTLINE" bisect run --repo "$repo" --good master~5 --bad master -- "$tmp/bench"
expect_grep "$tmp/out" "culprit $evil Merge branch 'topic-y'" "names the merge"
expect_grep "$tmp/out" "the merged branch alone does not regress; the merge does" "and says why"

# a null history with a merge: topic A merged and m4, no culprit
expect_exit 1 "no regression" "$FAULTLINE" bisect run --repo "$tmp/flat" --good "$(git -C "$tmp/flat" rev-parse master~5)" --bad "$(git -C "$tmp/flat" rev-parse master~2)" -- "$tmp/bench"
expect_grep "$tmp/out" "no-regression" "says no-regression"
finish
