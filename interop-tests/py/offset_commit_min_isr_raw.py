#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An offset commit is acknowledged only once __consumer_offsets' ISR holds
min.insync.replicas, as Kafka's acks=-1 coordinator writes: on a broker whose
min.insync.replicas is above the offsets topic's replication factor,
OffsetCommit answers COORDINATOR_NOT_AVAILABLE (Kafka's NOT_ENOUGH_REPLICAS
for a coordinator write), and OffsetFetch then finds no offset.

Usage: offset_commit_min_isr_raw.py HOST PORT TOPIC
Exit status 0 when both hold, 1 otherwise (the reason on stderr).
"""
import sys
import time

import kafka_wire
from kafka_wire import Reader, int32, int64, string

API_OFFSET_COMMIT, API_OFFSET_FETCH, API_FIND_COORDINATOR = 8, 9, 10
NONE, COORDINATOR_NOT_AVAILABLE = 0, 15
LOADING = {14, 16}  # LOAD_IN_PROGRESS, NOT_COORDINATOR: the offsets partition just elected
GROUP = "min-isr-group"
DEADLINE_S = 30


def fail(msg):
    sys.stderr.write("offset_commit_min_isr_raw: %s\n" % msg)
    sys.exit(1)


def main():
    host, port, topic = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    c = kafka_wire.Connection(host, port, "offset_commit_min_isr_raw", 20)
    deadline = time.monotonic() + DEADLINE_S
    while True:  # FindCoordinator creates __consumer_offsets on first use
        r = Reader(c.call(API_FIND_COORDINATOR, 1, string(GROUP) + bytes([0])), False)
        r.i32()
        if r.i16() == NONE:
            break
        if time.monotonic() > deadline:
            fail("FindCoordinator never answered NONE")
        time.sleep(0.1)
    commit = (string(GROUP) + int32(-1) + string("") + int64(-1) + int32(1) + string(topic) +
              int32(1) + int32(0) + int64(7) + string(""))
    while True:
        r = Reader(c.call(API_OFFSET_COMMIT, 2, commit), False)
        r.i32()
        r.str()
        r.i32()
        r.i32()
        err = r.i16()
        if err not in LOADING:
            break
        if time.monotonic() > deadline:
            fail("OffsetCommit still loading at the deadline")
        time.sleep(0.1)
    if err != COORDINATOR_NOT_AVAILABLE:
        fail("OffsetCommit with the ISR below min.insync.replicas: error %d, want %d" %
             (err, COORDINATOR_NOT_AVAILABLE))
    r = Reader(c.call(API_OFFSET_FETCH, 1, string(GROUP) + int32(1) + string(topic) + int32(1) +
                      int32(0)), False)
    r.i32()
    r.str()
    r.i32()
    r.i32()
    offset = r.i64()
    if offset != -1:
        fail("OffsetFetch after the refused commit: offset %d, want -1" % offset)


if __name__ == "__main__":
    main()
