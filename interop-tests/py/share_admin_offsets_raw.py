#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The share-group offset admin APIs over raw sockets (single broker, the
group's coordinator):

  - DescribeShareGroupOffsets v1 of a group without state: start offset -1,
    lag -1; an unknown topic: UNKNOWN_TOPIC_OR_PARTITION
  - AlterShareGroupOffsets v0 sets partition 0's start offset to 5 and
    partition 1's to 2; Describe then shows them, with the lag (high
    watermark - start offset) of the partitions led here when the share
    coordinator counts the records delivered complete (else -1)
  - Alter again to 7: the new state epoch is above the old (Describe: 7)
  - a negative start offset: INVALID_REQUEST for that partition
  - Alter/Delete of a group id a classic group holds: GROUP_ID_NOT_FOUND
  - DeleteShareGroupOffsets v0 of the topic: NONE; Describe: -1 again

Usage: share_admin_offsets_raw.py HOST PORT TOPIC (TOPIC: 2 partitions, 10 records in each)
"""
import sys
import time

from kafka_wire import Connection, Reader, Writer, int32, int64, string

API_OFFSET_COMMIT, API_FIND_COORDINATOR = 8, 10
API_DESCRIBE, API_ALTER, API_DELETE = 90, 91, 92
NONE, UNKNOWN_TOPIC_OR_PARTITION, INVALID_REQUEST, GROUP_ID_NOT_FOUND = 0, 3, 42, 69
GROUP = "sg-admin"


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail("%s: %r, want %r" % (what, got, want))


def describe(conn, topic, partitions):
    body = Writer(True)
    body.arr([GROUP], lambda w, g: w.str(g).arr(
        [topic], lambda w2, t: w2.str(t).arr(partitions, lambda w3, p: w3.i32(p)).tags()).tags())
    body.tags()
    r = Reader(conn.call(API_DESCRIBE, 1, bytes(body.data), True), True)
    r.tags()
    r.i32()

    def part(r):
        p = (r.i32(), r.i64(), r.i32(), r.i64(), r.i16(), r.str())
        r.tags()
        return {"partition": p[0], "start": p[1], "epoch": p[2], "lag": p[3], "error": p[4]}

    def top(r):
        name, _ = r.str(), r.uuid()
        parts = r.arr(part)
        r.tags()
        return parts

    def group(r):
        r.str()
        topics = r.arr(top)
        err, _ = r.i16(), r.str()
        r.tags()
        return err, topics

    groups = r.arr(group)
    expect("describe group error", groups[0][0], NONE)
    return {p["partition"]: p for p in groups[0][1][0]}


def alter(conn, group, topic, offsets):
    body = Writer(True).str(group)
    body.arr([topic], lambda w, t: w.str(t).arr(
        sorted(offsets.items()), lambda w2, po: w2.i32(po[0]).i64(po[1]).tags()).tags())
    body.tags()
    r = Reader(conn.call(API_ALTER, 0, bytes(body.data), True), True)
    r.tags()
    r.i32()
    err, _ = r.i16(), r.str()

    def part(r):
        p = (r.i32(), r.i16(), r.str())
        r.tags()
        return p

    def top(r):
        r.str()
        r.uuid()
        parts = r.arr(part)
        r.tags()
        return parts

    topics = r.arr(top)
    return err, {p[0]: p[1] for t in topics for p in t}


def delete(conn, group, topic):
    body = Writer(True).str(group).arr([topic], lambda w, t: w.str(t).tags()).tags()
    r = Reader(conn.call(API_DELETE, 0, bytes(body.data), True), True)
    r.tags()
    r.i32()
    err, _ = r.i16(), r.str()

    def top(r):
        t = (r.str(), r.uuid(), r.i16(), r.str())
        r.tags()
        return t[2]

    return err, r.arr(top)


def classic_group(conn, group, topic):
    """A simple OffsetCommit v2 (generation -1): an Empty classic group."""
    body = string(group) + int32(-1) + string("") + int64(-1)
    body += int32(1) + string(topic) + int32(1) + int32(0) + int64(1) + string("")
    conn.call(API_OFFSET_COMMIT, 2, body)


def find_coordinator(conn, group):
    """FindCoordinator v1 until this broker answers for the group (creating __consumer_offsets)."""
    for _ in range(600):
        r = Reader(conn.call(API_FIND_COORDINATOR, 1, string(group) + bytes([0])))
        r.i32()
        if r.i16() == NONE:
            return
        time.sleep(0.05)
    fail("no coordinator for " + group)


def main():
    host, port, topic = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with Connection(host, port, "share-admin-test", 60) as conn:
        find_coordinator(conn, GROUP)
        find_coordinator(conn, "classic-g")
        d = describe(conn, topic, [0, 1])
        expect("no state: start", (d[0]["error"], d[0]["start"], d[0]["lag"]), (NONE, -1, -1))
        d = describe(conn, "no-such-topic", [0])
        expect("unknown topic", d[0]["error"], UNKNOWN_TOPIC_OR_PARTITION)

        err, parts = alter(conn, GROUP, topic, {0: 5, 1: 2})
        expect("alter", (err, parts), (NONE, {0: NONE, 1: NONE}))
        d = describe(conn, topic, [0, 1])
        expect("altered p0", (d[0]["error"], d[0]["start"]), (NONE, 5))
        expect("altered p1", (d[1]["error"], d[1]["start"]), (NONE, 2))
        # The lag only when the coordinator counts the records delivered complete.
        expect("lag p0", d[0]["lag"] in (-1, 5), True)
        expect("lag p1", d[1]["lag"] in (-1, 8), True)
        err, parts = alter(conn, GROUP, topic, {0: 7})
        expect("alter again", (err, parts), (NONE, {0: NONE}))
        expect("altered again", describe(conn, topic, [0])[0]["start"], 7)
        err, parts = alter(conn, GROUP, topic, {0: -3})
        expect("negative start offset", (err, parts), (NONE, {0: INVALID_REQUEST}))

        classic_group(conn, "classic-g", topic)
        expect("alter a classic group", alter(conn, "classic-g", topic, {0: 1})[0],
               GROUP_ID_NOT_FOUND)
        expect("delete a classic group", delete(conn, "classic-g", topic)[0], GROUP_ID_NOT_FOUND)

        expect("delete", delete(conn, GROUP, topic), (NONE, [NONE]))
        expect("delete unknown topic", delete(conn, GROUP, "no-such-topic"),
               (NONE, [UNKNOWN_TOPIC_OR_PARTITION]))
        d = describe(conn, topic, [0, 1])
        expect("deleted", (d[0]["start"], d[1]["start"]), (-1, -1))
    print("ok")


if __name__ == "__main__":
    main()
