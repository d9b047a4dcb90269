# remote.sh - "faultline run" on a "remote" libvirt host (remote-lib.sh:
# libvirtd on TCP 127.0.0.1 without authentication) that shares no file
# with faultline:
#  - a 2-socket guest boots from its kernel and initramfs uploaded into
#    volumes of faultline's transient pool (created on the host, in
#    pool_dir), its domain XML names those volumes and a pty console, the
#    console comes back through libvirt's stream into the run's console
#    file, the results are parsed and stored
#  - afterwards no domain and no volume of the run is left on the host
#  - faultline killed with SIGKILL leaves its guest and its volumes; the
#    next run reaps both
. tests/integration/lib.sh
. tests/integration/remote-lib.sh

rcfg=$tmp/remote.yaml
cat >"$rcfg" <<EOT
var: $FL_VAR
machines:
  - { name: remote, backend: libvirt, uri: "$remote", pool_dir: "$tmp/pool", accel: tcg,
      sockets: 2, cores: 1, threads: 1, memory_per_node: 512M, max_parallel: 1 }
benchmarks:
  - { name: pf1-remote, test: page_fault1, modes: [processes], tasks: [1, 100%], warmup: 0s,
      duration: 2s, repeat: 1, memory_per_task: 16M }
  - { name: pf1-boot, test: page_fault1, modes: [processes], tasks: [1], warmup: 0s,
      duration: 1s, repeat: 1, memory_per_task: 16M }
EOT
run() { "$FAULTLINE" -v run --config "$rcfg" --kernel-image "$kernel" --machine remote "$@"; }
# Runs in the background start faultline itself, so that $! is its pid.

# -- a guest on the remote host, from uploaded volumes, its console streamed
"$FAULTLINE" -v run --config "$rcfg" --kernel-image "$kernel" --machine remote \
	--benchmark pf1-remote >"$tmp/ok.out" 2>"$tmp/ok.err" &
pid=$!
if dom=$(wait_domain 1); then
	rv dumpxml "$dom" >"$tmp/dom.xml"
	rv vol-list "$pool" >"$tmp/vols"
else
	fail "the run never booted"
fi
wait $pid; rc=$?
[ $rc -eq 0 ] && ok "remote run exits 0" || { fail "remote run exits $rc"; cat "$tmp/ok.err"; }
expect_grep "$tmp/ok.err" "created the transient pool '$pool' in $tmp/pool" "faultline made its pool on the host"
expect_grep "$tmp/ok.err" "uploaded as $tmp/pool/$dom-kernel" "kernel uploaded into a volume"
expect_grep "$tmp/ok.err" "uploaded as $tmp/pool/$dom-initrd" "initramfs uploaded into a volume"
expect_grep "$tmp/dom.xml" "<kernel>$tmp/pool/$dom-kernel</kernel>" "the domain boots the kernel's volume"
expect_grep "$tmp/dom.xml" "<initrd>$tmp/pool/$dom-initrd</initrd>" "and the initramfs's volume"
expect_grep "$tmp/dom.xml" "<serial type='pty'>" "its console is a pty"
expect_grep "$tmp/vols" "$dom-kernel" "the kernel's volume was in the pool during the run"
expect_grep "$tmp/ok.out" "pf1-remote on remote: 1 of 1 runs ok" "results parsed"
okrun=$(q "select id from runs where status = 'ok'")
[ -n "$okrun" ] && ok "ok run stored ($okrun)" || fail "no ok run: $(q "select status, detail from runs")"
[ "$(q "select nodes || ' ' || cpus from runs where id = $okrun")" = "2 2" ] &&
	ok "the guest saw 2 nodes and 2 CPUs" || fail "environment: $(q "select nodes, cpus from runs")"
[ "$(q "select count(distinct tasks) from samples where run_id = $okrun and value > 0")" -eq 2 ] &&
	ok "samples at both points" || fail "samples: $(q "select tasks, metric, value from samples")"
console=$(q "select console_path from runs where id = $okrun")
expect_grep "$console" "Linux version" "the console from the first line of the boot"
expect_grep "$console" "FLR1 0 " "the agent's records came through the stream"
expect_grep "$console" "reboot: Power down" "to the guest's power-off"
nothing_left "after an ok run"

# -- SIGKILL: the guest and its volumes outlive faultline; the next run reaps them
last=$(q "select max(id) from runs")
"$FAULTLINE" run --config "$rcfg" --kernel-image "$kernel" --machine remote \
	--benchmark pf1-boot --job hang=1 >"$tmp/kill.out" 2>"$tmp/kill.err" &
pid=$!
if kdom=$(wait_domain $((last + 1))); then
	kill -KILL $pid
	wait $pid 2>/dev/null
	rv domstate "$kdom" >/dev/null 2>&1 && ok "SIGKILL leaves $kdom" || fail "domain vanished on SIGKILL"
	[ "$(rv vol-list "$pool" | grep -c "$kdom-")" -eq 2 ] && ok "and its 2 volumes" ||
		fail "volumes after SIGKILL: $(rv vol-list "$pool")"
else
	fail "the killed run never booted"; kill -KILL $pid; cat "$tmp/kill.err"
fi
run --benchmark pf1-boot >"$tmp/next.out" 2>"$tmp/next.err" && ok "next run exits 0" ||
	{ fail "next run"; cat "$tmp/next.err"; }
expect_grep "$tmp/next.err" "reaped guest $kdom on $remote" "next run reaped the killed run's guest"
expect_grep "$tmp/next.err" "reaped volume $kdom-kernel of pool '$pool' on $remote" "and its kernel's volume"
expect_grep "$tmp/next.err" "reaped volume $kdom-initrd" "and its initramfs's volume"
nothing_left "after a reap"
finish
