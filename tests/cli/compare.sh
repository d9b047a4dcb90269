# compare.sh - "faultline compare" on a store this test fills: runs of two
# tags made by "faultline run" with the command backend on a real git
# repository (v2 is 20% slower), evidence rows added with SQL (lib.sh's
# fl_sql: SQLite, or PostgreSQL as cli_compare_pg; vmstat
# pgfault 1000/s against 800/s, the profile's _raw_spin_lock from 10% to
# 60%), and an old-style run that names its commit only through its build.
# Checked: the rows, their values against the stored samples, their signs
# and verdicts, the exit code (1 for a regression), revisions by tag, short
# sha or stored sha, run:ID lists, and bad input (exit 2, named) or an
# unreadable store (exit 4).
. "$(dirname "$0")/lib.sh"

git_in() { (cd "$1" && shift && GIT_AUTHOR_NAME='Ada Lovelace' GIT_AUTHOR_EMAIL=ada@example.org \
	GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@example.org git -c init.defaultBranch=master "$@"); }

repo="$tmp/repo"
mkdir -p "$repo"
git_in "$repo" init -q
echo 100 >"$repo/speed"
git_in "$repo" add -A && git_in "$repo" commit -qm "start" && git_in "$repo" tag v1
echo 80 >"$repo/speed"
git_in "$repo" commit -qam "mm: slower" && git_in "$repo" tag v2
echo 80 >"$repo/other" && git_in "$repo" add -A && git_in "$repo" commit -qm "untested"

# five numbers around the speed in the checkout, one run's samples
cat >"$tmp/bench" <<'SH'
#!/bin/sh
awk -v seed="$$$(date +%N)" -v base="$(cat speed)" 'BEGIN { srand(seed % 2147483647)
	for (i = 0; i < 5; i++) printf "%.3f\n", base * (0.99 + 0.02 * rand()) }'
SH
chmod +x "$tmp/bench"

config() { # FILE TREE-URL STORE-YAML
	cat >"$1" <<EOF
var: $tmp/var
store: $3
trees: [{ name: demo, url: $2 }]
machines: [{ name: box, backend: command, command: "$tmp/bench", timeout: 1m }]
benchmarks: [{ name: demo, repeat: 5 }]
regression: { min_change: 2%, confidence: 0.95 }
EOF
}
db="$tmp/fl.db"
config "$tmp/fl.yaml" "$repo" "$(fl_store_yaml "$db")"
q() { fl_sql "$db" "$1"; }
cmp() { "$FAULTLINE" compare --config "$tmp/fl.yaml" "$@"; }

expect_exit 0 "five runs of v1" "$FAULTLINE" run --config "$tmp/fl.yaml" --tree demo --rev v1
expect_exit 0 "five runs of v2" "$FAULTLINE" run --config "$tmp/fl.yaml" --tree demo --rev v2
sha1=$(git_in "$repo" rev-parse v1)
sha2=$(git_in "$repo" rev-parse v2)
runs_of() { q "SELECT group_concat(id, ' ') FROM (SELECT CAST(r.id AS TEXT) AS id FROM runs r JOIN commits c ON c.id = r.commit_id
	WHERE c.sha = '$1' AND r.status = 'ok' ORDER BY r.id) AS ok"; }
[ "$(runs_of "$sha1" | wc -w)" = 5 ] && [ "$(runs_of "$sha2" | wc -w)" = 5 ] &&
	ok "the store holds five ok runs a tag" || fail "runs: $(q "SELECT id, commit_id, status FROM runs")"

