#!/usr/bin/env python3
"""leftovers.py BUILD_DIR - run after ctest (make test, .ci/run): fails when
a process that a test of BUILD_DIR started outlived the test.

Every test runs with FL_TEST_RUN=<its build directory> and FL_TEST_NAME=<its
name> in its environment (the end of tests/CMakeLists.txt), and so does
everything it starts, unless given an environment of its own. The services
a run starts on purpose and keeps (libvirtd, scripts/libvirtd-start.sh;
the PostgreSQL cluster, scripts/pg-start.sh) drop both when they start.

A process that is still ending gets FL_LEFTOVERS_WAIT seconds (default 5).
Then each one left is listed (PID, the test that started it, how long it
has run, its command line) and stopped (SIGTERM, SIGKILL 5 s later), and
the exit status is 1; 0 when none is left. Another ctest of the same build
directory running at the same time would be taken for leftovers: run one
at a time per build directory.
"""
import os
import signal
import sys
import time


def marked(run):
    """{pid: test name} of the processes whose environment has FL_TEST_RUN=run."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % entry, "rb") as f:
                env = f.read().split(b"\0")
        except OSError:  # gone, or a kernel thread
            continue
        name = None
        mine = False
        for var in env:
            if var.startswith(b"FL_TEST_RUN="):
                value = var[len(b"FL_TEST_RUN="):].decode(errors="replace")
                mine = os.path.realpath(value) == run
            elif var.startswith(b"FL_TEST_NAME="):
                name = var[len(b"FL_TEST_NAME="):].decode(errors="replace")
        if mine and alive(int(entry)):
            found[int(entry)] = name or "?"
    return found


def alive(pid):
    """Runs and is no zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def describe(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        with open("/proc/%d/stat" % pid) as f:
            start = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            age = float(f.read().split()[0]) - start / os.sysconf("SC_CLK_TCK")
        return "%.0f s old: %s" % (age, cmd[:300])
    except (OSError, IndexError, ValueError):
        return "(gone)"


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: leftovers.py BUILD_DIR", file=sys.stderr)
        return 2
    run = os.path.realpath(sys.argv[1])
    deadline = time.time() + float(os.environ.get("FL_LEFTOVERS_WAIT", "5"))
    left = marked(run)
    while left and time.time() < deadline:
        time.sleep(0.2)
        left = marked(run)
    if not left:
        print("leftovers: no process of a test of %s is left" % run)
        return 0
    print("leftovers: %d process(es) outlived the test that started them (%s):"
          % (len(left), run))
    for pid, name in sorted(left.items()):
        print("leftovers:   pid %d of test %s, %s" % (pid, name, describe(pid)))
    for pid in left:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
    end = time.time() + 5
    while any(alive(p) for p in left) and time.time() < end:
        time.sleep(0.1)
    for pid in left:
        if alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    print("leftovers: stopped them; a test must stop what it starts (tests/cli/lib.sh's "
          "exit trap, testlib.h's fl_test_fork, flhttp.py's start)")
    return 1


if __name__ == "__main__":
    sys.exit(main())
