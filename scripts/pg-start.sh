#!/bin/sh
# pg-start.sh - a throw-away PostgreSQL 15 cluster for the tests labelled pg:
# initdb in a temporary directory, listening on loopback only (127.0.0.1, a
# free port, trust authentication: tests only; SQL_ASCII and the C locale,
# as faultline's store wants), started with pg_ctl; "start"
# prints its URL (postgresql://fl@127.0.0.1:PORT/postgres; each test makes
# and drops its own databases there), "stop" stops and removes only the
# cluster a "start" with the same state file made.
#
#   scripts/pg-start.sh start|stop|url
#
# The state file ($FL_PG_STATE, default /tmp/faultline-pg.state) holds the
# cluster's directory and port. As root the cluster runs as the postgres
# user (initdb refuses a root-owned directory). Debian's postgresql package
# puts its programs in /usr/lib/postgresql/15/bin ($FL_PG_BIN).
set -eu
cmd=${1:-start}
state=${FL_PG_STATE:-/tmp/faultline-pg.state}
# The cluster is a service that outlives a test starting it, not one of the
# test's processes (the marks tests/leftovers.py looks for after ctest).
unset FL_TEST_RUN FL_TEST_NAME
bin=${FL_PG_BIN:-/usr/lib/postgresql/15/bin}

as_pg() {
	if [ "$(id -u)" -eq 0 ]; then
		su postgres -s /bin/sh -c "$1"
	else
		sh -c "$1"
	fi
}

url() { echo "postgresql://fl@127.0.0.1:$1/postgres"; }

case "$cmd" in
start)
	if [ -s "$state" ]; then
		read -r dir port <"$state"
		# a postmaster.pid whose process is gone (the machine restarted, the
		# server was killed) is no cluster: a new one is made
		if [ -f "$dir/pg/postmaster.pid" ] &&
			kill -0 "$(head -n1 "$dir/pg/postmaster.pid")" 2>/dev/null; then
			url "$port"
			exit 0
		fi
		case "$dir" in /tmp/fl-pg-*) rm -rf "$dir" ;; esac
	fi
	[ -x "$bin/initdb" ] || {
		echo "pg-start: no $bin/initdb (apt-get install postgresql)" >&2
		exit 1
	}
	dir=$(mktemp -d /tmp/fl-pg-XXXXXX)
	mkdir "$dir/pg" "$dir/sock"
	chmod 755 "$dir"
	[ "$(id -u)" -ne 0 ] || chown postgres "$dir/pg" "$dir/sock"
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	as_pg "$bin/initdb -D $dir/pg -A trust -U fl -E SQL_ASCII --locale=C >$dir/sock/initdb.log 2>&1" || {
		cat "$dir/sock/initdb.log" >&2
		rm -rf "$dir"
		exit 1
	}
	echo "$dir $port" >"$state"
	as_pg "$bin/pg_ctl -D $dir/pg -l $dir/sock/log -w -t 60 start \
		-o '-k $dir/sock -p $port -c listen_addresses=127.0.0.1 -c fsync=off \
		-c max_connections=200'" >/dev/null || {
		cat "$dir/sock/log" >&2
		exit 1
	}
	url "$port"
	;;
url)
	read -r dir port <"$state"
	url "$port"
	;;
stop)
	[ -s "$state" ] || exit 0
	read -r dir port <"$state"
	case "$dir" in /tmp/fl-pg-*) ;; *) echo "pg-start: $state names $dir" >&2; exit 1 ;; esac
	if [ -f "$dir/pg/postmaster.pid" ]; then
		as_pg "$bin/pg_ctl -D $dir/pg -w -t 60 stop -m fast" >/dev/null || true
	fi
	rm -rf "$dir" "$state"
	;;
*)
	echo "pg-start: unknown command '$cmd' (start, stop, url)" >&2
	exit 2
	;;
esac
