#!/usr/bin/env python3
"""promcheck.py FILE - reads a /metrics answer with prometheus_client's own
parser (Debian's python3-prometheus-client, independent of faultline's
writer) and checks what a scraper relies on: every family has HELP and TYPE,
histograms are cumulative with +Inf equal to _count. Prints one line per
sample, "name{k=v,...} value" with the labels sorted, for the caller to
match; exit 1 with the reason on the first problem."""
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    if not text.endswith("\n"):
        sys.exit("promcheck: the exposition does not end with a newline")
    families = list(text_string_to_metric_families(text))
    if not families:
        sys.exit("promcheck: no metric families")
    for f in families:
        if not f.documentation:
            sys.exit(f"promcheck: {f.name}: no HELP")
        if f.type == "unknown":
            sys.exit(f"promcheck: {f.name}: no TYPE")
        if f.type == "histogram":
            buckets = [s for s in f.samples if s.name.endswith("_bucket")]
            count = [s.value for s in f.samples if s.name.endswith("_count")]
            values = [s.value for s in buckets]
            if values != sorted(values):
                sys.exit(f"promcheck: {f.name}: buckets not cumulative: {values}")
            if buckets[-1].labels.get("le") != "+Inf" or count != [values[-1]]:
                sys.exit(f"promcheck: {f.name}: +Inf bucket {values[-1]} against count {count}")
        for s in f.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
            print(f"{s.name}{{{labels}}} {s.value:g}" if labels else f"{s.name} {s.value:g}")


main()
