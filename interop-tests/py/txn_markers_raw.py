#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The data path of transactions over raw sockets, playing the transaction
coordinator by hand: transactional Produce (v3) opens a transaction in the
partition, WriteTxnMarkers (v0 and v1) ends it, and Fetch (v4) and
ListOffsets (v2) answer each isolation level as Kafka does.

Checks, on partition 0 of TOPIC (created beforehand, one replica):
  - a transactional batch holds read_committed consumers at its first
    offset (the last stable offset) while read_uncommitted ones read it;
    ListOffsets latest answers the LSO with isolation 1, the high watermark
    with 0;
  - non-transactional data from the producer inside its transaction is
    INVALID_TXN_STATE; a control batch from a client is INVALID_RECORD;
  - an ABORT marker (WriteTxnMarkers v1) is NONE; read_committed then reads
    the records with the aborted transaction listed, read_uncommitted gets
    a null list;
  - unknown topic and partition are UNKNOWN_TOPIC_OR_PARTITION, an older
    coordinator epoch TRANSACTION_COORDINATOR_FENCED, an older producer epoch
    INVALID_PRODUCER_EPOCH (v0 request), in one request answered together;
  - a read_committed Fetch long-polling at the LSO is answered when a COMMIT
    marker lands, with the records and no aborted transaction.
Usage: txn_markers_raw.py HOST PORT TOPIC [MODE]
  MODE "checks" (default): the checks above.
  MODE "restarted": after a restart of the broker, a read_committed fetch
                    from offset 0 still lists the one aborted transaction
                    and nothing holds the LSO below the high watermark.
