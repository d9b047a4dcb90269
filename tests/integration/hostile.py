#!/usr/bin/python3
"""hostile.py - both HTTP servers against a hostile client on loopback,
with raw sockets: "faultline serve" (the results pages) and the agent API
of "faultline watch" with one baremetal box. Each check failed before the
servers were hardened (docs/security.md):

1. a request with 500 query parameters is answered (414) at once, and 4000
   of them leave the server's memory where it was (it hung 30 s and leaked
   each request: libmicrohttpd could not keep the parameters);
2. 1030 idle connections from one address lock out neither the pages nor a
   box on another address (per-client limit), are closed after the header
   timeout, and so is a client that sends its headers a byte at a time; a
   box's body that trickles past the body timeout is cut;
3. the agent API answers 401 to a request whose headers do not
   authenticate before any of its body is sent, 413 to a body over its cap
   likewise, and 24 unauthenticated 8 MiB bodies leave its memory flat;
4. a request path with %0d%0a or %1b forges no log line and sends no
   terminal escape, in either server's log;
and both servers then stop cleanly (exit 0: no leak under LeakSanitizer).
"""
import os
import re
import socket
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flhttp  # noqa: E402

TOKEN = "token-of-box-b1-0123456789abcdef"
HEADER_TIMEOUT = 2.0
BODY_TIMEOUT = 2.0
t = flhttp.Checks()
tmp = tempfile.mkdtemp(prefix="fl-hostile-")


def setup():
    with open(os.path.join(tmp, "b1.token"), "w") as f:
        f.write(TOKEN + "\n")
    cfg = os.path.join(tmp, "fl.yaml")
    with open(cfg, "w") as f:
        f.write("""var: {tmp}/var
store: {{ path: {tmp}/fl.db }}
web: {{ root: web, header_timeout: 2s }}
agent_api: {{ listen: '127.0.0.1:0', header_timeout: 2s, body_timeout: 2s }}
machines:
  - {{ name: b1, backend: baremetal, token_file: {tmp}/b1.token }}
""".format(tmp=tmp))
    r = flhttp.run(["db", "init", "--config", cfg])
    assert r.returncode == 0, r.stderr
    serve = flhttp.Server(["-v", "serve", "--config", cfg, "--listen", "127.0.0.1:0"], os.path.join(tmp, "serve.err"))
    watch = flhttp.Server(["-v", "watch", "--config", cfg], os.path.join(tmp, "watch.err"),
                          url_from=r"agent api: listening on (http://\S+) for")
    return serve, watch


