#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Per-record errors in Produce responses (KIP-467), over raw sockets
(standard library only).

Kafka refuses a whole batch when some of its records break a rule of the
topic, and from Produce v8 on names those records: record_errors holds each
one's index in the batch and reason, error_message a summary. Checked here:
  - 100 records, 10 without a key, to a compacted topic (uncompressed and
    gzip; Produce v8 and the flexible v9 and v11): INVALID_RECORD, exactly
    those 10 indexes with Kafka's reason, Kafka's summary naming the first
    three;
  - 100 records, 10 outside message.timestamp.before/after.max.ms (and a
    topic with the older message.timestamp.difference.max.ms): INVALID_TIMESTAMP,
    those 10 indexes, each reason naming the timestamp, the record's offset
    and the window;
  - both at once: INVALID_TIMESTAMP wins and every bad record is listed, a
    record breaking both rules with its key's reason (Kafka checks the key
    first);
  - a batch claiming LogAppendTime on a LogAppendTime topic: every record;
  - Produce v7: the same error, and the response ends where v7's does (no
    record_errors, no error_message);
  - nothing of a refused batch is appended: the next good batch gets offset 0.

Usage: record_errors_raw.py HOST PORT
Exit status 0 when every check holds, 1 otherwise (the reason on stderr).
"""
import gzip
import re
import struct
import sys
import time

import kafka_wire
from kafka_wire import Reader, Writer, record, record_batch

API_PRODUCE, API_LIST_OFFSETS, API_CREATE_TOPICS = 0, 2, 19
NONE, INVALID_TIMESTAMP, INVALID_RECORD = 0, 32, 87
ATTR_GZIP, ATTR_LOG_APPEND_TIME = 1, 0x08
HOUR_MS = 3600 * 1000
COUNT = 100
BAD = [0, 9, 17, 33, 42, 50, 61, 77, 88, 99]
WAIT_S = 20.0

KEY_REASON = "Compacted topic cannot accept message without key in topic partition %s-0"
RECORD_SUMMARY = ("One or more records have been rejected due to %d record errors in total, "
                  "and only showing the first three errors at most: [%s]")
TIMESTAMP_SUMMARY = "One or more records have been rejected due to invalid timestamp"
TIMESTAMP_REASON = re.compile(r"Timestamp (-?\d+) of message with offset (\d+) is out of range\. "
                              r"The timestamp should be within \[(-?\d+), (-?\d+)\]$")


def fail(msg):
    print("record_errors_raw: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


def batch(keys, timestamps, codec=None, attrs=0, max_ts=None):
    """One record per key/timestamp (None: a null key), values v<i>."""
    base = timestamps[0]
    records = b"".join(record(i, ts - base, k, b"v%d" % i)
                       for i, (k, ts) in enumerate(zip(keys, timestamps)))
    if codec == "gzip":
        records, attrs = gzip.compress(records), attrs | ATTR_GZIP
    max_ts = max(timestamps) if max_ts is None else max_ts
    return record_batch(records, len(keys), base, max_ts, attributes=attrs)


def create_topic(conn, topic, configs):
    """CreateTopics v2, one partition, replication factor 1."""
    w = Writer().i32(1).str(topic).i32(1).i16(1).i32(0).i32(len(configs))
    for key, value in configs.items():
        w.str(key).str(value)
    resp = conn.call(API_CREATE_TOPICS, 2, bytes(w.i32(30000).i8(0).data))
    r = Reader(resp)
    r.i32()  # throttle
    r.i32()  # topic count
    r.str()
    expect("CreateTopics %s error" % topic, r.i16(), NONE)


def produce(conn, version, topic, records):
    """Produce at version, acks=-1, partition 0: the partition's answer as a
    dict; the whole response must be read (nothing left over)."""
    flex = version >= 9
    w = Writer(flex).str(None).i16(-1).i32(30000)
    w.arr([topic], lambda w, t: w.str(t).arr([0], lambda w, p: part(w, p, records)).tags()).tags()
    r = Reader(conn.call(API_PRODUCE, version, bytes(w.data), flexible=flex), flex)
    r.tags()  # response header v1
    topics = r.arr(lambda r: (r.str(), r.arr(lambda r: partition_response(r, version)), r.tags()))
    r.i32()  # throttle
    r.tags()
    expect("Produce v%d response bytes left over" % version, len(r.data) - r.pos, 0)
    expect("Produce v%d topics" % version, [(t[0], len(t[1])) for t in topics], [(topic, 1)])
    return topics[0][1][0]


def part(w, index, records):
    w.i32(index)
    if w.flexible:
        w.uvar(len(records) + 1)
    else:
        w.i32(len(records))
    w.data += records
    w.tags()


def partition_response(r, version):
    p = {"index": r.i32(), "error": r.i16(), "base_offset": r.i64(), "append_time": r.i64(),
         "log_start": r.i64()}
    if version >= 8:
        p["record_errors"] = r.arr(record_error)
        p["error_message"] = r.str()
    r.tags()
    return p


def record_error(r):
    """(batch_index, batch_index_error_message)"""
    entry = (r.i32(), r.str())
    r.tags()
    return entry


def log_end(conn, topic):
    """ListOffsets v1, partition 0, latest."""
    body = Writer().i32(-1).arr([topic], lambda w, t: w.str(t).i32(1).i32(0).i64(-1)).data
    r = Reader(conn.call(API_LIST_OFFSETS, 1, bytes(body)))
    r.i32()
    r.str()
    r.i32()
    r.i32()
    expect("ListOffsets %s error" % topic, r.i16(), NONE)
    r.i64()
    return r.i64()


def summary(errors):
    shown = ", ".join("RecordError(batchIndex=%d, message='%s')" % e for e in errors[:3])
    return RECORD_SUMMARY % (len(errors), shown)


def check_refused(what, p, error, indexes):
    expect(what + ": error", p["error"], error)
    expect(what + ": base offset", p["base_offset"], -1)
    expect(what + ": record indexes", [e[0] for e in p["record_errors"]], indexes)


def check_keys(conn, now):
    topic = "rec-compact"
    create_topic(conn, topic, {"cleanup.policy": "compact"})
    keys = [None if i in BAD else b"k%d" % i for i in range(COUNT)]
    reason = KEY_REASON % topic
    for version in (8, 9, 11):
        for codec in (None, "gzip"):
            what = "null keys, v%d, %s" % (version, codec or "uncompressed")
            p = produce(conn, version, topic, batch(keys, [now] * COUNT, codec))
            check_refused(what, p, INVALID_RECORD, BAD)
            expect(what + ": reasons", {e[1] for e in p["record_errors"]}, {reason})
            expect(what + ": error_message", p["error_message"], summary(p["record_errors"]))
    # Produce v7 has neither field: the same error, and the response ends there.
    p = produce(conn, 7, topic, batch(keys, [now] * COUNT))
    expect("null keys, v7: error", p["error"], INVALID_RECORD)
    expect("null keys, v7: fields", sorted(p), ["append_time", "base_offset", "error", "index",
                                                 "log_start"])
    expect("log end after refused batches", log_end(conn, topic), 0)
    p = produce(conn, 8, topic, batch([b"k%d" % i for i in range(COUNT)], [now] * COUNT))
    expect("keyed records: (error, base offset, record errors, message)",
           (p["error"], p["base_offset"], p["record_errors"], p["error_message"]),
           (NONE, 0, [], None))


def check_timestamp_reasons(what, p, sent, window):
    for index, reason in p["record_errors"]:
        m = TIMESTAMP_REASON.match(reason or "")
        if not m:
            fail("%s: record %d's reason %r" % (what, index, reason))
        ts, offset, low, high = (int(x) for x in m.groups())
        expect("%s: record %d's timestamp in its reason" % (what, index), ts, sent[index])
        expect("%s: record %d's offset in its reason" % (what, index), offset, index)
        expect("%s: the window's width" % what, high - low, window)
    expect(what + ": error_message", p["error_message"], TIMESTAMP_SUMMARY)


def check_timestamps(conn, now):
    window = {"message.timestamp.before.max.ms": str(HOUR_MS),
              "message.timestamp.after.max.ms": str(HOUR_MS)}
    topics = [("rec-window", window),
              ("rec-difference", {"message.timestamp.difference.max.ms": str(HOUR_MS)})]
    # Half too old, half too new, the first record's (the base timestamp) in range.
    sent = [now + (3 * HOUR_MS if i % 2 else -3 * HOUR_MS) if i in BAD[1:] + [5] else now
            for i in range(COUNT)]
    bad = sorted(BAD[1:] + [5])
    keys = [b"k%d" % i for i in range(COUNT)]
    for topic, configs in topics:
        create_topic(conn, topic, configs)
        for version, codec in ((8, None), (11, "gzip")):
            what = "%s, v%d, %s" % (topic, version, codec or "uncompressed")
            p = produce(conn, version, topic, batch(keys, sent, codec))
            check_refused(what, p, INVALID_TIMESTAMP, bad)
            check_timestamp_reasons(what, p, sent, 2 * HOUR_MS)
        p = produce(conn, 7, topic, batch(keys, sent))
        expect(topic + ", v7: (error, fields)", (p["error"], len(p)), (INVALID_TIMESTAMP, 5))
        expect(topic + ": log end after refused batches", log_end(conn, topic), 0)

    # Null keys and bad timestamps together: INVALID_TIMESTAMP names them all;
    # record 9 breaks both rules and is refused for its key.
    topic = "rec-both"
    create_topic(conn, topic, dict(window, **{"cleanup.policy": "compact"}))
    nulls = [3, 9, 60]
    keys = [None if i in nulls else b"k%d" % i for i in range(COUNT)]
    p = produce(conn, 8, topic, batch(keys, sent))
    check_refused("null keys and timestamps", p, INVALID_TIMESTAMP, sorted(set(bad + nulls)))
    reasons = dict(p["record_errors"])
    for i in nulls:
        expect("null keys and timestamps: record %d's reason" % i, reasons[i], KEY_REASON % topic)
    check_timestamp_reasons("null keys and timestamps",
                            dict(p, record_errors=[e for e in p["record_errors"] if e[0] not in nulls]),
                            sent, 2 * HOUR_MS)

    # A client batch claiming LogAppendTime on a LogAppendTime topic: every record.
    topic = "rec-append"
    create_topic(conn, topic, {"message.timestamp.type": "LogAppendTime"})
    p = produce(conn, 8, topic, batch([b"a", b"b", b"c"], [now] * 3, attrs=ATTR_LOG_APPEND_TIME))
    check_refused("claims LogAppendTime", p, INVALID_TIMESTAMP, [0, 1, 2])
    for index, reason in p["record_errors"]:
        if not (reason or "").endswith("Producer should not set timestamp type to LogAppendTime."):
            fail("claims LogAppendTime: record %d's reason %r" % (index, reason))
    expect("claims LogAppendTime: error_message", p["error_message"], TIMESTAMP_SUMMARY)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 1
    try:
        with kafka_wire.Connection(sys.argv[1], int(sys.argv[2]), "record-errors", WAIT_S) as conn:
            now = int(time.time() * 1000)
            check_keys(conn, now)
            check_timestamps(conn, now)
    except kafka_wire.WireError as e:
        fail(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
