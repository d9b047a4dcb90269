#!/bin/sh
# baremetal.sh - bare-metal boxes end to end with the real programs:
# "faultline run" on baremetal machines (which serves the agent API on a
# loopback port) and "fl-agent daemon" as the box. CI machines cannot
# kexec, so the daemon's --kexec-hook is tests/integration/kexec-hook.sh:
# the downloaded initramfs's /init runs in guest mode as a child process,
# with the job and results store of the kernel command line (the test seam
# docs/baremetal.md describes). The kernel image is random bytes: its
# SHA-256 is checked on the box, it is never booted.
#  - a job goes through: downloads verified, the records land in the
#    results store, are uploaded, and the run's samples are in the store;
#    nothing is left on the box
#  - the server drops the connection after 3 records: the upload resumes,
#    no record twice, no sample lost
#  - the daemon killed in the middle of its upload: started again, it
#    resumes after the records the orchestrator confirmed
#  - a wrong token is refused with the reason
#  - a box that never answers: the run is a timeout, the job expires, the
#    box is offline after max_misses and its runs infra-error at once, until
#    it asks for work again
#  - a box that comes back after the deadline: its upload is refused (410),
#    its results dropped on the box
#  - current-kernel mode: the benchmark on the box's running kernel
. tests/cli/lib.sh

agent=$FL_BUILD_DIR/agents/fl-agent
hook=$PWD/tests/integration/kexec-hook.sh
db=$tmp/var/faultline.db
q() { sqlite3 "$db" "$1"; }
head -c 300000 /dev/urandom >"$tmp/bzImage"
# One port for every run, so that a box reaches whichever "faultline run" serves the store.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
for b in box1 box2 box3 box4 box5; do echo "token-of-$b-0123456789abcdef" >"$tmp/$b.token"; done
echo "not-the-token-of-box1-at-all" >"$tmp/wrong.token"
cat >"$tmp/fl.yaml" <<EOT
var: $tmp/var
agent_api: { listen: "127.0.0.1:$port" }
machines:
  - { name: box1, backend: baremetal, token_file: $tmp/box1.token, boot_timeout: 30s }
  - { name: box3, backend: baremetal, token_file: $tmp/box3.token, max_misses: 2 }
  - { name: box4, backend: baremetal, token_file: $tmp/box4.token }
  - { name: box5, backend: baremetal, token_file: $tmp/box5.token, boot: current }
benchmarks:
  - { name: pf, test: page_fault1, modes: [processes, threads], tasks: [1, 2], warmup: 0s,
      duration: 1s, memory_per_task: 4M }
EOT

# start_run NAME ARGS...: "faultline run" in the background; its agent API URL in $url.
start_run() {
	name=$1
	shift
	"$FAULTLINE" run --config "$tmp/fl.yaml" --benchmark pf --repeat 1 "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" &
	run_pid=$!
	for _ in $(seq 100); do
		grep -q "Z info agent api: listening on $url/ " "$tmp/$name.err" 2>/dev/null && return
		sleep 0.1
	done
	fail "$name: no agent API on $url"
	cat "$tmp/$name.err"
}
# daemon NAME BOX [ARGS...]: one pass of the box's daemon, once run NAME has
# published its agent job (a pass before that finds nothing to do); exit
# status in $drc.
daemon() {
	name=$1 box=$2
	shift 2
	for _ in $(seq 100); do
		grep -q "agent job [0-9]* for box" "$tmp/$name.err" 2>/dev/null && break
		sleep 0.1
	done
	"$agent" daemon --server "$url" --box "$box" --token-file "$tmp/$box.token" \
		--results "$tmp/$box" --kexec-hook "$hook" --poll 1s --once "$@" 2>>"$tmp/$name.daemon"
	drc=$?
	return $drc
}
end_run() {
	wait $run_pid
	rrc=$?
}
run_id() { q "select max(id) from runs"; }
# both_ok NAME: the daemon and the run of NAME exited 0.
both_ok() {
	[ $drc -eq 0 ] && [ $rrc -eq 0 ] && ok "$1: daemon and run exit 0" ||
		{ fail "$1: daemon $drc, run $rrc"; cat "$tmp/$1.daemon" "$tmp/$1.err"; }
}
# run_ok NAME RUN: the run is ok with 8 samples (4 points, total and per task).
run_ok() {
	[ "$(q "select status || ' ' || (select count(*) from samples where run_id = $2) from runs where id = $2")" = "ok 8" ] &&
		ok "$1: run ok, 8 samples" || fail "$1: $(q "select status, detail from runs where id = $2")"
}
# collected NAME: how many frames the box collected, from its log.
collected() { sed -n 's/.*job [0-9]*: \([0-9]*\) records collected.*/\1/p' "$tmp/$1.daemon" | tail -1; }

