#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Rebalance timeout: a member that does not rejoin a rebalance in time is
# removed when the join phase ends, long before its session would expire.
# A kafka-python member (120 s session, 4 s max.poll.interval.ms, which is its
# rebalance timeout) and a librdkafka member (6 s each) share a 4-partition
# topic. The Python process is frozen (SIGSTOP: no heartbeat, no rejoin) and a
# second librdkafka member joins: once the group's rebalance timeout (6 s)
# passes the coordinator drops the frozen member and the two librdkafka
# members split the partitions, well within the 45 s this test waits (the
# frozen member's session alone would keep it for 120 s).
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/grouplib.sh"

# The mock cluster answers kafka-python's JoinGroup with INVALID_REQUEST.
gr_require_gregor
"$GR_PYTHON" -c 'import kafka' 2>/dev/null || { gr_note "skipped: python3-kafka missing for $GR_PYTHON"; exit 77; }
topic=rto_topic
gm_topic $topic 4
gm_start_broker
member() { gm_start "$1" -g rto_group -t $topic -s 6000 -X max.poll.interval.ms=6000 -c sync; }
gm_start_cmd frozen "$GR_PYTHON" "$GR_INTEROP_DIR/py/group_member.py" "$GR_BOOTSTRAP" rto_group $topic 120000 4000
member a
gm_wait_counts frozen=2 a=2

kill -STOP "${GM_PID[frozen]}"
member b
gm_wait_counts a=2 b=2
out=$(gr_prog group_admin -b "$GR_BOOTSTRAP" describe rto_group) || gr_fail "DescribeConsumerGroups failed"
grep -qx 'group rto_group Stable NO_ERROR assignor=range members=2' <<<"$out" ||
    gr_fail "the group is not two stable members: $out"
gm_produce $topic 40
gm_wait_consumed_all a b
gm_kill frozen
gm_stop_all a b
gr_pass
