# watch-trees.sh - "faultline watch --once" on trees shaped like the real
# kernel trees, with the command backend, real git repositories, a real
# store (SQLite; PostgreSQL as cli_watch_trees_pg) and a real SMTP server
# (python3-aiosmtpd on loopback):
#   0. a tree cloned over a URL: the clone's progress (objects, bytes) is
#      logged; a fetch that fails names the tree and the URL;
#   1. mainline: topic branches merged between -rc tags; each tag against the
#      previous one, a slowdown inside a merged branch bisected to its commit;
#   2. linux-next in a repository of its own: next-YYYYMMDD tags rebuilt
#      every day on a moving mainline base, none an ancestor of another; each
#      compared with the newest mainline tag it contains (the mainline tree's
#      tags, baseline: contained-tag), the slowdown in a merged branch
#      bisected to its commit; then the same with one repository holding
#      both trees as two remotes, and with two clones over file:// (mainline
#      fetched first in a pass, though listed second);
#   3. a maintainer branch: each new head against the last tested head, at
#      most one per branch_interval (the newest head; the skipped ones are in
#      its range and the culprit among them is found), the state in the store
#      across restarts; force-pushed onto a newer base: compared with its
#      merge base with branch_base, and said so;
# and nothing is scheduled twice. The benchmark prints five numbers around
# 100, 90 once a file "slow" is in the checkout (a 10-sigma step).
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3

cat >"$tmp/bench" <<'SH'
#!/bin/sh
base=100
[ -f slow ] && base=90
awk -v seed="$$$(date +%N)" -v base="$base" 'BEGIN { srand(seed % 2147483647)
	for (i = 0; i < 5; i++)
		printf "%.3f\n", base + sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand()) }'
SH
chmod +x "$tmp/bench"

g() { GIT_AUTHOR_NAME='Ada Lovelace' GIT_AUTHOR_EMAIL=ada@example.org GIT_COMMITTER_NAME=C \
	GIT_COMMITTER_EMAIL=c@example.org git -C "$R" "$@"; }
new_repo() { R=$1; git init -q -b master "$R"; }
# commit NAME [slow]: a commit adding NAME.txt (and the file "slow")
commit() {
	echo "$1" >"$R/$(echo "$1" | tr ' /' '__').txt"
	[ -n "${2:-}" ] && echo slow >"$R/slow"
	g add -A
	g commit -qm "$1"
}
# topic NAME N [K]: a branch NAME of N commits from HEAD (the Kth adds "slow"),
# merged back with a merge commit; $culprit is the Kth
topic() {
	from=$(g rev-parse --abbrev-ref HEAD)
	g checkout -q -b "$1"
	for i in $(seq "$2"); do
		commit "$1 $i" $([ "$i" = "${3:-0}" ] && echo slow)
		[ "$i" = "${3:-0}" ] && culprit=$(g rev-parse HEAD)
	done
	g checkout -q "$from"
	g merge -q --no-ff -m "Merge branch '$1'" "$1"
	merge=$(g rev-parse HEAD)
}
short() { echo "$1" | cut -c1-12; }

