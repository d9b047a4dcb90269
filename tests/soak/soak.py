#!/usr/bin/python3
"""soak.py - "faultline watch" and "faultline serve" for a few minutes under
a mixed load, the watch killed (SIGKILL) at random moments and started
again (label soak; bench/README.md has its figures).

The service watches two git trees with a command machine whose benchmark
slows down by 10% for every file named slow* in the checkout; new tags
arrive while it runs, every other one with a slowdown added by one known
commit. Meanwhile:
  - page and API requests to "serve" (the same store, read-only);
  - signed work requests of a box to the agent API of the watch;
  - hostile requests to both: 500 query parameters, bodies without
    authentication, forged log lines, other methods, headers a byte at a
    time;
  - idle connections held open from another address, above the per-client
    limits.
At the end it waits for the service to finish what it was given, then
asserts: each regression bisected to its commit and none on a clean tag;
no run counted twice (no job with two ok runs, ok runs = done run jobs,
none left running); one mail per report (the same Message-ID twice only as
SMTP's at-least-once copy, identical); every well-formed request answered
(the agent API's while the watch was up), none with a 5xx; and the
memory of "serve" flat: at the end within a bound of what it was after the
warm-up.

FL_SOAK_SECONDS sets the time of the load (default 180).
"""
import email
import email.policy
import os
import random
import re
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import flhttp  # noqa: E402

SECONDS = float(os.environ.get("FL_SOAK_SECONDS", "180"))
TOKEN = "token-of-box-b1-0123456789abcdef"
TREES = ("alpha", "beta")
t = flhttp.Checks()
tmp = tempfile.mkdtemp(prefix="fl-soak-")
rng = random.Random(int(os.environ.get("FL_SOAK_SEED", str(int(time.time())))))
stop = threading.Event()
lock = threading.Lock()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="Ada Lovelace", GIT_AUTHOR_EMAIL="ada@example.org",
               GIT_COMMITTER_NAME="C", GIT_COMMITTER_EMAIL="c@example.org")
    return subprocess.run(["git", "-c", "init.defaultBranch=master", "-c", "tag.gpgSign=false",
                           "-c", "commit.gpgSign=false"] + list(args), cwd=repo, env=env,
                          check=True, capture_output=True, text=True).stdout.strip()


# ---- the trees and what each tag should give ----------------------------------------------

class Tree:
    def __init__(self, name):
        self.name = name
        self.path = os.path.join(tmp, name)
        self.n = 0
        self.version = 0
        self.slow = 0
        os.makedirs(self.path)
        git(self.path, "init", "-q")

    def commit(self, message, slow=False):
        self.n += 1
        with open(os.path.join(self.path, "counter-%d" % self.n), "w") as f:
            f.write("%d\n" % self.n)
        if slow:
            self.slow += 1
            with open(os.path.join(self.path, "slow-%d" % self.slow), "w") as f:
                f.write("slow\n")
        git(self.path, "add", "-A")
        git(self.path, "commit", "-qm", message)
        return git(self.path, "rev-parse", "HEAD")

    def tag(self, commits, slow):
        """commits more commits and a tag; the culprit's sha when one slows it down."""
        culprit = None
        at = rng.randint(1, commits - 2) if slow else -1
        for i in range(commits):
            sha = self.commit("%s: %s" % (self.name, "mm: make things slower" if i == at
                                          else "commit %d" % (self.n + 1)), slow=i == at)
            if i == at:
                culprit = sha
        self.version += 1
        name = "v1.%d" % self.version
        git(self.path, "tag", name)
        return name, git(self.path, "rev-parse", "HEAD"), culprit


BENCH = """#!/bin/sh
# 5 samples around 100, 10% less for every slow-* file in the checkout
echo "$FAULTLINE_COMMIT" >>"$BENCH_LOG"
sleep 0.2
n=$(ls slow-* 2>/dev/null | wc -l)
awk -v seed="$$$(date +%N)" -v base=$((100 - 10 * n)) 'BEGIN { srand(seed % 2147483647)
	for (i = 0; i < 5; i++)
		printf "%.3f\\n", base + sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand()) }'
"""


