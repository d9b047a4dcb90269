# remote-lib.sh - what remote.sh and remote-lost.sh share (sourced after
# lib.sh): the "remote" libvirt host, a libvirtd listening on TCP
# 127.0.0.1:16509 without authentication ($remote), reached only through
# libvirt (no shared file: the runs upload their kernel and initramfs into
# a pool of their own in $tmp/pool, $pool, and read the console through a
# stream); wait_domain, nothing_left and the pool's removal at the end.
#
# Without the listener the test fails when FL_LIBVIRTD_TCP=1 says one was
# asked for (CI: .ci/run), and is skipped (77) with the reason otherwise:
# scripts/libvirtd-start.sh starts a listening libvirtd only with
# FL_LIBVIRTD_TCP=1, and uses a libvirtd that already runs as it is.
remote=qemu+tcp://127.0.0.1/system
if ! virsh -c "$remote" uri >/dev/null 2>&1; then
	if [ "${FL_LIBVIRTD_TCP:-0}" = 1 ]; then
		fail "no libvirtd answers on $remote although FL_LIBVIRTD_TCP=1: a libvirtd started without --listen is running (scripts/libvirtd-start.sh uses it as it is); stop it and start again with FL_LIBVIRTD_TCP=1"
		finish
		exit 1
	fi
	echo "SKIP: no libvirtd listens on TCP 127.0.0.1:16509 ($remote); FL_LIBVIRTD_TCP=1 scripts/libvirtd-start.sh starts one (CI sets it, and fails instead of skipping)"
	exit 77
fi
# faultline's transient pool for pool_dir $tmp/pool: "faultline-" and the
# directory with every character but a-z and 0-9 as "_" (machine/volume.c)
pool=faultline-$(printf '%s' "$tmp/pool" | tr -c 'a-z0-9' '_')
at_exit 'virsh -c "$remote" pool-destroy "$pool" >/dev/null 2>&1'

rv() { virsh -c "$remote" "$@"; }

# wait_domain RUN_ID: waits until the run's domain runs on the host; prints its name.
wait_domain() {
	i=0
	while [ $i -lt 1200 ]; do
		d=$(q "select domain from runs where id = $1" 2>/dev/null)
		if [ -n "$d" ] && rv domstate "$d" 2>/dev/null | grep -q running; then
			echo "$d"
			return 0
		fi
		i=$((i + 1))
		sleep 0.1
	done
	return 1
}

# nothing_left WHAT: no domain of the store's runs and no volume of ours on the host.
nothing_left() {
	q "select domain from runs where domain is not null" >"$tmp/ours"
	rv list --all --name >"$tmp/all"
	left=$(grep -xFf "$tmp/ours" "$tmp/all" || true)
	[ -z "$left" ] && ok "$1: no domain of these runs is left ($(wc -l <"$tmp/ours") runs)" ||
		{ fail "$1: domains left: $left"; for d in $left; do rv destroy "$d"; done; }
	vols=$(rv vol-list "$pool" 2>/dev/null | awk '$1 ~ /^fl-/ { print $1 }')
	[ -z "$vols" ] && ok "$1: no volume left in pool $pool" || fail "$1: volumes left: $vols"
	[ "$(q "select count(*) from runs where status = 'running'")" -eq 0 ] &&
		ok "$1: no run left running" || fail "$1: runs left running"
}