mails() { ls "$maildir/new" 2>/dev/null | wc -l; }
# mail_with TEXT: the file of the one mail holding TEXT
mail_with() { grep -lF -- "$1" "$maildir"/new/* 2>/dev/null | head -1; }

# config NAME TREES-YAML: a deployment with those trees and one command machine
config() {
	cat >"$tmp/$1.yaml" <<EOF
var: $tmp/var-$1
store: $(fl_store_yaml "$tmp/$1.db")
trees:
$2
machines:
  - { name: box, backend: command, command: "$tmp/bench", timeout: 1m, max_parallel: 2 }
benchmarks:
  - { name: demo, repeat: 3 }
regression: { min_change: 2%, confidence: 0.95 }
report: { smtp: "smtp://127.0.0.1:$port", from: "faultline <robot@example.org>",
          to: [dev@example.org], url: "http://results.example", retry: 1s }
EOF
}
q() { fl_sql "$tmp/$1.db" "$2"; }
watch() { expect_exit 0 "$2" "$FAULTLINE" watch --config "$tmp/$1.yaml" --once; cp "$tmp/err" "$tmp/$1.err"; }
# twice DB: two more passes schedule nothing and add no job
twice() {
	jobs=$(q "$1" "SELECT count(*) FROM jobs") rows=$(q "$1" "SELECT count(*) FROM watch_tags")
	"$FAULTLINE" watch --config "$tmp/$1.yaml" --once >/dev/null 2>&1
	"$FAULTLINE" watch --config "$tmp/$1.yaml" --once >/dev/null 2>"$tmp/err"
	[ "$(q "$1" "SELECT count(*) FROM jobs")" = "$jobs" ] && [ "$(q "$1" "SELECT count(*) FROM watch_tags")" = "$rows" ] &&
		! grep -q "scheduled" "$tmp/err" && ok "$1: nothing scheduled twice" || fail "$1: nothing scheduled twice"
}

port=$(free_port)
maildir="$tmp/Maildir"
smtp_start "$port" "$maildir" || fail "the SMTP server starts"

# ---- 1. mainline: merges between -rc tags -------------------------------------
new_repo "$tmp/mainline"
for i in 1 2 3; do commit "mainline $i"; done
g tag v1.0
v10=$(g rev-parse HEAD)
g checkout -q -b stable
commit "stable: a backport"
g tag v1.0.1
g checkout -q master
topic net 3
commit "mainline 4"
topic fs 2
g tag -a -m v1.1-rc1 v1.1-rc1
rc1=$(g rev-parse HEAD)
config mainline "  - { name: mainline, url: $tmp/mainline, tags: ['v*'], poll: 1s }"
watch mainline "mainline: the first pass"
expect_grep "$tmp/err" "first pass over 3 tags: testing the newest 1" "tests only the newest tag"
expect_grep "$tmp/err" "tree 'mainline': v1.1-rc1 scheduled against v1.0 (1 comparison)" \
	"v1.1-rc1 against v1.0, not the stable v1.0.1 (no ancestor)"
topic mm 5 3
mmculprit=$culprit mmmerge=$merge
commit "mainline 5"
topic sched 2
g tag -a -m v1.1-rc2 v1.1-rc2
before=$(mails)
watch mainline "mainline: v1.1-rc2"
expect_grep "$tmp/err" "tree 'mainline': v1.1-rc2 scheduled against v1.1-rc1" "v1.1-rc2 against v1.1-rc1"
expect_grep "$tmp/err" "bisect: regression 1: culprit $mmculprit in the branch merged by $(short "$mmmerge")" \
	"a slowdown inside a merged branch bisected to its commit"
[ "$(mails)" = $((before + 1)) ] && ok "mainline: one mail" || fail "mainline: one mail"
m=$(mail_with "tags:   v1.1-rc2, ")
[ -n "$m" ] && grep -q "tags:   v1.1-rc2, compared with its baseline v1.1-rc1" "$m" &&
	ok "the report names the tag and its base" || fail "the report names the tag and its base"
twice mainline

# ---- 2. linux-next: rebuilt daily on a moving mainline ------------------------
# its own repository, holding mainline's commits but none of its tags
new_repo "$tmp/next"
g fetch -q --no-tags "$tmp/mainline" master:refs/remotes/mainline/master
g checkout -q -B master "$v10"
topic "next-20261201/x" 2
topic "next-20261201/y" 3
g tag next-20261201
day1=$(g rev-parse HEAD)
trees="  - { name: next, url: $tmp/next, tags: ['next-*'], baseline: contained-tag,
      baseline_tree: mainline, baseline_tags: ['v*'], poll: 1s }
  - { name: mainline, url: $tmp/mainline, tags: ['v*'], backfill: 0, poll: 1s }"
config next "$trees"
[ -z "$(g tag -l 'v*')" ] && ok "the next repository has no mainline tag" || fail "the next repository has no mainline tag"
watch next "linux-next: the first day"
expect_grep "$tmp/err" "tree 'next': next-20261201 scheduled against v1.0 (1 comparison): the newest tag of tree 'mainline' it contains" \
	"next-20261201 against the newest mainline tag it contains"
# the next day: rebuilt on v1.1-rc1, the same branches again, one slower
g checkout -q -B master "$rc1"
topic "next-20261202/x" 2
topic "next-20261202/y" 4 2
nculprit=$culprit nmerge=$merge
g tag next-20261202
g merge-base --is-ancestor "$day1" next-20261202 && fail "the two next tags are unrelated" || ok "the two next tags are unrelated"
before=$(mails)
watch next "linux-next: the second day"
expect_grep "$tmp/err" "tree 'next': next-20261202 scheduled against v1.1-rc1 (1 comparison)" \
	"next-20261202 against v1.1-rc1 (not v1.1-rc2, which it does not contain)"
expect_grep "$tmp/err" "bisect: regression 1: culprit $nculprit in the branch merged by $(short "$nmerge")" \
	"the slowdown in a merged branch bisected to its commit"
[ "$(q next "SELECT count(*) FROM watch_tags WHERE state = 'no-baseline'")" = 0 ] &&
	ok "no next tag without a baseline" || fail "no next tag without a baseline"
[ "$(mails)" = $((before + 1)) ] && ok "linux-next: one mail" || fail "linux-next: one mail"
m=$(mail_with "tags:   next-20261202, ")
[ -n "$m" ] && grep -q "tags:   next-20261202, compared with its baseline v1.1-rc1" "$m" &&
	grep -q "(the newest tag of tree 'mainline' it contains)" "$m" &&
	ok "the report names the tag, its base and where it comes from" ||
	fail "the report names the tag, its base and where it comes from"
twice next

# one repository with both trees as remotes, read in place
new_repo "$tmp/both"
g remote add mainline "$tmp/mainline"
g remote add next "$tmp/next"
g fetch -q --tags mainline
g fetch -q --tags next
trees="  - { name: mainline, url: $tmp/both, tags: ['v*'], backfill: 0, poll: 1s }
  - { name: next, url: $tmp/both, tags: ['next-*'], baseline: contained-tag, baseline_tree: mainline,
      backfill: 2, poll: 1s }"
config both "$trees"
watch both "linux-next and mainline as two remotes of one repository"
expect_grep "$tmp/err" "tree 'next': next-20261201 scheduled against v1.0" "the first day against v1.0"
expect_grep "$tmp/err" "tree 'next': next-20261202 scheduled against v1.1-rc1" "the second against v1.1-rc1"
expect_grep "$tmp/err" "bisect: regression 1: culprit $nculprit" "bisected to the same commit"
twice both

# two clones faultline keeps (file:// URLs), linux-next listed first: mainline
# is fetched before next's new tag looks for its base among mainline's tags
trees="  - { name: next, url: 'file://$tmp/next', tags: ['next-*'], baseline: contained-tag,
      baseline_tree: mainline, backfill: 0, poll: 1s }
  - { name: mainline, url: 'file://$tmp/mainline', tags: ['v*'], backfill: 0, poll: 1s }"
config clones "$trees"
watch clones "two clones: the first pass records what is there"
R=$tmp/mainline
commit "mainline 6"
g tag -a -m v1.1-rc3 v1.1-rc3
R=$tmp/next
g fetch -q --no-tags "$tmp/mainline" master:refs/remotes/mainline/master
g checkout -q -B master mainline/master
topic "next-20261203/x" 2
g tag next-20261203
watch clones "two clones: a new mainline tag and a next tag on it"
expect_grep "$tmp/err" "tree 'next': next-20261203 scheduled against v1.1-rc3" \
	"against the mainline tag fetched in the same pass"
twice clones

# ---- 3. a maintainer branch, force-pushed ------------------------------------
new_repo "$tmp/maint"
for i in 1 2 3; do commit "mainline $i"; done
g tag v1.0
g checkout -q -b mm
commit "mm: first"
commit "mm: second"
h1=$(g rev-parse HEAD)
g checkout -q master
config maint "  - { name: mm, url: $tmp/maint, tags: [], branch: mm, branch_base: master, branch_interval: 1h, poll: 1s }"
watch maint "the branch's first head against branch_base"
expect_grep "$tmp/err" "tree 'mm': branch mm: head mm@$(short "$h1") scheduled against master (1 comparison)" \
	"the first head is compared with branch_base"
expect_grep "$tmp/err" "compare: mm mm@$(short "$h1") vs master, demo on box: same" "and measured"
[ "$(q maint "SELECT kind || ' ' || ref || ' ' || state FROM watch_tags")" = "head mm scheduled" ] &&
	ok "the head is stored as a head of mm" || fail "the head is stored as a head of mm"

# three more heads pushed at once: the second of them slows things down
g checkout -q mm
commit "mm: third"
commit "mm: make it slower" slow
mculprit=$(g rev-parse HEAD)
commit "mm: fifth"
h4=$(g rev-parse HEAD)
g checkout -q master
jobs=$(q maint "SELECT count(*) FROM jobs")
watch maint "within branch_interval: no test"
expect_grep "$tmp/err" "branch mm: head $(short "$h4") waits, one test every 1h (branch_interval)" "says it waits"
[ "$(q maint "SELECT count(*) FROM jobs")" = "$jobs" ] && [ "$(q maint "SELECT count(*) FROM watch_tags")" = 1 ] &&
	ok "nothing scheduled or recorded while it waits" || fail "nothing scheduled or recorded while it waits"

# the interval over (a configuration with a shorter one, the same store): the
# newest head against the last tested one, the culprit among the heads between
sed 's/branch_interval: 1h/branch_interval: 1s/' "$tmp/maint.yaml" >"$tmp/maint1s.yaml"
sed -i "s|var: .*|var: $tmp/var-maint|; s|path: .*maint.db|path: $tmp/maint.db|" "$tmp/maint1s.yaml"
sleep 1
before=$(mails)
expect_exit 0 "the interval over: the newest head" "$FAULTLINE" watch --config "$tmp/maint1s.yaml" --once
expect_grep "$tmp/err" "head mm@$(short "$h4") scheduled against mm@$(short "$h1")" \
	"the newest head against the last tested head"
expect_grep "$tmp/err" "bisect: regression 1: culprit $mculprit" "bisected to the skipped head's commit"
[ "$(q maint "SELECT count(*) FROM watch_tags")" = 2 ] && ok "the skipped heads get no row of their own" ||
	fail "the skipped heads get no row of their own"
[ "$(mails)" = $((before + 1)) ] && ok "one mail" || fail "one mail"
m=$(mail_with "branch: mm at $(short "$h4"), ")
[ -n "$m" ] && grep -q "branch: mm at $(short "$h4"), compared with its last tested head mm@$(short "$h1")" "$m" &&
	ok "the report names the branch and its base" || { fail "the report names the branch and its base"; cat "$m" 2>/dev/null | head -40; }
[ -n "$m" ] && grep -q "^Subject: \[mm:mm\] " "$m" && ok "its subject names the tree and the branch" ||
	fail "its subject names the tree and the branch ($(grep '^Subject:' "$m" 2>/dev/null))"

# force-pushed: mm rebuilt on a newer master, slower at another commit
g checkout -q master
commit "mainline 4"
g tag v1.1
g checkout -q -B mm v1.1
commit "mm: first, again"
commit "mm: second, again, slower" slow
fculprit=$(g rev-parse HEAD)
commit "mm: third, again"
h5=$(g rev-parse HEAD)
newbase=$(g rev-parse v1.1)
g checkout -q master
commit "mainline 5"
sleep 1
expect_exit 0 "a force-pushed branch" "$FAULTLINE" watch --config "$tmp/maint1s.yaml" --once
expect_grep "$tmp/err" "head mm@$(short "$h5") scheduled against $(short "$newbase") (1 comparison): force-pushed: the last head mm@$(short "$h4") is not an ancestor of it; compared with its merge base $(short "$newbase") with master" \
	"compared with its merge base with branch_base, and says so"
[ "$(q maint "SELECT b.sha FROM watch_tags w JOIN commits b ON b.id = w.baseline_commit WHERE w.tag = 'mm@$(short "$h5")'")" = "$newbase" ] &&
	ok "the merge base is the stored baseline" || fail "the merge base is the stored baseline"
[ "$(q maint "SELECT note FROM watch_tags WHERE tag = 'mm@$(short "$h5")'")" != "" ] &&
	ok "the force-push is noted in the store" || fail "the force-push is noted in the store"
expect_grep "$tmp/err" "bisect: regression 2: culprit $fculprit" "bisected from the merge base"
m=$(mail_with "branch: mm at $(short "$h5"), ")
[ -n "$m" ] && grep -q "branch: mm at $(short "$h5"), compared with $(short "$newbase")" "$m" &&
	grep -q "(force-pushed: the last head mm@$(short "$h4") is not an ancestor of it; compared" "$m" &&
	ok "the report says it was force-pushed and what it was compared with" ||
	fail "the report says it was force-pushed and what it was compared with"
ln -sf "$tmp/maint.db" "$tmp/maint1s.db"
twice maint1s

# the pages: heads after tags, with their base and how it was found
"$FAULTLINE" serve --db "$(fl_store "$tmp/maint.db")" --listen 127.0.0.1:0 >/dev/null 2>"$tmp/serve.err" &
serve_pid=$!
url=
for _ in $(seq 100); do
	url=$(sed -n 's/.*results pages at \(http:[^ ]*\) .*/\1/p' "$tmp/serve.err")
	url=${url%/}
	[ -n "$url" ] && break
	sleep 0.1
done
curl -sf "$url/" >"$tmp/dash.html" && curl -sf "$url/api/" >"$tmp/dash.json" &&
	curl -sf "$url/tree/mm" >"$tmp/tree.html" || fail "serve answers ($url)"
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null
expect_grep "$tmp/dash.html" "mm@$(short "$h5")" "the dashboard names the head"
expect_grep "$tmp/dash.html" "<small class='note'>force-pushed: the last head mm@$(short "$h4") is not an ancestor of it" \
	"and says it was force-pushed"
expect_grep "$tmp/tree.html" "<td class='tag'>mm@$(short "$h4")</td>" "the tree page lists the heads"
$PY - "$tmp/dash.json" "mm@$(short "$h5")" "mm@$(short "$h4")" "mm@$(short "$h1")" <<'PY' && ok "the JSON: heads newest first, kind and baseline" || fail "the JSON: heads newest first, kind and baseline"
import json, sys
d = json.load(open(sys.argv[1]))
tree = [t for t in d["trees"] if t["name"] == "mm"][0]
names = [t["name"] for t in tree["tags"]]
assert names == sys.argv[2:], names
assert all(t["kind"] == "head" for t in tree["tags"]), tree["tags"]
assert tree["tags"][1]["baseline"] == sys.argv[4], tree["tags"][1]
PY

# a branch without branch_base: its first head is the start, the next against it
config start "  - { name: mm, url: $tmp/maint, tags: [], branch: mm, branch_interval: 0s, poll: 1s }"
watch start "a branch without branch_base"
expect_grep "$tmp/err" "branch mm: head mm@$(short "$h5") recorded, not tested: the first head seen" "the first head is the start"
[ "$(q start "SELECT count(*) FROM jobs")" = 0 ] && ok "nothing is measured for it" || fail "nothing is measured for it"
g checkout -q mm
commit "mm: sixth"
h6=$(g rev-parse HEAD)
g checkout -q master
watch start "the next head"
expect_grep "$tmp/err" "head mm@$(short "$h6") scheduled against mm@$(short "$h5")" "against the start"
# a branch the repository does not have
config nobranch "  - { name: mm, url: $tmp/maint, tags: [], branch: mm-nosuch, poll: 1s }"
expect_exit 4 "a branch that does not exist" "$FAULTLINE" watch --config "$tmp/nobranch.yaml" --once
expect_grep "$tmp/err" "branch 'mm-nosuch' of $tmp/maint: tree 'mm': unknown revision 'mm-nosuch'" \
	"names the tree, the branch and the URL"

# ---- 0. a tree cloned over a URL: progress, a fetch that fails ------------------
cp -r "$tmp/mainline" "$tmp/upstream"
config up "  - { name: up, url: 'file://$tmp/upstream', tags: ['v*'], backfill: 0, poll: 1s }"
watch up "a tree cloned over a URL"
expect_grep "$tmp/err" "tree 'up': cloning file://$tmp/upstream into $tmp/var-up/trees/up" "says it clones"
expect_grep "$tmp/err" "tree 'up': cloning: " "logs the clone's progress"
if grep "tree 'up': cloning: " "$tmp/err" | grep -q "objects received (.*), .* indexed, done in"; then
	ok "objects and bytes received, and the end"; else fail "objects and bytes received, and the end"; fi
mv "$tmp/upstream" "$tmp/upstream.gone"
watch up "a fetch that fails"
expect_grep "$tmp/err" "tree 'up': fetch from file://$tmp/upstream failed:" "names the tree and the URL"

smtp_stop
finish
