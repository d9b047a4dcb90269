# reports.sh - reports that reach the right people, a regression's life
# cycle and the replies that drive it, with the command backend, a real git
# repository holding a MAINTAINERS file in the kernel's format and the
# kernel's own scripts/get_maintainer.pl (from Debian's linux-source-6.1),
# a real store (SQLite; PostgreSQL as cli_reports_pg) and a real SMTP server
# (python3-aiosmtpd into a Maildir);
# replies are mails written into another Maildir:
#   1. hold mode (the default): the report goes to report.to only and says
#      whom it would have reached; the subject's shape, Reported-by and
#      Closes, the test machine, reproduce steps without a path of this host;
#   2. routing 'maintainers': To the author, Cc the committer, the
#      Signed-off-by/Reviewed-by/Acked-by people, the maintainers, reviewer
#      and lists get_maintainer.pl names for the culprit's file (not the
#      sections it does not touch), report.to/cc and the tree's cc; a trailer
#      that is not an address is left out, a name with a comma quoted;
#   3. replies: an unknown sender refused (nothing changes, no mail);
#      "#faultline test" through "watch --once --maildir": a try, its
#      answer and its verdict in the thread; the Maildir ingested again
#      does nothing; "dup:", "fix:", an unknown command, "invalid", each
#      answered in the thread; our own mail ignored; "regression
#      list|show|mark" with --json, a mark mailed in the thread;
#   4. a later tag that measures back at the baseline: the regression is
#      marked fixed by it, with the range, and the thread is told; with
#      report.improvements the tag's improvement is bisected to the fixing
#      commit and reported as an improvement (no revert check).
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
# libgit2's PCRE2 leak in a fetch (tests/lsan.supp) under the sanitizer variant
export LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
SRC=/usr/src/linux-source-6.1.tar.xz
[ -f "$SRC" ] || { fail "$SRC is there (scripts/install-deps.sh installs linux-source-6.1)"; finish; exit 1; }
# the kernel's own get_maintainer.pl, read from Debian's Linux sources (about 15 s)
tar -xJf "$SRC" -O linux-source-6.1/scripts/get_maintainer.pl >"$tmp/get_maintainer.pl" &
tar_pid=$!

cat >"$tmp/bench.sh" <<'SH'
#!/bin/sh
# 5 samples around 100, or 90 while the tree has the file "slow"
base=100
[ -f slow ] && base=90
awk -v seed="$$$(date +%N)" -v base="$base" 'BEGIN { srand(seed % 2147483647)
	for (i = 0; i < 5; i++)
		printf "%.3f\n", base + 0.5 * sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand()) }'
SH

git_in() { (cd "$1" && shift && GIT_AUTHOR_NAME='Ada Lovelace' GIT_AUTHOR_EMAIL=ada@example.org \
	GIT_COMMITTER_NAME='Carl Committer' GIT_COMMITTER_EMAIL=carl@example.org git -c init.defaultBranch=master "$@"); }

repo="$tmp/linux"
mkdir -p "$repo/mm" "$repo/net" "$repo/scripts"
git_in "$repo" init -q
cp "$tmp/bench.sh" "$repo/bench.sh"
cat >"$repo/MAINTAINERS" <<'EOF'
List of maintainers and how to submit kernel changes
====================================================

Descriptions of section entries and preferred order
---------------------------------------------------

	M: *Mail* patches to: FullName <address@domain>
	L: *Mailing list* that is relevant to this area
	F: *Files* and directories wildcard patterns

Maintainers List
----------------

MEMORY CONTROLLER (MEMCG)
M:	Johannes Weiner <hannes@example.org>
R:	Roman Reviewer <roman@example.org>
L:	cgroups@example.org
L:	linux-mm@example.org
S:	Maintained
F:	mm/memcontrol.c

MEMORY MANAGEMENT
M:	Andrew Morton <akpm@example.org>
L:	linux-mm@example.org
S:	Maintained
F:	include/linux/mm.h
F:	mm/

