#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A small KIP-932 share consumer over raw sockets (standard library only,
on kafka_wire), for the share-group tests: what Kafka's KafkaShareConsumer
does on the wire, written from the message schemas.

 - Metadata v12 gives topic ids, partition leaders and the brokers;
   FindCoordinator v1 (key type GROUP) the group's coordinator.
 - ShareGroupHeartbeat v1: a member id made by the client (a uuid), epoch 0
   to join, then the epoch the coordinator answers, at the interval it
   answers; -1 to leave. The assignment names topic ids and partitions;
   several members may hold the same partition.
 - ShareFetch v1, one share session per partition leader: epoch 0 opens
   it (naming every partition to fetch), then 1, 2, ...; -1 closes it.
   Acknowledgements ride on the next fetch to the same leader (or go in a
   ShareAcknowledge v1 with commit()); AcquiredRecords ranges say which
   of the returned records this member holds and their delivery counts.
 - An acquired offset without a record in the batches (compacted away) is
   acknowledged as a GAP with the rest.

Library use: ShareConsumer(bootstrap, group, topics).poll() returns
Record tuples; ack(record, ACCEPT|RELEASE|REJECT) queues an
acknowledgement for the next request; commit() sends the queued ones now;
close() sends them with the session's close and leaves the group. The
encoders and decoders (share_fetch_request, decode_share_fetch_response,
...) serve scripts that send requests by hand.