def setup():
    bench = os.path.join(tmp, "bench")
    with open(bench, "w") as f:
        f.write(BENCH)
    os.chmod(bench, 0o755)
    with open(os.path.join(tmp, "b1.token"), "w") as f:
        f.write(TOKEN + "\n")
    trees = {name: Tree(name) for name in TREES}
    expected = {}
    for tr in trees.values():
        tr.tag(5, False)
        name, sha, _ = tr.tag(5, False)
        expected[(tr.name, name)] = (sha, None)
    ports = {"smtp": free_port(), "api": free_port()}
    cfg = os.path.join(tmp, "fl.yaml")
    with open(cfg, "w") as f:
        f.write("var: {tmp}/var\nstore: {{ path: {tmp}/fl.db }}\ntrees:\n".format(tmp=tmp))
        for tr in trees.values():
            f.write("  - {{ name: {n}, url: {p}, tags: ['v*'], poll: 1s }}\n".format(
                n=tr.name, p=tr.path))
        f.write("""machines:
  - {{ name: box, backend: command, command: "{tmp}/bench", timeout: 1m, max_parallel: 2 }}
  - {{ name: b1, backend: baremetal, token_file: {tmp}/b1.token }}
benchmarks:
  - {{ name: demo, repeat: 3, machines: [box] }}
regression: {{ min_change: 2%, confidence: 0.95 }}
report: {{ smtp: "smtp://127.0.0.1:{smtp}", from: "faultline <robot@example.org>",
          to: [dev@example.org], url: "http://results.example", retry: 1s }}
web: {{ root: web }}
agent_api: {{ listen: "127.0.0.1:{api}" }}
""".format(tmp=tmp, **ports))
    return trees, expected, cfg, ports


# ---- the service, killed and started again -------------------------------------------------

class Watch:
    def __init__(self, cfg):
        self.cfg = cfg
        self.proc = None
        self.starts = 0
        self.kills = 0
        self.up_since = 0.0
        self.down = []  # (from, to) spans when it was not serving
        self.max_rss = 0
        self.log = open(os.path.join(tmp, "watch.err"), "ab")

    def start(self):
        """Down (not serving the agent API) until a box's request is answered again."""
        with lock:
            if not self.down or self.down[-1][1] is not None:
                self.down.append([time.time(), None])
        env = dict(flhttp.sanitizer_env(), BENCH_LOG=os.path.join(tmp, "bench.log"))
        self.proc = flhttp.start([flhttp.FAULTLINE, "watch", "--config", self.cfg],
                                 stdout=subprocess.DEVNULL, stderr=self.log, env=env)
        self.starts += 1
        self.up_since = time.time()

    def kill(self):
        with lock:
            if not self.down or self.down[-1][1] is not None:
                self.down.append([time.time(), None])
        self.max_rss = max(self.max_rss, flhttp.rss_kb(self.proc.pid))
        self.proc.kill()
        self.proc.wait()
        self.kills += 1
        self.start()

    def was_down(self, since, until):
        with lock:
            return any(a <= until and (b is None or b >= since) for a, b in self.down)

    def describe(self, when):
        with lock:
            return "down spans near: %s" % [(round(a - when, 2), b and round(b - when, 2))
                                             for a, b in self.down if abs(a - when) < 5]

    def mark_up(self, port):
        """Ends the current down span once the agent API answers again."""
        with lock:
            if self.down and self.down[-1][1] is None:
                self.down[-1][1] = time.time()

    def stop(self):
        self.max_rss = max(self.max_rss, flhttp.rss_kb(self.proc.pid))
        self.proc.terminate()
        code = self.proc.wait(timeout=120)
        self.log.close()
        return code


# ---- the load ---------------------------------------------------------------------------

class Stats:
    def __init__(self):
        self.lat = {"pages": [], "agent": []}
        self.count = {}
        self.errors = []

    def add(self, kind, n=1):
        with lock:
            self.count[kind] = self.count.get(kind, 0) + n

    def latency(self, kind, seconds):
        with lock:
            self.lat[kind].append(seconds)

    def error(self, what):
        with lock:
            if len(self.errors) < 50:
                self.errors.append(what)
            self.count["errors"] = self.count.get("errors", 0) + 1


PAGES = ["/", "/jobs", "/jobs?state=live", "/runs", "/runs?page=2", "/regressions",
         "/bisections", "/api/", "/api/jobs", "/api/runs", "/api/regressions",
         "/tree/alpha", "/tree/beta", "/api/tree/alpha?by=commit", "/run/1", "/api/run/2",
         "/regression/1", "/api/regression/1", "/bisect/1", "/api/bisect/2", "/report/1",
         "/compare?a=v1.0&b=v1.1&benchmark=demo&machine=box", "/static/style.css",
         "/run/99999", "/nosuch"]