NETWORKING
M:	Net Maintainer <netdev-maint@example.org>
L:	netdev@example.org
S:	Maintained
F:	net/
EOF
echo "int memcg;" >"$repo/mm/memcontrol.c"
echo "int net;" >"$repo/net/core.c"
git_in "$repo" add -A
git_in "$repo" commit -qm "initial"
wait "$tar_pid" && [ -s "$tmp/get_maintainer.pl" ] && ok "get_maintainer.pl from the kernel's sources" ||
	fail "get_maintainer.pl from the kernel's sources"
cp "$tmp/get_maintainer.pl" "$repo/scripts/get_maintainer.pl"
git_in "$repo" add -A
git_in "$repo" commit -qm "scripts: get_maintainer.pl"
for i in 3 4 5; do echo "$i" >"$repo/net/n$i"; git_in "$repo" add -A; git_in "$repo" commit -qm "net: change $i"; done
git_in "$repo" tag v1.1
for i in 6 7; do echo "$i" >"$repo/net/n$i"; git_in "$repo" add -A; git_in "$repo" commit -qm "net: change $i"; done
echo "int memcg_slow;" >>"$repo/mm/memcontrol.c"
echo slow >"$repo/slow"
git_in "$repo" add -A
printf '%s\n' "mm: memcontrol: charge the root cgroup too" "" "Charge every fault." "" \
	"Signed-off-by: Ada Lovelace <ada@example.org>" \
	"Reviewed-by: Rita Reviewer <rita@example.org>" \
	"Acked-by: Doe, John <john@example.org>" \
	"Signed-off-by: not an address" \
	"Signed-off-by: Carl Committer <carl@example.org>" >"$tmp/msg"
git_in "$repo" commit -q -F "$tmp/msg"
culprit=$(git_in "$repo" rev-parse HEAD)
for i in 9 10 11; do echo "$i" >"$repo/net/n$i"; git_in "$repo" add -A; git_in "$repo" commit -qm "net: change $i"; done
git_in "$repo" tag -a -m v1.2 v1.2

mails() { ls "$1/new" 2>/dev/null | wc -l; }

# config NAME ROUTING: one tree (public_url set), one command machine, two benchmarks
config() {
	cat >"$tmp/$1.yaml" <<EOF
var: $tmp/var-$1
store: $(fl_store_yaml "$tmp/$1.db")
trees:
  - { name: linux, url: $repo, public_url: "https://git.example.org/linux.git", tags: ["v*"],
      poll: 1s, cc: ["Tree List <tree-list@example.org>"] }
machines:
  - { name: box, backend: command, command: "sh bench.sh", timeout: 1m, max_parallel: 2 }
benchmarks:
  - { name: pf, repeat: 3 }
  - { name: pf-again, repeat: 3 }
regression: { min_change: 2%, confidence: 0.95 }
report: { smtp: "smtp://127.0.0.1:$port", from: "faultline <robot@example.org>",
          to: ["Operator <ops@example.org>"], cc: [perf-list@example.org],
          allow: [lead@example.org], url: "http://results.example", retry: 1s $2 }
EOF
}
q() { fl_sql "$tmp/$1.db" "$2"; }

port=$(free_port)
out="$tmp/Sent"
smtp_start "$port" "$out" || fail "the SMTP server starts"

