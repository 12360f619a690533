#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fetch sessions (KIP-227) over a raw socket (standard library only;
requests and parsers written from Kafka's message schemas, the encoders in
kafka_wire.py), with topics by name (Fetch v12) and by id (v13):

 - a full fetch with epoch 0 opens a session (a non-zero id);
 - an incremental fetch naming no partitions waits (long poll) and gets the
   record produced meanwhile, in that partition only;
 - a partition named in an incremental fetch with nothing new is left out
   of the answer (as Kafka does); one forgotten is no longer answered; one
   whose high watermark moved is;
 - the wrong epoch is INVALID_FETCH_SESSION_EPOCH, an unknown id
   FETCH_SESSION_ID_NOT_FOUND, a v12 fetch in a v13 session
   FETCH_SESSION_TOPIC_ID_ERROR (each with session id 0);
 - epoch -1 closes the session.

Usage: fetch_sessions_raw.py HOST PORT TOPIC
(TOPIC: an empty topic of three partitions.)
Exit status 0 when every check passed, 1 otherwise (each failure on stderr).
"""
import sys
import time

import kafka_wire
from kafka_wire import Reader, Writer

NONE = 0
FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH = 70, 71
FETCH_SESSION_TOPIC_ID_ERROR = 106
API_PRODUCE, API_FETCH, API_METADATA = 0, 1, 3
TIMEOUT_S = 20
LONG_POLL_MS = 15000  # far longer than the test: the produce must wake the fetch

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what, file=sys.stderr)
    return cond


def call(conn, api, version, w):
    r = Reader(conn.call(api, version, bytes(w.data), True), True)
    r.tags()
    return r


def topic_id_of(conn, topic):
    """The topic's id, from Metadata v12."""
    w = Writer(True)
    w.arr([topic], lambda w, t: w.uuid(bytes(16)).str(t).tags())
    w.i8(0).i8(0).tags()
    r = call(conn, API_METADATA, 12, w)
    r.i32()
    r.arr(lambda r: (r.i32(), r.str(), r.i32(), r.str(), r.tags()))
    r.str(), r.i32()

    def part(r):
        r.i16(), r.i32(), r.i32(), r.i32()
        for _ in range(3):
            r.arr(lambda r: r.i32())
        r.tags()

    def top(r):
        r.i16()
        name, tid = r.str(), r.uuid()
        r.bool()
        r.arr(part)
        r.i32()
        r.tags()
        return name, tid

    return dict(r.arr(top))[topic]


def produce(conn, topic, partition, value):
    """One record to the partition (Produce v9, acks=1)."""
    now = int(time.time() * 1000)
    data = kafka_wire.record_batch(kafka_wire.record(0, 0, None, value), 1, now, now)
    w = Writer(True)
    w.uvar(0).i16(1).i32(5000)

    def part(w, _):
        w.i32(partition).uvar(len(data) + 1)
        w.data += data
        w.tags()

    w.arr([0], lambda w, _: w.str(topic).arr([0], part).tags()).tags()
    r = call(conn, API_PRODUCE, 9, w)

    def part_out(r):
        r.i32()
        err = r.i16()
        r.i64(), r.i64(), r.i64()
        r.arr(lambda r: (r.i32(), r.str(), r.tags()))
        r.str()
        r.tags()
        return err

    err = r.arr(lambda r: (r.str(), r.arr(part_out), r.tags())[1][0])[0]
    check(err == NONE, "producing to %s-%d: error %d" % (topic, partition, err))


class Session:
    """Builds Fetch requests of one version; topic is a name (v12) or an id (v13)."""

    def __init__(self, conn, version, topic):
        self.conn, self.version, self.topic = conn, version, topic

    def key(self, w, t):
        return w.uuid(t) if self.version >= 13 else w.str(t)

    def request(self, session_id, epoch, offsets, forget=(), max_wait=0):
        """offsets: {partition: fetch offset}; forget: partitions to drop."""
        w = Writer(True)
        w.i32(-1).i32(max_wait).i32(1).i32(1 << 20).i8(0).i32(session_id).i32(epoch)

        def part(w, p):
            w.i32(p).i32(-1).i64(offsets[p]).i32(-1).i64(-1).i32(1 << 20).tags()

        topics = [self.topic] if offsets else []
        w.arr(topics, lambda w, t: self.key(w, t).arr(sorted(offsets), part).tags())
        forgotten = [self.topic] if forget else []
        w.arr(forgotten, lambda w, t: self.key(w, t).arr(list(forget), lambda w, p: w.i32(p)).tags())
        w.str("").tags()
        return w

    def parse(self, r):
        """(error, session id, {partition: (error, high watermark, record bytes)})."""
        r.i32()
        err, session_id = r.i16(), r.i32()

        def part(r):
            idx, perr, hw = r.i32(), r.i16(), r.i64()
            r.i64(), r.i64()
            r.arr(lambda r: (r.i64(), r.i64(), r.tags()))
            r.i32()
            n = r.uvar() - 1
            records = r.take(n) if n > 0 else b""
            r.tags()
            return idx, (perr, hw, len(records))

        parts = {}
        for name, got in r.arr(lambda r: (self.key_read(r), r.arr(part), r.tags())[:2]):
            check(name == self.topic, "v%d: response names another topic" % self.version)
            parts.update(dict(got))
        r.tags()
        return err, session_id, parts

    def key_read(self, r):
        return r.uuid() if self.version >= 13 else r.str()

    def fetch(self, *args, **kw):
        return self.parse(call(self.conn, API_FETCH, self.version, self.request(*args, **kw)))

    def send(self, *args, **kw):
        w = self.request(*args, **kw)
        return self.conn.send(API_FETCH, self.version, bytes(w.data), True)

    def receive(self, want):
        got, data = self.conn.receive()
        check(got == want, "v%d: response to request %d, want %d" % (self.version, got, want))
        r = Reader(data, True)
        r.tags()
        return self.parse(r)


