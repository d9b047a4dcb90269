# workers.sh - several "faultline watch" workers on one PostgreSQL store
# (label pg, run through tests/pg-run.sh: FL_TEST_PG names the cluster,
# the databases made here are under FL_TEST_PG_PREFIX and dropped after),
# with command machines, real git repositories and a real SMTP server:
#   1. three workers bisect one regression; the one driving the machine is
#      killed with SIGKILL in the middle of the bisection: another takes its
#      work over; the culprit is right, no run is counted twice, exactly
#      one mail goes, no worker is left in the store; a worker whose row is
#      gone (taken for dead) stops at once;
#   2. a machine pinned to the workers of one host (machines.worker_host):
#      only they run on it;
#   3. SQLite: a second worker on the same store is refused, saying why.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/history.sh"

[ -n "${FL_TEST_PG:-}" ] && [ -n "${FL_TEST_PG_PREFIX:-}" ] ||
	{ echo "workers.sh: run through tests/pg-run.sh (FL_TEST_PG)"; exit 77; }

newdb() { # NAME: a database of the cluster, its URL on stdout
	psql "$FL_TEST_PG" -qc "CREATE DATABASE ${FL_TEST_PG_PREFIX}_$1" >/dev/null || return 1
	echo "${FL_TEST_PG%/*}/${FL_TEST_PG_PREFIX}_$1"
}
q() { psql "$db" -qAtc "$1"; }

# config NAME STORE-URL REPO HOST [MACHINE-EXTRA]: a worker's configuration
config() {
	cat >"$tmp/$1.yaml" <<YAML
var: $tmp/var-$1
store: { url: "$2" }
trees:
  - { name: demo, url: $3, tags: ["v*"], poll: 1s }
machines:
  - { name: box, backend: command, command: "BENCH_SLEEP=0.3 $tmp/bench", timeout: 1m,
      max_parallel: 2 ${5:-} }
benchmarks:
  - { name: demo, repeat: 3 }
regression: { min_change: 2%, confidence: 0.95 }
report: { smtp: "smtp://127.0.0.1:$port", from: "faultline <robot@example.org>",
          to: [dev@example.org], url: "http://results.example", retry: 1s }
worker: { host: $4, lease: 3s }
YAML
}

export BENCH_LOG="$tmp/bench.log"
port=$(free_port)
maildir="$tmp/Maildir"
smtp_start "$port" "$maildir" || fail "the SMTP server starts"

# ---- 1. three workers, one killed in the middle of the bisection ----------
repo="$tmp/repo"
make_repo "$repo" clean 30
culprit=$(git_in "$repo" rev-parse HEAD~7)
db=$(newdb kill) || fail "a database for the workers"
host=$(hostname)
for i in 1 2 3; do config "w$i" "$db" "$repo" "$host"; done
"$FAULTLINE" watch --config "$tmp/w1.yaml" --once 2>"$tmp/w1.err" & p1=$!
"$FAULTLINE" watch --config "$tmp/w2.yaml" --once 2>"$tmp/w2.err" & p2=$!
"$FAULTLINE" watch --config "$tmp/w3.yaml" --once 2>"$tmp/w3.err" & p3=$!
# the worker driving the machine, frozen (SIGSTOP) while it holds a run in
# flight, so that what it holds is read before it could record anything;
# then killed
victim= inflight=0
for _ in $(seq 1200); do
	steps=$(q "SELECT count(*) FROM bisect_steps" 2>/dev/null)
	holder=$(q "SELECT worker FROM machines WHERE name = 'box' AND EXISTS (SELECT 1 FROM jobs
		WHERE kind = 'run' AND state = 'running')" 2>/dev/null)
	if [ "${steps:-0}" -ge 3 ] && [ -n "$holder" ]; then
		victim=$(echo "$holder" | cut -d: -f2)
		kill -STOP "$victim" 2>/dev/null
		inflight=$(q "SELECT count(*) FROM jobs WHERE kind = 'run' AND state = 'running' AND worker = '$holder'")
		[ "$inflight" -ge 1 ] && break
		kill -CONT "$victim" 2>/dev/null
	fi
	sleep 0.1
done
case " $p1 $p2 $p3 " in
*" $victim "*) ok "the worker driving the machine is one of the three (pid $victim)" ;;
*) fail "the worker driving the machine is one of the three ('$holder')" ;;
esac
victim_jobs=$(q "SELECT string_agg(id::text, ',') FROM jobs WHERE kind = 'run' AND state = 'running' AND worker = '$holder'")
kill -9 "$victim" 2>/dev/null
[ "$inflight" -ge 1 ] && ok "killed with $inflight run(s) in flight" || fail "killed with runs in flight"
codes=
for p in $p1 $p2 $p3; do
	wait "$p"
	c=$?
	if [ "$p" = "$victim" ]; then [ "$c" = 137 ] && ok "the victim died of SIGKILL" || fail "the victim died of SIGKILL ($c)"
	else codes="$codes $c"; fi
done
[ "$codes" = " 0 0" ] && ok "the two others finish (exit 0)" ||
	{ fail "the two others finish (exits$codes)"; tail -n 20 "$tmp"/w*.err; }
grep -h "is gone" "$tmp"/w*.err | grep -q ":$victim:.*queued again" &&
	ok "a worker took the victim's work over, saying so" || fail "a worker took the victim's work over, saying so"
[ "$(q "SELECT count(*) FROM bisections")" = 1 ] && [ "$(q "SELECT culprit FROM bisections")" = "$culprit" ] &&
	ok "one bisection, the right culprit" || fail "one bisection, the right culprit ($(q "SELECT culprit FROM bisections"))"
