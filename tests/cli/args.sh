#!/bin/sh
# args.sh - every command "faultline help" lists (read from it, not written
# here), under each subcommand its help names, refuses a wrong argument
# with exit 2 and a reason on standard error that names the option: an
# unknown long or short option, each option its help shows with a value
# (--opt VALUE) given none, an empty one, or "--opt=" (issue 39: "bisect
# run --god" crashed). Never a crash: in the ASan build a crash, a leak or
# undefined behaviour exits otherwise. Run in an empty directory, so that a
# refusal that came too late would meet no configuration or store.
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
finish
