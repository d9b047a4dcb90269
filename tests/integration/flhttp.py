"""flhttp.py - what the Python tests of faultline's HTTP servers share
(tests/integration/hostile.py, tests/soak/soak.py): requests written on a
raw socket (so a test can send what no well-behaved client would, from a
chosen loopback address), requests signed as a box's daemon signs them
(docs/baremetal.md), the servers started as processes, their memory, and
TAP-style results. What a test starts through start() is stopped when the
test ends, however it ends (an exception, SIGTERM, SIGINT).
"""
import atexit
import hashlib
import hmac
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time

FAULTLINE = os.environ.get("FAULTLINE", "build/orchestrator/faultline")
SANITIZED = os.environ.get("FL_SANITIZE") == "ON"

_started = []


def start(argv, **kw):
    """subprocess.Popen(argv, **kw), stopped at the test's exit if it still runs."""
    proc = subprocess.Popen(argv, **kw)
    _started.append(proc)
    return proc


@atexit.register
def _stop_started():
    """SIGTERM to what still runs, SIGKILL to what still runs 10 s later."""
    running = [p for p in _started if p.poll() is None]
    for p in running:
        p.terminate()
    deadline = time.time() + 10
    for p in running:
        try:
            p.wait(timeout=max(0.1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            print("# still running 10 s after SIGTERM, killed: %d %s" % (p.pid, p.args), flush=True)
            p.kill()
            p.wait()


# SIGTERM and SIGHUP end the test as SIGINT does: through finally blocks and atexit
for _sig in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(_sig, lambda n, _f: sys.exit(128 + n))


class Checks:
    """ok/not ok lines; finish() is the exit status."""

    def __init__(self):
        self.passed = self.failed = 0

    def check(self, cond, name, detail=""):
        if cond:
            self.passed += 1
            print("ok - %s" % name, flush=True)
        else:
            self.failed += 1
            print("not ok - %s%s" % (name, (": " + str(detail)) if detail else ""), flush=True)
        return cond

    def finish(self):
        print("%d passed, %d failed" % (self.passed, self.failed), flush=True)
        return 1 if self.failed else 0


def sign(token, box, method, path, body=b"", ts=None, nonce=None):
    """The Authorization header's value for a request (proto/auth.h)."""
    ts = int(time.time()) if ts is None else ts
    nonce = nonce or secrets.token_hex(16)
    body_hex = hashlib.sha256(body).hexdigest()
    canon = "\n".join(["FL-HMAC-SHA256", method, path, box, str(ts), nonce, body_hex])
    sig = hmac.new(token.encode(), canon.encode(), hashlib.sha256).hexdigest()
    return "FL-HMAC-SHA256 box=%s,ts=%d,nonce=%s,body=%s,sig=%s" % (box, ts, nonce, body_hex, sig)


def connect(port, src="127.0.0.1", timeout=5.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s


def read_answer(s):
    """(status, headers, body) of one HTTP/1.1 answer; status 0 when the
    connection closed without one."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            return 0, {}, data
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    if "content-length" in headers:
        want = int(headers["content-length"])
        while len(body) < want:
            chunk = s.recv(65536)
            if not chunk:
                break
            body += chunk
    return status, headers, body


def request(port, method, path, headers=None, body=b"", src="127.0.0.1", timeout=5.0):
    """One request on its own connection: (status, headers, body); status 0
    when it was not answered (closed, reset, or timed out)."""
    hdrs = {"Host": "127.0.0.1", "Connection": "close"}
    hdrs.update(headers or {})
    if body:
        hdrs["Content-Length"] = str(len(body))
    text = "%s %s HTTP/1.1\r\n" % (method, path)
    text += "".join("%s: %s\r\n" % kv for kv in hdrs.items()) + "\r\n"
    try:
        s = connect(port, src, timeout)
        try:
            s.sendall(text.encode("latin-1") + body)
            return read_answer(s)
        finally:
            s.close()
    except OSError:
        return 0, {}, b""


def signed(port, token, box, method, path, body=b"", src="127.0.0.1", timeout=5.0):
    auth = sign(token, box, method, path, body)
    return request(port, method, path, {"Authorization": auth}, body, src, timeout)


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def sanitizer_env():
    """The environment for a server whose memory a test measures: under
    ASan, freed memory waits in a 256 MiB quarantine, which would look
    like growth; a small one keeps what remains the program's own."""
    env = dict(os.environ)
    if SANITIZED:
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=4").lstrip(":")
    return env


class Server:
    """faultline serve or watch as a process; its stderr kept in a file."""

    def __init__(self, args, errfile, url_from="stdout"):
        self.errfile = errfile
        self.err = open(errfile, "wb")
        self.proc = start([FAULTLINE] + args, stdout=subprocess.PIPE, stderr=self.err,
                          env=sanitizer_env())
        self.url = None
        deadline = time.time() + 60
        if url_from == "stdout":
            self.url = self.proc.stdout.readline().decode().strip()
        else:
            pattern = re.compile(url_from)
            while time.time() < deadline and not self.url and self.proc.poll() is None:
                m = pattern.search(self.stderr())
                if m:
                    self.url = m.group(1)
                else:
                    time.sleep(0.1)
        if not self.url:
            raise RuntimeError("%s did not start: %s" % (args, self.stderr()))
        self.port = int(self.url.rstrip("/").rsplit(":", 1)[1])

    @property
    def pid(self):
        return self.proc.pid

    def stderr(self):
        with open(self.errfile, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def stderr_bytes(self):
        with open(self.errfile, "rb") as f:
            return f.read()

    def stop(self, sig=15):
        """Its exit status (LeakSanitizer makes it nonzero on a leak)."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self.err.close()
        return code


def run(args, **kw):
    return subprocess.run([FAULTLINE] + args, capture_output=True, text=True, **kw)


def end(checks, tmp, logs):
    """The exit status; on a failure the tails of the servers' logs (files
    in tmp), which is removed unless FL_KEEP is set."""
    code = checks.finish()
    for name in logs if code else ():
        with open(os.path.join(tmp, name), "rb") as f:
            sys.stdout.write("--- %s (tail)\n%s\n" % (
                name, f.read()[-4000:].decode("utf-8", "replace")))
    if not os.environ.get("FL_KEEP"):
        shutil.rmtree(tmp, ignore_errors=True)
    return code


def log(*a):
    print("#", *a, file=sys.stderr, flush=True)
