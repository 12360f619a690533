#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Record batches whose header maxTimestamp disagrees with their records,
produced over raw sockets, then looked up by time (standard library only).

Sarama 1.22 and other clients send batches whose maxTimestamp is unset (-1
or 0) or wrong. Kafka recomputes it from the records on append, so
ListOffsets by timestamp and the .timeindex see the records' timestamps;
it also checks every record's timestamp, not just the header's, against
message.timestamp.before/after.max.ms.

Usage: timestamps_raw.py HOST PORT LOG_DIR STATE_FILE MODE
  MODE "produce": creates the topics (CreateTopics v2), then
     ts-create: five batches (uncompressed and gzip) with maxTimestamp -1, 0,
       too low, too high and right; ListOffsets v1 by timestamp (and -3,
       the max) answers the records' offsets and timestamps;
     ts-limits: a record out of the before/after window (the broker runs
       with 7 days / 1 hour) in a batch whose header timestamps are in it is
       INVALID_TIMESTAMP, as is a client batch claiming LogAppendTime with no
       timestamp; a record without a timestamp (-1) is accepted;
       malformed records under a valid CRC are INVALID_RECORD, a bad CRC
       CORRUPT_MESSAGE, and nothing of them is appended;
     ts-append (message.timestamp.type=LogAppendTime): a batch with
       maxTimestamp -1 gets the broker's time; one claiming LogAppendTime
       itself is INVALID_TIMESTAMP.
     Saves the expected lookups to STATE_FILE.
  MODE "lookup" (after a restart): the same lookups answer the same, and
     ts-create's .timeindex (in LOG_DIR) holds only the records' running
     maximum timestamps at batch ends.
Exit status 0 when every check holds, 1 otherwise (the reason on stderr).
"""
import gzip
import json
import os
import struct
import sys
import time

import kafka_wire
from kafka_wire import crc32c, record, record_batch, string

API_PRODUCE, API_LIST_OFFSETS, API_CREATE_TOPICS = 0, 2, 19
NONE, CORRUPT_MESSAGE, INVALID_TIMESTAMP, INVALID_RECORD = 0, 2, 32, 87
ATTR_GZIP, ATTR_LOG_APPEND_TIME = 1, 0x08
MAX_TIMESTAMP_QUERY = -3
# Where a v2 batch keeps its fields.
BATCH_LENGTH_AT, CRC_AT, ATTRS_AT, LAST_OFFSET_DELTA_AT = 8, 17, 21, 23
COUNT_AT, RECORDS_AT = 57, 61
HOUR_MS, DAY_MS = 3600 * 1000, 24 * 3600 * 1000
WAIT_S = 20.0


def fail(msg):
    print("timestamps_raw: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


def records_bytes(timestamps, base):
    """One record per timestamp (key k<i>, value v<i>), offset deltas 0..n-1."""
    return b"".join(record(i, ts - base, b"k%d" % i, b"v%d" % i) for i, ts in enumerate(timestamps))


def batch(timestamps, max_ts, codec=None, attrs=0, base=None):
    """Records with the given timestamps, the header's maxTimestamp forced to max_ts."""
    base = timestamps[0] if base is None else base
    records = records_bytes(timestamps, base)
    if codec == "gzip":
        records, attrs = gzip.compress(records), attrs | ATTR_GZIP
    return record_batch(records, len(timestamps), base, max_ts, attributes=attrs)


def create_topic(conn, topic, configs):
    """CreateTopics v2, one partition, replication factor 1."""
    body = struct.pack(">i", 1) + string(topic) + struct.pack(">ihi", 1, 1, 0)
    body += struct.pack(">i", len(configs))
    for key, value in configs.items():
        body += string(key) + string(value)
    body += struct.pack(">ib", 30000, 0)
    resp = conn.call(API_CREATE_TOPICS, 2, body)
    pos = 4 + 4 + 2 + len(topic)  # throttle, topic count, name
    expect("CreateTopics %s error" % topic, struct.unpack(">h", resp[pos:pos + 2])[0], NONE)


