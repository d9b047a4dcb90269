# bisect.sh - "faultline bisect run" on real temporary git repositories.
# The benchmark is an awk one-liner: 100 +- 1 (Gaussian, Box-Muller), 90 once the file
# "slow" exists (commit 13 of 20 adds it), so the culprit is known by
# construction and a 10-sigma step makes the answer certain.
. "$(dirname "$0")/lib.sh"

repo="$tmp/repo"
git init -q "$repo"
git -C "$repo" config user.email t@example.com
git -C "$repo" config user.name test
for i in $(seq 1 20); do
	echo "$i" >"$repo/f"
	[ "$i" -ge 13 ] && echo slow >"$repo/slow"
	git -C "$repo" add -A
	git -C "$repo" commit -qm "commit $i"
done
culprit=$(git -C "$repo" rev-parse HEAD~7)
c12=$(git -C "$repo" rev-parse HEAD~8)

cat >"$tmp/bench" <<'SH'
#!/bin/sh
# PER_RUN noisy samples (default 1) after a non-numeric line; logs the commit it saw.
# SKIP=sha exits 125 there, HANG=sha sleeps there, and a number on stderr is no sample.
# DROP=PCT: the slow commits measure 100 - PCT (default 10).
echo "$FAULTLINE_COMMIT" >>"$BENCH_LOG"
[ -n "${SKIP:-}" ] && [ "$FAULTLINE_COMMIT" = "$SKIP" ] && exit 125
if [ -n "${HANG:-}" ] && [ "$FAULTLINE_COMMIT" = "$HANG" ]; then
	echo $$ >>"$HANG_PIDS"
	exec sleep 60
fi
base=100
[ -f slow ] && base=$((100 - ${DROP:-10}))
echo "warming up"
echo 1000 >&2
awk -v seed="$$$(date +%N)" -v base=$base -v n="${PER_RUN:-1}" 'BEGIN {
	srand(seed % 2147483647)
	for (i = 0; i < n; i++)
		printf "%.3f\n", base + sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand())
}'
SH
chmod +x "$tmp/bench"
export BENCH_LOG="$tmp/bench.log" HANG_PIDS="$tmp/hang.pids"
# wait_for SECONDS CONDITION: until the shell condition holds, at most SECONDS
wait_for() {
	n=$(($1 * 10))
	while [ "$n" -gt 0 ] && ! eval "$2"; do sleep 0.1; n=$((n - 1)); done
}
: >"$HANG_PIDS"

# the user's checkout: a dirty tree on a branch, which must be left alone
echo local >"$repo/untracked"
echo edited >"$repo/f"
git -C "$repo" add f
echo more >>"$repo/f"
before=$(git -C "$repo" rev-parse HEAD; git -C "$repo" status --porcelain; git -C "$repo" diff --cached | md5sum)

expect_exit 0 "finds the culprit" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD -- "$tmp/bench"
expect_grep "$tmp/out" "culprit $culprit commit 13" "names the culprit and its subject"
expect_grep "$tmp/out" "runs," "reports the runs"
# progress from the first run, without -v: the commit, its value, a named measure
first_good=$(git -C "$repo" rev-parse --short=12 HEAD~19)
expect_grep "$tmp/err" "step 1: $first_good (good end) -> " "progress from the first run"
expect_grep "$tmp/err" "the culprit is one of" "progress names what it counts"
expect_grep "$tmp/out" "(worse: " "the change says its direction"
grep -q "change -[0-9.]*% (worse: " "$tmp/out" && ok "a drop is a negative change" ||
	fail "a drop is a negative change: $(cat "$tmp/out")"
grep -q "$culprit" "$BENCH_LOG" && ok "FAULTLINE_COMMIT is set" || fail "FAULTLINE_COMMIT is set"
after=$(git -C "$repo" rev-parse HEAD; git -C "$repo" status --porcelain; git -C "$repo" diff --cached | md5sum)
[ "$before" = "$after" ] && ok "the user's checkout is unchanged" || fail "the user's checkout is unchanged"
[ "$(git -C "$repo" worktree list | wc -l)" = 1 ] && ok "the private worktree is gone" ||
	fail "the private worktree is gone"
