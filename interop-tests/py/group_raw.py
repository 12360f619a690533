#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Group coordinator edge cases over raw sockets, with requests built by
hand (standard library only), for what the client libraries never send:

- FindCoordinator v4 with batched keys: a group key names this broker, a
  transaction key names it too (creating __transaction_state), an unknown key type is
  INVALID_REQUEST.
- JoinGroup v4: an empty group id is INVALID_GROUP_ID, a session timeout
  below group.min.session.timeout.ms is INVALID_SESSION_TIMEOUT, a first
  join gets MEMBER_ID_REQUIRED with a member id; with group.max.size=1 a
  second member gets GROUP_MAX_SIZE_REACHED.
- Heartbeat / SyncGroup for an unknown group: UNKNOWN_MEMBER_ID.
- OffsetCommit v2: a commit with a generation for an unknown group is
  ILLEGAL_GENERATION; an unknown topic UNKNOWN_TOPIC_OR_PARTITION; metadata
  over offset.metadata.max.bytes OFFSET_METADATA_TOO_LARGE; a commit-only
  commit with retention_time_ms expires: OffsetFetch shows it, then -1, and
  the emptied group disappears from ListGroups.
- OffsetFetch v8 for two groups at once.

Usage: group_raw.py HOST PORT TOPIC (TOPIC has partitions 0 and 1)
Exit status 0 when every check holds, 1 otherwise (the reason on stderr).
"""
import sys
import time

import kafka_wire
from kafka_wire import Reader, compact_string, int32, int64, string, uvarint

(API_OFFSET_COMMIT, API_OFFSET_FETCH, API_FIND_COORDINATOR, API_JOIN_GROUP, API_HEARTBEAT,
 API_SYNC_GROUP, API_LIST_GROUPS) = 8, 9, 10, 11, 12, 14, 16
NONE, UNKNOWN_TOPIC_OR_PARTITION, OFFSET_METADATA_TOO_LARGE = 0, 3, 12
COORDINATOR_NOT_AVAILABLE, ILLEGAL_GENERATION, INVALID_GROUP_ID = 15, 22, 24
UNKNOWN_MEMBER_ID, INVALID_SESSION_TIMEOUT, INVALID_REQUEST = 25, 26, 42
MEMBER_ID_REQUIRED, GROUP_MAX_SIZE_REACHED = 79, 81
EXPIRY_DEADLINE_S = 30


def fail(msg):
    sys.stderr.write("group_raw: %s\n" % msg)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


class Conn(kafka_wire.Connection):
    def __init__(self, host, port):
        super().__init__(host, port, "group_raw", 20)

    def call(self, api, version, body, flexible=False):
        r = Reader(super().call(api, version, body, flexible), flexible)
        r.tags()
        return r


def find_coordinator_batched(c):
    body = bytes([0]) + uvarint(3) + compact_string("g-a") + compact_string("g-b") + uvarint(0)
    r = c.call(API_FIND_COORDINATOR, 4, body, flexible=True)
    r.i32()  # throttle
    errors = []
    for _ in range(r.uvar() - 1):
        key, node = r.str(), r.i32()
        r.str()
        r.i32()
        errors.append((key, node >= 0, r.i16()))
        r.str()
        r.tags()
    expect("FindCoordinator v4 group keys", errors, [("g-a", True, NONE), ("g-b", True, NONE)])
    for key_type, want in ((1, NONE), (7, INVALID_REQUEST)):
        body = bytes([key_type]) + uvarint(2) + compact_string("k") + uvarint(0)
        r = c.call(API_FIND_COORDINATOR, 4, body, flexible=True)
        r.i32()
        r.uvar()
        r.str()
        r.i32()
        r.str()
        r.i32()
        expect("FindCoordinator key type %d" % key_type, r.i16(), want)


def join(c, group, member_id="", session_ms=10000):
    protocols = int32(1) + string("range") + int32(2) + b"\x00\x00"
    body = (string(group) + int32(session_ms) + int32(30000) + string(member_id) + string("consumer") +
            protocols)
    r = c.call(API_JOIN_GROUP, 4, body)
    r.i32()
    err, generation = r.i16(), r.i32()
    r.str()
    r.str()
    return err, generation, r.str()


def join_checks(c):
    expect("JoinGroup with an empty group id", join(c, "")[0], INVALID_GROUP_ID)
    expect("JoinGroup with a 1 s session", join(c, "jg", session_ms=1000)[0],
           INVALID_SESSION_TIMEOUT)
    err, _, member = join(c, "jg")
    expect("first JoinGroup v4", err, MEMBER_ID_REQUIRED)
    if not member.startswith("group_raw-"):
        fail("member id %r does not start with the client id" % member)
    # The group is now capped at one member (group.max.size=1): a new
    # member is refused while the first is in it.
    err, generation, _ = join(c, "jg", member)
    expect("JoinGroup with the given member id", (err, generation), (NONE, 1))
    expect("a second member of a full group", join(c, "jg")[0], GROUP_MAX_SIZE_REACHED)
    body = string("nosuchgroup") + int32(1) + string("m")
    r = c.call(API_HEARTBEAT, 2, body)
    r.i32()
    expect("Heartbeat for an unknown group", r.i16(), UNKNOWN_MEMBER_ID)
    r = c.call(API_SYNC_GROUP, 2, body + int32(0))
    r.i32()
    expect("SyncGroup for an unknown group", r.i16(), UNKNOWN_MEMBER_ID)


def commit(c, group, generation, topic, partitions, retention_ms=-1, metadata=""):
    parts = b"".join(int32(p) + int64(o) + string(metadata) for p, o in partitions)
    body = (string(group) + int32(generation) + string("") + int64(retention_ms) + int32(1) +
            string(topic) + int32(len(partitions)) + parts)
    r = c.call(API_OFFSET_COMMIT, 2, body)
    out = []
    for _ in range(r.i32()):
        r.str()
        for _ in range(r.i32()):
            out.append((r.i32(), r.i16()))
    return out


def fetch(c, group, topic, partitions):
    body = string(group) + int32(1) + string(topic) + int32(len(partitions))
    body += b"".join(int32(p) for p in partitions)
    r = c.call(API_OFFSET_FETCH, 1, body)
    out = []
    for _ in range(r.i32()):
        r.str()
        for _ in range(r.i32()):
            p, offset = r.i32(), r.i64()
            r.str()
            out.append((p, offset, r.i16()))
    return out


def list_groups(c):
    r = c.call(API_LIST_GROUPS, 0, b"")
    expect("ListGroups error", r.i16(), NONE)
    groups = []
    for _ in range(r.i32()):
        groups.append(r.str())
        r.str()
    return groups


def fetch_v8(c, groups, topic):
    body = uvarint(len(groups) + 1)
    for g in groups:
        body += compact_string(g) + uvarint(2) + compact_string(topic) + uvarint(2) + int32(0) + uvarint(0)
        body += uvarint(0)
    body += bytes([0]) + uvarint(0)
    r = c.call(API_OFFSET_FETCH, 8, body, flexible=True)
    r.i32()
    out = {}
    for _ in range(r.uvar() - 1):
        g = r.str()
        offsets = []
        for _ in range(r.uvar() - 1):
            r.str()
            for _ in range(r.uvar() - 1):
                r.i32()
                offsets.append(r.i64())
                r.i32()
                r.str()
                r.i16()
                r.tags()
            r.tags()
        out[g] = (offsets, r.i16())
        r.tags()
    return out


def commit_checks(c, topic):
    expect("a commit with a generation for an unknown group",
           commit(c, "nogroup", 3, topic, [(0, 1)]), [(0, ILLEGAL_GENERATION)])
    expect("a commit to an unknown topic", commit(c, "cg", -1, "no-such-topic", [(0, 1)]),
           [(0, UNKNOWN_TOPIC_OR_PARTITION)])
    expect("metadata over offset.metadata.max.bytes",
           commit(c, "cg", -1, topic, [(0, 1)], metadata="x" * 5000),
           [(0, OFFSET_METADATA_TOO_LARGE)])
    expect("a commit-only commit", commit(c, "keep", -1, topic, [(0, 7)]), [(0, NONE)])
    expect("a commit that expires", commit(c, "short", -1, topic, [(0, 5), (1, 6)], 1000),
           [(0, NONE), (1, NONE)])
    expect("OffsetFetch v1 after the commit", fetch(c, "short", topic, [0, 1]),
           [(0, 5, NONE), (1, 6, NONE)])
    expect("OffsetFetch v8 of two groups", fetch_v8(c, ["keep", "unknown"], topic),
           {"keep": ([7], NONE), "unknown": ([-1], NONE)})
    deadline = time.time() + EXPIRY_DEADLINE_S
    while fetch(c, "short", topic, [0, 1]) != [(0, -1, NONE), (1, -1, NONE)]:
        if time.time() > deadline:
            fail("offsets committed with a 1 s retention did not expire")
        time.sleep(0.2)
    deadline = time.time() + EXPIRY_DEADLINE_S
    while "short" in list_groups(c):
        if time.time() > deadline:
            fail("the group whose offsets expired is still listed")
        time.sleep(0.2)
    if "keep" not in list_groups(c):
        fail("a group with unexpired offsets disappeared")
    expect("OffsetFetch of the kept group", fetch(c, "keep", topic, [0]), [(0, 7, NONE)])


def main():
    host, port, topic = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    try:
        c = Conn(host, port)
        find_coordinator_batched(c)
        join_checks(c)
        commit_checks(c, topic)
    except kafka_wire.WireError as e:
        fail(str(e))
    print("group_raw: ok")


if __name__ == "__main__":
    main()
