#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Share-group requests sent by hand (on share_client's encoders), for the
checks a well-behaved consumer never makes the broker answer.

Usage: share_raw.py HOST:PORT MODE ARGS...

  topic-id TOPIC
      prints the topic's id in hex (for a later run, once ACLs hide it).

  share-coordinator GROUP TOPIC PARTITION
      FindCoordinator v6 (v4 if refused), key type SHARE, key
      "GROUP:<topic id, base64url>:PARTITION": prints "ERROR NODE".

  bad-input GROUP TOPIC
      partition 0 of TOPIC holds records at offsets 0..4 that GROUP has
      not delivered yet; one member acquires them, then:
        - ShareAcknowledge of an offset no longer acquired (released
          before): INVALID_RECORD_STATE (partition); of an offset past
          the acquired records: INVALID_REQUEST (partition), as Kafka's
          SharePartition answers; the session still usable;
        - ShareFetch at an epoch already used: INVALID_SHARE_SESSION_EPOCH;
        - ShareFetch and ShareAcknowledge at epoch 1 by a member without a
          session: SHARE_SESSION_NOT_FOUND;
        - ShareFetch opening a session (epoch 0) with acknowledgements:
          INVALID_REQUEST; ShareAcknowledge at epoch 0:
          INVALID_SHARE_SESSION_EPOCH;
        - acknowledge type 7, and a batch whose last offset is below its
          first: INVALID_REQUEST (partition or top level);
        - a ShareFetch frame cut short inside its topics: the broker
          closes that connection, and on a new one the member's session
          still serves: records 0..3 are accepted at the next epoch,
          and the session closes (epoch -1).

  acls OPEN_GROUP CLOSED_GROUP OPEN_TOPIC READLESS_TOPIC READLESS_ID HIDDEN_TOPIC
      ANONYMOUS may not READ CLOSED_GROUP, may DESCRIBE but not READ
      READLESS_TOPIC (id READLESS_ID, hex), may not DESCRIBE HIDDEN_TOPIC:
        - ShareGroupHeartbeat, ShareFetch and ShareAcknowledge of
          CLOSED_GROUP: GROUP_AUTHORIZATION_FAILED;
        - a heartbeat of OPEN_GROUP subscribing HIDDEN_TOPIC:
          TOPIC_AUTHORIZATION_FAILED;
        - ShareFetch of READLESS_TOPIC in OPEN_GROUP:
          TOPIC_AUTHORIZATION_FAILED (partition or top level);
        - OPEN_GROUP on OPEN_TOPIC is served (heartbeat and ShareFetch).

