#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""KIP-932 share groups over raw sockets: ShareGroupHeartbeat (v1) and
ShareGroupDescribe (v1), with the group admin APIs around them.

before:
- malformed heartbeats are INVALID_REQUEST (no member id, a join without
  topics);
- three members join group "sg" (or GROUP) on a one-partition topic, then
  heartbeat until they are at the group's epoch: every one of them is
  assigned partition 0 (a share-partition is shared);
- ShareGroupDescribe: Stable, the epochs, assignor "simple", the three
  members with the topic's name; a classic or unknown group is
  GROUP_ID_NOT_FOUND;
- one id, one kind: ConsumerGroupHeartbeat and JoinGroup on the share
  group's id are refused (GROUP_ID_NOT_FOUND, INCONSISTENT_GROUP_PROTOCOL);
- ListGroups v5 lists it under type "share" (protocol type "share", state
  "Stable"); DescribeGroups v5 shows it Dead (classic groups only), v6
  GROUP_ID_NOT_FOUND; DeleteGroups of it is NON_EMPTY_GROUP.
after (the broker restarted):
- the group is replayed: described with the same epochs and members, and
  each member heartbeats on at its epoch keeping partition 0;
- all leave (-1), the group is Empty, DeleteGroups deletes it, and it is
  gone from ListGroups and ShareGroupDescribe.
disabled (group.coordinator.rebalance.protocols without "share"):
- both APIs answer UNSUPPORTED_VERSION.

