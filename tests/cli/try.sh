# try.sh - "faultline try" with the command backend, a real repository, a
# real store (SQLite; PostgreSQL as cli_try_pg) and a real SMTP server
# (python3-aiosmtpd on loopback):
#   1. the watch service finds a regression (a commit that adds the file
#      "slow": 100 -> 90) and mails its report;
#   2. the revert of the culprit as a format-patch mail: "restores", a reply
#      in the report's thread (In-Reply-To, References) with a Tested-by
#      line, the try's job and comparisons stored, the user's checkout
#      untouched;
#   3. an unrelated plain diff: "no effect", no Tested-by;
#   4. a patch whose hunk does not apply: the file and the hunk named, no
#      run made; a fix that does not build: its first error line;
#   5. restart safety: the try is killed (SIGKILL) after its second run is
#      stored and "faultline watch --once" finishes it: no run repeated,
#      one reply;
#   6. a try without a regression (--base, --rev): no mail, "makes it worse".
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3

cat >"$tmp/bench" <<'SH'
#!/bin/sh
# prints 5 samples around 100, or 90 with "slow", 80 with "slower"; a tree
# with "broken" does not build
echo "$FAULTLINE_COMMIT" >>"$BENCH_LOG"
if [ -f broken ]; then echo "cc -c x.c" >&2; echo "x.c:3:1: error: expected ';' before '}'" >&2; exit 125; fi
base=100
[ -f slow ] && base=90
[ -f slower ] && base=80
[ -f half ] && base=95
# "noisy": each commit's k-th run anywhere in 40..80 (k times the golden
# ratio, modulo 1), all far below 100
if [ -f noisy ]; then
	echo x >>"$BENCH_LOG.$FAULTLINE_COMMIT"
	base=$(awk -v k="$(wc -l <"$BENCH_LOG.$FAULTLINE_COMMIT")" 'BEGIN { x = k * 0.6180339887; print 40 + 40 * (x - int(x)) }')
fi
awk -v seed="$$$(date +%N)" -v base="$base" 'BEGIN { srand(seed % 2147483647)
	for (i = 0; i < 5; i++)
		printf "%.3f\n", base + 0.5 * sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand()) }'
SH
chmod +x "$tmp/bench"

git_in() { (cd "$1" && shift && GIT_AUTHOR_NAME='Ada Lovelace' GIT_AUTHOR_EMAIL=ada@example.org \
	GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@example.org git -c init.defaultBranch=master "$@"); }

# v1.0 (5 commits), v1.1 (12): commit 8 adds "slow"; perf.conf has 5 lines
repo="$tmp/repo"
mkdir -p "$repo" && git_in "$repo" init -q
printf 'speed=100\nother=1\nthird=3\nfourth=4\nfifth=5\n' >"$repo/perf.conf"
for i in $(seq 12); do
	echo "$i" >"$repo/counter-$i"
	[ "$i" -eq 8 ] && echo slow >"$repo/slow"
	git_in "$repo" add -A
	if [ "$i" -eq 8 ]; then git_in "$repo" commit -qm "mm: make things slower"; else git_in "$repo" commit -qm "commit $i"; fi
	case $i in 5) git_in "$repo" tag v1.0 ;; 12) git_in "$repo" tag v1.1 ;; esac
done
culprit=$(git_in "$repo" rev-parse HEAD~4)

port=$(free_port)
maildir="$tmp/Maildir"
smtp_start "$port" "$maildir" || fail "the SMTP server starts"
mails() { ls "$maildir/new" 2>/dev/null | wc -l; }

cat >"$tmp/c.yaml" <<EOF
var: $tmp/var
store: $(fl_store_yaml "$tmp/fl.db")
trees:
  - { name: demo, url: $repo, tags: ["v*"], poll: 1s }
machines:
  - { name: box, backend: command, command: "$tmp/bench", timeout: 1m, max_parallel: 2 }
benchmarks:
  - { name: demo, repeat: 3 }
regression: { min_change: 2%, confidence: 0.95 }
report: { smtp: "smtp://127.0.0.1:$port", from: "faultline <robot@example.org>",
          to: [dev@example.org], url: "http://results.example", retry: 1s }
EOF
q() { fl_sql "$tmp/fl.db" "$1"; }
export BENCH_LOG="$tmp/bench.log"

