#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Cancelling a partition reassignment (AlterPartitionReassignments with null
# replicas) reverts to the original replicas: topic cn on [O,C] (C the
# controller, O another broker) holds seq_producer's records; the third
# broker F is frozen (SIGSTOP) so that it cannot catch up, and cn-0 is
# moved to [F,O]. While it cannot finish, ListPartitionReassignments lists
# replicas F,O,C, adding F, removing C, as does the assignment znode, and
# C and O report replicas F,O,C in Metadata; CreatePartitions on the topic
# is REASSIGNMENT_IN_PROGRESS; an empty replica list (not null) is
# INVALID_REPLICA_ASSIGNMENT and leaves the move listed. The
# cancel answers NONE; then nothing is listed, the znode says O,C with no
# adding or removing replicas, C and O report replicas O,C. F is thawed:
# every broker reports replicas
# O,C, ISR {O,C}, leader O (it never had to move); once F has handled a
# later assignment (a topic placed on it alone, led by it), only O and C
# hold a directory for cn-0 (the adding replica's is deleted); O and C hold
# the same bytes; seq_verify finds every record. A second cancel is
# NO_REASSIGNMENT_IN_PROGRESS. Then, F frozen again, a move to [F,O] asked
# through /admin/reassign_partitions is listed the same way; cancelled
# through the API, it is dropped from the znode, which is deleted, and cn-0
# stays on [O,C].
CL_SESSION_TIMEOUT_MS=${CL_SESSION_TIMEOUT_MS:-10000} # F stays registered while frozen
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
INVALID_ASSIGNMENT=39 REASSIGNMENT_IN_PROGRESS=60 NO_REASSIGNMENT=85
topic=cn
N=${SEQ_N:-2000}

cl_start_cluster 3 replica.lag.time.max.ms=10000 auto.leader.rebalance.enable=false
C=$CL_CONTROLLER
read -r O F <<<"$(cl_live_except "$C")"
gr_note "controller C=$C, original replicas [O=$O,C], frozen target F=$F"
cl_create_assigned "$C" $topic "$O,$C"
gr_wait_until "$CL_WAIT_S" "the ISR of $topic-0 full" cl_isr_size_is $topic 2
cl_seq_produce $topic "$N" "$GR_TMP/acked"

cl_freeze_broker "$F"
cl_expect "AlterPartitionReassignments $topic-0 to [$F,$O]" "top 0|$topic 0 0" \
    "$(cl_reassign "$C" alter "$topic:0=$F,$O" | paste -sd'|')"
cl_expect "ListPartitionReassignments while $F is frozen" "top 0|$topic 0 $F,$O,$C $F $C" \
    "$(cl_reassign "$C" list | paste -sd'|')"
cl_expect "the assignment znode while $F is frozen" "$F,$O,$C $F $C" "$(cl_zk_assignment $topic 0)"
gr_wait_until "$CL_WAIT_S" "brokers $C and $O reporting replicas $F,$O,$C for $topic-0" \
    cl_replicas_on $topic 0 "$F,$O,$C" "$C" "$O"
cl_expect "CreatePartitions on $topic while it is moved" "$REASSIGNMENT_IN_PROGRESS" "$(cl_state "$C" grow $topic 2)"
# An empty replica list is not null: refused, and the move goes on.
cl_expect "an empty replica list for $topic-0 in progress" "top 0|$topic 0 $INVALID_ASSIGNMENT" \
    "$(cl_reassign "$C" alter "$topic:0=none" | paste -sd'|')"
cl_expect "ListPartitionReassignments after the empty list" "top 0|$topic 0 $F,$O,$C $F $C" \
    "$(cl_reassign "$C" list | paste -sd'|')"

cl_expect "cancelling $topic-0" "top 0|$topic 0 0" "$(cl_reassign "$C" alter "$topic:0=null" | paste -sd'|')"
cl_expect "ListPartitionReassignments after the cancel" "top 0" "$(cl_reassign "$C" list)"
cl_expect "the assignment znode after the cancel" "$O,$C - -" "$(cl_zk_assignment $topic 0)"
gr_wait_until "$CL_WAIT_S" "brokers $C and $O reporting replicas $O,$C for $topic-0" \
    cl_replicas_on $topic 0 "$O,$C" "$C" "$O"

cl_thaw_broker "$F"
cl_wait_stable "broker $F thawed"
cl_wait_partition $topic 0 "$O,$C" "$O,$C" "$O"

# A barrier: the controller's requests to F after the cancel are handled once
# F leads a topic created now on it alone.
cl_create_assigned "$CL_CONTROLLER" probe "$F"
cl_wait_replica_dirs $topic 0 "$O" "$C"

cl_compare_replicas $topic 1 "$O" "$C"
cl_seq_verify $topic "$N" "$GR_TMP/acked"
cl_expect "cancelling $topic-0 again" "top 0|$topic 0 $NO_REASSIGNMENT" "$(cl_reassign "$CL_CONTROLLER" alter "$topic:0=null" | paste -sd'|')"

# A move asked through /admin/reassign_partitions is listed like any other,
# and a cancel through the API takes precedence: the controller drops it
# from the znode, which goes.
C=$CL_CONTROLLER
cl_freeze_broker "$F"
cl_legacy_reassign "{\"version\":1,\"partitions\":[{\"topic\":\"$topic\",\"partition\":0,\"replicas\":[$F,$O]}]}"
# shellcheck disable=SC2317
listed_from_znode() { [ "$(cl_reassign "$C" list | paste -sd'|')" = "top 0|$topic 0 $F,$O,$C $F $C" ]; }
gr_wait_until "$CL_MOVE_WAIT_S" "the move asked by /admin/reassign_partitions listed" listed_from_znode
gr_note "the move asked by /admin/reassign_partitions is listed"
cl_expect "cancelling the move asked by the znode" "top 0|$topic 0 0" "$(cl_reassign "$C" alter "$topic:0=null" | paste -sd'|')"
gr_wait_until "$CL_MOVE_WAIT_S" "/admin/reassign_partitions deleted after the cancel" cl_legacy_reassign_gone
cl_expect "ListPartitionReassignments after cancelling the znode's move" "top 0" "$(cl_reassign "$C" list)"
cl_thaw_broker "$F"
cl_wait_stable "broker $F thawed again"
cl_wait_partition $topic 0 "$O,$C" "$O,$C" "$O"
gr_note "$topic-0 back on [$O,$C] after the second cancel"
gr_pass
