#!/bin/sh
# first-hour.sh - what a newcomer met in a first hour with a command machine
# (issue 39), on one watched repository, its mail and its pages:
#   one headline per regression: the mail's subject and first line,
#   "regression list" and "show", the log, the dashboard, the regression
#   and bisection pages give the same number (the tag against its
#   baseline), and a second number says what it compares (the culprit
#   against its parent, here 1.5% apart: an earlier commit in the range
#   slowed the tag down by 1.5% more, below min_change);
#   one numbering of a bisection's steps: the log's "step N (run R)" is the
#   bisection page's step N (counted from 1, as the report's table), whose
#   run is /run/R; the log says how many of the comparison's runs the
#   bisection took, and the page lists that many;
#   the smaller defects met on the way (item 8): faultline run's table for a
#   command, an error said once, a tree named once, the links of the mail
#   at web.listen, a try's words, a command benchmark's pages, /compare
#   without benchmark=, a failed command's reason on its run page,
#   "verifying it" said once, report list, regression show's bisection and
#   reports, replies that reopen, keep their words as the note and are
#   answered under themselves, mark fixed without --fix, Exit lines.
. tests/cli/lib.sh
. tests/cli/history.sh

# v1.0 at 1000, commit 9 at 985 (-1.5%), commit 14 at 885 (the culprit), v1.1
repo="$tmp/repo"
mkdir -p "$repo" && git_in "$repo" init -q
for i in $(seq 1 20); do
	case $i in 1) echo speed=1000 >"$repo/perf.conf" ;; 9) echo speed=985 >"$repo/perf.conf" ;;
	14) echo speed=885 >"$repo/perf.conf" ;; esac
	echo "$i" >"$repo/counter"
	git_in "$repo" add -A
	if [ "$i" -eq 14 ]; then git_in "$repo" commit -qm "mm: make things slower"; else git_in "$repo" commit -qm "commit $i"; fi
	[ "$i" -eq 5 ] && git_in "$repo" tag v1.0
done
git_in "$repo" tag v1.1
culprit=$(git_in "$repo" rev-parse HEAD~6)
export BENCH_LOG="$tmp/bench.log"

port=$(free_port)
wport=$(free_port)
smtp_start "$port" "$tmp/Maildir" || fail "the SMTP server starts"
cat >"$tmp/c.yaml" <<EOF
var: $tmp/var
store: $(fl_store_yaml "$tmp/fl.db")
trees:
  - { name: toy, url: $repo, tags: ["v*"], poll: 1s }
machines:
  - { name: local, backend: command, command: "$tmp/bench", timeout: 1m }
benchmarks:
  - { name: toybench, repeat: 3 }
report: { smtp: "smtp://127.0.0.1:$port", from: "faultline <robot@example.org>", to: [dev@example.org] }
web: { listen: "127.0.0.1:$wport" }
EOF
expect_exit 0 "watch --once: v1.1 against v1.0, bisected, mailed" "$FAULTLINE" watch --config "$tmp/c.yaml" --once
cp "$tmp/err" "$tmp/watch.err"
expect_grep "$tmp/watch.err" "bisect: regression 1: culprit $culprit" "bisected to the culprit"
[ "$(mails "$tmp/Maildir")" = 1 ] && ok "one mail" || fail "one mail ($(mails "$tmp/Maildir"))"
mail=$(ls "$tmp/Maildir/new/"* | head -1)
db=$(fl_store "$tmp/fl.db")

# ---- item 5: one headline ------------------------------------------------------
headline=$(sed -n 's/^Subject: .*toybench.value \([-+][0-9.]*%\) regression$/\1/p' "$mail")
[ -n "$headline" ] && ok "the subject's number: $headline" || fail "the subject has a number"
expect_exit 0 "regression list" "$FAULTLINE" regression list --config "$tmp/c.yaml"
expect_grep "$tmp/out" "value $headline" "regression list gives the subject's number"
expect_exit 0 "regression show 1" "$FAULTLINE" regression show 1 --config "$tmp/c.yaml"
expect_grep "$tmp/out" "value $headline (v1.1 against v1.0)" "regression show gives it, with what it compares"
expect_grep "$mail" "FYI, faultline noticed a $headline regression of toybench.value" "the mail's first line gives it"
expect_grep "$mail" "The headline $headline is the tag against its baseline: v1.1 against v1.0" \
	"the mail says what the headline compares"