[ "$(cat "$repo/untracked")" = local ] && ok "untracked file kept" || fail "untracked file kept"

expect_exit 0 "json output" env PER_RUN=3 "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD --json -- "$tmp/bench"
python3 - "$tmp/out" "$culprit" <<'PY' && ok "json fields" || fail "json fields"
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert o["result"] == "culprit" and o["commit"] == sys.argv[2], o
assert o["confidence"] >= 0.95 and -13 < o["change_pct"] < -7, o
assert o["worse"] is True and o["direction"] == "higher" and o["path"] == [], o
assert o["runs"] >= o["commits_tested"] >= 3, o
PY

expect_exit 0 "a skipped neighbour gives a range" env SKIP="$c12" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD -- "$tmp/bench"
expect_grep "$tmp/out" "range $c12 $culprit" "the range is commit 12..13"

# a run that hangs is killed at --timeout and counts as a failed run: commit 12
# fails three times and is skipped, so the answer is the range 12..13
expect_exit 0 "a hanging run is timed out" env HANG="$c12" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD --timeout 0.5 -- "$tmp/bench"
expect_grep "$tmp/out" "range $c12 $culprit" "the timed-out commit is skipped"
expect_grep "$tmp/err" "timed out after 500 ms" "says it timed out"
alive=0
for p in $(cat "$HANG_PIDS"); do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
[ "$alive" = 0 ] && ok "no timed-out run is left running" || fail "no timed-out run is left running ($alive)"
expect_exit 2 "a bad --timeout" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD --timeout -1 -- "$tmp/bench"

expect_exit 1 "no regression between two fast commits" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD~9 -- "$tmp/bench"
expect_grep "$tmp/out" "no-regression" "says no-regression"
expect_exit 1 "lower-better: slower numbers are better, so no regression" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD --direction lower -- "$tmp/bench"

expect_exit 2 "a bad revision" "$FAULTLINE" bisect run --repo "$repo" --good nosuchrev --bad HEAD -- "$tmp/bench"
expect_grep "$tmp/err" "bad revision 'nosuchrev'" "the message names it"
expect_exit 2 "good not an ancestor" "$FAULTLINE" bisect run --repo "$repo" --good HEAD --bad HEAD~3 -- "$tmp/bench"
expect_exit 2 "no command" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~3 --bad HEAD
expect_exit 2 "not a repository" "$FAULTLINE" bisect run --repo "$tmp/nothing" --good HEAD~3 --bad HEAD -- true
expect_exit 4 "a command that always fails" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD -- false
expect_grep "$tmp/err" "good commit cannot be tested" "says why"
expect_grep "$tmp/err" "run 3 of 3 failed" "retried a bounded number of times"
expect_exit 3 "budget too small" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD --max-runs 18 -- "$tmp/bench"
expect_grep "$tmp/out" "inconclusive" "says inconclusive"
grep -q "^inconclusive: the likeliest culprits\? \(is\|are\) [0-9a-f]\{12\}" "$tmp/out" &&
	ok "an inconclusive answer names its likeliest candidates" ||
	{ fail "an inconclusive answer names its likeliest candidates"; sed 's/^/  | /' "$tmp/out"; }
# --db records every step; a second run resumes without running them again
dbp="$tmp/state/fl.db"
db=$(fl_store "$dbp")
: >"$BENCH_LOG"
expect_exit 3 "recorded run stops at its budget" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD --max-runs 25 --db "$db" -- "$tmp/bench"
first=$(wc -l <"$BENCH_LOG")
[ "$first" = 25 ] && ok "25 runs the first time" || fail "25 runs the first time (got $first)"
expect_exit 0 "resumed run finds the culprit" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD --db "$db" -- "$tmp/bench"
expect_grep "$tmp/err" "resuming bisection 1, 25 recorded runs" "says it resumes"
expect_grep "$tmp/out" "culprit $culprit" "same culprit after resuming"
total=$(sed -n 's/.*, \([0-9]*\) runs, .*/\1/p' "$tmp/out")
new=$(($(wc -l <"$BENCH_LOG") - first))
[ "$new" -eq $((total - 25)) ] && ok "no recorded run repeated ($new new of $total)" ||
	fail "no recorded run repeated ($new new of $total)"
