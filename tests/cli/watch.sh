# watch.sh - "faultline watch" end to end with the command backend, real git
# repositories, a real store (SQLite; PostgreSQL as cli_watch_pg) and a real
# SMTP server (python3-aiosmtpd on loopback):
#   0. a tree that cannot be read: --once fails, saying which and why;
#   1. a tag without a slowdown: compared, no regression, no mail;
#   2. a tag with a slowdown injected by one commit: a regression, a
#      bisection to that commit, a revert that applies and brings the
#      throughput back, exactly one mail whose headers and body are checked;
#      nothing is scheduled twice;
#   3. a culprit whose lines were changed again: the revert conflicts and
#      the report names the file; a culprit next to an untestable commit is
#      reported as a range; a culprit inside a merged topic branch is found
#      there (not the merge), and the report says where;
#   4. crash safety: the service is killed (SIGKILL) at fixed points and
#      during a run, then started again: same culprit, no run repeated or
#      counted twice, exactly one mail;
#   5. the mail server down at first: the report goes once it is up.
# The benchmark prints five noisy numbers around 100, 90 once the slowdown
# is in (a 10-sigma step, so the answers are certain).
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/history.sh"

# config NAME REPO PORT [COMMAND PREFIX]: a deployment with one tree, one command machine
config() {
	cat >"$tmp/$1.yaml" <<EOF
var: $tmp/var-$1
store: $(fl_store_yaml "$tmp/$1.db")
trees:
  - { name: demo, url: $2, tags: ["v*"], poll: 1s }
machines:
  - { name: box, backend: command, command: "${4:-} $tmp/bench", timeout: 1m, max_parallel: 2 }
benchmarks:
  - { name: demo, repeat: 3 }
regression: { min_change: 2%, confidence: 0.95 }
report: { smtp: "smtp://127.0.0.1:$3", from: "faultline <robot@example.org>",
          to: [dev@example.org], url: "http://results.example", retry: 1s }
EOF
}
q() { fl_sql "$tmp/$1.db" "$2"; }

export BENCH_LOG="$tmp/bench.log"
port=$(free_port)
maildir="$tmp/Maildir"
smtp_start "$port" "$maildir" || fail "the SMTP server starts"

# ---- 0. a tree that cannot be read ----------------------------------------
# --once exited 0, and a missing local path was "unsupported URL protocol"
config missing "$tmp/no-such-repo" "$port"
expect_exit 4 "--once: an unreadable tree is a failure" "$FAULTLINE" watch --config "$tmp/missing.yaml" --once
expect_grep "$tmp/err" "tree 'demo': no such directory '$tmp/no-such-repo' (a url without a scheme is a local directory)" \
	"a missing local tree is said as such"
expect_grep "$tmp/err" "watch: 1 of 1 tree could not be read" "the exit is explained"
if grep -q "unsupported URL protocol" "$tmp/err"; then fail "not taken for a URL"; else ok "not taken for a URL"; fi
: >"$tmp/not-a-dir"
config notdir "$tmp/not-a-dir" "$port"
expect_exit 4 "--once: a tree url that is a file" "$FAULTLINE" watch --config "$tmp/notdir.yaml" --once
expect_grep "$tmp/err" "tree 'demo': not a directory: '$tmp/not-a-dir'" "a file is not a tree"

# ---- 1. a tag without a slowdown ------------------------------------------
repo="$tmp/repo"
make_repo "$repo" clean 10
user_state=$(git_in "$repo" rev-parse HEAD; git_in "$repo" status --porcelain)
config main "$repo" "$port"
expect_exit 0 "first pass: v1.1 against v1.0" "$FAULTLINE" watch --config "$tmp/main.yaml" --once
expect_grep "$tmp/err" "first pass over 2 tags: testing the newest 1" "says what the first pass tests"
expect_grep "$tmp/err" "v1.1 scheduled against v1.0" "baseline is the previous tag"
expect_grep "$tmp/err" "compare: demo v1.1 vs v1.0, demo on box: same" "no change found"
[ "$(q main "SELECT count(*) FROM regressions")" = 0 ] && ok "no regression stored" || fail "no regression stored"
[ "$(q main "SELECT class FROM comparisons WHERE is_primary = 1")" = same ] && ok "the comparison is stored as same" ||
	fail "the comparison is stored as same"
