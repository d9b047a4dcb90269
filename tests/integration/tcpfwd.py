# tcpfwd.py - a TCP forwarder on loopback for remote-lost.sh: the "network"
# between faultline and a libvirt host, which the test can freeze (SIGSTOP:
# the host stops answering, as when it loses power or its link) or cut
# (SIGKILL: connections refused).
#
#   python3 tcpfwd.py PORTFILE TARGET_PORT
#
# Listens on 127.0.0.1 on a free port, writes the port to PORTFILE, and
# forwards every connection to 127.0.0.1:TARGET_PORT.
import socket
import sys
import threading


def pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def main():
    portfile, target = sys.argv[1], int(sys.argv[2])
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(16)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % lsock.getsockname()[1])
    import os
    os.rename(portfile + ".tmp", portfile)
    while True:
        c, _ = lsock.accept()
        try:
            u = socket.create_connection(("127.0.0.1", target))
        except OSError:
            c.close()
            continue
        for a, b in ((c, u), (u, c)):
            threading.Thread(target=pump, args=(a, b), daemon=True).start()


main()