def pages(serve, stats):
    while not stop.is_set():
        path = rng.choice(PAGES)
        start = time.time()
        status, _, body = flhttp.request(serve.port, "GET", path, timeout=30)
        stats.latency("pages", time.time() - start)
        if status == 0:
            stats.error("serve: GET %s not answered" % path)
        elif status >= 500:
            stats.error("serve: GET %s: %d %s" % (path, status, body[:200]))
        else:
            stats.add("pages")
        time.sleep(0.03)


def agent(watch, port, stats):
    while not stop.is_set():
        start = time.time()
        status, _, body = flhttp.signed(port, TOKEN, "b1", "POST", "/agent/v1/work", b"{}",
                                        timeout=30)
        took = time.time() - start
        if status == 200 and b'"job":null' in body:
            stats.add("agent")
            stats.latency("agent", took)
            watch.mark_up(port)
        elif status == 0 and watch.was_down(start - 1, time.time()):
            stats.add("agent while the watch was down")
        elif status == 0:
            stats.error("agent api: a signed request not answered while the watch was up "
                        "(%.2f s, %s)" % (took, watch.describe(start)))
        else:
            stats.error("agent api: %d %s" % (status, body[:200]))
        time.sleep(0.1)


def hostile(serve, watch, port, stats):
    query = "&".join("a%d=1" % i for i in range(500))
    forged = "/agent/v1/x%0d%0arun%201:%20ok%20after%201.0%20s%1b[31m"
    cases = [
        (serve.port, "GET", "/runs?" + query, {}, (414,)),
        (serve.port, "POST", "/runs", {"Content-Length": "8388608"}, (405,)),
        (serve.port, "GET", forged, {}, (404,)),
        (serve.port, "GET", "/", {"X-Big": "y" * 40000}, (431, 413, 400, 0)),
        (port, "POST", "/agent/v1/work", {"Content-Length": "8388608"}, (401,)),
        (port, "GET", forged, {}, (401,)),
    ]
    while not stop.is_set():
        to, method, path, headers, want = rng.choice(cases)
        start = time.time()
        status, _, _ = flhttp.request(to, method, path, headers, src="127.0.0.3", timeout=30)
        if status in want or (status == 0 and to == port and watch.was_down(start - 1,
                                                                               time.time())):
            stats.add("hostile")
        else:
            stats.error("hostile %s %s: %d (wanted %s)" % (method, path[:60], status, want))
        time.sleep(0.05)


def idle(serve, port, stats):
    """Connections from 127.0.0.2 that send half a request and wait; opened again when closed."""
    held = []  # (port, socket)
    while not stop.is_set():
        held = [(to, s) for to, s in held if alive(s)]
        for to, n in ((serve.port, 40), (port, 12)):
            while sum(1 for p, _ in held if p == to) < n and not stop.is_set():
                try:
                    s = flhttp.connect(to, "127.0.0.2", timeout=2)
                    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
                    held.append((to, s))
                    stats.add("idle connections")
                except OSError:
                    break
        time.sleep(0.5)
    for _, s in held:
        s.close()


def alive(s):
    s.settimeout(0)
    try:
        if s.recv(1) == b"":
            s.close()
            return False
        return True
    except BlockingIOError:
        return True
    except OSError:
        s.close()
        return False


def slowloris(serve, stats):
    """Headers a byte a second from 127.0.0.4; each must be cut at the header deadline."""
    while not stop.is_set():
        try:
            s = flhttp.connect(serve.port, "127.0.0.4", timeout=2)
        except OSError:
            continue
        start = time.time()
        cut = False
        for ch in b"GET / HTTP/1.1\r\nX-Slow: " + b"y" * 60:
            if stop.is_set():
                break
            try:
                s.sendall(bytes([ch]))
                s.settimeout(1)
                if s.recv(1) == b"":
                    cut = True
                    break
            except socket.timeout:
                continue
            except OSError:
                cut = True
                break
        s.close()
        if cut and time.time() - start < 14:
            stats.add("slow clients cut")
        elif not stop.is_set():
            stats.error("serve: a slow client held a connection %.0f s" % (time.time() - start))


