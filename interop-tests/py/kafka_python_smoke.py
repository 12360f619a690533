#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""kafka-python (Debian's python3-kafka) against a broker: a KafkaProducer
sends 100 keyed messages and waits for each acknowledgement; a KafkaConsumer
without a group, assigned to every partition from the beginning, reads them
back. Checks count, keys, values and per-partition order, and that the
offsets the consumer sees are the ones the producer was told.

Usage: kafka_python_smoke.py BOOTSTRAP TOPIC
Exit status 0 on success, 1 on a failed check (the reason on stderr).
"""
import sys
import time

from kafka import KafkaConsumer, KafkaProducer, TopicPartition

COUNT = 100
DEADLINE_S = 60


def fail(msg):
    print("kafka_python_smoke: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    bootstrap, topic = sys.argv[1], sys.argv[2]
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", retries=3)
    sent = {}
    futures = []
    for i in range(COUNT):
        key = ("key-%d" % i).encode()
        value = ("value-%d-" % i).encode() + bytes(range(i % 256)) * 2
        futures.append((key, value, producer.send(topic, key=key, value=value)))
    for key, value, fut in futures:
        md = fut.get(timeout=DEADLINE_S)
        sent[(md.partition, md.offset)] = (key, value)
    producer.close(timeout=DEADLINE_S)

    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None,
                             enable_auto_commit=False, consumer_timeout_ms=1000)
    deadline = time.monotonic() + DEADLINE_S
    partitions = None
    while partitions is None and time.monotonic() < deadline:
        partitions = consumer.partitions_for_topic(topic)
    if not partitions:
        fail("no partitions for %s" % topic)
    tps = [TopicPartition(topic, p) for p in sorted(partitions)]
    consumer.assign(tps)
    consumer.seek_to_beginning(*tps)
    got = {}
    last = {}
    while len(got) < COUNT and time.monotonic() < deadline:
        for records in consumer.poll(timeout_ms=1000).values():
            for r in records:
                if r.offset <= last.get(r.partition, -1):
                    fail("partition %d: offset %d after %d" % (r.partition, r.offset, last[r.partition]))
                last[r.partition] = r.offset
                got[(r.partition, r.offset)] = (r.key, r.value)
    consumer.close()
    if got != sent:
        missing = [k for k in sent if k not in got]
        wrong = [k for k in sent if k in got and got[k] != sent[k]]
        extra = [k for k in got if k not in sent]
        fail("consumed %d of %d; missing %r, differing %r, extra %r" % (
            len(got), COUNT, missing[:5], wrong[:5], extra[:5]))
    print("kafka_python_smoke: %d records round-tripped over %d partition(s)" % (COUNT, len(partitions)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
