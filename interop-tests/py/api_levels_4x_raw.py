#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The API versions above Kafka 3.8's that Kafka 4.x clients send, each sent
over a raw socket (standard library only; requests and parsers written from
Kafka's message schemas, the encoders in kafka_wire.py) with the fields it
adds checked:

 - ApiVersions advertises them (and answers its own v4);
 - Metadata v13: the top-level error code (KIP-1102) is NONE;
 - Produce v13 by topic id (KIP-516), and v12, then Fetch v17 and v18 by
   topic id, with the KRaft-only tagged fields (replica directory id,
   high watermark) set, read back the produced batches byte for byte;
   Produce v13 and Fetch v18 to an unknown id answer UNKNOWN_TOPIC_ID;
 - ListOffsets v9's latest-tiered timestamp (-5) finds nothing (offset -1,
   nothing is tiered) and v10, with its timeout, answers latest and earliest;
 - OffsetCommit v10 and OffsetFetch v10 name topics by id: commit by id,
   fetch back by id (and in the every-topic form, by id), an unknown id's
   partitions answer UNKNOWN_TOPIC_ID;
 - DescribeCluster v2 lists the broker unfenced; DescribeGroups v6 answers an
   unknown group GROUP_ID_NOT_FOUND with a message (KIP-1043);
   FindCoordinator v6 finds a group's coordinator and answers a share-group
   key INVALID_REQUEST (no share coordinator, as Kafka without share groups).

