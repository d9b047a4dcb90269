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
#   bisection took, and the page lists that many.
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
serve_start "$db" || fail "serve starts"
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
serve_stop

smtp_stop
finish
