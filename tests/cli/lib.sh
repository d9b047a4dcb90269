# lib.sh - helpers for the command-line tests (sourced). $FAULTLINE is the
# binary under test; the working directory is the source tree.
set -u
fails=0
passes=0
tmp=$(mktemp -d /tmp/fl-cli-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

ok()   { passes=$((passes + 1)); echo "ok - $1"; }
fail() { fails=$((fails + 1)); echo "not ok - $1"; }

# expect_exit CODE NAME CMD...: runs CMD, output in $tmp/out and $tmp/err.
expect_exit() {
	want=$1 name=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok "$name"; else
		fail "$name (exit $got, wanted $want)"; sed 's/^/  | /' "$tmp/err"; fi
}

# expect_grep FILE TEXT NAME: TEXT appears literally in FILE.
expect_grep() {
	if grep -qF -- "$2" "$1"; then ok "$3"; else
		fail "$3 ('$2' not in $(basename "$1"))"; sed 's/^/  | /' "$1"; fi
}

finish() {
	echo "$passes passed, $fails failed"
	[ "$fails" -eq 0 ]
}
