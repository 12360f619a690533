#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A KIP-848 consumer group across a broker restart, over raw sockets
(helpers of cgroup_heartbeat_raw.py): before, two members join group
"cg-r" (or GROUP) and reconcile, and a third leaves again; after, replayed from the
ConsumerGroup* records of __consumer_offsets, both members heartbeat at
the epochs they had and keep their partitions (no UNKNOWN_MEMBER_ID, no
new group epoch), the one that left stays gone, and ConsumerGroupDescribe
shows the same epochs and assignments.

Usage: cgroup_restart_raw.py HOST PORT TOPIC before|after [GROUP]
  (HOST:PORT: the group's coordinator; GROUP "cg-r" unless given)
"""
import json
import os
import sys

from cgroup_heartbeat_raw import (NONE, UNKNOWN_MEMBER_ID, Conn, describe, expect, find_coordinator,
                                  heartbeat, join, partitions)

STATE = os.path.join(os.environ.get("GR_TMP", "/tmp"), "cgroup_restart_state.json")
GROUP = sys.argv[5] if len(sys.argv) > 5 else "cg-r"


def before(c, topic):
    find_coordinator(c, GROUP)
    _, _, _, a_set = join(c, GROUP, "r-a", topic=topic)
    join(c, GROUP, "r-b", topic=topic)
    _, _, _, a_set = heartbeat(c, GROUP, "r-a", 1, owned=a_set)  # told to revoke one
    _, _, a_epoch, _ = heartbeat(c, GROUP, "r-a", 1, owned=a_set)  # revoked
    err, _, b_epoch, b_set = heartbeat(c, GROUP, "r-b", 2, owned=[])
    expect("second member gets its partition", (err, len(partitions(b_set))), (NONE, 1))
    join(c, GROUP, "r-c", topic=topic)
    expect("third member leaves", heartbeat(c, GROUP, "r-c", -1)[0], NONE)
    # Both reconcile to the epoch the departure made (their partitions stay put).
    for _ in range(3):
        _, _, a_epoch, got = heartbeat(c, GROUP, "r-a", a_epoch, owned=a_set)
        a_set = got if got is not None else a_set
        _, _, b_epoch, got = heartbeat(c, GROUP, "r-b", b_epoch, owned=b_set)
        b_set = got if got is not None else b_set
    g = describe(c, [GROUP])[0]
    expect("stable before the restart", (g["state"], g["epoch"], a_epoch, b_epoch),
           ("Stable", g["epoch"], g["epoch"], g["epoch"]))
    state = {"a": [a_epoch, partitions(a_set)], "b": [b_epoch, partitions(b_set)],
             "epoch": g["epoch"],
             "a_owned": [[t[0].hex(), t[1]] for t in a_set],
             "b_owned": [[t[0].hex(), t[1]] for t in b_set]}
    with open(STATE, "w") as f:
        json.dump(state, f)


def after(c):
    with open(STATE) as f:
        state = json.load(f)
    g = describe(c, [GROUP])[0]
    expect("described after the restart",
           (g["error"], g["state"], g["epoch"], g["assignment_epoch"], len(g["members"])),
           (NONE, "Stable", state["epoch"], state["epoch"], 2))
    for name in ("a", "b"):
        owned = [(bytes.fromhex(t), p) for t, p in state[name + "_owned"]]
        err, _, epoch, _ = heartbeat(c, GROUP, "r-" + name, state[name][0], owned=owned)
        expect("member %s heartbeats at its epoch after the restart" % name,
               (err, epoch), (NONE, state[name][0]))
    expect("the member that left", heartbeat(c, GROUP, "r-c", 3, owned=[])[0], UNKNOWN_MEMBER_ID)
    expect("group epoch unchanged", describe(c, [GROUP])[0]["epoch"], state["epoch"])


def main():
    host, port, topic, phase = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    with Conn(host, port) as c:
        if phase == "before":
            before(c, topic)
        else:
            after(c)


if __name__ == "__main__":
    main()
