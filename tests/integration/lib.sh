# lib.sh - what the libvirt tests share (sourced after tests/cli/lib.sh's
# helpers): libvirtd started, Debian's cloud kernel fetched ($kernel), a
# scratch state directory ($FL_VAR) with its store ($db, q SQL), and
# configs/test-libvirt.yaml ($cfg).
. tests/cli/lib.sh

scripts/libvirtd-start.sh >/dev/null || { fail "libvirtd"; finish; exit 1; }
kernel=$(scripts/fetch-test-kernel.sh) || { fail "test kernel"; finish; exit 1; }
export FL_VAR="$tmp/var"
cfg=configs/test-libvirt.yaml
db="$FL_VAR/faultline.db"
q() { sqlite3 "$db" "$1"; }
