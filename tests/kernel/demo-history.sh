#!/bin/sh
# demo-history.sh - kernels/demo/make-history.sh on Debian's Linux 6.1: the
# history is made from scratch and has its shape (tags v6.1-fl0 and
# v6.1-fl1, one commit per patch in order with the patch's subject, author
# and date, at least 25; exactly one commit changes the charge path of
# mm/memcontrol.c, and it is the one kernels/demo/CULPRIT names); a second
# run changes nothing; a lost v6.1-fl1 is made again with the same commit
# ids; a patch that does not apply is named and leaves no v6.1-fl1; a DEST
# that is not a demo history is refused. About 2 minutes (ctest label kernel).
. tests/cli/lib.sh

[ -f /usr/src/linux-source-6.1.tar.xz ] ||
	{ echo "skip: no /usr/src/linux-source-6.1.tar.xz (apt-get install linux-source-6.1)"; exit 77; }
make_history=kernels/demo/make-history.sh
dest=$FL_BUILD_DIR/kernel-test/demo-linux
g() { git -C "$dest" "$@"; }
rm -rf "$dest" "$dest.lock"

expect_exit 0 "history made from scratch" sh $make_history "$dest"
cat "$tmp/err"
fl0=$(g rev-parse -q --verify 'v6.1-fl0^{commit}') && ok "tag v6.1-fl0" || fail "no tag v6.1-fl0"
fl1=$(g rev-parse -q --verify 'v6.1-fl1^{commit}') && ok "tag v6.1-fl1" || fail "no tag v6.1-fl1"
[ "$(g rev-list --count v6.1-fl0)" = 1 ] && g cat-file -e v6.1-fl0:mm/memcontrol.c &&
	ok "v6.1-fl0 is one commit holding the sources" || fail "v6.1-fl0 is not the imported sources"

# One commit per patch, in order, each with the patch's subject, author and date.
set -- kernels/demo/patches/[0-9]*.patch
n=$(g rev-list --count v6.1-fl0..v6.1-fl1)
[ "$n" -ge 25 ] && [ "$n" -eq $# ] && ok "$n commits, one per patch" ||
	fail "$n commits between the tags, $# patches"
g log --reverse --format='%an <%ae>|%aD|%s' v6.1-fl0..v6.1-fl1 >"$tmp/log"
for p in "$@"; do
	git mailinfo /dev/null /dev/null <"$p" >"$tmp/info"
	sed -n 's/^Author: //p; s/^Email: //p; s/^Date: //p; s/^Subject: //p' "$tmp/info" |
		awk 'NR == 1 { a = $0 } NR == 2 { a = a " <" $0 ">" } NR == 3 { s = $0 }
		     NR == 4 { d = $0 } END { print a "|" d "|" s }'
done >"$tmp/want"
if cmp -s "$tmp/want" "$tmp/log"; then ok "subjects, authors and dates are the patches'"; else
	fail "history differs from the patches"; diff "$tmp/want" "$tmp/log" | head -20; fi
[ "$(g log --format=%H v6.1-fl0..v6.1-fl1 -- mm/ kernel/ fs/ include/ Documentation/ | wc -l)" -eq "$n" ] &&
	ok "every commit touches mm/, kernel/, fs/, include/ or Documentation/" ||
	fail "a commit outside mm/, kernel/, fs/, include/, Documentation/"
for d in mm kernel fs include Documentation; do
	[ -n "$(g log --format=%H v6.1-fl0..v6.1-fl1 -- $d/)" ] || fail "no commit touches $d/"
done

# The charge path: the functions every page charge and uncharge goes through.
for f in try_charge try_charge_memcg cancel_charge commit_charge charge_memcg \
	__mem_cgroup_charge uncharge_batch uncharge_folio __mem_cgroup_uncharge \
	__mem_cgroup_uncharge_list mem_cgroup_migrate; do
	g log --format=%H -s -L ":[^_a-z0-9]$f(:mm/memcontrol.c" v6.1-fl0..v6.1-fl1 --
done 2>"$tmp/L.err" | grep -E '^[0-9a-f]{40}$' | sort -u >"$tmp/charge"
[ -s "$tmp/L.err" ] && { fail "git log -L"; cat "$tmp/L.err"; }
culprit_subject=$(git mailinfo /dev/null /dev/null <"kernels/demo/patches/$(cat kernels/demo/CULPRIT)" |
	sed -n 's/^Subject: //p')
[ "$(wc -l <"$tmp/charge")" -eq 1 ] && ok "exactly one commit changes the charge path" ||
	fail "$(wc -l <"$tmp/charge") commits change the charge path"
culprit=$(head -1 "$tmp/charge")
[ -n "$culprit" ] && [ "$(g log -1 --format=%s "$culprit")" = "$culprit_subject" ] &&
	ok "it is kernels/demo/CULPRIT: $culprit_subject" || fail "the charge-path commit is not kernels/demo/CULPRIT"
g show "$culprit" -- mm/memcontrol.c | grep -q '^+.*spin_lock' &&
	ok "the culprit takes a lock in mm/memcontrol.c" || fail "the culprit takes no lock"

# Made once: a second run keeps everything.
expect_exit 0 "second run" sh $make_history "$dest"
expect_grep "$tmp/err" "is up to date" "second run does nothing"
[ "$(g rev-parse 'v6.1-fl1^{commit}')" = "$fl1" ] && ok "v6.1-fl1 unchanged" || fail "v6.1-fl1 moved"

# A lost v6.1-fl1 is made again from v6.1-fl0, with the same commit ids.
g tag -d v6.1-fl1 >/dev/null
expect_exit 0 "re-made without v6.1-fl1" sh $make_history "$dest"
[ "$(g rev-parse -q --verify 'v6.1-fl1^{commit}')" = "$fl1" ] &&
	ok "the same commit ids again" || fail "re-made history has other commit ids"
[ "$(g rev-parse 'v6.1-fl0^{commit}')" = "$fl0" ] && ok "v6.1-fl0 kept" || fail "v6.1-fl0 moved"

# A series whose patch does not apply: named, and no v6.1-fl1 is left.
mkdir "$tmp/patches"
cp kernels/demo/patches/*.patch "$tmp/patches/"
bad=$(ls "$tmp/patches" | sed -n 5p)
sed -i '0,/^-[^-]/s/^-\([^-]\)/-XX\1/' "$tmp/patches/$bad"
FL_DEMO_PATCHES=$tmp/patches expect_exit 1 "broken series fails" sh $make_history "$dest"
subject5=$(git mailinfo /dev/null /dev/null <"$tmp/patches/$bad" | sed -n 's/^Subject: //p')
expect_grep "$tmp/err" "does not apply to v6.1-fl0: $subject5" "the failing patch is named"
g rev-parse -q --verify v6.1-fl1 >/dev/null && fail "v6.1-fl1 left after a failed series" ||
	ok "no v6.1-fl1 after a failed series"
expect_exit 0 "the real series again" sh $make_history "$dest"
[ "$(g rev-parse -q --verify 'v6.1-fl1^{commit}')" = "$fl1" ] && ok "restored" || fail "not restored"

# Not a demo history: refused, nothing touched.
git init -q "$tmp/other"
expect_exit 1 "a foreign repository is refused" sh $make_history "$tmp/other"
expect_grep "$tmp/err" "not a demo history" "refusal says why"
[ -z "$(git -C "$tmp/other" tag)" ] && ok "foreign repository untouched" || fail "foreign repository tagged"
finish
