#!/bin/sh
# man.sh - the man pages pandoc made from the docs (build/man/) render with
# man(1) (at 80 columns too, without a troff warning or a hyphenated URL),
# carry their sections and the reference they are built from, and
# faultline(1) names every command; the bash completion script completes
# commands, subcommands and options from the programs' own help.
. tests/cli/lib.sh

man=$FL_BUILD_DIR/man
"$FAULTLINE" help | awk '/^commands:/ { on = 1; next } on && NF == 0 { on = 0 } on { print $1 }' \
	>"$tmp/cmds"
for page in faultline.1 faultline.yaml.5 fl-agent.8; do
	if [ ! -f "$man/$page" ]; then
		fail "$page built (pandoc: scripts/install-deps.sh)"
		continue
	fi
	MANWIDTH=100 man -l "$man/$page" >"$tmp/$page.txt" 2>"$tmp/$page.err" &&
		ok "$page renders" || fail "$page renders"
	for s in NAME SYNOPSIS DESCRIPTION "SEE ALSO"; do
		grep -q "^$s" "$tmp/$page.txt" && ok "$page has $s" || fail "$page has $s"
	done
	grep -q "^faultline $(sed -n 's/^project(faultline VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt) " \
		"$tmp/$page.txt" && ok "$page names the version" || fail "$page names the version"
	# at a terminal's 80 columns: no troff warning, no word (a URL) hyphenated
	MANWIDTH=80 man -l "$man/$page" >"$tmp/$page.80" 2>"$tmp/$page.80.err"
	[ ! -s "$tmp/$page.80.err" ] && ok "$page renders at 80 columns without a warning" ||
		{ fail "$page renders at 80 columns without a warning ($(wc -l <"$tmp/$page.80.err"))"; head -3 "$tmp/$page.80.err"; }
	grep -q '‐$' "$tmp/$page.80" && fail "$page splits no word at 80 columns" ||
		ok "$page splits no word at 80 columns"
done
expect_grep "$tmp/faultline.yaml.5.80" "(https://git.kernel.org/pub/scm/linux/kernel/" "a URL is not hyphenated"
for c in $(cat "$tmp/cmds"); do
	grep -Eq "faultline +$c\b" "$tmp/faultline.1.txt" && ok "faultline(1) has faultline $c" ||
		fail "faultline(1) has faultline $c"
done
expect_grep "$tmp/faultline.1.txt" "--listen" "faultline(1) has the options (docs/cli.md)"
expect_grep "$tmp/faultline.yaml.5.txt" "web.root" "faultline.yaml(5) has the keys (docs/config.md)"
expect_grep "$tmp/fl-agent.8.txt" "FL-HMAC-SHA256" "fl-agent(8) has the protocol (docs/baremetal.md)"
expect_grep "$tmp/fl-agent.8.txt" "/etc/default/fl-agent" "fl-agent(8) names its unit's files"

# bash completion, driven as bash drives it.
if command -v bash >/dev/null; then
	cat >"$tmp/comp.bash" <<'SH'
PATH=$FL_BUILD_DIR/orchestrator:$FL_BUILD_DIR/agents:$PATH
. dist/bash-completion/faultline
t() { f=$1; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
	"$f"; echo "${COMP_WORDS[*]} -> ${COMPREPLY[*]}"; }
t _faultline faultline ru
t _faultline faultline serve --li
t _faultline faultline db ''
t _faultline faultline queue show --
t _faultline faultline --config x.yaml compa
t _faultline faultline help initr
t _faultline faultline --vers
t _fl_agent fl-agent da
t _fl_agent fl-agent daemon --token
SH
	FL_BUILD_DIR=$FL_BUILD_DIR bash "$tmp/comp.bash" >"$tmp/comp" 2>&1
	for want in "faultline ru -> run" "faultline serve --li -> --listen" \
		"faultline db  -> init migrate" "faultline queue show -- -> --config --db --failed --help --json" \
		"faultline --config x.yaml compa -> compare" "faultline help initr -> initramfs" \
		"faultline --vers -> --version" "fl-agent da -> daemon" \
		"fl-agent daemon --token -> --token-file"; do
		grep -qxF -- "$want" "$tmp/comp" && ok "completion: $want" ||
			{ fail "completion: $want"; sed 's/^/  | /' "$tmp/comp"; }
	done
fi
finish
