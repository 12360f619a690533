# SPDX-License-Identifier: Apache-2.0
"""The partitions scenario: what a broker holding many partitions costs to
build and to restart. 20,000 partitions are created in 20 CreateTopics of
1,000 (each topic timed: a creation whose cost grows with the partitions
already there shows as a rising series), then the broker is stopped with
SIGTERM and restarted, then killed with SIGKILL and restarted. A restart is
timed from exec to the first Metadata answer that lists every partition
with a leader (the partitions are loaded and served, not just the socket
open). Gregor only: the mock keeps nothing across a restart.
"""
import socket
import struct
import time

from brokers import START_DEADLINE_S, run_client

TOPICS = 20
PARTITIONS_PER_TOPIC = 1000
METADATA_KEY = 3
METADATA_VERSION = 1


def recv_exact(s, n):
    """n bytes from s, or None when it closes first (a timeout raises OSError)."""
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def metadata_leaders(port, timeout=5.0):
    """{topic: partitions with a leader} from a Metadata v1 for all topics,
    or None when the broker does not answer."""
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

    for _ in range(take(">i")):  # brokers: node id, host, port, rack
        take(">i")
        string()
        take(">i")
        string()
    take(">i")  # controller id
    leaders = {}
    for _ in range(take(">i")):
        take(">h")
        name = string()
        take(">b")
        led = 0
        for _ in range(take(">i")):
            err, _, leader = take(">hii")
            take(">" + "i" * take(">i"))  # replicas
            take(">" + "i" * take(">i"))  # isr
            led += err == 0 and leader >= 0
        leaders[name] = led
    return leaders


def all_served(port, topics, per_topic):
    got = metadata_leaders(port)
    return got is not None and all(got.get(t) == per_topic for t in topics)


def restart(b, topics, per_topic):
    """Starts b and returns seconds from exec to Metadata showing every partition led."""
    t0 = time.monotonic()
    b.start()
    while not all_served(b.port, topics, per_topic):
        if b.proc.poll() is not None:
            raise RuntimeError(f"gregor exited with {b.proc.returncode} (log: {b.tmp})")
        if time.monotonic() > t0 + START_DEADLINE_S * 5:
            raise RuntimeError("gregor did not serve every partition in time")
        time.sleep(0.05)
    return time.monotonic() - t0


def scenario_partitions(bench, row):
    count = TOPICS // 4 if bench.quick else TOPICS
    topics = [f"p{i:02d}" for i in range(count)]
    total = count * PARTITIONS_PER_TOPIC
    create, clean, crashed, stop = [], [], [], []
    for run in range(bench.runs):
        with bench.broker("gregor") as b:
            b.start()
            t0 = time.monotonic()
            per_topic = []
            for t in topics:
                t1 = time.monotonic()
                run_client([bench.prog("bench_codec_load"), "create", "-b", b.bootstrap,
                            "-t", t, "-p", str(PARTITIONS_PER_TOPIC)])
                per_topic.append(time.monotonic() - t1)
            create.append(time.monotonic() - t0)
            bench.log(f"partitions run {run}: created {total:,} in {create[-1]:.2f} s "
                      f"(first topic {per_topic[0]:.2f} s, last {per_topic[-1]:.2f} s)")
            t1 = time.monotonic()
            if b.stop() != 0:
                raise RuntimeError("gregor did not stop cleanly")
            stop.append(time.monotonic() - t1)
            clean.append(restart(b, topics, PARTITIONS_PER_TOPIC))
            b.stop(kill9=True)
            crashed.append(restart(b, topics, PARTITIONS_PER_TOPIC))
            bench.log(f"partitions run {run}: stop {stop[-1]:.2f} s, restart clean "
                      f"{clean[-1]:.2f} s, after kill -9 {crashed[-1]:.2f} s")
    what = f"{total:,} partitions ({count} topics of {PARTITIONS_PER_TOPIC:,})"
    return [
        row("partitions", f"create {what}", "s", create, better="lower",
            note=f"{count} CreateTopics one after another"),
        row("partitions", f"clean stop, {what}", "s", stop, better="lower"),
        row("partitions", f"restart after clean stop, {what}", "s", clean, better="lower",
            target="< 5 s", check=lambda g, r: g["median"] < 5,
            note="exec to the first Metadata listing every partition with a leader"),
        row("partitions", f"restart after kill -9, {what}", "s", crashed, better="lower"),
    ]