def sample_rss(serve, samples):
    while not stop.is_set():
        samples.append((time.time(), flhttp.rss_kb(serve.pid)))
        time.sleep(1)


def killer(watch):
    while not stop.wait(rng.uniform(3, 10)):
        watch.kill()


def tagger(trees, expected):
    """A new tag every SECONDS/8 until 3/4 of the time, every other one with a slowdown."""
    n = 0
    while not stop.wait(SECONDS / 8) and n < 6:
        tr = trees[TREES[n % 2]]
        name, sha, culprit = tr.tag(6, slow=(n % 4) < 2)
        with lock:
            expected[(tr.name, name)] = (sha, culprit)
        n += 1


# ---- the end: wait, then check ---------------------------------------------------------------

def db():
    c = sqlite3.connect("file:%s/fl.db?mode=ro" % tmp, uri=True, timeout=30)
    return c


def settled(expected):
    try:
        c = db()
        tags = c.execute("SELECT count(*) FROM watch_tags").fetchone()[0]
        live = c.execute("SELECT count(*) FROM jobs WHERE state IN "
                         "('queued', 'running', 'waiting')").fetchone()[0]
        pending = c.execute("SELECT count(*) FROM reports WHERE state != 'sent'").fetchone()[0]
        c.close()
    except sqlite3.Error:
        return False
    want = len(expected) + len(TREES)  # and each tree's v1.0, seen on the first pass
    return tags >= want and live == 0 and pending == 0


def mails(maildir):
    out = []
    d = os.path.join(maildir, "new")
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        with open(os.path.join(d, name), "rb") as f:
            out.append(email.message_from_binary_file(f, policy=email.policy.default))
    return out


def check(expected, watch, stats, samples, maildir, warm_until):
    c = db()
    sha_of = dict(c.execute("SELECT id, sha FROM commits"))
    found = {}
    for reg, bad, culprit in c.execute(
            "SELECT r.id, r.bad_commit, b.culprit FROM regressions r "
            "LEFT JOIN bisections b ON b.regression_id = r.id"):
        found[sha_of[bad]] = culprit
    for (tree, tag), (sha, culprit) in sorted(expected.items()):
        if culprit:
            t.check(found.get(sha) == culprit, "%s %s: bisected to its culprit %s" %
                    (tree, tag, culprit[:12]), "got %s" % found.get(sha, "no regression"))
        else:
            t.check(sha not in found, "%s %s: no regression on a clean tag" % (tree, tag))

    twice = c.execute("SELECT count(*) FROM (SELECT job_id FROM runs WHERE status = 'ok' "
                      "GROUP BY job_id HAVING count(*) > 1)").fetchone()[0]
    t.check(twice == 0, "no job has two ok runs", twice)
    ok_runs = c.execute("SELECT count(*) FROM runs WHERE status = 'ok'").fetchone()[0]
    done = c.execute("SELECT count(*) FROM jobs WHERE kind = 'run' AND result = 'ok' AND "
                     "run_id IN (SELECT id FROM runs)").fetchone()[0]
    t.check(ok_runs == done, "ok runs = done run jobs (%d)" % ok_runs, "%d ok, %d done" %
            (ok_runs, done))
    running = c.execute("SELECT count(*) FROM runs WHERE status = 'running'").fetchone()[0]
    t.check(running == 0, "no run left running", running)

    reports = dict(c.execute("SELECT message_id, subject FROM reports"))
    got = mails(maildir)
    by_id = {}
    for m in got:
        by_id.setdefault(m["Message-ID"], []).append(m)
    t.check(set(by_id) == set(reports), "one mail per report (%d reports)" % len(reports),
            "reports %s, mails %s" % (sorted(reports), sorted(by_id)))
    copies = sum(len(v) - 1 for v in by_id.values())
    same = all(m["Date"] == v[0]["Date"] and m["Subject"] == v[0]["Subject"] and
               m.get_content() == v[0].get_content() for v in by_id.values() for m in v)
    t.check(same, "a second copy (SMTP's at least once) is the same message", copies)
    t.check(len(reports) == sum(1 for v in expected.values() if v[1]),
            "a report for each regression")
    c.close()

    t.check(not stats.errors, "every well-formed request answered, none with a 5xx",
            "%d errors, first: %s" % (stats.count.get("errors", 0), stats.errors[:5]))
    t.check(watch.kills >= SECONDS / 12, "the watch was killed %d times" % watch.kills)
    warm = [kb for when, kb in samples if when <= warm_until][-1]
    end = samples[-1][1]
    peak = max(kb for _, kb in samples)
    bound = warm + max(6 * 1024, warm * 15 // 100)
    t.check(end <= bound, "serve's memory flat: %d KiB after the warm-up, %d at the end "
            "(bound %d)" % (warm, end, bound))
    return warm, end, peak


def percentile(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p))] if v else float("nan")


