# lib.sh - helpers for the command-line tests (sourced). $FAULTLINE is the
# binary under test; the working directory is the source tree.
set -u
fails=0
passes=0
tmp=$(mktemp -d /tmp/fl-cli-XXXXXX)

# ---- the end: nothing this script started outlives it ----------------------
# Whatever the script started and still runs (servers in the background,
# their children, a command left waiting) is stopped when it ends, however
# it ends: finish, a failed step, exit, or SIGINT/SIGTERM/SIGHUP (ctest's
# Ctrl-C). The processes are the script's descendants, found in ps; SIGTERM
# first, SIGKILL after 10 s (FL_TEST_STOP_WAIT). A timeout of ctest kills the whole tree itself
# (SIGKILL, no trap runs). at_exit CMD: CMD runs then too, once the
# processes are stopped (a pool to destroy). tests/leftovers.sh, after
# ctest, fails the run when a test's process outlived it all the same.
_fl_at_exit=
at_exit() { _fl_at_exit="$_fl_at_exit
$1"; }
# _fl_descendants PID: the running processes under PID (not zombies)
_fl_descendants() {
	ps -e -o pid= -o ppid= -o stat= >"$tmp/.ps" 2>/dev/null || return 0
	awk -v root="$1" '{ pid[NR] = $1; ppid[NR] = $2; zombie[NR] = $3 ~ /^Z/ }
		END {
			under[root] = 1
			do {
				more = 0
				for (i = 1; i <= NR; i++)
					if (!(pid[i] in under) && (ppid[i] in under)) { under[pid[i]] = 1; more = 1 }
			} while (more)
			for (i = 1; i <= NR; i++)
				if (pid[i] != root && (pid[i] in under) && !zombie[i]) print pid[i]
		}' "$tmp/.ps"
}
# _fl_alive PID: PID runs and is no zombie
_fl_alive() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
_fl_stop_descendants() {
	_fl_left=$(_fl_descendants $$)
	[ -n "$_fl_left" ] || return 0
	# shellcheck disable=SC2086
	kill -TERM $_fl_left 2>/dev/null
	_fl_i=0
	while [ $_fl_i -lt $((${FL_TEST_STOP_WAIT:-10} * 10)) ]; do
		_fl_run=
		for _fl_p in $_fl_left; do _fl_alive "$_fl_p" && _fl_run="$_fl_run $_fl_p"; done
		[ -n "$_fl_run" ] || return 0
		sleep 0.1
		_fl_i=$((_fl_i + 1))
	done
	echo "# still running ${FL_TEST_STOP_WAIT:-10} s after SIGTERM, killed:$_fl_run"
	# shellcheck disable=SC2086
	kill -KILL $_fl_run 2>/dev/null
	for _fl_p in $_fl_run; do
		_fl_i=0
		while _fl_alive "$_fl_p" && [ $_fl_i -lt 20 ]; do sleep 0.1; _fl_i=$((_fl_i + 1)); done
	done
}
_fl_exit() {
	_fl_rc=$?
	trap - EXIT INT TERM HUP
	# in AND-OR lists: a script's set -e must not end the cleanup halfway
	_fl_stop_descendants || true
	eval "$_fl_at_exit" || true
	rm -rf "$tmp"
	exit "$_fl_rc"
}
trap _fl_exit EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

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

# ---- the store: an SQLite file, or a PostgreSQL database -------------------
# Run through tests/pg-run.sh (ctest label pg, NAME_pg), FL_TEST_PG names a
# cluster and FL_TEST_PG_PREFIX this run's databases: each store a script
# names by its SQLite path is then a database of that cluster, made on first
# use under the prefix (pg-run.sh drops them all). Scripts name stores by
# path and ask these helpers for what goes into a configuration or --db.
fl_pg() { [ -n "${FL_TEST_PG:-}" ] && [ -n "${FL_TEST_PG_PREFIX:-}" ]; }

# fl_store PATH: PATH, or on PostgreSQL the URL of PATH's database (made
# the first time: the same PATH is the same database, and so is a symbolic
# link to it).
fl_store() {
	if ! fl_pg; then
		echo "$1"
		return 0
	fi
	_fl_path=$(readlink -f "$1") || _fl_path=$1
	_fl_db=${FL_TEST_PG_PREFIX}_$(printf %s "$_fl_path" | cksum | cut -d' ' -f1)
	# made once: a mark in $tmp saves the question on every later call
	if [ ! -e "$tmp/.pg-$_fl_db" ]; then
		_fl_have=$(psql -X "$FL_TEST_PG" -qAtc "SELECT count(*) FROM pg_database WHERE datname = '$_fl_db'") ||
			{ echo "fl_store: cannot reach $FL_TEST_PG" >&2; return 1; }
		if [ "$_fl_have" = 0 ]; then
			psql -X "$FL_TEST_PG" -qc "CREATE DATABASE $_fl_db" >/dev/null ||
				{ echo "fl_store: cannot make $_fl_db" >&2; return 1; }
		fi
		: >"$tmp/.pg-$_fl_db"
	fi
	echo "${FL_TEST_PG%/*}/$_fl_db"
}

# fl_store_yaml PATH: the configuration's store: { path: PATH } or { url: URL }.
fl_store_yaml() {
	if fl_pg; then echo "{ url: \"$(fl_store "$1")\" }"; else echo "{ path: $1 }"; fi
}

# fl_sql PATH SQL: SQL on the store of PATH, rows as sqlite3 prints them
# (columns joined by |, NULL empty). The scripts' SQL is SQLite's; what
# PostgreSQL says otherwise is taken to it here, and only here:
# group_concat(X, SEP) is string_agg, json_extract(COL, '$.PATH') a
# jsonpath query, a boolean t or f is 1 or 0.
fl_sql() {
	if ! fl_pg; then
		sqlite3 "$1" "$2"
		return
	fi
	_fl_url=$(fl_store "$1") || return 1
	printf '%s\n' "$2" | sed -e 's/group_concat(/string_agg(/g' \
		-e "s/json_extract(\([a-z_.]*\), *\('[^']*'\))/(jsonb_path_query_first(\1::jsonb, \2) #>> '{}')/g" |
		psql -X -v ON_ERROR_STOP=1 -qAt "$_fl_url" -f - | sed -e 's/^t$/1/' -e 's/^f$/0/'
}

# free_port: a free TCP port on loopback.
free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# smtp_start PORT MAILDIR: a real SMTP server (aiosmtpd), up when this
# returns (its pid in smtp_pid); smtp_stop ends it. When it does not come
# up, says why (its output is kept in MAILDIR.smtp.log).
smtp_start() {
	/usr/bin/python3 -m aiosmtpd -n -l "127.0.0.1:$1" -c aiosmtpd.handlers.Mailbox "$2" \
		>"$2.smtp.log" 2>&1 &
	smtp_pid=$!
	for _ in $(seq 100); do
		/usr/bin/python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 1)" 2>/dev/null && return 0
		kill -0 "$smtp_pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "# aiosmtpd on 127.0.0.1:$1 is not up ($(kill -0 "$smtp_pid" 2>/dev/null &&
		echo "still starting after 100 tries" || echo "it exited")); its output:"
	sed 's/^/#   /' "$2.smtp.log"
	return 1
}
smtp_stop() { kill "$smtp_pid" 2>/dev/null; wait "$smtp_pid" 2>/dev/null; }

