# SPDX-License-Identifier: Apache-2.0
"""What a broker serves, read over a raw socket (standard library only), for
the scenarios that restart brokers holding many partitions (partitions,
scale): a Metadata v1 for all topics, reduced to the controller and the
partitions each topic has with a leader, and a start timed from exec to the
first such answer that lists every partition led (the partitions are loaded
and served, not just the socket open).
"""
import socket
import struct
import time

from brokers import START_DEADLINE_S

METADATA_KEY = 3
METADATA_VERSION = 1  # the oldest with the controller id; short answers, quick to parse


def recv_exact(s, n):
    """n bytes from s, or None when it closes first (a timeout raises OSError)."""
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def metadata(port, timeout=5.0):
    """What a Metadata v1 for all topics answers, or None when the broker
    does not answer: {"controller": id, "brokers": set of live ids, "led":
    {topic: partitions with a live leader}, "by_leader": {broker id:
    partitions it leads}, "short_isr": partitions whose ISR is smaller than
    their replica list, "not_preferred": partitions led by another broker
    than the first of their replicas}. A leader is live when the
    answer lists it among the brokers (a killed leader stays named on its
    partitions until the controller moves them)."""
    client = b"bench"
    body = struct.pack(">i", -1)  # null topics: all of them
    header = struct.pack(">hhih", METADATA_KEY, METADATA_VERSION, 1, len(client)) + client
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(struct.pack(">i", len(header) + len(body)) + header + body)
            size = recv_exact(s, 4)
            data = size and recv_exact(s, struct.unpack(">i", size)[0])
    except OSError:
        return None
    if not data:
        return None
    pos = 4  # correlation id

    def take(fmt):
        nonlocal pos
        vals = struct.unpack_from(fmt, data, pos)
        pos += struct.calcsize(fmt)
        return vals[0] if len(vals) == 1 else vals

    def string():
        nonlocal pos
        n = take(">h")
        s = data[pos:pos + max(n, 0)].decode()
        pos += max(n, 0)
        return s

    brokers = set()
    for _ in range(take(">i")):  # brokers: node id, host, port, rack
        brokers.add(take(">i"))
        string()
        take(">i")
        string()
    controller = take(">i")
    leaders, by_leader, short, moved = {}, {}, 0, 0
    for _ in range(take(">i")):
        take(">h")
        name = string()
        take(">b")
        led = 0
        for _ in range(take(">i")):
            err, _, leader = take(">hii")
            replicas = take(">i")
            moved += replicas > 0 and struct.unpack_from(">i", data, pos)[0] != leader
            pos += 4 * replicas
            isr = take(">i")
            pos += 4 * isr
            led += err == 0 and leader in brokers
            by_leader[leader] = by_leader.get(leader, 0) + 1
            short += isr < replicas
        leaders[name] = led
    return {"controller": controller, "brokers": brokers, "led": leaders, "by_leader": by_leader,
            "short_isr": short, "not_preferred": moved}


def metadata_leaders(port, timeout=5.0):
    """{topic: partitions with a live leader}, or None when the broker does not answer."""
    got = metadata(port, timeout)
    return got and got["led"]


def all_served(port, topics, per_topic):
    got = metadata_leaders(port)
    return got is not None and all(got.get(t) == per_topic for t in topics)


def wait_served(b, topics, per_topic, t0, deadline_s=START_DEADLINE_S * 5):
    """Polls b until every partition of topics is led; returns seconds since t0."""
    while not all_served(b.port, topics, per_topic):
        if b.proc.poll() is not None:
            raise RuntimeError(f"gregor exited with {b.proc.returncode} (log: {b.tmp})")
        if time.monotonic() > t0 + deadline_s:
            raise RuntimeError("gregor did not serve every partition in time")
        time.sleep(0.05)
    return time.monotonic() - t0


def restart(b, topics, per_topic):
    """Starts b and returns seconds from exec to Metadata showing every partition led."""
    t0 = time.monotonic()
    b.start()
    return wait_served(b, topics, per_topic, t0)
