#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The online migration of a group over raw sockets, across broker restarts
(helpers of cgroup_heartbeat_raw.py), with real ConsumerProtocol bytes:

  before    classic member A joins group "cg-m" (JoinGroup v5, SyncGroup v3,
            partitions 0 and 1); member C joins with ConsumerGroupHeartbeat,
            which upgrades the group: A keeps its generation as its member
            epoch and is told to rejoin (Heartbeat: REBALANCE_IN_PROGRESS);
            ConsumerGroupDescribe v1 shows A as a classic member (type 0)
  middle    after a restart, replayed from the ConsumerGroup* records (A's
            with its ClassicMemberMetadata): A is still a classic member at
            its epoch, rejoins and gets its share with SyncGroup, commits
            with OffsetCommit v2 at its generation (its epoch); then C
            leaves, the group turns classic (DescribeGroups: A alone,
            PreparingRebalance) and ConsumerGroupDescribe no longer knows it
  after     after a second restart, replayed from the consumer group's
            tombstones and the classic record: a classic group with A
  disabled  with group.coordinator.rebalance.protocols=classic:
            ConsumerGroupHeartbeat and ConsumerGroupDescribe answer
            UNSUPPORTED_VERSION, the classic group is still there

Usage: cgroup_migration_raw.py HOST PORT TOPIC before|middle|after|disabled
"""
import json
import os
import struct
import sys

from cgroup_heartbeat_raw import (GROUP_ID_NOT_FOUND, MEMBER_ID_REQUIRED, NONE,
                                  UNSUPPORTED_VERSION, Conn, describe, expect, find_coordinator,
                                  heartbeat, join)
from kafka_wire import Reader, Writer

API_OFFSET_COMMIT, API_JOIN_GROUP, API_HEARTBEAT, API_SYNC_GROUP = 8, 11, 12, 14
API_DESCRIBE_GROUPS = 15
ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS = 22, 27
GROUP = "cg-m"
STATE = os.path.join(os.environ.get("GR_TMP", "/tmp"), "cgroup_migration_state.json")


def raw_bytes(w, b):
    if b is None:
        return w.i32(-1)
    w.i32(len(b))
    w.data += b
    return w


def read_bytes(r):
    n = r.i32()
    return None if n < 0 else bytes(r.take(n))


def subscription(topic):
    """ConsumerProtocolSubscription v0: the topic, no user data."""
    w = Writer().i16(0).arr([topic], lambda w, t: w.str(t))
    return bytes(raw_bytes(w, None).data)


def assignment(topic, parts):
    """ConsumerProtocolAssignment v0."""
    w = Writer().i16(0).arr([topic], lambda w, t: w.str(t).arr(parts, lambda w, p: w.i32(p)))
    return bytes(raw_bytes(w, None).data)


def assigned_partitions(b):
    r = Reader(b)
    r.i16()
    out = r.arr(lambda r: (r.str(), r.arr(lambda r: r.i32())))
    return sorted(p for _, parts in out for p in parts)


def classic_join(c, member_id, topic):
    """JoinGroup v5: (error, generation, protocol, leader, member id)."""
    w = Writer().str(GROUP).i32(10000).i32(30000).str(member_id).str(None).str("consumer")
    w.arr([("range", subscription(topic))], lambda w, p: raw_bytes(w.str(p[0]), p[1]))
    r = c.call(API_JOIN_GROUP, 5, bytes(w.data), flexible=False)
    r.i32()
    err, gen, protocol, leader, mid = r.i16(), r.i32(), r.str(), r.str(), r.str()
    r.arr(lambda r: (r.str(), r.str(), read_bytes(r)))
    return err, gen, protocol, leader, mid


def classic_sync(c, member_id, gen, given=None):
    """SyncGroup v3: (error, assignment bytes)."""
    w = Writer().str(GROUP).i32(gen).str(member_id).str(None)
    w.arr(given or [], lambda w, a: raw_bytes(w.str(a[0]), a[1]))
    r = c.call(API_SYNC_GROUP, 3, bytes(w.data), flexible=False)
    r.i32()
    return r.i16(), read_bytes(r)


def classic_heartbeat(c, member_id, gen):
    w = Writer().str(GROUP).i32(gen).str(member_id).str(None)
    r = c.call(API_HEARTBEAT, 3, bytes(w.data), flexible=False)
    r.i32()
    return r.i16()


def classic_commit(c, member_id, gen, topic):
    """OffsetCommit v2 (a classic client's version) of offset 1 on partition 0: its error."""
    w = Writer().str(GROUP).i32(gen).str(member_id).i64(-1)
    w.arr([topic], lambda w, t: w.str(t).arr([0], lambda w, p: w.i32(p).i64(1).str("")))
    r = c.call(API_OFFSET_COMMIT, 2, bytes(w.data), flexible=False)
    return r.arr(lambda r: (r.str(), r.arr(lambda r: (r.i32(), r.i16()))))[0][1][0][1]


def describe_groups(c):
    """DescribeGroups v1 of GROUP: (error, state, protocol type, member ids)."""
    r = c.call(API_DESCRIBE_GROUPS, 1, bytes(Writer().arr([GROUP], lambda w, g: w.str(g)).data),
               flexible=False)
    r.i32()

    def group(r):
        err, _gid, state, ptype, _proto = r.i16(), r.str(), r.str(), r.str(), r.str()
        members = r.arr(lambda r: (r.str(), r.str(), r.str(), read_bytes(r), read_bytes(r)))
        return err, state, ptype, sorted(m[0] for m in members)

    return r.arr(group)[0]


def types(c):
    g = describe(c, [GROUP])[0]
    return g["error"], sorted((m["id"], m["type"], m["epoch"]) for m in g["members"])


def before(c, topic):
    find_coordinator(c, GROUP)
    err, _, _, _, a = classic_join(c, "", topic)
    expect("classic join", err, MEMBER_ID_REQUIRED)
    err, gen, protocol, leader, _ = classic_join(c, a, topic)
    expect("classic join with its id", (err, protocol, leader), (NONE, "range", a))
    err, got = classic_sync(c, a, gen, [(a, assignment(topic, [0, 1]))])
    expect("classic sync", (err, assigned_partitions(got)), (NONE, [0, 1]))
    err, _, c_epoch, c_set = join(c, GROUP, "m-c", topic=topic)
    expect("a consumer member joins: upgrade", (err, c_set), (NONE, []))
    expect("the classic member is told to rejoin", classic_heartbeat(c, a, gen),
           REBALANCE_IN_PROGRESS)
    expect("described: a classic member at its generation, a consumer member", types(c),
           (NONE, sorted([(a, 0, gen), ("m-c", 1, c_epoch)])))
    with open(STATE, "w") as f:
        json.dump({"a": a, "gen": gen, "c_epoch": c_epoch}, f)


def middle(c, topic):
    with open(STATE) as f:
        s = json.load(f)
    a, gen = s["a"], s["gen"]
    expect("replayed: the classic member is still one", types(c),
           (NONE, sorted([(a, 0, gen), ("m-c", 1, s["c_epoch"])])))
    expect("replayed classic member heartbeats", classic_heartbeat(c, a, gen),
           REBALANCE_IN_PROGRESS)
    err, new_gen, protocol, leader, _ = classic_join(c, a, topic)
    expect("classic rejoin into the consumer group", (err, protocol, leader), (NONE, "range", ""))
    err, got = classic_sync(c, a, new_gen)
    expect("classic sync: its share", (err, len(assigned_partitions(got))), (NONE, 1))
    expect("classic member commits with OffsetCommit v2", classic_commit(c, a, new_gen, topic), NONE)
    expect("at another generation", classic_commit(c, a, new_gen + 1, topic), ILLEGAL_GENERATION)
    expect("consumer member leaves", heartbeat(c, GROUP, "m-c", -1)[0], NONE)
    expect("downgraded", describe_groups(c), (NONE, "PreparingRebalance", "consumer", [a]))
    expect("no consumer group any more", describe(c, [GROUP])[0]["error"], GROUP_ID_NOT_FOUND)


def after(c):
    with open(STATE) as f:
        a = json.load(f)["a"]
    err, state, ptype, members = describe_groups(c)
    expect("replayed as a classic group", (err, ptype, members), (NONE, "consumer", [a]))
    expect("replayed: no consumer group", describe(c, [GROUP])[0]["error"], GROUP_ID_NOT_FOUND)


def disabled(c, topic):
    with open(STATE) as f:
        a = json.load(f)["a"]
    expect("ConsumerGroupHeartbeat without the consumer protocol",
           join(c, GROUP, "m-d", topic=topic)[0], UNSUPPORTED_VERSION)
    expect("ConsumerGroupDescribe without the consumer protocol",
           describe(c, [GROUP])[0]["error"], UNSUPPORTED_VERSION)
    err, _, ptype, members = describe_groups(c)
    expect("the classic group is untouched", (err, ptype, members), (NONE, "consumer", [a]))


def main():
    host, port, topic, phase = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    c = Conn(host, port)
    if phase == "before":
        before(c, topic)
    elif phase == "middle":
        middle(c, topic)
    elif phase == "after":
        after(c)
    else:
        disabled(c, topic)
    print("cgroup_migration_raw %s: ok" % phase)


if __name__ == "__main__":
    main()
