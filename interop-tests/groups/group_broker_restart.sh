#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Groups and committed offsets live in __consumer_offsets and survive the
# broker. Two members commit every record; the broker restarts (SIGTERM)
# under them: the group comes back with its members and generation, so they
# carry on without a rebalance, consuming what is produced afterwards once
# each. They stop, the broker is killed (SIGKILL) and started again: a new
# member of the group resumes exactly at the commits, and the admin API still
# lists the group (Empty) with its committed offsets at the partitions' ends.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/grouplib.sh"

# Restarting the mock cluster loses its state (and moves its port).
gr_require_gregor
topic=restart_topic
group=restart_group
gm_topic $topic 4
gm_start_broker
# Sessions outlast the restart (and the clients' reconnect backoff) even on
# a slow sanitizer build.
for m in a b; do
    gm_start $m -g $group -t $topic -s 30000 -X reconnect.backoff.max.ms=1000 -c sync
done
gm_wait_counts a=2 b=2
gm_produce $topic 100
gm_wait_consumed_all a b
gm_wait_committed_ends a b
rebalances_a=$(gm_rebalances a)
rebalances_b=$(gm_rebalances b)

gr_restart_broker
gm_produce $topic 100
gm_wait_consumed_all a b
[ "$(gm_rebalances a)" = "$rebalances_a" ] && [ "$(gm_rebalances b)" = "$rebalances_b" ] ||
    gr_fail "the members rebalanced across the restart: the group did not come back with its members"
gm_check_no_duplicates a b
gm_wait_committed_ends a b
gm_stop_all a b

gr_kill9_broker
gr_start_broker
before=$(sort "$GM_PRODUCED")
gm_start c -g $group -t $topic -c sync
gm_wait_counts c=4
gm_produce $topic 100
gm_wait_consumed_all a b c
redelivered=$(gm_consumed c | sort | comm -12 - <(echo "$before"))
[ -z "$redelivered" ] || gr_fail "records below the committed offsets redelivered after the restart: $(head -n 3 <<<"$redelivered" | tr '\n' ';')"
gm_check_no_duplicates a b c
gm_stop c

listed=$(gr_prog group_admin -b "$GR_BOOTSTRAP" list) || gr_fail "ListConsumerGroups failed"
grep -qx "group $group Empty consumer" <<<"$listed" || gr_fail "group not listed as Empty: $listed"
offsets=$(gr_prog group_admin -b "$GR_BOOTSTRAP" offsets $group) || gr_fail "ListConsumerGroupOffsets failed"
got=$(awk '$1 == "offset" && $6 == "NO_ERROR" { print $3, $4, $5 }' <<<"$offsets" | sort)
[ "$got" = "$(gm_produced_ends)" ] || gr_fail "committed offsets after the restarts: $offsets; want $(gm_produced_ends | tr '\n' ';')"
gr_pass
