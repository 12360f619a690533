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
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/clusterlib.sh"
cl_require
INVALID_ASSIGNMENT=39 REASSIGNMENT_IN_PROGRESS=60 NO_REASSIGNMENT=85
topic=cn
N=${SEQ_N:-2000}
MOVE_WAIT_S=${MOVE_WAIT_S:-120}
RAW_PY=$GR_INTEROP_DIR/py/reassign_raw.py
raw() { local i=$1; shift; timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$RAW_PY" "$(cl_addr "$i")" "$@"; }
expect() # WHAT WANT GOT
{
    [ "$3" = "$2" ] || gr_fail "$1: got '$3', want '$2'"
    gr_note "$1: ok"
}
# shellcheck disable=SC2317
replicas_on() # BROKERS... : each reports partition 0 of $topic with replicas $want
{
    local i
    for i in "$@"; do
        [ "$(cl_state "$i" isr "$topic" 2>/dev/null | awk '$1 == 0 { print $4 }')" = "$want" ] || return 1
    done
}

cl_start_cluster 3 replica.lag.time.max.ms=10000 auto.leader.rebalance.enable=false
C=$CL_CONTROLLER
read -r O F <<<"$(cl_live | tr ' ' '\n' | grep -vx "$C" | paste -sd' ')"
gr_note "controller C=$C, original replicas [O=$O,C], frozen target F=$F"
expect "creating $topic on [$O,$C]" 0 "$(cl_state "$C" create-assigned $topic "$O,$C")"
cl_wait_all_led $topic 1
gr_wait_until "$CL_WAIT_S" "the ISR of $topic-0 full" cl_isr_size_is $topic 2
out=$(gr_prog seq_producer -b "$GR_BOOTSTRAP" -t $topic -n "$N" -o "$GR_TMP/acked" 2>&1) ||
    gr_fail "seq_producer: $(tail -n 5 <<<"$out")"
[[ $out == *"topic=$topic produced=$N acked=$N failed=0"* ]] || gr_fail "seq_producer: $(tail -n 5 <<<"$out")"

cl_freeze_broker "$F"
expect "AlterPartitionReassignments $topic-0 to [$F,$O]" "top 0|$topic 0 0" \
    "$(raw "$C" alter "$topic:0=$F,$O" | paste -sd'|')"
expect "ListPartitionReassignments while $F is frozen" "top 0|$topic 0 $F,$O,$C $F $C" \
    "$(raw "$C" list | paste -sd'|')"
expect "the assignment znode while $F is frozen" "$F,$O,$C $F $C" "$(cl_zk_assignment $topic 0)"
want=$F,$O,$C
gr_wait_until "$CL_WAIT_S" "brokers $C and $O reporting replicas $want for $topic-0" replicas_on "$C" "$O"
expect "CreatePartitions on $topic while it is moved" "$REASSIGNMENT_IN_PROGRESS" "$(cl_state "$C" grow $topic 2)"
# An empty replica list is not null: refused, and the move goes on.
expect "an empty replica list for $topic-0 in progress" "top 0|$topic 0 $INVALID_ASSIGNMENT" \
    "$(raw "$C" alter "$topic:0=none" | paste -sd'|')"
expect "ListPartitionReassignments after the empty list" "top 0|$topic 0 $F,$O,$C $F $C" \
    "$(raw "$C" list | paste -sd'|')"

expect "cancelling $topic-0" "top 0|$topic 0 0" "$(raw "$C" alter "$topic:0=null" | paste -sd'|')"
expect "ListPartitionReassignments after the cancel" "top 0" "$(raw "$C" list)"
expect "the assignment znode after the cancel" "$O,$C - -" "$(cl_zk_assignment $topic 0)"
want=$O,$C
gr_wait_until "$CL_WAIT_S" "brokers $C and $O reporting replicas $want for $topic-0" replicas_on "$C" "$O"

cl_thaw_broker "$F"
cl_wait_stable "broker $F thawed"
deadline=$((SECONDS + MOVE_WAIT_S))
until cl_partition_everywhere $topic 0 "$O,$C" "$O,$C" "$O"; do
    if [ $SECONDS -ge $deadline ]; then
        cl_partition_views $topic | sed "s/^/[$GR_TEST_NAME] /" >&2
        gr_fail "timed out after ${MOVE_WAIT_S}s waiting for every broker to report $topic-0 back on [$O,$C], led by $O"
    fi
    sleep 0.1
done
gr_note "every broker reports $topic-0: $(cl_state "$F" isr $topic) (PARTITION LEADER ISR REPLICAS)"

# A barrier: the controller's requests to F after the cancel are handled once
# F leads a topic created now on it alone.
expect "creating probe on [$F]" 0 "$(cl_state "$CL_CONTROLLER" create-assigned probe "$F")"
cl_wait_all_led probe 1
want_dirs=$(printf '%s\n' "$O" "$C" | sort -n | paste -sd' ')
deadline=$((SECONDS + MOVE_WAIT_S))
until [ "$(cl_replica_dirs $topic 0)" = "$want_dirs" ]; do
    [ $SECONDS -lt $deadline ] || gr_fail "after ${MOVE_WAIT_S}s brokers $(cl_replica_dirs $topic 0) hold a directory for $topic-0, want only $want_dirs"
    sleep 0.1
done
gr_note "only brokers $want_dirs hold a directory for $topic-0"

cl_compare_replicas $topic 1 "$O" "$C"
out=$(gr_prog seq_verify -b "$GR_BOOTSTRAP" -t $topic -i "$GR_TMP/acked" -n "$N") || gr_fail "seq_verify: $out"
gr_note "$out"
expect "cancelling $topic-0 again" "top 0|$topic 0 $NO_REASSIGNMENT" "$(raw "$CL_CONTROLLER" alter "$topic:0=null" | paste -sd'|')"

# A move asked through /admin/reassign_partitions is listed like any other,
# and a cancel through the API takes precedence: the controller drops it
# from the znode, which goes.
C=$CL_CONTROLLER
cl_freeze_broker "$F"
cl_zk create "$CL_ZK_CHROOT/admin/reassign_partitions" \
    "{\"version\":1,\"partitions\":[{\"topic\":\"$topic\",\"partition\":0,\"replicas\":[$F,$O]}]}" >/dev/null ||
    gr_fail "zkCli create /admin/reassign_partitions failed: $(tail -n 3 "$GR_TMP/zkcli.err")"
# shellcheck disable=SC2317
listed_from_znode() { [ "$(raw "$C" list | paste -sd'|')" = "top 0|$topic 0 $F,$O,$C $F $C" ]; }
gr_wait_until "$MOVE_WAIT_S" "the move asked by /admin/reassign_partitions listed" listed_from_znode
gr_note "the move asked by /admin/reassign_partitions is listed"
expect "cancelling the move asked by the znode" "top 0|$topic 0 0" "$(raw "$C" alter "$topic:0=null" | paste -sd'|')"
# shellcheck disable=SC2317
legacy_znode_gone()
{
    local children
    children=$(cl_zk ls "$CL_ZK_CHROOT/admin" 2>/dev/null) && [[ $children == \[* ]] && ! grep -qw reassign_partitions <<<"$children"
}
gr_wait_until "$MOVE_WAIT_S" "/admin/reassign_partitions deleted after the cancel" legacy_znode_gone
expect "ListPartitionReassignments after cancelling the znode's move" "top 0" "$(raw "$C" list)"
cl_thaw_broker "$F"
cl_wait_stable "broker $F thawed again"
deadline=$((SECONDS + MOVE_WAIT_S))
until cl_partition_everywhere $topic 0 "$O,$C" "$O,$C" "$O"; do
    if [ $SECONDS -ge $deadline ]; then
        cl_partition_views $topic | sed "s/^/[$GR_TEST_NAME] /" >&2
        gr_fail "timed out after ${MOVE_WAIT_S}s waiting for every broker to report $topic-0 back on [$O,$C] after the second cancel"
    fi
    sleep 0.1
done
gr_note "$topic-0 back on [$O,$C] after the second cancel"
gr_pass