# ---- 1. the regression and its report ----------------------------------------
expect_exit 0 "watch: v1.1 against v1.0, bisected, reported" "$FAULTLINE" watch --config "$tmp/c.yaml" --once
[ "$(q "SELECT count(*) FROM regressions")" = 1 ] && ok "one regression" || fail "one regression"
[ "$(mails)" = 1 ] && ok "its report is mailed" || fail "its report is mailed ($(mails))"
user_state=$(git_in "$repo" rev-parse HEAD; git_in "$repo" status --porcelain)

# ---- 2. the revert as a format-patch mail: restores ----------------------------
git clone -q "$repo" "$tmp/dev"
git_in "$tmp/dev" revert --no-edit "$culprit" >/dev/null
git_in "$tmp/dev" format-patch -1 --stdout >"$tmp/0001-Revert-mm-make-things-slower.patch"
: >"$BENCH_LOG"
expect_exit 0 "try the revert" "$FAULTLINE" try --config "$tmp/c.yaml" --regression 1 \
	--patch "$tmp/0001-Revert-mm-make-things-slower.patch"
cp "$tmp/out" "$tmp/restores.out"
expect_grep "$tmp/out" "The fix restores the throughput at demo.value." "answers restores"
expect_grep "$tmp/out" "fix against the base" "with the figures against the base"
expect_grep "$tmp/out" "fix against the good commit" "and against the good commit"
expect_grep "$tmp/out" "Tested-by: faultline <robot@example.org>" "a Tested-by line to paste"
expect_grep "$tmp/err" "try 1: the fix restores the throughput; the reply is in the outbox" "logged"
[ "$(q "SELECT state || ' ' || verdict || ' ' || subject FROM tries WHERE id = 1")" = \
	"applied restores Revert \"mm: make things slower\"" ] && ok "the try is stored with its commit's subject" ||
	fail "the try is stored ($(q "SELECT state, verdict, subject FROM tries"))"
fix=$(q "SELECT commit_sha FROM tries WHERE id = 1")
[ "$(git_in "$repo" rev-parse refs/faultline/try/1)" = "$fix" ] && [ "$(git_in "$repo" rev-parse "$fix^")" = "$(git_in "$repo" rev-parse 'v1.1^{commit}')" ] &&
	ok "the fix sits on v1.1 under refs/faultline/try/1" || fail "the fix sits on v1.1 under refs/faultline/try/1"
[ "$(git_in "$repo" rev-parse HEAD; git_in "$repo" status --porcelain)" = "$user_state" ] &&
	ok "the user's checkout is untouched" || fail "the user's checkout is untouched"
[ "$(q "SELECT group_concat(role, ',') FROM (SELECT DISTINCT role FROM jobs WHERE parent_id = (SELECT id FROM jobs WHERE key = 'try:1') ORDER BY role) AS r")" = "bad,base,fix" ] &&
	ok "the fix, its base and the good commit were measured" || fail "the sides measured ($(q "SELECT group_concat(role, ',') FROM jobs WHERE parent_id = (SELECT id FROM jobs WHERE key = 'try:1')"))"
[ "$(q "SELECT count(*) FROM comparisons WHERE what IN ('try-base', 'try-good') AND job_id = (SELECT id FROM jobs WHERE key = 'try:1')")" = 2 ] &&
	ok "both comparisons stored" || fail "both comparisons stored"
[ "$(q "SELECT result FROM jobs WHERE key = 'try:1'")" = restores ] && ok "the try job is done with the verdict" ||
	fail "the try job is done with the verdict"
[ "$(mails)" = 2 ] && ok "the reply is mailed" || fail "the reply is mailed ($(mails))"
$PY - "$maildir" <<'PY' && ok "the reply is in the report's thread" || fail "the reply is in the report's thread"
import email, email.policy, os, sys
d = sys.argv[1] + "/new"
ms = [email.message_from_binary_file(open(os.path.join(d, f), "rb"), policy=email.policy.default) for f in os.listdir(d)]
first = [m for m in ms if m["In-Reply-To"] is None][0]
reply = [m for m in ms if m["In-Reply-To"] is not None][0]
assert reply["In-Reply-To"] == first["Message-ID"], (reply["In-Reply-To"], first["Message-ID"])
assert reply["References"] == first["Message-ID"], reply["References"]
assert reply["Subject"] == "Re: " + first["Subject"], reply["Subject"]
assert reply["Message-ID"].startswith("<faultline.try.1."), reply["Message-ID"]
body = reply.get_content()
for want in ["tried a proposed fix for regression 1", "patch:   0001-Revert-mm-make-things-slower.patch",
             "The fix restores the throughput", "Tested-by: faultline <robot@example.org>",
             "http://results.example/try/1"]:
    assert want in body, (want, body)