# serve_start ARGS...: "faultline serve ARGS" (--db STORE, a path or
# fl_store's URL, or --config FILE) on a free loopback port, up when this
# returns, its base URL (with the trailing /) in serve_url; serve_stop ends it. page PATH: the page's body in
# $tmp/page (its status in $tmp/page.status, 0 when it did not answer).
serve_start() {
	"$FAULTLINE" serve "$@" --listen 127.0.0.1:0 >"$tmp/serve.out" 2>"$tmp/serve.err" &
	serve_pid=$!
	for _ in $(seq 100); do
		[ -s "$tmp/serve.out" ] && break
		kill -0 "$serve_pid" 2>/dev/null || break
		sleep 0.1
	done
	serve_url=$(head -1 "$tmp/serve.out")
	[ -n "$serve_url" ] || { echo "# serve did not start:"; sed 's/^/#   /' "$tmp/serve.err"; return 1; }
}
serve_stop() { kill "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; }
page() {
	/usr/bin/python3 - "$serve_url${1#/}" "$tmp/page" <<'PY'
import sys, urllib.error, urllib.request
try:
    with urllib.request.urlopen(sys.argv[1], timeout=10) as r:
        status, body = r.status, r.read()
except urllib.error.HTTPError as e:
    status, body = e.code, e.read()
except OSError:
    status, body = 0, b""
open(sys.argv[2], "wb").write(body)
open(sys.argv[2] + ".status", "w").write(str(status))
PY
}