# -- a job goes through
export HOOK_LOG=$tmp/hook.log
start_run e2e --machine box1 --kernel-image "$tmp/bzImage"
daemon e2e box1
end_run
both_ok e2e
r=$(run_id)
run_ok e2e "$r"
# (a host kernel booted with profile= adds profile records: not what is checked here)
[ "$(q "select group_concat(type) from (select type from run_records where run_id = $r and type not in ('profile', 'ksyms') order by seq)")" = "env,result,result,result,result,done" ] &&
	ok "every record, in order" ||
	fail "records: $(q "select group_concat(type) from run_records where run_id = $r")"
expect_grep "$tmp/e2e.daemon" "kernel: 300000 bytes, sha256" "kernel verified on the box"
expect_grep "$tmp/e2e.daemon" "initrd: " "initramfs verified on the box"
expect_grep "$HOOK_LOG" "fl.job=test=page_fault1;mode=processes,threads;tasks=1,2" "job on the command line"
expect_grep "$HOOK_LOG" "fl.results=$tmp/box1/jobs/" "results store on the command line"
expect_grep "$HOOK_LOG" "fl.end=reboot" "the test kernel reboots into the box's own"
# frames the box collected (a result longer than one frame takes several)
nf=$(collected e2e)
[ "$(q "select state || ' ' || records || ' ' || (select count(*) from agent_records where job_id = agent_jobs.id) from agent_jobs where run_id = $r")" = "uploaded $nf $nf" ] &&
	ok "agent job uploaded with all $nf frames" ||
	fail "agent job: $(q "select state, records from agent_jobs where run_id = $r") (box: $nf)"
[ -z "$(ls "$tmp/box1/jobs")" ] && ok "nothing left on the box" || fail "left: $(ls "$tmp/box1/jobs")"
q "select machine_facts from runs where id = $r" | grep -q '"cpus":' &&
	ok "the box's facts on the run" || fail "facts: $(q "select machine_facts from runs where id = $r")"
expect_grep "$tmp/e2e.out" "pf on box1: 1 of 1 runs ok" "table printed"

# -- the server drops the connection once 3 records are kept
export FAULTLINE_AGENTAPI_CUT=3
start_run cut --machine box1 --kernel-image "$tmp/bzImage"
unset FAULTLINE_AGENTAPI_CUT
daemon cut box1 --batch 2
end_run
both_ok cut
run_ok cut "$(run_id)"
r=$(run_id)
expect_grep "$tmp/cut.err" "dropping the connection after 4 records kept" "server dropped the connection"
expect_grep "$tmp/cut.daemon" "upload of records 2-3 cut" "box saw the cut"
expect_grep "$tmp/cut.err" "2 records, 2 of them kept already" "the batch sent again is not kept twice"
nf=$(collected cut)
[ "$(q "select count(*) || ' ' || count(distinct seq) || ' ' || max(seq) from agent_records join agent_jobs on agent_jobs.id = job_id where run_id = $r")" = "$nf $nf $((nf - 1))" ] &&
	ok "cut upload: $nf frames, seq 0-$((nf - 1)), once each" ||
	fail "cut upload frames: $(q "select group_concat(seq) from agent_records join agent_jobs on agent_jobs.id = job_id where run_id = $r")"

