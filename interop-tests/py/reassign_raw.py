#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Raw partition-reassignment requests (KIP-455) for the cluster tests
(standard library only), sent to one broker. Both APIs are flexible from
v0: compact strings and arrays, tagged fields, request header v2.

Usage: reassign_raw.py HOST:PORT COMMAND [ARGS]

  alter TOPIC:PARTITION=REPLICAS ...
                 AlterPartitionReassignments v0, REPLICAS a comma-separated
                 broker list ("1,2"), "none" for an empty list, or "null"
                 (cancel the reassignment in progress): prints "top ERROR"
                 then one line per partition result "TOPIC PARTITION ERROR",
                 in the order of the answer
  list [TOPIC:PARTITION ...]
                 ListPartitionReassignments v0 (no arguments: topics null,
                 every reassignment in progress): prints "top ERROR" then
                 one line per partition listed "TOPIC PARTITION REPLICAS
                 ADDING REMOVING", each comma-separated in the order sent
                 ("-" when empty), sorted by topic and partition

Exit status: 0 answered, 2 usage, 4 no connection or a broken answer.
"""
import sys

import kafka_wire
from kafka_wire import Reader, Writer

API_ALTER_PARTITION_REASSIGNMENTS, API_LIST_PARTITION_REASSIGNMENTS = 45, 46
TIMEOUT_MS = 30000
SOCKET_TIMEOUT_S = 40
EXIT_USAGE, EXIT_TRANSPORT = 2, 4


def call(addr, api, body):
    host, port = addr.rsplit(":", 1)
    with kafka_wire.Connection(host, int(port), "reassign_raw", SOCKET_TIMEOUT_S) as conn:
        r = Reader(conn.call(api, 0, body, flexible=True), flexible=True)
    r.tags()  # response header v1
    return r


def by_topic(specs, parse):
    """["t:0=1,2", "u:1=null"] -> {"t": [(0, parse("1,2"))], ...}, topics in first-seen order."""
    topics = {}
    for spec in specs:
        tp, _, value = spec.partition("=")
        topic, partition = tp.rsplit(":", 1)
        topics.setdefault(topic, []).append((int(partition), parse(value)))
    return topics


def replicas(text):
    if text == "null":
        return None
    if text == "none":
        return []
    return [int(b) for b in text.split(",")]


def node_list(nodes):
    return ",".join(str(n) for n in nodes or []) or "-"


def cmd_alter(addr, specs):
    w = Writer(flexible=True).i32(TIMEOUT_MS)

    def partition(w, item):
        index, reps = item
        w.i32(index).arr(reps, Writer.i32).tags()

    w.arr(list(by_topic(specs, replicas).items()),
          lambda w, t: w.str(t[0]).arr(t[1], partition).tags()).tags()
    r = call(addr, API_ALTER_PARTITION_REASSIGNMENTS, bytes(w.data))
    r.i32()  # throttle_time_ms
    print("top", r.i16())
    r.str()  # error_message

    def result(r):
        out = (r.i32(), r.i16())
        r.str()  # error_message
        r.tags()
        return out

    def topic(r):
        out = (r.str(), r.arr(result) or [])
        r.tags()
        return out

    for name, parts in r.arr(topic) or []:
        for index, err in parts:
            print(name, index, err)
    return 0


def cmd_list(addr, specs):
    w = Writer(flexible=True).i32(TIMEOUT_MS)
    if specs:
        topics = list(by_topic([s + "=" for s in specs], lambda _: None).items())
        w.arr(topics, lambda w, t: w.str(t[0]).arr([p for p, _ in t[1]], Writer.i32).tags())
    else:
        w.arr(None, None)
    w.tags()
    r = call(addr, API_LIST_PARTITION_REASSIGNMENTS, bytes(w.data))
    r.i32()  # throttle_time_ms
    print("top", r.i16())
    r.str()  # error_message

    def partition(r):
        out = (r.i32(), r.arr(Reader.i32), r.arr(Reader.i32), r.arr(Reader.i32))
        r.tags()
        return out

    def topic(r):
        out = (r.str(), r.arr(partition) or [])
        r.tags()
        return out

    lines = []
    for name, parts in r.arr(topic) or []:
        for index, reps, adding, removing in parts:
            lines.append((name, index, node_list(reps), node_list(adding), node_list(removing)))
    for line in sorted(lines):
        print(*line)
    return 0


def main():
    argv = sys.argv
    if len(argv) >= 4 and argv[2] == "alter" and all("=" in a and ":" in a for a in argv[3:]):
        run = lambda: cmd_alter(argv[1], argv[3:])
    elif len(argv) >= 3 and argv[2] == "list" and all(":" in a for a in argv[3:]):
        run = lambda: cmd_list(argv[1], argv[3:])
    else:
        sys.stderr.write(__doc__)
        return EXIT_USAGE
    try:
        return run()
    except (OSError, ValueError, kafka_wire.WireError) as e:
        sys.stderr.write("reassign_raw: %s: %s\n" % (argv[1], e))
        return EXIT_TRANSPORT


if __name__ == "__main__":
    sys.exit(main())
