#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A consumer group's coordinator is the broker leading its __consumer_offsets
# partition. Group A's coordinator (not the controller) is killed after A
# consumed and committed half of a topic: once its session expires, every
# surviving broker answers FindCoordinator for A with COORDINATOR_NOT_AVAILABLE,
# while group B, coordinated by another broker, is found and consumes (the
# topic's partitions that are still led) and commits. When the broker
# returns it leads its partitions again, reloads group A from its log, and a
# new member of A resumes from A's committed offsets: together the two
# members of A consumed every record exactly once (nothing committed comes
# again, nothing is lost).
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/grouplib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
COORDINATOR_NOT_AVAILABLE=15
OFFSETS_PARTS=6
topic=gdata
gm_topic $topic 3

cl_start_cluster 3 offsets.topic.num.partitions=$OFFSETS_PARTS
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic 3 1) || gr_fail "admin create failed: $out"
[ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"
cl_wait_all_led $topic 3

# The first FindCoordinator creates __consumer_offsets; wait for its leaders.
# shellcheck disable=SC2317
coordinator_found() { [ "$(cl_state "$CL_CONTROLLER" coordinator "$1" 2>/dev/null | cut -d' ' -f1)" = 0 ]; }
gr_wait_until "$CL_WAIT_S" "FindCoordinator to succeed (__consumer_offsets created)" coordinator_found probe
cl_wait_all_led __consumer_offsets $OFFSETS_PARTS

victim=$(cl_non_controller)
group_a='' group_b=''
for ((n = 0; n < 200; n++)); do
    node=$(cl_state "$CL_CONTROLLER" coordinator "group-$n" | awk '$1 == 0 { print $2 }')
    if [ "$node" = "$victim" ] && [ -z "$group_a" ]; then group_a=group-$n; fi
    if [ -n "$node" ] && [ "$node" != "$victim" ] && [ -z "$group_b" ]; then group_b=group-$n b_coordinator=$node; fi
    [ -z "$group_a" ] || [ -z "$group_b" ] || break
done
[ -n "$group_a" ] && [ -n "$group_b" ] || gr_fail "no groups coordinated by broker $victim and by another one: $(cl_state 0 leaders __consumer_offsets | tr '\n' ';')"
gr_note "group $group_a is coordinated by broker $victim, $group_b by broker $b_coordinator"

gm_produce $topic 300
gm_start a1 -g "$group_a" -t $topic -c sync -n 150 -w 60
gm_wait_exit a1 0

cl_kill9_broker "$victim"
# shellcheck disable=SC2317
coordinator_is() # GROUP WANT: every live broker answers FindCoordinator(GROUP)
{                 # with WANT ("ERROR NODE", or "ERROR" alone: any node)
    local i got
    for i in $(cl_live); do
        got=$(cl_state "$i" coordinator "$1" 2>/dev/null) || return 1
        [[ "$2" == *" "* ]] || got=${got%% *}
        [ "$got" = "$2" ] || return 1
    done
}
gr_wait_until "$CL_WAIT_S" "FindCoordinator($group_a) to answer COORDINATOR_NOT_AVAILABLE while broker $victim is down" \
    coordinator_is "$group_a" "$COORDINATOR_NOT_AVAILABLE"
coordinator_is "$group_b" "0 $b_coordinator" || gr_fail "group $group_b lost its coordinator $b_coordinator while broker $victim is down"

# Group B consumes every record of the partitions still led, and commits.
available=$(cl_state "$CL_CONTROLLER" leaders $topic | awk -v v="$victim" '$2 != -1 && $2 != v { print $1 }')
want=0
for p in $available; do want=$((want + $(awk -v t=$topic -v p="$p" '$1 == t && $2 == p' "$GM_PRODUCED" | wc -l))); done
if [ "$want" -gt 0 ]; then
    gm_start b1 -g "$group_b" -t $topic -c sync -n "$want" -w 60
    gm_wait_exit b1 0
    gm_check_no_duplicates b1
    [ "$(gm_consumed b1 | wc -l)" = "$want" ] || gr_fail "group $group_b consumed $(gm_consumed b1 | wc -l) records, want $want"
fi

cl_start_broker "$victim"
gr_wait_until "$CL_WAIT_S" "FindCoordinator($group_a) to name broker $victim again" coordinator_is "$group_a" "0 $victim"
cl_wait_all_led $topic 3

# A new member of group A resumes where a1 committed.
gm_start a2 -g "$group_a" -t $topic -c sync -n 150 -w 60
gm_wait_exit a2 0
gm_check_no_duplicates a1 a2
gm_consumed_all a1 a2 || gr_fail "group $group_a missed records: $(comm -23 <(sort -u "$GM_PRODUCED") <(gm_consumed a1 a2 | sort -u) | head -n 5 | tr '\n' ';')"
gm_committed_ends a1 a2 || gr_fail "group $group_a's commits $(gm_positions a1 a2 | tr '\n' ';') are not the ends $(gm_produced_ends | tr '\n' ';')"
gr_pass
