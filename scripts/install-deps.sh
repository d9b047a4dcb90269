#!/bin/sh
# Installs what faultline needs on Debian 12, idempotently: packages already
# present are not touched and apt-get runs only when something is missing.
#
#   scripts/install-deps.sh [build] [runtime] [all]     (default: all)
#
# build:   compiler, CMake and the -dev libraries faultline links with
# runtime: what the tests and the service start for real (QEMU, libvirtd,
#          an SMTP server, Chromium, kernel build tools, Linux sources,
#          PostgreSQL for the tests labelled pg)
set -eu

BUILD_PKGS="build-essential cmake pkg-config git clang
  libgit2-dev libcurl4-openssl-dev libvirt-dev libyaml-dev libsqlite3-dev libpq-dev
  libmicrohttpd-dev libjansson-dev libcmocka-dev zlib1g-dev libssl-dev
  libclang-rt-14-dev libgmime-3.0-dev pandoc bash-completion"
RUNTIME_PKGS="sqlite3 cpio qemu-system-x86 libvirt-daemon libvirt-daemon-driver-qemu
  libvirt-clients tini python3-aiosmtpd chromium bc flex bison libelf-dev ccache perl linux-source-6.1
  python3-prometheus-client postgresql"

want=""
[ $# -eq 0 ] && set -- all
for group in "$@"; do
	case "$group" in
	build)   want="$want $BUILD_PKGS" ;;
	runtime) want="$want $RUNTIME_PKGS" ;;
	all)     want="$want $BUILD_PKGS $RUNTIME_PKGS" ;;
	*) echo "install-deps: unknown group '$group' (build, runtime, all)" >&2; exit 2 ;;
	esac
done

missing=""
for pkg in $want; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	case "$status" in
	*"ok installed"*) ;;
	*) missing="$missing $pkg" ;;
	esac
done

if [ -z "$missing" ]; then
	echo "install-deps: everything is installed"
	exit 0
fi

echo "install-deps: installing$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
