#!/bin/sh
# linux-repo.sh DIR - makes DIR a git repository of Debian's Linux 6.1
# sources with two commits, the second editing mm/memcontrol.c (a comment
# before memcg_check_events). Kept when DIR already is one. Used by
# tests/kernel/real.sh and bench/build.
set -eu
dir=$1
tarball=/usr/src/linux-source-6.1.tar.xz
[ -d "$dir/.git" ] && exit 0
[ -f "$tarball" ] || { echo "linux-repo: $tarball missing (apt-get install linux-source-6.1)" >&2; exit 1; }
export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@b
rm -rf "$dir"
mkdir -p "$dir"
tar xJf "$tarball" -C "$dir" --strip-components=1
# Debian's block at the end of .gitignore ignores every top-level file.
sed -i '/^# Debian packaging/,$d' "$dir/.gitignore"
cd "$dir"
git init -q
# no automatic repack of the 75k fresh objects: minutes of CPU for nothing here
git config gc.auto 0
git add -A
git commit -qm "linux 6.1 (Debian)"
sed -i 's/^\(static void memcg_check_events\)/\/* faultline test *\/\n\1/' mm/memcontrol.c
git commit -qam "mm: edit memcontrol.c"