[ "$(q "SELECT count(*) FROM (SELECT job_id FROM runs WHERE status = 'ok' GROUP BY job_id HAVING count(*) > 1) x")" = 0 ] &&
	ok "no job has two ok runs" || fail "no job has two ok runs"
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok'")" = \
  "$(q "SELECT count(*) FROM jobs WHERE kind = 'run' AND result = 'ok' AND run_id IN (SELECT id FROM runs)")" ] &&
	ok "ok runs = done run jobs: no run counted twice" || fail "ok runs = done run jobs"
[ "$(q "SELECT count(*) FROM runs WHERE status IN ('queued', 'running')")" = 0 ] &&
	ok "no run left in flight" || fail "no run left in flight"
[ "$(q "SELECT count(*) FROM jobs WHERE state <> 'done'")" = 0 ] && ok "every job done" ||
	fail "every job done: $(q "SELECT kind || ' ' || state || ' ' || coalesce(error, '') FROM jobs WHERE state <> 'done'")"
[ "$(q "SELECT count(*) FROM jobs WHERE id IN ($victim_jobs) AND state = 'done' AND worker <> '$holder'")" = "$inflight" ] &&
	ok "the victim's runs in flight were done by another worker" ||
	fail "the victim's runs in flight were done by another worker: $(q "SELECT id, state, worker FROM jobs WHERE id IN ($victim_jobs)")"
[ "$(q "SELECT count(*) FROM reports WHERE state = 'sent'")" = 1 ] && [ "$(mails "$maildir")" = 1 ] &&
	ok "one report, exactly one mail" || fail "one report, exactly one mail ($(mails "$maildir") mails)"
[ "$(q "SELECT count(*) FROM workers")" = 0 ] && [ "$(q "SELECT count(*) FROM machines WHERE worker IS NOT NULL")" = 0 ] &&
	ok "no worker left in the store, no machine held" || fail "no worker left in the store, no machine held"

# a worker whose row is gone (taken for dead: the store was out of its reach
# for a lease) stops at once rather than run jobs that are now another's
"$FAULTLINE" watch --config "$tmp/w1.yaml" 2>"$tmp/lost.err" & pl=$!
for _ in $(seq 100); do grep -q "queue: worker" "$tmp/lost.err" && break; sleep 0.05; done
q "DELETE FROM workers" >/dev/null
t=0
while kill -0 "$pl" 2>/dev/null && [ "$t" -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
kill "$pl" 2>/dev/null
wait "$pl"
c=$?
[ "$c" = 4 ] && ok "a worker taken for dead stops (exit 4) within its lease" || fail "a worker taken for dead stops (exit $c)"
expect_grep "$tmp/lost.err" "other workers took its jobs over" "it says why it stops"

# ---- 2. a machine pinned to one host's workers ----------------------------
repo2="$tmp/repo2"
make_repo "$repo2" clean 10
db=$(newdb pin) || fail "a database for the pinned machine"
config a "$db" "$repo2" host-a ", worker_host: host-a"
config b "$db" "$repo2" host-b ", worker_host: host-a"
"$FAULTLINE" watch --config "$tmp/a.yaml" --once 2>"$tmp/a.err" & pa=$!
for _ in $(seq 100); do grep -q "queue: worker" "$tmp/a.err" && break; sleep 0.05; done
"$FAULTLINE" watch --config "$tmp/b.yaml" --once 2>"$tmp/b.err" & pb=$!
wait "$pa"; ca=$?
wait "$pb"; cb=$?
[ "$ca" = 0 ] && [ "$cb" = 0 ] && ok "both workers finish" || { fail "both workers finish ($ca, $cb)"; tail "$tmp/a.err" "$tmp/b.err"; }
# alone, host-b's worker cannot run the pinned machine's runs: it says so and fails
make_repo "$repo2" clean 30
expect_exit 4 "host-b's worker alone cannot go on" "$FAULTLINE" watch --config "$tmp/b.yaml" --once
expect_grep "$tmp/err" "cannot go on" "it says the jobs cannot go on"
expect_exit 0 "host-a's worker then does them" "$FAULTLINE" watch --config "$tmp/a.yaml" --once
runs=$(q "SELECT count(*) FROM jobs WHERE kind = 'run' AND state = 'done'")
[ "$runs" -gt 0 ] && [ "$(q "SELECT count(*) FROM jobs WHERE kind = 'run' AND worker NOT LIKE 'host-a:%'")" = 0 ] &&
	ok "the pinned machine's $runs runs all by host-a's worker" ||
	fail "the pinned machine's runs all by host-a's worker: $(q "SELECT worker FROM jobs WHERE kind = 'run'")"

# ---- 3. SQLite: one worker per store ----------------------------------------
sed "s|store: .*|store: { path: $tmp/one.db }|" "$tmp/a.yaml" >"$tmp/s1.yaml"
"$FAULTLINE" watch --config "$tmp/s1.yaml" 2>"$tmp/s1.err" & ps1=$!
for _ in $(seq 100); do grep -q "queue: worker" "$tmp/s1.err" && break; sleep 0.1; done
expect_exit 4 "a second worker on an SQLite store is refused" "$FAULTLINE" watch --config "$tmp/s1.yaml" --once
expect_grep "$tmp/err" "an SQLite store has one worker, several share a PostgreSQL store (store.url)" \
	"the refusal says why and what to do"
kill "$ps1"; wait "$ps1" 2>/dev/null

smtp_stop
finish
