#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What a broker answers around a topic deleted under its clients, over raw
sockets (standard library only; requests and parsers written from Kafka's
message schemas, the encoders in kafka_wire.py), checked against
what Apache Kafka 3.x answers:

 - a Fetch long-polling on the topic when it is deleted is answered then
   (not at max_wait), with UNKNOWN_TOPIC_OR_PARTITION (ReplicaManager
   completes delayed fetches of stopped partitions);
 - afterwards Fetch v11 gets UNKNOWN_TOPIC_OR_PARTITION for its partitions
   and serves the other topic's in the same request; Fetch v13 by the old
   topic id gets UNKNOWN_TOPIC_ID; Metadata gets UNKNOWN_TOPIC_OR_PARTITION
   with no partitions by name and UNKNOWN_TOPIC_ID by id; ListOffsets and
   OffsetCommit get UNKNOWN_TOPIC_OR_PARTITION for its partitions only;
 - the groups forget its committed offsets (GroupCoordinator's
   onPartitionsDeleted): OffsetFetch answers -1 for them and no longer lists
   them, and a group left Empty without offsets is gone from ListGroups.

Usage: deleted_topic_raw.py HOST PORT KEEP GONE
(KEEP: a one-partition topic that stays; GONE: a two-partition topic this
script deletes; both hold records.)
Exit status 0 when every check passed, 1 otherwise (each failure on stderr).
"""
import socket
import sys
import time

import kafka_wire
from kafka_wire import Reader, Writer

NONE, UNKNOWN_TOPIC, UNKNOWN_TOPIC_ID = 0, 3, 100
API_FETCH, API_LIST_OFFSETS, API_METADATA = 1, 2, 3
API_OFFSET_COMMIT, API_OFFSET_FETCH, API_FIND_COORDINATOR = 8, 9, 10
API_LIST_GROUPS, API_DELETE_TOPICS = 16, 20
LATEST = -1
LONG_POLL_MAX_WAIT_MS = 60000
ANSWER_DEADLINE_S = 30  # well under the long poll's max_wait
ZERO_UUID = b"\0" * 16

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what, file=sys.stderr)


class Conn:
    """One connection; send() and receive() apart, for a request that waits."""

    def __init__(self, host, port):
        self.wire = kafka_wire.Connection(host, port, "deleted-raw", ANSWER_DEADLINE_S)

    def send(self, api, version, flexible, body):
        return self.wire.send(api, version, body.data, flexible)

    def receive(self, corr, flexible):
        got, data = self.wire.receive()
        check(got == corr, "correlation id %d" % corr)
        r = Reader(data, flexible)
        r.tags()
        return r

    def call(self, api, version, flexible, body):
        return self.receive(self.send(api, version, flexible, body), flexible)


# ---- requests -----------------------------------------------------------------


def metadata_v12(c, name=None, topic_id=ZERO_UUID):
    """Returns (error, name, topic id, partition count) of the one topic asked."""
    w = Writer(True)

    def topic(w, t):
        w.uuid(t[1]).str(t[0]).tags()

    w.arr([(name, topic_id)], topic).i8(0).i8(0).tags()
    r = c.call(API_METADATA, 12, True, w)
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
        err, tname = r.i16(), r.str()
        tid = r.uuid()
        r.bool()
        parts = r.arr(partition)
        r.i32()
        r.tags()
        return err, tname, tid, len(parts)

    return r.arr(topic_out)[0]


def fetch_v11_send(c, wants, max_wait_ms, min_bytes=1):
    """wants: [(topic, partition, offset)]; returns the correlation id."""
    w = Writer(False)
    by_topic = {}
    for t, p, o in wants:
        by_topic.setdefault(t, []).append((p, o))

    def part(w, po):
        w.i32(po[0]).i32(-1).i64(po[1]).i64(-1).i32(1048576)

    def topic(w, t):
        w.str(t).arr(by_topic[t], part)

    w.i32(-1).i32(max_wait_ms).i32(min_bytes).i32(52428800).i8(0).i32(0).i32(-1)
    w.arr(list(by_topic), topic).arr([], None).str("")
    return c.send(API_FETCH, 11, False, w)


def fetch_v11_parse(r):
    """Returns {(topic, partition): (error, high watermark)}."""
    r.i32(), r.i16(), r.i32()
    out = {}

    def topic(r):
        name = r.str()

        def part(r):
            idx, err, hw = r.i32(), r.i16(), r.i64()
            r.i64(), r.i64()
            r.arr(lambda r: (r.i64(), r.i64()))
            r.i32()
            n = r.i32()
            r.pos += max(n, 0)
            out[(name, idx)] = (err, hw)

        r.arr(part)

    r.arr(topic)
    return out


def fetch_v13_by_id(c, topic_id, partitions):
    """Returns the partition errors of the one topic, by partition."""
    w = Writer(True)

    def part(w, p):
        w.i32(p).i32(-1).i64(0).i32(-1).i64(-1).i32(1048576).tags()

    def topic(w, tid):
        w.uuid(tid).arr(partitions, part).tags()

    w.i32(-1).i32(0).i32(1).i32(52428800).i8(0).i32(0).i32(-1)
    w.arr([topic_id], topic).arr([], None).str("").tags()
    r = c.call(API_FETCH, 13, True, w)
    r.i32(), r.i16(), r.i32()
    errors = {}

    def topic_out(r):
        r.uuid()

        def part_out(r):
            idx, err = r.i32(), r.i16()
            r.i64(), r.i64(), r.i64()
            r.arr(lambda r: (r.i64(), r.i64(), r.tags()))
            r.i32()
            n = r.uvar() - 1
            r.pos += max(n, 0)
            r.tags()
            errors[idx] = err

        r.arr(part_out)
        r.tags()

    r.arr(topic_out)
    return errors


def list_offsets_v5(c, topic, partitions):
    """Returns {partition: (error, offset)} for the latest offsets."""
    w = Writer(False)
    w.i32(-1).i8(0)
    w.arr([topic], lambda w, t: w.str(t).arr(partitions, lambda w, p: w.i32(p).i32(-1).i64(LATEST)))
    r = c.call(API_LIST_OFFSETS, 5, False, w)
    r.i32()
    out = {}

    def topic_out(r):
        r.str()

        def part(r):
            idx, err = r.i32(), r.i16()
            r.i64()
            out[idx] = (err, r.i64())
            r.i32()

        r.arr(part)

    r.arr(topic_out)
    return out


def offset_commit_v7(c, group, commits):
    """commits: [(topic, partition, offset)], outside group management.
    Returns {(topic, partition): error}."""
    w = Writer(False)
    by_topic = {}
    for t, p, o in commits:
        by_topic.setdefault(t, []).append((p, o))
    w.str(group).i32(-1).str("").str(None)
    w.arr(
        list(by_topic),
        lambda w, t: w.str(t).arr(by_topic[t], lambda w, po: w.i32(po[0]).i64(po[1]).i32(-1).str("")),
    )
    r = c.call(API_OFFSET_COMMIT, 7, False, w)
    r.i32()
    out = {}

    def topic(r):
        name = r.str()

        def part(r):
            idx = r.i32()
            out[(name, idx)] = r.i16()

        r.arr(part)

    r.arr(topic)
    return out


def offset_fetch_v5(c, group, wants):
    """wants: {topic: [partitions]} or None for every committed partition.
    Returns ({(topic, partition): (offset, error)}, group error)."""
    w = Writer(False)
    w.str(group)
    topics = None if wants is None else list(wants)
    w.arr(topics, lambda w, t: w.str(t).arr(wants[t], lambda w, p: w.i32(p)))
    r = c.call(API_OFFSET_FETCH, 5, False, w)
    r.i32()
    out = {}

    def topic(r):
        name = r.str()

        def part(r):
            idx, offset = r.i32(), r.i64()
            r.i32(), r.str()
            out[(name, idx)] = (offset, r.i16())

        r.arr(part)

    r.arr(topic)
    return out, r.i16()


def wait_coordinator(c, group):
    """Polls FindCoordinator v1 until the group has a coordinator (the first
    call creates __consumer_offsets). Returns its error."""
    deadline = time.monotonic() + ANSWER_DEADLINE_S
    while True:
        w = Writer(False)
        w.str(group).i8(0)
        r = c.call(API_FIND_COORDINATOR, 1, False, w)
        r.i32()
        err = r.i16()
        if err == NONE or time.monotonic() > deadline:
            return err
        time.sleep(0.05)


def list_groups_v0(c):
    r = c.call(API_LIST_GROUPS, 0, False, Writer(False))
    check(r.i16() == NONE, "ListGroups error")
    return sorted(g for g, _ in r.arr(lambda r: (r.str(), r.str())))


def delete_topics_v3(c, name):
    w = Writer(False)
    w.arr([name], lambda w, t: w.str(t)).i32(30000)
    r = c.call(API_DELETE_TOPICS, 3, False, w)
    r.i32()
    return dict(r.arr(lambda r: (r.str(), r.i16())))


# ---- the checks ---------------------------------------------------------------


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    host, port, keep, gone = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    c = Conn(host, port)
    group, gone_only_group = "deleted_topic_raw", "deleted_topic_raw_gone_only"
    for g in (group, gone_only_group):
        check(wait_coordinator(c, g) == NONE, "a coordinator for %s" % g)

    err, _, gone_id, count = metadata_v12(c, gone)
    check(err == NONE and count == 2 and gone_id != ZERO_UUID, "metadata of %s before the delete" % gone)
    ends = list_offsets_v5(c, gone, [0, 1])
    check(ends.get(0, (1,))[0] == NONE and ends[0][1] > 0, "%s holds records: %s" % (gone, ends))
    keep_end = list_offsets_v5(c, keep, [0]).get(0, (1, 0))
    check(keep_end[0] == NONE and keep_end[1] > 0, "%s holds records: %s" % (keep, keep_end))

    commits = offset_commit_v7(c, group, [(keep, 0, 1), (gone, 0, 1), (gone, 1, 1)])
    check(set(commits.values()) == {NONE}, "commits before the delete: %s" % commits)
    commits = offset_commit_v7(c, gone_only_group, [(gone, 0, 1)])
    check(set(commits.values()) == {NONE}, "commit of the gone-only group: %s" % commits)
    groups = list_groups_v0(c)
    check(group in groups and gone_only_group in groups, "groups before the delete: %s" % groups)

    # A fetch waiting at gone's end when the topic goes.
    poll = Conn(host, port)
    corr = fetch_v11_send(poll, [(gone, 0, ends[0][1])], LONG_POLL_MAX_WAIT_MS)
    deleted = delete_topics_v3(c, gone)
    check(deleted == {gone: NONE}, "DeleteTopics %s: %s" % (gone, deleted))
    try:
        answer = fetch_v11_parse(poll.receive(corr, False))
        check(
            answer.get((gone, 0)) == (UNKNOWN_TOPIC, -1),
            "the waiting fetch on %s-0: %s, want (UNKNOWN_TOPIC_OR_PARTITION, -1)" % (gone, answer),
        )
    except socket.timeout:
        check(False, "the fetch waiting on %s-0 was not answered when the topic went" % gone)

    answer = fetch_v11_parse(c.receive(fetch_v11_send(c, [(keep, 0, 0), (gone, 1, 0)], 0), False))
    check(answer.get((keep, 0), (None,))[0] == NONE, "fetch of %s-0 next to a deleted topic: %s" % (keep, answer))
    check(answer.get((gone, 1), (None,))[0] == UNKNOWN_TOPIC, "fetch v11 of %s-1: %s" % (gone, answer))
    errors = fetch_v13_by_id(c, gone_id, [0, 1])
    check(errors == {0: UNKNOWN_TOPIC_ID, 1: UNKNOWN_TOPIC_ID}, "fetch v13 by %s's old id: %s" % (gone, errors))

    err, _, _, count = metadata_v12(c, gone)
    check((err, count) == (UNKNOWN_TOPIC, 0), "metadata of %s by name: error %d, %d partitions" % (gone, err, count))
    err, name, _, _ = metadata_v12(c, None, gone_id)
    check((err, name) == (UNKNOWN_TOPIC_ID, None), "metadata by %s's old id: error %d, name %r" % (gone, err, name))
    ends = list_offsets_v5(c, gone, [0])
    check(ends.get(0, (None,))[0] == UNKNOWN_TOPIC, "list offsets of %s-0: %s" % (gone, ends))

    commits = offset_commit_v7(c, group, [(keep, 0, 2), (gone, 0, 2)])
    check(
        commits == {(keep, 0): NONE, (gone, 0): UNKNOWN_TOPIC},
        "commit of %s-0 and %s-0 after the delete: %s" % (keep, gone, commits),
    )
    fetched, err = offset_fetch_v5(c, group, {gone: [0, 1]})
    check(
        err == NONE and fetched == {(gone, 0): (-1, NONE), (gone, 1): (-1, NONE)},
        "committed offsets of the deleted %s: %s (group error %d), want -1" % (gone, fetched, err),
    )
    fetched, err = offset_fetch_v5(c, group, None)
    check(
        err == NONE and fetched == {(keep, 0): (2, NONE)},
        "every committed offset of %s after the delete: %s (group error %d)" % (group, fetched, err),
    )
    groups = list_groups_v0(c)
    check(
        group in groups and gone_only_group not in groups,
        "groups after the delete: %s (an Empty group left without offsets is gone)" % groups,
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
