#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# At-least-once through kills: three members commit every record while
# records keep arriving; in each round one member is killed with SIGKILL and
# a replacement joins, and once the broker itself is killed (SIGKILL) and
# restarted. Whatever the interleaving, every record is consumed (redelivery
# after a kill is allowed, loss is not), and once all members stop the
# group's commits are the partitions' ends: a new member resumes there and
# reads only what is produced afterwards, each record once.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/grouplib.sh"

gr_require_gregor # the mock cluster does not survive a restart
topic=kill_topic
group=kill_group
gm_topic $topic 6
gm_start_broker
member() { gm_start "$1" -g $group -t $topic -X reconnect.backoff.max.ms=1000 -c sync; }
members=(m1 m2 m3)
for m in "${members[@]}"; do member "$m"; done
gm_wait_counts m1=2 m2=2 m3=2
all=(m1 m2 m3)
for round in 1 2 3; do
    gm_produce $topic 100
    victim=${members[round - 1]}
    gm_kill "$victim"
    replacement=r$round
    member $replacement
    all+=("$replacement")
    members[round - 1]=$replacement
    if [ $round = 2 ]; then
        gr_kill9_broker
        gr_start_broker
    fi
    gm_wait_consumed_all "${all[@]}"
done
gm_produce $topic 100
gm_wait_consumed_all "${all[@]}"
gm_wait_committed_ends "${all[@]}"
gm_stop_all "${members[@]}"

before=$(sort "$GM_PRODUCED")
member fresh
gm_wait_counts fresh=6
gm_produce $topic 60
gm_wait_consumed_all "${all[@]}" fresh
redelivered=$(gm_consumed fresh | sort | comm -12 - <(echo "$before"))
[ -z "$redelivered" ] || gr_fail "records below the final commits redelivered: $(head -n 3 <<<"$redelivered" | tr '\n' ';')"
gm_check_no_duplicates fresh
gm_stop fresh
gr_pass
