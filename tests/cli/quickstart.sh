#!/bin/sh
# quickstart.sh - README.md's "Try it on your own repository in two
# minutes", run as written: its commands are read from the README (the
# first sh block of that section), in a directory laid out as a fresh clone
# after "make build" (configs/ and web/ of this tree, the binary under test
# as build/orchestrator/faultline), on a repository of the user's own: tags
# v1.0 and v1.1, a bench.sh in it, one commit between them makes it slower.
# What the test changes, and only that: "make build" is not run again (the
# binary under test is the build), the user's FL_REPO and FL_BENCH are this
# repository's, and the ports 2525 and 8080 are free ones (in the commands
# and in the copy of configs/quickstart.yaml). It must end with the report
# mailed for that repository, naming the culprit, in under five minutes,
# and the pages the report links to served.
. tests/cli/lib.sh

src=$(pwd)
block=$(awk '/^## Try it on your own repository in two minutes$/ { on = 1; next }
	on && /^## / { exit }
	on && /^```sh$/ { code = 1; next }
	code && /^```$/ { exit }
	code { print }' README.md)
[ -n "$block" ] && ok "README.md has the quickstart's commands" || fail "README.md has the quickstart's commands"
echo "$block" | grep -qx "make build" && ok "they start with make build" || fail "they start with make build"

# the user's repository: five commits, v1.0, five more with the slowdown in the third, v1.1
repo="$tmp/myproject"
mkdir -p "$repo" && cd "$repo" && git init -q && cat >bench.sh <<'SH' && chmod +x bench.sh
#!/bin/sh
# one run: five samples around 1000, around 900 once the file slow is there
base=1000
[ -f slow ] && base=900
for i in 1 2 3 4 5; do echo $((base + $(od -An -N1 -tu1 /dev/urandom) % 10)); done
SH
g() { git -c user.name='Ada Lovelace' -c user.email=ada@example.org "$@"; }
for i in $(seq 1 10); do
	echo "$i" >"file$i"
	[ "$i" -eq 8 ] && echo slow >slow
	git add -A && g commit -qm "change $i" || fail "commit $i"
	[ "$i" -eq 5 ] && git tag v1.0
done
git tag v1.1
culprit=$(git rev-parse HEAD~2)
cd "$src" || exit 1

# a fresh clone after make build
clone="$tmp/faultline"
smtp_port=$(free_port)
web_port=$(free_port)
mkdir -p "$clone/configs" "$clone/build/orchestrator"
sed -e "s/127.0.0.1:2525/127.0.0.1:$smtp_port/" -e "s/127.0.0.1:8080/127.0.0.1:$web_port/" \
	configs/quickstart.yaml >"$clone/configs/quickstart.yaml"
cmp -s configs/quickstart.yaml "$clone/configs/quickstart.yaml" && fail "the ports are in configs/quickstart.yaml"
ln -s "$src/web" "$clone/web"
ln -s "$FAULTLINE" "$clone/build/orchestrator/faultline"
echo "$block" | sed -e '/^make build$/d' \
	-e "s|^export FL_REPO=.* FL_BENCH=.*|export FL_REPO=$repo FL_BENCH=./bench.sh|" \
	-e "s/127.0.0.1:2525/127.0.0.1:$smtp_port/g" -e "s/127.0.0.1:8080/127.0.0.1:$web_port/g" \
	>"$tmp/quickstart.sh"
grep -q "^export FL_REPO=$repo FL_BENCH=./bench.sh$" "$tmp/quickstart.sh" &&
	ok "the user's repository and command are set" || fail "the user's repository and command are set"

# run: the commands in a shell of their own, its process group (the sink and
# serve, which the commands leave running) stopped at the end, or on a
# failure (lib.sh's exit trap stops them too; the group catches one the
# commands' shell left behind)
stop_group() { [ -s "$tmp/quickstart.sh.pgid" ] && kill -TERM "-$(cat "$tmp/quickstart.sh.pgid")" 2>/dev/null; }
at_exit stop_group
start=$(date +%s)
(cd "$clone" && exec setsid sh -c 'echo $$ >"$1.pgid"; exec sh "$1"' sh "$tmp/quickstart.sh") \
	>"$tmp/qs.out" 2>"$tmp/qs.err" &
qs=$!
url=
for _ in $(seq 3000); do
	url=$(grep -o "^http://127.0.0.1:$web_port/$" "$tmp/qs.out")
	[ -n "$url" ] && break
	kill -0 "$qs" 2>/dev/null || break
	sleep 0.1
done
took=$(($(date +%s) - start))
[ -n "$url" ] && ok "the commands end serving the pages at $url" ||
	{ fail "the commands end serving the pages"; sed 's/^/  | /' "$tmp/qs.out" "$tmp/qs.err"; }
[ "$took" -lt 300 ] && ok "the report is there in under five minutes (${took}s)" ||
	fail "the report is there in under five minutes (${took}s)"
expect_grep "$tmp/qs.out" 'url: "'"$repo"'"' "config check prints the user's repository"
expect_grep "$tmp/qs.err" "compare: mine v1.1 vs v1.0, bench on local: regression" "the newest tag is slower"
expect_grep "$tmp/qs.err" "bisect: regression 1: culprit $culprit" "it is bisected to the commit that made it slower"
expect_grep "$tmp/qs.err" "report 1: sent" "the report is mailed"
# cat var/quickstart/mail/new/*: the mail as the SMTP sink kept it
expect_grep "$tmp/qs.out" "Subject: [mine] $(echo "$culprit" | cut -c1-10): bench.value -" "the mail is the report on the culprit"
expect_grep "$tmp/qs.out" "commit: $culprit (\"change 8\")" "it names the culprit's commit"
expect_grep "$tmp/qs.out" "${url}regression/1" "its links are the pages serve shows"
serve_url=$url
page regression/1
[ "$(cat "$tmp/page.status")" = 200 ] && ok "the report's link answers" || fail "the report's link answers ($(cat "$tmp/page.status"))"
expect_grep "$tmp/page" "$(echo "$culprit" | cut -c1-12)" "the regression's page names the culprit"
stop_group
wait "$qs" 2>/dev/null
finish
