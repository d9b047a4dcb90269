#!/bin/sh
# demo.sh - the main job on its embedded defaults (make demo).
#
# Until the end-to-end demo lands (kernels/demo/, the watch service, the
# libvirt backend), this checks the shipped configuration and says plainly
# which stages of the pipeline are not there yet.
set -eu
cd "$(dirname "$0")/.."
FAULTLINE=build/orchestrator/faultline

echo "== faultline config check configs/example.yaml"
"$FAULTLINE" config check configs/example.yaml
echo
echo "== store"
"$FAULTLINE" db init --config configs/example.yaml
echo
echo "The end-to-end demo (find an injected page-fault regression in Linux 6.1)"
echo "needs stages that are not built yet:"
for cmd in build run bisect compare watch serve; do
	if "$FAULTLINE" help "$cmd" >/dev/null 2>&1; then
		echo "  faultline $cmd: present"
	else
		echo "  faultline $cmd: not there yet"
	fi
done
