#!/bin/sh
# demo-interrupt.sh - Ctrl-C during "make demo" ends it cleanly: make prints
# no "make: *** [demo] Error", dies of the SIGINT (the shell sees 130), and
# nothing the demo started is left (the SMTP sink, faultline watch, the
# log's follower). scripts/demo.sh runs under a make of its own, with a
# stand-in faultline whose "watch" works until stopped and a demo history
# that is up to date (a repository with the two tags; the real one takes
# minutes to make). SIGINT goes to the whole process group, as a terminal
# sends it. Then the demo to its end with a stand-in watch that logs a
# culprit and mails the sink: the demo prints the culprit and the mail.
. tests/cli/lib.sh

src=$(pwd)
# the history: v6.1-fl0, and v6.1-fl1 made from this series
tree=$tmp/linux
series=$(cat kernels/demo/patches/[0-9][0-9][0-9][0-9]-*.patch | sha256sum | cut -c1-64)
git init -q "$tree" && git -C "$tree" -c user.name=t -c user.email=t@t commit -q --allow-empty -m base &&
	git -C "$tree" tag v6.1-fl0 &&
	git -C "$tree" -c user.name=t -c user.email=t@t commit -q --allow-empty -m fl1 &&
	git -C "$tree" -c user.name=t -c user.email=t@t -c tag.gpgSign=false tag -a -m "series: $series" v6.1-fl1 ||
	fail "the stand-in history"
# The stand-in faultline: "watch" works until stopped, or (FL_TEST_CULPRIT)
# logs a culprit as the real one does and mails a report to the sink.
cat >"$tmp/faultline" <<'SH'
#!/bin/sh
case " $* " in
*" watch "*)
	echo "stand-in watch: working" >&2
	echo $$ >"$FL_TEST_WATCH_PID"
	[ -n "${FL_TEST_CULPRIT:-}" ] || exec sleep 300
	echo "2026-12-04T15:00:00.000Z info bisect: regression 1: culprit $FL_TEST_CULPRIT (confidence 0.990, 50.0% worse, 12 runs, 5 commits tested)" >&2
	/usr/bin/python3 -c '
import smtplib, sys
msg = "From: faultline <fl@localhost>\r\nTo: dev@localhost\r\nSubject: [demo v6.1-fl1] regression: page_fault2 -50%\r\n\r\nThe culprit is the stand-in commit.\r\n"
with smtplib.SMTP("127.0.0.1", int(sys.argv[1])) as s:
    s.sendmail("fl@localhost", ["dev@localhost"], msg)' "$FL_DEMO_SMTP_PORT" >&2
	exit 0 ;;
esac
exit 0
SH
chmod +x "$tmp/faultline"
printf 'demo:\n\t@sh %s/scripts/demo.sh\n' "$src" >"$tmp/Makefile"

FL_TEST_WATCH_PID=$tmp/watch.pid FAULTLINE=$tmp/faultline FL_DEMO_VAR=$tmp/state \
FL_DEMO_TREE=$tree FL_DEMO_SMTP_PORT=$(free_port) FL_DEMO_WEB_PORT=$(free_port) \
	python3 - "$tmp" <<'PY' >"$tmp/result" 2>&1
import os, signal, subprocess, sys, time
tmp = sys.argv[1]
def dfl():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
out = open(os.path.join(tmp, "demo.out"), "w")
p = subprocess.Popen(["make", "-C", tmp, "--no-print-directory", "demo"], stdout=out,
                     stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=dfl)
# until the stand-in watch works (the SMTP sink is up by then)
for _ in range(600):
    if os.path.exists(os.path.join(tmp, "watch.pid")) or p.poll() is not None:
        break
    time.sleep(0.1)
time.sleep(0.5)
print("watching", os.path.exists(os.path.join(tmp, "watch.pid")))
os.killpg(p.pid, signal.SIGINT)
try:
    rc = p.wait(60)
except subprocess.TimeoutExpired:
    rc = "timeout"
print("make", rc)
time.sleep(0.5)
left = subprocess.run(["ps", "-o", "pid=,args=", "-g", str(p.pid)], capture_output=True,
                      text=True).stdout.strip()
print("left", left.replace("\n", " | ") or "none")
for line in left.splitlines():  # this test's own leftovers, by PID
    os.kill(int(line.split()[0]), signal.SIGKILL)
PY
cat "$tmp/result"
grep -qx "watching True" "$tmp/result" && ok "the demo reached faultline watch" ||
	{ fail "the demo reached faultline watch"; sed 's/^/  | /' "$tmp/demo.out"; }
grep -qx "make -2" "$tmp/result" && ok "make died of the SIGINT (the shell says 130)" ||
	fail "make died of the SIGINT: $(grep '^make' "$tmp/result")"
if grep -q "make: \*\*\*" "$tmp/demo.out"; then
	fail "no 'make: ***' line"; sed "s/^/  | /" "$tmp/demo.out"
else
	ok "no 'make: ***' line"
fi
expect_grep "$tmp/demo.out" "demo: stopping" "the demo says it stops"
grep -qx "left none" "$tmp/result" && ok "nothing the demo started is left" ||
	fail "nothing the demo started is left: $(grep '^left' "$tmp/result")"

# To its end (FL_DEMO_SERVE=0 stops after printing): the culprit and the mail.
rm -f "$tmp/watch.pid"
culprit=$(git -C "$tree" rev-parse v6.1-fl1^{commit})
FL_TEST_CULPRIT=$culprit FL_TEST_WATCH_PID=$tmp/watch.pid FAULTLINE=$tmp/faultline \
FL_DEMO_VAR=$tmp/state2 FL_DEMO_TREE=$tree FL_DEMO_SMTP_PORT=$(free_port) \
FL_DEMO_WEB_PORT=$(free_port) FL_DEMO_SERVE=0 \
	expect_exit 0 "the demo to its end" sh scripts/demo.sh
expect_grep "$tmp/out" "bisect: regression 1: culprit $culprit" "the watch's log is on the terminal"
expect_grep "$tmp/out" "culprit: ${culprit%${culprit#???????}} (\"fl1\") by t" "prints the culprit"
expect_grep "$tmp/out" "Subject: [demo v6.1-fl1] regression: page_fault2 -50%" "prints the mail's subject"
expect_grep "$tmp/out" "The culprit is the stand-in commit." "and its body"
finish