expect_grep "$tmp/watch.err" "the regression's headline is $headline, v1.1 against v1.0" "the bisection's log gives it"
parent=$(sed -n "s/^The culprit against its parent: \([-+][0-9.]*%\), on the bisection's runs of the two.*/\1/p" "$mail")
[ -n "$parent" ] && [ "$parent" != "$headline" ] &&
	ok "the culprit against its parent is a second number, said as such ($parent)" ||
	fail "the culprit against its parent is a second number, said as such ('$parent', headline $headline)"
serve_start --config "$tmp/c.yaml" || fail "serve starts"
page /
expect_grep "$tmp/page" "<span class='num'>$headline</span>" "the dashboard's verdict gives it"
page regression/1
expect_grep "$tmp/page" "Regression 1: $headline" "the regression page's title gives it"
page bisect/1
expect_grep "$tmp/page" "$headline</strong>" "the bisection page gives it"

# ---- item 6: one numbering -----------------------------------------------------
# the log said "run 11" for a step, /run/11 was another run, the page counted
# steps from 0, and the log said 12 of the comparison's runs where the page
# listed 10
grep -q "bisect: regression 1: step [0-9]* (run [0-9]*): [0-9a-f]\{12\} -> " "$tmp/watch.err" &&
	ok "the log's steps name their run" || fail "the log's steps name their run"
page api/bisect/1
cp "$tmp/page" "$tmp/bisect.json"
page bisect/1
cp "$tmp/page" "$tmp/bisect.html"
$PY - "$tmp/watch.err" "$tmp/bisect.json" "$tmp/bisect.html" "$mail" <<'PY' && ok "the log's, the page's and the report's steps are the same steps" ||
import json, re, sys
log, api, html, mail = (open(f, encoding="utf-8", errors="replace").read() for f in sys.argv[1:])
steps = json.loads(api)["steps"]
def check(what, cond):
    if not cond:
        print("  | " + what)
        sys.exit(1)
check("the page's steps count from 1", [s["step"] for s in steps] == list(range(1, len(steps) + 1)))
check("no step 0 on the page", "id='step-0'" not in html and "id='step-1'" in html)
taken = re.search(r"bisect: regression 1: steps 1-(\d+) are (?:\d+ of )?the comparison's (\d+) runs", log)
check("the log says which steps are the comparison's runs", taken)
confirm = [s for s in steps if s["phase"] == "confirm"]
check("the page lists as many (%d) as the log says (%s)" % (len(confirm), taken.group(1)),
      len(confirm) == int(taken.group(1)) and [s["step"] for s in confirm] == list(range(1, len(confirm) + 1)))
said = re.findall(r"bisect: regression 1: step (\d+) \(run (\d+)\): ([0-9a-f]{12}) -> ", log)
check("the log said steps", said)
for step, run, sha in said:
    row = re.search(r"<tr id='step-%s'>(.*?)</tr>" % step, html, re.S)
    check("step %s is on the page" % step, row)
    check("step %s: the page's commit is the log's %s" % (step, sha), sha in row.group(1))
    check("step %s: the page links the log's run %s" % (step, run), "href='/run/%s'" % run in row.group(1))
table = re.findall(r"^\s+(\d+)  ([0-9a-f]{12})  ", mail[mail.index("  step  commit"):], re.M)
check("the report's table has every step", len(table) == len(steps))
for (n, sha), s in zip(table, steps):
    check("the report's step %s is the page's" % n, int(n) == s["step"] and s["commit"]["sha"].startswith(sha))
PY
	fail "the log's, the page's and the report's steps are the same steps"
page "regression/1"
cp "$tmp/page" "$tmp/regression.html"
page "compare?tree=toy&a=v1.0&b=v1.1"
cp "$tmp/page" "$tmp/compare.html"
cp "$tmp/page.status" "$tmp/compare.status"
page "compare?tree=toy&a=v1.0&b=v1.1&benchmark=toybench&machine=local"
cp "$tmp/page" "$tmp/compare-named.html"
serve_stop

# ---- item 8: smaller defects -------------------------------------------------------
# faultline run on a command machine printed nan ops/s and 0 runs
expect_exit 0 "run: a command machine" "$FAULTLINE" run --config "$tmp/c.yaml" --rev v1.1 --repeat 2
grep -q "^value  *[0-9.]*  *[0-9.]*%  *2$" "$tmp/out" && ! grep -q nan "$tmp/out" &&
	ok "run: the command's metric, its mean and its runs" || { fail "run: the command's metric, its mean and its runs"; sed 's/^/  | /' "$tmp/out"; }
