#!/bin/sh
# measure.sh - how far apart two kernels are on page_fault2, the way the demo
# measures them: alternating QEMU TCG boots (2 sockets, 2 NUMA nodes, 2 vCPUs)
# of image A and image B with the fl-agent initramfs, page_fault2 in processes
# and threads mode at 1 and 2 tasks. Prints per point the median, the range
# and the coefficient of variation of the boots' averages, and B's median
# against A's. Used for the figures in kernels/demo/README.md; not a test.
#
#   kernels/demo/measure.sh [-n BOOTS] [-d SECONDS] [-o DIR] A.bzImage B.bzImage
#
# BOOTS per image (default 5), SECONDS per point (default 5). The console
# logs and records are kept in DIR (default: a temporary directory, removed).
# With profile=2 on the command line: the profile records are in DIR too.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
faultline=${FAULTLINE:-$here/build/orchestrator/faultline}
agent=${FL_AGENT:-$here/build/agents/fl-agent-static}
boots=5 duration=5 out=
while getopts n:d:o: opt; do
	case $opt in
	n) boots=$OPTARG ;;
	d) duration=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { echo "usage: measure.sh [-n BOOTS] [-d SECONDS] [-o DIR] A.bzImage B.bzImage" >&2; exit 2; }
for f in "$1" "$2" "$faultline" "$agent"; do
	[ -f "$f" ] || { echo "measure: $f missing (make build; faultline build)" >&2; exit 1; }
done
if [ -z "$out" ]; then
	out=$(mktemp -d /tmp/fl-measure-XXXXXX)
	trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
"$faultline" initramfs --agent "$agent" --gzip --job "test=page_fault2
mode=processes,threads
tasks=1,2
warmup=1s
duration=${duration}s" "$out/job.img"

# boot IMAGE NAME: one guest; its records in $out/NAME.json.
boot() {
	timeout 600 qemu-system-x86_64 -accel tcg -m 2G -smp 2,sockets=2 \
		-object memory-backend-ram,id=m0,size=1G \
		-object memory-backend-ram,id=m1,size=1G \
		-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
		-kernel "$1" -initrd "$out/job.img" \
		-append "console=ttyS0 panic=-1 quiet profile=2" \
		-display none -monitor none -no-reboot -serial "file:$out/$2.log" || return 1
	"$faultline" records "$out/$2.log" >"$out/$2.json" 2>/dev/null
	grep -q '"type":"done"' "$out/$2.json"
}

i=1
while [ $i -le "$boots" ]; do
	for side in A B; do
		img=$1
		[ $side = B ] && img=$2
		if boot "$img" "$side$i"; then
			echo "measure: boot $i/$boots of $side done" >&2
		else
			echo "measure: boot $i of $side failed (console: $out/$side$i.log)" >&2
			exit 1
		fi
	done
	i=$((i + 1))
done

# One line per record: side point average.
for f in "$out"/A*.json "$out"/B*.json; do
	side=$(basename "$f" | cut -c1)
	jq -r --arg s "$side" 'select(.type == "result") |
		"\($s) \(.mode)/\(.tasks) \(.average)"' "$f"
done | awk '
function median(list, n,   i, j, t, a) {
	split(list, a, " ")
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	lo = a[1]; hi = a[n]
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function cv(list, n,   i, a, s, ss, m) {
	split(list, a, " ")
	for (i = 1; i <= n; i++) s += a[i]
	m = s / n
	for (i = 1; i <= n; i++) ss += (a[i] - m) ^ 2
	return n > 1 ? 100 * sqrt(ss / (n - 1)) / m : 0
}
{ v[$1, $2] = v[$1, $2] " " $3; n[$1, $2]++; pts[$2] = 1 }
END {
	printf "%-14s %10s %21s %6s %10s %21s %6s %8s\n", "page_fault2", "A median",
		"A range", "A cv%", "B median", "B range", "B cv%", "B vs A"
	for (p in pts) {
		ma = median(v["A", p], n["A", p]); la = lo; ha = hi
		mb = median(v["B", p], n["B", p]); lb = lo; hb = hi
		printf "%-14s %10.0f %10.0f-%-10.0f %6.1f %10.0f %10.0f-%-10.0f %6.1f %+7.1f%%\n",
			p, ma, la, ha, cv(v["A", p], n["A", p]), mb, lb, hb,
			cv(v["B", p], n["B", p]), 100 * (mb - ma) / ma
	}
}' | sort
echo "measure: $boots boots each, records in $out" >&2
