#!/bin/sh
# first-hour.sh - what a newcomer met in a first hour with a command machine
# (issue 39), on one watched repository, its mail and its pages:
#   one headline per regression: the mail's subject and first line,
#   "regression list" and "show", the log, the dashboard, the regression
#   and bisection pages give the same number (the tag against its
#   baseline), and a second number says what it compares (the culprit
#   against its parent, here 1.5% apart: an earlier commit in the range
#   slowed the tag down by 1.5% more, below min_change).
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
serve_stop

smtp_stop
finish