# evidence per run: pgfault 1000/s and 800/s; _raw_spin_lock 10% and 60%,
# clear_page_erms 50% and 20%, do_page_fault 5% on both
for id in $(runs_of "$sha1") $(runs_of "$sha2"); do
	case " $(runs_of "$sha1") " in *" $id "*) pg=1000 spin=0.10 clear=0.50 ;; *) pg=800 spin=0.60 clear=0.20 ;; esac
	q "INSERT INTO evidence_points(run_id, test, mode, tasks, measured_s, profile, profile_samples)
	   VALUES ($id, 'demo', '', 1, 5, 'recorded', 1000);
	   INSERT INTO evidence_vmstat SELECT id, 'pgfault', $pg * 5, $pg FROM evidence_points WHERE run_id = $id;
	   INSERT INTO evidence_vmstat SELECT id, 'nr_free_pages', -100, -20 FROM evidence_points WHERE run_id = $id;
	   INSERT INTO evidence_profile SELECT id, '_raw_spin_lock', $spin * 1000, $spin FROM evidence_points WHERE run_id = $id;
	   INSERT INTO evidence_profile SELECT id, 'clear_page_erms', $clear * 1000, $clear FROM evidence_points WHERE run_id = $id;
	   INSERT INTO evidence_profile SELECT id, 'do_page_fault', 50, 0.05 FROM evidence_points WHERE run_id = $id;"
done

# ---- v1 against v2: a regression ------------------------------------------
expect_exit 1 "v1 against v2: a regression, exit 1" cmp --a v1 --b v2
cp "$tmp/out" "$tmp/reg.out"
cat "$tmp/reg.out"
expect_grep "$tmp/reg.out" "demo on box" "says the benchmark and machine"
expect_grep "$tmp/reg.out" "base v1 = ${sha1%${sha1#????????????}}: 5 runs ($(runs_of "$sha1"))" "names the base runs"
expect_grep "$tmp/reg.out" "new  v2 = ${sha2%${sha2#????????????}}: 5 runs" "names the new runs"
expect_grep "$tmp/reg.out" "         %stddev     %change         %stddev" "LKP's columns"
# the value of a side is the mean of its run means, from the stored samples
# (SQL and C sum in their own order: a mean on a rounding edge, 100.165,
# may print as 100.16 or 100.17, so a printed value is within 0.01)
side_mean() { q "SELECT avg(m) FROM (SELECT avg(s.value) m FROM samples s WHERE s.run_id IN ($(runs_of "$1" | tr ' ' ',')) GROUP BY s.run_id) AS r"; }
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d <= 0.0101 && d >= -0.0101) }'; }
row=$(grep '  demo.value  ' "$tmp/reg.out")
set -- $row
near "$1" "$(side_mean "$sha1")" && ok "base value: the mean of the run means ($1)" || fail "base value $1, want $(side_mean "$sha1")"
new=$(echo "$row" | awk '{ for (i = 2; i <= NF; i++) if ($i == "demo.value") print $(i - 1) }')
near "$new" "$(side_mean "$sha2")" && ok "new value: the mean of the run means" || fail "new value in: $row, want $(side_mean "$sha2")"
echo "$row" | grep -qE -- ' -(19|20|21)\.[0-9]%  ' && ok "about -20%" || fail "change in: $row"
echo "$row" | grep -qF "DIFFERENT p=0.0079 n=5+5  REGRESSION" && ok "5 runs against 5, all apart: DIFFERENT, p = 2/252, a regression" ||
	fail "verdict in: $row"
expect_grep "$tmp/reg.out" "-20.0%     800.00        demo.vmstat.pgfault/s" "vmstat: pgfault per second, -20%"
grep -q "nr_free_pages" "$tmp/reg.out" && fail "a gauge shown as a rate" || ok "gauges are no rates: nr_free_pages left out"
expect_grep "$tmp/reg.out" "     10.00            +50.0      60.00        demo.profile._raw_spin_lock" "profile: the lock +50 points"
expect_grep "$tmp/reg.out" "     50.00            -30.0      20.00        demo.profile.clear_page_erms" "profile: clear_page -30 points"
grep -q "do_page_fault" "$tmp/reg.out" && fail "an unmoved function shown" || ok "an unmoved function is left out"
[ "$(grep -n 'demo.value\|vmstat.pgfault\|profile._raw' "$tmp/reg.out" | cut -d: -f1 | tr '\n' ' ')" = \
	"$(grep -n 'demo.value\|vmstat.pgfault\|profile._raw' "$tmp/reg.out" | sort -n | cut -d: -f1 | tr '\n' ' ')" ] &&
	grep -B1 'vmstat.pgfault' "$tmp/reg.out" | head -1 | grep -q '^$' && ok "metrics, then vmstat, then profile, apart" ||
	fail "sections out of order"

