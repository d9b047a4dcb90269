#!/bin/sh
# help.sh - every command listed by "faultline help" answers --help, -h and
# "faultline help CMD" with the same full help (exit 0), and that help names
# every option the command parses (read from its builtin/CMD.c); docs/cli.md
# has the command's usage as its heading and names every option of its
# help; an unknown option exits 2 pointing at the help; --version prints
# CMake's project version. The same for fl-agent's modes.
. tests/cli/lib.sh

expect_exit 0 "faultline help" "$FAULTLINE" help
cp "$tmp/out" "$tmp/list"
cmds=$(sed -n '/^commands:/,/^$/p' "$tmp/list" | awk 'NR > 1 && NF { print $1 }')
n=$(echo "$cmds" | wc -w)
[ "$n" -ge 15 ] && ok "faultline help lists $n commands" || fail "faultline help lists $n commands"
for c in initramfs records queue report serve watch try; do
	echo "$cmds" | grep -qx "$c" && ok "help lists $c" || fail "help lists $c"
done

# The long options a builtin parses (in the file defining its struct
# fl_command): getopt_long tables, strcmp(argv[i],
# "--x") loops, and the shared --config/--db (and --json) of
# fl_store_opts_parse().
options_of() {
	f=$(grep -l "^ *\.name = \"$1\"," orchestrator/builtin/*.c) # the file that defines it
	{
		grep -o '{"[a-z][a-z-]*", *[a-z]*_argument' "$f" | sed 's/{"\([a-z-]*\)".*/--\1/'
		grep -o 'strcmp(argv\[i\], "--[a-z-]*")' "$f" | sed 's/.*"\(--[a-z-]*\)".*/\1/'
		grep -q fl_store_opts_parse "$f" && printf -- '--config\n--db\n'
		grep -q FL_STORE_OPTS_JSON "$f" && echo --json
	} | sort -u
}

for c in $cmds; do
	expect_exit 0 "help $c exits 0" "$FAULTLINE" help "$c"
	cp "$tmp/out" "$tmp/help.$c"
	[ "$(wc -l <"$tmp/help.$c")" -ge 4 ] && ok "help $c is more than a usage line" ||
		fail "help $c is more than a usage line"
	expect_grep "$tmp/help.$c" "usage: faultline $c" "help $c starts with its usage"
	for flag in --help -h; do
		expect_exit 0 "$c $flag exits 0" "$FAULTLINE" "$c" "$flag"
		cmp -s "$tmp/out" "$tmp/help.$c" && ok "$c $flag prints help $c" ||
			fail "$c $flag prints help $c"
	done
	opts=$(options_of "$c")
	[ "$c" = help ] || [ -n "$opts" ] || [ "$c" = config ] || [ "$c" = records ] ||
		fail "$c: no options found in orchestrator/builtin/$c.c"
	for o in $opts; do
		[ "$o" = --help ] && continue
		grep -q -- "^ *$o\\b" "$tmp/help.$c" && ok "help $c explains $o" ||
			fail "help $c explains $o"
	done
	grep -q -- "-h, --help" "$tmp/help.$c" && ok "help $c lists -h, --help" ||
		fail "help $c lists -h, --help"
	# docs/cli.md (and faultline(1), made from it) says the usage the
	# command prints, and names every option its help lists.
	usage=$(sed -n '1s/^usage: faultline //p' "$tmp/help.$c")
	grep -qxF "### \`faultline $usage\`" docs/cli.md &&
		ok "docs/cli.md's heading for $c is its usage" ||
		fail "docs/cli.md's heading for $c is its usage: ### \`faultline $usage\`"
	awk -v h="### \`faultline $usage\`" '$0 == h { on = 1; print; next } /^#/ { on = 0 } on' \
		docs/cli.md >"$tmp/doc.$c"
	for o in $(grep -o -- '^ *--[a-z][a-z-]*' "$tmp/help.$c" | sort -u); do
		[ "$o" = --help ] && continue
		grep -q -- "$o\b" "$tmp/doc.$c" && ok "docs/cli.md's $c section names $o" ||
			fail "docs/cli.md's $c section names $o (help $c lists it)"
	done
	expect_exit 2 "$c --no-such-option exits 2" "$FAULTLINE" "$c" --no-such-option
	expect_grep "$tmp/err" "faultline help" "$c --no-such-option points at the help"
done

# Subcommands answer the same help, before or after their operands.
for args in "db init" "db migrate" "queue show" "queue enable" "report show" "config check" \
	"bisect run"; do
	c=${args%% *}
	expect_exit 0 "$args --help exits 0" "$FAULTLINE" $args --help
	cmp -s "$tmp/out" "$tmp/help.$c" && ok "$args --help prints help $c" ||
		fail "$args --help prints help $c"
done
expect_exit 0 "report show 7 -h exits 0" "$FAULTLINE" report show 7 -h
# A command after bisect's "--" keeps its own --help.
expect_exit 2 "bisect run -- CMD --help is not bisect's help" \
	"$FAULTLINE" bisect run --good a -- sh --help
expect_exit 2 "help no-such-command exits 2" "$FAULTLINE" help no-such-command
expect_exit 2 "an unknown global option exits 2" "$FAULTLINE" --no-such-option
expect_exit 0 "faultline --help" "$FAULTLINE" --help
cmp -s "$tmp/out" "$tmp/list" && ok "--help prints help" || fail "--help prints help"
for o in --verbose --quiet --config --version --help; do
	expect_grep "$tmp/list" "$o" "help lists the global option $o"
done

version=$(sed -n 's/^project(faultline VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
expect_exit 0 "faultline --version" "$FAULTLINE" --version
[ "$(cat "$tmp/out")" = "faultline $version" ] && ok "--version prints faultline $version" ||
	fail "--version prints '$(cat "$tmp/out")', wanted 'faultline $version'"

# fl-agent: one help for its modes, naming every option it parses.
agent=$FL_BUILD_DIR/agents/fl-agent
expect_exit 0 "fl-agent --help" "$agent" --help
cp "$tmp/out" "$tmp/agent"
for args in "-h" "help" "bench --help" "daemon --help" "guest --help"; do
	expect_exit 0 "fl-agent $args exits 0" "$agent" $args
	cmp -s "$tmp/out" "$tmp/agent" && ok "fl-agent $args prints its help" ||
		fail "fl-agent $args prints its help"
done
for o in $( { grep -o 'strcmp(a, "--[a-z-]*")' agents/daemon.c
	grep -o 'strcmp(argv\[[0-9i]\], "--[a-z-]*")' agents/fl-agent.c; } |
	sed 's/.*"\(--[a-z-]*\)".*/\1/' | sort -u); do
	[ "$o" = --help ] || [ "$o" = --version ] && continue
	grep -q -- "^ *$o\\b" "$tmp/agent" && ok "fl-agent help explains $o" ||
		fail "fl-agent help explains $o"
done
for k in test mode tasks warmup duration memory placement cgroup; do
	expect_grep "$tmp/agent" "--$k" "fl-agent help explains bench --$k"
done
expect_exit 0 "fl-agent --version" "$agent" --version
[ "$(cat "$tmp/out")" = "fl-agent $version" ] && ok "fl-agent --version" ||
	fail "fl-agent --version prints '$(cat "$tmp/out")'"
expect_exit 2 "fl-agent --no-such-option exits 2" "$agent" --no-such-option
expect_grep "$tmp/err" "fl-agent --help" "fl-agent usage points at its help"
finish
