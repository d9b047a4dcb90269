# layers.sh - the layering of orchestrator/ (orchestrator/CMakeLists.txt):
# each folder includes headers only from the folders below it, and no .c
# file other than main.c sits directly in orchestrator/. fl-agent's code,
# agents/, includes only itself and proto/; proto/ only itself; and no
# circle runs between the files of agents/ or of proto/.
. tests/cli/lib.sh

# The quoted includes of a file, one per line.
includes() {
	grep -o '#include "[^"]*"' "$1" | sed 's/#include "\(.*\)"/\1/'
}

# folder: the folders its files may include besides its own
allowed() {
	case $1 in
	lib) echo "proto" ;; # proto/error.h, the convention fl-agent shares
	config) echo "lib proto" ;;
	analysis) echo "lib config proto" ;;
	store) echo "lib" ;;
	build) echo "lib config store" ;;
	machine) echo "lib config proto analysis build" ;;
	dispatch) echo "lib config proto analysis store build machine" ;;
	service) echo "lib config proto analysis store build machine dispatch" ;;
	web) echo "lib config analysis store machine service" ;;
	builtin) echo "lib config proto analysis store build machine dispatch service web" ;;
	esac
}

# Crossings not yet undone by the reorganisation (issue 15); each goes
# when its fix lands. The list must only shrink.
known='
'

for dir in lib config analysis store build machine dispatch service web builtin; do
	ok_dirs="$dir $(allowed $dir)"
	for f in orchestrator/$dir/*.[ch]; do
		includes "$f" | while read -r inc; do
			top=${inc%%/*}
			[ "$top" = "$inc" ] && { echo "$f: \"$inc\" names no folder"; continue; }
			case " $ok_dirs " in *" $top "*) ;; *) echo "$f: includes $inc" ;; esac
		done
	done
done | while read -r line; do
	case "$known" in *"
$line
"*) ;; *) echo "$line" ;; esac
done >"$tmp/violations"
if [ -s "$tmp/violations" ]; then
	fail "layering: $(wc -l <"$tmp/violations") includes cross a layer upwards"
	cat "$tmp/violations"
else
	ok "every folder includes only the layers below it"
fi

stray=$(ls orchestrator/*.c orchestrator/*.h 2>/dev/null | grep -v '^orchestrator/main\.c$' || true)
if [ -n "$stray" ]; then
	fail "files directly in orchestrator/: $stray"
else
	ok "only main.c directly in orchestrator/"
fi

# fl-agent is a program of its own (fl-agent-static an initramfs's only
# file): agents/ includes itself and proto/. proto/ is shared with the
# orchestrator too: it includes nothing of either side.
for f in $(find agents proto -name '*.[ch]' | sort); do
	case $f in agents/*) ok_dirs="agents proto" ;; *) ok_dirs="proto" ;; esac
	includes "$f" | while read -r inc; do
		top=${inc%%/*}
		[ "$top" = "$inc" ] && { echo "$f: \"$inc\" names no folder"; continue; }
		case " $ok_dirs " in *" $top "*) ;; *) echo "$f: includes $inc" ;; esac
	done
done >"$tmp/agents"
if [ -s "$tmp/agents" ]; then
	fail "agents/ includes outside agents/ and proto/, or proto/ outside proto/"
	cat "$tmp/agents"
else
	ok "agents/ includes only agents/ and proto/, proto/ only proto/"
fi

# Circles between files, from the includes: a file is its .c and its .h
# (a header belongs to the .c of its name; header-only ones stand alone),
# and an include of another file of the scanned folders is an arrow to
# it. tsort names the files of a circle.
circles() {
	for f in $(find "$@" -name '*.[ch]' | sort); do
		echo "${f%.?} ${f%.?}"
		includes "$f" | while read -r inc; do
			case " $* " in *" ${inc%%/*} "*) echo "${f%.?} ${inc%.?}" ;; esac
		done
	done | tsort 2>&1 >/dev/null | grep -v 'input contains a loop' | sed 's/^tsort: //'
}
for dir in agents proto; do
	circles $dir >"$tmp/circles"
	if [ -s "$tmp/circles" ]; then
		fail "a circle between files of $dir/: $(echo $(cat "$tmp/circles"))"
	else
		ok "no circle between files of $dir/"
	fi
done
finish
