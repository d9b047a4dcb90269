#!/bin/sh
# queue.sh - "faultline queue show" in text and --json on a store this test
# fills with SQL (lib.sh's fl_sql: SQLite, or PostgreSQL as cli_queue_pg):
# a broken machine, a running run job for one point, a failed compare job
# whose error has quotes and a newline, a done job. The JSON is read back
# with Python's json and must say what the text says.
. tests/cli/lib.sh

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
expect_exit 2 "queue enable does not take --json" "$FAULTLINE" queue enable box --db "$db" --json
expect_exit 2 "db does not take --json" "$FAULTLINE" db migrate --db "$db" --json
finish