# compare --b v9 printed its error twice with an empty tail
expect_exit 2 "compare: an unknown revision" "$FAULTLINE" compare --config "$tmp/c.yaml" --a v1.0 --b v9
[ "$(grep -c "unknown revision 'v9'" "$tmp/err")" = 1 ] && [ "$(grep -o "unknown revision 'v9'" "$tmp/err" | wc -l)" = 1 ] &&
	! grep -q "in the store: $" "$tmp/err" && ok "compare: the error is said once, with its tail" ||
	{ fail "compare: the error is said once, with its tail"; sed 's/^/  | /' "$tmp/err"; }
# errors said "tree 'toy': tree 'toy':"
sed "s|url: $repo|url: $tmp/gone|; s|var: $tmp/var|var: $tmp/var-gone|" "$tmp/c.yaml" >"$tmp/gone.yaml"
expect_exit 4 "watch: a tree that is gone" "$FAULTLINE" watch --config "$tmp/gone.yaml" --once
expect_grep "$tmp/err" "watch: tree 'toy': no such directory" "the tree is named"
grep -q "tree 'toy': tree 'toy'" "$tmp/err" && fail "the tree is named once" || ok "the tree is named once"
# report.url unset follows web.listen (every link said 127.0.0.1:8080)
expect_grep "$mail" "http://127.0.0.1:$wport/regression/1" "the mail's links are web.listen's"
grep -q "127.0.0.1:8080" "$mail" && fail "no link to 127.0.0.1:8080" || ok "no link to 127.0.0.1:8080"
# a command benchmark's pages: no ", , 1 tasks", no one-point scalability plot
expect_grep "$tmp/regression.html" "toybench on local, metric value" "the regression page says what was measured"
grep -q "on local, , " "$tmp/regression.html" && fail "no empty mode on the regression page" || ok "no empty mode on the regression page"
[ "$(cat "$tmp/compare.status")" = 200 ] && ok "/compare without benchmark= and machine= takes the only ones" ||
	{ fail "/compare without benchmark= and machine= ($(cat "$tmp/compare.status"))"; head -c 300 "$tmp/compare.html"; }
expect_grep "$tmp/compare.html" "toybench.value" "the compare page compares"
grep -q "toybench.value" "$tmp/compare-named.html" && ! grep -q "<h2>Scalability</h2>" "$tmp/compare-named.html" &&
	ok "no scalability plot for a command's one point" || fail "no scalability plot for a command's one point"
grep -q "[0-9]k</text>" "$tmp/bisect.html" && fail "the bisection page's scales are not clipped thousands" ||
	ok "the bisection page's scales are not clipped thousands"
# "verifying it" lines are detail after the first
[ "$(grep -c "info bisect: .*verifying it" "$tmp/watch.err")" = 1 ] && ok "the verification is said once" ||
	fail "the verification is said once ($(grep -c "verifying it" "$tmp/watch.err"))"
# report list, and regression show names its bisection and reports
expect_exit 0 "report list" "$FAULTLINE" report list --config "$tmp/c.yaml"
expect_grep "$tmp/out" "    1  sent     regression 1 " "report list lists the report"
expect_grep "$tmp/out" "[toy] [mm] $(echo "$culprit" | cut -c1-10): toybench.value $headline regression" "with its subject"
expect_exit 0 "regression show 1" "$FAULTLINE" regression show 1 --config "$tmp/c.yaml"
expect_grep "$tmp/out" "bisection: 1, culprit; http://127.0.0.1:$wport/bisect/1" "regression show names its bisection"
expect_grep "$tmp/out" "reports:   1, sent: [toy]" "and its report"
# regression mark fixed without --fix
expect_exit 2 "mark fixed without --fix" "$FAULTLINE" regression mark 1 fixed --config "$tmp/c.yaml"
expect_grep "$tmp/err" "'fixed' needs --fix REV" "says what fixed needs"
# a failed command: its reason on its run page
cat "$tmp/c.yaml" >"$tmp/broken.yaml"
sed -i "s|command: \"$tmp/bench\"|command: \"$tmp/no-such-bench\"|" "$tmp/broken.yaml"
expect_exit 1 "run: a broken command" "$FAULTLINE" run --config "$tmp/broken.yaml" --rev v1.1 --repeat 1
failed_run=$(fl_sql "$tmp/fl.db" "SELECT max(id) FROM runs WHERE status = 'agent-error'")
# a try of a fix against the regression: one word for each commit
fix_of() { git_in "$repo" rev-parse "$1"; }
git_in "$repo" checkout -q -b fix v1.1 && echo speed=1000 >"$repo/perf.conf" && git_in "$repo" commit -qam "mm: undo it" &&
	git_in "$repo" checkout -q master || fail "a fix branch"
