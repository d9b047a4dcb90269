#!/bin/sh
# make-history.sh [DEST] - the demo's kernel history: Debian's Linux 6.1
# sources imported as one commit tagged v6.1-fl0, then the series in
# kernels/demo/patches/ applied as one commit each (git am, authors and dates
# from the patches) and tagged v6.1-fl1. One of the commits is an injected
# page-fault regression (kernels/demo/CULPRIT, README.md).
#
# Created once and reused: when DEST already holds v6.1-fl1 made from the
# same series (its tag records the series' sha256), nothing is done. A DEST
# with v6.1-fl0 but another or no v6.1-fl1 gets the series re-applied from
# v6.1-fl0. Commit dates, committer and tagger are fixed, so the same tarball
# and series give the same commit ids everywhere.
#
#   kernels/demo/make-history.sh [DEST]     (default var/demo/linux)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dest=${1:-$root/var/demo/linux}
patches=${FL_DEMO_PATCHES:-$here/patches}	# another series: tests only
say() { echo "demo history: $*" >&2; }
die() { say "$*"; exit 1; }

set -- "$patches"/[0-9][0-9][0-9][0-9]-*.patch
[ -f "$1" ] || die "no patches in $patches"
count=$#
series=$(cat "$@" | sha256sum | cut -c1-64)

export GIT_COMMITTER_NAME="faultline demo" GIT_COMMITTER_EMAIL=demo@faultline.invalid
# Nothing from the user's git configuration may change the commit ids.
git_in() {
	dir=$1
	shift
	git -C "$dir" -c commit.gpgSign=false -c tag.gpgSign=false \
		-c core.hooksPath=/dev/null -c core.autocrlf=false "$@"
}
git_() { git_in "$dest" "$@"; }
has_tag() { git_ rev-parse -q --verify "refs/tags/$1" >/dev/null 2>&1; }

mkdir -p "$(dirname "$dest")"
# One maker at a time per DEST (make demo and the e2e test may race).
exec 9>"$dest.lock"
flock 9

if [ -d "$dest/.git" ]; then
	has_tag v6.1-fl0 || die "$dest is a git repository without tag v6.1-fl0: not a demo history (remove it or pick another DEST)"
	if has_tag v6.1-fl1 && git_ cat-file tag v6.1-fl1 2>/dev/null | grep -qx "series: $series"; then
		say "$dest is up to date (v6.1-fl0..v6.1-fl1, $(git_ rev-list --count v6.1-fl0..v6.1-fl1) commits)"
		exit 0
	fi
	has_tag v6.1-fl1 && say "v6.1-fl1 was made from another series: re-applying from v6.1-fl0"
elif [ -e "$dest" ]; then
	die "$dest exists and is not a git repository"
else
	start=$(date +%s)
	tmp=$dest.new
	rm -rf "$tmp"
	sh "$root/tests/kernel/linux-repo.sh" --import-only "$tmp" || die "importing the sources failed"
	# Tagged before it gets its name: a DEST without v6.1-fl0 is not ours.
	GIT_COMMITTER_DATE="2022-12-11T14:15:00-0800" \
		git_in "$tmp" tag -a -m "Linux 6.1 as Debian ships it (linux-source-6.1)" v6.1-fl0 HEAD
	mv "$tmp" "$dest"
	say "imported the sources as v6.1-fl0 in $(( $(date +%s) - start )) s"
fi

start=$(date +%s)
git_ tag -d v6.1-fl1 >/dev/null 2>&1 || true
git_ am --abort >/dev/null 2>&1 || true
git_ checkout -q -f -B demo v6.1-fl0
say "applying $count patches"
if ! git_ am -q --committer-date-is-author-date "$@" >"$dest.am.log" 2>&1; then
	failed=$(sed -n 's/^Patch failed at [0-9]* \(.*\)/\1/p' "$dest.am.log" | head -1)
	cat "$dest.am.log" >&2
	git_ am --abort >/dev/null 2>&1 || true
	die "a patch does not apply to v6.1-fl0: ${failed:-see above}"
fi
rm -f "$dest.am.log"
# The tagger date is the last commit's, so the tag object is reproducible too.
GIT_COMMITTER_DATE=$(git_ log -1 --format=%cI) git_ tag -a -F - v6.1-fl1 <<EOT
faultline demo history: $count commits on v6.1-fl0, one a page-fault regression

series: $series
EOT
say "tagged v6.1-fl1 ($(git_ rev-list --count v6.1-fl0..v6.1-fl1) commits) in $(( $(date +%s) - start )) s"