Exit status 0 when every check holds, 1 otherwise (the reason on stderr).
Standard library only.
"""
import struct
import sys
import time

import kafka_wire
from kafka_wire import Reader, Writer, record, record_batch, string

API_PRODUCE, API_FETCH, API_LIST_OFFSETS, API_INIT_PRODUCER_ID = 0, 1, 2, 22
API_WRITE_TXN_MARKERS = 27
NONE, UNKNOWN_TOPIC_OR_PARTITION, INVALID_PRODUCER_EPOCH, INVALID_TXN_STATE = 0, 3, 47, 48
TRANSACTION_COORDINATOR_FENCED, INVALID_RECORD = 52, 87
ATTR_TRANSACTIONAL, ATTR_CONTROL = 0x10, 0x20
READ_UNCOMMITTED, READ_COMMITTED = 0, 1
WAIT_S = 20.0
LONG_POLL_MS = 15000


def fail(msg):
    print("txn_markers_raw: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


def now_ms():
    return int(time.time() * 1000)


def data_batch(pid, epoch, seq, values, transactional=True):
    ts = now_ms()
    records = b"".join(record(i, 0, b"k%d" % i, v) for i, v in enumerate(values))
    return record_batch(records, len(values), ts, ts, ATTR_TRANSACTIONAL if transactional else 0,
                        producer_id=pid, producer_epoch=epoch, base_sequence=seq)


def control_batch(pid, epoch):
    """A COMMIT marker as a client must not send it."""
    ts = now_ms()
    rec = record(0, 0, struct.pack(">hh", 0, 1), struct.pack(">hi", 0, 0))
    return record_batch(rec, 1, ts, ts, ATTR_CONTROL | ATTR_TRANSACTIONAL, producer_id=pid,
                        producer_epoch=epoch)


def init_producer_id(conn):
    resp = conn.call(API_INIT_PRODUCER_ID, 1, struct.pack(">hi", -1, 60000))
    _throttle, err, pid, epoch = struct.unpack(">ihqh", resp[:16])
    expect("InitProducerId error", err, NONE)
    return pid, epoch


def produce_result(conn, topic, records):
    """Produce v3, acks=-1, partition 0: (error, base offset)."""
    body = struct.pack(">hhi", -1, -1, 30000) + struct.pack(">i", 1) + string(topic)
    body += struct.pack(">iii", 1, 0, len(records)) + records
    r = Reader(conn.call(API_PRODUCE, 3, body))
    expect("Produce topics", r.i32(), 1)
    r.str()
    expect("Produce partitions", r.i32(), 1)
    _index, err, base = r.i32(), r.i16(), r.i64()
    return err, base


def fetch_body(topic, offset, isolation, max_wait_ms=0, min_bytes=0):
    w = Writer()
    w.i32(-1).i32(max_wait_ms).i32(min_bytes).i32(1 << 20).i8(isolation)
    w.arr([topic], lambda w, t: w.str(t).arr([0], lambda w, p: w.i32(p).i64(offset).i32(1 << 20)))
    return bytes(w.data)


def parse_fetch(data):
    """Fetch v4 response for one partition: dict of its fields."""
    r = Reader(data)
    r.i32()  # throttle
    expect("Fetch topics", r.i32(), 1)
    r.str()
    expect("Fetch partitions", r.i32(), 1)
    out = {"partition": r.i32(), "error": r.i16(), "hw": r.i64(), "lso": r.i64()}
    out["aborted"] = r.arr(lambda r: (r.i64(), r.i64()))
    size = r.i32()
    out["records"] = r.take(size) if size > 0 else b""
    return out


def fetch(conn, topic, offset, isolation):
    return parse_fetch(conn.call(API_FETCH, 4, fetch_body(topic, offset, isolation)))


def batch_offsets(records):
    """[(base offset, attributes)] of the batches in records."""
    out, pos = [], 0
    while pos + 61 <= len(records):
        base, length = struct.unpack(">qi", records[pos:pos + 12])
        (attrs,) = struct.unpack(">h", records[pos + 21:pos + 23])
        out.append((base, attrs))
        pos += 12 + length
    return out


def list_latest(conn, topic, isolation):
    w = Writer().i32(-1).i8(isolation)
    w.arr([topic], lambda w, t: w.str(t).arr([0], lambda w, p: w.i32(p).i64(-1)))
    r = Reader(conn.call(API_LIST_OFFSETS, 2, bytes(w.data)))
    r.i32()
    expect("ListOffsets topics", r.i32(), 1)
    r.str()
    expect("ListOffsets partitions", r.i32(), 1)
    _p, err, _ts, offset = r.i32(), r.i16(), r.i64(), r.i64()
    expect("ListOffsets error", err, NONE)
    return offset


def markers_body(markers, version):
    """markers: [(pid, epoch, commit, [(topic, [partitions])], coordinator epoch)]."""
    w = Writer(flexible=version >= 1)

    def topic(w, t):
        w.str(t[0]).arr(t[1], lambda w, p: w.i32(p)).tags()

    def marker(w, m):
        pid, epoch, commit, topics, coordinator_epoch = m
        w.i64(pid).i16(epoch).i8(1 if commit else 0).arr(topics, topic).i32(coordinator_epoch)
        w.tags()

    w.arr(markers, marker).tags()
    return bytes(w.data)


def write_markers(conn, markers, version=1):
    """Returns {(pid, topic, partition): error}."""
    flexible = version >= 1
    data = conn.call(API_WRITE_TXN_MARKERS, version, markers_body(markers, version), flexible)
    r = Reader(data[1:] if flexible else data, flexible)
    out = {}

    def partition(r, pid, name):
        index, err = r.i32(), r.i16()
        r.tags()
        out[(pid, name, index)] = err

    def topic(r, pid):
        name = r.str()
        r.arr(lambda r: partition(r, pid, name))
        r.tags()

    def marker(r):
        pid = r.i64()
        r.arr(lambda r: topic(r, pid))
        r.tags()

    r.arr(marker)
    return out


def restarted(conn, topic):
    f = fetch(conn, topic, 0, READ_COMMITTED)
    expect("restarted: error", f["error"], NONE)
    expect("restarted: lso", f["lso"], f["hw"])
    expect("restarted: aborted transactions", len(f["aborted"] or []), 1)


def main():
    host, port, topic = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    conn = kafka_wire.Connection(host, port, "txn-markers-raw", WAIT_S)
    if len(sys.argv) > 4 and sys.argv[4] == "restarted":
        restarted(conn, topic)
        print("txn_markers_raw: ok")
        return
    pid, epoch = init_producer_id(conn)

    # An open transaction holds read_committed readers at its first offset.
    err, first = produce_result(conn, topic, data_batch(pid, epoch, 0, [b"a", b"b"]))
    expect("transactional produce", err, NONE)
    f = fetch(conn, topic, first, READ_UNCOMMITTED)
    expect("read_uncommitted error", f["error"], NONE)
    expect("read_uncommitted hw", f["hw"], first + 2)
    expect("read_uncommitted lso", f["lso"], first)
    expect("read_uncommitted aborted list", f["aborted"], None)
    expect("read_uncommitted batches", batch_offsets(f["records"]), [(first, ATTR_TRANSACTIONAL)])
    f = fetch(conn, topic, first, READ_COMMITTED)
    expect("read_committed error", f["error"], NONE)
    expect("read_committed lso", f["lso"], first)
    expect("read_committed records while open", f["records"], b"")
    expect("read_committed aborted list (empty, not null)", f["aborted"], [])
    expect("ListOffsets latest, read_committed", list_latest(conn, topic, READ_COMMITTED), first)
    expect("ListOffsets latest, read_uncommitted", list_latest(conn, topic, READ_UNCOMMITTED),
           first + 2)

    err, _ = produce_result(conn, topic, data_batch(pid, epoch, 2, [b"plain"], False))
    expect("plain data inside a transaction", err, INVALID_TXN_STATE)
    err, _ = produce_result(conn, topic, control_batch(pid, epoch))
    expect("a control batch from a client", err, INVALID_RECORD)

    # Abort it, with bad partitions in the same request.
    got = write_markers(conn, [(pid, epoch, False, [(topic, [0, 99]), ("no-such-topic", [0])], 5)])
    expect("ABORT marker", got.get((pid, topic, 0)), NONE)
    expect("unknown partition", got.get((pid, topic, 99)), UNKNOWN_TOPIC_OR_PARTITION)
    expect("unknown topic", got.get((pid, "no-such-topic", 0)), UNKNOWN_TOPIC_OR_PARTITION)
    f = fetch(conn, topic, first, READ_COMMITTED)
    expect("after abort: lso", f["lso"], first + 3)
    expect("after abort: aborted list", f["aborted"], [(pid, first)])
    expect("after abort: batches", batch_offsets(f["records"]),
           [(first, ATTR_TRANSACTIONAL), (first + 2, ATTR_TRANSACTIONAL | ATTR_CONTROL)])
    f = fetch(conn, topic, first + 3, READ_COMMITTED)
    expect("past the abort: aborted list", f["aborted"], [])

    # Fencing: an older coordinator, an older producer epoch (v0 request).
    got = write_markers(conn, [(pid, epoch, True, [(topic, [0])], 4)], version=0)
    expect("older coordinator epoch", got.get((pid, topic, 0)), TRANSACTION_COORDINATOR_FENCED)
    got = write_markers(conn, [(pid, epoch + 1, False, [(topic, [0])], 5)])
    expect("marker bumping the epoch", got.get((pid, topic, 0)), NONE)
    got = write_markers(conn, [(pid, epoch, False, [(topic, [0])], 5)])
    expect("older producer epoch", got.get((pid, topic, 0)), INVALID_PRODUCER_EPOCH)
    epoch += 1

    # A read_committed fetch waiting at the LSO is answered by the COMMIT.
    err, second = produce_result(conn, topic, data_batch(pid, epoch, 0, [b"c"]))
    expect("second transaction", err, NONE)
    waiter = kafka_wire.Connection(host, port, "txn-markers-waiter", WAIT_S)
    corr = waiter.send(API_FETCH, 4, fetch_body(topic, second, READ_COMMITTED, LONG_POLL_MS, 1))
    got = write_markers(conn, [(pid, epoch, True, [(topic, [0])], 5)])
    expect("COMMIT marker", got.get((pid, topic, 0)), NONE)
    got_corr, data = waiter.receive()
    expect("waiting fetch's correlation id", got_corr, corr)
    f = parse_fetch(data)
    expect("after commit: lso", f["lso"], second + 2)
    expect("after commit: aborted list", f["aborted"], [])
    expect("after commit: batches", batch_offsets(f["records"]),
           [(second, ATTR_TRANSACTIONAL), (second + 1, ATTR_TRANSACTIONAL | ATTR_CONTROL)])
    waiter.close()
    conn.close()
    print("txn_markers_raw: ok")


if __name__ == "__main__":
    main()
