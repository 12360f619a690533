#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Idempotent produce over raw sockets: builds InitProducerId, Produce (v3,
one v2 record batch with a producer id, epoch and sequence), ListOffsets and
DescribeProducers requests by hand and checks the broker's answers.

Usage: idempotent_raw.py HOST PORT TOPIC STATE_FILE MODE
  MODE "checks": a fresh producer id; a duplicate batch gets the first
                 offset back and appends nothing; a sequence gap gets
                 OUT_OF_ORDER_SEQUENCE_NUMBER; InitProducerId naming an id
                 and epoch (another producer's, or 0/0) still gets a fresh id
                 at epoch 0; the producer's own epoch bump fences the old
                 epoch (INVALID_PRODUCER_EPOCH on Produce); two batches
                 with a producer id are INVALID_RECORD; a transactional id is
                 COORDINATOR_NOT_AVAILABLE; DescribeProducers lists the
                 producer. Saves the last batch it wrote to STATE_FILE.
  MODE "expire": (a broker with a short producer.id.expiration.ms) a
                 producer writes, DescribeProducers lists it until the expiry
                 check forgets it (polled under a deadline), then its batch at
                 a later sequence is accepted, as Kafka accepts an unknown
                 producer.
  MODE "dup":    re-sends the saved batch (after a broker restart) and checks
                 that it is answered with its original offset, nothing appended;
                 a new producer id is above every id issued before.
Exit status 0 when every check holds, 1 otherwise (the reason on stderr).
Standard library only.
"""
import json
import struct
import sys
import time

import kafka_wire
from kafka_wire import record, record_batch, string, uvarint

API_PRODUCE, API_LIST_OFFSETS, API_INIT_PRODUCER_ID, API_DESCRIBE_PRODUCERS = 0, 2, 22, 61
NONE, COORDINATOR_NOT_AVAILABLE, INVALID_REQUEST = 0, 15, 42
OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH = 45, 47
INVALID_RECORD = 87
WAIT_S = 20.0
EXPIRY_DEADLINE_S = 60


def producer_batch(pid, epoch, seq, values):
    """One batch of values (no keys) from producer pid at epoch, from sequence seq."""
    # Now: producer state expires by the batches' timestamps.
    timestamp = int(time.time() * 1000)
    records = b"".join(record(i, 0, None, value) for i, value in enumerate(values))
    return record_batch(records, len(values), timestamp, timestamp, producer_id=pid,
                        producer_epoch=epoch, base_sequence=seq)


class Conn(kafka_wire.Connection):
    def __init__(self, host, port):
        super().__init__(host, port, "idempotent-raw", WAIT_S)

    def call(self, api, version, body, flexible=False):
        data = super().call(api, version, body, flexible)
        return data[1:] if flexible else data  # the response header's empty tagged fields


def fail(msg):
    print("idempotent_raw: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


def init_producer_id(conn, version=1, pid=-1, epoch=-1, txn_id=None):
    """Returns (error, producer id, epoch)."""
    if version >= 2:
        tid = b"\x00" if txn_id is None else uvarint(len(txn_id) + 1) + txn_id.encode()
        body = tid + struct.pack(">i", 60000)
        if version >= 3:
            body += struct.pack(">qh", pid, epoch)
        body += b"\x00"
        resp = conn.call(API_INIT_PRODUCER_ID, version, body, flexible=True)
    else:
        tid = struct.pack(">h", -1) if txn_id is None else string(txn_id)
        resp = conn.call(API_INIT_PRODUCER_ID, version, tid + struct.pack(">i", 60000))
    _throttle, err, got_pid, got_epoch = struct.unpack(">ihqh", resp[:16])
    return err, got_pid, got_epoch


def produce(conn, topic, records):
    """Produce v3, acks=-1, one partition (0). Returns (error, base offset)."""
    body = struct.pack(">h", -1) + struct.pack(">hi", -1, 30000)
    body += struct.pack(">i", 1) + string(topic) + struct.pack(">i", 1)
    body += struct.pack(">ii", 0, len(records)) + records
    resp = conn.call(API_PRODUCE, 3, body)
    pos = 4 + 2 + len(topic) + 4  # topic count, name, partition count
    _index, err, base_offset = struct.unpack(">ihq", resp[pos:pos + 14])
    return err, base_offset


def log_end_offset(conn, topic):
    body = struct.pack(">i", -1) + struct.pack(">i", 1) + string(topic)
    body += struct.pack(">i", 1) + struct.pack(">iq", 0, -1)
    resp = conn.call(API_LIST_OFFSETS, 1, body)
    pos = 4 + 2 + len(topic) + 4
    _index, err, _ts, offset = struct.unpack(">ihqq", resp[pos:pos + 22])
    expect("ListOffsets error", err, NONE)
    return offset


def describe_producers(conn, topic):
    """Returns {producer id: (epoch, last sequence)} for partition 0."""
    name = topic.encode()
    body = uvarint(2) + uvarint(len(name) + 1) + name + uvarint(2) + struct.pack(">i", 0)
    body += b"\x00" + b"\x00"
    resp = conn.call(API_DESCRIBE_PRODUCERS, 0, body, flexible=True)
    pos = 4
    expect("DescribeProducers topics", resp[pos], 2)
    pos += 1
    name_len = resp[pos] - 1
    pos += 1 + name_len
    expect("DescribeProducers partitions", resp[pos], 2)
    pos += 1
    _index, err = struct.unpack(">ih", resp[pos:pos + 6])
    expect("DescribeProducers error", err, NONE)
    pos += 6
    expect("DescribeProducers error message (null)", resp[pos], 0)
    pos += 1
    count = resp[pos] - 1
    pos += 1
    producers = {}
    for _ in range(count):
        pid, epoch, last_seq, _ts, _coord, txn = struct.unpack(">qiiqiq",
                                                               resp[pos:pos + 36])
        expect("current txn start offset", txn, -1)
        producers[pid] = (epoch, last_seq)
        pos += 37  # + tagged fields
    return producers


def checks(conn, topic, state_file):
    err, pid, epoch = init_producer_id(conn, version=1)
    expect("InitProducerId v1 error", err, NONE)
    expect("first epoch", epoch, 0)
    if pid < 0:
        fail("no producer id")
    err, pid2, _ = init_producer_id(conn, version=4)
    expect("InitProducerId v4 error", err, NONE)
    if pid2 == pid:
        fail("two producers got the same id %d" % pid)

    start = log_end_offset(conn, topic)
    batch0 = producer_batch(pid, 0, 0, [b"a0", b"a1"])
    expect("first batch", produce(conn, topic, batch0), (NONE, start))
    expect("duplicate batch", produce(conn, topic, batch0), (NONE, start))
    expect("log end after duplicate", log_end_offset(conn, topic), start + 2)
    batch1 = producer_batch(pid, 0, 2, [b"a2"])
    expect("second batch", produce(conn, topic, batch1), (NONE, start + 2))
    expect("duplicate of the first batch again", produce(conn, topic, batch0), (NONE, start))
    err, _ = produce(conn, topic, producer_batch(pid, 0, 10, [b"gap"]))
    expect("sequence gap", err, OUT_OF_ORDER_SEQUENCE_NUMBER)
    err, _ = produce(conn, topic, producer_batch(pid, 0, 2, [b"x", b"y"]))
    expect("overlapping batch", err, OUT_OF_ORDER_SEQUENCE_NUMBER)
    expect("log end after rejected batches", log_end_offset(conn, topic), start + 3)

    # Without a transactional id the id and epoch a request carries are
    # ignored, as in Kafka: each request gets a fresh id at epoch 0, even one
    # naming a live producer's id (here id 0 epoch 0, what some clients send
    # instead of -1/-1), so two producers never share an id.
    expect("InitProducerId v3 one of id/epoch", init_producer_id(conn, 3, pid, -1)[0],
           INVALID_REQUEST)
    issued = {pid, pid2}
    for version, ask_pid, ask_epoch in ((4, pid, 0), (4, 0, 0), (3, pid, 7), (5, pid2, 0)):
        err, got, got_epoch = init_producer_id(conn, version, ask_pid, ask_epoch)
        expect("InitProducerId v%d naming id %d epoch %d" % (version, ask_pid, ask_epoch),
               (err, got_epoch), (NONE, 0))
        if got in issued:
            fail("InitProducerId v%d naming id %d gave id %d again" % (version, ask_pid, got))
        issued.add(got)
    # KIP-360: an idempotent producer bumps its own epoch; the new epoch
    # starts at sequence 0 and fences the old one.
    err, _ = produce(conn, topic, producer_batch(pid, 1, 5, [b"b"]))
    expect("new epoch not starting at 0", err, OUT_OF_ORDER_SEQUENCE_NUMBER)
    batch2 = producer_batch(pid, 1, 0, [b"b0", b"b1", b"b2"])
    expect("new epoch from 0", produce(conn, topic, batch2), (NONE, start + 3))
    err, _ = produce(conn, topic, producer_batch(pid, 0, 3, [b"zombie"]))
    expect("old epoch", err, INVALID_PRODUCER_EPOCH)
    err, _ = produce(conn, topic, batch1)
    expect("old epoch duplicate", err, INVALID_PRODUCER_EPOCH)

    err, _ = produce(conn, topic, producer_batch(pid2, 0, 0, [b"c"]) + producer_batch(pid2, 0, 1, [b"d"]))
    expect("two batches with a producer id", err, INVALID_RECORD)
    err, _ = produce(conn, topic, producer_batch(pid2, 0, -1, [b"no sequence"]))
    expect("producer id without a sequence", err, INVALID_RECORD)
    expect("transactional InitProducerId", init_producer_id(conn, 1, txn_id="tx")[0],
           COORDINATOR_NOT_AVAILABLE)
    expect("empty transactional id", init_producer_id(conn, 1, txn_id="")[0], INVALID_REQUEST)
    expect("log end at the end", log_end_offset(conn, topic), start + 6)

    producers = describe_producers(conn, topic)
    expect("DescribeProducers entry", producers.get(pid), (1, 2))
    with open(state_file, "w") as f:
        json.dump({"batch": batch2.hex(), "offset": start + 3, "end": start + 6, "pid": pid,
                   "max_pid": max(issued)}, f)


def dup(conn, topic, state_file):
    with open(state_file) as f:
        state = json.load(f)
    expect("log end before the retry", log_end_offset(conn, topic), state["end"])
    expect("retry after restart", produce(conn, topic, bytes.fromhex(state["batch"])),
           (NONE, state["offset"]))
    expect("log end after the retry", log_end_offset(conn, topic), state["end"])
    expect("DescribeProducers after restart", describe_producers(conn, topic).get(state["pid"]),
           (1, 2))
    err, pid, _ = init_producer_id(conn, version=1)
    expect("InitProducerId after restart", err, NONE)
    if pid <= state["max_pid"]:
        fail("producer id %d after a restart is not above the %d issued before" % (pid, state["max_pid"]))
    state["max_pid"] = pid
    with open(state_file, "w") as f:
        json.dump(state, f)


def expire(conn, topic, _state_file):
    err, pid, _ = init_producer_id(conn, version=4)
    expect("InitProducerId", err, NONE)
    start = log_end_offset(conn, topic)
    batch0 = producer_batch(pid, 0, 0, [b"e0"])
    expect("first batch", produce(conn, topic, batch0), (NONE, start))
    expect("producer listed", describe_producers(conn, topic).get(pid), (0, 0))
    deadline = time.monotonic() + EXPIRY_DEADLINE_S
    while pid in describe_producers(conn, topic):
        if time.monotonic() > deadline:
            fail("producer %d not expired after %d s" % (pid, EXPIRY_DEADLINE_S))
        time.sleep(0.05)
    expect("batch after expiry at a later sequence",
           produce(conn, topic, producer_batch(pid, 0, 5, [b"e5"])), (NONE, start + 1))
    expect("producer listed again", describe_producers(conn, topic).get(pid), (0, 5))


def main():
    modes = {"checks": checks, "dup": dup, "expire": expire}
    if len(sys.argv) != 6 or sys.argv[5] not in modes:
        print(__doc__, file=sys.stderr)
        return 1
    host, port, topic, state_file, mode = sys.argv[1:]
    try:
        modes[mode](Conn(host, int(port)), topic, state_file)
    except kafka_wire.WireError as e:
        fail(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
