#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Static membership (group.instance.id). Three static members share a
# 6-partition topic. One stops (a static member sends no LeaveGroup) and
# restarts within its session timeout: it gets the same two partitions back
# and the other two members see no rebalance at all, while every record keeps
# being consumed. Then a second process with the same instance id joins: it
# takes the place over, and the old one is fenced (FENCED_INSTANCE_ID, a
# fatal error for librdkafka), again without a rebalance for the others.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/grouplib.sh"

# librdkafka's mock cluster has no static membership (it rebalances on every
# rejoin), so this runs against gregor only.
gr_require_gregor

topic=static_topic
gm_topic $topic 6
gm_start_broker
# A session long enough for a restart on a loaded machine.
member() { gm_start "$1" -g static_group -t $topic -i "instance-$2" -s 20000 -c sync; }
member a 1
member b 2
member c 3
gm_wait_counts a=2 b=2 c=2
gm_produce $topic 60
gm_wait_consumed_all a b c
rebalances_a=$(gm_rebalances a)
rebalances_b=$(gm_rebalances b)
held_c=$(gm_assignment c)

gm_stop c
member c2 3
gr_wait_until "$GM_WAIT_S" "the restarted static member's assignment" gm_assignment_is c2 "$held_c"
gm_produce $topic 60
gm_wait_consumed_all a b c c2
[ "$(gm_rebalances a)" = "$rebalances_a" ] || gr_fail "a static member's restart rebalanced member a"
[ "$(gm_rebalances b)" = "$rebalances_b" ] || gr_fail "a static member's restart rebalanced member b"

member c3 3
gr_wait_until "$GM_WAIT_S" "the new instance-3 process's assignment" gm_assignment_is c3 "$held_c"
gm_wait_exit c2 3
grep -q '^fatal FENCED_INSTANCE_ID' "$GR_TMP/c2.out" ||
    gr_fail "the replaced instance was not fenced: $(grep '^fatal' "$GR_TMP/c2.out")"
gm_produce $topic 60
gm_wait_consumed_all a b c c2 c3
out=$(gr_prog group_admin -b "$GR_BOOTSTRAP" describe static_group) || gr_fail "DescribeConsumerGroups failed"
instances=$(awk '$1 == "member" { print $5 }' <<<"$out" | sort | tr '\n' ' ')
[ "$instances" = "instance-1 instance-2 instance-3 " ] || gr_fail "described instances: $out"
[ "$(gm_rebalances a)" = "$rebalances_a" ] || gr_fail "replacing a static member rebalanced member a"
[ "$(gm_rebalances b)" = "$rebalances_b" ] || gr_fail "replacing a static member rebalanced member b"
# Static members send no LeaveGroup: stopping them starts no rebalance.
for m in a b c3; do gm_stop $m; done
gr_pass