def produce(conn, topic, records):
    """Produce v3, acks=-1, partition 0. Returns (error, base offset, log append time)."""
    body = struct.pack(">h", -1) + struct.pack(">hi", -1, 30000)
    body += struct.pack(">i", 1) + string(topic) + struct.pack(">i", 1)
    body += struct.pack(">ii", 0, len(records)) + records
    resp = conn.call(API_PRODUCE, 3, body)
    pos = 4 + 2 + len(topic) + 4  # topic count, name, partition count
    _index, err, base_offset, append_time = struct.unpack(">ihqq", resp[pos:pos + 22])
    return err, base_offset, append_time


def list_offsets(conn, topic, timestamp):
    """ListOffsets v1, partition 0. Returns (offset, timestamp)."""
    body = struct.pack(">i", -1) + struct.pack(">i", 1) + string(topic)
    body += struct.pack(">i", 1) + struct.pack(">iq", 0, timestamp)
    resp = conn.call(API_LIST_OFFSETS, 1, body)
    pos = 4 + 2 + len(topic) + 4
    _index, err, ts, offset = struct.unpack(">ihqq", resp[pos:pos + 22])
    expect("ListOffsets %s at %d: error" % (topic, timestamp), err, NONE)
    return offset, ts


def log_end(conn, topic):
    return list_offsets(conn, topic, -1)[0]


def check_lookups(conn, state):
    for topic, lookups in state["lookups"].items():
        for ts, want in lookups:
            expect("ListOffsets %s at timestamp %d (offset, timestamp)" % (topic, ts),
                   list(list_offsets(conn, topic, ts)), want)


def produce_ok(conn, topic, records, what, want_offset):
    err, offset, _ = produce(conn, topic, records)
    expect(what + ": error", err, NONE)
    expect(what + ": base offset", offset, want_offset)


def produce_create_time(conn, t0):
    topic = "ts-create"
    create_topic(conn, topic, {})
    # Offsets 0-2, 3-5, 6-8, 9-10 and 11-12.
    produce_ok(conn, topic, batch([t0, t0 + 10, t0 + 20], -1), "maxTimestamp -1", 0)
    produce_ok(conn, topic, batch([t0 + 30, t0 + 40, t0 + 50], 0), "maxTimestamp 0", 3)
    produce_ok(conn, topic, batch([t0 + 60, t0 + 95, t0 + 70], t0 + 60, codec="gzip"),
               "gzip, maxTimestamp the first record's", 6)
    produce_ok(conn, topic, batch([t0 + 100, t0 + 110], t0 + 10000), "maxTimestamp too high", 9)
    produce_ok(conn, topic, batch([t0 + 120, t0 + 130], t0 + 130), "maxTimestamp right", 11)
    lookups = [(t0 - 5, [0, t0]), (t0, [0, t0]), (t0 + 15, [2, t0 + 20]),
               (t0 + 25, [3, t0 + 30]), (t0 + 45, [5, t0 + 50]), (t0 + 61, [7, t0 + 95]),
               (t0 + 96, [9, t0 + 100]), (t0 + 105, [10, t0 + 110]),
               (t0 + 125, [12, t0 + 130]), (t0 + 131, [-1, -1]),
               (MAX_TIMESTAMP_QUERY, [12, t0 + 130])]
    # The running maximum at each batch's last offset: what the time index may hold.
    index = [[t0 + 20, 2], [t0 + 50, 5], [t0 + 95, 8], [t0 + 110, 10], [t0 + 130, 12]]
    return topic, lookups, index