expect_exit 0 "a finished bisection is not resumed" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD --db "$db" -- "$tmp/bench"
if grep -q resuming "$tmp/err"; then fail "starts afresh"; else ok "starts afresh"; fi
if fl_pg || command -v sqlite3 >/dev/null; then
	got=$(fl_sql "$dbp" "SELECT state || ' ' || result || ' ' || culprit FROM bisections WHERE id = 1")
	[ "$got" = "finished culprit $culprit" ] && ok "the store holds the result" ||
		fail "the store holds the result (got $got)"
fi
# SIGTERM mid-bisection: the worktree goes, the recorded steps stay, a rerun resumes
printf '#!/bin/sh\nsleep 0.05\nexec "%s" "$@"\n' "$tmp/bench" >"$tmp/slow-bench"
chmod +x "$tmp/slow-bench"
db2=$(fl_store "$tmp/state/fl2.db")
"$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD --db "$db2" -- "$tmp/slow-bench" \
	>"$tmp/out" 2>"$tmp/err" &
pid=$!
# signal once runs are under way (a fixed sleep raced a slow start under ASan)
runs0=$(wc -l <"$BENCH_LOG")
wait_for 30 '[ $(($(wc -l <"$BENCH_LOG") - runs0)) -ge 2 ]'
kill -TERM "$pid"
wait "$pid"
got=$?
[ "$got" = 4 ] && ok "SIGTERM stops with exit 4" || fail "SIGTERM stops with exit 4 (got $got)"
expect_grep "$tmp/err" "interrupted by signal 15" "says it was interrupted"
[ "$(git -C "$repo" worktree list | wc -l)" = 1 ] && ok "the worktree is removed on SIGTERM" ||
	fail "the worktree is removed on SIGTERM"
# SIGTERM while CMD hangs: the run is stopped (its process group gets SIGTERM), not waited for
"$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD -- env HANG="$(git -C "$repo" rev-parse HEAD~19)" "$tmp/bench" \
	>"$tmp/out" 2>"$tmp/err" &
pid=$!
hung0=$(wc -l <"$HANG_PIDS")
wait_for 30 '[ $(wc -l <"$HANG_PIDS") -gt "$hung0" ]'
start=$(date +%s)
kill -TERM "$pid"
wait "$pid"
got=$?
[ "$got" = 4 ] && [ $(($(date +%s) - start)) -lt 10 ] && ok "SIGTERM stops a hanging run" ||
	fail "SIGTERM stops a hanging run (exit $got after $(($(date +%s) - start)) s)"
alive=0
for p in $(cat "$HANG_PIDS"); do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
[ "$alive" = 0 ] && ok "the hanging run is gone" || fail "the hanging run is gone ($alive)"
# the record is keyed by command and options: another command starts afresh, and says so
expect_exit 0 "another command does not resume it" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD --db "$db2" -- "$tmp/bench"
expect_grep "$tmp/err" "bisection 1 of these revisions was started with another command or options" "says the record is left alone"
if grep -q resuming "$tmp/err"; then fail "no replay of another command's runs"; else ok "no replay of another command's runs"; fi
expect_exit 0 "the interrupted bisection resumes" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD --db "$db2" -- "$tmp/slow-bench"
expect_grep "$tmp/err" "resuming bisection 1" "from its record"
expect_grep "$tmp/out" "culprit $culprit" "and finds the culprit"
[ "$(git -C "$repo" worktree list | wc -l)" = 1 ] && ok "no worktree left behind" ||
	fail "no worktree left behind"
# ---- what a "git bisect run" user meets (issue 16) ----

# a count that goes from 0 to 5 is a regression (the change is from 0, not a fraction of it)
printf '#!/bin/sh\nif [ -f slow ]; then echo 5; else echo 0; fi\n' >"$tmp/errors"
chmod +x "$tmp/errors"
expect_exit 0 "a count from 0 to 5 regresses" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD --direction lower -- "$tmp/errors"
expect_grep "$tmp/out" "culprit $culprit" "and its culprit is found"
expect_grep "$tmp/out" "change from 0 (worse: 0 -> 5" "says what the change is from"