Usage: share_group_heartbeat_raw.py HOST PORT TOPIC before|after|disabled [GROUP]
Exit status 0 when every check holds, 1 otherwise (the reason on stderr).
"""
import json
import os
import sys

from kafka_wire import Writer
import cgroup_heartbeat_raw
from cgroup_heartbeat_raw import (GROUP_ID_NOT_FOUND, INCONSISTENT_GROUP_PROTOCOL,
                                  INVALID_REQUEST, NONE, UNSUPPORTED_VERSION, classic_join, expect,
                                  find_coordinator)
from cgroup_heartbeat_raw import join as consumer_join
from cgroup_admin_raw import delete_group, describe_groups, list_groups

API_SG_HEARTBEAT, API_SG_DESCRIBE = 76, 77
NON_EMPTY_GROUP = 68
GROUP = sys.argv[5] if len(sys.argv) > 5 else "sg"
MEMBERS = ["share-member-a", "share-member-b", "share-member-c"]


class Conn(cgroup_heartbeat_raw.Conn):
    """Takes request bodies as bytes or as a Writer (cgroup_admin_raw's helpers send Writers)."""

    def call(self, api, version, body, flexible=True):
        if isinstance(body, Writer):
            body, flexible = bytes(body.data), body.flexible
        return super().call(api, version, body, flexible)


STATE = os.path.join(os.environ.get("GR_TMP", "/tmp"), "share_group_heartbeat_state.json")


def heartbeat(c, member_id, epoch, topics=None, group=GROUP):
    """One ShareGroupHeartbeat v1: (error, member id, epoch, [partitions] or None)."""
    w = Writer(flexible=True).str(group).str(member_id).i32(epoch).str(None)
    w.arr(topics, lambda w, t: w.str(t)).tags()
    r = c.call(API_SG_HEARTBEAT, 1, bytes(w.data))
    r.i32()
    err = r.i16()
    r.str()  # ErrorMessage
    mid, mepoch = r.str(), r.i32()
    r.i32()  # HeartbeatIntervalMs
    parts = None
    if r.i8() >= 0:  # a nullable struct: -1 null, 1 present
        def tp(r):
            r.uuid()
            p = r.arr(lambda r: r.i32())
            r.tags()
            return p
        parts = sorted(p for ps in r.arr(tp) for p in ps)
        r.tags()
    return err, mid, mepoch, parts


def describe(c, groups):
    w = Writer(flexible=True).arr(groups, lambda w, g: w.str(g)).i8(0).tags()
    r = c.call(API_SG_DESCRIBE, 1, bytes(w.data))
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
        m = {"id": r.str(), "rack": r.str(), "epoch": r.i32(), "client": r.str(),
             "host": r.str(), "topics": r.arr(lambda r: r.str()), "assignment": assignment(r)}
        r.tags()
        return m

    def group(r):
        g = {"error": r.i16(), "message": r.str(), "id": r.str(), "state": r.str(),
             "epoch": r.i32(), "assignment_epoch": r.i32(), "assignor": r.str(),
             "members": r.arr(member), "ops": r.i32()}
        r.tags()
        return g

    return r.arr(group)


def settle(c, epochs):
    """Heartbeats every member until each is at the group's epoch; returns their partitions."""
    parts = {}
    for _ in range(len(MEMBERS) + 1):
        for m in MEMBERS:
            err, _, epochs[m], got = heartbeat(c, m, epochs[m])
            expect("heartbeat of " + m, err, NONE)
            if got is not None:
                parts[m] = got
    return parts


def before(c, topic):
    find_coordinator(c, GROUP)
    expect("join without member id", heartbeat(c, "", 0, [topic])[0], INVALID_REQUEST)
    expect("join without topics", heartbeat(c, "x", 0, None)[0], INVALID_REQUEST)
    expect("heartbeat to no group", heartbeat(c, "x", 1, group="sg-none")[0], GROUP_ID_NOT_FOUND)
    epochs = {}
    for i, m in enumerate(MEMBERS):
        err, mid, epochs[m], parts = heartbeat(c, m, 0, [topic])
        expect("join of " + m, (err, mid, epochs[m], parts), (NONE, m, i + 1, [0]))
    parts = settle(c, epochs)
    expect("epochs settled", sorted(set(epochs.values())), [len(MEMBERS)])
    for m in MEMBERS:
        expect("partition of " + m, parts.get(m, [0]), [0])
    g = describe(c, [GROUP, "sg-unknown"])
    expect("described", (g[0]["error"], g[0]["state"], g[0]["epoch"], g[0]["assignment_epoch"],
                         g[0]["assignor"], len(g[0]["members"])),
           (NONE, "Stable", 3, 3, "simple", 3))
    for m in g[0]["members"]:
        expect("described member", (m["epoch"], m["topics"], m["assignment"]),
               (3, [topic], [(topic, [0])]))
    expect("unknown group described", g[1]["error"], GROUP_ID_NOT_FOUND)
    expect("ConsumerGroupHeartbeat on the share group",
           consumer_join(c, GROUP, "cg-member", topic=topic)[0], GROUP_ID_NOT_FOUND)
    expect("JoinGroup on the share group", classic_join(c, GROUP)[0], INCONSISTENT_GROUP_PROTOCOL)
    expect("ListGroups type share", list_groups(c, types=["share"]).get(GROUP),
           ("share", "Stable", "share"))
    expect("ListGroups type consumer", GROUP in list_groups(c, types=["consumer"]), False)
    expect("DescribeGroups v5", describe_groups(c, GROUP, 5)[:3], (NONE, None, "Dead"))
    expect("DescribeGroups v6", describe_groups(c, GROUP, 6)[0], GROUP_ID_NOT_FOUND)
    expect("DeleteGroups with members", delete_group(c, GROUP), NON_EMPTY_GROUP)
    with open(STATE, "w") as f:
        json.dump(epochs, f)


def after(c, topic):
    find_coordinator(c, GROUP)
    with open(STATE) as f:
        epochs = json.load(f)
    g = describe(c, [GROUP])[0]
    expect("described after the restart", (g["error"], g["state"], g["epoch"],
                                            g["assignment_epoch"], len(g["members"])),
           (NONE, "Stable", 3, 3, 3))
    for m in MEMBERS:
        err, _, epoch, parts = heartbeat(c, m, epochs[m])
        expect("heartbeat of %s after the restart" % m, (err, epoch), (NONE, epochs[m]))
        expect("its partition is kept", parts, None)
    for m in MEMBERS:
        expect("leave of " + m, heartbeat(c, m, -1)[:3], (NONE, m, -1))
    expect("ListGroups: Empty", list_groups(c, types=["share"]).get(GROUP),
           ("share", "Empty", "share"))
    expect("DeleteGroups", delete_group(c, GROUP), NONE)
    expect("gone from ListGroups", GROUP in list_groups(c), False)
    expect("gone from ShareGroupDescribe", describe(c, [GROUP])[0]["error"], GROUP_ID_NOT_FOUND)


def disabled(c, topic):
    expect("heartbeat with share groups off", heartbeat(c, "m", 0, [topic])[0],
           UNSUPPORTED_VERSION)
    expect("describe with share groups off", describe(c, [GROUP])[0]["error"],
           UNSUPPORTED_VERSION)


def main():
    host, port, topic, phase = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    with Conn(host, port) as c:
        {"before": before, "after": after, "disabled": disabled}[phase](c, topic)


if __name__ == "__main__":
    main()
