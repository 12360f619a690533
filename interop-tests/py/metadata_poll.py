#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Asks one broker for Metadata as fast as it answers, from before it
listens (standard library only), and checks every answer it gives: a broker
that is starting must not tell a client less than the cluster knows.

Usage: metadata_poll.py HOST:PORT TOPIC PARTITIONS BROKERS ANSWERS SECONDS

  TOPIC, PARTITIONS  an existing topic and its partition count
  BROKERS            the live broker ids every answer must list ("0 1 2")
  ANSWERS            stop after this many good answers
  SECONDS            give up after this long

Connection refused, a connection closed or no answer yet are not answers:
the script connects again and asks again. Each answer (Metadata v4 for
TOPIC, no auto-creation) must list exactly BROKERS, name a controller, and
give TOPIC without an error and with PARTITIONS partitions; the first one
that does not is printed and ends the run.

Exit status: 0 ANSWERS good answers, 1 a wrong answer, 2 usage, 4 not
enough answers within SECONDS. The last line says how many connections were
refused, answers received and which was wrong.
"""
import socket
import sys
import time

import kafka_wire
from kafka_wire import Reader, int8, int32, string

API_METADATA, METADATA_V = 3, 4
RETRY_S = 0.002  # between refused connections: as fast as the broker can start
EXIT_WRONG, EXIT_USAGE, EXIT_TIMEOUT = 1, 2, 4


def parse(data):
    """(broker ids, controller, {topic: (error, partition count)})"""
    r = Reader(data)
    r.i32()  # throttle_time_ms

    def broker(r):
        node = r.i32()
        r.str(), r.i32(), r.str()  # host, port, rack
        return node

    def partition(r):
        r.i16(), r.i32(), r.i32()  # error, index, leader
        r.arr(Reader.i32), r.arr(Reader.i32)  # replicas, isr
        return None

    def topic(r):
        err, name, _internal = r.i16(), r.str(), r.i8()
        return name, err, len(r.arr(partition) or [])

    brokers = sorted(r.arr(broker) or [])
    r.str()  # cluster_id
    controller = r.i32()
    topics = {name: (err, count) for name, err, count in (r.arr(topic) or [])}
    return brokers, controller, topics


def wrong(answer, topic, partitions, brokers):
    """Why answer is wrong, or None."""
    got_brokers, controller, topics = answer
    if got_brokers != brokers:
        return "brokers %s, want %s" % (got_brokers, brokers)
    if controller < 0:
        return "no controller (%d)" % controller
    err, count = topics.get(topic, (None, 0))
    if err != 0 or count != partitions:
        return "topic %s: error %s, %d partition(s), want error 0 and %d" % (topic, err, count, partitions)
    return None


def main(argv):
    if len(argv) != 7:
        print(__doc__, file=sys.stderr)
        return EXIT_USAGE
    host, port = argv[1].rsplit(":", 1)
    topic, partitions = argv[2], int(argv[3])
    brokers = sorted(int(b) for b in argv[4].split())
    want, deadline = int(argv[5]), time.monotonic() + float(argv[6])
    body = int32(1) + string(topic) + int8(0)
    refused = answers = 0
    conn = None
    while answers < want and time.monotonic() < deadline:
        try:
            if conn is None:
                conn = kafka_wire.Connection(host, int(port), "metadata_poll", deadline - time.monotonic())
            data = conn.call(API_METADATA, METADATA_V, body)
        except (OSError, kafka_wire.ConnectionClosed):
            refused += 1
            if conn is not None:
                conn.close()
                conn = None
            time.sleep(RETRY_S)
            continue
        answers += 1
        why = wrong(parse(data), topic, partitions, brokers)
        if why:
            print("answer %d (after %d refused or unanswered connections) is wrong: %s" % (answers, refused, why))
            return EXIT_WRONG
    if conn is not None:
        conn.close()
    print("%d good answer(s), after %d refused or unanswered connections" % (answers, refused))
    return 0 if answers >= want else EXIT_TIMEOUT


if __name__ == "__main__":
    sys.exit(main(sys.argv))
