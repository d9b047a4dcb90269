#!/bin/sh
# args.sh - every command "faultline help" lists (read from it, not written
# here), under each subcommand its help names, refuses a wrong argument
# with exit 2 and a reason on standard error that names the option: an
# unknown long or short option, each option its help shows with a value
# (--opt VALUE) given none, an empty one, or "--opt=" (issue 39: "bisect
# run --god" crashed). Never a crash: in the ASan build a crash, a leak or
# undefined behaviour exits otherwise. Run in an empty directory, so that a
# refusal that came too late would meet no configuration or store. Then
# "bisect run"'s own argument errors, each said (issue 39, item 7), and
# --min-change written as the configuration writes it (5%).
. tests/cli/lib.sh

mkdir "$tmp/empty"
fl() { (cd "$tmp/empty" && exec timeout 60 "$FAULTLINE" "$@"); }

# expect_refused NAME WHAT ARGS...: exit 2, WHAT on standard error.
expect_refused() {
	name=$1 what=$2
	shift 2
	fl "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne 2 ]; then
		fail "$name: exit $got, wanted 2"
		sed 's/^/  | /' "$tmp/err"
	elif ! grep -qF -- "$what" "$tmp/err"; then
		fail "$name: standard error does not name $what"
		sed 's/^/  | /' "$tmp/err"
	else
		ok "$name"
	fi
}

fl help >"$tmp/list" || fail "faultline help"
cmds=$(sed -n '/^commands:/,/^$/p' "$tmp/list" | awk 'NR > 1 && NF { print $1 }')
[ "$(echo "$cmds" | wc -w)" -ge 15 ] && ok "faultline help lists $(echo $cmds | wc -w) commands" ||
	fail "faultline help lists too few commands: $cmds"

for c in $cmds; do
	fl help "$c" >"$tmp/help" || fail "help $c"
	# subcommands: the "subcommands:" section of the help, else the word
	# after the command in its usage line when it is one ("bisect run",
	# "config check"); none for a command that takes operands or options
	subs=$(sed -n '/^subcommands:/,/^$/s/^  \([a-z][a-z-]*\)\( .*\)\{0,1\}$/\1/p' "$tmp/help")
	[ -n "$subs" ] || subs=$(sed -n "1s/^usage: faultline $c \\([a-z][a-z|]*\\)\\( .*\\)\\{0,1\\}\$/\\1/p" \
		"$tmp/help" | tr '|' ' ')
	# options with a value: "  --name VALUE ..." lines of the help
	valued=$(sed -n 's/^ *\(--[a-z][a-z-]*\) [A-Z][^ ]*.*/\1/p' "$tmp/help" | sort -u)
	expect_refused "$c --no-such-option" "--no-such-option" "$c" --no-such-option
	for s in ${subs:-""}; do
		at="$c${s:+ $s}"
		expect_refused "$at --no-such-option" "--no-such-option" "$c" $s --no-such-option
		expect_refused "$at -Z" "Z" "$c" $s -Z
		for o in $valued; do
			expect_refused "$at $o (no value)" "$o" "$c" $s "$o"
			expect_refused "$at $o ''" "$o" "$c" $s "$o" ""
			expect_refused "$at $o=" "$o" "$c" $s "$o="
		done
	done
done

# The commands of issue 39 by name.
expect_refused "bisect run --god v1.0 --bad v1.1 -- ./bench.sh" "--god" \
	bisect run --god v1.0 --bad v1.1 -- ./bench.sh
expect_refused "bisect run --frob" "--frob" bisect run --frob
expect_refused "bisect run -x" "x" bisect run -x
expect_refused "bisect run --good (no value)" "--good" bisect run --good
expect_refused "bisect run --db (no value)" "--db" bisect run --good a --bad b --db

# Options that go together, and operands, said as such.
expect_refused "db init --json" "--json is not an option of db" db init --json
expect_refused "try --rev REV alone" "--regression ID or --base REV is needed" try --rev v1
expect_refused "try --patch and --rev" "the fix is one of --patch FILE or --rev REV" \
	try --base v1 --rev v2 --patch p.diff
expect_refused "try --resume with --rev" "--resume ID takes no --patch, --rev" \
	try --resume 1 --rev v2
