#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Abuses a broker's HTTP listener (gregor.http.listener) over raw sockets.

Usage:
  http_flood.py HOST PORT probe
      Bad requests, one connection each, every answer checked: headers larger
      than the listener's request limit (431 or 413, or a close), garbage
      bytes (400 or a close), a request cut off half-way and the socket
      reset, a body on a POST (405), 200 sequential GET /metrics; the
      connection ends each time (no hang past WAIT_S).
  http_flood.py HOST PORT hold COUNT READY STOP
      Opens COUNT connections and keeps them: a third idle, a third writing a
      request one header byte at a time (slow clients), a third with a
      request half-written. Touches READY once all are open (or refused),
      then holds them until the file STOP exists (at most HOLD_MAX_S), and
      closes them.
Exit status 0 when the listener behaved, 1 otherwise (the reason on stderr).
Standard library only.
"""
import os
import random
import socket
import struct
import sys
import time

WAIT_S = 10.0
HOLD_MAX_S = 60.0
DRIBBLE_S = 0.2
OVERSIZED_HEADER_BYTES = 256 * 1024
GARBAGE_BYTES = 4096
SEQUENTIAL_GETS = 200


def connect(host, port):
    s = socket.create_connection((host, port), timeout=WAIT_S)
    s.settimeout(WAIT_S)
    return s


def read_all(s):
    """Everything until the server closes (or WAIT_S passes: a failure)."""
    chunks = []
    while True:
        try:
            b = s.recv(65536)
        except ConnectionResetError:
            break
        except socket.timeout:
            raise AssertionError("the server kept the connection open past %.0f s" % WAIT_S)
        if not b:
            break
        chunks.append(b)
    return b"".join(chunks)


def status_of(reply):
    if not reply:
        return None  # closed without an answer
    line = reply.split(b"\r\n", 1)[0]
    parts = line.split(b" ")
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1."):
        raise AssertionError("not an HTTP answer: %r" % line[:80])
    return int(parts[1])


def send_quietly(s, data):
    """Sends what the server takes; it may close mid-way (that is allowed)."""
    try:
        s.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass


def expect(name, got, allowed):
    if got not in allowed:
        raise AssertionError("%s: got %r, expected one of %r" % (name, got, allowed))
    print("%s: %s" % (name, "closed" if got is None else got), file=sys.stderr)


def probe(host, port):
    s = connect(host, port)
    big = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * OVERSIZED_HEADER_BYTES + b"\r\n\r\n"
    send_quietly(s, big)
    expect("oversized headers", status_of(read_all(s)), (431, 413, None))
    s.close()

    s = connect(host, port)
    rnd = random.Random(31)
    send_quietly(s, bytes(rnd.randrange(256) for _ in range(GARBAGE_BYTES)) + b"\r\n\r\n")
    expect("garbage", status_of(read_all(s)), (400, None))
    s.close()

    s = connect(host, port)
    send_quietly(s, b"GARBAGE\r\n\r\n")
    expect("a request line without a path", status_of(read_all(s)), (400, 505, None))
    s.close()

    for n in (5, 20, 40):  # cut off half-way, then reset
        s = connect(host, port)
        send_quietly(s, b"GET /metrics HTTP/1.1\r\nHost: x\r\nUser-Agent: half-written"[:n])
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()

    s = connect(host, port)
    send_quietly(s, b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n" + b"x" * 1000)
    expect("POST with a body", status_of(read_all(s)), (405,))
    s.close()

    for i in range(SEQUENTIAL_GETS):
        s = connect(host, port)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        st = status_of(read_all(s))
        s.close()
        if st != 200:
            raise AssertionError("GET /metrics #%d: %r" % (i, st))
    print("%d sequential GET /metrics: 200" % SEQUENTIAL_GETS, file=sys.stderr)


def hold(host, port, count, ready, stop):
    socks, slow, refused = [], [], 0
    request = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"s" * 4096
    for i in range(count):
        try:
            s = socket.create_connection((host, port), timeout=WAIT_S)
        except OSError:
            refused += 1
            continue
        s.setblocking(False)
        socks.append(s)
        if i % 3 == 1:
            slow.append([s, 0])
        elif i % 3 == 2:
            try:
                s.send(b"GET /metrics HTTP/1.1\r\nHost: ")
            except OSError:
                pass
    print("holding %d connections (%d refused at connect)" % (len(socks), refused), file=sys.stderr)
    open(ready, "w").close()
    deadline = time.monotonic() + HOLD_MAX_S
    while not os.path.exists(stop) and time.monotonic() < deadline:
        for entry in slow:
            s, pos = entry
            if pos < len(request):
                try:
                    entry[1] += s.send(request[pos : pos + 1])
                except OSError:
                    entry[1] = len(request)  # closed by the server: fine
        time.sleep(DRIBBLE_S)
    for s in socks:
        s.close()


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    host, port, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    try:
        if cmd == "probe":
            probe(host, port)
        elif cmd == "hold":
            hold(host, port, int(sys.argv[4]), sys.argv[5], sys.argv[6])
        else:
            sys.exit(__doc__)
    except (AssertionError, OSError) as e:
        print("http_flood %s: %s" % (cmd, e), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
