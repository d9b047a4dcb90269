# db.sh - "faultline db init|migrate" create and upgrade a real SQLite file.
. "$(dirname "$0")/lib.sh"

db="$tmp/state/fl.db"
expect_exit 4 "migrate refuses a store that does not exist" "$FAULTLINE" db migrate --db "$db"
expect_exit 0 "init creates the store" "$FAULTLINE" db init --db "$db"
expect_grep "$tmp/out" "schema version 0 -> " "init reports the migration"
[ -f "$db" ] && ok "the file exists" || fail "the file exists"
expect_exit 0 "migrate again" "$FAULTLINE" db migrate --db "$db"
expect_grep "$tmp/out" "up to date" "nothing left to migrate"
if command -v sqlite3 >/dev/null; then
	mode=$(sqlite3 "$db" 'PRAGMA journal_mode')
	[ "$mode" = wal ] && ok "WAL mode" || fail "WAL mode (got $mode)"
	sqlite3 "$db" "INSERT INTO trees(name, url) VALUES ('t', '/x')"
	"$FAULTLINE" db migrate --db "$db" >/dev/null 2>&1
	n=$(sqlite3 "$db" 'SELECT count(*) FROM trees')
	[ "$n" = 1 ] && ok "data survives migrate" || fail "data survives migrate"
fi

cat >"$tmp/c.yaml" <<YAML
store: { path: $tmp/from-config.db }
YAML
expect_exit 0 "init from --config" "$FAULTLINE" db init --config "$tmp/c.yaml"
[ -f "$tmp/from-config.db" ] && ok "store path from config" || fail "store path from config"
expect_exit 2 "bad subcommand" "$FAULTLINE" db frob
finish