PY

# ---- 3. an unrelated plain diff: no effect ---------------------------------------
# as quilt writes a new file: no "diff --git" line
cat >"$tmp/readme.diff" <<'EOF'
--- /dev/null
+++ b/README
@@ -0,0 +1 @@
+readme
EOF
expect_exit 0 "try an unrelated patch" "$FAULTLINE" try --config "$tmp/c.yaml" --regression 1 --patch "$tmp/readme.diff"
expect_grep "$tmp/out" "The fix has no effect at demo.value." "answers no effect"
grep -q "Tested-by" "$tmp/out" && fail "no Tested-by for no effect" || ok "no Tested-by for no effect"
[ "$(q "SELECT subject FROM tries WHERE id = 2")" = "readme.diff" ] && ok "a plain diff's commit is named after its file" ||
	fail "a plain diff's commit is named after its file"
[ "$(mails)" = 3 ] && ok "that answer is mailed too" || fail "that answer is mailed too ($(mails))"

# ---- a series of two messages: two commits; its second message conflicting is named
git_in "$tmp/dev" checkout -q -b series 'v1.1^{commit}'
echo notes >"$tmp/dev/NOTES" && git_in "$tmp/dev" add NOTES && git_in "$tmp/dev" commit -qm "docs: add notes"
sed -i 's/^fifth=5$/fifth=6/' "$tmp/dev/perf.conf"
git_in "$tmp/dev" rm -q slow && git_in "$tmp/dev" commit -qam "mm: be fast again"
git_in "$tmp/dev" format-patch -q -2 -o "$tmp/series"
cat "$tmp"/series/*.patch >"$tmp/series.mbox"
expect_exit 0 "try a series of two" "$FAULTLINE" try --config "$tmp/c.yaml" --regression 1 --patch "$tmp/series.mbox"
expect_grep "$tmp/out" "The fix restores the throughput" "the series restores"
[ "$(git_in "$repo" log --format=%s -2 refs/faultline/try/3 | tr '\n' '|')" = "mm: be fast again|docs: add notes|" ] &&
	ok "one commit per message, with its subject" || fail "one commit per message ($(git_in "$repo" log --format=%s -2 refs/faultline/try/3))"
sed 's/^-fifth=5$/-fifth=7/' "$tmp/series.mbox" >"$tmp/series-bad.mbox"
expect_exit 1 "a series whose second message does not apply" "$FAULTLINE" try --config "$tmp/c.yaml" --regression 1 --patch "$tmp/series-bad.mbox"
expect_grep "$tmp/out" "series-bad.mbox: message 2 of 2 ('mm: be fast again'): perf.conf: hunk 1 (@@ -2,4 +2,4 @@" "names the message, file and hunk"

# ---- 4. does not apply; does not build ---------------------------------------------
# as diff -u writes it (no "diff --git" line, timestamps after a tab): still a diff
cat >"$tmp/conflict.diff" <<'EOF'
--- a/perf.conf	2014-09-02 10:00:00.000000000 -0700
+++ b/perf.conf	2014-09-02 10:05:00.000000000 -0700
@@ -1,3 +1,3 @@
 speed=100
-other=2
+other=3
 third=3
EOF
runs=$(q "SELECT count(*) FROM runs")
expect_exit 1 "a patch that does not apply" "$FAULTLINE" try --config "$tmp/c.yaml" --regression 1 --patch "$tmp/conflict.diff"
expect_grep "$tmp/out" "The fix does not apply:" "says it does not apply"
expect_grep "$tmp/out" "conflict.diff: perf.conf: hunk 1 (@@ -1,3 +1,3 @@) does not apply" "names the file and the hunk"
grep -q "no effect" "$tmp/out" && fail "not 'no effect'" || ok "not 'no effect'"
[ "$(q "SELECT count(*) FROM runs")" = "$runs" ] && ok "nothing is measured" || fail "nothing is measured"
[ "$(q "SELECT state || ' ' || verdict FROM tries WHERE id = 5")" = "conflict conflict" ] && ok "stored as a conflict" ||
	fail "stored as a conflict"
printf 'diff --git a/broken b/broken\nnew file mode 100644\nindex 0000000..e845566\n--- /dev/null\n+++ b/broken\n@@ -0,0 +1 @@\n+x\n' >"$tmp/broken.diff"
expect_exit 1 "a fix that does not build" "$FAULTLINE" try --config "$tmp/c.yaml" --regression 1 --patch "$tmp/broken.diff"
expect_grep "$tmp/out" "The fix could not be measured:" "says it could not be measured"
expect_grep "$tmp/out" "x.c:3:1: error: expected ';' before '}'" "with the first error line"
grep -q "no effect" "$tmp/out" && fail "not 'no effect' either" || ok "not 'no effect' either"
expect_exit 2 "a patch file that is not there" "$FAULTLINE" try --config "$tmp/c.yaml" --regression 1 --patch "$tmp/nope.diff"
expect_grep "$tmp/err" "nope.diff" "names it"
expect_exit 2 "--patch and --rev together" "$FAULTLINE" try --config "$tmp/c.yaml" --regression 1 --patch "$tmp/readme.diff" --rev v1.0
expect_exit 2 "a bad point" "$FAULTLINE" try --config "$tmp/c.yaml" --base v1.1 --rev v1.0 --point threads:x
expect_grep "$tmp/err" "point 'threads:x': bad task count" "names the point"

# ---- 5. restart safety --------------------------------------------------------------
mails_before=$(mails)
: >"$BENCH_LOG"
FAULTLINE_CRASH_AT=run-stored:2 "$FAULTLINE" try --config "$tmp/c.yaml" --regression 1 \
	--patch "$tmp/0001-Revert-mm-make-things-slower.patch" >/dev/null 2>&1
[ $? -eq 137 ] && ok "the try is killed after its second run" || fail "the try is killed after its second run"
[ "$(q "SELECT verdict IS NULL FROM tries WHERE id = 7")" = 1 ] && ok "unfinished" || fail "unfinished"
expect_exit 0 "watch --once finishes it" "$FAULTLINE" watch --config "$tmp/c.yaml" --once
expect_grep "$tmp/err" "try 7: the fix restores the throughput" "with the same answer"
# the runs in flight at the kill (at most max_parallel) are redone; none that was stored
runs=$(q "SELECT count(*) FROM runs r JOIN jobs j ON j.id = r.job_id WHERE j.parent_id = (SELECT id FROM jobs WHERE key = 'try:7')")
[ "$(q "SELECT count(*) FROM jobs j WHERE j.parent_id = (SELECT id FROM jobs WHERE key = 'try:7') AND (SELECT count(*) FROM runs r WHERE r.job_id = j.id) != 1")" = 0 ] &&
	[ $(($(wc -l <"$BENCH_LOG") - runs)) -le 2 ] && ok "no run repeated or counted twice ($runs)" ||
	fail "no run repeated or counted twice ($(wc -l <"$BENCH_LOG") runs, $runs stored)"
[ "$(mails)" = $((mails_before + 1)) ] && ok "one reply" || fail "one reply ($(mails))"
expect_exit 0 "try --resume on a finished try prints it" "$FAULTLINE" try --config "$tmp/c.yaml" --resume 7
expect_grep "$tmp/out" "The fix restores the throughput" "its answer"

# ---- half the drop back: partly restores ----------------------------------------------
cat >"$tmp/half.diff" <<'EOF'
diff --git a/half b/half
new file mode 100644
index 0000000..e845566
--- /dev/null
+++ b/half
@@ -0,0 +1 @@
+half
diff --git a/slow b/slow
deleted file mode 100644
index 0000000..e845566
--- a/slow
+++ /dev/null
@@ -1 +0,0 @@
-slow
EOF
expect_exit 0 "a fix that brings half of it back" "$FAULTLINE" try --config "$tmp/c.yaml" --regression 1 --patch "$tmp/half.diff"
expect_grep "$tmp/out" "The fix partly restores the throughput (it recovers" "answers partly restores"
pct=$(q "SELECT round(recovered_pct) FROM tries WHERE id = 8")
[ "${pct%.*}" -ge 40 ] && [ "${pct%.*}" -le 60 ] && ok "it recovers about half of the drop ($pct%)" ||
	fail "it recovers about half of the drop ($pct%)"

# ---- a fix that changes nothing on a noisy base: the regression stays ----------------
# The base's and the fix's runs spread over 40..80 (a machine whose runs
# differ 2x): the runs can never show the fix level with its base, but
# they show it far below the good commit. After the last round that is
# "no effect", not "no clear answer".
git_in "$tmp/dev" checkout -q v1.1
echo noisy >"$tmp/dev/noisy"
git_in "$tmp/dev" add noisy && git_in "$tmp/dev" commit -qm "a noisy base"
git_in "$tmp/dev" push -q "$repo" HEAD:refs/heads/noisy
printf -- '--- /dev/null\n+++ b/NEWS\n@@ -0,0 +1 @@\n+news\n' >"$tmp/news.diff"
expect_exit 0 "a fix that changes nothing on a noisy base" "$FAULTLINE" try --config "$tmp/c.yaml" \
	--regression 1 --base noisy --patch "$tmp/news.diff"
expect_grep "$tmp/out" "The fix has no effect at demo.value." "answers no effect"
expect_grep "$tmp/out" "The regression stays: -" "says the regression stays"
expect_grep "$tmp/out" "the runs cannot tell the fix from its base" "and that the base could not be told apart"
expect_grep "$tmp/out" "12 + 12 runs" "after the last round"
grep -q "Tested-by" "$tmp/out" && fail "no Tested-by" || ok "no Tested-by"

# ---- 6. without a regression -----------------------------------------------------------
git_in "$tmp/dev" checkout -q v1.1
echo slower >"$tmp/dev/slower"
git_in "$tmp/dev" add slower && git_in "$tmp/dev" commit -qm "make it slower still"
git_in "$tmp/dev" push -q "$repo" HEAD:refs/heads/slower
mails_before=$(mails)
expect_exit 0 "try a revision against a base" "$FAULTLINE" try --config "$tmp/c.yaml" --base v1.1 --rev slower
expect_grep "$tmp/out" "The fix makes it worse at the primary metric's points." "answers makes it worse"
expect_grep "$tmp/out" "demo.value" "with compare.c's table"
[ "$(mails)" = "$mails_before" ] && ok "nothing to reply to: no mail" || fail "nothing to reply to: no mail"

expect_exit 0 "queue show with try jobs done" "$FAULTLINE" queue show --config "$tmp/c.yaml"

# ---- the pages --------------------------------------------------------------------------
wport=$(free_port)
"$FAULTLINE" serve --config "$tmp/c.yaml" --listen "127.0.0.1:$wport" --root web >"$tmp/serve.log" 2>&1 &
serve_pid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$wport/" >/dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$wport/try/1" >"$tmp/try1.html" && ok "/try/1 answers" || fail "/try/1 answers"
expect_grep "$tmp/try1.html" "<span class='verdict'>restores</span>" "the page says restores"
expect_grep "$tmp/try1.html" "0001-Revert-mm-make-things-slower.patch" "names the patch"
expect_grep "$tmp/try1.html" "<a href='/regression/1'>regression 1</a>" "links its regression"
expect_grep "$tmp/try1.html" "compare the fix with its base" "links the comparison"
expect_grep "$tmp/try1.html" "demo.value" "with the comparison's rows"
curl -sf "http://127.0.0.1:$wport/try/5" >"$tmp/try3.html"
expect_grep "$tmp/try3.html" "perf.conf: hunk 1 (@@ -1,3 +1,3 @@) does not apply" "a conflict's page names the hunk"
curl -sf "http://127.0.0.1:$wport/api/try/1" >"$tmp/try1.json"
$PY - "$tmp/try1.json" <<'PY' && ok "/api/try/1" || fail "/api/try/1"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["verdict"] == "restores" and t["regression_id"] == 1 and t["job_state"] == "done", t
assert {c["what"] for c in t["comparisons"]} == {"try-base", "try-good"}, t["comparisons"]
assert "Tested-by:" in t["summary"], t["summary"]
PY
curl -sf "http://127.0.0.1:$wport/regression/1" >"$tmp/reg1.html"
expect_grep "$tmp/reg1.html" "<a href='/try/1'>try 1</a>" "the regression links its tries"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$wport/try/99")" = 404 ] && ok "no try 99: 404" || fail "no try 99: 404"
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null
finish
