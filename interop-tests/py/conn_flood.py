#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Opens many Kafka connections from one source address and holds them.

Usage:
  conn_flood.py SRC HOST PORT COUNT EXPECT READY STOP
      Connects COUNT times to HOST:PORT from the address SRC (any of
      127.0.0.0/8 on Linux), sending nothing. The connects themselves
      complete in the kernel; a broker that refuses one closes it after
      accept. Waits (at most SETTLE_S) until COUNT - EXPECT of them have been
      closed by the broker, prints "open=N closed=M", touches READY, then
      holds the open ones until the file STOP exists (at most HOLD_MAX_S) and
      closes them. EXPECT -1: do not wait for closes.
Exit status 0 once done, 1 when a connect failed (the reason on stderr).
Standard library only.
"""
import os
import select
import socket
import sys
import time

CONNECT_S = 10.0
SETTLE_S = 15.0
HOLD_MAX_S = 60.0
POLL_S = 0.05


def closed_by_peer(s):
    """True once the broker closed s (EOF or reset)."""
    try:
        return s.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def count_closed(socks):
    # poll, not select: the flood's descriptors go past FD_SETSIZE.
    poller = select.poll()
    by_fd = {s.fileno(): s for s in socks}
    for fd in by_fd:
        poller.register(fd, select.POLLIN)
    return sum(1 for fd, _ in poller.poll(0) if closed_by_peer(by_fd[fd]))


def main():
    if len(sys.argv) != 8:
        sys.exit(__doc__)
    src, host, port, count, expect, ready, stop = sys.argv[1:]
    port, count, expect = int(port), int(count), int(expect)
    socks = []
    for _ in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((src, 0))
        s.settimeout(CONNECT_S)
        s.connect((host, port))
        socks.append(s)
    closed = count_closed(socks)
    deadline = time.monotonic() + SETTLE_S
    while expect >= 0 and closed < count - expect and time.monotonic() < deadline:
        time.sleep(POLL_S)
        closed = count_closed(socks)
    print("open=%d closed=%d" % (count - closed, closed), flush=True)
    open(ready, "w").close()
    deadline = time.monotonic() + HOLD_MAX_S
    while not os.path.exists(stop) and time.monotonic() < deadline:
        time.sleep(POLL_S)
    for s in socks:
        s.close()


if __name__ == "__main__":
    try:
        main()
    except OSError as e:
        print("conn_flood: %s" % e, file=sys.stderr)
        sys.exit(1)