# ---- --json: the same comparison as one object ---------------------------------
expect_exit 1 "--json: a regression, exit 1 still" cmp --a v1 --b v2 --json
python3 - "$tmp/out" "$(side_mean "$sha1")" "$(side_mean "$sha2")" "$sha1" "$(runs_of "$sha1")" <<'PY' &&
import json, sys
c = json.load(open(sys.argv[1]))
base_mean, new_mean, sha1, runs1 = float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
bad = []
def check(what, ok):
    if not ok:
        bad.append(what)
check("benchmark", c["benchmark"] == "demo" and c["machine"] == "box")
check("base side", c["base"] == {"rev": "v1", "sha": sha1, "runs": [int(x) for x in runs1.split()]})
check("regressed", c["regressed"] is True)
m = [r for r in c["rows"] if r["kind"] == "metric"]
check("one metric row", len(m) == 1)
r = m[0]
check("name", r["name"] == "demo.value" and r["tasks"] == 1 and r["cgroup"] == "root")
check("base mean", abs(r["base"]["mean"] - base_mean) < 0.006 and r["base"]["runs"] == 5)
check("new mean", abs(r["new"]["mean"] - new_mean) < 0.006 and r["new"]["runs"] == 5)
check("change", -21 < r["change"] < -19)
check("verdict", r["verdict"] == "different" and abs(r["p"] - 0.0079) < 0.0001 and r["class"] == "regression")
v = [r for r in c["rows"] if r["kind"] == "vmstat" and r["what"] == "pgfault"]
check("vmstat pgfault", len(v) == 1 and v[0]["new"]["mean"] == 800 and "verdict" not in v[0])
p = [r for r in c["rows"] if r["kind"] == "profile" and r["what"] == "_raw_spin_lock"]
check("profile", len(p) == 1 and abs(p[0]["change"] - 50) < 1e-9)
if bad:
    print("  | wrong:", bad)
    print(json.dumps(c, indent=1)[:3000])
sys.exit(1 if bad else 0)
PY
	ok "--json: sides, runs, rows, verdict and class as the text says" ||
	fail "--json: sides, runs, rows, verdict and class as the text says"
expect_exit 0 "--json: an improvement, exit 0" cmp --a v2 --b v1 --json
python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); sys.exit(0 if not c["regressed"] and [r["class"] for r in c["rows"] if r["kind"]=="metric"]==["improvement"] else 1)' \
	"$tmp/out" && ok "--json: the improvement's class" || fail "--json: the improvement's class"

# ---- the other way round: an improvement, exit 0 ----------------------------
expect_exit 0 "v2 against v1: exit 0" cmp --a v2 --b v1
expect_grep "$tmp/out" "DIFFERENT p=0.0079 n=5+5  improvement" "an improvement, not a regression"
expect_grep "$tmp/out" "-50.0      10.00        demo.profile._raw_spin_lock" "the profile move has the other sign"