expect_exit 0 "try a fix of regression 1" "$FAULTLINE" try --config "$tmp/c.yaml" --regression 1 --rev fix
expect_grep "$tmp/out" "base:    $(fix_of v1.1 | cut -c1-12) (the regression's bad commit, the fix's base)" "the try's answer: its base"
expect_grep "$tmp/out" "good:    $(fix_of v1.0 | cut -c1-12) (the regression's good commit)" "the try's answer: the good commit"
expect_grep "$tmp/err" "run: toybench base $(fix_of v1.1 | cut -c1-12) on local" "the try's log: its base, as the answer says"
expect_grep "$tmp/err" "run: toybench good $(fix_of v1.0 | cut -c1-12) on local" "the try's log: the good commit, as the answer says"
# replies: their words kept as the note, answered under themselves, reopen
mkdir -p "$tmp/Inbox/new" "$tmp/Inbox/cur" "$tmp/Inbox/tmp"
report_mid=$(fl_sql "$tmp/fl.db" "SELECT message_id FROM reports WHERE id = 1")
reply() { # N TEXT: reply N from the report's recipient
	$PY - "$tmp/Inbox/new/$(date +%s).$1.test" "$1" "$report_mid" "$2" <<'PY'
import sys, email.message, email.policy
path, n, irt, text = sys.argv[1:]
m = email.message.EmailMessage(policy=email.policy.SMTP)
m["From"], m["To"], m["Subject"] = "Dev <dev@example.org>", "robot@example.org", "Re: the report"
m["Message-ID"], m["In-Reply-To"], m["References"] = "<reply-%s@people.example>" % n, irt, irt
m.set_content(text.replace("\\n", "\n") + "\n\n> the report\n-- \nDev\n")
open(path, "wb").write(bytes(m))
PY
}
reply 1 "The box was busy that day.\n#faultline invalid"
expect_exit 0 "mail ingest: invalid" "$FAULTLINE" mail ingest --config "$tmp/c.yaml" "$tmp/Inbox"
[ "$(fl_sql "$tmp/fl.db" "SELECT state || '|' || state_note FROM regressions WHERE id = 1")" = "invalid|The box was busy that day." ] &&
	ok "the reply's words are the state's note" || fail "the reply's words are the state's note ($(fl_sql "$tmp/fl.db" "SELECT state, state_note FROM regressions"))"
reply 2 "It came back on v1.1 after all.\n#faultline reopen"
expect_exit 0 "mail ingest: reopen" "$FAULTLINE" mail ingest --config "$tmp/c.yaml" "$tmp/Inbox"
[ "$(fl_sql "$tmp/fl.db" "SELECT state || '|' || state_by || '|' || state_note FROM regressions WHERE id = 1")" = "open|dev@example.org|It came back on v1.1 after all." ] &&
	ok "#faultline reopen opens it again" || fail "#faultline reopen opens it again ($(fl_sql "$tmp/fl.db" "SELECT state, state_by, state_note FROM regressions"))"
$PY - "$tmp/Maildir" "$report_mid" <<'PY' && ok "each answer threads under the reply it answers" || fail "each answer threads under the reply it answers"
import email, email.policy, os, sys
d, report = sys.argv[1] + "/new", sys.argv[2]
ms = [email.message_from_binary_file(open(os.path.join(d, f), "rb"), policy=email.policy.default) for f in os.listdir(d)]
for n in (1, 2):
    reply = "<reply-%d@people.example>" % n
    ans = [m for m in ms if "faultline read 1 command from dev@example.org in %s" % reply in m.get_content()]
    assert len(ans) == 1, (n, len(ans))
    assert ans[0]["In-Reply-To"] == reply, ans[0]["In-Reply-To"]
    assert ans[0]["References"].split() == [report, reply], ans[0]["References"]
PY
# the Exit line of every command's help
for c in queue mail regression report; do
	expect_exit 0 "$c --help" "$FAULTLINE" "$c" --help
	expect_grep "$tmp/out" "Exit: 0 " "$c --help has an Exit line"
done
serve_start --config "$tmp/c.yaml" || fail "serve starts again"
page "run/$failed_run"
expect_grep "$tmp/page" "agent-error</span> (the command failed): <span class='detail'>exit 127: " \
	"a failed command's reason is on its run page"
serve_stop

smtp_stop
finish