def parallel(n, fn):
    threads = [threading.Thread(target=fn, args=(i,)) for i in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()


# ---- 1. many query parameters ------------------------------------------------

def many_parameters(serve):
    query = "&".join("a%d=1" % i for i in range(500))
    start = time.time()
    status, _, body = flhttp.request(serve.port, "GET", "/runs?" + query, timeout=10)
    took = time.time() - start
    t.check(status == 414 and took < 3, "500 query parameters: answered 414 at once",
            "status %d after %.1f s" % (status, took))
    t.check(b"more than 64 query parameters" in body, "the answer says why")
    status, _, _ = flhttp.request(serve.port, "GET", "/api/runs?page=1&status=ok")
    t.check(status == 200, "parameters still reach the pages", status)
    status, _, body = flhttp.request(serve.port, "GET", "/api/runs?page=x%31y")
    t.check(status == 400 and b"x1y" in body, "and are decoded", (status, body[:120]))

    total = int(os.environ.get("FL_HOSTILE_N", 1000 if flhttp.SANITIZED else 4000))

    def hammer(i, n=total // 8):
        for _ in range(n):
            flhttp.request(serve.port, "GET", "/runs?" + query, timeout=10)

    # the warm-up: the allocator's (and under ASan its quarantine's) share
    for _ in range(200):
        flhttp.request(serve.port, "GET", "/runs?" + query, timeout=10)
    before = flhttp.rss_kb(serve.pid)
    parallel(8, hammer)
    after = flhttp.rss_kb(serve.pid)
    t.check(after - before < 8 * 1024, "%d such requests: memory flat" % total,
            "RSS %d KiB -> %d KiB" % (before, after))
    flhttp.log("serve RSS %d KiB -> %d KiB after %d requests of 500 parameters"
               % (before, after, total))


# ---- 2. idle and slow connections ----------------------------------------------

def hold_idle(port, n, src):
    """n connections that send half a request and wait; those the server kept."""
    socks = []
    for _ in range(n):
        try:
            s = flhttp.connect(port, src, timeout=2)
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            socks.append(s)
        except OSError:
            pass
    time.sleep(1)
    kept = []
    for s in socks:
        s.settimeout(0)
        try:
            gone = s.recv(1) == b""
        except BlockingIOError:
            gone = False
        except OSError:
            gone = True
        if gone:
            s.close()
        else:
            kept.append(s)
    return kept


def closed_within(socks, seconds):
    """All of socks see the server close them within seconds."""
    deadline = time.time() + seconds
    open_ = list(socks)
    while open_ and time.time() < deadline:
        still = []
        for s in open_:
            s.settimeout(0)
            try:
                if s.recv(4096) == b"":
                    s.close()
                    continue
            except BlockingIOError:
                pass
            except OSError:
                s.close()
                continue
            still.append(s)
        open_ = still
        time.sleep(0.1)
    for s in open_:
        s.close()
    return not open_


def lockout(serve, watch):
    kept = hold_idle(serve.port, 1030, "127.0.0.2")
    t.check(len(kept) <= 32, "serve: one client holds at most 32 connections", len(kept))
    start = time.time()
    status, _, _ = flhttp.request(serve.port, "GET", "/", timeout=5)
    t.check(status == 200 and time.time() - start < 3,
            "serve: a browser is answered while 1030 idle connections wait", status)
    t.check(closed_within(kept, HEADER_TIMEOUT + 2), "serve: idle connections closed after "
            "the header timeout")

    kept = hold_idle(watch.port, 1030, "127.0.0.2")
    t.check(len(kept) <= 8, "agent api: one client holds at most 8 connections", len(kept))
    start = time.time()
    status, _, body = flhttp.signed(watch.port, TOKEN, "b1", "POST", "/agent/v1/work", b"{}")
    t.check(status == 200 and b'"job":null' in body and time.time() - start < 3,
            "agent api: a signed box request is answered while 1030 idle connections wait",
            (status, body[:100]))
    t.check(closed_within(kept, HEADER_TIMEOUT + 2),
            "agent api: idle connections closed after the header timeout")

    # headers a byte at a time: never silent for libmicrohttpd's timeout, but
    # not complete by the header deadline
    for name, port in (("serve", serve.port), ("agent api", watch.port)):
        s = flhttp.connect(port, "127.0.0.3")
        start, cut = time.time(), False
        for ch in b"GET / HTTP/1.1\r\nX-Slow: " + b"y" * 200:
            try:
                s.sendall(bytes([ch]))
                s.settimeout(0.5)
                if s.recv(4096) == b"":
                    cut = True
                    break
            except socket.timeout:
                continue
            except OSError:
                cut = True
                break
            if time.time() - start > HEADER_TIMEOUT + 8:
                break
        took = time.time() - start
        s.close()
        t.check(cut and took < HEADER_TIMEOUT + 3,
                "%s: headers sent a byte at a time are cut at the header deadline" % name,
                "cut %s after %.1f s" % (cut, took))

    # a box's body a byte at a time: cut at the body deadline
    body = b"{" + b" " * 98 + b"}"
    auth = flhttp.sign(TOKEN, "b1", "POST", "/agent/v1/work", body)
    s = flhttp.connect(watch.port, "127.0.0.4")
    s.sendall(("POST /agent/v1/work HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\n"
               "Content-Length: %d\r\n\r\n" % (auth, len(body))).encode())
    start, status = time.time(), None
    for ch in body:
        try:
            s.sendall(bytes([ch]))
            s.settimeout(0.5)
            data = s.recv(4096)
            if data == b"" or data.startswith(b"HTTP/1.1 200"):
                status = data[:12]
                break
        except socket.timeout:
            continue
        except OSError:
            status = b""
            break
    took = time.time() - start
    s.close()
    t.check(status == b"" and took < BODY_TIMEOUT + 3,
            "agent api: a body sent a byte at a time is cut at the body deadline",
            "%r after %.1f s" % (status, took))


# ---- 3. bodies before authentication -------------------------------------------------

def answer_before_body(port, headers):
    """Sends only the headers of an 8 MiB request; the answer that comes without the body."""
    s = flhttp.connect(port, timeout=3)
    text = "POST /agent/v1/work HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n" % (8 << 20)
    text += "".join("%s: %s\r\n" % kv for kv in headers.items()) + "\r\n"
    s.sendall(text.encode())
    try:
        status, _, body = flhttp.read_answer(s)
    except socket.timeout:
        status, body = 0, b""
    s.close()
    return status, body


def body_before_auth(watch):
    status, body = answer_before_body(watch.port, {})
    t.check(status == 401, "agent api: no Authorization: 401 before the body", status)
    forged = flhttp.sign("not-the-token-of-b1-0123456789", "b1", "POST", "/agent/v1/work",
                         b"x" * (8 << 20))
    status, body = answer_before_body(watch.port, {"Authorization": forged})
    t.check(status == 401 and b"signature does not match" in body,
            "agent api: a wrong signature: 401 before the body", (status, body[:100]))
    big = b"x" * ((8 << 20) + 1)
    auth = flhttp.sign(TOKEN, "b1", "POST", "/agent/v1/work", big)
    s = flhttp.connect(watch.port, timeout=3)
    s.sendall(("POST /agent/v1/work HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\n"
               "Content-Length: %d\r\n\r\n" % (auth, len(big))).encode())
    try:
        status, _, body = flhttp.read_answer(s)
    except socket.timeout:
        status = 0
    s.close()
    t.check(status == 413 and b"at most 8388608 bytes" in body,
            "agent api: a signed body over the cap: 413 before the body", (status, body[:100]))

    def push(i):
        try:
            s = flhttp.connect(watch.port, "127.0.0.5", timeout=10)
            s.sendall(b"POST /agent/v1/work HTTP/1.1\r\nHost: x\r\nContent-Length: 8388608\r\n\r\n")
            chunk = b"z" * 65536
            for _ in range(128):
                s.sendall(chunk)
            s.close()
        except OSError:
            pass

    for _ in range(5):
        flhttp.signed(watch.port, TOKEN, "b1", "POST", "/agent/v1/work", b"{}")
    before = flhttp.rss_kb(watch.pid)
    parallel(24, push)
    time.sleep(0.5)
    after = flhttp.rss_kb(watch.pid)
    t.check(after - before < 16 * 1024,
            "agent api: 24 unauthenticated 8 MiB bodies: memory flat",
            "RSS %d KiB -> %d KiB" % (before, after))
    flhttp.log("watch RSS %d KiB -> %d KiB after 24 unauthenticated 8 MiB bodies"
               % (before, after))


# ---- 4. log lines ---------------------------------------------------------------------

FORGED = "/agent/v1/x%0d%0arun%201:%20ok%20after%201.0%20s%1b[31m"


def log_injection(serve, watch):
    status, _, _ = flhttp.request(watch.port, "GET", FORGED)
    t.check(status == 401, "agent api: the forged path is refused", status)
    status, _, _ = flhttp.request(serve.port, "GET", FORGED)
    t.check(status == 404, "serve: the forged path is not a page", status)
    time.sleep(0.3)
    for name, srv in (("agent api", watch), ("serve", serve)):
        raw = srv.stderr_bytes()
        lines = raw.decode("utf-8", "replace").splitlines()
        t.check(any("/agent/v1/x" in line for line in lines),
                "%s: the request is logged" % name)
        # every line is a log line (its time and level, then the message) or,
        # with -v, an access-log line in the Common Log Format, whose request
        # line is escaped as Apache escapes it
        prefix = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (error|warning|info|debug) ")
        clf = re.compile(r'\S+ - \S+ \[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\] "(?:[^"\\]|\\.)*" \d{1,3} (\d+|-)$')
        odd = [line for line in lines if not prefix.match(line) and not clf.match(line)]
        t.check(not odd, "%s: every line has its time and level, or is an access-log line" % name,
                odd[:3])
        t.check(not any(prefix.sub("", line).startswith("run 1: ok") for line in lines),
                "%s: no forged log line" % name)
        t.check(b"\r" not in raw and b"\x1b" not in raw, "%s: no CR or ESC in the log" % name)


def main():
    serve, watch = setup()
    try:
        many_parameters(serve)
        lockout(serve, watch)
        body_before_auth(watch)
        log_injection(serve, watch)
    finally:
        t.check(serve.stop() == 0, "serve stops cleanly")
        t.check(watch.stop() == 0, "watch stops cleanly")
    return flhttp.end(t, tmp, ("serve.err", "watch.err"))


if __name__ == "__main__":
    sys.exit(main())
