#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The share coordinator's state RPCs (KIP-932, APIs 83-87) over raw
sockets, as a partition leader's persister sends them (standard library
only).

Usage: share_state_raw.py HOST PORT TOPIC_ID MODE
  TOPIC_ID: the topic's id as Kafka prints it (base64url, 22 characters).
  MODE "write": FindCoordinator v6 key type SHARE names this broker (a
     malformed key is INVALID_REQUEST); a read of a key never written
     answers state epoch 0 and start offset -1; Initialize (state epoch 1,
     start 10); Write (leader epoch 1) of batches; a second Write that
     moves the start offset and overwrites part of a batch; Read answers the
     merged state; ReadSummary its epochs and start offset; a Write at state
     epoch 0 is FENCED_STATE_EPOCH, a Read at leader epoch 0
     FENCED_LEADER_EPOCH; an Initialize at a lower state epoch
     FENCED_STATE_EPOCH; a partition the topic lacks is
     UNKNOWN_TOPIC_OR_PARTITION; malformed writes (a group id with a NUL
     byte, batches that make no sense, a start offset below -1) are
     INVALID_REQUEST and change nothing. A second key is written (unsorted,
     overlapping batches: the later wins), then deleted: read back as never
     written.
  MODE "read" (after a restart): Read answers the same merged state.
  MODE "unauthorized" (the client lacks CLUSTER_ACTION on the cluster):
     every RPC's partitions and FindCoordinator's share key answer
     CLUSTER_AUTHORIZATION_FAILED.
Exit status 0 when every check holds, 1 otherwise (the reason on stderr).
"""
import base64
import sys
import time

import kafka_wire
from kafka_wire import Reader, Writer

API_FIND_COORDINATOR = 10
API_INITIALIZE, API_READ, API_WRITE, API_DELETE, API_SUMMARY = 83, 84, 85, 86, 87
NONE, INVALID_REQUEST, UNKNOWN_TOPIC_OR_PARTITION = 0, 42, 3
NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS = 16, 15, 14
FENCED_LEADER_EPOCH, FENCED_STATE_EPOCH = 74, 124
CLUSTER_AUTHORIZATION_FAILED = 31
RETRIABLE = (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS)
AVAILABLE, ACQUIRED, ACKNOWLEDGED, ARCHIVED = 0, 1, 2, 4
GROUP, OTHER_GROUP = "share-raw-group", "share-raw-other"
WAIT_S = 30.0

# After the two writes: start 15; 15-19 acked; 20-24 archived (overwritten),
# 25-29 available delivered twice; 30-39 acked.
MERGED = [(15, 19, ACKNOWLEDGED, 1), (20, 24, ARCHIVED, 3), (25, 29, AVAILABLE, 2),
          (30, 39, ACKNOWLEDGED, 1)]


def fail(msg):
    print("share_state_raw: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


class Conn(kafka_wire.Connection):
    def __init__(self, host, port):
        super().__init__(host, port, "share_state_raw", 20)

    def call(self, api, version, body, flexible=True):
        r = Reader(super().call(api, version, body, flexible), flexible)
        r.tags()
        return r


def one_partition(r, fields):
    """The single topic/partition result of a state RPC response."""
    def part(r):
        p = {"partition": r.i32(), "error": r.i16(), "message": r.str()}
        fields(r, p)
        r.tags()
        return p

    def topic(r):
        tid = r.uuid()
        parts = r.arr(part)
        r.tags()
        return tid, parts

    topics = r.arr(topic)
    r.tags()
    if len(topics) != 1 or len(topics[0][1]) != 1:
        fail("expected one partition result, got %r" % (topics,))
    return topics[0][1][0]


def no_fields(r, p):
    pass


def request(group, tid, partition, fields):
    def part(w, _):
        w.i32(partition)
        fields(w)
        w.tags()

    def topic(w, _):
        w.uuid(tid).arr([0], part).tags()

    return bytes(Writer(flexible=True).str(group).arr([0], topic).tags().data)


def retry(what, fn):
    """Calls fn until its partition error is not a routing one (the topic is being created)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        p = fn()
        if p["error"] not in RETRIABLE or time.monotonic() > deadline:
            return p
        time.sleep(0.1)


