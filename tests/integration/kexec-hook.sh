#!/bin/sh
# kexec-hook.sh - the kexec step of a bare-metal box as CI machines can do
# it (fl-agent daemon --kexec-hook): a real kexec replaces the running
# kernel, which a CI machine cannot allow. Instead, the /init of the
# initramfs the daemon downloaded and verified (fl-agent-static) runs as a
# child process in guest mode, with the kernel command line the daemon
# would have passed to kexec: the same job, the same results store
# (fl.results=). Only the boot of $FL_KERNEL itself is left out.
#
# Environment from the daemon: FL_KERNEL, FL_INITRD, FL_CMDLINE, FL_JOB.
# For the tests: HOOK_LOG (append the command line there), HOOK_SLEEP
# (seconds to wait first: a box that takes too long).
set -eu
[ -n "${HOOK_LOG:-}" ] && echo "$FL_JOB $FL_CMDLINE" >>"$HOOK_LOG"
[ -n "${HOOK_SLEEP:-}" ] && sleep "$HOOK_SLEEP"
root=$(mktemp -d /tmp/fl-kexec-XXXXXX)
trap 'rm -rf "$root"' EXIT
cd "$root"
cpio -id --quiet <"$FL_INITRD"
# The agent's own verdict travels in its records, as after a real boot.
./init guest --cmdline "$FL_CMDLINE" >console.log || true
