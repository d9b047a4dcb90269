#!/bin/sh
# demo.sh - make demo as a test (ctest label e2e, "make e2e"): the demo
# history's v6.1-fl1 against v6.1-fl0 on a libvirt NUMA guest, through
# faultline watch --once, in a scratch state directory and on free ports.
# Asserts that the regression is found and bisected to the injected commit
# (kernels/demo/CULPRIT), that the culprit is verified and revert-checked,
# that the mail arrived at the SMTP sink with the culprit in its subject,
# that progress was shown, and that the results pages answer about it.
#
# The history (var/demo/linux, or FL_DEMO_TREE) is made if missing and
# shared with make demo. About 20-30 minutes on 2 cores.
. tests/cli/lib.sh

free_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# FL_E2E_STATE=DIR keeps the state (store, log, mail) for bench/demo DIR
export FL_DEMO_VAR=${FL_E2E_STATE:-$tmp/state}
export FL_DEMO_TREE=${FL_DEMO_TREE:-$(pwd)/var/demo/linux}
export FL_DEMO_SMTP_PORT=$(free_port)
export FL_DEMO_WEB_PORT=$(free_port)
export FL_DEMO_SERVE=0
export FAULTLINE # the binary under test, not necessarily build/'s
log=$FL_DEMO_VAR/demo.log

start=$(date +%s)
sh scripts/demo.sh >"$tmp/demo.out" 2>&1
rc=$?
echo "# make demo took $(($(date +%s) - start)) s"
[ "$rc" -eq 0 ] && ok "the demo ends with 0" || { fail "the demo ends with $rc"; tail -n 60 "$tmp/demo.out" | sed 's/^/  | /'; }

g() { git -C "$FL_DEMO_TREE" "$@"; }
want_subject=$(git mailinfo /dev/null /dev/null <"kernels/demo/patches/$(cat kernels/demo/CULPRIT)" |
	sed -n 's/^Subject: //p')
want=$(g log --format='%H %s' v6.1-fl0..v6.1-fl1 | while read -r sha subj; do
	[ "$subj" = "$want_subject" ] && echo "$sha"; done)
[ -n "$want" ] && ok "the history has the injected commit ($want_subject)" ||
	fail "no commit of the history is '$want_subject'"

# The pipeline, stage by stage, in the service's own log
expect_grep "$log" "v6.1-fl1 scheduled against v6.1-fl0" "the new tag is scheduled against its baseline"
expect_grep "$log" "% regression of page_fault2" "the comparison finds a regression"
grep -Eq "bisect: regression [0-9]+: step [0-9]+ \(run [0-9]+\): [0-9a-f]{12} -> .*the culprit is" "$log" &&
	ok "bisection progress is shown" || fail "no bisection progress in the log"
grep -Eq "build: .*(%|objects|done)" "$log" && ok "build progress is shown" || fail "no build progress in the log"
got=$(sed -n 's/.*bisect: regression [0-9]*: culprit \([0-9a-f]*\) .*/\1/p' "$log" | tail -n1)
[ -n "$got" ] && [ "$got" = "$want" ] && ok "the culprit is the injected commit ($got)" ||
	fail "the culprit is '${got:-none}', wanted $want"
grep -Eq "bisect: regression [0-9]+: .*, verifying it" "$log" && ok "the culprit is verified" ||
	fail "no verification in the log"
expect_grep "$log" "revert:" "the revert is checked"

# The mail
mail=$(grep -l "^Subject: " "$FL_DEMO_VAR"/mail/new/* 2>/dev/null | head -n1)
short=$(echo "$want" | cut -c1-10)
if [ -n "$mail" ] && grep -q "^Subject: .*$short" "$mail"; then
	ok "the report arrived with the culprit in its subject"
	grep "^Subject:" "$mail" | sed 's/^/# /'
else
	fail "no mail names $short"; cat "$FL_DEMO_VAR"/mail/new/* 2>/dev/null | grep "^Subject:" | sed 's/^/  | /'
fi
grep -q "^To: .*kernel-developer@localhost" "$mail" 2>/dev/null && ok "addressed as configured" ||
	fail "the mail is not addressed to kernel-developer@localhost"
grep -q "revert" "$mail" 2>/dev/null && grep -q "$want" "$mail" &&
	ok "the mail gives the full culprit and the revert check" || fail "the mail lacks the culprit or the revert"

# The pages
"$FAULTLINE" serve --config configs/demo.yaml >"$tmp/url" 2>"$tmp/serve.err" &
serve_pid=$!
i=0
until [ -s "$tmp/url" ] || [ $i -ge 100 ]; do i=$((i + 1)); sleep 0.1; done
url=$(head -n1 "$tmp/url")
url=${url%/}
get() { curl -fsS "$url$1" >"$tmp/page" 2>"$tmp/curl.err"; }
get /api/bisections && bid=$(/usr/bin/python3 -c '
import json, sys
b = [x for x in json.load(open(sys.argv[1]))["bisections"] if x["result"] == "culprit"]
print(b[0]["id"] if b else "")' "$tmp/page") || bid=
[ -n "$bid" ] && ok "the API lists the bisection with a culprit" || fail "no bisection with a culprit in /api/bisections"
get "/bisect/$bid" && grep -q "$short" "$tmp/page" && ok "/bisect/$bid names the culprit" ||
	fail "/bisect/$bid does not name $short"
get "/compare?a=v6.1-fl0&b=v6.1-fl1&benchmark=page_fault2&machine=numa2" && grep -q "page_fault2" "$tmp/page" &&
	ok "the compare page shows page_fault2" || fail "the compare page fails"
get / && grep -q "v6.1-fl1" "$tmp/page" && ok "the dashboard shows v6.1-fl1" || fail "the dashboard does not show v6.1-fl1"
kill "$serve_pid" 2>/dev/null
wait "$serve_pid" 2>/dev/null

[ "$fails" -eq 0 ] || { echo "# the demo's output:"; tail -n 80 "$tmp/demo.out" | sed 's/^/  | /'; }
finish
