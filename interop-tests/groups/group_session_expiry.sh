#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Session timeout: of two members sharing a 6-partition topic, one is killed
# with SIGKILL (no LeaveGroup, no more heartbeats). Once its session times
# out the coordinator expels it, the survivor is assigned all six partitions
# and consumes everything produced afterwards, the dead member's partitions
# included.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/grouplib.sh"

topic=expiry_topic
gm_topic $topic 6
gm_start_broker
for m in a b; do gm_start $m -g expiry_group -t $topic -s 3000 -c sync; done
gm_wait_counts a=3 b=3
gm_produce $topic 60
gm_wait_consumed_all a b

gm_kill b
gm_wait_counts a=6
if [ "$GR_BROKER_KIND" = gregor ]; then # the mock cluster has no DescribeGroups
    out=$(gr_prog group_admin -b "$GR_BOOTSTRAP" describe expiry_group) || gr_fail "DescribeConsumerGroups failed"
    grep -qx 'group expiry_group Stable NO_ERROR assignor=range members=1' <<<"$out" ||
        gr_fail "the expelled member is still described: $out"
fi
gm_produce $topic 60
gm_wait_consumed_all a b
after_kill=$(tail -n 60 "$GM_PRODUCED" | sort)
[ -z "$(comm -23 <(echo "$after_kill") <(gm_consumed a | sort -u))" ] ||
    gr_fail "the survivor did not consume every record produced after the expulsion"
gm_stop a
gr_pass
