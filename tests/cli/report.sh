# report.sh - "faultline report show" prints a stored report and its state.
. "$(dirname "$0")/lib.sh"

db="$tmp/fl.db"
"$FAULTLINE" db init --db "$db" >/dev/null
sqlite3 "$db" "INSERT INTO reports(message_id, subject, body, attempts, last_error)
	VALUES ('<r1@localhost>', 'faultline noticed a -24.6% regression', 'line one
line two
', 2, 'smtp: connection refused')"
expect_exit 0 "show a pending report" "$FAULTLINE" report show 1 --db "$db"
expect_grep "$tmp/out" "Report 1: pending, 2 failed attempts, last: smtp: connection refused" "state and last error"
expect_grep "$tmp/out" "Subject: faultline noticed a -24.6% regression" "subject"
expect_grep "$tmp/out" "line two" "body"
sqlite3 "$db" "UPDATE reports SET state = 'sent', attempts = 3 WHERE id = 1"
expect_exit 0 "show a sent report" "$FAULTLINE" report show 1 --db "$db"
expect_grep "$tmp/out" "Report 1: sent after 3 attempts" "sent state"
expect_exit 1 "an unknown id" "$FAULTLINE" report show 42 --db "$db"
expect_grep "$tmp/err" "no report 42" "names the id"
expect_exit 2 "a malformed id" "$FAULTLINE" report show 4x --db "$db"
expect_exit 2 "usage" "$FAULTLINE" report list
finish
