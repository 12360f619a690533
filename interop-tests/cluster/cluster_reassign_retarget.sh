#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A new target for a partition already being moved replaces the old one
# (KIP-455): the original replicas stay those from before the first move,
# and a replica the first move was adding that the new target leaves out is
# dropped. Topic rt on [O] (O not the controller C) holds seq_producer's
# records; the third broker F is frozen (SIGSTOP) so that it cannot catch
# up, and rt-0 is moved to [F,C]: listed with replicas F,C,O, adding F,C,
# removing O. Then it is moved to [C] instead: the answer is NONE, and from
# then on a listing never names F, until nothing is listed (C, not frozen,
# catches up). C and O report replicas C, ISR {C}, leader C; the assignment
# znode says C with no adding or removing replicas. F is thawed; once it has
# handled a later assignment (a topic placed on it alone, led by it), only
# C holds a directory for rt-0 (O's and F's are deleted); every record is
# read back; rt-0 takes records at the next offset.
CL_SESSION_TIMEOUT_MS=${CL_SESSION_TIMEOUT_MS:-10000} # F stays registered while frozen
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
topic=rt
N=${SEQ_N:-2000}

cl_start_cluster 3 replica.lag.time.max.ms=10000 auto.leader.rebalance.enable=false
C=$CL_CONTROLLER
read -r O F <<<"$(cl_live_except "$C")"
gr_note "controller C=$C, original replica O=$O, frozen broker F=$F"
cl_create_assigned "$C" $topic "$O"
cl_seq_produce $topic "$N" "$GR_TMP/acked"

cl_freeze_broker "$F"
cl_expect "moving $topic-0 to [$F,$C]" "top 0|$topic 0 0" "$(cl_reassign "$C" alter "$topic:0=$F,$C" | paste -sd'|')"
cl_expect "ListPartitionReassignments while $F is frozen" "top 0|$topic 0 $F,$C,$O $F,$C $O" \
    "$(cl_reassign "$C" list | paste -sd'|')"
cl_expect "moving $topic-0 to [$C] instead" "top 0|$topic 0 0" "$(cl_reassign "$C" alter "$topic:0=$C" | paste -sd'|')"
deadline=$((SECONDS + CL_MOVE_WAIT_S))
while :; do
    out=$(cl_reassign "$C" list | paste -sd'|')
    [ "$out" != "top 0" ] || break
    [[ $out == "top 0|$topic 0 $C,$O $C $O" ]] || gr_fail "listed after the new target [$C]: '$out', want '$topic 0 $C,$O $C $O' or nothing"
    [ $SECONDS -lt $deadline ] || gr_fail "$topic-0 still listed ${CL_MOVE_WAIT_S}s after its new target [$C]: '$out'"
    sleep 0.1
done
gr_note "nothing listed after the new target"
cl_wait_partition $topic 0 "$C" "$C" "$C" "$C" "$O"
cl_expect "the assignment znode after the move" "$C - -" "$(cl_zk_assignment $topic 0)"

cl_thaw_broker "$F"
cl_wait_stable "broker $F thawed"
cl_wait_partition $topic 0 "$C" "$C" "$C"
# A barrier: the controller's requests to F after the moves are handled once
# F leads a topic created now on it alone.
cl_create_assigned "$CL_CONTROLLER" probe "$F"
cl_wait_replica_dirs $topic 0 "$C"
cl_seq_verify $topic "$N" "$GR_TMP/acked"
cl_expect "acks=all produce to $topic-0 on broker $C" "0 $N" "$(cl_state "$C" produce $topic 0 -1 5)"
gr_pass
