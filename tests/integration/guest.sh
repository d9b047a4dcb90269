# guest.sh - runs test_guest against a real libvirtd with Debian's kernel,
# starting the daemon and fetching the kernel first (both idempotent).
set -eu
scripts/libvirtd-start.sh >/dev/null
FL_TEST_KERNEL=$(scripts/fetch-test-kernel.sh)
export FL_TEST_KERNEL
exec "$FL_BUILD_DIR/tests/test_guest"
