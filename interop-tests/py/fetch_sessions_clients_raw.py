#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fetch sessions (KIP-227) driven as each client that uses them drives
them, over a raw socket (standard library only; helpers in
fetch_sessions_raw.py and kafka_wire.py):

 - the Java client (FetchSessionHandler, consumer 3.8: Fetch v16, topics by
   id): a full fetch opens a session; incremental fetches name only the
   partitions whose offset moved, and such a partition with nothing new is
   left out of the answer; after INVALID_FETCH_SESSION_EPOCH it sends the
   session id with epoch 0, which closes that session and opens another;
   partitions it no longer fetches are forgotten, and a session left empty
   is closed (answered with session id 0); it closes a session with epoch
   -1 and no partitions; a session's partition of a topic deleted is
   UNKNOWN_TOPIC_OR_PARTITION, INCONSISTENT_TOPIC_ID once the topic is
   created again under a new id (the session knows the name, as Kafka's
   does), an id never known UNKNOWN_TOPIC_ID; the client's next fetch adds
   the new id and forgets the old one in one request;
 - franz-go (kgo source.go: Fetch v18, LastFetchedEpoch and LogStartOffset
   -1, forgotten topics by id): the same sequence, a stale session id sent
   with epoch 0, and, once it gives sessions up, sessionless fetches with
   session id 0 and epoch -1;
 - the fetch order (names, v12, the shape of Gregor's own followers): with
   a response too small for every partition's records, the partition that
   got records goes to the back, so the others get theirs next (Kafka's
   fairness), instead of one busy partition being read until it is drained;
 - a fetch that waited while a later request of its session was served is
   answered INVALID_FETCH_SESSION_EPOCH, as Kafka answers a duplicate.

Usage: fetch_sessions_clients_raw.py HOST PORT SESSIONS FAIR RECREATED
(SESSIONS: a topic of three partitions; FAIR: an empty one of three;
RECREATED: an empty one of one partition, deleted and created again here.)
Exit status 0 when every check passed, 1 otherwise (each failure on stderr).
"""
import sys
import time

import fetch_sessions_raw as fs
import kafka_wire
from kafka_wire import Reader, Writer

check = fs.check
NONE, UNKNOWN_TOPIC_OR_PARTITION = 0, 3
FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH = 70, 71
UNKNOWN_TOPIC_ID, INCONSISTENT_TOPIC_ID = 100, 103
API_FETCH, API_CREATE_TOPICS, API_DELETE_TOPICS = 1, 19, 20
JAVA_VERSION, FRANZ_VERSION, NAMES_VERSION = 16, 18, 12
LONG_POLL_MS = 15000


# How long the overtaken fetch is given to be parked before the next one goes.
OVERTAKE_AFTER_S = 0.5


def fetch_request(version, sid, epoch, topics, forgotten, max_bytes, max_wait):
    """topics: [(key, {partition: offset})]; forgotten: [(key, [partition])]."""
    key = (lambda w, k: w.uuid(k)) if version >= 13 else (lambda w, k: w.str(k))
    w = Writer(True)
    if version < 15:
        w.i32(-1)  # replica id; a tagged ReplicaState from v15, absent for consumers
    w.i32(max_wait).i32(1).i32(max_bytes).i8(0).i32(sid).i32(epoch)

    def topic(w, t):
        k, offsets = t

        def part(w, p):
            # current leader epoch -1, last fetched epoch -1, log start -1 (consumers)
            w.i32(p).i32(-1).i64(offsets[p]).i32(-1).i64(-1).i32(1 << 20).tags()

        key(w, k).arr(sorted(offsets), part).tags()

    w.arr(topics, topic)
    w.arr(forgotten, lambda w, f: key(w, f[0]).arr(list(f[1]), lambda w, p: w.i32(p)).tags())
    w.str("").tags()
    return w


def fetch_parse(version, r):
    """(error, session id, [((key, partition), (error, high watermark, record bytes))])."""
    r.i32()
    err, sid = r.i16(), r.i32()

    def part(r):
        idx, perr, hw = r.i32(), r.i16(), r.i64()
        r.i64(), r.i64()
        r.arr(lambda r: (r.i64(), r.i64(), r.tags()))
        r.i32()
        n = r.uvar() - 1
        records = r.take(n) if n > 0 else b""
        r.tags()
        return idx, (perr, hw, len(records))

    def topic(r):
        k = r.uuid() if version >= 13 else r.str()
        parts = r.arr(part)
        r.tags()
        return [((k, p), v) for p, v in parts]

    got = [x for t in r.arr(topic) for x in t]
    r.tags()
    return err, sid, got


class Client:
    """One connection fetching at one version."""

    def __init__(self, host, port, version, name):
        self.conn = kafka_wire.Connection(host, port, name, fs.TIMEOUT_S)
        self.version = version

    def fetch(self, sid, epoch, topics=(), forgotten=(), max_bytes=1 << 20, max_wait=0):
        """(error, session id, {(key, partition): (error, hw, record bytes)})."""
        w = fetch_request(self.version, sid, epoch, list(topics), list(forgotten), max_bytes, max_wait)
        err, sid, got = fetch_parse(self.version, fs.call(self.conn, API_FETCH, self.version, w))
        return err, sid, dict(got)

    def send(self, sid, epoch, max_wait):
        w = fetch_request(self.version, sid, epoch, [], [], 1 << 20, max_wait)
        return self.conn.send(API_FETCH, self.version, bytes(w.data), True)

    def receive(self, want):
        got, data = self.conn.receive()
        check(got == want, "response to request %d, want %d" % (got, want))
        r = Reader(data, True)
        r.tags()
        err, sid, parts = fetch_parse(self.version, r)
        return err, sid, dict(parts)

    def close(self):
        self.conn.close()


def log_ends(client, key, partitions):
    """Each partition's high watermark, from a sessionless fetch."""
    _, _, got = client.fetch(0, -1, [(key, {p: 0 for p in partitions})])
    return {p: got[(key, p)][1] for p in partitions}


def java_consumer(host, port, topic, tid, producer):
    j = Client(host, port, JAVA_VERSION, "java-shaped")
    ends = log_ends(j, tid, (0, 1, 2))
    err, sid, got = j.fetch(0, 0, [(tid, dict(ends))])
    check(err == NONE and sid != 0 and len(got) == 3,
          "java: full fetch opens a session with every partition: %d %d %s" % (err, sid, got))
    fs.produce(producer, topic, 0, b"java-0")
    err, _, got = j.fetch(sid, 1)
    check(err == NONE and list(got) == [(tid, 0)] and got[(tid, 0)][2] > 0,
          "java: an incremental fetch naming nothing gets partition 0's record: %s" % got)
    err, _, got = j.fetch(sid, 2, [(tid, {0: ends[0] + 1})])
    check(err == NONE and got == {},
          "java: the partition whose offset moved, with nothing new, is left out (Kafka): %s" % got)

    err, got_sid, _ = j.fetch(sid, 7)
    check(err == INVALID_FETCH_SESSION_EPOCH and got_sid == 0, "java: a wrong epoch: %d" % err)
    # nextCloseExistingAttemptNew: the old id with epoch 0 and every partition.
    ends[0] += 1
    err, sid2, got = j.fetch(sid, 0, [(tid, dict(ends))])
    check(err == NONE and sid2 not in (0, sid) and len(got) == 3,
          "java: session id with epoch 0 opens another session: %d %d %s" % (err, sid2, got))
    err, _, _ = j.fetch(sid, 3)
    check(err == FETCH_SESSION_ID_NOT_FOUND, "java: epoch 0 closed the old session: %d" % err)

    # Partitions revoked: forgotten; the last one gone closes the session.
    err, got_sid, got = j.fetch(sid2, 1, forgotten=[(tid, [1, 2])])
    check(err == NONE and got_sid == sid2 and got == {},
          "java: forgetting two partitions: %d %d %s" % (err, got_sid, got))
    err, got_sid, got = j.fetch(sid2, 2, forgotten=[(tid, [0])])
    check(err == NONE and got_sid == 0 and got == {},
          "java: a session left empty is closed, session id 0 (Kafka): %d %d %s" % (err, got_sid, got))
    err, _, _ = j.fetch(sid2, 3)
    check(err == FETCH_SESSION_ID_NOT_FOUND, "java: the emptied session is gone: %d" % err)

    # Consumer close: epoch -1 and no partitions.
    _, sid3, _ = j.fetch(0, 0, [(tid, dict(ends))])
    err, got_sid, got = j.fetch(sid3, -1)
    check(err == NONE and got_sid == 0 and got == {},
          "java: closing with epoch -1: %d %d %s" % (err, got_sid, got))
    err, _, _ = j.fetch(sid3, 1)
    check(err == FETCH_SESSION_ID_NOT_FOUND, "java: the closed session is gone: %d" % err)
    j.close()


def franz_go(host, port, topic, tid, producer):
    f = Client(host, port, FRANZ_VERSION, "franz-go-shaped")
    ends = log_ends(f, tid, (0, 1, 2))
    err, sid, got = f.fetch(0, 0, [(tid, dict(ends))])
    check(err == NONE and sid != 0 and len(got) == 3, "franz-go: full fetch: %d %d %s" % (err, sid, got))
    want = f.send(sid, 1, LONG_POLL_MS)
    fs.produce(producer, topic, 1, b"franz-1")
    err, _, got = f.receive(want)
    check(err == NONE and list(got) == [(tid, 1)] and got[(tid, 1)][2] > 0,
          "franz-go: the long poll gets partition 1's record only: %s" % got)
    err, _, got = f.fetch(sid, 2, [(tid, {1: ends[1] + 1})], forgotten=[(tid, [2])])
    check(err == NONE and got == {}, "franz-go: moved offset and a forgotten partition: %s" % got)
    fs.produce(producer, topic, 2, b"franz-2")
    err, _, got = f.fetch(sid, 3)
    check(err == NONE and got == {}, "franz-go: a forgotten partition's news is not sent: %s" % got)
    # After a reset it sends its old id with epoch 0.
    err, sid2, got = f.fetch(sid, 0, [(tid, {0: 0, 1: 0})])
    check(err == NONE and sid2 not in (0, sid) and len(got) == 2,
          "franz-go: a stale id with epoch 0 opens a session: %d %d %s" % (err, sid2, got))
    err, got_sid, _ = f.fetch(sid2, -1)
    check(err == NONE and got_sid == 0, "franz-go: closing on client close: %d %d" % (err, got_sid))
    # Sessions given up (a session id 0 answered): id 0, epoch -1, every partition.
    err, got_sid, got = f.fetch(0, -1, [(tid, {0: 0, 1: 0, 2: 0})])
    check(err == NONE and got_sid == 0 and len(got) == 3,
          "franz-go: sessionless fetch: %d %d %s" % (err, got_sid, got))
    f.close()


def fetch_order(host, port, topic, producer):
    """Three batches in each partition, room for one per response."""
    c = Client(host, port, NAMES_VERSION, "fetch-order")
    for p in (0, 1, 2):
        for i in range(3):
            fs.produce(producer, topic, p, b"batch-%d" % i)
    offsets = {0: 0, 1: 0, 2: 0}
    err, sid, got = c.fetch(0, 0, [(topic, dict(offsets))], max_bytes=1)
    served = [p for (_, p), v in sorted(got.items()) if v[2] > 0]
    check(err == NONE and sid != 0 and served == [0], "order: full fetch serves partition 0: %s" % got)
    for epoch in (1, 2, 3):
        named = {served[-1]: offsets[served[-1]] + 1}
        offsets.update(named)
        err, _, got = c.fetch(sid, epoch, [(topic, named)], max_bytes=1)
        served += [p for (_, p), v in got.items() if v[2] > 0]
    check(served == [0, 0, 1, 2],
          "order: a partition that got records goes to the back (Kafka), partitions served: %s" % served)
    c.close()


def duplicate(host, port, tid, producer, topic):
    """A waiting fetch overtaken by the session's next request."""
    a = Client(host, port, JAVA_VERSION, "overtaken")
    b = Client(host, port, JAVA_VERSION, "overtaking")
    ends = log_ends(a, tid, (0, 1, 2))
    _, sid, _ = a.fetch(0, 0, [(tid, dict(ends))])
    want = a.send(sid, 1, LONG_POLL_MS)
    # b's request must reach the broker after a's is parked: on two
    # connections made readable in one loop turn the broker may read b's
    # first, and b's epoch 2 would then be the wrong one.
    time.sleep(OVERTAKE_AFTER_S)
    err, _, _ = b.fetch(sid, 2)
    check(err == NONE, "duplicate: the next epoch is served while the first waits: %d" % err)
    fs.produce(producer, topic, 0, b"wake")
    err, got_sid, got = a.receive(want)
    check(err == INVALID_FETCH_SESSION_EPOCH and got == {},
          "duplicate: the overtaken fetch gets INVALID_FETCH_SESSION_EPOCH (Kafka): %d %d %s"
          % (err, got_sid, got))
    a.close()
    b.close()


def create_topic(conn, name):
    w = Writer().arr([name], lambda w, t: w.str(t).i32(1).i16(1).arr([], None).arr([], None))
    w.i32(30000).i8(0)
    r = Reader(conn.call(API_CREATE_TOPICS, 2, bytes(w.data)))
    r.i32()
    return r.arr(lambda r: (r.str(), r.i16(), r.str()))[0][1]


def delete_topic(conn, name):
    w = Writer().arr([name], Writer.str).i32(30000)
    r = Reader(conn.call(API_DELETE_TOPICS, 1, bytes(w.data)))
    r.i32()
    return r.arr(lambda r: (r.str(), r.i16()))[0][1]


def recreated_topic(host, port, topic, admin):
    j = Client(host, port, JAVA_VERSION, "java-recreated")
    old = fs.topic_id_of(admin.conn, topic)
    _, sid, got = j.fetch(0, 0, [(old, {0: 0})])
    check(sid != 0 and got[(old, 0)][0] == NONE, "recreated: a session on the topic: %s" % got)
    check(delete_topic(admin.conn, topic) == NONE, "recreated: deleting %s" % topic)
    err, _, got = j.fetch(sid, 1)
    perr = got.get((old, 0), (None,))[0]
    check(err == NONE and perr == UNKNOWN_TOPIC_OR_PARTITION,
          "recreated: deleted, the session's partition is UNKNOWN_TOPIC_OR_PARTITION (Kafka: "
          "the session knows its name): %d %s" % (err, got))
    deadline = time.time() + fs.TIMEOUT_S
    err = -1
    while err != NONE and time.time() < deadline:
        err = create_topic(admin.conn, topic)
        if err != NONE:
            time.sleep(0.05)
    check(err == NONE, "recreated: creating %s again: %d" % (topic, err))
    new = fs.topic_id_of(admin.conn, topic)
    check(new != old, "recreated: a new topic id")
    err, _, got = j.fetch(sid, 2)
    perr = got.get((old, 0), (None,))[0]
    check(err == NONE and perr == INCONSISTENT_TOPIC_ID,
          "recreated: the old id's partition is INCONSISTENT_TOPIC_ID (Kafka): %d %s" % (err, got))
    # An id this broker never knew, added to the session: UNKNOWN_TOPIC_ID.
    stranger = bytes(range(1, 17))
    err, _, got = j.fetch(sid, 3, [(stranger, {0: 0})])
    check(err == NONE and got.get((stranger, 0), (None,))[0] == UNKNOWN_TOPIC_ID,
          "recreated: an unknown id is UNKNOWN_TOPIC_ID: %d %s" % (err, got))
    # Java's 'replaced': the new id added and the old one forgotten at once.
    err, got_sid, got = j.fetch(sid, 4, [(new, {0: 0})], forgotten=[(old, [0]), (stranger, [0])])
    check(err == NONE and got_sid == sid and list(got) == [(new, 0)] and got[(new, 0)][0] == NONE,
          "recreated: the new id replaces the old one: %d %s" % (err, got))
    err, _, got = j.fetch(sid, 5)
    check(err == NONE and got == {}, "recreated: then idle: %d %s" % (err, got))
    j.close()


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    topic, fair, recreated = sys.argv[3], sys.argv[4], sys.argv[5]
    producer = kafka_wire.Connection(host, port, "fetch-sessions-clients", fs.TIMEOUT_S)
    admin = Client(host, port, JAVA_VERSION, "fetch-sessions-admin")
    tid = fs.topic_id_of(producer, topic)
    java_consumer(host, port, topic, tid, producer)
    franz_go(host, port, topic, tid, producer)
    duplicate(host, port, tid, producer, topic)
    fetch_order(host, port, fair, producer)
    recreated_topic(host, port, recreated, admin)
    producer.close()
    admin.close()
    return 1 if fs.failures else 0


if __name__ == "__main__":
    sys.exit(main())