def produce_limits(conn, now):
    topic = "ts-limits"
    create_topic(conn, topic, {})
    ok = now - HOUR_MS
    err = produce(conn, topic, batch([ok, now + 2 * HOUR_MS, ok], ok))[0]
    expect("a record 2 h ahead, header timestamps in range", err, INVALID_TIMESTAMP)
    err = produce(conn, topic, batch([ok, now - 8 * DAY_MS, ok], ok))[0]
    expect("a record 8 days old, header timestamps in range", err, INVALID_TIMESTAMP)
    err = produce(conn, topic, batch([-1, -1], -1, attrs=ATTR_LOG_APPEND_TIME))[0]
    expect("a client batch claiming LogAppendTime, no timestamp", err, INVALID_TIMESTAMP)
    expect("log end after refused batches", log_end(conn, topic), 0)

    produce_ok(conn, topic, batch([ok, -1, ok + 1], -1, base=ok), "a record without timestamp", 0)
    good = batch([ok, ok + 1, ok + 2], ok + 2)
    cases = [
        ("a truncated last record", lambda b: refit(b[:-3]), INVALID_RECORD),
        ("count 4 over 3 records",
         lambda b: refit(patch(patch(b, COUNT_AT, 4), LAST_OFFSET_DELTA_AT, 3)), INVALID_RECORD),
        ("garbage records", lambda b: refit(b[:RECORDS_AT] + b"\x7f" * 20), INVALID_RECORD),
        ("a bad CRC", lambda b: b[:-1] + bytes([b[-1] ^ 1]), CORRUPT_MESSAGE),
    ]
    for what, damage, want in cases:
        expect(what, produce(conn, topic, damage(good))[0], want)
    expect("log end after malformed batches", log_end(conn, topic), 3)
    return topic, [(ok + 1, [2, ok + 1]), (MAX_TIMESTAMP_QUERY, [2, ok + 1])]


def patch(b, pos, value):
    return b[:pos] + struct.pack(">i", value) + b[pos + 4:]


def refit(b):
    """Fixes batchLength and the CRC of a damaged batch."""
    b = patch(b, BATCH_LENGTH_AT, len(b) - 12)
    return b[:CRC_AT] + struct.pack(">I", crc32c(b[ATTRS_AT:])) + b[ATTRS_AT:]


def produce_log_append_time(conn, t0):
    topic = "ts-append"
    create_topic(conn, topic, {"message.timestamp.type": "LogAppendTime"})
    err = produce(conn, topic, batch([t0, t0 + 1], t0 + 1, attrs=ATTR_LOG_APPEND_TIME))[0]
    expect("a client batch claiming LogAppendTime", err, INVALID_TIMESTAMP)
    err, offset, append_time = produce(conn, topic, batch([t0, t0 + 5], -1))
    expect("LogAppendTime topic, maxTimestamp -1: error", (err, offset), (NONE, 0))
    if append_time < t0:
        fail("LogAppendTime %d is before the records' time %d" % (append_time, t0))
    return topic, [(append_time, [0, append_time]), (append_time + 1, [-1, -1]),
                   (MAX_TIMESTAMP_QUERY, [0, append_time])]


def produce_all(conn, _log_dir, state_file):
    now = int(time.time() * 1000)
    t0 = now - HOUR_MS
    topic, lookups, index = produce_create_time(conn, t0)
    state = {"lookups": {topic: lookups}, "index": index}
    check_lookups(conn, state)
    for fn, arg in ((produce_limits, now), (produce_log_append_time, t0)):
        name, more = fn(conn, arg)
        state["lookups"][name] = more
        check_lookups(conn, {"lookups": {name: more}})
    with open(state_file, "w") as f:
        json.dump(state, f)


def lookup(conn, log_dir, state_file):
    with open(state_file) as f:
        state = json.load(f)
    check_lookups(conn, state)
    with open(os.path.join(log_dir, "ts-create-0", "%020d.timeindex" % 0), "rb") as f:
        data = f.read()
    entries = [list(struct.unpack(">qi", data[i:i + 12])) for i in range(0, len(data) - 11, 12)]
    entries = [e for e in entries if e != [0, 0]]  # preallocated, unused
    if not entries:
        fail("ts-create's .timeindex is empty")
    for e in entries:
        if e not in state["index"]:
            fail(".timeindex entry %r is not a records' maximum at a batch end (%r)" %
                 (e, state["index"]))


def main():
    modes = {"produce": produce_all, "lookup": lookup}
    if len(sys.argv) != 6 or sys.argv[5] not in modes:
        print(__doc__, file=sys.stderr)
        return 1
    host, port, log_dir, state_file, mode = sys.argv[1:]
    try:
        modes[mode](kafka_wire.Connection(host, int(port), "timestamps-raw", WAIT_S), log_dir, state_file)
    except kafka_wire.WireError as e:
        fail(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
