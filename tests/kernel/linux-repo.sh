#!/bin/sh
# linux-repo.sh [--import-only] DIR - makes DIR a git repository of Debian's
# Linux 6.1 sources (/usr/src/linux-source-6.1.tar.xz), imported as one
# commit with a fixed author and date (the same tarball gives the same
# commit id). Without --import-only a second commit edits mm/memcontrol.c (a
# comment before memcg_check_events). Kept when DIR already is one.
# Used by tests/kernel/real.sh and kernels/demo/make-history.sh.
set -eu
import_only=
[ "${1:-}" = --import-only ] && { import_only=1; shift; }
[ $# -eq 1 ] || { echo "usage: linux-repo.sh [--import-only] DIR" >&2; exit 2; }
dir=$1
tarball=/usr/src/linux-source-6.1.tar.xz
[ -d "$dir/.git" ] && exit 0
[ -f "$tarball" ] || { echo "linux-repo: $tarball missing (apt-get install linux-source-6.1)" >&2; exit 1; }
export GIT_AUTHOR_NAME="Debian linux-source-6.1" GIT_AUTHOR_EMAIL=debian-kernel@lists.debian.org
export GIT_COMMITTER_NAME="faultline" GIT_COMMITTER_EMAIL=faultline@localhost
export GIT_AUTHOR_DATE="2022-12-11T14:15:00-0800" GIT_COMMITTER_DATE="2022-12-11T14:15:00-0800"
rm -rf "$dir"
mkdir -p "$dir"
echo "linux-repo: unpacking $tarball into $dir" >&2
tar xJf "$tarball" -C "$dir" --strip-components=1
# Debian's block at the end of .gitignore ignores every top-level file.
sed -i '/^# Debian packaging/,$d' "$dir/.gitignore"
cd "$dir"
version=$(make -s kernelversion 2>/dev/null || echo 6.1)
git init -q
# no automatic repack of the 75k fresh objects: minutes of CPU for nothing here
git config gc.auto 0
echo "linux-repo: committing the sources of Linux $version" >&2
git add -A
git -c commit.gpgSign=false -c core.hooksPath=/dev/null commit -qm "Linux $version (Debian linux-source-6.1)"
[ -n "$import_only" ] && exit 0
sed -i 's/^\(static void memcg_check_events\)/\/* faultline test *\/\n\1/' mm/memcontrol.c
git commit -qam "mm: edit memcontrol.c"