Usage: api_levels_4x_raw.py HOST PORT TOPIC
(TOPIC: an empty one-partition topic.)
Exit status 0 when every check passed, 1 otherwise (each failure on stderr).
"""
import os
import sys
import time

import kafka_wire
from kafka_wire import Reader, Writer

NONE, INVALID_REQUEST, GROUP_ID_NOT_FOUND, UNKNOWN_TOPIC_ID = 0, 42, 69, 100
COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR = 14, 15, 16
API_PRODUCE, API_FETCH, API_LIST_OFFSETS, API_METADATA = 0, 1, 2, 3
API_OFFSET_COMMIT, API_OFFSET_FETCH, API_FIND_COORDINATOR = 8, 9, 10
API_DESCRIBE_GROUPS, API_API_VERSIONS, API_DESCRIBE_CLUSTER = 15, 18, 60
LATEST, EARLIEST, LATEST_TIERED = -1, -2, -5
KEY_TYPE_GROUP, KEY_TYPE_SHARE = 0, 2
TIMEOUT_S = 20

# What this broker advertises from now on (the test fails on less).
WANT_MAX = {
    API_PRODUCE: 13,
    API_FETCH: 18,
    API_LIST_OFFSETS: 10,
    API_METADATA: 13,
    API_OFFSET_COMMIT: 10,
    API_OFFSET_FETCH: 10,
    API_FIND_COORDINATOR: 6,
    API_DESCRIBE_GROUPS: 6,
    API_API_VERSIONS: 4,
    API_DESCRIBE_CLUSTER: 2,
}

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what, file=sys.stderr)
    return cond


class Conn:
    def __init__(self, host, port):
        self.wire = kafka_wire.Connection(host, port, "api-levels-4x", TIMEOUT_S)

    def call(self, api, version, body, header_tags=True):
        """A flexible request; header_tags False for ApiVersions, whose
        response header never has tagged fields."""
        data = self.wire.call(api, version, bytes(body.data), True)
        r = Reader(data, True)
        if header_tags:
            r.tags()
        return r


def compact_bytes(w, b):
    w.uvar(len(b) + 1)
    w.data += b


def read_bytes(r):
    n = r.uvar() - 1
    return None if n < 0 else r.take(n)


# ---- ApiVersions -------------------------------------------------------------------


def api_versions(c, version):
    w = Writer(True).str("api-levels-4x").str("1.0").tags()
    r = c.call(API_API_VERSIONS, version, w, header_tags=False)
    err = r.i16()

    def key(r):
        k, lo, hi = r.i16(), r.i16(), r.i16()
        r.tags()
        return k, (lo, hi)

    keys = dict(r.arr(key))
    r.i32()
    r.tags()
    return err, keys


def check_api_versions(c):
    for version in (3, 4):
        err, keys = api_versions(c, version)
        check(err == NONE, "ApiVersions v%d: error %d" % (version, err))
        for api, want in WANT_MAX.items():
            got = keys.get(api, (None, None))[1]
            check(got == want, "ApiVersions v%d: api %d max %s, want %d" % (version, api, got, want))


# ---- Metadata v13 --------------------------------------------------------------------


def metadata_v13(c, topic):
    """Returns (top-level error, {name: (error, topic id)})."""
    w = Writer(True)
    w.arr([topic], lambda w, t: w.uuid(b"\0" * 16).str(t).tags()).i8(0).i8(0).tags()
    r = c.call(API_METADATA, 13, w)
    r.i32()

    def broker(r):
        r.i32(), r.str(), r.i32(), r.str()
        r.tags()

    r.arr(broker)
    r.str(), r.i32()

    def partition(r):
        r.i16(), r.i32(), r.i32(), r.i32()
        r.arr(Reader.i32), r.arr(Reader.i32), r.arr(Reader.i32)
        r.tags()

    def topic_out(r):
        err, name, tid = r.i16(), r.str(), r.uuid()
        r.bool()
        r.arr(partition)
        r.i32()
        r.tags()
        return name, (err, tid)

    topics = dict(r.arr(topic_out))
    top_error = r.i16()
    r.tags()
    check(r.pos == len(r.data), "Metadata v13: %d bytes left over" % (len(r.data) - r.pos))
    return top_error, topics


# ---- Produce v12/v13 and Fetch v17/v18 -------------------------------------------------


def batch(values, base_timestamp):
    recs = b"".join(kafka_wire.record(i, 0, None, v) for i, v in enumerate(values))
    return kafka_wire.record_batch(recs, len(values), base_timestamp, base_timestamp)


def produce(c, version, topic, data):
    """topic: a name (v12) or an id (v13). Returns (echoed topic, error, base offset)."""
    w = Writer(True)
    w.uvar(0).i16(-1).i32(5000)  # null transactional id, acks all, timeout

    def part(w, _):
        w.i32(0)
        compact_bytes(w, data)
        w.tags()

    def top(w, _):
        (w.uuid(topic) if version >= 13 else w.str(topic)).arr([0], part).tags()

    w.arr([0], top).tags()
    r = c.call(API_PRODUCE, version, w)

    def part_out(r):
        idx, err, base = r.i32(), r.i16(), r.i64()
        r.i64(), r.i64()
        r.arr(lambda r: (r.i32(), r.str(), r.tags()))
        r.str()
        r.tags()
        return err, base

    def top_out(r):
        t = r.uuid() if version >= 13 else r.str()
        parts = r.arr(part_out)
        r.tags()
        return t, parts[0]

    t, (err, base) = r.arr(top_out)[0]
    r.i32()
    r.tags()
    return t, err, base


def fetch_by_id(c, version, topic_id, offset):
    """Fetch v17/v18 of partition 0 with the KRaft-only partition tags set.
    Returns (echoed id, error, high watermark, records)."""
    w = Writer(True)
    w.i32(0).i32(1).i32(1 << 20).i8(0).i32(0).i32(-1)

    def part(w, _):
        w.i32(0).i32(-1).i64(offset).i32(-1).i64(-1).i32(1 << 20)
        # Tagged fields: 0 replica directory id (v17+), 1 high watermark (v18+).
        tagged = [(0, os.urandom(16))]
        if version >= 18:
            tagged.append((1, kafka_wire.int64(12345)))
        w.uvar(len(tagged))
        for tag, value in tagged:
            w.uvar(tag).uvar(len(value))
            w.data += value

    w.arr([0], lambda w, _: w.uuid(topic_id).arr([0], part).tags())
    w.arr([], None).str("").tags()
    r = c.call(API_FETCH, version, w)
    r.i32(), r.i16(), r.i32()

    def part_out(r):
        idx, err, hw = r.i32(), r.i16(), r.i64()
        r.i64(), r.i64()
        r.arr(lambda r: (r.i64(), r.i64(), r.tags()))
        r.i32()
        records = read_bytes(r)
        r.tags()
        return err, hw, records

    def top_out(r):
        tid = r.uuid()
        parts = r.arr(part_out)
        r.tags()
        return tid, parts[0]

    tid, (err, hw, records) = r.arr(top_out)[0]
    r.tags()
    return tid, err, hw, records


def same_batch(got, sent, base_offset):
    """A stored batch is the sent one with its base offset and partition
    leader epoch set by the broker; the rest (magic, CRC, records) is kept."""
    return (len(got) == len(sent) and kafka_wire.int64(base_offset) == got[:8]
            and got[8:12] == sent[8:12] and got[16:] == sent[16:])


def check_produce_fetch(c, topic_id):
    now = int(time.time() * 1000)
    first = batch([b"v13-a", b"v13-b"], now)
    second = batch([b"v12-c"], now)
    tid, err, base = produce(c, 13, topic_id, first)
    check(err == NONE and base == 0, "Produce v13 by id: error %d base %d" % (err, base))
    check(tid == topic_id, "Produce v13: response names the topic id")
    _, err, base = produce(c, 13, os.urandom(16), first)
    check(err == UNKNOWN_TOPIC_ID, "Produce v13 to an unknown id: error %d" % err)
    _, err, base = produce(c, 12, TOPIC, second)
    check(err == NONE and base == 2, "Produce v12: error %d base %d" % (err, base))
    for version in (17, 18):
        tid, err, hw, records = fetch_by_id(c, version, topic_id, 0)
        check(err == NONE and hw == 3, "Fetch v%d: error %d high watermark %d" % (version, err, hw))
        check(tid == topic_id, "Fetch v%d: response names the topic id" % version)
        records = records or b""
        check(same_batch(records[:len(first)], first, 0) and
              same_batch(records[len(first):], second, 2),
              "Fetch v%d: the produced batches read back as sent" % version)
    _, err, _, _ = fetch_by_id(c, 18, os.urandom(16), 0)
    check(err == UNKNOWN_TOPIC_ID, "Fetch v18 of an unknown id: error %d" % err)


# ---- ListOffsets v9/v10 --------------------------------------------------------------


def list_offsets(c, version, topic, timestamp):
    """Returns (error, timestamp, offset, leader epoch) of partition 0."""
    w = Writer(True).i32(-1).i8(0)
    part = lambda w, _: w.i32(0).i32(-1).i64(timestamp).tags()
    w.arr([0], lambda w, _: w.str(topic).arr([0], part).tags())
    if version >= 10:
        w.i32(1000)  # TimeoutMs
    w.tags()
    r = c.call(API_LIST_OFFSETS, version, w)
    r.i32()

    def part_out(r):
        r.i32()
        out = (r.i16(), r.i64(), r.i64(), r.i32())
        r.tags()
        return out

    out = r.arr(lambda r: (r.str(), r.arr(part_out), r.tags())[1])[0][0]
    r.tags()
    return out


def check_list_offsets(c):
    got = list_offsets(c, 9, TOPIC, LATEST_TIERED)
    check(got == (NONE, -1, -1, -1), "ListOffsets v9 latest tiered: %s, want nothing" % (got,))
    err, _, offset, _ = list_offsets(c, 10, TOPIC, LATEST)
    check(err == NONE and offset == 3, "ListOffsets v10 latest: error %d offset %d" % (err, offset))
    err, _, offset, _ = list_offsets(c, 10, TOPIC, EARLIEST)
    check(err == NONE and offset == 0, "ListOffsets v10 earliest: error %d offset %d" % (err, offset))


# ---- FindCoordinator v6, OffsetCommit/OffsetFetch v10 ------------------------------------


def find_coordinator(c, key_type, key):
    """Returns (error, node id) of the one key (v6)."""
    w = Writer(True).i8(key_type).arr([key], Writer.str).tags()
    r = c.call(API_FIND_COORDINATOR, 6, w)
    r.i32()

    def coord(r):
        r.str()
        node, _, _, err = r.i32(), r.str(), r.i32(), r.i16()
        r.str()
        r.tags()
        return err, node

    return r.arr(coord)[0]


def wait_coordinator(c, group):
    deadline = time.time() + TIMEOUT_S
    while True:
        err, node = find_coordinator(c, KEY_TYPE_GROUP, group)
        if err not in (COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS) or time.time() > deadline:
            return err, node
        time.sleep(0.1)


def offset_commit_v10(c, group, commits):
    """commits: [(topic id, partition, offset)]. Returns [(topic id, partition, error)]."""
    w = Writer(True).str(group).i32(-1).str("").uvar(0)

    def part(w, pc):
        w.i32(pc[0]).i64(pc[1]).i32(-1).str("m").tags()

    w.arr(commits, lambda w, t: w.uuid(t[0]).arr([(t[1], t[2])], part).tags()).tags()
    deadline = time.time() + TIMEOUT_S
    while True:
        r = c.call(API_OFFSET_COMMIT, 10, w)
        r.i32()
        out = []

        def topic(r):
            tid = r.uuid()
            for idx, err in r.arr(lambda r: (r.i32(), r.i16(), r.tags())[:2]):
                out.append((tid, idx, err))
            r.tags()

        r.arr(topic)
        if not any(e in (COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR) for _, _, e in out) \
                or time.time() > deadline:
            return out
        time.sleep(0.1)


def offset_fetch_v10(c, group, topics):
    """topics: [(topic id, [partitions])], or None for every topic.
    Returns (group error, {(topic id, partition): (offset, error)})."""
    w = Writer(True)
    topic = lambda w, t: w.uuid(t[0]).arr(t[1], Writer.i32).tags()
    w.arr([0], lambda w, _: w.str(group).uvar(0).i32(-1).arr(topics, topic).tags())
    w.i8(0).tags()
    r = c.call(API_OFFSET_FETCH, 10, w)
    r.i32()
    out = {}

    def top(r):
        tid = r.uuid()

        def part(r):
            idx, offset, _, _, err = r.i32(), r.i64(), r.i32(), r.str(), r.i16()
            r.tags()
            out[(tid, idx)] = (offset, err)

        r.arr(part)
        r.tags()

    def grp(r):
        r.str()
        r.arr(top)
        err = r.i16()
        r.tags()
        return err

    err = r.arr(grp)[0]
    r.tags()
    return err, out


def check_group_offsets(c, topic_id):
    group = "api-levels-4x-group"
    err, node = wait_coordinator(c, group)
    check(err == NONE and node >= 0, "FindCoordinator v6: error %d node %d" % (err, node))
    err, _ = find_coordinator(c, KEY_TYPE_SHARE, group + ":" + topic_id.hex() + ":0")
    check(err == INVALID_REQUEST, "FindCoordinator v6 share key: error %d" % err)
    unknown = os.urandom(16)
    got = offset_commit_v10(c, group, [(topic_id, 0, 2), (unknown, 0, 5)])
    check((topic_id, 0, NONE) in got, "OffsetCommit v10 by id: %s" % got)
    check((unknown, 0, UNKNOWN_TOPIC_ID) in got, "OffsetCommit v10 unknown id: %s" % got)
    err, got = offset_fetch_v10(c, group, [(topic_id, [0]), (unknown, [0])])
    check(err == NONE, "OffsetFetch v10: group error %d" % err)
    check(got.get((topic_id, 0)) == (2, NONE), "OffsetFetch v10 by id: %s" % got)
    check(got.get((unknown, 0), (None, None))[1] == UNKNOWN_TOPIC_ID,
          "OffsetFetch v10 unknown id: %s" % got)
    err, got = offset_fetch_v10(c, group, None)
    check(err == NONE and got == {(topic_id, 0): (2, NONE)},
          "OffsetFetch v10 every topic: error %d %s" % (err, got))


# ---- DescribeCluster v2, DescribeGroups v6 ----------------------------------------------


def check_describe_cluster(c):
    w = Writer(True).i8(0).i8(1).i8(1).tags()  # no ops, brokers, include fenced
    r = c.call(API_DESCRIBE_CLUSTER, 2, w)
    r.i32()
    err = r.i16()
    r.str()
    endpoint_type = r.i8()
    r.str(), r.i32()

    def broker(r):
        node, _, _, _ = r.i32(), r.str(), r.i32(), r.str()
        fenced = r.bool()
        r.tags()
        return node, fenced

    brokers = r.arr(broker)
    r.i32()
    r.tags()
    check(err == NONE and endpoint_type == 1, "DescribeCluster v2: error %d" % err)
    check(len(brokers) == 1 and not brokers[0][1], "DescribeCluster v2 brokers: %s" % brokers)


def check_describe_groups(c):
    w = Writer(True).arr(["api-levels-4x-no-such-group"], Writer.str).i8(0).tags()
    r = c.call(API_DESCRIBE_GROUPS, 6, w)
    r.i32()

    def grp(r):
        err, msg = r.i16(), r.str()
        gid, state = r.str(), r.str()
        r.str(), r.str()
        r.arr(lambda r: None)
        r.i32()
        r.tags()
        return err, msg, gid, state

    err, msg, gid, state = r.arr(grp)[0]
    r.tags()
    check(err == GROUP_ID_NOT_FOUND and msg, "DescribeGroups v6 unknown group: %d %r" % (err, msg))


def main():
    global TOPIC
    host, port, TOPIC = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    c = Conn(host, port)
    check_api_versions(c)
    top_error, topics = metadata_v13(c, TOPIC)
    check(top_error == NONE, "Metadata v13: top-level error %d" % top_error)
    err, topic_id = topics.get(TOPIC, (None, None))
    if not check(err == NONE and topic_id, "Metadata v13: topic %s error %s" % (TOPIC, err)):
        return 1
    check_produce_fetch(c, topic_id)
    check_list_offsets(c)
    check_group_offsets(c, topic_id)
    check_describe_cluster(c)
    check_describe_groups(c)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
