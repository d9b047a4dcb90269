# report.sh - "faultline report show" prints a stored report and its state.
. "$(dirname "$0")/lib.sh"

db=$(fl_store "$tmp/fl.db")
"$FAULTLINE" db init --db "$db" >/dev/null
fl_sql "$tmp/fl.db" "INSERT INTO reports(message_id, subject, body, attempts, last_error)
	VALUES ('<r1@localhost>', 'faultline noticed a -24.6% regression', 'line one
line two
', 2, 'smtp: connection refused')"
expect_exit 0 "show a pending report" "$FAULTLINE" report show 1 --db "$db"
expect_grep "$tmp/out" "Report 1: pending, 2 failed attempts, last: smtp: connection refused" "state and last error"
expect_grep "$tmp/out" "Subject: faultline noticed a -24.6% regression" "subject"
expect_grep "$tmp/out" "line two" "body"
fl_sql "$tmp/fl.db" "UPDATE reports SET state = 'sent', attempts = 3 WHERE id = 1"
expect_exit 0 "show a sent report" "$FAULTLINE" report show 1 --db "$db"
expect_grep "$tmp/out" "Report 1: sent after 3 attempts" "sent state"
# --json: the same report as one object, read back with Python's json
expect_exit 0 "show --json" "$FAULTLINE" report show 1 --db "$db" --json
python3 - "$tmp/out" <<'PY' && ok "the JSON report" || fail "the JSON report"
import json, sys
r = json.load(open(sys.argv[1]))
want = {"id": 1, "state": "sent", "attempts": 3, "last_error": "smtp: connection refused",
        "message_id": "<r1@localhost>", "in_reply_to": None, "regression_id": None,
        "subject": "faultline noticed a -24.6% regression", "body": "line one\nline two\n"}
bad = {k: (r.get(k), v) for k, v in want.items() if r.get(k) != v}
print("  |", bad) if bad else None
sys.exit(1 if bad or not isinstance(r["created"], int) else 0)
PY
expect_exit 1 "an unknown id, --json" "$FAULTLINE" report show 42 --db "$db" --json
expect_exit 1 "an unknown id" "$FAULTLINE" report show 42 --db "$db"
expect_grep "$tmp/err" "no report 42" "names the id"
expect_exit 2 "a malformed id" "$FAULTLINE" report show 4x --db "$db"
expect_exit 2 "usage" "$FAULTLINE" report list
finish
