#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""KIP-848 regular-expression subscriptions over raw sockets (cgroup_wire):
ConsumerGroupHeartbeat v1's SubscribedTopicRegex.

before (a fresh broker):
 - a bad regex (and a PCRE-only one RE2 refuses) answers
   INVALID_REGULAR_EXPRESSION with Kafka's message;
 - a member subscribing with "rx-.*" gets the partitions of the matching
   topics only (whole names: "rx" and "other" are left out), and only
   those it may DESCRIBE (the broker's ACLs let only bob see rx-secret);
 - a matching topic created afterwards is assigned at a later heartbeat,
   one that does not match is not;
 - partitions added to a matched topic are assigned;
 - a matched topic deleted leaves the assignment;
 - ConsumerGroupDescribe shows the member's regex.
after (the broker restarted): the member's regex and epoch are replayed,
it heartbeats on at its epoch, and a matching topic created now is
assigned to it.

Topics are created, grown and deleted here over the wire too (CreateTopics
v1, CreatePartitions v0, DeleteTopics v1). A change in the topics is waited
for by heartbeating until the assignment shows it (a bounded number of
tries, never a wall-clock assertion).

Usage: cgroup_regex_raw.py HOST PORT before|after (state kept in $GR_TMP)
Exit status 0 when every check holds, 1 otherwise (the reason on stderr).
"""
import json
import os
import sys
import time

import cgroup_wire as cw
from cgroup_wire import Connection, Reader, Writer

API_CREATE_TOPICS, API_DELETE_TOPICS, API_CREATE_PARTITIONS = 19, 20, 37
API_FIND_COORDINATOR = 10
TOPIC_ALREADY_EXISTS = 36
GROUP = "cg-regex"
MEMBER = "rx-member-1"
REGEX = "rx-.*"
TRIES = 100  # heartbeats (0.1 s apart) a topic change may take to show
STATE = os.path.join(os.environ.get("GR_TMP", "/tmp"), "cgroup_regex_state.json")


def fail(msg):
    sys.stderr.write("cgroup_regex_raw: %s\n" % msg)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


# ---- topics -------------------------------------------------------------------------


def create_topic(conn, name, partitions):
    w = Writer()
    w.arr([name], lambda w, t: w.str(t).i32(partitions).i16(1).arr([], None).arr([], None))
    w.i32(30000).i8(0)
    r = Reader(conn.call(API_CREATE_TOPICS, 1, bytes(w.data)))
    res = r.arr(lambda r: (r.str(), r.i16(), r.str()))
    if res[0][1] not in (cw.NONE, TOPIC_ALREADY_EXISTS):
        fail("CreateTopics %s: %r" % (name, res))


def delete_topic(conn, name):
    w = Writer().arr([name], Writer.str).i32(30000)
    r = Reader(conn.call(API_DELETE_TOPICS, 1, bytes(w.data)))
    r.i32()
    res = r.arr(lambda r: (r.str(), r.i16()))
    expect("DeleteTopics %s" % name, res[0][1], cw.NONE)


def add_partitions(conn, name, count):
    w = Writer().arr([name], lambda w, t: w.str(t).i32(count).i32(-1)).i32(30000).i8(0)
    r = Reader(conn.call(API_CREATE_PARTITIONS, 0, bytes(w.data)))
    r.i32()
    res = r.arr(lambda r: (r.str(), r.i16(), r.str()))
    expect("CreatePartitions %s" % name, res[0][1], cw.NONE)


def find_coordinator(conn):
    w = Writer(True).i8(0).arr([GROUP], Writer.str).tags()
    r = Reader(conn.call(API_FIND_COORDINATOR, 4, bytes(w.data), flexible=True), True)
    r.tags()
    r.i32()
    r.uvar()
    r.str()
    r.i32()
    r.str()
    r.i32()
    expect("FindCoordinator", r.i16(), cw.NONE)


# ---- the member ---------------------------------------------------------------------


class Member:
    """The one member: its epoch and what it owns (as last told)."""

    def __init__(self, conn, epoch=0, owned=None):
        self.conn, self.epoch, self.owned = conn, epoch, owned or []

    def join(self, regex):
        resp = cw.heartbeat(self.conn, group_id=GROUP, member_id=MEMBER, member_epoch=0,
                            rebalance_timeout_ms=30000, subscribed_topic_names=[],
                            subscribed_topic_regex=regex, topic_partitions=[])
        return self._take(resp)

    def beat(self):
        resp = cw.heartbeat(self.conn, group_id=GROUP, member_id=MEMBER, member_epoch=self.epoch,
                            topic_partitions=self.owned)
        return self._take(resp)

    def _take(self, resp):
        if resp["error_code"] == cw.NONE:
            self.epoch = resp["member_epoch"]
            if resp["assignment"] is not None:
                self.owned = resp["assignment"]
        return resp

    def owns(self):
        """{topic name: [partitions]} of what it owns, names as Metadata has them now."""
        return cw.TopicIds.load(self.conn).named(self.owned)

    def until(self, what, cond):
        """Heartbeats until cond(owns()) holds, then once more: owning only
        that, the member has revoked what it lost."""
        for _ in range(TRIES):
            resp = self.beat()
            expect("heartbeat while waiting for " + what, resp["error_code"], cw.NONE)
            if cond(self.owns()):
                expect("acknowledging " + what, self.beat()["error_code"], cw.NONE)
                return
            time.sleep(0.1)
        fail("%s: still owning %r" % (what, self.owns()))


def described_member(conn):
    g = cw.describe(conn, [GROUP])["groups"][0]
    expect("ConsumerGroupDescribe", (g["error_code"], len(g["members"])), (cw.NONE, 1))
    return g, g["members"][0]


# ---- phases -------------------------------------------------------------------------


def bad_regexes(conn):
    for regex in ("rx-(", "(?=rx).*"):
        resp = cw.heartbeat(conn, group_id=GROUP, member_id="bad-member", member_epoch=0,
                            rebalance_timeout_ms=30000, subscribed_topic_names=[],
                            subscribed_topic_regex=regex, topic_partitions=[])
        expect("error for regex %r" % regex, resp["error_code"], cw.INVALID_REGULAR_EXPRESSION)
        want = "SubscribedTopicRegex `%s` is not a valid regular expression: " % regex
        if not (resp["error_message"] or "").startswith(want):
            fail("message for %r: %r" % (regex, resp["error_message"]))


def before(conn):
    for name, partitions in (("rx-alpha", 2), ("rx-beta", 1), ("rx", 1), ("other", 1),
                             ("rx-secret", 1)):
        create_topic(conn, name, partitions)
    find_coordinator(conn)
    bad_regexes(conn)

    m = Member(conn)
    resp = m.join(REGEX)
    expect("join with a regex", resp["error_code"], cw.NONE)
    m.until("the matching topics", lambda o: o == {"rx-alpha": [0, 1], "rx-beta": [0]})

    create_topic(conn, "rx-gamma", 2)
    create_topic(conn, "other-gamma", 1)
    m.until("rx-gamma created", lambda o: o.get("rx-gamma") == [0, 1])
    expect("a topic the regex does not match", "other-gamma" in m.owns(), False)

    add_partitions(conn, "rx-beta", 3)
    m.until("rx-beta grown", lambda o: o.get("rx-beta") == [0, 1, 2])

    delete_topic(conn, "rx-alpha")
    m.until("rx-alpha deleted", lambda o: o == {"rx-beta": [0, 1, 2], "rx-gamma": [0, 1]})

    g, d = described_member(conn)
    expect("described regex", (d["subscribed_topic_regex"], d["member_epoch"]), (REGEX, m.epoch))
    expect("group stable", g["group_state"], "Stable")
    with open(STATE, "w") as f:
        json.dump({"epoch": m.epoch, "group_epoch": g["group_epoch"],
                   "owned": [[t.hex(), p] for t, p in m.owned]}, f)


def after(conn):
    with open(STATE) as f:
        state = json.load(f)
    find_coordinator(conn)
    g, d = described_member(conn)
    expect("replayed member", (d["member_id"], d["subscribed_topic_regex"], d["member_epoch"]),
           (MEMBER, REGEX, state["epoch"]))
    m = Member(conn, state["epoch"], [(bytes.fromhex(t), p) for t, p in state["owned"]])
    resp = m.beat()
    expect("heartbeat at the replayed epoch", (resp["error_code"], resp["member_epoch"]),
           (cw.NONE, state["epoch"]))
    expect("no new group epoch after the restart",
           cw.describe(conn, [GROUP])["groups"][0]["group_epoch"], state["group_epoch"])
    create_topic(conn, "rx-delta", 1)
    m.until("rx-delta created after the restart", lambda o: o.get("rx-delta") == [0])
    expect("leave", cw.heartbeat(conn, group_id=GROUP, member_id=MEMBER,
                                 member_epoch=cw.LEAVE_EPOCH)["error_code"], cw.NONE)


def main():
    host, port, phase = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with Connection(host, port, "cgroup_regex_raw", 20) as conn:
        before(conn) if phase == "before" else after(conn)


if __name__ == "__main__":
    main()
