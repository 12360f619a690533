#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Eager rebalances (librdkafka's range assignor): three members of one group
# over a 6-partition topic get two partitions each; when one leaves
# (LeaveGroup on close) the other two take its partitions over, three each,
# and between them consume every record produced before and after, including
# those of the partitions they took over.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/grouplib.sh"

topic=leave_topic
gm_topic $topic 6
gm_start_broker
gm_produce $topic 120
for m in a b c; do gm_start $m -g leave_group -t $topic -c auto; done
gm_wait_counts a=2 b=2 c=2
gm_wait_consumed_all a b c

gm_stop c
gm_wait_counts a=3 b=3
gm_produce $topic 120
# c's output still counts for what it consumed before it left.
gm_wait_consumed_all a b c
# Each record after the leave went to exactly one of the remaining members:
# nothing was pending when c left, so a and b share no new record.
new=$(tail -n 120 "$GM_PRODUCED" | sort)
dups=$(gm_consumed a b | sort | uniq -d | comm -12 - <(echo "$new"))
[ -z "$dups" ] || gr_fail "records produced after the rebalance consumed twice: $(head -n 3 <<<"$dups")"
gm_stop_all a b
gr_pass