def check_session(host, port, topic, version, topic_key):
    v = "v%d" % version
    fetcher = kafka_wire.Connection(host, port, "fetch-sessions", TIMEOUT_S)
    producer = kafka_wire.Connection(host, port, "fetch-sessions-producer", TIMEOUT_S)
    s = Session(fetcher, version, topic_key)
    # Start where the log ends (one record each, from the caller's produce).
    base = {p: s.fetch(0, -1, {0: 0, 1: 0, 2: 0})[2][p][1] for p in (0, 1, 2)}
    err, sid, parts = s.fetch(0, 0, dict(base))
    check(err == NONE and sid != 0, "%s full fetch, epoch 0: error %d session id %d" % (v, err, sid))
    check(sorted(parts) == [0, 1, 2], "%s full fetch answers every partition: %s" % (v, parts))

    # Long poll in the session: waits, then carries only the partition produced to.
    want = s.send(sid, 1, {}, max_wait=LONG_POLL_MS)
    produce(producer, topic, 1, b"new-1")
    err, got_sid, parts = s.receive(want)
    check(err == NONE and got_sid == sid, "%s incremental fetch: error %d session %d" % (v, err, got_sid))
    check(list(parts) == [1] and parts[1][2] > 0 and parts[1][1] == base[1] + 1,
          "%s incremental fetch with no partitions gets partition 1's new record only: %s" % (v, parts))

    # Named with a new offset but nothing new: left out, as Kafka does.
    err, _, parts = s.fetch(sid, 2, {1: base[1] + 1})
    check(err == NONE and parts == {},
          "%s incremental fetch leaves out a named partition with no news: %s" % (v, parts))

    # Forgotten: no longer answered, even with news; a high watermark move is.
    err, _, parts = s.fetch(sid, 3, {}, forget=[2])
    check(err == NONE and parts == {}, "%s forgetting partition 2: %s" % (v, parts))
    produce(producer, topic, 2, b"new-2")
    produce(producer, topic, 0, b"new-0")
    err, _, parts = s.fetch(sid, 4, {})
    check(err == NONE and list(parts) == [0] and parts[0][1] == base[0] + 1,
          "%s after forgetting 2, only partition 0 has news: %s" % (v, parts))

    err, got_sid, _ = s.fetch(sid, 4, {})
    check(err == INVALID_FETCH_SESSION_EPOCH and got_sid == 0,
          "%s the wrong epoch: error %d session %d" % (v, err, got_sid))
    err, got_sid, _ = s.fetch(sid ^ 0x5A5A, 1, {})
    check(err == FETCH_SESSION_ID_NOT_FOUND and got_sid == 0,
          "%s an unknown session: error %d session %d" % (v, err, got_sid))
    if version >= 13:
        err, _, _ = Session(fetcher, 12, topic).fetch(sid, 5, {})
        check(err == FETCH_SESSION_TOPIC_ID_ERROR, "v12 in a v13 session: error %d" % err)

    # Epoch -1 closes it: answered sessionless, then the id is gone.
    err, got_sid, parts = s.fetch(sid, -1, {0: 0})
    check(err == NONE and got_sid == 0 and list(parts) == [0],
          "%s epoch -1: error %d session %d %s" % (v, err, got_sid, parts))
    err, _, _ = s.fetch(sid, 5, {})
    check(err == FETCH_SESSION_ID_NOT_FOUND, "%s a closed session: error %d" % (v, err))
    fetcher.close()
    producer.close()


def main():
    host, port, topic = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with kafka_wire.Connection(host, port, "fetch-sessions-setup", TIMEOUT_S) as conn:
        for p in (0, 1, 2):
            produce(conn, topic, p, b"first")
        topic_id = topic_id_of(conn, topic)
    check_session(host, port, topic, 12, topic)
    check_session(host, port, topic, 13, topic_id)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