def initialize(c, tid, partition, state_epoch, start, group=GROUP):
    body = request(group, tid, partition, lambda w: w.i32(state_epoch).i64(start))
    return retry("initialize", lambda: one_partition(c.call(API_INITIALIZE, 0, body), no_fields))


def write(c, tid, partition, state_epoch, leader_epoch, start, batches, group=GROUP):
    def fields(w):
        w.i32(state_epoch).i32(leader_epoch).i64(start).i32(-1)
        w.arr(batches, lambda w, b: w.i64(b[0]).i64(b[1]).i8(b[2]).i16(b[3]).tags())

    body = request(group, tid, partition, fields)
    return retry("write", lambda: one_partition(c.call(API_WRITE, 1, body), no_fields))


def read(c, tid, partition, leader_epoch, group=GROUP):
    def fields(r, p):
        p["state_epoch"] = r.i32()
        p["start"] = r.i64()

        def batch(r):
            b = (r.i64(), r.i64(), r.i8(), r.i16())
            r.tags()
            return b

        p["batches"] = r.arr(batch)

    body = request(group, tid, partition, lambda w: w.i32(leader_epoch))
    return retry("read", lambda: one_partition(c.call(API_READ, 0, body), fields))


def summary(c, tid, partition, leader_epoch):
    def fields(r, p):
        p["state_epoch"] = r.i32()
        p["leader_epoch"] = r.i32()
        p["start"] = r.i64()
        p["delivery_complete"] = r.i32()

    body = request(GROUP, tid, partition, lambda w: w.i32(leader_epoch))
    return retry("summary", lambda: one_partition(c.call(API_SUMMARY, 1, body), fields))


def delete(c, tid, partition, group):
    body = request(group, tid, partition, lambda w: None)
    return retry("delete", lambda: one_partition(c.call(API_DELETE, 0, body), no_fields))


def find_coordinator(c, key):
    w = Writer(flexible=True).i8(2).arr([key], lambda w, k: w.str(k)).tags()
    r = c.call(API_FIND_COORDINATOR, 6, bytes(w.data))
    r.i32()

    def coordinator(r):
        got = {"key": r.str(), "node": r.i32(), "host": r.str(), "port": r.i32(),
               "error": r.i16(), "message": r.str()}
        r.tags()
        return got

    return r.arr(coordinator)[0]


def coordinator_checks(c, tid_text, port):
    key = "%s:%s:0" % (GROUP, tid_text)
    deadline = time.monotonic() + WAIT_S
    while True:
        got = find_coordinator(c, key)
        if got["error"] != COORDINATOR_NOT_AVAILABLE or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    expect("FindCoordinator SHARE error", got["error"], NONE)
    expect("FindCoordinator SHARE port", got["port"], port)
    expect("malformed share key", find_coordinator(c, GROUP + ":nope:0")["error"],
           INVALID_REQUEST)


