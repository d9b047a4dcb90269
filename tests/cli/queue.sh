#!/bin/sh
# queue.sh - "faultline queue show" in text and --json on a store this test
# fills with SQL (lib.sh's fl_sql: SQLite, or PostgreSQL as cli_queue_pg):
# a broken machine, a running run job for one point, a failed compare job
# whose error has quotes and a newline, a done job. The JSON is read back
# with Python's json and must say what the text says.
# Then "queue retry": a first configuration whose benchmark command is
# broken fails its comparison; the failure says how to retry it (the log,
# queue show); once the command is fixed, "queue retry" queues the job and
# the runs that failed it again, and the next watch (killed once on the
# way) finishes it with exactly one mail.
. tests/cli/lib.sh
. tests/cli/history.sh

db=$(fl_store "$tmp/fl.db")
"$FAULTLINE" db init --db "$db" >/dev/null
fl_sql "$tmp/fl.db" "INSERT INTO job_kinds(name) VALUES ('run'), ('compare') ON CONFLICT DO NOTHING;
	INSERT INTO machines(name, backend, state, state_reason, infra_errors)
	VALUES ('box', 'libvirt', 'broken', 'libvirt: \"qemu\" died', 3), ('lab1', 'baremetal', 'online', NULL, 0);
	INSERT INTO jobs(kind, key, state, tree, machine, benchmark, rev, role, attempts, point)
	VALUES ('run', 'run:1', 'running', 'linux', 'box', 'pf', 'abcdef0123456789abcdef0123456789abcdef01', 'bisect', 2, 'threads:2:child');
	INSERT INTO jobs(kind, key, state, tree, machine, benchmark, error)
	VALUES ('compare', 'compare:1', 'failed', 'linux', 'box', 'pf', 'tree \"linux\": fetch failed
second line');
	INSERT INTO jobs(kind, key, state, tree, machine, benchmark) VALUES ('compare', 'compare:2', 'done', 'linux', 'box', 'pf');" ||
	fail "filling the store"

expect_exit 0 "queue show" "$FAULTLINE" queue show --db "$db"
expect_grep "$tmp/out" "jobs: 1 running, 0 queued, 0 waiting, 1 failed, 1 done" "the text counts"
expect_exit 0 "queue show --json" "$FAULTLINE" queue show --db "$db" --json
cp "$tmp/out" "$tmp/queue.json"
python3 - "$tmp/queue.json" <<'PY' && ok "the JSON says what the text says" || fail "the JSON says what the text says"
import json, sys
q = json.load(open(sys.argv[1]))
def check(what, got, want):
    if got != want:
        print(f"  | {what}: {got!r}, wanted {want!r}")
        sys.exit(1)
m = {x["name"]: x for x in q["machines"]}
check("machines", sorted(m), ["box", "lab1"])
check("box", m["box"], {"name": "box", "state": "broken", "infra_errors": 3, "reason": 'libvirt: "qemu" died'})
check("lab1 reason", m["lab1"]["reason"], None)
check("counts", q["jobs"]["counts"], {"running": 1, "queued": 0, "waiting": 0, "failed": 1, "done": 1})
jobs = q["jobs"]["list"]
check("listed", [(j["kind"], j["state"]) for j in jobs], [("run", "running"), ("compare", "failed")])
run = jobs[0]
check("run", {k: run[k] for k in ("tree", "machine", "benchmark", "role", "rev", "point", "attempts")},
      {"tree": "linux", "machine": "box", "benchmark": "pf", "role": "bisect",
       "rev": "abcdef0123456789abcdef0123456789abcdef01", "point": "threads:2:child", "attempts": 2})
check("error", jobs[1]["error"], 'tree "linux": fetch failed\nsecond line')
check("no run fields on compare", "role" in jobs[1], False)
PY
# ---- queue retry ------------------------------------------------------------
# (before it, a failed comparison could not be run again: a tag is never
# scheduled twice, and queue had only show and enable)
export BENCH_LOG="$tmp/bench.log"
make_repo "$tmp/repo" clean 30
port=$(free_port)
smtp_start "$port" "$tmp/Maildir" || fail "the SMTP server starts"
retry_config() {
	cat >"$tmp/retry.yaml" <<EOF
var: $tmp/var
store: $(fl_store_yaml "$tmp/retry.db")
trees:
  - { name: demo, url: $tmp/repo, tags: ["v*"], poll: 1s }
machines:
  - { name: box, backend: command, command: "$1", timeout: 1m }
benchmarks:
  - { name: demo, repeat: 3 }
report: { smtp: "smtp://127.0.0.1:$port", to: [dev@example.org], retry: 1s }
EOF
}
retry_config "$tmp/no-such-bench"
expect_exit 4 "a broken benchmark command fails the comparison" \
	"$FAULTLINE" watch --config "$tmp/retry.yaml" --once
expect_grep "$tmp/err" "job 1 (compare demo): baseline v1.1" "the failure is logged"
expect_grep "$tmp/err" "('faultline queue retry 1' runs it again once that is fixed)" \
	"the failure's log line says how to retry it"
rdb=$(fl_store "$tmp/retry.db")
expect_exit 0 "queue show with a failed job" "$FAULTLINE" queue show --db "$rdb"
expect_grep "$tmp/out" "1 compare failed" "queue show lists the failed job"
expect_grep "$tmp/out" "with 'faultline queue retry JOB' (its failed runs with it) or 'faultline queue retry --failed'" \
	"queue show says how to retry it"
serve_start --db "$rdb" || fail "serve starts"
page "/jobs?state=failed"
expect_grep "$tmp/page" "<code>faultline queue retry 1</code>" "the jobs page says how to retry it"
expect_grep "$tmp/page" "gave no usable run on box" "the jobs page says why it failed"
page /
expect_grep "$tmp/page" "<a href='/jobs?state=failed#job-1'>job 1: why, retry</a>" "the dashboard's failed verdict links to them"
serve_stop
expect_exit 0 "watch again without a retry does nothing" "$FAULTLINE" watch --config "$tmp/retry.yaml" --once
[ "$(fl_sql "$tmp/retry.db" "SELECT state FROM jobs WHERE id = 1")" = failed ] &&
	ok "the job stays failed until retried" || fail "the job stays failed until retried"
expect_exit 1 "retry of a run job" "$FAULTLINE" queue retry 2 --db "$rdb"
expect_grep "$tmp/err" "job 2 is a run of job 1: 'faultline queue retry 1' retries it" "a run is retried through its job"
expect_exit 1 "retry of a job that does not exist" "$FAULTLINE" queue retry 999 --db "$rdb"
expect_grep "$tmp/err" "no job 999" "the missing job is named"
expect_exit 2 "retry of a word" "$FAULTLINE" queue retry first --db "$rdb"
expect_exit 2 "retry without a job" "$FAULTLINE" queue retry --db "$rdb"
expect_exit 2 "retry --failed and a job" "$FAULTLINE" queue retry 1 --failed --db "$rdb"
retry_config "$tmp/bench"
expect_exit 0 "queue retry --failed" "$FAULTLINE" queue retry --failed --config "$tmp/retry.yaml"
expect_grep "$tmp/out" "1 failed job queued again with 6 failed runs" "what was queued again is said"
[ "$(fl_sql "$tmp/retry.db" "SELECT state || ' ' || count(*) || ' ' || sum(attempts) FROM jobs GROUP BY state")" = "queued 7 0" ] &&
	ok "the job and its runs are queued, their attempts starting over" ||
	fail "the job and its runs are queued: $(fl_sql "$tmp/retry.db" "SELECT id, state, attempts FROM jobs")"
expect_exit 1 "a queued job is not retried" "$FAULTLINE" queue retry 1 --db "$rdb"
expect_grep "$tmp/err" "job 1 (compare) is queued, not failed" "why it is not retried"
# restart-safe: the retried work survives a worker killed in the middle
FAULTLINE_CRASH_AT=run-stored:3 "$FAULTLINE" watch --config "$tmp/retry.yaml" --once >/dev/null 2>&1
[ $? -eq 137 ] && ok "the retried job's worker is killed in a run" || fail "the retried job's worker is killed in a run"
expect_exit 0 "watch after the retry finishes the tag" "$FAULTLINE" watch --config "$tmp/retry.yaml" --once
expect_grep "$tmp/err" "compare: demo v1.2 vs v1.1, demo on box: regression" "the tag is compared"
expect_grep "$tmp/err" "report 1: sent" "its report is sent"
expect_exit 1 "a done job is not retried" "$FAULTLINE" queue retry 1 --db "$rdb"
expect_exit 0 "retry --failed with none failed" "$FAULTLINE" queue retry --failed --db "$rdb"
expect_grep "$tmp/out" "0 failed jobs queued again" "nothing to retry is said"
expect_exit 0 "watch once more" "$FAULTLINE" watch --config "$tmp/retry.yaml" --once
[ "$(mails "$tmp/Maildir")" = 1 ] && ok "exactly one mail" || fail "exactly one mail ($(mails "$tmp/Maildir"))"
smtp_stop

expect_exit 2 "queue enable does not take --json" "$FAULTLINE" queue enable box --db "$db" --json
expect_exit 2 "db does not take --json" "$FAULTLINE" db migrate --db "$db" --json
finish
