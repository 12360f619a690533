#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ShareFetch (78) and ShareAcknowledge (79) on a partition leader over raw
sockets (KIP-932), requests built by hand at v1, standard library only. No
group membership is needed: the leader does not check it (as Kafka's).

- two share sessions of one group acquire distinct records of one partition;
- a RELEASE makes records available again: the other member gets them with
  delivery count 2; a REJECT archives them (acknowledging them again is
  INVALID_RECORD_STATE), as is acknowledging records another member holds;
- session epochs: a wrong one is INVALID_SHARE_SESSION_EPOCH, an unknown
  member SHARE_SESSION_NOT_FOUND, acknowledgements with epoch 0
  INVALID_REQUEST, ShareAcknowledge with epoch 0
  INVALID_SHARE_SESSION_EPOCH, and -1 closes the session;
- a long-polling ShareFetch is answered by a produce.

Usage: share_fetch_raw.py HOST PORT TOPIC (TOPIC has 1 partition, empty)
Exit status 0 when every check holds, 1 otherwise (the reason on stderr).
"""
import sys
import time

import kafka_wire
from kafka_wire import Reader, Writer

API_PRODUCE, API_METADATA, API_SHARE_FETCH, API_SHARE_ACK = 0, 3, 78, 79
NONE, INVALID_REQUEST, INVALID_RECORD_STATE = 0, 42, 121
SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH = 122, 123
ACCEPT, RELEASE, REJECT = 1, 2, 3
GROUP = "share_raw_group"
DEADLINE_S = 30


def fail(msg):
    sys.stderr.write("share_fetch_raw: %s\n" % msg)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


class Conn(kafka_wire.Connection):
    def __init__(self, host, port):
        super().__init__(host, port, "share_raw", 30)

    def call(self, api, version, body, flexible=True):
        r = Reader(super().call(api, version, body.data, flexible), flexible)
        r.tags()
        return r

    def send_only(self, api, version, body):
        return self.send(api, version, body.data, True)

    def receive_reader(self):
        _, data = self.receive()
        r = Reader(data, True)
        r.tags()
        return r


def topic_id(c, topic):
    """Creates topic by Metadata (auto.create.topics.enable) and returns its id."""
    end = time.time() + DEADLINE_S
    while True:
        err, tid = metadata(c, topic)
        if err == NONE and tid != b"\0" * 16:
            return tid
        if time.time() > end:
            fail("topic %s: metadata error %d" % (topic, err))
        time.sleep(0.1)


def metadata(c, topic):
    w = Writer(True)
    w.arr([topic], lambda w, t: w.uuid(b"\0" * 16).str(t).tags()).i8(1).i8(0).tags()
    r = c.call(API_METADATA, 12, w)
    r.i32()
    r.arr(lambda r: (r.i32(), r.str(), r.i32(), r.str(), r.tags()))
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
        return err, tid

    return r.arr(topic_out)[0]


def produce(c, topic, values):
    """One batch of values on partition 0; returns its base offset."""
    recs = b"".join(kafka_wire.record(i, 0, None, v) for i, v in enumerate(values))
    now = int(time.time() * 1000)
    data = kafka_wire.record_batch(recs, len(values), now, now)
    w = Writer(True)
    w.uvar(0).i16(-1).i32(5000)

    def part(w, _):
        w.i32(0).uvar(len(data) + 1)
        w.data += data
        w.tags()

    w.arr([0], lambda w, _: w.str(topic).arr([0], part).tags()).tags()
    r = c.call(API_PRODUCE, 9, w)

    def part_out(r):
        r.i32()
        err, base = r.i16(), r.i64()
        r.i64(), r.i64()
        r.arr(lambda r: (r.i32(), r.str(), r.tags()))
        r.str()
        r.tags()
        return err, base

    err, base = r.arr(lambda r: (r.str(), r.arr(part_out), r.tags())[1][0])[0]
    expect("produce error", err, NONE)
    return base


def acks_writer(w, acks):
    """acks: [(first, last, type)]."""
    w.arr(acks, lambda w, a: w.i64(a[0]).i64(a[1]).arr([a[2]], lambda w, t: w.i8(t)).tags())


def share_fetch_body(member, epoch, tid, acks=(), max_wait=0, max_records=500,
                     forget=False):
    w = Writer(True)
    w.str(GROUP).str(member).i32(epoch).i32(max_wait).i32(1).i32(1 << 20)
    w.i32(max_records).i32(max_records)

    def part(w, _):
        w.i32(0)
        acks_writer(w, list(acks))
        w.tags()

    w.arr([tid], lambda w, t: w.uuid(t).arr([0], part).tags())
    w.arr([tid] if forget else [], lambda w, t: w.uuid(t).arr([0], lambda w, p: w.i32(p)).tags())
    w.tags()
    return w


def read_share_fetch(r):
    """Returns (error, {partition: (error, ack error, records bytes, [(first, last, count)])})."""
    r.i32()
    err = r.i16()
    r.str()
    r.i32()

    def part(r):
        idx, perr = r.i32(), r.i16()
        r.str()
        aerr = r.i16()
        r.str()
        r.i32(), r.i32()
        r.tags()
        n = r.uvar() - 1
        records = r.take(n) if n > 0 else b""
        acquired = r.arr(lambda r: (r.i64(), r.i64(), r.i16(), r.tags())[:3])
        r.tags()
        return idx, (perr, aerr, records, acquired)

    parts = {}
    for tparts in r.arr(lambda r: (r.uuid(), r.arr(part), r.tags())[1]) or []:
        parts.update(dict(tparts))
    r.arr(lambda r: (r.i32(), r.str(), r.i32(), r.str(), r.tags()))
    r.tags()
    return err, parts


def share_fetch(c, member, epoch, tid, **kw):
    return read_share_fetch(c.call(API_SHARE_FETCH, 1, share_fetch_body(member, epoch, tid, **kw)))


def share_ack(c, member, epoch, tid, acks):
    """Returns (error, partition 0's error or None)."""
    w = Writer(True)
    w.str(GROUP).str(member).i32(epoch)

    def part(w, _):
        w.i32(0)
        acks_writer(w, acks)
        w.tags()

    w.arr([tid], lambda w, t: w.uuid(t).arr([0], part).tags()).tags()
    r = c.call(API_SHARE_ACK, 1, w)
    r.i32()
    err = r.i16()
    r.str()

    def part_out(r):
        idx, perr = r.i32(), r.i16()
        r.str()
        r.i32(), r.i32()
        r.tags()
        r.tags()
        return perr

    tops = r.arr(lambda r: (r.uuid(), r.arr(part_out), r.tags())[1]) or []
    r.arr(lambda r: (r.i32(), r.str(), r.i32(), r.str(), r.tags()))
    r.tags()
    return err, (tops[0][0] if tops else None)


class Member:
    """A share session of GROUP: its member id and next epoch."""

    def __init__(self, c, name, tid):
        self.c, self.name, self.tid, self.epoch = c, name, tid, 0

    def fetch(self, acks=(), **kw):
        err, parts = share_fetch(self.c, self.name, self.epoch, self.tid, acks=acks, **kw)
        expect("%s ShareFetch epoch %d" % (self.name, self.epoch), err, NONE)
        self.epoch += 1
        perr, aerr, records, acquired = parts.get(0, (NONE, NONE, b"", []))
        expect("%s fetch partition error" % self.name, perr, NONE)
        return aerr, records, acquired

    def ack(self, acks):
        err, perr = share_ack(self.c, self.name, self.epoch, self.tid, acks)
        expect("%s ShareAcknowledge epoch %d" % (self.name, self.epoch), err, NONE)
        self.epoch += 1
        return perr


def warm_up(c, a, topic):
    """The share-partition starts at the high watermark once its state is
    initialized: produce probes until one is delivered, then accept all."""
    end = time.time() + DEADLINE_S
    while time.time() < end:
        produce(c, topic, [b"probe"])
        _, _, acquired = a.fetch(max_wait=500)
        if acquired:
            expect("accept probes", a.ack([(acquired[0][0], acquired[-1][1], ACCEPT)]), NONE)
            return
    fail("no probe record was ever acquired")


def main():
    host, port, topic = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    c = Conn(host, port)
    tid = topic_id(c, topic)
    a = Member(Conn(host, port), "member-a", tid)
    b = Member(Conn(host, port), "member-b", tid)
    a.fetch()
    warm_up(c, a, topic)

    # Two sessions acquire distinct records: one batch each.
    x = produce(c, topic, [b"x0", b"x1", b"x2"])
    y = produce(c, topic, [b"y0", b"y1", b"y2"])
    _, records, got_a = a.fetch(max_records=3)
    expect("member-a acquired", got_a, [(x, x + 2, 1)])
    if b"x1" not in records or b"y1" in records:
        fail("member-a's records are not exactly batch x")
    _, _, got_b = b.fetch(max_records=3)
    expect("member-b acquired", got_b, [(y, y + 2, 1)])

    # Acknowledging what the other member holds: INVALID_RECORD_STATE.
    expect("member-a acknowledges member-b's", a.ack([(y, y + 2, ACCEPT)]), INVALID_RECORD_STATE)
    # Released records come back with delivery count 2, to the other member;
    # rejected ones are archived: no longer acknowledgeable (x, still in
    # flight before them, keeps them in the share-partition's window).
    expect("member-a releases", a.ack([(x, x + 2, RELEASE)]), NONE)
    aerr, records, got_b = b.fetch(acks=[(y, y + 2, REJECT)])
    expect("ack error of member-b's reject", aerr, NONE)
    expect("redelivered to member-b", got_b, [(x, x + 2, 2)])
    if b"x1" not in records:
        fail("member-b's redelivery carries no batch x")
    expect("acknowledge archived", b.ack([(y, y, ACCEPT)]), INVALID_RECORD_STATE)
    expect("member-b accepts", b.ack([(x, x + 2, ACCEPT)]), NONE)

    # Session epochs.
    err, _ = share_fetch(a.c, a.name, a.epoch + 5, tid)
    expect("wrong epoch", err, INVALID_SHARE_SESSION_EPOCH)
    err, _ = share_fetch(a.c, "member-unknown", 3, tid)
    expect("unknown member", err, SHARE_SESSION_NOT_FOUND)
    err, _ = share_fetch(a.c, "member-c", 0, tid, acks=[(x, x, ACCEPT)])
    expect("acknowledgements with epoch 0", err, INVALID_REQUEST)
    err, _ = share_ack(a.c, a.name, 0, tid, [(x, x, ACCEPT)])
    expect("ShareAcknowledge with epoch 0", err, INVALID_SHARE_SESSION_EPOCH)

    # A long poll answered by a produce.
    a.c.send_only(API_SHARE_FETCH, 1, share_fetch_body(a.name, a.epoch, tid, max_wait=20000))
    z = produce(c, topic, [b"z0"])
    err, parts = read_share_fetch(a.c.receive_reader())
    a.epoch += 1
    expect("long poll error", err, NONE)
    expect("long poll acquired", parts[0][3], [(z, z, 1)])

    # -1 closes: member-b's session is gone afterwards.
    err, perr = share_ack(b.c, b.name, -1, tid, [])
    expect("close member-b", (err, perr), (NONE, NONE))
    err, _ = share_fetch(b.c, b.name, b.epoch, tid)
    expect("member-b after close", err, SHARE_SESSION_NOT_FOUND)
    print("share_fetch_raw: ok")


if __name__ == "__main__":
    main()