def write_mode(c, tid, tid_text, port):
    coordinator_checks(c, tid_text, port)
    fresh = read(c, tid, 0, 0)
    expect("read of a new key", (fresh["error"], fresh["state_epoch"], fresh["start"],
                                 fresh["batches"]), (NONE, 0, -1, []))
    expect("initialize", initialize(c, tid, 0, 1, 10)["error"], NONE)
    first = [(10, 19, ACKNOWLEDGED, 1), (20, 29, AVAILABLE, 2), (30, 39, ACKNOWLEDGED, 1)]
    expect("first write", write(c, tid, 0, 1, 1, 10, first)["error"], NONE)
    second = [(20, 24, ARCHIVED, 3)]
    expect("second write", write(c, tid, 0, 1, 1, 15, second)["error"], NONE)
    malformed_writes(c, tid)
    got = read(c, tid, 0, 1)
    expect("read after writes", (got["error"], got["state_epoch"], got["start"], got["batches"]),
           (NONE, 1, 15, MERGED))
    s = summary(c, tid, 0, -1)
    expect("summary", (s["error"], s["state_epoch"], s["leader_epoch"], s["start"]),
           (NONE, 1, 1, 15))
    expect("stale state epoch", write(c, tid, 0, 0, 1, -1, [])["error"], FENCED_STATE_EPOCH)
    expect("stale leader epoch", read(c, tid, 0, 0)["error"], FENCED_LEADER_EPOCH)
    expect("initialize at a lower state epoch", initialize(c, tid, 0, 0, 0)["error"],
           FENCED_STATE_EPOCH)
    expect("unknown partition", read(c, tid, 99, 1)["error"], UNKNOWN_TOPIC_OR_PARTITION)
    # Another group's key: written (unsorted, overlapping batches: the later
    # one wins), deleted, gone.
    expect("other initialize", initialize(c, tid, 0, 1, 0, OTHER_GROUP)["error"], NONE)
    painted = [(5, 9, ACKNOWLEDGED, 1), (0, 6, AVAILABLE, 2)]
    expect("unsorted overlapping write", write(c, tid, 0, 1, 1, -1, painted, OTHER_GROUP)["error"],
           NONE)
    got = read(c, tid, 0, 1, OTHER_GROUP)
    expect("read of the overlapping write", (got["error"], got["batches"]),
           (NONE, [(0, 6, AVAILABLE, 2), (7, 9, ACKNOWLEDGED, 1)]))
    expect("other delete", delete(c, tid, 0, OTHER_GROUP)["error"], NONE)
    gone = read(c, tid, 0, 0, OTHER_GROUP)
    expect("read after delete", (gone["error"], gone["state_epoch"], gone["start"]),
           (NONE, 0, -1))


def malformed_writes(c, tid):
    """Writes the coordinator refuses: INVALID_REQUEST, the state untouched."""
    bad = [("a group id holding a NUL byte", GROUP + "\x00x", -1, [(10, 19, ARCHIVED, 5)]),
           ("an empty group id", "", -1, [(10, 19, ARCHIVED, 5)]),
           ("first offset above last", GROUP, -1, [(19, 10, ARCHIVED, 5)]),
           ("a negative first offset", GROUP, -1, [(-5, 19, ARCHIVED, 5)]),
           ("an acquired state", GROUP, -1, [(10, 19, ACQUIRED, 5)]),
           ("a negative delivery count", GROUP, -1, [(10, 19, ARCHIVED, -1)]),
           ("a start offset below -1", GROUP, -2, [])]
    for what, group, start, batches in bad:
        expect("write with " + what, write(c, tid, 0, 1, 1, start, batches, group)["error"],
               INVALID_REQUEST)


def read_mode(c, tid):
    got = read(c, tid, 0, 1)
    expect("read after restart", (got["error"], got["state_epoch"], got["start"], got["batches"]),
           (NONE, 1, 15, MERGED))
    gone = read(c, tid, 0, 0, OTHER_GROUP)
    expect("deleted key after restart", (gone["error"], gone["state_epoch"]), (NONE, 0))


def unauthorized_mode(c, tid, tid_text):
    want = CLUSTER_AUTHORIZATION_FAILED
    expect("FindCoordinator", find_coordinator(c, "%s:%s:0" % (GROUP, tid_text))["error"], want)
    expect("initialize", initialize(c, tid, 0, 1, 0)["error"], want)
    expect("write", write(c, tid, 0, 1, 1, 0, [(0, 1, ACKNOWLEDGED, 1)])["error"], want)
    expect("read", read(c, tid, 0, 1)["error"], want)
    expect("summary", summary(c, tid, 0, -1)["error"], want)
    expect("delete", delete(c, tid, 0, GROUP)["error"], want)


def main():
    host, port, tid_text, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    tid = base64.urlsafe_b64decode(tid_text + "==")
    with Conn(host, port) as c:
        if mode == "write":
            write_mode(c, tid, tid_text, port)
        elif mode == "unauthorized":
            unauthorized_mode(c, tid, tid_text)
        else:
            read_mode(c, tid)


if __name__ == "__main__":
    main()
