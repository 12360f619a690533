#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""KIP-848 consumer groups over raw sockets: ConsumerGroupHeartbeat (v0-1)
and ConsumerGroupDescribe (v0-1), requests built by hand (standard library
only), for the paths clients rarely take.

- joining: v0 gets a coordinator-made member id, v1 must bring its own
  (INVALID_REQUEST without), and other malformed joins are INVALID_REQUEST;
  an unknown ServerAssignor is UNSUPPORTED_ASSIGNOR;
- a partition moves to a second member only once the first revoked it;
- fencing: a member epoch ahead is FENCED_MEMBER_EPOCH, an unknown member
  UNKNOWN_MEMBER_ID, a third member GROUP_MAX_SIZE_REACHED
  (group.consumer.max.size=2);
- static members: UNRELEASED_INSTANCE_ID while the instance is held,
  FENCED_INSTANCE_ID for another member id, and a rejoin after -2 that keeps
  the assignment and the group epoch;
- leaving (-1);
- one id, one kind: a classic group with a member answers
  GROUP_ID_NOT_FOUND (its metadata is no consumer subscription, so no
  upgrade), a classic JoinGroup to a full consumer group
  GROUP_MAX_SIZE_REACHED, ConsumerGroupDescribe of a classic or
  unknown group GROUP_ID_NOT_FOUND, of an empty id INVALID_GROUP_ID;
- ConsumerGroupDescribe: state, epochs, assignor, members with topic names,
  member type (v1);
- offsets with member epochs: OffsetCommit v9 takes the member epoch as
  its generation (STALE_MEMBER_EPOCH, FENCED_MEMBER_EPOCH,
  UNKNOWN_MEMBER_ID; v8 from a member UNSUPPORTED_VERSION; an admin commit
  only while the group is empty), OffsetFetch v9 checks it
  (STALE_MEMBER_EPOCH, UNKNOWN_MEMBER_ID);
- DescribeGroups shows a consumer group as Dead (Kafka describes classic
  groups only there); ListGroups v5 lists a consumer group under type "consumer", classic
  groups under "classic".

