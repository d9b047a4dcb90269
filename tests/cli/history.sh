# history.sh - what the watch tests share (sourced after lib.sh): a command
# benchmark whose speed the checked-out commit sets, a git history with a
# slowdown injected by one commit, and the count of mails in a Maildir.
#   $tmp/bench   logs each invocation's commit to $BENCH_LOG, sleeps
#                $BENCH_SLEEP, holds while the file $BENCH_GATE exists (and
#                says so in $BENCH_GATE.held), exits 125 on $SKIP, prints five noisy numbers
#                around 100 (90 once the file "slow" is in; perf.conf's speed)
#   make_repo DIR KIND UPTO  (see below)
#   mails MAILDIR (the SMTP server and free_port are lib.sh's)
PY=/usr/bin/python3

cat >"$tmp/bench" <<'SH'
#!/bin/sh
# logs each invocation, sleeps $BENCH_SLEEP, prints 5 samples around the speed
echo "$FAULTLINE_COMMIT" >>"$BENCH_LOG"
[ -n "${SKIP:-}" ] && [ "$FAULTLINE_COMMIT" = "$SKIP" ] && exit 125
[ -n "${BENCH_SLEEP:-}" ] && sleep "$BENCH_SLEEP"
if [ -n "${BENCH_GATE:-}" ] && [ -e "$BENCH_GATE" ]; then
	echo "$$" >"$BENCH_GATE.held"
	for _ in $(seq 1200); do [ -e "$BENCH_GATE" ] || break; sleep 0.05; done
fi
base=100
[ -f perf.conf ] && base=$(sed -n 's/^speed=\([0-9]*\).*/\1/p' perf.conf)
[ -f slow ] && base=90
awk -v seed="$$$(date +%N)" -v base="$base" 'BEGIN { srand(seed % 2147483647)
	for (i = 0; i < 5; i++)
		printf "%.3f\n", base + sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand()) }'
SH
chmod +x "$tmp/bench"

git_in() { (cd "$1" && shift && GIT_AUTHOR_NAME='Ada Lovelace' GIT_AUTHOR_EMAIL=ada@example.org \
	GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@example.org git -c init.defaultBranch=master "$@"); }

# make_repo DIR KIND: v1.0 (5 commits), v1.1 (10); with "more", commits 11..30 and v1.2.
# KIND clean: commit 23 only adds the file "slow". KIND conflict: commit 23 turns
# perf.conf's speed=100 into speed=90, commit 26 edits that line again.
make_repo() {
	dir=$1 kind=$2 upto=$3
	[ -d "$dir" ] || { mkdir -p "$dir" && git_in "$dir" init -q && printf 'speed=100\nother=1\n' >"$dir/perf.conf"; }
	start=$(($(git_in "$dir" rev-list --count HEAD 2>/dev/null || echo 0) + 1))
	for i in $(seq "$start" "$upto"); do
		echo "$i" >"$dir/counter-$i"
		if [ "$i" -eq 23 ] && [ "$kind" = clean ]; then rm -f "$dir/counter-$i"; echo slow >"$dir/slow"; fi
		[ "$i" -eq 23 ] && [ "$kind" = conflict ] && sed -i 's/^speed=100$/speed=90/' "$dir/perf.conf"
		[ "$i" -eq 26 ] && [ "$kind" = conflict ] && sed -i 's/^speed=90$/speed=90 # tuned/' "$dir/perf.conf"
		git_in "$dir" add -A
		if [ "$i" -eq 23 ]; then git_in "$dir" commit -qm "mm: make things slower"; else git_in "$dir" commit -qm "commit $i"; fi
		case $i in 5) git_in "$dir" tag v1.0 ;; 10) git_in "$dir" tag v1.1 ;; 30) git_in "$dir" tag -a -m v1.2 v1.2 ;; esac
	done
}

mails() { ls "$1/new" 2>/dev/null | wc -l; }
