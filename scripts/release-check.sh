#!/bin/sh
# release-check.sh - what a packager does, checked: a plain Release build with
# gcc and one with clang (warnings are errors in both here, so CI sees a new
# one), each in its own build directory
# (build-release/, build-clang/); then the gcc build installed into a DESTDIR
# and run from another directory (tests/cli/install.sh: faultline serve
# answers with the installed pages). About 3 minutes per build on 2 cores.
#
#   scripts/release-check.sh        (make release-check; .ci/run runs it)
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

build() { # build DIR CC [cmake args...]
	dir=$1 cc=$2
	shift 2
	t0=$(date +%s)
	mkdir -p "$dir"
	CC=$cc cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >"$dir/cmake.log" 2>&1 ||
		{ cat "$dir/cmake.log"; return 1; }
	cmake --build "$dir" -j"$jobs" >"$dir/build.log" 2>&1 ||
		{ grep -E "error|warning" "$dir/build.log"; return 1; }
	n=$(grep -c "warning:" "$dir/build.log" || true)
	echo "release-check: $cc Release build in $dir: $(( $(date +%s) - t0 ))s, $n warnings"
	grep -A3 "warning:" "$dir/build.log" | sed 's/^/  /' || true
}

build build-release gcc -DFL_WERROR=ON
if command -v clang >/dev/null; then
	build build-clang clang -DFL_WERROR=ON
else
	echo "release-check: clang is not installed (scripts/install-deps.sh build)"
fi
FL_BUILD_DIR=$PWD/build-release FAULTLINE=$PWD/build-release/orchestrator/faultline \
	sh tests/cli/install.sh