# ---- revisions: a short sha, a stored sha, run lists --------------------------
expect_exit 1 "a short sha resolves in the tree" cmp --a "${sha1%${sha1#???????}}" --b v2
expect_grep "$tmp/out" "base ${sha1%${sha1#???????}} = ${sha1%${sha1#????????????}}: 5 runs" "short sha named"
config "$tmp/gone.yaml" "$tmp/no-such-repo" "$(fl_store_yaml "$db")"
expect_exit 1 "a stored sha without the tree" "$FAULTLINE" compare --config "$tmp/gone.yaml" --a "${sha1%${sha1#??????????}}" --b "$sha2"
expect_exit 2 "a tag without the tree" "$FAULTLINE" compare --config "$tmp/gone.yaml" --a v1 --b "$sha2"
expect_grep "$tmp/err" "--a v1: " "the side is named"
expect_grep "$tmp/err" "in the store: " "and the store was asked too"
set -- $(runs_of "$sha1")
a3="run:$1,$2,$3"
set -- $(runs_of "$sha2")
b3="run:$1,$2,$3"
expect_exit 0 "three runs against three: no verdict, exit 0" cmp --a "$a3" --b "$b3"
expect_grep "$tmp/out" "UNKNOWN p=0.1 n=3+3" "three runs a side cannot reach p < 0.05"
expect_grep "$tmp/out" "base $a3: 3 runs ($(echo "${a3#run:}" | tr ',' ' '))" "run list named"

# ---- an old run that names its commit only through its build --------------------
q "INSERT INTO builds(commit_id, kernel, config_hash, compiler, status)
   SELECT id, 'k', 'h', 'cc', 'ok' FROM commits WHERE sha = '$sha1';
   INSERT INTO runs(build_id, machine_id, benchmark, status)
   SELECT b.id, m.id, 'demo', 'ok' FROM builds b, machines m WHERE m.name = 'box';
   INSERT INTO samples(run_id, metric, mode, tasks, seq, value)
   SELECT max(id), 'value', '', 1, 0, 100 FROM runs;"
old=$(q "SELECT max(id) FROM runs")
expect_exit 1 "an old run counts for its build's commit" cmp --a v1 --b v2
expect_grep "$tmp/out" "base v1 = ${sha1%${sha1#????????????}}: 6 runs ($(runs_of "$sha1") $old)" "six runs of v1"
expect_grep "$tmp/out" "n=6+5" "and six values"

# ---- bad input -------------------------------------------------------------------
q "INSERT INTO runs(machine_id, commit_id, benchmark, status) SELECT m.id, c.id, 'demo', 'panic' FROM machines m, commits c WHERE m.name = 'box' AND c.sha = '$sha2'"
panic=$(q "SELECT max(id) FROM runs")
expect_exit 2 "a run that is not ok" cmp --a "run:$panic" --b v2
expect_grep "$tmp/err" "--a: run $panic is panic of demo on box, not an ok run of demo on box" "named with its status"
expect_exit 1 "a panicked run does not count for its commit" cmp --a v1 --b v2
expect_grep "$tmp/out" "new  v2 = ${sha2%${sha2#????????????}}: 5 runs" "still five runs of v2"
expect_exit 2 "no such run" cmp --a run:99999 --b v2
expect_grep "$tmp/err" "--a: no run 99999 in the store" "named"
expect_exit 2 "a run named twice" cmp --a "run:$old,$old" --b v2
expect_exit 2 "a malformed run list" cmp --a "run:1,,2" --b v2
expect_grep "$tmp/err" "expected run:ID[,ID...]" "says the form"
expect_exit 2 "an unknown revision" cmp --a v9 --b v2
expect_grep "$tmp/err" "unknown revision 'v9'" "named by the tree"
expect_exit 2 "a commit without runs" cmp --a master --b v2
expect_grep "$tmp/err" "no ok runs of demo on box in the store" "says there are no runs"
expect_exit 2 "--b missing" cmp --a v1
expect_exit 2 "an unknown machine" cmp --a v1 --b v2 --machine nope
expect_grep "$tmp/err" "no machine 'nope'" "named"
expect_exit 2 "an unknown benchmark" cmp --a v1 --b v2 --benchmark nope
if fl_pg; then # a database the cluster does not have
	config "$tmp/nostore.yaml" "$repo" "{ url: \"${FL_TEST_PG%/*}/${FL_TEST_PG_PREFIX}_none\" }"
else
	config "$tmp/nostore.yaml" "$repo" "{ path: $tmp/no-such-dir/fl.db }"
fi
expect_exit 4 "a store that cannot be opened" "$FAULTLINE" compare --config "$tmp/nostore.yaml" --a v1 --b v2
finish