Exit status 0 when every check holds, 1 otherwise (the reason on stderr).
"""
import base64
import struct
import sys
import time
import uuid

import kafka_wire as kw
import share_client as sc

WAIT_S = 30.0


def fail(msg):
    print("share_raw: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))
    print("share_raw: %s: ok" % what, file=sys.stderr)


def expect_in(what, got, wants):
    if got not in wants:
        fail("%s: got %r, want one of %r" % (what, got, wants))
    print("share_raw: %s: ok (%r)" % (what, got), file=sys.stderr)


def joined(bootstrap, group, topic):
    c = sc.ShareConsumer(bootstrap, group, [topic], log=lambda m: print("share_raw: " + m, file=sys.stderr))
    c.join(time.monotonic() + WAIT_S)
    c.refresh_metadata()
    return c


def partition_error(resp, tp, field="error_code"):
    return resp["error_code"] or resp["partitions"].get(tp, {}).get(field, sc.NONE)


def acquire(c, conn, tp):
    """ShareFetch from epoch 0 until records are acquired; returns (next
    epoch, acquired offsets)."""
    epoch = sc.SESSION_OPEN_EPOCH
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        resp = sc.share_fetch(conn, c.group, c.member_id, epoch, [(tp[0], [(tp[1], [])])] if epoch == 0 else [])
        expect_in("ShareFetch at epoch %d" % epoch, partition_error(resp, tp), (sc.NONE,))
        epoch += 1
        part = resp["partitions"].get(tp)
        if part and part["acquired"]:
            records, gaps = sc.acquired_records(part)
            return epoch, [r[0] for r in records] + gaps
    fail("nothing acquired in %.0f s" % WAIT_S)


def ack_topics(tp, first, last, types):
    return [(tp[0], [(tp[1], [(first, last, types)])])]


def truncated_share_fetch(c, host, port):
    """A ShareFetch v1 frame whose body ends inside its topic array: the
    broker must close the connection rather than answer or wait."""
    body = sc.share_fetch_request(c.group, c.member_id, 1, [(bytes(16), [(0, [])])])
    cut = body[: len(body) - 20]
    header = kw.request_header(sc.API_SHARE_FETCH, sc.SHARE_FETCH_V, 77, "share_raw", flexible=True)
    sock = kw.socket.create_connection((host, port), timeout=WAIT_S)
    try:
        sock.sendall(kw.frame(header + cut))
        try:
            data = kw.read_frame(sock)
        except (kw.ConnectionClosed, ConnectionResetError):
            return
        fail("a truncated ShareFetch was answered (%d bytes: %r)" % (len(data), data[:40]))
    finally:
        sock.close()


def bad_input(bootstrap, group, topic):
    c = joined(bootstrap, group, topic)
    tid = c.ids[topic]
    tp = (tid, 0)
    leader = c.leaders[tp]
    conn = c._conn(leader)
    epoch, offsets = acquire(c, conn, tp)
    expect("acquired offsets", sorted(offsets), [0, 1, 2, 3, 4])

    resp = sc.share_acknowledge(conn, group, c.member_id, epoch, ack_topics(tp, 4, 4, [sc.RELEASE]))
    expect("releasing offset 4", partition_error(resp, tp), sc.NONE)
    epoch += 1
    resp = sc.share_acknowledge(conn, group, c.member_id, epoch, ack_topics(tp, 4, 4, [sc.ACCEPT]))
    expect("accepting offset 4, released (available, not acquired)", (resp["error_code"],
           resp["partitions"].get(tp, {}).get("error_code")), (sc.NONE, sc.INVALID_RECORD_STATE))
    epoch += 1
    resp = sc.share_acknowledge(conn, group, c.member_id, epoch, ack_topics(tp, 1000, 1000, [sc.ACCEPT]))
    expect("acknowledging an offset past the acquired records", (resp["error_code"],
           resp["partitions"].get(tp, {}).get("error_code")), (sc.NONE, sc.INVALID_REQUEST))
    epoch += 1

    resp = sc.share_fetch(conn, group, c.member_id, epoch - 1, [])
    expect("ShareFetch at a stale session epoch", resp["error_code"], sc.INVALID_SHARE_SESSION_EPOCH)

    stranger = str(uuid.uuid4())
    resp = sc.share_fetch(conn, group, stranger, 1, [(tid, [(0, [])])])
    expect("ShareFetch without a session", resp["error_code"], sc.SHARE_SESSION_NOT_FOUND)
    resp = sc.share_acknowledge(conn, group, stranger, 1, ack_topics(tp, 0, 0, [sc.ACCEPT]))
    expect("ShareAcknowledge without a session", resp["error_code"], sc.SHARE_SESSION_NOT_FOUND)

    resp = sc.share_fetch(conn, group, stranger, sc.SESSION_OPEN_EPOCH, ack_topics(tp, 0, 0, [sc.ACCEPT]))
    expect("acknowledgements in the ShareFetch opening a session", resp["error_code"], sc.INVALID_REQUEST)
    resp = sc.share_acknowledge(conn, group, c.member_id, sc.SESSION_OPEN_EPOCH, ack_topics(tp, 0, 0, [sc.ACCEPT]))
    expect("ShareAcknowledge at epoch 0", resp["error_code"], sc.INVALID_SHARE_SESSION_EPOCH)

    resp = sc.share_acknowledge(conn, group, c.member_id, epoch, ack_topics(tp, 0, 0, [7]))
    expect("acknowledge type 7", partition_error(resp, tp), sc.INVALID_REQUEST)
    epoch += 0 if resp["error_code"] else 1
    resp = sc.share_acknowledge(conn, group, c.member_id, epoch, ack_topics(tp, 3, 2, [sc.ACCEPT]))
    expect("a batch ending before it starts", partition_error(resp, tp), sc.INVALID_REQUEST)
    epoch += 0 if resp["error_code"] else 1

    host, port = c.brokers[leader]
    truncated_share_fetch(c, host, port)
    print("share_raw: a truncated ShareFetch closes its connection: ok", file=sys.stderr)
    with kw.Connection(host, port, "share_raw", WAIT_S) as fresh:
        resp = sc.share_fetch(fresh, group, c.member_id, epoch, ack_topics(tp, 0, 3, [sc.ACCEPT]), max_wait_ms=0)
        expect("the session after the truncated frame: accepting 0..3",
               (resp["error_code"], resp["partitions"].get(tp, {}).get("ack_error_code", sc.NONE)),
               (sc.NONE, sc.NONE))
        epoch += 1
        resp = sc.share_acknowledge(fresh, group, c.member_id, sc.SESSION_CLOSE_EPOCH, [])
        expect("closing the session", resp["error_code"], sc.NONE)
    c.heartbeat(leaving=True)


def acls(bootstrap, open_group, closed_group, open_topic, readless_topic, readless_id, hidden_topic):
    host, port = bootstrap.split(",")[0].rsplit(":", 1)
    conn = kw.Connection(host, int(port), "share_raw", WAIT_S)
    code, _node, chost, cport = sc.find_coordinator(conn, open_group)
    expect("FindCoordinator(%s)" % open_group, code, sc.NONE)
    coord = kw.Connection(chost, cport, "share_raw", WAIT_S)
    member = str(uuid.uuid4())

    resp = sc.heartbeat(coord, closed_group, member, sc.JOIN_EPOCH, [open_topic])
    expect("heartbeat of a group without READ", resp["error_code"], sc.GROUP_AUTHORIZATION_FAILED)
    resp = sc.heartbeat(coord, open_group, member, sc.JOIN_EPOCH, [hidden_topic])
    expect("heartbeat subscribing a topic without DESCRIBE", resp["error_code"], sc.TOPIC_AUTHORIZATION_FAILED)

    c = joined(bootstrap, open_group, open_topic)
    tp = (c.ids[open_topic], 0)
    leader = c._conn(c.leaders[tp])
    resp = sc.share_fetch(leader, open_group, c.member_id, 0, [(tp[0], [(0, [])])], max_wait_ms=0)
    expect("ShareFetch of an open group and topic", partition_error(resp, tp), sc.NONE)

    resp = sc.share_fetch(leader, closed_group, member, 0, [(tp[0], [(0, [])])], max_wait_ms=0)
    expect("ShareFetch of a group without READ", resp["error_code"], sc.GROUP_AUTHORIZATION_FAILED)
    resp = sc.share_acknowledge(leader, closed_group, member, 1, ack_topics(tp, 0, 0, [sc.ACCEPT]))
    expect("ShareAcknowledge of a group without READ", resp["error_code"], sc.GROUP_AUTHORIZATION_FAILED)

    rtp = (bytes.fromhex(readless_id), 0)
    resp = sc.share_fetch(leader, open_group, member, 0, [(rtp[0], [(0, [])])], max_wait_ms=0)
    expect("ShareFetch of a topic without READ", partition_error(resp, rtp), sc.TOPIC_AUTHORIZATION_FAILED)
    c.close()


KEY_TYPE_SHARE = 2


def find_share_coordinator(conn, key, version):
    w = kw.Writer(True)
    w.i8(KEY_TYPE_SHARE).arr([key], kw.Writer.str).tags()
    r = kw.Reader(conn.call(sc.API_FIND_COORDINATOR, version, bytes(w.data), flexible=True), True)
    r.tags()
    r.i32()

    def coordinator(r):
        c = {"key": r.str(), "node": r.i32(), "host": r.str(), "port": r.i32(), "error_code": r.i16(),
             "error_message": r.str()}
        r.tags()
        return c

    return r.arr(coordinator)[0]


def share_coordinator(bootstrap, group, topic, partition):
    host, port = bootstrap.split(",")[0].rsplit(":", 1)
    with kw.Connection(host, int(port), "share_raw", WAIT_S) as conn:
        t = sc.metadata(conn, [topic])["topics"][topic]
        topic_id = base64.urlsafe_b64encode(t["topic_id"]).rstrip(b"=").decode()
        key = "%s:%s:%s" % (group, topic_id, partition)
        try:
            c = find_share_coordinator(conn, key, 6)
        except kw.WireError:
            with kw.Connection(host, int(port), "share_raw", WAIT_S) as again:
                c = find_share_coordinator(again, key, 4)
        print(c["error_code"], c["node"])


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    bootstrap, mode, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    try:
        if mode == "topic-id" and len(args) == 1:
            host, port = bootstrap.split(",")[0].rsplit(":", 1)
            with kw.Connection(host, int(port), "share_raw", WAIT_S) as conn:
                t = sc.metadata(conn, args)["topics"][args[0]]
                if t["error_code"]:
                    fail("Metadata for %s: error %d" % (args[0], t["error_code"]))
                print(t["topic_id"].hex())
        elif mode == "share-coordinator" and len(args) == 3:
            share_coordinator(bootstrap, *args)
        elif mode == "bad-input" and len(args) == 2:
            bad_input(bootstrap, *args)
        elif mode == "acls" and len(args) == 6:
            acls(bootstrap, *args)
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except (OSError, kw.WireError, sc.ShareError, TimeoutError, struct.error) as e:
        fail("%s: %s" % (type(e).__name__, e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