def main():
    trees, expected, cfg, ports = setup()
    maildir = os.path.join(tmp, "Maildir")
    smtp = flhttp.start(["/usr/bin/python3", "-m", "aiosmtpd", "-n", "-l",
                         "127.0.0.1:%d" % ports["smtp"], "-c", "aiosmtpd.handlers.Mailbox",
                         maildir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = flhttp.run(["db", "init", "--config", cfg])
    assert r.returncode == 0, r.stderr
    serve = flhttp.Server(["serve", "--config", cfg, "--listen", "127.0.0.1:0"],
                          os.path.join(tmp, "serve.err"))
    watch = Watch(cfg)
    watch.start()
    stats, samples = Stats(), []
    start = time.time()
    warm_until = start + max(20, SECONDS / 5)
    workers = [threading.Thread(target=pages, args=(serve, stats)) for _ in range(4)]
    workers += [threading.Thread(target=agent, args=(watch, ports["api"], stats))
                for _ in range(2)]
    workers += [threading.Thread(target=hostile, args=(serve, watch, ports["api"], stats)),
                threading.Thread(target=idle, args=(serve, ports["api"], stats)),
                threading.Thread(target=slowloris, args=(serve, stats)),
                threading.Thread(target=sample_rss, args=(serve, samples)),
                threading.Thread(target=killer, args=(watch,)),
                threading.Thread(target=tagger, args=(trees, expected))]
    for w in workers:
        w.start()
    try:
        time.sleep(SECONDS)
    finally:
        stop.set()
        for w in workers:
            w.join()
    load_end = time.time()
    deadline = time.time() + 300
    while time.time() < deadline and not settled(expected):
        time.sleep(1)
    t.check(settled(expected), "the service finished what it was given, %.0f s after the load"
            % (time.time() - load_end))
    warm, end, peak = check(expected, watch, stats, samples, maildir, warm_until)
    t.check(watch.stop() == 0, "the watch stops cleanly at the end")
    t.check(serve.stop() == 0, "serve stops cleanly at the end")
    smtp.terminate()
    smtp.wait()

    total = sum(v for k, v in stats.count.items() if k in ("pages", "agent", "hostile"))
    print("# soak: %.0f s of load%s, %d kills of the watch survived (%d starts)"
          % (SECONDS, " (ASan)" if flhttp.SANITIZED else "", watch.kills, watch.starts))
    print("# requests answered: %d (pages %d, agent %d, hostile %d); %d agent requests while "
          "the watch was down; %d idle connections opened (those over the per-client limits closed at once); %d slow clients cut"
          % (total, stats.count.get("pages", 0), stats.count.get("agent", 0),
             stats.count.get("hostile", 0), stats.count.get("agent while the watch was down", 0),
             stats.count.get("idle connections", 0),
             stats.count.get("slow clients cut", 0)))
    print("# latency: pages p50 %.1f ms, p99 %.1f ms; agent p50 %.1f ms, p99 %.1f ms"
          % (1e3 * percentile(stats.lat["pages"], 0.5), 1e3 * percentile(stats.lat["pages"], 0.99),
             1e3 * percentile(stats.lat["agent"], 0.5), 1e3 * percentile(stats.lat["agent"], 0.99)))
    print("# serve RSS: %d KiB after the warm-up, %d KiB at the end, %d KiB at most; watch RSS "
          "at most %d KiB" % (warm, end, peak, watch.max_rss))
    print("# regressions: %d of %d tags, reports mailed: %d"
          % (sum(1 for v in expected.values() if v[1]), len(expected),
             len(mails(maildir))))
    return flhttp.end(t, tmp, ("watch.err", "serve.err"))


if __name__ == "__main__":
    sys.exit(main())
