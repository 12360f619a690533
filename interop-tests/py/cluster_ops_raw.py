#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Raw cluster-operation requests for the cluster tests (standard library
only), sent to one broker.

Usage: cluster_ops_raw.py HOST:PORT COMMAND [ARGS]

  elect TYPE [TOPIC:PARTITION ...]
                 ElectLeaders v1 (TYPE preferred or unclean; no
                 partitions: null, every partition): prints "top ERROR"
                 then one line per partition result "TOPIC PARTITION ERROR"
  shutdown BROKER
                 ControlledShutdown v1 for BROKER: prints "ERROR
                 REMAINING" (the number of partitions still led there)

Exit status: 0 answered, 2 usage, 4 no connection or a broken answer.
"""
import sys

import kafka_wire
from kafka_wire import Reader, int8, int32, string

API_CONTROLLED_SHUTDOWN, API_ELECT_LEADERS = 7, 43
CONTROLLED_SHUTDOWN_V, ELECT_LEADERS_V = 1, 1  # the last before flexible versions
ELECTION_TYPES = {"preferred": 0, "unclean": 1}
TIMEOUT_MS = 30000
SOCKET_TIMEOUT_S = 40
EXIT_USAGE, EXIT_TRANSPORT = 2, 4


def call(addr, api, version, body):
    host, port = addr.rsplit(":", 1)
    with kafka_wire.Connection(host, int(port), "cluster_ops_raw", SOCKET_TIMEOUT_S) as conn:
        return Reader(conn.call(api, version, body))


def topic_partitions(specs):
    """["t:0", "t:1", "u:0"] -> the request's array, topics in first-seen order."""
    if not specs:
        return int32(-1)
    topics = {}
    for spec in specs:
        topic, partition = spec.rsplit(":", 1)
        topics.setdefault(topic, []).append(int(partition))
    return int32(len(topics)) + b"".join(
        string(t) + int32(len(ps)) + b"".join(int32(p) for p in ps) for t, ps in topics.items())


def cmd_elect(addr, kind, specs):
    body = int8(ELECTION_TYPES[kind]) + topic_partitions(specs) + int32(TIMEOUT_MS)
    r = call(addr, API_ELECT_LEADERS, ELECT_LEADERS_V, body)
    r.i32()  # throttle_time_ms
    print("top", r.i16())
    results = r.arr(lambda r: (r.str(), r.arr(lambda r: (r.i32(), r.i16(), r.str())))) or []
    for topic, parts in results:
        for partition, err, _message in parts or []:
            print(topic, partition, err)
    return 0


def cmd_shutdown(addr, broker):
    r = call(addr, API_CONTROLLED_SHUTDOWN, CONTROLLED_SHUTDOWN_V, int32(broker))
    err = r.i16()
    remaining = r.arr(lambda r: (r.str(), r.i32())) or []
    print(err, len(remaining))
    return 0


def main():
    argv = sys.argv
    if len(argv) >= 4 and argv[2] == "elect" and argv[3] in ELECTION_TYPES:
        run = lambda: cmd_elect(argv[1], argv[3], argv[4:])
    elif len(argv) == 4 and argv[2] == "shutdown":
        run = lambda: cmd_shutdown(argv[1], int(argv[3]))
    else:
        sys.stderr.write(__doc__)
        return EXIT_USAGE
    try:
        return run()
    except (OSError, kafka_wire.WireError) as e:
        sys.stderr.write("cluster_ops_raw: %s: %s\n" % (argv[1], e))
        return EXIT_TRANSPORT


if __name__ == "__main__":
    sys.exit(main())