[ "$(mails "$maildir")" = 0 ] && ok "no mail for a tag without a slowdown" || fail "no mail for a tag without a slowdown"
[ "$(q main "SELECT group_concat(t, ' ') FROM (SELECT tag || ':' || state AS t FROM watch_tags ORDER BY id) AS w")" = "v1.0:skipped v1.1:scheduled" ] &&
	ok "v1.0 recorded as seen" || fail "v1.0 recorded as seen"

# ---- 2. a tag with a slowdown ----------------------------------------------
make_repo "$repo" clean 30
culprit=$(git_in "$repo" rev-parse HEAD~7)
user_state=$(git_in "$repo" rev-parse HEAD; git_in "$repo" status --porcelain)
: >"$BENCH_LOG"
runs_before=$(q main "SELECT count(*) FROM runs")
expect_exit 0 "v1.2: regression, bisection, revert, report" "$FAULTLINE" watch --config "$tmp/main.yaml" --once
cp "$tmp/err" "$tmp/main.err"
expect_grep "$tmp/err" "v1.2 scheduled against v1.1" "v1.2 against v1.1"
expect_grep "$tmp/err" "regression of demo.value" "the regression is found"
expect_grep "$tmp/err" "the culprit is one of" "bisection progress on stderr"
expect_grep "$tmp/err" "bisect: regression 1: culprit $culprit" "bisects to the injected commit"
expect_grep "$tmp/err" "revert: regression 1: restores" "the revert brings the throughput back"
expect_grep "$tmp/err" "report 1: sent" "the report is sent"
[ "$(q main "SELECT culprit FROM bisections WHERE regression_id = 1")" = "$culprit" ] &&
	ok "the store holds the culprit" || fail "the store holds the culprit"
[ "$(q main "SELECT state || ' ' || verdict FROM reverts")" = "applied restores" ] &&
	ok "the revert check is stored" || fail "the revert check is stored"
[ "$(git_in "$repo" rev-parse refs/faultline/revert/1^)" = "$(git_in "$repo" rev-parse v1.2^{commit})" ] &&
	ok "the revert commit sits on v1.2 under refs/faultline/" || fail "the revert commit sits on v1.2 under refs/faultline/"
# every stored commit knows its place in the history (the pages' order), as git counts it
bad_depth=$(q main "SELECT sha || ' ' || coalesce(CAST(depth AS TEXT), 'NULL') FROM commits" | while read -r sha d; do
	[ "$d" = "$(git_in "$repo" rev-list --first-parent --count "$sha")" ] || echo "$sha $d"
done)
[ -z "$bad_depth" ] && [ "$(q main "SELECT count(*) FROM commits")" -gt 2 ] &&
	ok "every stored commit has its first-parent depth" ||
	fail "every stored commit has its first-parent depth: $bad_depth"
[ "$(git_in "$repo" rev-parse HEAD; git_in "$repo" status --porcelain)" = "$user_state" ] &&
	ok "the user's checkout is untouched" || fail "the user's checkout is untouched"
