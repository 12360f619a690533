# SPDX-License-Identifier: Apache-2.0
"""Many idle clients cost the broker little memory.

usage: idle_conns_memory.py HOST PORT BROKER_PID CONNECTIONS MAX_BYTES_PER_CONNECTION

Opens CONNECTIONS connections in waves of WAVE; each sends what a client
sends first (ApiVersions v0 and Metadata v1 for no topics, pipelined) and
reads both answers, then stays open and idle. The broker's resident set
(VmRSS from /proc) is read after a first wave has warmed up its one-time
allocations and again once every connection is idle; the growth per
connection must stay under MAX_BYTES_PER_CONNECTION (0: only report it).
Exits 0, or 1 with the figures on stderr.
"""
import resource
import socket
import struct
import sys

import kafka_wire as kw

API_VERSIONS = 18
METADATA = 3
WAVE = 100
TIMEOUT_S = 30


def rss_bytes(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS for pid %d" % pid)


def open_wave(host, port, n):
    """n connections, each answered its ApiVersions and Metadata."""
    socks = []
    for _ in range(n):
        s = socket.create_connection((host, port), timeout=TIMEOUT_S)
        # Metadata v1 with an empty (not null) topic array: the brokers only.
        s.sendall(kw.frame(kw.request_header(API_VERSIONS, 0, 1, "idle")) +
                  kw.frame(kw.request_header(METADATA, 1, 2, "idle") + kw.int32(0)))
        socks.append(s)
    for s in socks:
        for want in (1, 2):
            (got,) = struct.unpack(">i", kw.read_frame(s)[:4])
            if got != want:
                raise kw.WireError("correlation id %d, want %d" % (got, want))
    return socks


def main():
    host, port, pid, conns, bound = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                                     int(sys.argv[4]), int(sys.argv[5]))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < conns + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, conns + 64), hard))
    socks = open_wave(host, port, WAVE)
    before = rss_bytes(pid)
    while len(socks) < conns:
        socks += open_wave(host, port, min(WAVE, conns - len(socks)))
    after = rss_bytes(pid)
    per = (after - before) / (conns - WAVE)
    print("%d idle connections: RSS %d -> %d KiB, %.0f bytes per connection (bound %d)"
          % (conns, before // 1024, after // 1024, per, bound), file=sys.stderr)
    for s in socks:
        s.close()
    return 0 if bound == 0 or per <= bound else 1


if __name__ == "__main__":
    sys.exit(main())
