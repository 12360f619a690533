#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The effect of topic-config broker synonyms changed live (Kafka's
DynamicLogConfig keys), over raw sockets, on a topic without overrides of
them (it has its own retention.ms and segment.bytes, so the defaults the
calling test set for those do not touch it):
  - min.insync.replicas=2 at the cluster default: an acks=all produce to
    the replication-factor-1 topic is NOT_ENOUGH_REPLICAS; deleted, it works;
  - compression.type=gzip at the default: a batch produced uncompressed is
    stored gzip in the segment file;
  - log.message.timestamp.type=LogAppendTime on this broker: the produce
    response carries the log append time (-1 once deleted);
  - log.roll.ms=1 at the default: the next appends roll new segments.
Each is deleted afterwards.

Usage: broker_dynamic_effects.py HOST PORT BROKER_ID LOG_DIR
Exit status 0 when every check passed, 1 otherwise (each failure on stderr).
"""
import glob
import os
import struct
import sys
import time

import admin_raw
from admin_raw import check, create_topic_v5, incremental_alter
from kafka_wire import Writer, record, record_batch

NONE, NOT_ENOUGH_REPLICAS = 0, 19
BROKER = 4
SET, DELETE = 0, 1
TOPIC = "live-effects"
ATTRS_AT, CODEC_MASK, GZIP = 21, 0x07, 1
WAIT_S = 20.0


def alter(c, name, ops):
    res = incremental_alter(c, 1, [(BROKER, name, ops)])[0]
    check(res[0] == NONE, "alter %r %r: %d %s" % (name, ops, res[0], res[1]))


def produce(c, value):
    """Produce v3, acks=all, one uncompressed record. (error, log append time)."""
    now = int(time.time() * 1000)
    batch = record_batch(record(0, 0, None, value), 1, now, now)
    w = Writer(False)
    w.str(None).i16(-1).i32(30000)
    w.arr([TOPIC], lambda w, t: w.str(t).arr([0], lambda w, p: w.i32(p).bytes(batch)))
    r = c.call(0, 3, False, w)
    got = r.arr(lambda r: (r.str(), r.arr(lambda r: (r.i32(), r.i16(), r.i64(), r.i64()))))
    _index, err, _offset, append_time = got[0][1][0]
    return err, append_time


def last_batch_attributes(log_dir):
    """The attributes of the last batch of the topic's newest segment file."""
    path = sorted(glob.glob(os.path.join(log_dir, TOPIC + "-0", "*.log")))[-1]
    with open(path, "rb") as f:
        data = f.read()
    pos, attrs = 0, None
    while pos + 12 <= len(data):
        length = struct.unpack_from(">i", data, pos + 8)[0]
        attrs = struct.unpack_from(">h", data, pos + ATTRS_AT)[0]
        pos += 12 + length
    return attrs


def segments(log_dir):
    return len(glob.glob(os.path.join(log_dir, TOPIC + "-0", "*.log")))


def main():
    host, port, me, log_dir = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    c = admin_raw.Conn(host, port)
    res = create_topic_v5(c, TOPIC, [("retention.ms", "604800000"), ("segment.bytes", "1048576")])
    check(res[0][1] == NONE, "create %s: %r" % (TOPIC, res))

    alter(c, "", [("min.insync.replicas", SET, "2")])
    check(produce(c, b"isr")[0] == NOT_ENOUGH_REPLICAS, "acks=all with min.insync.replicas=2")
    alter(c, "", [("min.insync.replicas", DELETE, None)])
    check(produce(c, b"isr")[0] == NONE, "acks=all once min.insync.replicas is deleted")

    alter(c, "", [("compression.type", SET, "gzip")])
    check(produce(c, b"gzip me " * 20)[0] == NONE, "produce with compression.type=gzip")
    attrs = last_batch_attributes(log_dir)
    check(attrs is not None and attrs & CODEC_MASK == GZIP, "stored batch attributes %r" % attrs)
    alter(c, "", [("compression.type", DELETE, None)])
    check(produce(c, b"plain")[0] == NONE, "produce once compression.type is deleted")
    attrs = last_batch_attributes(log_dir)
    check(attrs is not None and attrs & CODEC_MASK == 0, "stored batch attributes %r" % attrs)

    alter(c, me, [("log.message.timestamp.type", SET, "LogAppendTime")])
    err, append_time = produce(c, b"time")
    check(err == NONE and append_time > 0, "LogAppendTime: %d, append time %d" % (err, append_time))
    alter(c, me, [("log.message.timestamp.type", DELETE, None)])
    err, append_time = produce(c, b"time")
    check(err == NONE and append_time == -1, "CreateTime: %d, append time %d" % (err, append_time))

    before = segments(log_dir)
    alter(c, "", [("log.roll.ms", SET, "1")])
    deadline = time.monotonic() + WAIT_S
    while segments(log_dir) < before + 2 and time.monotonic() < deadline:
        produce(c, b"roll")
        time.sleep(0.01)
    check(segments(log_dir) >= before + 2, "log.roll.ms=1: %d segments, had %d" %
          (segments(log_dir), before))
    alter(c, "", [("log.roll.ms", DELETE, None)])
    return 1 if admin_raw.failures else 0


if __name__ == "__main__":
    sys.exit(main())