[ "$(mails "$maildir")" = 1 ] && ok "exactly one mail" || fail "exactly one mail ($(mails "$maildir"))"
stored=$(q main "SELECT base_runs, new_runs, base_mean, new_mean, change, p_value, class FROM comparisons
	WHERE what = 'tag' AND is_primary = 1 AND job_id = (SELECT job_id FROM regressions WHERE id = 1)")
$PY - "$maildir" "$culprit" "$tmp/main.db" "$stored" <<'PY' && ok "mail headers and body" || fail "mail headers and body"
import email, email.policy, os, sys
d, culprit = sys.argv[1] + "/new", sys.argv[2]
m = email.message_from_binary_file(open(os.path.join(d, os.listdir(d)[0]), "rb"), policy=email.policy.default)
subject = m["Subject"]
assert subject.startswith("[demo] [mm] %s: demo.value -" % culprit[:10]) and subject.endswith("% regression"), subject
assert m["From"] == "faultline <robot@example.org>", m["From"]
assert m["To"] == "dev@example.org", m["To"]
assert m["Message-ID"].startswith("<faultline.regression.1.") and m["Message-ID"].endswith("@example.org>"), m["Message-ID"]
assert m["Date"] and m["In-Reply-To"] is None
body = m.get_content()
for want in ["Greeting,", "regression of demo.value due to commit:",
             "commit: %s (\"mm: make things slower\")" % culprit, "author: Ada Lovelace <ada@example.org>",
             "tags:   v1.2, compared with its baseline v1.1", "on test machine: box, the command backend",
             "%stddev     %change         %stddev", "Bisection (good v1.1",
             "result: culprit %s" % culprit[:12], "reverted on top of v1.2",
             "verdict: the revert brings the throughput back", "To reproduce:",
             "git checkout --detach %s" % culprit, "faultline bisect run --good",
             "http://results.example/regression/1", "http://results.example/bisect/1"]:
    assert want in body, (want, body)
assert m.get_content_type() == "text/plain" and m.get_content_charset() == "utf-8", m["Content-Type"]
assert "faultline try --config repro.yaml --tree demo --benchmark demo --machine box" in body, body
assert "| Reported-by: faultline <robot@example.org>" in body and "| Closes: http://results.example/regression/1" in body, body
assert "--config " + sys.argv[3].rsplit("/", 1)[0] not in body, "faultline's configuration path in the report"
# compare.c's tables, one value per run: the culprit against its parent and
# the tag against its baseline, each ~100 against ~90, about -10%. The tag's
# verdict is the one the service decided on: DIFFERENT on at least 4 runs a
# side (fewer cannot reach p < 0.05), a regression, as in the comparisons
# table. The culprit's runs are the bisection's (two a side here): shown,
# but too few for a verdict of their own.
import re
row = re.compile(r"^\s*([\d.]+)(?: ±\s*\d+%)?\s+([+-][\d.]+)%\s+([\d.]+)(?: ±\s*\d+%)?"
                 r"\s+demo\.value  (DIFFERENT|SAME|UNKNOWN) p=(\S+) n=(\d+)\+(\d+)(  REGRESSION|  improvement)?$")
rows = [row.match(l) for l in body.splitlines() if "  demo.value  " in l]
assert len(rows) >= 2 and all(rows), body
for r in rows[:2]:
    base, change, new = (float(x) for x in r.groups()[:3])
    assert 98 < base < 102 and -12 < change < -8 and 88 < new < 92, r.groups()
tag = rows[1]
assert tag.group(4) == "DIFFERENT" and tag.group(8) == "  REGRESSION", tag.groups()
assert int(tag.group(6)) >= 4 and int(tag.group(7)) >= 4, tag.groups()
# the stored comparison, as fl_sql prints it (sqlite3 or psql)
f = sys.argv[4].split("|")
stored = (int(f[0]), int(f[1]), float(f[2]), float(f[3]), float(f[4]), float(f[5]), f[6])
assert stored[6] == "regression", stored
assert (int(tag.group(6)), int(tag.group(7))) == stored[:2], (tag.groups(), stored)
assert abs(float(tag.group(1)) - stored[2]) < 0.01 and abs(float(tag.group(3)) - stored[3]) < 0.01, stored
assert abs(float(tag.group(2)) - stored[4]) < 0.06 and float(tag.group(5)) == float("%.2g" % stored[5]), stored
PY
runs=$(($(q main "SELECT count(*) FROM runs") - runs_before))
ok_runs=$(q main "SELECT count(*) FROM runs WHERE status = 'ok'")
[ "$(wc -l <"$BENCH_LOG")" = "$runs" ] && ok "every run of the command is stored once ($runs)" ||
	fail "every run of the command is stored once ($(wc -l <"$BENCH_LOG") runs, $runs stored)"
[ -d "$tmp/var-main/checkouts/box/0/src" ] && [ -d "$tmp/var-main/checkouts/box/1/src" ] &&
	ok "two runs at once in two private checkouts (max_parallel 2)" ||
	fail "two runs at once in two private checkouts (max_parallel 2)"
[ "$ok_runs" = "$(q main "SELECT count(*) FROM jobs WHERE kind = 'run' AND result = 'ok'")" ] &&
	ok "each ok run belongs to one done run job" || fail "each ok run belongs to one done run job"
expect_exit 0 "a third pass finds nothing new" "$FAULTLINE" watch --config "$tmp/main.yaml" --once
jobs=$(q main "SELECT count(*) FROM jobs")
expect_exit 0 "and a fourth" "$FAULTLINE" watch --config "$tmp/main.yaml" --once
[ "$(q main "SELECT count(*) FROM jobs")" = "$jobs" ] && ok "no tag is scheduled twice" || fail "no tag is scheduled twice"
[ "$(mails "$maildir")" = 1 ] && ok "still one mail" || fail "still one mail"
expect_exit 0 "queue show" "$FAULTLINE" queue show --config "$tmp/main.yaml"
expect_grep "$tmp/out" "box              online  0 infra errors in a row" "the machine is in the pool"
expect_grep "$tmp/out" "0 running, 0 queued, 0 waiting, 0 failed" "nothing left to do"
expect_exit 4 "queue enable: an unknown machine" "$FAULTLINE" queue enable nosuch --config "$tmp/main.yaml"
expect_grep "$tmp/err" "no machine 'nosuch'" "names it"
expect_exit 2 "watch: a bad option" "$FAULTLINE" watch --config "$tmp/main.yaml" --bogus
expect_exit 2 "watch: a bad configuration" "$FAULTLINE" watch --config "$tmp/nosuch.yaml" --once
expect_exit 0 "report show" "$FAULTLINE" report show 1 --config "$tmp/main.yaml"
expect_grep "$tmp/out" "mm: make things slower" "the stored report"

# ---- 3. a revert that conflicts --------------------------------------------
crepo="$tmp/crepo"
make_repo "$crepo" conflict 10
config conflict "$crepo" "$port"
$FAULTLINE watch --config "$tmp/conflict.yaml" --once >/dev/null 2>&1
make_repo "$crepo" conflict 30
cculprit=$(git_in "$crepo" rev-parse HEAD~7)
before=$(mails "$maildir")
expect_exit 0 "conflicting revert: still reported" "$FAULTLINE" watch --config "$tmp/conflict.yaml" --once
expect_grep "$tmp/err" "culprit $cculprit" "bisects to the commit that changed perf.conf"
expect_grep "$tmp/err" "does not revert cleanly onto v1.2; conflicts in:" "says the revert conflicts"
[ "$(q conflict "SELECT state || ' ' || conflicts FROM reverts")" = "conflict perf.conf" ] &&
	ok "the conflicting file is stored" || fail "the conflicting file is stored"
[ "$(mails "$maildir")" = $((before + 1)) ] && ok "one more mail" || fail "one more mail"
grep -l "Subject: \[demo\] \[mm\] ${cculprit%${cculprit#??????????}}" "$maildir"/new/* >"$tmp/cmail" 2>/dev/null
if [ -s "$tmp/cmail" ] && grep -q "does not revert cleanly on top of v1.2" "$(cat "$tmp/cmail")" &&
	grep -q "^	perf.conf$" "$(cat "$tmp/cmail")"; then ok "the report names the conflicting file"; else
	fail "the report names the conflicting file"; fi

# a repository where v1.1 and v1.2 exist from the start: the first pass tests v1.2
crash_repo="$tmp/crash-repo"
make_repo "$crash_repo" clean 30
crash_culprit=$(git_in "$crash_repo" rev-parse HEAD~7)

# the culprit's parent cannot be tested (exit 125): the answer is the range of both
skipped=$(git_in "$crash_repo" rev-parse HEAD~8)
config range "$crash_repo" "$port" "SKIP=$skipped"
before=$(mails "$maildir")
expect_exit 0 "an untestable neighbour: reported as a range" "$FAULTLINE" watch --config "$tmp/range.yaml" --once
expect_grep "$tmp/err" "cannot be tested" "the untestable commit is skipped"
[ "$(q range "SELECT result FROM bisections")" = range ] && ok "the bisection is a range" || fail "the bisection is a range"
[ "$(q range "SELECT count(*) FROM reverts")" = 0 ] && ok "no revert for a range" || fail "no revert for a range"
[ "$(mails "$maildir")" = $((before + 1)) ] && ok "one mail for the range" || fail "one mail for the range"
grep -l "since v1.1" "$maildir"/new/* >"$tmp/rmail" 2>/dev/null
if [ -s "$tmp/rmail" ] && grep -q "the bisection did not single out one commit (range)" "$(cat "$tmp/rmail")" &&
	grep -q "result: range ${skipped%${skipped#????????????}}..${crash_culprit%${crash_culprit#????????????}}" "$(cat "$tmp/rmail")"; then
	ok "the report names the range"; else fail "the report names the range"; fi

# ---- 3b. a merge-shaped history: the culprit inside a merged topic branch ----
# v1.0, a direct commit, topic-a (6 commits, its 4th adds "slow") merged, a
# direct commit, topic-b (5 clean commits) merged, v1.1
mrepo="$tmp/mrepo"
make_repo "$mrepo" clean 5
mcommit() { echo "$1" >"$mrepo/$1.txt"; [ -n "${2:-}" ] && echo slow >"$mrepo/slow"; git_in "$mrepo" add -A; git_in "$mrepo" commit -qm "$1"; }
mcommit direct-1
git_in "$mrepo" checkout -q -b topic-a
for i in 1 2 3 4 5 6; do mcommit "topic-a $i" $([ "$i" = 4 ] && echo slow); done
mculprit=$(git_in "$mrepo" rev-parse HEAD~2)
git_in "$mrepo" checkout -q master
git_in "$mrepo" merge -q --no-ff -m "Merge branch 'topic-a'" topic-a
mmerge=$(git_in "$mrepo" rev-parse HEAD)
mcommit direct-2
git_in "$mrepo" checkout -q -b topic-b
for i in 1 2 3 4 5; do mcommit "topic-b $i"; done
git_in "$mrepo" checkout -q master
git_in "$mrepo" merge -q --no-ff -m "Merge branch 'topic-b'" topic-b
git_in "$mrepo" tag v1.1
config merged "$mrepo" "$port"
before=$(mails "$maildir")
expect_exit 0 "a merge-shaped history: regression and bisection" "$FAULTLINE" watch --config "$tmp/merged.yaml" --once
expect_grep "$tmp/err" "bisect: regression 1: searching the branch merged by ${mmerge%${mmerge#????????????}}" "descends into the merged branch"
expect_grep "$tmp/err" "bisect: regression 1: culprit $mculprit in the branch merged by ${mmerge%${mmerge#????????????}}" "bisects to the commit inside it, not the merge"
[ "$(q merged "SELECT culprit FROM bisections")" = "$mculprit" ] && ok "the store holds that culprit" ||
	fail "the store holds that culprit (got $(q merged "SELECT culprit FROM bisections"))"
[ "$(q merged "SELECT count(*) FROM bisect_steps WHERE branch = '$mmerge'")" -gt 0 ] &&
	ok "the steps inside the branch name its merge" || fail "the steps inside the branch name its merge"
[ "$(q merged "SELECT json_extract(summary, '$.path[0].merge') FROM bisections")" = "$mmerge" ] &&
	ok "the summary holds the path" || fail "the summary holds the path"
[ "$(mails "$maildir")" = $((before + 1)) ] && ok "one mail for it" || fail "one mail for it"
grep -l "Subject: \[demo\] ${mculprit%${mculprit#??????????}}" "$maildir"/new/* >"$tmp/mmail" 2>/dev/null
if [ -s "$tmp/mmail" ] && grep -q "in the branch merged by ${mmerge%${mmerge#????????????}}" "$(cat "$tmp/mmail")"; then
	ok "the report says where the culprit is"; else fail "the report says where the culprit is"; fi

# ---- 4. crash safety ---------------------------------------------------------
# after: the culprit, no run counted twice, nothing run twice, one mail
check_recovered() { # NAME DB-NAME MAILS-BEFORE DISCARDED
	name=$1 db=$2
	[ "$(q "$db" "SELECT culprit FROM bisections")" = "$crash_culprit" ] && ok "$name: same culprit" ||
		fail "$name: same culprit (got $(q "$db" "SELECT culprit FROM bisections"))"
	[ "$(q "$db" "SELECT count(*) FROM (SELECT job_id FROM runs WHERE status = 'ok' GROUP BY job_id HAVING count(*) > 1) AS twice")" = 0 ] &&
		ok "$name: no job has two ok runs" || fail "$name: no job has two ok runs"
	[ "$(q "$db" "SELECT count(*) FROM runs WHERE status = 'ok'")" = "$(q "$db" "SELECT count(*) FROM jobs WHERE kind = 'run' AND result = 'ok' AND run_id IN (SELECT id FROM runs)")" ] &&
		ok "$name: ok runs = done run jobs" || fail "$name: ok runs = done run jobs"
	# the comparison's runs are the bisection's first steps (autobisect.c's seed)
	steps=$(q "$db" "SELECT count(*) FROM bisect_steps")
	bruns=$(q "$db" "SELECT count(*) FROM jobs WHERE role = 'bisect' AND state = 'done'")
	cruns=$(q "$db" "SELECT count(*) FROM jobs WHERE kind = 'run' AND result = 'ok' AND parent_id IN (SELECT id FROM jobs WHERE kind = 'compare')")
	# (those the confirmation needed: the rest are dropped once it goes on)
	[ "$steps" -gt "$bruns" ] && [ "$steps" -le $((bruns + cruns)) ] &&
		ok "$name: one bisection step per bisection run, and seeds from the comparison" ||
		fail "$name: $steps bisection steps, $bruns bisection runs, $cruns comparison runs"
	[ "$(q "$db" "SELECT count(*) FROM runs WHERE status = 'running'")" = 0 ] && ok "$name: no run left running" ||
		fail "$name: no run left running"
	invoked=$(wc -l <"$BENCH_LOG") stored=$(q "$db" "SELECT count(*) FROM runs")
	[ "$invoked" -le $((stored + $4)) ] && [ "$invoked" -ge "$stored" ] &&
		ok "$name: no finished run repeated ($invoked runs, $stored stored, $4 discarded)" ||
		fail "$name: no finished run repeated ($invoked runs, $stored stored, $4 discarded)"
	[ "$(mails "$maildir")" = $(($3 + 1)) ] && ok "$name: exactly one mail" || fail "$name: exactly one mail"
	[ "$(q "$db" "SELECT count(*) FROM reports")" = 1 ] && ok "$name: one report stored" || fail "$name: one report stored"
}

n=0
for point in run-stored:16 bisect-step:3 bisect-step:7 report-store:1; do
	n=$((n + 1))
	config "crash$n" "$crash_repo" "$port"
	: >"$BENCH_LOG"
	before=$(mails "$maildir")
	FAULTLINE_CRASH_AT=$point "$FAULTLINE" watch --config "$tmp/crash$n.yaml" --once >/dev/null 2>"$tmp/crash.err"
	got=$?
	[ "$got" = 137 ] && ok "$point: killed there" || { fail "$point: killed there (exit $got)"; cat "$tmp/crash.err"; }
	expect_exit 0 "$point: restart finishes" "$FAULTLINE" watch --config "$tmp/crash$n.yaml" --once
	discarded=$(sed -n 's/.*, \([0-9]*\) interrupted runs\{0,1\} discarded/\1/p' "$tmp/err")
	if [ "$point" = run-stored:16 ]; then
		[ "$discarded" = 1 ] && ok "$point: the run its job did not record is discarded" ||
			fail "$point: the run its job did not record is discarded ($discarded)"
	fi
	check_recovered "$point" "crash$n" "$before" "${discarded:-0}"
done

# SIGKILL from outside while a run is in flight, at three points of the
# bisection: once it has taken that many steps, the next run holds at a gate
# (the bench waits while $gate exists) and the kill lands there, however slow
# the machine (a run that ended before a kill from a poll was a flaky miss)
gate="$tmp/gate"
config crashrun "$crash_repo" "$port" "BENCH_GATE=$gate"
: >"$BENCH_LOG"
before=$(mails "$maildir")
discarded_total=0
for wait_steps in 2 5 8; do
	# a run of this process: the last one killed left its own 'running' row,
	# which this one discards once it starts
	last=$(q crashrun "SELECT coalesce(max(id), 0) FROM runs" 2>/dev/null)
	last=${last:-0}
	rm -f "$gate" "$gate.held"
	"$FAULTLINE" watch --config "$tmp/crashrun.yaml" --once >/dev/null 2>"$tmp/crash.err" &
	pid=$!
	for _ in $(seq 1200); do
		[ "$(q crashrun "SELECT count(*) FROM bisect_steps" 2>/dev/null)" -ge "$wait_steps" ] 2>/dev/null && break
		sleep 0.05
	done
	: >"$gate"
	for _ in $(seq 1200); do
		[ -s "$gate.held" ] && [ "$(q crashrun "SELECT count(*) FROM runs WHERE status = 'running' AND id > $last" 2>/dev/null)" -ge 1 ] 2>/dev/null && break
		sleep 0.05
	done
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	rm -f "$gate"
	[ "$(q crashrun "SELECT count(*) FROM runs WHERE status = 'running' AND id > $last")" -ge 1 ] &&
		ok "kill -9 lands during a run (after $wait_steps steps)" ||
		fail "kill -9 lands during a run (after $wait_steps steps)"
	d=$(sed -n 's/.*, \([0-9]*\) interrupted runs\{0,1\} discarded/\1/p' "$tmp/crash.err")
	discarded_total=$((discarded_total + ${d:-0}))
done
expect_exit 0 "killed during runs: restart finishes" "$FAULTLINE" watch --config "$tmp/crashrun.yaml" --once
d=$(sed -n 's/.*, \([0-9]*\) interrupted runs\{0,1\} discarded/\1/p' "$tmp/err")
discarded_total=$((discarded_total + ${d:-0}))
check_recovered "kill -9 during runs" crashrun "$before" "$discarded_total"

# ---- 5. the mail server down at first ----------------------------------------
smtp_stop
port2=$(free_port)
maildir2="$tmp/Maildir2"
config smtpdown "$crash_repo" "$port2"
"$FAULTLINE" watch --config "$tmp/smtpdown.yaml" >"$tmp/daemon.out" 2>"$tmp/daemon.err" &
daemon=$!
for _ in $(seq 600); do
	[ "$(q smtpdown "SELECT count(*) FROM reports WHERE attempts >= 1" 2>/dev/null)" = 1 ] && break
	sleep 0.1
done
[ "$(q smtpdown "SELECT state FROM reports")" = pending ] && ok "the report waits while the server is down" ||
	fail "the report waits while the server is down"
expect_grep "$tmp/daemon.err" "next try in" "the failure is logged with its retry"
smtp_start "$port2" "$maildir2" || fail "the second SMTP server starts"
for _ in $(seq 100); do
	[ "$(mails "$maildir2")" = 1 ] && break
	sleep 0.1
done
sleep 1.5
kill -TERM "$daemon"
wait "$daemon"
got=$?
[ "$got" = 0 ] && ok "the service stops on SIGTERM" || fail "the service stops on SIGTERM (exit $got)"
smtp_stop
[ "$(mails "$maildir2")" = 1 ] && ok "the report arrives once the server is up, once" ||
	fail "the report arrives once the server is up, once ($(mails "$maildir2"))"
[ "$(q smtpdown "SELECT state FROM reports")" = sent ] && ok "and is marked sent" || fail "and is marked sent"
finish
