#!/bin/sh
# pg-run.sh - runs a test on PostgreSQL (ctest label pg): the test's stores
# are databases of the cluster in $FL_TEST_PG (scripts/pg-start.sh start
# prints it; else the cluster that script's state file names), each made
# on first use (testlib.h's fl_test_store) under a prefix of this run's
# own, and dropped here once the test ends, whatever it did; a test that
# made none fails (it ran on SQLite). 77 (skipped): no cluster.
#
#   tests/pg-run.sh NAME COMMAND [ARGS...]
set -u
name=$1
shift
if [ -z "${FL_TEST_PG:-}" ]; then
	FL_TEST_PG=$("$(dirname "$0")/../scripts/pg-start.sh" url 2>/dev/null) || FL_TEST_PG=
fi
if [ -z "$FL_TEST_PG" ] || ! psql "$FL_TEST_PG" -qAtc 'SELECT 1' >/dev/null 2>&1; then
	echo "pg-run: no PostgreSQL cluster (scripts/pg-start.sh start; FL_TEST_PG)" >&2
	exit 77
fi
FL_TEST_PG_PREFIX=$(echo "fl_${name}_$$" | tr 'A-Z-' 'a-z_')
export FL_TEST_PG FL_TEST_PG_PREFIX
dbs() {
	psql "$FL_TEST_PG" -qAtc \
		"SELECT datname FROM pg_database WHERE datname LIKE '${FL_TEST_PG_PREFIX}\\_%'"
}
drop() {
	for db in $(dbs); do
		psql "$FL_TEST_PG" -qc "DROP DATABASE $db WITH (FORCE)" >/dev/null
	done
}
trap drop EXIT
"$@"
rc=$?
# a test that made no database did not run on PostgreSQL
if [ "$rc" -eq 0 ] && [ -z "$(dbs)" ]; then
	echo "pg-run: $name made no store on PostgreSQL (fl_test_store)" >&2
	rc=1
fi
exit $rc
