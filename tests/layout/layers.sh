# layers.sh - the layering of orchestrator/ (orchestrator/CMakeLists.txt):
# each folder includes headers only from the folders below it, and no .c
# file other than main.c sits directly in orchestrator/.
. tests/cli/lib.sh

# folder: the folders its files may include besides its own
allowed() {
	case $1 in
	lib) echo "proto" ;; # proto/error.h, the convention fl-agent shares
	config) echo "lib proto" ;;
	analysis) echo "lib config proto" ;;
	store) echo "lib" ;;
	build) echo "lib config store" ;;
	machine) echo "lib config proto analysis store build" ;;
	service) echo "lib config proto analysis store build machine" ;;
	web) echo "lib config analysis store service" ;;
	builtin) echo "lib config proto analysis store build machine service web" ;;
	esac
}

# Crossings not yet undone by the reorganisation (issue 15); each goes
# when its fix lands. The list must only shrink.
known='
'

for dir in lib config analysis store build machine service web builtin; do
	ok_dirs="$dir $(allowed $dir)"
	for f in orchestrator/$dir/*.[ch]; do
		grep -o '#include "[^"]*"' "$f" | sed 's/#include "\(.*\)"/\1/' |
			while read -r inc; do
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

# proto/ is shared with fl-agent: it includes nothing of either side.
if grep -l '#include "' proto/*.[ch] | xargs grep -h '#include "' | grep -v '"proto/' >"$tmp/proto"; then
	fail "proto/ includes outside proto/"
	cat "$tmp/proto"
else
	ok "proto/ includes only proto/"
fi
finish
