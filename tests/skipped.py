#!/usr/bin/env python3
"""skipped.py JUNIT - after ctest (make test): each test that ctest skipped
(its SKIP_RETURN_CODE, 77) with its reason, the last line it printed: a
test skips only for what the host does not give it (no chromium, no
PostgreSQL cluster, no libvirtd listening on TCP), and says what would give
it. JUNIT is ctest's --output-junit file; nothing is printed when no test
was skipped. Exit 0 always: a skip is not a failure.
"""
import sys
import xml.etree.ElementTree as ET


def main():
    try:
        cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
    except (IndexError, OSError, ET.ParseError) as e:
        print("skipped.py: %s" % e, file=sys.stderr)
        return 0
    for case in cases:
        if case.find("skipped") is None:
            continue
        out = [l for l in (case.findtext("system-out") or "").splitlines() if l.strip()]
        print("skipped: %s: %s" % (case.get("name"), out[-1] if out else "(it said nothing)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