# -- the daemon killed in the middle of its upload, then started again
start_run kill --machine box1 --kernel-image "$tmp/bzImage"
(export FL_AGENT_CRASH_AT=upload:2; daemon kill box1 --batch 2)
first=$?
job=$(ls "$tmp/box1/jobs")
[ $first -eq 137 ] && ok "daemon killed mid-upload" || { fail "daemon exit $first"; cat "$tmp/kill.daemon"; }
[ "$(cat "$tmp/box1/jobs/$job/confirmed" 2>/dev/null)" = 2 ] && ok "2 records confirmed before the kill" ||
	fail "confirmed: $(cat "$tmp/box1/jobs/$job/confirmed" 2>/dev/null)"
daemon kill box1 --batch 2
end_run
# The run ends once its only job is uploaded, and this pass (--once), having
# resumed the upload, then asks for work: whether the agent API still
# answers that is a race. Its failure to ask, after the whole upload, is not
# the resumed upload's.
if [ $drc -eq 1 ] && grep -q "job $job: [0-9]* records uploaded" "$tmp/kill.daemon" &&
	tail -n 1 "$tmp/kill.daemon" | grep -q "asking for work: "; then
	drc=0
fi
both_ok kill
run_ok kill "$(run_id)"
expect_grep "$tmp/kill.daemon" "job $job: resuming the upload after 2 confirmed records" "upload resumed"
expect_grep "$tmp/kill.err" "2 records, 2 of them kept already" "the unconfirmed batch is not kept twice"
nf=$(collected kill)
[ "$(q "select count(*) from agent_records where job_id = $job")" -eq "$nf" ] &&
	ok "after the kill: all $nf frames" || fail "after the kill: frames $(q "select count(*) from agent_records where job_id = $job")"
[ -z "$(ls "$tmp/box1/jobs")" ] && ok "deleted on the box once confirmed" || fail "left: $(ls "$tmp/box1/jobs")"

# -- a box that never answers: timeouts, offline, infra-error; a wrong token meanwhile
start_run miss1 --machine box3 --kernel-image "$tmp/bzImage" --timeout 3s
"$agent" daemon --server "$url" --box box3 --token-file "$tmp/wrong.token" --results "$tmp/box3" \
	--once 2>"$tmp/wrong.daemon"
wrc=$?
end_run
[ $wrc -eq 1 ] && ok "wrong token: daemon exits 1" || fail "wrong token: daemon exits $wrc"
expect_grep "$tmp/wrong.daemon" "401: signature does not match box 'box3''s token" "wrong token: said why"
expect_grep "$tmp/miss1.err" "refused (401)" "wrong token: server logged the refusal"
r=$(run_id)
[ $rrc -eq 1 ] && ok "timeout: run exits 1" || fail "timeout: run exits $rrc"
[ "$(q "select status from runs where id = $r")" = timeout ] && ok "run classified timeout" ||
	fail "run: $(q "select status, detail from runs where id = $r")"
q "select detail from runs where id = $r" | grep -q "deadline of 3 s passed after 0 of 4 points: box 'box3' never asked for the job" &&
	ok "timeout detail names the box" || fail "detail: $(q "select detail from runs where id = $r")"
[ "$(q "select state from agent_jobs where run_id = $r")" = expired ] && ok "agent job expired" ||
	fail "agent job: $(q "select state from agent_jobs where run_id = $r")"
[ "$(q "select state || ' ' || misses from boxes where name = 'box3'")" = "online 1" ] &&
	ok "one miss, still online" || fail "box3: $(q "select state, misses from boxes where name = 'box3'")"
start_run miss2 --machine box3 --kernel-image "$tmp/bzImage" --timeout 2s
end_run
expect_grep "$tmp/miss2.err" "box box3 is offline after 2 missed deadlines in a row" "offline after max_misses"
start_run offline --machine box3 --kernel-image "$tmp/bzImage" --timeout 2s
end_run
[ $rrc -eq 4 ] && ok "offline box: run exits 4 (infra-error)" || fail "offline box: run exits $rrc"
[ "$(q "select status from runs where id = $(run_id)")" = infra-error ] &&
	ok "offline box: infra-error at once" || fail "offline: $(q "select status, detail from runs where id = $(run_id)")"