# ---- 1. hold mode ------------------------------------------------------------
config held ""
expect_exit 0 "hold: v1.2 regression found, bisected, reported" "$FAULTLINE" watch --config "$tmp/held.yaml" --once
expect_grep "$tmp/err" "culprit $culprit" "bisects to the culprit"
[ "$(mails "$out")" = 2 ] && ok "two reports (one per benchmark)" || fail "two reports ($(mails "$out"))"
$PY - "$out" "$culprit" "$tmp" <<'PY' && ok "hold: to the operator only; subject, tags, machine, reproduce steps" || fail "hold mode mail"
import email, email.policy, os, sys
d, culprit, tmp = sys.argv[1] + "/new", sys.argv[2], sys.argv[3]
ms = [email.message_from_binary_file(open(os.path.join(d, f), "rb"), policy=email.policy.default) for f in os.listdir(d)]
m = [m for m in ms if " pf.value " in m["Subject"]][0]
s = m["Subject"]
want = "[linux] [mm] %s: pf.value -" % culprit[:10]
assert s.startswith(want) and s.endswith("% regression"), s
assert m["To"] == "Operator <ops@example.org>", m["To"]
assert m["Cc"] is None, m["Cc"]
body = m.get_content()
for w in ["[held: report.routing is 'hold', so this went to the operator only.",
          "   To: \"Ada Lovelace\" <ada@example.org>", "   Cc: \"Johannes Weiner\" <hannes@example.org>",
          "| Reported-by: faultline <robot@example.org>", "| Closes: http://results.example/regression/",
          "on test machine: box", "kernel config: none (the command backend",
          "tree:   linux (https://git.example.org/linux.git)",
          "git clone https://git.example.org/linux.git linux && cd linux",
          "git checkout --detach %s" % culprit, "FAULTLINE_COMMIT=%s sh -c 'sh bench.sh'" % culprit,
          "cat >repro.yaml <<-'EOF'", '  - { name: "linux", url: "https://git.example.org/linux.git" }',
          'backend: command, command: "sh bench.sh"', "faultline try --config repro.yaml --tree linux",
          "#faultline fix: <sha>"]:
    assert w in body, (w, body)
assert tmp not in body, "a path of this host in the mail: " + tmp
assert "--config " + tmp not in body
PY
# the configuration as a recipient pastes it from the mail, tabs and all
$PY - "$out" >"$tmp/paste.sh" <<'PY'
import email, email.policy, os, sys
d = sys.argv[1] + "/new"
m = email.message_from_binary_file(open(os.path.join(d, sorted(os.listdir(d))[0]), "rb"), policy=email.policy.default)
lines = m.get_content().splitlines()
start = lines.index("\tcat >repro.yaml <<-'EOF'")
end = lines.index("\tEOF", start)
print("\n".join(lines[start:end + 1]))
PY
(mkdir -p "$tmp/recipient" && cd "$tmp/recipient" && sh "$tmp/paste.sh") &&
	expect_exit 0 "the configuration written from the mail is a valid one" "$FAULTLINE" config check "$tmp/recipient/repro.yaml" ||
	fail "the pasted steps write the configuration"
expect_grep "$tmp/out" 'url: "https://git.example.org/linux.git"' "with the public URL"

