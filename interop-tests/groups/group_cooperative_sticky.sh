#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Incremental cooperative rebalancing (librdkafka's cooperative-sticky
# assignor). A first member gets all six partitions. As a second and then a
# third member join, the members already in the group give up only the
# partitions that move (their assignment never drops to nothing) and keep
# the rest; the group ends with two partitions each, and every record is
# consumed exactly once throughout (commits are synchronous).
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/grouplib.sh"

topic=coop_topic
gm_topic $topic 6
gm_start_broker
member() { gm_start "$1" -g coop_group -t $topic -a cooperative-sticky -c sync; }
gm_produce $topic 60
member a
gm_wait_counts a=6
gm_wait_consumed_all a

held_before=$(gm_held a)
member b
gm_wait_counts a=3 b=3
[ -z "$(comm -13 <(echo "$held_before") <(gm_held a))" ] || gr_fail "a gained partitions when b joined"
gm_produce $topic 60
gm_wait_consumed_all a b

held_a=$(gm_held a)
held_b=$(gm_held b)
member c
gm_wait_counts a=2 b=2 c=2
[ -z "$(comm -13 <(echo "$held_a") <(gm_held a))" ] || gr_fail "a gained partitions when c joined"
[ -z "$(comm -13 <(echo "$held_b") <(gm_held b))" ] || gr_fail "b gained partitions when c joined"
gm_produce $topic 60
gm_wait_consumed_all a b c
gm_check_no_duplicates a b c

for m in a b; do
    # Incremental: after the first assignment, a revoke hands over only some
    # partitions, so the whole assignment is never empty while running.
    awk '$1 == "assignment" && $2 > 0 { seen = 1 } $1 == "assignment" && $2 == 0 && seen { bad = 1 } END { exit bad }' \
        "$GR_TMP/$m.out" || gr_fail "member $m lost its whole assignment in a rebalance (eager, not incremental)"
    grep -q '^rebalance revoke' "$GR_TMP/$m.out" || gr_fail "member $m never gave partitions up"
done
gm_stop_all a b c
gr_pass
