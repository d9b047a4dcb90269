#!/bin/sh
# fetch-test-kernel.sh - puts Debian's prebuilt cloud kernel, unpacked but not
# installed, under var/cache/kernel/ for the boot tests. Idempotent: a kernel
# already unpacked is reused and apt-get runs only when the .deb is missing.
# Tests run in parallel and several may ask at once on a fresh clone: one
# fetches and unpacks under a lock while the others wait for it.
# Prints the path of the vmlinuz on success.
#
#   scripts/fetch-test-kernel.sh [package]   (default linux-image-6.1.0-57-cloud-amd64)
set -eu
cd "$(dirname "$0")/.."
pkg=${1:-linux-image-6.1.0-57-cloud-amd64}
cache=var/cache/kernel
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

if [ -z "${FL_KERNEL_LOCKED:-}" ]; then
	FL_KERNEL_LOCKED=1 exec flock "$cache/.lock" "$PWD/scripts/fetch-test-kernel.sh" "$@"
fi

found=$(ls "$cache/root/boot/"vmlinuz-* 2>/dev/null | head -n1 || true)
if [ -n "$found" ]; then
	echo "$found"
	exit 0
fi
deb=$(ls "$cache/${pkg}_"*.deb 2>/dev/null | head -n1 || true)
if [ -z "$deb" ]; then
	# apt-get download writes into the current directory, as the _apt user
	# when it can; the cache directory must be writable for it.
	# A fresh machine may have no package lists yet: update once and retry.
	(cd "$cache" && apt-get download -q "$pkg" >&2) ||
	{ apt-get update -qq >&2 && (cd "$cache" && apt-get download -q "$pkg" >&2); } || {
		echo "fetch-test-kernel: apt-get download $pkg failed" >&2
		exit 1
	}
	deb=$(ls "$cache/${pkg}_"*.deb | head -n1)
fi
rm -rf "$cache/root.tmp" "$cache/root"
dpkg -x "$deb" "$cache/root.tmp"
mv "$cache/root.tmp" "$cache/root"
ls "$cache/root/boot/"vmlinuz-* | head -n1
