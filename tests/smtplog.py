#!/usr/bin/python3
"""smtplog.py - a small SMTP server for the mail tests that keeps what the
wire carried, byte for byte, and can refuse or stall where a real server
might:

    smtplog.py PORT DIR [--refuse-rcpt] [--refuse-data] [--hold-first SECONDS]

DIR/transcript gets every byte the clients sent (commands and DATA, bare CR
and all); DIR/msg-N each message as it arrived between DATA and the final
dot; DIR/taken-N appears once message N is in, before the server answers
it. --refuse-rcpt answers every RCPT with 550, --refuse-data the end of
every DATA with 554, each with a text saying why; --hold-first waits that
long before the 250 that accepts the first message (a client killed
meanwhile never learns it was accepted).
"""
import os
import socketserver
import sys
import threading
import time

PORT, DIR = int(sys.argv[1]), sys.argv[2]
REFUSE_RCPT = "--refuse-rcpt" in sys.argv
REFUSE_DATA = "--refuse-data" in sys.argv
HOLD = float(sys.argv[sys.argv.index("--hold-first") + 1]) if "--hold-first" in sys.argv else 0
lock = threading.Lock()
count = [0]


def keep(data):
    with lock, open(os.path.join(DIR, "transcript"), "ab") as f:
        f.write(data)


class Session(socketserver.StreamRequestHandler):
    def say(self, text):
        self.wfile.write(text.encode() + b"\r\n")
        self.wfile.flush()

    def handle(self):
        self.say("220 smtplog ESMTP")
        while True:
            line = self.rfile.readline()
            if not line:
                return
            keep(line)
            verb = line[:4].upper()
            if verb in (b"EHLO", b"HELO"):
                self.say("250-smtplog\r\n250-8BITMIME\r\n250 SIZE 10000000")
            elif verb == b"MAIL":
                self.say("250 2.1.0 Ok")
            elif verb == b"RCPT":
                addr = line[8:].strip().decode(errors="replace")
                if REFUSE_RCPT:
                    self.say("550 5.1.1 %s: Recipient address rejected: no such user here" % addr)
                else:
                    self.say("250 2.1.5 Ok")
            elif verb == b"DATA":
                self.say("354 End data with <CR><LF>.<CR><LF>")
                self.data()
            elif verb == b"QUIT":
                self.say("221 2.0.0 Bye")
                return
            else:
                self.say("250 Ok")

    def data(self):
        body = b""
        while not body.endswith(b"\r\n.\r\n") and body != b".\r\n":
            chunk = self.rfile.readline()
            if not chunk:
                return
            keep(chunk)
            body += chunk
        with lock:
            count[0] += 1
            n = count[0]
        with open(os.path.join(DIR, "msg-%d" % n), "wb") as f:
            f.write(body)
        open(os.path.join(DIR, "taken-%d" % n), "w").close()
        if REFUSE_DATA:
            self.say("554 5.7.1 Message rejected: it looks like spam to us")
            return
        if n == 1 and HOLD:
            time.sleep(HOLD)
        self.say("250 2.0.0 Ok: queued as %d" % n)


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


os.makedirs(DIR, exist_ok=True)
Server(("127.0.0.1", PORT), Session).serve_forever()