# a change below --min-change: what was measured, and how to bisect it anyway
expect_exit 1 "a 3% drop is below the default 5%" env DROP=3 PER_RUN=5 "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD -- "$tmp/bench"
expect_grep "$tmp/out" "no-regression" "says no-regression"
expect_grep "$tmp/out" "below --min-change 5%" "says it is below the threshold"
expect_grep "$tmp/out" "lower it (--min-change" "says how to lower it"

# a relative command path is the caller's file (an untracked script in the checkout)
mkdir "$tmp/caller"
cp "$tmp/bench" "$tmp/caller/bench.sh"
: >"$BENCH_LOG"
(cd "$tmp/caller" && "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD -- ./bench.sh) >"$tmp/out" 2>"$tmp/err"
got=$?
[ "$got" = 0 ] && ok "./bench.sh from the caller's directory" || { fail "./bench.sh from the caller's directory (exit $got)"; sed 's/^/  | /' "$tmp/err"; }
expect_grep "$tmp/out" "culprit $culprit" "finds the culprit with it"
expect_grep "$tmp/err" "$tmp/caller/bench.sh (./bench.sh, from the current directory)" "says where it is taken from"
if grep -q "No such file" "$tmp/err"; then fail "no 'No such file' retries"; else ok "no 'No such file' retries"; fi

# a command that cannot start fails at once, with no retry
printf 'echo 1\n' >"$tmp/noexec"
: >"$BENCH_LOG"
expect_exit 2 "a command that is not executable" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD -- "$tmp/noexec"
expect_grep "$tmp/err" "cannot run '$tmp/noexec': Permission denied" "says why, at once"
if grep -q "run 1 of" "$tmp/err"; then fail "not retried"; else ok "not retried"; fi
expect_exit 2 "a command not in PATH" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD -- no-such-command-fl
expect_grep "$tmp/err" "cannot run 'no-such-command-fl': not found in PATH" "says it is not in PATH"

# --help prints help and exits 0, for bisect run and every command
expect_exit 0 "bisect run --help" "$FAULTLINE" bisect run --help
expect_grep "$tmp/out" "usage: faultline bisect run" "prints the usage"
expect_grep "$tmp/out" "--mode MODE" "and the options"
for c in build compare config db queue report run serve watch records profile initramfs try help; do
	expect_exit 0 "$c --help" "$FAULTLINE" $c --help
	expect_grep "$tmp/out" "usage: faultline $c" "$c --help prints its usage"
done
mkdir "$tmp/plain"
expect_exit 2 "--repo not a repository" "$FAULTLINE" bisect run --repo "$tmp/plain" --good HEAD~1 --bad HEAD -- true
expect_grep "$tmp/err" "$tmp/plain is not a git repository (--repo)" "says so"

# "| head -2": SIGPIPE stops it as SIGTERM does: no worktree left, the record resumable
dbp3="$tmp/state/fl3.db"
db3=$(fl_store "$dbp3")
"$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD --db "$db3" -- "$tmp/slow-bench" 2>&1 | head -2 >"$tmp/out"
[ "$(wc -l <"$tmp/out")" = 2 ] && ok "head -2 read its lines" || fail "head -2 read its lines"
[ "$(git -C "$repo" worktree list | wc -l)" = 1 ] && ok "SIGPIPE leaves no worktree registered" ||
	fail "SIGPIPE leaves no worktree registered: $(git -C "$repo" worktree list)"
if fl_pg || command -v sqlite3 >/dev/null; then
	got=$(fl_sql "$dbp3" "SELECT state FROM bisections WHERE id = 1")
	[ "$got" = stopped ] && ok "SIGPIPE leaves the record stopped, not running" ||
		fail "SIGPIPE leaves the record stopped, not running (got $got)"
fi
expect_exit 0 "the piped bisection resumes" "$FAULTLINE" bisect run --repo "$repo" --good HEAD~19 --bad HEAD --db "$db3" -- "$tmp/slow-bench"
expect_grep "$tmp/err" "resuming bisection 1" "from its record"

finish
