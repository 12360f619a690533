#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The admin APIs on a KIP-848 consumer group, over raw sockets (requests
built by hand, standard library only), as Kafka 4.x answers them:

- ListGroups v5 lists it with GroupType "consumer", protocol type
  "consumer" and its own state; TypesFilter and StatesFilter match
  case-insensitively ("share" matches nothing here); v4 filters by state;
- DescribeGroups describes classic groups only: a consumer group is
  GROUP_ID_NOT_FOUND "Group G is not a classic group." at v6, Dead without
  error at v5;
- OffsetDelete refuses the partitions of a topic a member subscribes to
  (GROUP_SUBSCRIBED_TO_TOPIC) and deletes the others' offsets;
- DeleteGroups: NON_EMPTY_GROUP while it has a member, then (the member
  left) the group and its offsets go; a second delete is GROUP_ID_NOT_FOUND;
  after a restart (mode after-restart) it is still gone.

Usage: cgroup_admin_raw.py HOST PORT TOPIC OTHER_TOPIC (one partition each)
Exit status 0 when every check holds, 1 otherwise (the reason on stderr).

       cgroup_admin_raw.py after-restart HOST PORT TOPIC
checks, after the broker restarted, that the deleted group stayed deleted.

       cgroup_admin_raw.py member HOST PORT GROUP MEMBER_ID EPOCH [TOPIC]
