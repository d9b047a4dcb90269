# remote-lost.sh - a libvirt host lost in the middle of a run (remote-lib.sh:
# libvirtd on TCP 127.0.0.1): faultline reaches it through a forwarder
# (tcpfwd.py) that the test freezes while the guest runs, as a host that
# loses power or its link stops answering:
#  - keepalive notices within its limit; the run ends infra-error with a
#    message naming the machine and the host; no samples, nothing left
#    'running'; its retries, refused by the cut link, end infra-error too
#  - the guest and its volumes stay on the host; the next start of
#    faultline that reaches the host (the same host without the forwarder)
#    reaps both, and no domain or volume is left
#  - a guest destroyed on the host behind faultline's back: the run ends
#    infra-error saying so (not as the agent's or the kernel's failure)
. tests/integration/lib.sh
. tests/integration/remote-lib.sh

python3 tests/integration/tcpfwd.py "$tmp/port" 16509 &
fwd=$!
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$tmp/port")
via=qemu+tcp://127.0.0.1:$port/system
rcfg=$tmp/remote.yaml
cat >"$rcfg" <<EOT
var: $FL_VAR
machines:
  - { name: lost, backend: libvirt, uri: "$via", pool_dir: "$tmp/pool", accel: tcg,
      sockets: 2, cores: 1, threads: 1, memory_per_node: 512M, max_parallel: 1 }
  - { name: remote, backend: libvirt, uri: "$remote", pool_dir: "$tmp/pool", accel: tcg,
      sockets: 2, cores: 1, threads: 1, memory_per_node: 512M, max_parallel: 1 }
benchmarks:
  - { name: pf1-boot, test: page_fault1, modes: [processes], tasks: [1], warmup: 0s,
      duration: 1s, repeat: 1, memory_per_task: 16M }
EOT
run() { "$FAULTLINE" run --config "$rcfg" --kernel-image "$kernel" --benchmark pf1-boot "$@"; }

# in the background faultline itself, so that $! is its pid
"$FAULTLINE" run --config "$rcfg" --kernel-image "$kernel" --benchmark pf1-boot --machine lost \
	--job hang=1 >"$tmp/lost.out" 2>"$tmp/lost.err" &
pid=$!
if dom=$(wait_domain 1); then
	ok "the guest runs on the host through the forwarder ($dom)"
else
	fail "the run never booted"; cat "$tmp/lost.err"
fi
sleep 1
kill -STOP $fwd
t0=$(date +%s)
i=0
until grep -q "lost its libvirt host" "$tmp/lost.err" || [ $i -gt 900 ]; do sleep 0.1; i=$((i + 1)); done
took=$(( $(date +%s) - t0 ))
[ $took -le 45 ] && ok "the lost host was noticed in ${took} s (keepalive)" ||
	fail "the lost host noticed after ${took} s"
# the link is cut now: the retries are refused at once
kill -KILL $fwd
wait $pid; rc=$?
cat "$tmp/lost.err"
[ $rc -ne 0 ] && ok "the run fails (exit $rc)" || fail "the run exits 0"
expect_grep "$tmp/lost.err" "machine 'lost': lost its libvirt host $via during the run of $dom (it stopped answering keepalive messages)" "the error names the machine, the host and why"
detail=$(q "select status || ': ' || detail from runs where id = 1")
case "$detail" in
"infra-error: libvirt: machine 'lost': lost its libvirt host $via"*) ok "run 1 infra-error, the detail names the host" ;;
*) fail "run 1: $detail" ;;
esac
[ "$(q "select count(*) from runs where status != 'infra-error'")" -eq 0 ] &&
	ok "every attempt infra-error" || fail "runs: $(q "select id, status, detail from runs")"
[ "$(q "select count(*) from samples")" -eq 0 ] && ok "no samples stored" || fail "samples stored"
[ "$(q "select count(*) from runs where status = 'running'")" -eq 0 ] && ok "no run left running" ||
	fail "runs left running"
rv domstate "$dom" >/dev/null 2>&1 && ok "the guest is still on the host" ||
	fail "the guest vanished (what destroyed it?)"
[ "$(rv vol-list "$pool" | grep -c "$dom-")" -eq 2 ] && ok "and its 2 volumes" ||
	fail "volumes: $(rv vol-list "$pool")"

# -- the next start that reaches the host reaps them
run --machine remote >"$tmp/next.out" 2>"$tmp/next.err" && ok "a run on the host itself exits 0" ||
	{ fail "the next run"; cat "$tmp/next.err"; }
expect_grep "$tmp/next.err" "reaped guest $dom on $remote" "it reaped the lost run's guest"
expect_grep "$tmp/next.err" "reaped volume $dom-kernel" "and its kernel's volume"
expect_grep "$tmp/next.err" "reaped volume $dom-initrd" "and its initramfs's volume"
nothing_left "after the reap"

# -- the guest destroyed behind faultline's back
last=$(q "select max(id) from runs")
"$FAULTLINE" run --config "$rcfg" --kernel-image "$kernel" --benchmark pf1-boot --machine remote \
	--job hang=1 >"$tmp/gone.out" 2>"$tmp/gone.err" &
pid=$!
if gdom=$(wait_domain $((last + 1))); then
	i=0
	until grep -q "agent started" "$tmp/gone.err" || [ $i -gt 900 ]; do sleep 0.1; i=$((i + 1)); done
	rv destroy "$gdom" >/dev/null
	i=0
	until grep -q "was infra-error" "$tmp/gone.err" || [ $i -gt 300 ]; do sleep 0.1; i=$((i + 1)); done
else
	fail "the run never booted"; cat "$tmp/gone.err"
fi
kill -TERM $pid # its next attempt: this test is over
wait $pid
detail=$(q "select status || ': ' || detail from runs where id = $((last + 1))")
[ "$detail" = "infra-error: libvirt: machine 'remote': its guest $gdom was destroyed on $remote by something other than faultline during the run" ] &&
	ok "a guest destroyed behind faultline's back: infra-error, said so" || fail "run $((last + 1)): $detail"
[ "$(q "select count(*) from samples where run_id in (select id from runs where status != 'ok')")" -eq 0 ] &&
	ok "no samples stored for a run that is not ok" || fail "samples stored for a failed run"
nothing_left "after the destroyed guest"
finish