CLI (one line per record taken, flushed at once, on --out or stdout:
"offset delivery_count value member"):

  share_client.py --bootstrap H:P --group G --topic T [--count N]
      [--ack accept|release|reject|none|release-first] [--out FILE]
      [--acked FILE] [--members K] [--timeout S] [--max-records N]
      [--max-wait-ms MS] [--ack-with fetch|acknowledge] [--hold]
      [--until-acked N [--quiet-s S]] [--delay-ms MS] [--log FILE] [--verbose]

  --ack          what to do with each record: accept, release, reject;
                 release-first releases a record on its first delivery and
                 accepts it after; none acquires and never acknowledges.
  --count N      stop after N records taken (across the --members); 0:
                 join, fetch once (which initialises the share-partition's
                 start offset) and leave.
  --acked FILE   one line per acknowledgement the broker answered without
                 error: "offset delivery_count type member".
  --log FILE     both, in the order they happened in this process: "D "
                 before each record line, "A " before each acknowledgement;
                 "F offset delivery_count type member error" for each
                 acknowledgement answered with an error (-1: the connection
                 was lost, the outcome is unknown).
  --until-acked N  stop once N distinct offsets were acknowledged (rather
                 than --count).
  --quiet-s S    with --until-acked: stop also once N distinct offsets were
                 acknowledged or lost their acknowledgement's answer (-1)
                 and no record came for S seconds. A leader killed after
                 writing an acknowledgement but before answering it never
                 delivers the record again: --until-acked alone would wait
                 for it forever.
  --members K    K members in this process (threads), one line stream.
  --hold         with --ack none: once done, print "holding" and wait to be
                 killed (heartbeats stop); without it, --ack none exits at
                 once without closing the session or leaving the group.
  --delay-ms MS  sleep that long after each fetch that returned records (a
                 slow consumer, so that the others get a share).
  --no-heartbeat  never join the group: fetch every partition of the topic
                 (debugging a broker's ShareFetch without its group side).
  --timeout S    give up after S seconds (exit 3).
  SIGTERM stops the members as --count does: queued acknowledgements
  are sent, sessions closed, the group left; exit 0.

"share_client.py --self-test" checks the encoders and decoders against
bytes written out by hand from the schemas; it needs no broker.

Exit status: 0 done, 3 timed out, 1 error (the reason on stderr).
"""
import argparse
import os
import signal
import sys
import threading
import time
import uuid

import kafka_wire as kw
from kafka_wire import Reader, Writer

API_METADATA = 3
API_API_VERSIONS = 18
API_FIND_COORDINATOR = 10
API_SHARE_GROUP_HEARTBEAT = 76
API_SHARE_FETCH = 78
API_SHARE_ACKNOWLEDGE = 79
METADATA_V, FIND_COORDINATOR_V = 12, 1
HEARTBEAT_V, SHARE_FETCH_V, SHARE_ACK_V = 1, 1, 1
KEY_TYPE_GROUP = 0

JOIN_EPOCH, LEAVE_EPOCH = 0, -1
SESSION_OPEN_EPOCH, SESSION_CLOSE_EPOCH = 0, -1
GAP, ACCEPT, RELEASE, REJECT = 0, 1, 2, 3
ACK_NAMES = {GAP: "gap", ACCEPT: "accept", RELEASE: "release", REJECT: "reject"}

# Kafka's error codes met here.
NONE = 0
UNKNOWN_TOPIC_OR_PARTITION = 3
LEADER_NOT_AVAILABLE = 5
NOT_LEADER_OR_FOLLOWER = 6
REQUEST_TIMED_OUT = 7
COORDINATOR_LOAD_IN_PROGRESS = 14
COORDINATOR_NOT_AVAILABLE = 15
NOT_COORDINATOR = 16
TOPIC_AUTHORIZATION_FAILED = 29
GROUP_AUTHORIZATION_FAILED = 30
UNKNOWN_MEMBER_ID = 25
UNSUPPORTED_VERSION = 35
INVALID_REQUEST = 42
KAFKA_STORAGE_ERROR = 56
UNKNOWN_LEADER_EPOCH = 75
FENCED_MEMBER_EPOCH = 110
UNKNOWN_TOPIC_ID = 100
INVALID_RECORD_STATE = 121
SHARE_SESSION_NOT_FOUND = 122
INVALID_SHARE_SESSION_EPOCH = 123
FENCED_STATE_EPOCH = 124
# Errors a member cannot get past: it stops with them.
FATAL_ERRORS = {TOPIC_AUTHORIZATION_FAILED, GROUP_AUTHORIZATION_FAILED, INVALID_REQUEST, UNSUPPORTED_VERSION}
COORDINATOR_ERRORS = {COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR}
SESSION_ERRORS = {SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH}

IO_TIMEOUT_S = 30.0
RETRY_BACKOFF_S = 0.1
UNASSIGNED_HEARTBEAT_S = 0.5


class ShareError(Exception):
    """A broker answer the client does not recover from; code is Kafka's."""

    def __init__(self, what, code, message=None):
        super().__init__("%s: error %d%s" % (what, code, " (%s)" % message if message else ""))
        self.code = code


def _check_consumed(r, what):
    if r.pos != len(r.data):
        raise kw.WireError("%s: %d bytes left over" % (what, len(r.data) - r.pos))


# ---- Metadata and FindCoordinator -----------------------------------------------------


def metadata_request(names):
    w = Writer(True)

    def topic(w, name):
        w.uuid(bytes(16)).str(name).tags()

    w.arr(names, topic).i8(0).i8(0).tags()  # no auto-creation, no authorized operations
    return bytes(w.data)


def decode_metadata(data):
    """{"brokers": {id: (host, port)}, "topics": {name: {"error_code",
    "topic_id", "leaders": {partition: leader}}}}."""
    r = Reader(data, True)
    r.tags()
    r.i32()

    def broker(r):
        b = (r.i32(), r.str(), r.i32())
        r.str()
        r.tags()
        return b

    brokers = {node: (host, port) for node, host, port in r.arr(broker)}
    r.str(), r.i32()

    def partition(r):
        r.i16()
        p, leader = r.i32(), r.i32()
        r.i32(), r.arr(Reader.i32), r.arr(Reader.i32), r.arr(Reader.i32)
        r.tags()
        return p, leader

    def topic(r):
        t = {"error_code": r.i16(), "name": r.str(), "topic_id": r.uuid()}
        r.bool()
        t["leaders"] = dict(r.arr(partition))
        r.i32()
        r.tags()
        return t

    topics = {t["name"]: t for t in r.arr(topic)}
    r.tags()
    return {"brokers": brokers, "topics": topics}


def api_versions(conn):
    """ApiVersions v0: {api key: (min, max)}."""
    r = Reader(conn.call(API_API_VERSIONS, 0, b""))
    code = r.i16()
    if code != NONE:
        raise ShareError("ApiVersions", code)
    return {k: (lo, hi) for k, lo, hi in r.arr(lambda r: (r.i16(), r.i16(), r.i16()))}


def check_share_apis(conn, heartbeats=True):
    """ShareError UNSUPPORTED_VERSION unless the broker serves the versions used here."""
    served = api_versions(conn)
    apis = [(API_SHARE_FETCH, SHARE_FETCH_V), (API_SHARE_ACKNOWLEDGE, SHARE_ACK_V)]
    if heartbeats:
        apis.append((API_SHARE_GROUP_HEARTBEAT, HEARTBEAT_V))
    for key, version in apis:
        lo, hi = served.get(key, (0, -1))
        if not lo <= version <= hi:
            raise ShareError("the broker does not serve API %d v%d (it serves %s)" % (key, version,
                             "v%d-%d" % (lo, hi) if hi >= 0 else "none"), UNSUPPORTED_VERSION)


def metadata(conn, names):
    return decode_metadata(conn.call(API_METADATA, METADATA_V, metadata_request(names), flexible=True))


def find_coordinator(conn, key, key_type=KEY_TYPE_GROUP):
    """FindCoordinator v1: (error code, node id, host, port)."""
    r = Reader(conn.call(API_FIND_COORDINATOR, FIND_COORDINATOR_V, kw.string(key) + kw.int8(key_type)))
    r.i32()
    code, _msg, node, host, port = r.i16(), r.str(), r.i32(), r.str(), r.i32()
    return code, node, host, port


# ---- ShareGroupHeartbeat (76) ---------------------------------------------------------


def heartbeat_request(group, member_id, epoch, topics=None, rack=None):
    """topics None: unchanged since the last heartbeat."""
    w = Writer(True)
    w.str(group).str(member_id).i32(epoch).str(rack).arr(topics, Writer.str).tags()
    return bytes(w.data)


def decode_heartbeat_response(data):
    r = Reader(data, True)
    r.tags()
    out = {"throttle_time_ms": r.i32(), "error_code": r.i16(), "error_message": r.str(),
           "member_id": r.str(), "member_epoch": r.i32(), "heartbeat_interval_ms": r.i32(),
           "assignment": None}
    if r.i8() >= 0:

        def tp(r):
            t = (r.uuid(), r.arr(Reader.i32))
            r.tags()
            return t

        out["assignment"] = r.arr(tp)
        r.tags()
    r.tags()
    _check_consumed(r, "ShareGroupHeartbeatResponse")
    return out


def heartbeat(conn, group, member_id, epoch, topics=None):
    data = conn.call(API_SHARE_GROUP_HEARTBEAT, HEARTBEAT_V, heartbeat_request(group, member_id, epoch, topics),
                     flexible=True)
    return decode_heartbeat_response(data)


# ---- ShareFetch (78) and ShareAcknowledge (79) ----------------------------------------


def ack_batches(acks):
    """{offset: type} -> [(first, last, [type])]: runs of consecutive offsets
    with one type each."""
    out = []
    for offset in sorted(acks):
        t = acks[offset]
        if out and out[-1][1] == offset - 1 and out[-1][2] == [t]:
            out[-1] = (out[-1][0], offset, [t])
        else:
            out.append((offset, offset, [t]))
    return out


def _write_ack_batch(w, b):
    first, last, types = b
    w.i64(first).i64(last).arr(types, Writer.i8).tags()


def _write_partitions(topics, w, with_acks_only=False):
    """topics: [(topic id, [(partition, [(first, last, [types])])])]."""

    def partition(w, p):
        index, batches = p
        w.i32(index).arr(batches, _write_ack_batch).tags()

    def topic(w, t):
        w.uuid(t[0]).arr(t[1], partition).tags()

    w.arr(topics, topic)


def share_fetch_request(group, member_id, epoch, topics, forgotten=(), max_wait_ms=500, min_bytes=1,
                        max_bytes=0x7FFFFFFF, max_records=500, batch_size=500, version=SHARE_FETCH_V):
    """topics: [(topic id, [(partition, ack batches)])]; forgotten:
    [(topic id, [partition])]. Version 1 (no PartitionMaxBytes) or 2 (with
    ShareAcquireMode 0 and IsRenewAck false)."""
    w = Writer(True)
    w.str(group).str(member_id).i32(epoch).i32(max_wait_ms).i32(min_bytes).i32(max_bytes)
    w.i32(max_records).i32(batch_size)
    if version >= 2:
        w.i8(0).i8(0)
    _write_partitions(topics, w)

    def forget(w, t):
        w.uuid(t[0]).arr(t[1], Writer.i32).tags()

    w.arr(list(forgotten), forget).tags()
    return bytes(w.data)


def _read_leader(r):
    leader = (r.i32(), r.i32())
    r.tags()
    return leader


def _read_endpoints(r):
    def endpoint(r):
        e = (r.i32(), r.str(), r.i32())
        r.str()
        r.tags()
        return e

    return {node: (host, port) for node, host, port in r.arr(endpoint)}


def decode_share_fetch_response(data, version=SHARE_FETCH_V):
    """{"error_code", "error_message", "lock_timeout_ms", "partitions":
    {(topic id, partition): {"error_code", "error_message",
    "ack_error_code", "ack_error_message", "leader": (id, epoch),
    "records": bytes or None, "acquired": [(first, last, count)]}},
    "endpoints": {node: (host, port)}}."""
    r = Reader(data, True)
    r.tags()
    r.i32()
    out = {"error_code": r.i16(), "error_message": r.str(), "lock_timeout_ms": r.i32(), "partitions": {}}

    def acquired(r):
        a = (r.i64(), r.i64(), r.i16())
        r.tags()
        return a

    def partition(r, topic_id):
        p = r.i32()
        out["partitions"][(topic_id, p)] = {
            "error_code": r.i16(), "error_message": r.str(), "ack_error_code": r.i16(),
            "ack_error_message": r.str(), "leader": _read_leader(r), "records": r.bytes(),
            "acquired": r.arr(acquired)}
        r.tags()

    def topic(r):
        topic_id = r.uuid()
        r.arr(lambda r: partition(r, topic_id))
        r.tags()

    r.arr(topic)
    out["endpoints"] = _read_endpoints(r)
    r.tags()
    _check_consumed(r, "ShareFetchResponse v%d" % version)
    return out


def share_ack_request(group, member_id, epoch, topics, version=SHARE_ACK_V):
    """topics as share_fetch_request's, every partition with its batches."""
    w = Writer(True)
    w.str(group).str(member_id).i32(epoch)
    if version >= 2:
        w.i8(0)
    _write_partitions(topics, w)
    w.tags()
    return bytes(w.data)


def decode_share_ack_response(data, version=SHARE_ACK_V):
    """{"error_code", "error_message", "partitions": {(topic id,
    partition): {"error_code", "error_message", "leader"}}, "endpoints"}."""
    r = Reader(data, True)
    r.tags()
    r.i32()
    out = {"error_code": r.i16(), "error_message": r.str(), "partitions": {}}
    if version >= 2:
        out["lock_timeout_ms"] = r.i32()

    def partition(r, topic_id):
        p = r.i32()
        out["partitions"][(topic_id, p)] = {"error_code": r.i16(), "error_message": r.str(),
                                            "leader": _read_leader(r)}
        r.tags()

    def topic(r):
        topic_id = r.uuid()
        r.arr(lambda r: partition(r, topic_id))
        r.tags()

    r.arr(topic)
    out["endpoints"] = _read_endpoints(r)
    r.tags()
    _check_consumed(r, "ShareAcknowledgeResponse v%d" % version)
    return out


def share_fetch(conn, *args, version=SHARE_FETCH_V, **kwargs):
    data = conn.call(API_SHARE_FETCH, version, share_fetch_request(*args, version=version, **kwargs),
                     flexible=True)
    return decode_share_fetch_response(data, version)


def share_acknowledge(conn, group, member_id, epoch, topics, version=SHARE_ACK_V):
    data = conn.call(API_SHARE_ACKNOWLEDGE, version, share_ack_request(group, member_id, epoch, topics, version),
                     flexible=True)
    return decode_share_ack_response(data, version)


def acquired_records(part):
    """The records of one ShareFetch partition this member acquired:
    [(offset, key, value, delivery count)], plus the acquired offsets with
    no record (gaps), in offset order."""
    counts = {}
    for first, last, count in part["acquired"] or []:
        for offset in range(first, last + 1):
            counts[offset] = count
    out = []
    for batch in kw.decode_record_batches(part["records"]):
        if batch["control"]:
            continue
        for rec in batch["records"]:
            if rec["offset"] in counts:
                out.append((rec["offset"], rec["key"], rec["value"], counts.pop(rec["offset"])))
    gaps = sorted(counts)
    return out, gaps


# ---- the consumer ---------------------------------------------------------------------


class Record:
    __slots__ = ("topic", "partition", "offset", "key", "value", "delivery_count", "node")

    def __init__(self, topic, partition, offset, key, value, delivery_count, node):
        self.topic, self.partition, self.offset = topic, partition, offset
        self.key, self.value, self.delivery_count, self.node = key, value, delivery_count, node

    def __repr__(self):
        return "Record(%s-%d@%d dc=%d %r)" % (self.topic, self.partition, self.offset, self.delivery_count,
                                              self.value)


class Session:
    """A share session with one leader: its epoch and the partitions in it."""

    def __init__(self):
        self.epoch = SESSION_OPEN_EPOCH
        self.partitions = set()
        self.acks = {}  # (topic id, partition) -> {offset: (type, delivery count)}


class ShareConsumer:
    """One share-group member. on_ack(record_key, ok, error) is told of
    every acknowledgement's outcome: record_key is (topic, partition,
    offset, delivery count, type)."""

    def __init__(self, bootstrap, group, topics, member_id=None, client_id="share_client", max_wait_ms=500,
                 min_bytes=1, max_records=500, batch_size=500, on_ack=None, log=None):
        self.bootstrap = [(h, int(p)) for h, p in (a.rsplit(":", 1) for a in bootstrap.split(","))]
        self.group, self.topics = group, list(topics)
        self.member_id = member_id or str(uuid.uuid4())
        self.client_id = client_id
        self.max_wait_ms, self.min_bytes = max_wait_ms, min_bytes
        self.max_records, self.batch_size = max_records, batch_size
        self.on_ack = on_ack or (lambda key, ok, error: None)
        self.log = log or (lambda msg: None)
        self.epoch = JOIN_EPOCH
        self.interval_s = 0.0
        self.next_heartbeat = 0.0
        self.assignment = set()  # (topic id, partition)
        self.names = {}  # topic id -> name
        self.ids = {}
        self.leaders = {}  # (topic id, partition) -> node
        self.brokers = {}
        self.conns = {}  # node -> Connection
        self.coordinator = None  # Connection
        self.sessions = {}  # node -> Session
        self.lock_timeout_ms = None
        self.no_heartbeat = False

    # -- connections --

    def _connect(self, host, port):
        return kw.Connection(host, port, self.client_id, IO_TIMEOUT_S)

    def _ask_any(self, fn):
        """fn(connection) on a new connection to the first broker that
        answers, the known brokers first, then the bootstrap list."""
        last = OSError("no broker to ask")
        for host, port in list(self.brokers.values()) + self.bootstrap:
            try:
                with self._connect(host, port) as conn:
                    return fn(conn)
            except (OSError, kw.WireError) as e:
                last = e
        raise last

    def _drop_conn(self, node):
        conn = self.conns.pop(node, None)
        if conn:
            conn.close()
        session = self.sessions.pop(node, None)
        if session:
            self._lose_acks(session, "connection lost")

    def _lose_acks(self, session, why):
        for (tid, p), acks in session.acks.items():
            for offset, (t, count) in acks.items():
                self.on_ack((self.names.get(tid, tid.hex()), p, offset, count, t), False, why)
        session.acks = {}

    def refresh_metadata(self):
        md = self._ask_any(lambda conn: metadata(conn, self.topics))
        for node, addr in md["brokers"].items():
            if node in self.brokers and self.brokers[node] != addr:
                self._drop_conn(node)
        self.brokers = md["brokers"]
        for name, t in md["topics"].items():
            if t["error_code"] == NONE:
                self.ids[name] = t["topic_id"]
                self.names[t["topic_id"]] = name
                for p, leader in t["leaders"].items():
                    self.leaders[(t["topic_id"], p)] = leader
            elif t["error_code"] in (TOPIC_AUTHORIZATION_FAILED,):
                raise ShareError("Metadata for %s" % name, t["error_code"])

    def _conn(self, node):
        if node not in self.conns:
            host, port = self.brokers[node]
            self.conns[node] = self._connect(host, port)
        return self.conns[node]

    def _find_coordinator(self):
        """Connects to the group's coordinator; OSError when there is none
        yet (the caller retries)."""
        code, node, host, port = self._ask_any(lambda conn: find_coordinator(conn, self.group))
        if code in COORDINATOR_ERRORS:
            raise ConnectionError("FindCoordinator(%s): error %d" % (self.group, code))
        if code != NONE:
            raise ShareError("FindCoordinator(%s)" % self.group, code)
        self.coordinator = self._connect(host, port)
        self.log("coordinator %d %s:%d" % (node, host, port))

    # -- the group --

    def _heartbeat_once(self, epoch):
        if self.coordinator is None:
            self._find_coordinator()
        topics = self.topics if epoch == JOIN_EPOCH else None
        try:
            return heartbeat(self.coordinator, self.group, self.member_id, epoch, topics)
        except (OSError, kw.WireError):
            if self.coordinator:
                self.coordinator.close()
            self.coordinator = None
            raise

    def heartbeat(self, leaving=False):
        """One heartbeat; True when it was answered without error."""
        if self.no_heartbeat:
            return True
        epoch = LEAVE_EPOCH if leaving else self.epoch
        try:
            resp = self._heartbeat_once(epoch)
        except (OSError, kw.WireError) as e:
            self.log("heartbeat: %s" % e)
            self.next_heartbeat = time.monotonic() + RETRY_BACKOFF_S
            return False
        code = resp["error_code"]
        if code in COORDINATOR_ERRORS:
            self.coordinator.close()
            self.coordinator = None
            self.next_heartbeat = time.monotonic() + RETRY_BACKOFF_S
            return False
        if code in (UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH) and not leaving:
            self.log("heartbeat: error %d, joining again" % code)
            self.epoch = JOIN_EPOCH
            self.next_heartbeat = 0.0
            return False
        if leaving:
            return code == NONE
        if code != NONE:
            raise ShareError("ShareGroupHeartbeat", code, resp["error_message"])
        self.epoch = resp["member_epoch"]
        self.interval_s = resp["heartbeat_interval_ms"] / 1000.0
        self.next_heartbeat = time.monotonic() + self.interval_s
        if resp["assignment"] is None and not self.assignment:
            # Nothing assigned yet: ask again soon rather than at the interval.
            self.next_heartbeat = time.monotonic() + min(self.interval_s, UNASSIGNED_HEARTBEAT_S)
        if resp["assignment"] is not None:
            assignment = {(tid, p) for tid, parts in resp["assignment"] for p in parts}
            if assignment != self.assignment:
                self.log("assignment epoch %d: %s" % (self.epoch, sorted((t.hex()[:8], p) for t, p in assignment)))
            self.assignment = assignment
            if any(tp not in self.leaders for tp in assignment):
                self.refresh_metadata()
        return True

    def join(self, deadline):
        """Heartbeats until the member holds a partition (first checking
        that the broker serves share groups at all). Without heartbeats
        (no_heartbeat), the member takes every partition of its topics."""
        self._ask_any(lambda conn: check_share_apis(conn, not self.no_heartbeat))
        if self.no_heartbeat:
            self.refresh_metadata()
            self.assignment = {tp for tp in self.leaders if tp[0] in self.names}
            self.next_heartbeat = float("inf")
            self.epoch = JOIN_EPOCH
            return
        while not self.assignment:
            if time.monotonic() > deadline:
                raise TimeoutError("no assignment for %s" % self.member_id)
            if time.monotonic() >= self.next_heartbeat:
                self.heartbeat()
            else:
                time.sleep(min(RETRY_BACKOFF_S, max(0, self.next_heartbeat - time.monotonic())))

    # -- records --

    def ack(self, record, ack_type):
        """Queues an acknowledgement of record for the next request to its leader."""
        session = self.sessions.get(record.node)
        if session is None:  # the session is gone: the records were released
            self.on_ack((record.topic, record.partition, record.offset, record.delivery_count, ack_type), False,
                        "session gone")
            return
        key = (self.ids[record.topic], record.partition)
        session.acks.setdefault(key, {})[record.offset] = (ack_type, record.delivery_count)

    def _ack_topics(self, session, partitions):
        by_topic = {}
        for tp in partitions:
            acks = {o: t for o, (t, _c) in session.acks.get(tp, {}).items()}
            by_topic.setdefault(tp[0], []).append((tp[1], ack_batches(acks)))
        return sorted(by_topic.items())

    def _report_acks(self, session, sent, results):
        """sent: {tp: {offset: (type, count)}}; results: {tp: error code}."""
        for tp, acks in sent.items():
            code = results.get(tp, NONE)
            name = self.names.get(tp[0], tp[0].hex())
            for offset, (t, count) in sorted(acks.items()):
                self.on_ack((name, tp[1], offset, count, t), code == NONE, code)

    def _next_epoch(self, session):
        session.epoch = session.epoch + 1 if session.epoch < 0x7FFFFFFF else 1

    def _fetch_node(self, node, parts):
        session = self.sessions.setdefault(node, Session())
        wanted = set(parts)
        if session.epoch == SESSION_OPEN_EPOCH:
            send = wanted
        else:
            send = (wanted - session.partitions) | {tp for tp in session.acks if session.acks[tp]}
        forgotten = {}
        for tid, p in session.partitions - wanted:
            forgotten.setdefault(tid, []).append(p)
        sent = {tp: session.acks.pop(tp) for tp in list(session.acks) if tp in send}
        session.acks = {tp: a for tp, a in session.acks.items() if a}
        topics = self._ack_topics(Session() if not sent else _with_acks(sent), send)
        conn = self._conn(node)
        try:
            resp = share_fetch(conn, self.group, self.member_id, session.epoch, topics, sorted(forgotten.items()),
                               max_wait_ms=self.max_wait_ms, min_bytes=self.min_bytes,
                               max_records=self.max_records, batch_size=self.batch_size)
        except (OSError, kw.WireError) as e:
            self.log("ShareFetch to %d: %s" % (node, e))
            self._report_acks(session, sent, {tp: -1 for tp in sent})
            self._drop_conn(node)
            self.leaders.clear()
            return []
        code = resp["error_code"]
        if code != NONE:
            self._report_acks(session, sent, {tp: code for tp in sent})
            if code in FATAL_ERRORS:
                raise ShareError("ShareFetch", code, resp["error_message"])
            # A session error, or the leader in trouble: a new session
            # (what it had acquired comes back when its locks run out).
            self.log("ShareFetch to %d: error %d, opening a new session" % (node, code))
            self.sessions.pop(node, None)
            self.leaders.clear()
            time.sleep(RETRY_BACKOFF_S)
            return []
        self.lock_timeout_ms = resp["lock_timeout_ms"]
        session.partitions = (session.partitions | send) - {(t, p) for t, ps in forgotten.items() for p in ps}
        self._next_epoch(session)
        self._report_acks(session, sent, {tp: resp["partitions"].get(tp, {}).get("ack_error_code", NONE)
                                          for tp in sent})
        return self._take(node, session, resp)

    def _take(self, node, session, resp):
        out = []
        stale = False
        for tp, part in sorted(resp["partitions"].items()):
            if part["error_code"] in FATAL_ERRORS:
                raise ShareError("ShareFetch partition %d" % tp[1], part["error_code"], part["error_message"])
            if part["error_code"] != NONE:
                self.log("ShareFetch %s-%d: error %d" % (tp[0].hex()[:8], tp[1], part["error_code"]))
                session.partitions.discard(tp)
                stale = True
                continue
            records, gaps = acquired_records(part)
            name = self.names.get(tp[0], tp[0].hex())
            for offset, key, value, count in records:
                out.append(Record(name, tp[1], offset, key, value, count, node))
            for offset in gaps:  # acquired, nothing to deliver: done with
                session.acks.setdefault(tp, {})[offset] = (GAP, 0)
        if stale:
            self.leaders.clear()
        return out

    def poll(self):
        """One round: a heartbeat if due, then a ShareFetch to each leader of
        an assigned partition (carrying the queued acknowledgements)."""
        if time.monotonic() >= self.next_heartbeat:
            self.heartbeat()
        if not self.leaders and self.assignment:
            try:
                self.refresh_metadata()
            except (OSError, kw.WireError) as e:
                self.log("Metadata: %s" % e)
                time.sleep(RETRY_BACKOFF_S)
                return []
        by_node = {}
        for tp in sorted(self.assignment):
            node = self.leaders.get(tp, -1)
            if node >= 0 and node in self.brokers:
                by_node.setdefault(node, []).append(tp)
        for node, session in list(self.sessions.items()):
            if node not in by_node and (session.partitions or session.acks):
                by_node[node] = []
        if not by_node:
            self.leaders.clear()
            time.sleep(RETRY_BACKOFF_S)
            return []
        out = []
        for node, parts in sorted(by_node.items()):
            try:
                out += self._fetch_node(node, parts)
            except OSError as e:
                self.log("ShareFetch to %d: %s" % (node, e))
                self._drop_conn(node)
                self.leaders.clear()
                time.sleep(RETRY_BACKOFF_S)
        return out

    def commit(self, close=False):
        """Sends the queued acknowledgements in a ShareAcknowledge to each
        leader; with close, at epoch -1 (closing the sessions)."""
        for node, session in list(self.sessions.items()):
            sent = {tp: a for tp, a in session.acks.items() if a}
            if not sent and not close:
                continue
            session.acks = {}
            if session.epoch == SESSION_OPEN_EPOCH:  # nothing opened: nothing to close or acknowledge
                self._report_acks(session, sent, {tp: -1 for tp in sent})
                continue
            epoch = SESSION_CLOSE_EPOCH if close else session.epoch
            try:
                resp = share_acknowledge(self._conn(node), self.group, self.member_id, epoch,
                                         self._ack_topics(_with_acks(sent), sent))
            except (OSError, kw.WireError) as e:
                self.log("ShareAcknowledge to %d: %s" % (node, e))
                self._report_acks(session, sent, {tp: -1 for tp in sent})
                self._drop_conn(node)
                continue
            code = resp["error_code"]
            results = {tp: code or resp["partitions"].get(tp, {}).get("error_code", NONE) for tp in sent}
            self._report_acks(session, sent, results)
            if close or code in SESSION_ERRORS:
                self.sessions.pop(node, None)
            elif code == NONE:
                self._next_epoch(session)

    def close(self):
        """Acknowledges what is queued, closes the sessions, leaves the group."""
        self.commit(close=True)
        if self.epoch != JOIN_EPOCH:
            self.heartbeat(leaving=True)
        for node in list(self.conns):
            self._drop_conn(node)
        if self.coordinator:
            self.coordinator.close()


def _with_acks(sent):
    s = Session()
    s.acks = sent
    return s


# ---- the command line -----------------------------------------------------------------


class Run:
    """What the members of one process share: the output, the counts, the stop flag."""

    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.out = open(args.out, "a") if args.out else sys.stdout
        self.acked_out = open(args.acked, "a") if args.acked else None
        self.log_out = open(args.log, "a") if args.log else None
        self.taken = 0
        self.acked = set()
        self.unknown = set()  # offsets whose acknowledgement lost its answer
        self.last_delivery = time.monotonic()
        self.stop = threading.Event()
        self.error = None

    def done(self):
        a = self.args
        if a.until_acked is not None:
            if len(self.acked) >= a.until_acked:
                return True
            quiet = a.quiet_s is not None and time.monotonic() - self.last_delivery >= a.quiet_s
            return quiet and len(self.acked | self.unknown) >= a.until_acked
        return a.count is not None and self.taken >= a.count

    def take(self, consumer, rec):
        """Whether the record is this process's to handle (else it is released)."""
        with self.lock:
            if self.done() or self.stop.is_set():
                return False
            self.taken += 1
            self.last_delivery = time.monotonic()
            value = rec.value.decode(errors="replace") if rec.value is not None else "null"
            line = "%d %d %s %s\n" % (rec.offset, rec.delivery_count, value, consumer.member_id)
            self.out.write(line)
            self.out.flush()
            if self.log_out:
                self.log_out.write("D " + line)
                self.log_out.flush()
            return True

    def acked_cb(self, member_id):
        def cb(key, ok, error):
            _topic, _p, offset, count, t = key
            with self.lock:
                if ok and t != GAP:
                    self.acked.add(offset)
                    line = "%d %d %s %s\n" % (offset, count, ACK_NAMES[t], member_id)
                    if self.acked_out:
                        self.acked_out.write(line)
                        self.acked_out.flush()
                    if self.log_out:
                        self.log_out.write("A " + line)
                        self.log_out.flush()
                elif not ok and t != GAP:
                    if error == -1:
                        self.unknown.add(offset)
                    if self.log_out:
                        self.log_out.write("F %d %d %s %s %s\n" % (offset, count, ACK_NAMES[t], member_id, error))
                        self.log_out.flush()
                    if self.args.verbose:
                        print("share_client: ack of %d (%s) failed: %s" % (offset, ACK_NAMES[t], error),
                              file=sys.stderr)
        return cb


def ack_type_for(mode, rec):
    if mode == "accept":
        return ACCEPT
    if mode == "release":
        return RELEASE
    if mode == "reject":
        return REJECT
    if mode == "release-first":
        return RELEASE if rec.delivery_count == 1 else ACCEPT
    return None


def run_member(run, index):
    a = run.args
    log = (lambda msg: print("share_client[%d]: %s" % (index, msg), file=sys.stderr)) if a.verbose else None
    c = ShareConsumer(a.bootstrap, a.group, [a.topic], max_wait_ms=a.max_wait_ms, max_records=a.max_records,
                      batch_size=a.max_records, on_ack=run.acked_cb(None), log=log)
    c.on_ack = run.acked_cb(c.member_id)
    c.no_heartbeat = a.no_heartbeat
    try:
        c.join(run.deadline)
        if a.count == 0:
            _initialise(c, run.deadline)
            c.close()
            return
        while not run.stop.is_set() and not run.done():
            if time.monotonic() > run.deadline:
                raise TimeoutError("timed out")
            records = c.poll()
            for rec in records:
                if not run.take(c, rec):
                    c.ack(rec, RELEASE)  # beyond the count: for another member
                    continue
                t = ack_type_for(a.ack, rec)
                if t is not None:
                    c.ack(rec, t)
            if a.ack_with == "acknowledge":
                c.commit()
            if records and a.delay_ms:
                time.sleep(a.delay_ms / 1000.0)  # a slow consumer: the others get their share
        if a.ack == "none":
            return  # no close: the records stay acquired until their locks expire
        c.close()
    except BaseException as e:  # noqa: B902 (reported by main)
        run.error = run.error or e
        run.stop.set()


def _initialise(consumer, deadline):
    """Fetches until every assigned partition answered once without error."""
    while time.monotonic() < deadline:
        before = {n: set(s.partitions) for n, s in consumer.sessions.items()}
        records = consumer.poll()
        for rec in records:
            consumer.ack(rec, RELEASE)
        got = set().union(*(s.partitions for s in consumer.sessions.values())) if consumer.sessions else set()
        if consumer.assignment and consumer.assignment <= got and before:
            return
    raise TimeoutError("the share-partitions did not answer")


def _expect(what, got, want):
    if got != want:
        raise AssertionError("%s:\n  got  %r\n  want %r" % (what, got, want))


def self_test():
    """The encoders and decoders against bytes written out from the schemas."""
    tid = bytes(range(16))
    _expect("heartbeat join", heartbeat_request("g", "m", JOIN_EPOCH, ["t"]),
            bytes.fromhex("0267" "026d" "00000000" "00" "02" "0274" "00"))
    _expect("heartbeat leave", heartbeat_request("g", "m", LEAVE_EPOCH),
            bytes.fromhex("0267" "026d" "ffffffff" "00" "00" "00"))
    resp = bytes.fromhex("00" "00000000" "0000" "00" "026d" "00000003" "00001388" "01"
                         "02" + tid.hex() + "03" "00000000" "00000001" "00" "00" "00")
    _expect("heartbeat response", decode_heartbeat_response(resp)["assignment"], [(tid, [0, 1])])
    _expect("ack batches", ack_batches({1: ACCEPT, 2: ACCEPT, 3: RELEASE, 5: RELEASE}),
            [(1, 2, [ACCEPT]), (3, 3, [RELEASE]), (5, 5, [RELEASE])])
    got = share_fetch_request("g", "m", 0, [(tid, [(0, [(1, 2, [ACCEPT])])])], [(tid, [1])])
    want = ("0267" "026d" "00000000" "000001f4" "00000001" "7fffffff" "000001f4" "000001f4"
            "02" + tid.hex() + "02" "00000000" "02" "0000000000000001" "0000000000000002" "0201" "00" "00" "00"
            "02" + tid.hex() + "02" "00000001" "00" "00")
    _expect("ShareFetch v1 request", got.hex(), want)
    batch = kw.record_batch(kw.record(0, 0, None, b"a") + kw.record(1, 0, b"k", b"b") + kw.record(2, 0, None, b"c"),
                            3, 1, 1, base_offset=10)
    resp = bytes.fromhex(
        "00" "00000000" "0000" "00" "00007530"  # header tags, throttle, error, message, lock timeout
        "02" + tid.hex() + "02" "00000000" "0000" "00" "0000" "00" "00000001" "00000005" "00"
        + kw.uvarint(len(batch) + 1).hex() + batch.hex()
        + "03" "000000000000000a" "000000000000000a" "0001" "00" "000000000000000c" "000000000000000d" "0002" "00"
        "00" "00"  # partition, topic tags
        "02" "00000001" "0268" "00000009" "00" "00" "00")
    r = decode_share_fetch_response(resp)
    part = r["partitions"][(tid, 0)]
    _expect("ShareFetch response", (r["lock_timeout_ms"], part["leader"], r["endpoints"]),
            (30000, (1, 5), {1: ("h", 9)}))
    _expect("acquired records", acquired_records(part),
            ([(10, None, b"a", 1), (12, None, b"c", 2)], [13]))
    print("share_client self-test: ok")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return 0
    ap = argparse.ArgumentParser(description="a small share-group consumer (KIP-932)")
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--group", required=True)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--count", type=int)
    ap.add_argument("--until-acked", type=int)
    ap.add_argument("--quiet-s", type=float)
    ap.add_argument("--ack", default="accept", choices=["accept", "release", "reject", "none", "release-first"])
    ap.add_argument("--ack-with", default="fetch", choices=["fetch", "acknowledge"])
    ap.add_argument("--out")
    ap.add_argument("--acked")
    ap.add_argument("--log")
    ap.add_argument("--members", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--max-records", type=int, default=500)
    ap.add_argument("--max-wait-ms", type=int, default=500)
    ap.add_argument("--delay-ms", type=int, default=0)
    ap.add_argument("--hold", action="store_true")
    ap.add_argument("--no-heartbeat", action="store_true")
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_args()
    run = Run(args)
    run.deadline = time.monotonic() + args.timeout
    signal.signal(signal.SIGTERM, lambda *_: run.stop.set())
    threads = [threading.Thread(target=run_member, args=(run, i), daemon=True) for i in range(args.members)]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.1)
    status = 0
    if run.error is not None:
        print("share_client: %s" % run.error, file=sys.stderr)
        status = 3 if isinstance(run.error, TimeoutError) else 1
    if args.ack == "none" and status == 0:
        if args.hold:
            print("holding", flush=True, file=run.out)
            while True:
                time.sleep(3600)
        sys.stdout.flush()
        os._exit(0)  # no session close, no leave: the locks must run out
    return status


if __name__ == "__main__":
    sys.exit(main())
