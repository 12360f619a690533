#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Offset commit metadata is a Kafka string: its exact bytes come back, a NUL
included ("Hello\\0world!" is 12 bytes, not "Hello"), from OffsetCommit and
from TxnOffsetCommit, in OffsetFetch v1 and v8, before and after a restart
(then from the __consumer_offsets records the coordinator replays).

Usage: offset_metadata_raw.py HOST PORT TOPIC commit|check
  commit: OffsetCommit v2 of TOPIC-0 for group meta-plain, and a
          transaction committing TOPIC-0 for group meta-txn, then checks;
  check:  only the checks (after a restart).
Exit status 0 when every check holds, 1 otherwise (the reason on stderr).
"""
import struct
import sys
import time

import kafka_wire
from kafka_wire import Reader, int16, int32, int64, string, uvarint, compact_string

API_OFFSET_COMMIT, API_OFFSET_FETCH, API_FIND_COORDINATOR, API_INIT_PRODUCER_ID = 8, 9, 10, 22
API_ADD_OFFSETS_TO_TXN, API_END_TXN, API_TXN_OFFSET_COMMIT = 25, 26, 28
NONE = 0
# Answers that only mean "not yet": the coordinator is loading or just moved here.
RETRIABLE = {14, 15, 16, 51}  # LOAD_IN_PROGRESS, NOT_AVAILABLE, NOT_COORDINATOR, CONCURRENT_TXNS
PLAIN_META = b"Hello\x00world!"
TXN_META = b"\x00tx\x00meta\x00"
PLAIN_GROUP, TXN_GROUP, TXN_ID = "meta-plain", "meta-txn", "meta-txn-id"
DEADLINE_S = 30


def fail(msg):
    sys.stderr.write("offset_metadata_raw: %s\n" % msg)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


def raw_string(b):
    return int16(len(b)) + b


def retry(what, fn):
    """fn() -> (error, result); retried while error is retriable."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        err, result = fn()
        if err not in RETRIABLE:
            expect(what, err, NONE)
            return result
        if time.monotonic() > deadline:
            fail("%s: still error %d at the deadline" % (what, err))
        time.sleep(0.1)


class Conn(kafka_wire.Connection):
    def __init__(self, host, port):
        super().__init__(host, port, "offset_metadata_raw", 20)

    def call(self, api, version, body, flexible=False):
        r = Reader(super().call(api, version, body, flexible), flexible)
        r.tags()
        return r


def raw_str(r):
    """The next string's bytes (the Reader decodes to text)."""
    n = r.uvar() - 1 if r.flexible else r.i16()
    return None if n < 0 else r.take(n)


def find_coordinator(c, key, key_type):
    """FindCoordinator v1 until it names a broker (the first creates the internal topic)."""

    def once():
        r = c.call(API_FIND_COORDINATOR, 1, string(key) + bytes([key_type]))
        r.i32()
        return r.i16(), None

    retry("FindCoordinator " + key, once)


def commit_plain(c, topic):
    body = (string(PLAIN_GROUP) + int32(-1) + string("") + int64(-1) + int32(1) + string(topic) +
            int32(1) + int32(0) + int64(7) + raw_string(PLAIN_META))

    def once():
        r = c.call(API_OFFSET_COMMIT, 2, body)
        r.i32()
        r.str()
        r.i32()
        r.i32()
        return r.i16(), None

    retry("OffsetCommit", once)


def commit_txn(c, topic):
    def init():
        r = c.call(API_INIT_PRODUCER_ID, 1, string(TXN_ID) + int32(60000))
        r.i32()
        err, pid, epoch = r.i16(), r.i64(), r.i16()
        return err, (pid, epoch)

    pid, epoch = retry("InitProducerId", init)
    head = string(TXN_ID) + int64(pid) + int16(epoch)

    def add():
        r = c.call(API_ADD_OFFSETS_TO_TXN, 1, head + string(TXN_GROUP))
        r.i32()
        return r.i16(), None

    retry("AddOffsetsToTxn", add)
    body = (string(TXN_ID) + string(TXN_GROUP) + int64(pid) + int16(epoch) + int32(1) +
            string(topic) + int32(1) + int32(0) + int64(9) + int32(-1) + raw_string(TXN_META))

    def txn_commit():
        r = c.call(API_TXN_OFFSET_COMMIT, 2, body)
        r.i32()
        r.i32()
        r.str()
        r.i32()
        r.i32()
        return r.i16(), None

    retry("TxnOffsetCommit", txn_commit)

    def end():
        r = c.call(API_END_TXN, 1, head + struct.pack(">b", 1))
        r.i32()
        return r.i16(), None

    retry("EndTxn", end)


def fetch_v1(c, group, topic):
    """(offset, metadata bytes) of TOPIC-0 for group, OffsetFetch v1."""
    body = string(group) + int32(1) + string(topic) + int32(1) + int32(0)

    def once():
        r = c.call(API_OFFSET_FETCH, 1, body)
        r.i32()
        r.str()
        r.i32()
        r.i32()
        offset, meta, err = r.i64(), raw_str(r), r.i16()
        return err, (offset, meta)

    return retry("OffsetFetch v1 " + group, once)


def fetch_v8(c, group, topic):
    """The same through OffsetFetch v8 (flexible, groups batched)."""
    body = (uvarint(2) + compact_string(group) + uvarint(2) + compact_string(topic) + uvarint(2) +
            int32(0) + uvarint(0) + uvarint(0) + bytes([0]) + uvarint(0))

    def once():
        r = c.call(API_OFFSET_FETCH, 8, body, flexible=True)
        r.i32()
        r.uvar()  # one group
        r.str()
        r.uvar()  # one topic
        r.str()
        r.uvar()  # one partition
        r.i32()
        offset, _epoch, meta, err = r.i64(), r.i32(), raw_str(r), r.i16()
        r.tags()
        r.tags()
        group_err = r.i16()
        return err or group_err, (offset, meta)

    return retry("OffsetFetch v8 " + group, once)


def wait_committed(c, group, topic, want_offset):
    """The transaction's offset shows once its marker is written."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        got = fetch_v1(c, group, topic)
        if got[0] == want_offset or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def check(c, topic):
    expect("plain commit (v1)", fetch_v1(c, PLAIN_GROUP, topic), (7, PLAIN_META))
    expect("plain commit (v8)", fetch_v8(c, PLAIN_GROUP, topic), (7, PLAIN_META))
    expect("transactional commit (v1)", wait_committed(c, TXN_GROUP, topic, 9), (9, TXN_META))
    expect("transactional commit (v8)", fetch_v8(c, TXN_GROUP, topic), (9, TXN_META))


def main():
    host, port, topic, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    with Conn(host, port) as c:
        find_coordinator(c, PLAIN_GROUP, 0)
        find_coordinator(c, TXN_GROUP, 0)
        if mode == "commit":
            find_coordinator(c, TXN_ID, 1)
            commit_plain(c, topic)
            commit_txn(c, topic)
        check(c, topic)


if __name__ == "__main__":
    main()