expect_grep "$tmp/offline.err" "box 'box3' is offline" "offline: said so"
[ "$(q "select count(*) from agent_jobs where box = 'box3'")" -eq 2 ] &&
	ok "no job published for an offline box" || fail "jobs: $(q "select count(*) from agent_jobs where box = 'box3'")"
# a run on another box serves the agent API while box3 asks for work
start_run back --machine box1 --kernel-image "$tmp/bzImage" --timeout 30s
daemon back box3
kill -TERM $run_pid
end_run
[ "$(q "select state || ' ' || misses from boxes where name = 'box3'")" = "online 0" ] &&
	ok "back online once heard from" || fail "box3: $(q "select state, misses from boxes where name = 'box3'")"

# -- a box that comes back after the deadline, while another run serves the agent API
start_run late --machine box4 --kernel-image "$tmp/bzImage" --timeout 3s
(export HOOK_SLEEP=4; daemon late box4) &
daemon_pid=$!
end_run
r=$(run_id)
start_run serve --machine box1 --kernel-image "$tmp/bzImage" --timeout 60s
wait $daemon_pid
drc=$?
kill -TERM $run_pid
end_run
[ "$(q "select status from runs where id = $r")" = timeout ] && ok "late box: timeout" ||
	fail "late box: $(q "select status, detail from runs where id = $r")"
q "select detail from runs where id = $r" | grep -q "box 'box4' took the job .* and sent no results in time" &&
	ok "late box: detail says it took the job" || fail "late detail: $(q "select detail from runs where id = $r")"
expect_grep "$tmp/late.daemon" "expired: its deadline passed first" "late box: told its job expired"
[ $drc -eq 0 ] && [ -z "$(ls "$tmp/box4/jobs")" ] && ok "late box: results dropped on the box" ||
	{ fail "late box: daemon $drc, left $(ls "$tmp/box4/jobs")"; cat "$tmp/late.daemon"; }
[ "$(q "select count(*) from agent_records join agent_jobs on agent_jobs.id = job_id where run_id = $r")" -eq 0 ] &&
	ok "late box: nothing kept" || fail "late box: records kept"
[ "$(q "select status from runs where id = $(run_id)")" = infra-error ] &&
	ok "SIGTERM: the serving run ends infra-error" || fail "SIGTERM: $(q "select status, detail from runs where id = $(run_id)")"

# -- current-kernel mode
unset HOOK_LOG
start_run current --machine box5
"$agent" daemon --server "$url" --box box5 --token-file "$tmp/box5.token" --results "$tmp/box5" \
	--once 2>"$tmp/current.daemon"
drc=$?
end_run
both_ok current
r=$(run_id)
run_ok current "$r"
[ "$(q "select kernel_release from runs where id = $r")" = "$(uname -r)" ] &&
	ok "current kernel: measured on the running kernel" ||
	fail "current kernel: $(q "select kernel_release from runs where id = $r")"
[ "$(q "select mode || ' ' || (kernel_path is null) from agent_jobs where run_id = $r")" = "current 1" ] &&
	ok "current kernel: no kernel to download" || fail "current kernel: job $(q "select mode, kernel_path from agent_jobs where run_id = $r")"
expect_grep "$tmp/current.daemon" "running on the current kernel" "current kernel: said so"
expect_exit 2 "current kernel: no image" "$FAULTLINE" run --config "$tmp/fl.yaml" --machine box5 \
	--benchmark pf --kernel-image "$tmp/bzImage"
expect_grep "$tmp/err" "measures the box's own kernel" "current kernel: image refused with the reason"
expect_exit 2 "kexec box: a revision or an image" "$FAULTLINE" run --config "$tmp/fl.yaml" \
	--machine box1 --benchmark pf
finish
