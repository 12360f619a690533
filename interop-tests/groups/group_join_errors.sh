#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# JoinGroup refusals, as librdkafka members see them: a session timeout below
# group.min.session.timeout.ms (INVALID_SESSION_TIMEOUT); an assignor the
# group's members do not support (INCONSISTENT_GROUP_PROTOCOL); a member
# beyond group.max.size (GROUP_MAX_SIZE_REACHED). The members already in the
# groups are not disturbed: they keep their partitions, with no rebalance.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/grouplib.sh"

gr_require_gregor # the mock cluster has no group.max.size nor session limits
topic=join_topic
gm_topic $topic 4
gm_start_broker group.max.size=2
has_error() { grep -q "^\\(error\\|fatal\\) $2 " "$GR_TMP/$1.out"; }

gm_start short -g short_group -t $topic -s 1000 -h 200
gr_wait_until "$GM_WAIT_S" "INVALID_SESSION_TIMEOUT for a 1 s session" has_error short INVALID_SESSION_TIMEOUT
[ "$(gm_assigned_count short)" = 0 ] || gr_fail "a member with a refused session timeout got partitions"
gm_kill short

# Kafka checks the group's size before the protocols, so the protocol check
# needs a group with room.
gm_start p -g proto_group -t $topic -a range
gm_wait_counts p=4
rebalances_p=$(gm_rebalances p)
gm_start rr -g proto_group -t $topic -a roundrobin
gr_wait_until "$GM_WAIT_S" "INCONSISTENT_GROUP_PROTOCOL for a roundrobin member" has_error rr INCONSISTENT_GROUP_PROTOCOL
gm_kill rr
[ "$(gm_assigned_count rr)" = 0 ] || gr_fail "the roundrobin member got partitions"

for m in a b; do gm_start $m -g full_group -t $topic -a range; done
gm_wait_counts a=2 b=2
rebalances_a=$(gm_rebalances a)
rebalances_b=$(gm_rebalances b)
gm_start third -g full_group -t $topic -a range
gr_wait_until "$GM_WAIT_S" "GROUP_MAX_SIZE_REACHED for a third member" has_error third GROUP_MAX_SIZE_REACHED
gm_kill third
[ "$(gm_assigned_count third)" = 0 ] || gr_fail "the member beyond group.max.size got partitions"

gm_produce $topic 40
gm_wait_consumed_all p
gm_wait_consumed_all a b
[ "$(gm_rebalances p)" = "$rebalances_p" ] || gr_fail "a refused join rebalanced member p"
[ "$(gm_rebalances a)" = "$rebalances_a" ] || gr_fail "a refused join rebalanced member a"
[ "$(gm_rebalances b)" = "$rebalances_b" ] || gr_fail "a refused join rebalanced member b"
gm_stop p
gm_stop_all a b
gr_pass
