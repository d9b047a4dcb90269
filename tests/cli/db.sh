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

# A file that is not a store, and a store on a read-only filesystem: said as
# such, not as "schema version -1" (they were).
echo "a text file, not a database: long enough for SQLite to read a header of" >"$tmp/text.db"
expect_exit 4 "serve: a file that is not a database" "$FAULTLINE" serve --db "$tmp/text.db" --listen 127.0.0.1:0
expect_grep "$tmp/err" "store $tmp/text.db: not a faultline store (file is not a database)" "says it is not a store"
expect_exit 4 "migrate: a file that is not a database" "$FAULTLINE" db migrate --db "$tmp/text.db"
expect_grep "$tmp/err" "not a faultline store" "migrate says so too"
expect_exit 4 "serve: a store that does not exist" "$FAULTLINE" serve --db "$tmp/none.db" --listen 127.0.0.1:0
expect_grep "$tmp/err" "store $tmp/none.db: no such file ('faultline db init' makes it)" "names the missing store"
# a read-only tmpfs in a private mount namespace (user namespaces: no root needed)
mkdir -p "$tmp/ro"
if unshare -rm sh -c "mount -t tmpfs none '$tmp/ro'" 2>/dev/null; then
	unshare -rm sh -c "mount -t tmpfs none '$tmp/ro' && cp '$db' '$tmp/ro/s.db' &&
		mount -o remount,ro '$tmp/ro' &&
		'$FAULTLINE' serve --db '$tmp/ro/s.db' --listen 127.0.0.1:0 2>'$tmp/ro-serve.err';
		echo \$? >'$tmp/ro-serve.rc';
		'$FAULTLINE' db migrate --db '$tmp/ro/s.db' 2>'$tmp/ro-migrate.err';
		echo \$? >'$tmp/ro-migrate.rc'"
	[ "$(cat "$tmp/ro-serve.rc")" = 4 ] && ok "serve: a store on a read-only filesystem is refused" ||
		fail "serve: a store on a read-only filesystem is refused"
	expect_grep "$tmp/ro-serve.err" "it is on a read-only filesystem" "serve says the filesystem is read-only"
	[ "$(cat "$tmp/ro-migrate.rc")" = 4 ] && ok "migrate: a store on a read-only filesystem is refused" ||
		fail "migrate: a store on a read-only filesystem is refused"
	expect_grep "$tmp/ro-migrate.err" "it is on a read-only filesystem" "migrate says the filesystem is read-only"
	if grep -q "schema version -1" "$tmp/ro-serve.err" "$tmp/ro-migrate.err"; then
		fail "no 'schema version -1'"; else ok "no 'schema version -1'"; fi
else
	echo "ok - # skip read-only filesystem: no user namespaces here"
fi
finish