expect_refused "try --regression x" "--regression: an id is a positive number, got 'x'" \
	try --regression x --rev v2
expect_refused "regression mark --dup x" "--dup: a regression id is a positive number, got 'x'" \
	regression mark 1 duplicate --dup x
expect_refused "watch with an operand" "watch: takes no operand, got 'now'" watch now

# ---- bisect run: what is wrong is said, not only the usage (issue 39, item 7) ----
# Four commits; bench.sh is in each (not in the directory it runs from: it
# is taken from each checkout) and prints perf: 100, 100, 97, 97.
repo=$tmp/repo
git init -q "$repo"
printf '#!/bin/sh\ncat perf\n' >"$repo/bench.sh"
chmod +x "$repo/bench.sh"
for v in 100 100 97 97; do
	echo $v >"$repo/perf"
	git -C "$repo" add -A
	git -C "$repo" -c user.email=t@example.com -c user.name=test commit -q --allow-empty \
		-m "perf $v"
done
drop=$(git -C "$repo" rev-parse HEAD~1)
at="--repo $repo --good HEAD~3"
expect_refused "bisect run without --bad" "--bad REV is needed" bisect run $at -- ./bench.sh
expect_refused "bisect run without --good" "--good REV is needed" \
	bisect run --repo "$repo" --bad HEAD -- ./bench.sh
expect_refused "bisect run without a command" "no command to run" bisect run $at --bad HEAD
expect_refused "bisect run --direction up" "--direction: 'up' is not higher or lower" \
	bisect run $at --bad HEAD --direction up -- ./bench.sh
expect_refused "bisect run --confidence 95" "--confidence: 95 is not between 0 and 1" \
	bisect run $at --bad HEAD --confidence 95 -- ./bench.sh
expect_refused "bisect run --mode exitcode" "--mode: 'exitcode' is not values or exit-code" \
	bisect run $at --bad HEAD --mode exitcode -- ./bench.sh
expect_refused "bisect run --min-change 5x" "--min-change: '5x' is not a number" \
	bisect run $at --bad HEAD --min-change 5x -- ./bench.sh
expect_refused "bisect run --max-runs 0" "--max-runs: 0 is not a whole number" \
	bisect run $at --bad HEAD --max-runs 0 -- ./bench.sh
# a command that is nowhere is refused at once (docs/cli.md), not run
expect_refused "bisect run -- ./no-such.sh" \
	"cannot run './no-such.sh': it is neither in the current directory nor in the good or the bad commit" \
	bisect run $at --bad HEAD -- ./no-such.sh
grep -q "run 1 of\|cannot be tested" "$tmp/err" && fail "./no-such.sh is not tried" ||
	ok "./no-such.sh is not tried"
# --min-change as the configuration writes it: 5% is 5
fl bisect run $at --bad HEAD --min-change 5% -- ./bench.sh >"$tmp/out" 2>"$tmp/err"
got=$?
[ $got = 1 ] && ok "--min-change 5%: a 3% drop is below it (exit 1)" ||
	{ fail "--min-change 5%: exit $got, wanted 1"; sed 's/^/  | /' "$tmp/err"; }
grep -qF "below --min-change 5%" "$tmp/out" && ok "--min-change 5% is 5%" ||
	{ fail "--min-change 5% is 5%"; sed 's/^/  | /' "$tmp/out"; }
fl bisect run $at --bad HEAD --min-change 2% --confidence 95% -- ./bench.sh >"$tmp/out" 2>"$tmp/err"
got=$?
[ $got = 0 ] && ok "--min-change 2% --confidence 95%: bisected (exit 0)" ||
	{ fail "--min-change 2% --confidence 95%: exit $got, wanted 0"; sed 's/^/  | /' "$tmp/err"; }
grep -q "^culprit $drop" "$tmp/out" && ok "the culprit is the drop" ||
	{ fail "the culprit is the drop ($drop)"; sed 's/^/  | /' "$tmp/out"; }
grep -qF "bench.sh is not in the current directory: it is run from each commit's checkout" \
	"$tmp/err" && ok "bench.sh is taken from each checkout" ||
	fail "bench.sh is taken from each checkout"
finish