# ---- 2. routing 'maintainers' ------------------------------------------------
rm -f "$out"/new/*
config main ", routing: maintainers, improvements: true"
expect_exit 0 "maintainers: v1.2 reported" "$FAULTLINE" watch --config "$tmp/main.yaml" --once
[ "$(mails "$out")" = 2 ] && ok "two reports" || fail "two reports ($(mails "$out"))"
$PY - "$out" "$culprit" <<'PY' && ok "recipients: author, committer, trailers, get_maintainer.pl, report.to/cc, tree cc" || fail "recipients"
import email, email.policy, os, sys
d, culprit = sys.argv[1] + "/new", sys.argv[2]
for f in os.listdir(d):
    m = email.message_from_binary_file(open(os.path.join(d, f), "rb"), policy=email.policy.default)
    to = [(a.display_name, a.addr_spec) for a in m["To"].addresses]
    assert to == [("Ada Lovelace", "ada@example.org")], to
    # the header parses back into one address each, the comma inside the quotes
    cc = [(a.display_name, a.addr_spec) for a in m["Cc"].addresses]
    want = [("Carl Committer", "carl@example.org"), ("Rita Reviewer", "rita@example.org"),
            ("Doe, John", "john@example.org"), ("Johannes Weiner", "hannes@example.org"),
            ("Roman Reviewer", "roman@example.org"), ("Andrew Morton", "akpm@example.org"),
            ("", "cgroups@example.org"), ("", "linux-mm@example.org"), ("Operator", "ops@example.org"),
            ("", "perf-list@example.org"), ("Tree List", "tree-list@example.org")]
    assert sorted(cc) == sorted(want), cc
    assert "netdev" not in str(m["Cc"]) and "not an address" not in str(m["Cc"])
    assert "[held" not in m.get_content()
PY
expect_grep "$tmp/err" "Signed-off-by: address 'not an address' left out" "the bad trailer is said and left out"
expect_exit 0 "report show: recipients and attachment" "$FAULTLINE" report show 1 --config "$tmp/main.yaml"
expect_grep "$tmp/out" 'To: "Ada Lovelace" <ada@example.org>' "report show names its To"
expect_grep "$tmp/out" 'Cc: "Johannes Weiner" <hannes@example.org>' "and its Cc"
reg1_mid=$(q main "SELECT message_id FROM reports WHERE regression_id = 1 ORDER BY id LIMIT 1")
reg2_mid=$(q main "SELECT message_id FROM reports WHERE regression_id = 2 ORDER BY id LIMIT 1")
[ -n "$reg1_mid" ] && [ -n "$reg2_mid" ] && ok "two regressions, each with its report" || fail "two regressions"
cp "$out/new/$(ls "$out/new" | head -1)" "$tmp/example.eml"

# ---- 3. replies ----------------------------------------------------------------
inbox="$tmp/Inbox"
mkdir -p "$inbox/new" "$inbox/cur" "$inbox/tmp"
n=0
reply() { # FROM IN-REPLY-TO TEXT: a reply delivered into the inbox
	n=$((n + 1))
	$PY - "$inbox/new/$(date +%s).$n.test" "$1" "$2" "$3" "$n" <<'PY'
import sys, email.message, email.policy
path, frm, irt, text, n = sys.argv[1:]
m = email.message.EmailMessage(policy=email.policy.SMTP)
m["From"], m["To"], m["Subject"] = frm, "robot@example.org", "Re: the report"
m["Message-ID"] = "<reply-%s@people.example>" % n
m["In-Reply-To"] = irt
m["References"] = irt
m.set_content("Thanks.\n\n> #faultline invalid\n> quoted, not a command\n\n" + text.replace("\\n", "\n") + "\n", cte="quoted-printable")
open(path, "wb").write(bytes(m))
PY
}
state() { q main "SELECT state FROM regressions WHERE id = $1"; }

sent=$(mails "$out")
reply "Mallory <stranger@evil.example>" "$reg1_mid" "#faultline invalid"
expect_exit 0 "ingest: an unknown sender" "$FAULTLINE" mail ingest --config "$tmp/main.yaml" "$inbox"
expect_grep "$tmp/out" "1 refused" "refused"
[ "$(state 1)" = open ] && ok "the state is unchanged" || fail "the state is unchanged ($(state 1))"
[ "$(mails "$out")" = "$sent" ] && ok "no mail to a stranger's word" || fail "no mail to a stranger's word"
[ "$(q main "SELECT outcome FROM mail_seen WHERE sender = 'stranger@evil.example'")" = "refused: the sender is neither in report.allow nor a recipient of the report" ] &&
	ok "the refusal is recorded" || fail "the refusal is recorded"

# a fix on a branch: the culprit reverted on v1.2
git_in "$repo" checkout -q -b fix v1.2
git_in "$repo" rm -q slow
git_in "$repo" commit -qm "mm: memcontrol: do not charge the root cgroup"
fix=$(git_in "$repo" rev-parse HEAD)
git_in "$repo" checkout -q master
reply "Ada Lovelace <ada@example.org>" "$reg1_mid" "#faultline test linux fix"
expect_exit 0 "watch --once --maildir: the test command and its try" "$FAULTLINE" watch --config "$tmp/main.yaml" --once --maildir "$inbox"
expect_grep "$tmp/err" "answered in the thread" "the command is answered"
[ "$(q main "SELECT rev_sha || ' ' || verdict FROM tries WHERE regression_id = 1 AND purpose = 'fix'")" = "$fix restores" ] &&
	ok "the try measured the branch: restores" || fail "the try measured the branch ($(q main "SELECT rev_sha || ' ' || coalesce(verdict, '-') FROM tries"))"
$PY - "$out" "$reg1_mid" "$fix" <<'PY' && ok "the answer and the try's verdict in the thread, the sender copied" || fail "answer and verdict in the thread"
import email, email.policy, os, sys
d, mid, fix = sys.argv[1] + "/new", sys.argv[2], sys.argv[3]
ms = [email.message_from_binary_file(open(os.path.join(d, f), "rb"), policy=email.policy.default) for f in sorted(os.listdir(d))]
thread = [m for m in ms if m["In-Reply-To"] == mid]
# the answer threads under the reply it answers, the report first in its References
ans = [m for m in ms if "faultline read 1 command from ada@example.org" in m.get_content()]
assert len(ans) == 1, [m.get_content()[:200] for m in ms]
body = ans[0].get_content()
import re
reply_mid = re.search(r"from ada@example.org in (<[^>]+>)", body).group(1)
assert ans[0]["In-Reply-To"] == reply_mid, (ans[0]["In-Reply-To"], reply_mid)
assert ans[0]["References"].split() == [mid, reply_mid], ans[0]["References"]
assert "> #faultline test linux fix" in body and "done: try" in body and fix[:12] in body, body
assert ans[0]["Subject"].startswith("Re: [linux] [mm] "), ans[0]["Subject"]
verdict = [m for m in thread if "restores" in m.get_content() and "Tested-by" in m.get_content()]
assert len(verdict) == 1, [m.get_content()[:300] for m in thread]
PY
sent=$(mails "$out")
expect_exit 0 "the Maildir ingested again" "$FAULTLINE" mail ingest --config "$tmp/main.yaml" "$inbox"
expect_grep "$tmp/out" "2 read: 0 acted on, 2 read before" "every mail was read before"
[ "$(mails "$out")" = "$sent" ] && ok "no mail twice" || fail "no mail twice"
[ "$(q main "SELECT count(*) FROM tries WHERE purpose = 'fix'")" = 1 ] && ok "no second try" || fail "no second try"

# a fix in another repository, named by its git:// URL (a real git daemon on loopback)
mkdir -p "$tmp/pub"
git clone -q --bare "$repo" "$tmp/pub/fork.git"
git_in "$repo" clone -q "$tmp/pub/fork.git" "$tmp/fork-work"
git_in "$tmp/fork-work" checkout -q -b memcg-fix v1.2
echo "int memcg;" >"$tmp/fork-work/mm/memcontrol.c"
git_in "$tmp/fork-work" rm -q slow
git_in "$tmp/fork-work" commit -qam "mm: memcontrol: charge only child cgroups"
git_in "$tmp/fork-work" push -q origin memcg-fix
ffix=$(git_in "$tmp/fork-work" rev-parse HEAD)
gport=$(free_port)
git daemon --reuseaddr --base-path="$tmp/pub" --export-all --listen=127.0.0.1 --port="$gport" "$tmp/pub" 2>/dev/null &
gd_pid=$!
for _ in $(seq 100); do $PY -c "import socket; socket.create_connection(('127.0.0.1', $gport), 1)" 2>/dev/null && break; sleep 0.1; done
reply "Ada Lovelace <ada@example.org>" "$reg1_mid" "#faultline test git://127.0.0.1:$gport/fork.git memcg-fix\n#faultline test file://$tmp/pub/fork.git memcg-fix\n#faultline test git://127.0.0.1:$gport/fork.git no-such-branch\n#faultline invalid"
expect_exit 0 "watch --once --maildir: a fix by its git URL" "$FAULTLINE" watch --config "$tmp/main.yaml" --once --maildir "$inbox"
kill "$gd_pid" 2>/dev/null; wait "$gd_pid" 2>/dev/null
[ "$(q main "SELECT verdict FROM tries WHERE rev_sha = '$ffix'")" = restores ] &&
	ok "the fetched branch was measured: restores" || fail "the fetched branch ($(q main "SELECT rev_sha, verdict FROM tries"))"
[ "$(git_in "$repo" for-each-ref --format='%(objectname)' refs/faultline/mail/)" = "$ffix" ] &&
	ok "kept under refs/faultline/mail/" || fail "kept under refs/faultline/mail/"
$PY - "$out" <<'PY' && ok "a file:// URL and a missing branch are refused in the answer" || fail "URL refusals answered"
import email, email.policy, os, sys
d = sys.argv[1] + "/new"
bodies = [email.message_from_binary_file(open(os.path.join(d, f), "rb"), policy=email.policy.default).get_content() for f in os.listdir(d)]
hits = [b for b in bodies if "faultline read 4 commands" in b]
assert len(hits) == 1, len(hits)
b = hits[0]
assert "only http://, https:// and git:// URLs are fetched" in b, b
assert "has no branch or tag 'no-such-branch'" in b, b
assert b.count("done: try") == 1, b
# the tests resolve (fetch) before the transaction that acts: the state changes once
assert b.count("done: regression 1 is now invalid (was open;") == 1, b
PY
[ "$(q main "SELECT state FROM regressions WHERE id = 1")" = invalid ] && ok "invalid with the tests" || fail "invalid with the tests"

reply "Ada Lovelace <ada@example.org>" "$reg2_mid" "#faultline dup: 1"
reply "Lead <lead@example.org>" "$reg1_mid" "#faultline fix: $fix\\n#faultline frobnicate"
reply "Ada Lovelace <ada@example.org>" "$reg2_mid" "#faultline dup: 2"
expect_exit 0 "ingest: dup, fix (an allowed sender), an unknown command" "$FAULTLINE" mail ingest --config "$tmp/main.yaml" "$inbox"
expect_grep "$tmp/out" "3 acted on" "three mails acted on"
[ "$(q main "SELECT state || ' ' || dup_of || ' ' || state_by FROM regressions WHERE id = 2")" = "duplicate 1 ada@example.org" ] &&
	ok "dup: regression 2 is a duplicate of 1, by its sender" || fail "dup: $(q main "SELECT state, dup_of FROM regressions WHERE id = 2")"
[ "$(q main "SELECT state || ' ' || fixed_by || ' ' || state_by FROM regressions WHERE id = 1")" = "fixed $fix lead@example.org" ] &&
	ok "fix: regression 1 fixed by the commit, by the allowed sender" || fail "fix: $(q main "SELECT state, fixed_by FROM regressions WHERE id = 1")"
$PY - "$out" <<'PY' && ok "each command answered in its thread" || fail "each command answered"
import email, email.policy, os, sys
d = sys.argv[1] + "/new"
bodies = [email.message_from_binary_file(open(os.path.join(d, f), "rb"), policy=email.policy.default).get_content() for f in os.listdir(d)]
def one(*want):
    hits = [b for b in bodies if all(w in b for w in want)]
    assert len(hits) == 1, (want, len(hits))
one("> #faultline dup: 1", "done: regression 2 is now duplicate of regression 1")
one("> #faultline fix: ", "done: regression 1 is now fixed by", "> #faultline frobnicate", "not done: unknown command 'frobnicate'")
one("> #faultline dup: 2", "not done: regression 2: a duplicate names another regression")
PY

expect_exit 0 "regression mark 1 open" "$FAULTLINE" regression mark 1 open --by operator --note "reopened by hand" --config "$tmp/main.yaml"
expect_grep "$tmp/out" "regression 1 is now open (was fixed; set by operator); mailed in the report's thread" "mark says what it did"
reply "Rita Reviewer <rita@example.org>" "$reg1_mid" "#faultline invalid"
expect_exit 0 "ingest: invalid from a recipient (a trailer's reviewer)" "$FAULTLINE" mail ingest --config "$tmp/main.yaml" "$inbox"
[ "$(state 1)" = invalid ] && ok "invalid" || fail "invalid ($(state 1))"
# one of our own mails, looping back through a list
cp "$out/new/$(ls "$out/new" | head -1)" "$inbox/new/$(date +%s).ours.test"
expect_exit 0 "ingest: our own mail" "$FAULTLINE" mail ingest --config "$tmp/main.yaml" "$inbox"
expect_grep "$tmp/out" "1 ignored" "our own mail is ignored"
expect_grep "$tmp/err" "ignored: our own mail" "and said so"

expect_exit 0 "regression list --json" "$FAULTLINE" regression list --json --config "$tmp/main.yaml"
$PY - "$tmp/out" <<'PY' && ok "list --json: states, who, duplicate" || fail "list --json"
import json, sys
v = {r["id"]: r for r in json.load(open(sys.argv[1]))}
assert v[1]["state"] == "invalid" and v[1]["state_by"] == "rita@example.org", v[1]
assert v[2]["state"] == "duplicate" and v[2]["duplicate_of"] == 1, v[2]
PY
expect_exit 0 "regression list --state duplicate" "$FAULTLINE" regression list --state duplicate --config "$tmp/main.yaml"
[ "$(wc -l <"$tmp/out")" = 1 ] && grep -q "duplicate of 1" "$tmp/out" && ok "filtered by state" || fail "filtered by state"
expect_exit 2 "regression list --state bogus" "$FAULTLINE" regression list --state bogus --config "$tmp/main.yaml"
expect_grep "$tmp/err" "no regression state 'bogus'" "names the states"
expect_exit 1 "regression show 99" "$FAULTLINE" regression show 99 --config "$tmp/main.yaml"
for c in regression mail; do
	expect_exit 0 "$c --help" "$FAULTLINE" $c --help
	expect_grep "$tmp/out" "usage: faultline $c" "$c --help prints its usage"
done
expect_exit 2 "mail: no Maildir named" "$FAULTLINE" mail ingest --config "$tmp/main.yaml"
expect_exit 2 "mail ingest: not a Maildir" "$FAULTLINE" mail ingest --config "$tmp/main.yaml" "$tmp/recipient"
expect_grep "$tmp/err" "'$tmp/recipient' is not a Maildir (no cur/ or new/ in it)" "says what a Maildir lacks"
expect_exit 2 "mark fixed without --fix" "$FAULTLINE" regression mark 1 fixed --config "$tmp/main.yaml"
expect_exit 0 "regression mark 1 open" "$FAULTLINE" regression mark 1 open --config "$tmp/main.yaml"

# ---- 4. a later tag fixes it -----------------------------------------------------
git_in "$repo" rm -q slow
git_in "$repo" commit -qm "mm: memcontrol: do not charge the root cgroup"
git_in "$repo" tag -a -m v1.3 v1.3
sent=$(mails "$out")
expect_exit 0 "v1.3: checked against the open regression" "$FAULTLINE" watch --config "$tmp/main.yaml" --once
expect_grep "$tmp/err" "v1.3: does it fix regression 1?" "a fix check is scheduled for the open regression"
if grep -q "does it fix regression 2" "$tmp/err"; then fail "not for the duplicate"; else ok "not for the duplicate"; fi
[ "$(q main "SELECT state || ' ' || fixed_by || ' ' || fix_range || ' ' || state_by FROM regressions WHERE id = 1")" = "fixed v1.3 v1.2..v1.3 faultline" ] &&
	ok "fixed by v1.3 in v1.2..v1.3, automatically" || fail "automatic fix ($(q main "SELECT state, fixed_by, fix_range FROM regressions WHERE id = 1"))"
expect_exit 0 "regression show 1 --json" "$FAULTLINE" regression show 1 --json --config "$tmp/main.yaml"
expect_grep "$tmp/out" '"fix_range": "v1.2..v1.3"' "show --json has the range"
$PY - "$out" "$reg1_mid" <<'PY' && ok "the thread is told" || fail "the thread is told"
import email, email.policy, os, sys
d, mid = sys.argv[1] + "/new", sys.argv[2]
ms = [email.message_from_binary_file(open(os.path.join(d, f), "rb"), policy=email.policy.default) for f in os.listdir(d)]
hits = [m for m in ms if m["In-Reply-To"] == mid and "regression 1 is now fixed by v1.3 (fixed in v1.2..v1.3)" in m.get_content()]
assert len(hits) == 1, len(hits)
assert "measures back at the baseline v1.1" in hits[0].get_content()
PY
vfix=$(git_in "$repo" rev-parse v1.3^{commit})
[ "$(q main "SELECT group_concat(g.kind || ':' || b.culprit, ' ') FROM regressions g JOIN bisections b ON b.regression_id = g.id WHERE g.id > 2")" = "improvement:$vfix improvement:$vfix" ] &&
	ok "improvements: both benchmarks bisected to the fixing commit" ||
	fail "improvements ($(q main "SELECT g.id, g.kind, b.culprit FROM regressions g LEFT JOIN bisections b ON b.regression_id = g.id"))"
[ "$(q main "SELECT count(*) FROM reverts WHERE regression_id > 2")" = 0 ] && ok "no revert check for an improvement" || fail "no revert check for an improvement"
$PY - "$out" "$vfix" <<'PY' && ok "the improvement's report" || fail "the improvement's report"
import email, email.policy, os, sys
d, sha = sys.argv[1] + "/new", sys.argv[2]
ms = [email.message_from_binary_file(open(os.path.join(d, f), "rb"), policy=email.policy.default) for f in os.listdir(d)]
hits = [m for m in ms if m["Subject"].startswith("[linux] [mm] %s: pf.value +" % sha[:10])]
assert len(hits) == 1 and hits[0]["Subject"].endswith("% improvement"), [m["Subject"] for m in ms]
body = hits[0].get_content()
assert "improvement of pf.value due to commit:" in body and "% better" in body and "Reported-by" not in body, body
PY
expect_exit 0 "another pass: nothing more" "$FAULTLINE" watch --config "$tmp/main.yaml" --once
[ "$(q main "SELECT count(*) FROM tries WHERE purpose = 'fixcheck'")" = 1 ] && ok "one fix check per regression and tag" || fail "one fix check"

# ---- the pages: the state, its filter, who and the range --------------------------
"$FAULTLINE" serve --db "$(fl_store "$tmp/main.db")" --listen 127.0.0.1:0 >"$tmp/serve.out" 2>"$tmp/serve.err" &
serve_pid=$!
for _ in $(seq 100); do [ -s "$tmp/serve.out" ] && break; sleep 0.1; done
url=$(head -n1 "$tmp/serve.out")
$PY - "$url" <<'PY' && ok "pages: state filter, state with its fix, range and who; JSON" || fail "pages"
import json, sys, urllib.request
u = sys.argv[1].rstrip("/")
get = lambda p: urllib.request.urlopen(u + p, timeout=10).read().decode()
dup = get("/regressions?state=duplicate")
assert "<strong><a href='/regressions?state=duplicate'>duplicate</a></strong>" in dup, dup
assert "/regression/2" in dup and "/regression/1'" not in dup and "/regression/1\"" not in dup, dup
fixed = get("/regressions?state=fixed")
assert "/regression/1" in fixed and "/regression/2" not in fixed, fixed
page = get("/regression/1")
assert "<span class='status status-fixed'>fixed</span> by v1.3 (fixed in v1.2..v1.3); set by faultline" in page, page
page2 = get("/regression/2")
assert "of <a href='/regression/1'>regression 1</a>; set by ada@example.org" in page2, page2
j = json.loads(get("/api/regression/1"))
assert j["life"]["fix_range"] == "v1.2..v1.3" and j["life"]["state_by"] == "faultline", j["life"]
PY
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null

echo "---- example report (routing: maintainers) ----"
cat "$tmp/example.eml"
smtp_stop
finish
