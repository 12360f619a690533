#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A topic deleted while one of its partitions is being moved: topic dt on
# [O] (O not the controller C) holds records; the third broker F is frozen
# (SIGSTOP) so that the move of dt-0 to [F,C] cannot finish, and DeleteTopics
# comes while it is listed (answered at once or at its timeout: Kafka's
# ZooKeeper-mode controller holds a deletion back until the move is done).
# F is thawed. In the end the topic is gone from every broker's Metadata and
# from /brokers/topics, nothing is listed, and no broker keeps a directory
# for dt-0 (the original replica's, the one C was adding, F's); a topic of
# the same name can be created again, empty.
CL_SESSION_TIMEOUT_MS=${CL_SESSION_TIMEOUT_MS:-10000} # F stays registered while frozen
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
UNKNOWN=3 REQUEST_TIMED_OUT=7
topic=dt

cl_start_cluster 3 replica.lag.time.max.ms=10000 auto.leader.rebalance.enable=false
C=$CL_CONTROLLER
read -r O F <<<"$(cl_live_except "$C")"
gr_note "controller C=$C, original replica O=$O, frozen broker F=$F"
cl_create_assigned "$C" $topic "$O"
cl_expect "acks=all produce to $topic-0" "0 0" "$(cl_state "$O" produce $topic 0 -1 50)"

cl_freeze_broker "$F"
cl_expect "moving $topic-0 to [$F,$C]" "top 0|$topic 0 0" "$(cl_reassign "$C" alter "$topic:0=$F,$C" | paste -sd'|')"
cl_expect "ListPartitionReassignments while $F is frozen" "top 0|$topic 0 $F,$C,$O $F,$C $O" \
    "$(cl_reassign "$C" list | paste -sd'|')"
got=$(cl_state "$C" delete $topic 3000) || gr_fail "DeleteTopics to the controller got no answer"
[ "$got" = 0 ] || [ "$got" = "$REQUEST_TIMED_OUT" ] || gr_fail "DeleteTopics answered $got, want 0 or REQUEST_TIMED_OUT"
gr_note "DeleteTopics of $topic during the move: $got"
cl_thaw_broker "$F"
cl_wait_stable "broker $F thawed"

# shellcheck disable=SC2317
gone_everywhere()
{
    local i
    for i in $(cl_live); do
        [ "$(cl_state "$i" leaders $topic 2>/dev/null)" = "error $UNKNOWN" ] || return 1
    done
    [ "$(cl_reassign "$C" list 2>/dev/null)" = "top 0" ] && [ -z "$(cl_replica_dirs $topic 0)" ]
}
deadline=$((SECONDS + CL_MOVE_WAIT_S))
until gone_everywhere; do
    if [ $SECONDS -ge $deadline ]; then
        for i in $(cl_live); do gr_note "broker $i: $(cl_state "$i" leaders $topic 2>&1 | paste -sd';')"; done
        gr_note "controller $C lists: $(cl_reassign "$C" list 2>&1 | paste -sd'|')"
        gr_fail "after ${CL_MOVE_WAIT_S}s $topic is not gone: brokers [$(cl_replica_dirs $topic 0)] still hold a directory for $topic-0"
    fi
    sleep 0.2
done
gr_note "$topic gone from every broker's metadata and log dirs, nothing listed"
topics=$(cl_zk ls "$CL_ZK_CHROOT/brokers/topics") || gr_fail "zkCli ls /brokers/topics failed"
[[ $topics != *"$topic"* ]] || gr_fail "/brokers/topics still lists $topic: $topics"
cl_expect "creating $topic again on [$O]" 0 "$(cl_state "$C" create-assigned $topic "$O")"
cl_wait_all_led $topic 1
cl_expect "$topic's high watermark after its re-creation" "0 0 0" "$(cl_state "$O" offsets $topic)"
gr_pass
