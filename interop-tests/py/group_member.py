#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""kafka-python (Debian's python3-kafka) consumer-group member for the group
interop tests: a KafkaConsumer in GROUP subscribed to TOPIC, committing every
record synchronously. It prints the same lines as progs/group_member.c, so
interop-tests/lib/grouplib.sh reads both:

  rebalance assign|revoke PARTS, assignment COUNT PARTS,
  got TOPIC PARTITION OFFSET KEY, committed TOPIC PARTITION OFFSET,
  commit-failed ERROR, closed consumed=N rebalances=N ok

Usage: group_member.py BOOTSTRAP GROUP TOPIC [SESSION_MS [MAX_POLL_MS]]
(session.timeout.ms, default 6000; max.poll.interval.ms, which is the
rebalance timeout kafka-python sends in JoinGroup, default 300000)
SIGTERM or SIGINT closes the consumer (LeaveGroup) and exits 0; after
DEADLINE_S it exits 1.
"""
import signal
import sys
import time

from kafka import ConsumerRebalanceListener, KafkaConsumer, OffsetAndMetadata
from kafka.errors import KafkaError

DEADLINE_S = 120
POLL_MS = 100


def parts_text(parts):
    parts = sorted(parts, key=lambda tp: (tp.topic, tp.partition))
    return ",".join("%s:%d" % (tp.topic, tp.partition) for tp in parts) or "-"


def say(line):
    print(line, flush=True)


class Listener(ConsumerRebalanceListener):
    def __init__(self):
        self.consumer = None
        self.rebalances = 0

    def on_partitions_revoked(self, revoked):
        self.rebalances += 1
        say("rebalance revoke " + parts_text(revoked))

    def on_partitions_assigned(self, assigned):
        self.rebalances += 1
        say("rebalance assign " + parts_text(assigned))
        whole = self.consumer.assignment()
        say("assignment %d %s" % (len(whole), parts_text(whole)))


def main():
    bootstrap, group, topic = sys.argv[1:4]
    session_ms = int(sys.argv[4]) if len(sys.argv) > 4 else 6000
    max_poll_ms = int(sys.argv[5]) if len(sys.argv) > 5 else 300000
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    signal.signal(signal.SIGINT, lambda *_: stop.append(True))
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group,
                             client_id="gregor-py-" + group,
                             enable_auto_commit=False, auto_offset_reset="earliest",
                             session_timeout_ms=session_ms, heartbeat_interval_ms=500,
                             max_poll_interval_ms=max_poll_ms,
                             # kafka-python wants requests to outlast a session
                             request_timeout_ms=max(305000, session_ms + 5000))
    listener = Listener()
    listener.consumer = consumer
    consumer.subscribe([topic], listener=listener)
    consumed = 0
    status = 0
    deadline = time.monotonic() + DEADLINE_S
    while not stop:
        if time.monotonic() > deadline:
            print("group_member.py: deadline passed", file=sys.stderr)
            status = 1
            break
        batches = consumer.poll(timeout_ms=POLL_MS)
        for tp, records in batches.items():
            for record in records:
                consumed += 1
                key = record.key.decode() if record.key is not None else "-"
                say("got %s %d %d %s" % (tp.topic, tp.partition, record.offset, key))
                try:
                    consumer.commit({tp: OffsetAndMetadata(record.offset + 1, None)})
                    say("committed %s %d %d" % (tp.topic, tp.partition, record.offset + 1))
                except KafkaError as e:
                    say("commit-failed " + type(e).__name__)
    consumer.close(autocommit=False)
    say("closed consumed=%d rebalances=%d %s" % (consumed, listener.rebalances,
                                                  "ok" if status == 0 else "FAILED"))
    return status


if __name__ == "__main__":
    sys.exit(main())