Usage: cgroup_heartbeat_raw.py HOST PORT TOPIC (TOPIC has 2 partitions)
Exit status 0 when every check holds, 1 otherwise (the reason on stderr).
"""
import sys

import kafka_wire
from kafka_wire import Reader, Writer, int32, string

API_OFFSET_COMMIT, API_OFFSET_FETCH, API_FIND_COORDINATOR, API_JOIN_GROUP = 8, 9, 10, 11
API_DESCRIBE_GROUPS, API_LIST_GROUPS = 15, 16
API_CG_HEARTBEAT, API_CG_DESCRIBE = 68, 69
NONE, INVALID_GROUP_ID, UNKNOWN_MEMBER_ID, INCONSISTENT_GROUP_PROTOCOL = 0, 24, 25, 23
INVALID_REQUEST, GROUP_ID_NOT_FOUND, MEMBER_ID_REQUIRED = 42, 69, 79
GROUP_MAX_SIZE_REACHED, FENCED_INSTANCE_ID = 81, 82
FENCED_MEMBER_EPOCH, UNRELEASED_INSTANCE_ID, UNSUPPORTED_ASSIGNOR = 110, 111, 112
STALE_MEMBER_EPOCH, UNSUPPORTED_VERSION = 113, 35


def fail(msg):
    sys.stderr.write("cgroup_heartbeat_raw: %s\n" % msg)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


class Conn(kafka_wire.Connection):
    def __init__(self, host, port):
        super().__init__(host, port, "cg_raw", 20)

    def call(self, api, version, body, flexible=True):
        r = Reader(super().call(api, version, body, flexible), flexible)
        r.tags()
        return r


def heartbeat(c, group, member_id, epoch, version=1, instance=None, topics=None,
              assignor=None, owned=None, rebalance_ms=-1):
    """One heartbeat; owned is a list of (topic id, [partitions]) or None.
    Returns (error, member id, epoch, assignment or None)."""
    w = Writer(flexible=True)
    w.str(group).str(member_id).i32(epoch).str(instance).str(None).i32(rebalance_ms)
    w.arr(topics, lambda w, t: w.str(t))
    if version >= 1:
        w.str(None)  # SubscribedTopicRegex
    w.str(assignor)

    def topic(w, tp):
        w.uuid(tp[0]).arr(tp[1], lambda w, p: w.i32(p)).tags()

    w.arr(owned, topic).tags()
    r = c.call(API_CG_HEARTBEAT, version, bytes(w.data))
    r.i32()
    err = r.i16()
    r.str()  # ErrorMessage
    mid, mepoch = r.str(), r.i32()
    r.i32()  # HeartbeatIntervalMs
    assignment = None
    if r.i8() >= 0:  # a nullable struct: -1 null, 1 present
        def tp(r):
            tid = r.uuid()
            parts = r.arr(lambda r: r.i32())
            r.tags()
            return (tid, parts)
        assignment = r.arr(tp)
        r.tags()
    return err, mid, mepoch, assignment


def join(c, group, member_id, version=1, instance=None, assignor=None, topic=None):
    return heartbeat(c, group, member_id, 0, version=version, instance=instance,
                     topics=[topic], assignor=assignor, owned=[], rebalance_ms=30000)


def partitions(assignment):
    return sorted(p for _, parts in (assignment or []) for p in parts)


def describe(c, groups, version=1):
    w = Writer(flexible=True).arr(groups, lambda w, g: w.str(g)).i8(0).tags()
    r = c.call(API_CG_DESCRIBE, version, bytes(w.data))
    r.i32()

    def assignment(r):
        def tp(r):
            r.uuid()
            name = r.str()
            parts = r.arr(lambda r: r.i32())
            r.tags()
            return (name, parts)
        a = r.arr(tp)
        r.tags()
        return a

    def member(r):
        m = {"id": r.str(), "instance": r.str(), "rack": r.str(), "epoch": r.i32(),
             "client": r.str(), "host": r.str(), "topics": r.arr(lambda r: r.str()),
             "regex": r.str(), "assignment": assignment(r), "target": assignment(r)}
        if version >= 1:
            m["type"] = r.i8()
        r.tags()
        return m

    def group(r):
        g = {"error": r.i16(), "message": r.str(), "id": r.str(), "state": r.str(),
             "epoch": r.i32(), "assignment_epoch": r.i32(), "assignor": r.str(),
             "members": r.arr(member), "ops": r.i32()}
        r.tags()
        return g

    return r.arr(group)


def find_coordinator(c, group):
    w = Writer(flexible=True).i8(0).arr([group], lambda w, k: w.str(k)).tags()
    r = c.call(API_FIND_COORDINATOR, 4, bytes(w.data))
    r.i32()
    r.uvar()
    r.str()
    r.i32()
    r.str()
    r.i32()
    expect("FindCoordinator", r.i16(), NONE)


def classic_join(c, group, member_id=""):
    protocols = int32(1) + string("range") + int32(2) + b"\x00\x00"
    body = (string(group) + int32(10000) + int32(30000) + string(member_id) + string("consumer") +
            protocols)
    r = c.call(API_JOIN_GROUP, 4, body, flexible=False)
    r.i32()
    err = r.i16()
    r.i32()  # generation
    r.str()
    r.str()
    return err, r.str()


def validation_checks(c, topic):
    expect("v1 join without member id", join(c, "cg-v", "", topic=topic)[0], INVALID_REQUEST)
    expect("join without subscription",
           heartbeat(c, "cg-v", "m", 0, topics=None, owned=[], rebalance_ms=30000)[0],
           INVALID_REQUEST)
    expect("join owning partitions",
           heartbeat(c, "cg-v", "m", 0, topics=[topic], owned=[(b"\x01" * 16, [0])],
                     rebalance_ms=30000)[0], INVALID_REQUEST)
    expect("epoch -3", heartbeat(c, "cg-v", "m", -3)[0], INVALID_REQUEST)
    expect("unknown assignor", join(c, "cg-v", "m", assignor="sticky", topic=topic)[0],
           UNSUPPORTED_ASSIGNOR)
    expect("heartbeat of a member never seen", heartbeat(c, "cg-v", "m", 3, owned=[])[0],
           UNKNOWN_MEMBER_ID)


def two_members(c, topic):
    err, a_id, a_epoch, a_set = join(c, "cg", "", version=0, topic=topic)
    expect("v0 join", (err, a_epoch, partitions(a_set)), (NONE, 1, [0, 1]))
    if not a_id or len(a_id) != 22:
        fail("v0 member id %r is not a coordinator-made id" % a_id)
    err, _, b_epoch, b_set = join(c, "cg", "member-b", topic=topic)
    expect("second member joins, waiting", (err, b_epoch, partitions(b_set)), (NONE, 2, []))
    # a must give one up first; b gets it only after a revoked.
    err, _, epoch, a_set2 = heartbeat(c, "cg", a_id, 1, version=0, owned=a_set)
    expect("first member told to revoke", (err, epoch, len(partitions(a_set2))), (NONE, 1, 1))
    err, _, epoch, b_set = heartbeat(c, "cg", "member-b", 2, owned=[])
    expect("second member still waits", (err, partitions(b_set)), (NONE, []))
    err, _, epoch, _ = heartbeat(c, "cg", a_id, 1, version=0, owned=a_set2)
    expect("first member revoked", (err, epoch), (NONE, 2))
    err, _, epoch, b_set = heartbeat(c, "cg", "member-b", 2, owned=[])
    expect("second member gets the released partition", (err, epoch, len(partitions(b_set))),
           (NONE, 2, 1))
    if set(partitions(b_set)) & set(partitions(a_set2)):
        fail("both members own a partition")
    heartbeat(c, "cg", "member-b", 2, owned=b_set)
    expect("epoch ahead", heartbeat(c, "cg", "member-b", 9, owned=b_set)[0], FENCED_MEMBER_EPOCH)
    expect("third member", join(c, "cg", "member-c", topic=topic)[0], GROUP_MAX_SIZE_REACHED)
    g = describe(c, ["cg"])[0]
    expect("describe", (g["error"], g["state"], g["epoch"], g["assignment_epoch"], g["assignor"]),
           (NONE, "Stable", 2, 2, "uniform"))
    members = sorted(g["members"], key=lambda m: m["id"])
    expect("described members", [(m["epoch"], m["topics"], m["type"]) for m in members],
           [(2, [topic], 1), (2, [topic], 1)])
    names = {n for m in members for n, _ in m["assignment"]}
    expect("assignment topic names", names, {topic})
    g0 = describe(c, ["cg"], version=0)[0]  # v0 has no MemberType
    expect("describe v0", (g0["error"], len(g0["members"])), (NONE, 2))
    # A classic JoinGroup to a consumer group with members joins it as a classic member
    # (cgroup_migration.sh), once group.consumer.max.size allows, which Kafka checks first.
    expect("classic join to a full consumer group", classic_join(c, "cg")[0],
           GROUP_MAX_SIZE_REACHED)
    err, _, epoch, _ = heartbeat(c, "cg", "member-b", -1)
    expect("leave", (err, epoch), (NONE, -1))
    expect("left member heartbeats", heartbeat(c, "cg", "member-b", 2, owned=[])[0],
           UNKNOWN_MEMBER_ID)


def static_members(c, topic):
    err, _, epoch, first = join(c, "cg-s", "s-1", instance="inst", topic=topic)
    expect("static join", (err, partitions(first)), (NONE, [0, 1]))
    expect("instance held", join(c, "cg-s", "s-2", instance="inst", topic=topic)[0],
           UNRELEASED_INSTANCE_ID)
    expect("another member id for the instance",
           heartbeat(c, "cg-s", "s-2", epoch, instance="inst", owned=first)[0], FENCED_INSTANCE_ID)
    err, _, left, _ = heartbeat(c, "cg-s", "s-1", -2, instance="inst")
    expect("static leave", (err, left), (NONE, -2))
    err, _, epoch2, again = join(c, "cg-s", "s-2", instance="inst", topic=topic)
    expect("static rejoin keeps everything", (err, epoch2, partitions(again)),
           (NONE, epoch, [0, 1]))


def one_kind_per_id(c, topic):
    err, member = classic_join(c, "classic-g")
    expect("classic join", err, MEMBER_ID_REQUIRED)
    expect("classic join with its id", classic_join(c, "classic-g", member)[0], NONE)
    expect("consumer join to a classic group with members",
           join(c, "classic-g", "x", topic=topic)[0], GROUP_ID_NOT_FOUND)
    got = [(g["id"], g["error"]) for g in describe(c, ["classic-g", "nosuch", ""], version=0)]
    expect("describe non-consumer groups", got,
           [("classic-g", GROUP_ID_NOT_FOUND), ("nosuch", GROUP_ID_NOT_FOUND),
            ("", INVALID_GROUP_ID)])


def commit(c, group, member, epoch, topic, version=9):
    w = Writer(flexible=True).str(group).i32(epoch).str(member).str(None)

    def part(w, p):
        w.i32(p).i64(1).i32(-1).str("").tags()

    w.arr([topic], lambda w, t: w.str(t).arr([0], part).tags()).tags()
    r = c.call(API_OFFSET_COMMIT, version, bytes(w.data))
    r.i32()
    errors = r.arr(lambda r: (r.str(), r.arr(lambda r: (r.i32(), r.i16(), r.tags())[1]), r.tags())[1])
    return errors[0][0]


def fetch(c, group, member, epoch, topic):
    w = Writer(flexible=True)
    w.arr([group], lambda w, g: w.str(g).str(member).i32(epoch)
          .arr([topic], lambda w, t: w.str(t).arr([0], lambda w, p: w.i32(p)).tags()).tags())
    w.i8(0).tags()
    r = c.call(API_OFFSET_FETCH, 9, bytes(w.data))
    r.i32()

    def part(r):
        r.i32()
        off = r.i64()
        r.i32()
        r.str()
        err = r.i16()
        r.tags()
        return off, err

    def group(r):
        r.str()
        topics = r.arr(lambda r: (r.str(), r.arr(part), r.tags())[1])
        err = r.i16()
        r.tags()
        return err, topics

    return r.arr(group)[0]


def offset_checks(c, topic):
    expect("admin commit to an empty group", commit(c, "cg-o", "", -1, topic), NONE)
    err, _, epoch, _ = join(c, "cg-o", "o-1", topic=topic)
    expect("join", (err, epoch), (NONE, 1))
    expect("admin commit while a member consumes", commit(c, "cg-o", "", -1, topic),
           UNKNOWN_MEMBER_ID)
    expect("commit at the member epoch", commit(c, "cg-o", "o-1", 1, topic), NONE)
    expect("commit at an older epoch", commit(c, "cg-o", "o-1", 0, topic), STALE_MEMBER_EPOCH)
    expect("commit at a newer epoch", commit(c, "cg-o", "o-1", 5, topic), FENCED_MEMBER_EPOCH)
    expect("commit by an unknown member", commit(c, "cg-o", "o-9", 1, topic), UNKNOWN_MEMBER_ID)
    expect("commit v8 by a member", commit(c, "cg-o", "o-1", 1, topic, version=8),
           UNSUPPORTED_VERSION)
    expect("fetch at the member epoch", fetch(c, "cg-o", "o-1", 1, topic)[0], NONE)
    expect("fetch at an older epoch", fetch(c, "cg-o", "o-1", 0, topic)[0], STALE_MEMBER_EPOCH)
    expect("fetch by an unknown member", fetch(c, "cg-o", "o-9", 1, topic)[0], UNKNOWN_MEMBER_ID)
    expect("fetch by an admin", fetch(c, "cg-o", None, -1, topic), (NONE, [[(1, NONE)]]))


def list_groups(c, types):
    w = Writer(flexible=True).arr([], lambda w, s: w.str(s)).arr(types, lambda w, t: w.str(t)).tags()
    r = c.call(API_LIST_GROUPS, 5, bytes(w.data))
    r.i32()
    r.i16()

    def group(r):
        g = (r.str(), r.str(), r.str(), r.str())
        r.tags()
        return g

    return sorted(r.arr(group))


def describe_groups_state(c, group):
    w = Writer(flexible=True).arr([group], lambda w, g: w.str(g)).i8(0).tags()
    r = c.call(API_DESCRIBE_GROUPS, 5, bytes(w.data))
    r.i32()
    r.uvar()
    err = r.i16()
    r.str()  # group id
    return err, r.str()


def list_checks(c):
    # DescribeGroups describes classic groups only: a consumer group is Dead there, as in Kafka.
    expect("DescribeGroups of a consumer group", describe_groups_state(c, "cg"), (NONE, "Dead"))
    got = [g for g in list_groups(c, ["consumer"]) if g[0] == "cg"]
    # The first member is still in; the second left, bumping the epoch: Assigning.
    expect("ListGroups type consumer", got, [("cg", "consumer", "Assigning", "consumer")])
    classic = [g[0] for g in list_groups(c, ["classic"])]
    if "cg" in classic or "classic-g" not in classic:
        fail("ListGroups type classic: %r" % classic)


def main():
    host, port, topic = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with Conn(host, port) as c:
        find_coordinator(c, "cg")
        validation_checks(c, topic)
        two_members(c, topic)
        static_members(c, topic)
        one_kind_per_id(c, topic)
        offset_checks(c, topic)
        list_checks(c)


if __name__ == "__main__":
    main()