sends one ConsumerGroupHeartbeat (EPOCH 0 joins, subscribing to TOPIC; -1
leaves) and prints "ERROR EPOCH" (the admin tool's test drives a member so).
"""
import sys
import time

import kafka_wire
from kafka_wire import Reader, Writer

API_OFFSET_COMMIT, API_OFFSET_FETCH, API_FIND_COORDINATOR = 8, 9, 10
API_DESCRIBE_GROUPS, API_LIST_GROUPS, API_OFFSET_DELETE, API_DELETE_GROUPS = 15, 16, 47, 42
API_CG_HEARTBEAT = 68
NONE, NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND, GROUP_SUBSCRIBED_TO_TOPIC = 0, 68, 69, 86
COORDINATOR_LOAD_IN_PROGRESS = 14

CONSUMER, CLASSIC = "cga", "cgc"  # a KIP-848 group, a classic group


def fail(msg):
    sys.stderr.write("cgroup_admin_raw: %s\n" % msg)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


class Conn(kafka_wire.Connection):
    def __init__(self, host, port):
        super().__init__(host, port, "cga_raw", 20)

    def call(self, api, version, w):
        r = Reader(super().call(api, version, bytes(w.data), w.flexible), w.flexible)
        r.tags()
        return r


def heartbeat(c, member_id, epoch, topic=None, group=CONSUMER):
    """ConsumerGroupHeartbeat v1: a join (epoch 0, subscribing to topic) or
    a leave (-1). Returns (error, member epoch)."""
    w = Writer(flexible=True).str(group).str(member_id).i32(epoch).str(None).str(None)
    w.i32(30000 if epoch == 0 else -1)
    w.arr([topic] if topic else None, lambda w, t: w.str(t))
    w.str(None).str(None)  # SubscribedTopicRegex, ServerAssignor
    w.arr([] if epoch == 0 else None, lambda w, t: None).tags()
    r = c.call(API_CG_HEARTBEAT, 1, w)
    r.i32()
    err = r.i16()
    r.str()  # ErrorMessage
    r.str()  # MemberId
    return err, r.i32()


def admin_commit(c, group, topics):
    """OffsetCommit v2 with no member (an admin's), offset 5 for partition 0 of each topic."""
    w = Writer().str(group).i32(-1).str("").i64(-1)
    w.arr(topics, lambda w, t: w.str(t).arr([0], lambda w, p: w.i32(p).i64(5).str("")))
    r = c.call(API_OFFSET_COMMIT, 2, w)
    return r.arr(lambda r: (r.str(), r.arr(lambda r: (r.i32(), r.i16()))))


def committed(c, group, topic):
    """OffsetFetch v3: partition 0's committed offset (-1: none)."""
    w = Writer().str(group).arr([topic], lambda w, t: w.str(t).arr([0], lambda w, p: w.i32(p)))
    r = c.call(API_OFFSET_FETCH, 3, w)
    r.i32()
    topics = r.arr(lambda r: (r.str(), r.arr(lambda r: (r.i32(), r.i64(), r.str(), r.i16()))))
    return topics[0][1][0][1]


def list_groups(c, states=(), types=None, version=5, loading_ok=False):
    """{group: (protocol type, state, type or None)}, after checking the
    error (None while the coordinator loads, if loading_ok)."""
    w = Writer(flexible=True).arr(list(states), lambda w, s: w.str(s))
    if version >= 5:
        w.arr(list(types or []), lambda w, t: w.str(t))
    r = c.call(API_LIST_GROUPS, version, w.tags())
    r.i32()
    err = r.i16()
    if loading_ok and err == COORDINATOR_LOAD_IN_PROGRESS:
        return None
    expect("ListGroups error", err, NONE)

    def group(r):
        g = (r.str(), r.str(), r.str(), r.str() if version >= 5 else None)
        r.tags()
        return g

    return {g[0]: g[1:] for g in r.arr(group)}


def describe_groups(c, group, version):
    """(error, message or None, state, protocol type, member count)."""
    w = Writer(flexible=True).arr([group], lambda w, g: w.str(g)).i8(0).tags()
    r = c.call(API_DESCRIBE_GROUPS, version, w)
    r.i32()
    r.uvar()  # one group
    err = r.i16()
    msg = r.str() if version >= 6 else None
    r.str()
    state, ptype = r.str(), r.str()
    r.str()  # ProtocolData
    members = r.uvar() - 1
    return err, msg, state, ptype, members


def offset_delete(c, group, topic):
    """OffsetDelete v0 of partition 0: (group error, partition error)."""
    w = Writer().str(group).arr([topic], lambda w, t: w.str(t).arr([0], lambda w, p: w.i32(p)))
    r = c.call(API_OFFSET_DELETE, 0, w)
    err = r.i16()
    r.i32()
    topics = r.arr(lambda r: (r.str(), r.arr(lambda r: (r.i32(), r.i16()))))
    return err, topics[0][1][0][1] if topics else None


def delete_group(c, group):
    w = Writer(flexible=True).arr([group], lambda w, g: w.str(g)).tags()
    r = c.call(API_DELETE_GROUPS, 2, w)
    r.i32()
    r.uvar()
    r.str()
    return r.i16()


def find_coordinator(c, group):
    w = Writer(flexible=True).i8(0).arr([group], lambda w, k: w.str(k)).tags()
    r = c.call(API_FIND_COORDINATOR, 4, w)
    r.i32()
    r.uvar()
    r.str()
    r.i32()
    r.str()
    r.i32()
    expect("FindCoordinator", r.i16(), NONE)


def listing_checks(c):
    everything = list_groups(c)
    expect("ListGroups: the consumer group", everything.get(CONSUMER),
           ("consumer", "Stable", "consumer"))
    expect("ListGroups: the classic group", everything.get(CLASSIC), ("", "Empty", "classic"))
    expect("TypesFilter Consumer", sorted(list_groups(c, types=["Consumer"])), [CONSUMER])
    expect("TypesFilter CLASSIC", CONSUMER in list_groups(c, types=["CLASSIC"]), False)
    expect("TypesFilter CLASSIC lists the classic group", CLASSIC in list_groups(c, types=["CLASSIC"]),
           True)
    expect("TypesFilter share", list_groups(c, types=["share"]), {})
    expect("TypesFilter both", sorted(list_groups(c, types=["classic", "consumer"])),
           sorted(everything))
    expect("StatesFilter stable", sorted(list_groups(c, states=["stable"])), [CONSUMER])
    expect("StatesFilter Empty and consumer", list_groups(c, states=["Empty"], types=["consumer"]),
           {})
    expect("StatesFilter Assigning", list_groups(c, states=["Assigning", "Reconciling"]), {})
    expect("ListGroups v4 StatesFilter STABLE", list_groups(c, states=["STABLE"], version=4),
           {CONSUMER: ("consumer", "Stable", None)})


def describe_checks(c):
    expect("DescribeGroups v6 of a consumer group", describe_groups(c, CONSUMER, 6),
           (GROUP_ID_NOT_FOUND, "Group %s is not a classic group." % CONSUMER, "Dead", "", 0))
    expect("DescribeGroups v5 of a consumer group", describe_groups(c, CONSUMER, 5),
           (NONE, None, "Dead", "", 0))
    expect("DescribeGroups v6 of a classic group", describe_groups(c, CLASSIC, 6),
           (NONE, None, "Empty", "", 0))


def member():
    host, port, group, member_id, epoch = sys.argv[2], int(sys.argv[3]), *sys.argv[4:7]
    topic = sys.argv[7] if len(sys.argv) > 7 else None
    with Conn(host, port) as c:
        find_coordinator(c, group)
        print("%d %d" % heartbeat(c, member_id, int(epoch), topic, group))


def after_restart():
    """The deleted consumer group stays deleted once __consumer_offsets is replayed."""
    host, port, topic = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    with Conn(host, port) as c:
        find_coordinator(c, CLASSIC)
        deadline = time.monotonic() + 20
        groups = None
        while groups is None and time.monotonic() < deadline:
            groups = list_groups(c, loading_ok=True)
            if groups is None:
                time.sleep(0.1)
        if groups is None:
            fail("the coordinator still loads after 20 s")
        expect("the deleted consumer group after a restart", CONSUMER in groups, False)
        expect("the classic group after a restart", groups.get(CLASSIC), ("", "Empty", "classic"))
        expect("the deleted group's offsets after a restart", committed(c, CONSUMER, topic), -1)


def main():
    if sys.argv[1] == "member":
        member()
        return
    if sys.argv[1] == "after-restart":
        after_restart()
        return
    host, port, topic, other = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    with Conn(host, port) as c:
        find_coordinator(c, CONSUMER)
        find_coordinator(c, CLASSIC)
        # Offsets first (an admin commit to a new group), then a member joins:
        # the empty classic group becomes a consumer group, offsets kept.
        for r in admin_commit(c, CONSUMER, [topic, other]) + admin_commit(c, CLASSIC, [topic]):
            expect("admin commit of %s" % r[0], r[1][0][1], NONE)
        expect("join", heartbeat(c, "member-1", 0, topic), (NONE, 1))
        listing_checks(c)
        describe_checks(c)

        expect("OffsetDelete of a subscribed topic", offset_delete(c, CONSUMER, topic),
               (NONE, GROUP_SUBSCRIBED_TO_TOPIC))
        expect("its offset is kept", committed(c, CONSUMER, topic), 5)
        expect("OffsetDelete of a topic nobody subscribes to", offset_delete(c, CONSUMER, other),
               (NONE, NONE))
        expect("its offset is gone", committed(c, CONSUMER, other), -1)

        expect("DeleteGroups with a member", delete_group(c, CONSUMER), NON_EMPTY_GROUP)
        expect("leave", heartbeat(c, "member-1", -1)[0], NONE)
        expect("ListGroups after the leave", list_groups(c, types=["consumer"]).get(CONSUMER),
               ("consumer", "Empty", "consumer"))
        expect("StatesFilter empty", CONSUMER in list_groups(c, states=["empty"]), True)
        expect("DeleteGroups of the empty consumer group", delete_group(c, CONSUMER), NONE)
        expect("its offsets are gone", committed(c, CONSUMER, topic), -1)
        expect("not listed after deletion", CONSUMER in list_groups(c), False)
        expect("DeleteGroups again", delete_group(c, CONSUMER), GROUP_ID_NOT_FOUND)
        expect("the classic group is untouched", committed(c, CLASSIC, topic), 5)


if __name__ == "__main__":
    main()
