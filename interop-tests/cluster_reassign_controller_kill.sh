#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A partition reassignment in progress survives the controller's kill -9:
# topic ck has one replica, on broker O (not the controller C), and takes an
# idempotent acks=all producer's records throughout. Broker F (the third)
# is frozen (SIGSTOP), so that it cannot catch up, and the controller is
# asked to move ck-0 to [F,C]: it answers NONE, ListPartitionReassignments
# lists ck-0 with replicas F,C,O, adding F,C, removing O, the assignment
# znode says the same, and C and O report replicas F,C,O in Metadata. Then
# C gets SIGKILL and F is thawed; once C's session expires, O or F becomes
# controller (a larger controller epoch) and must take the reassignment
# over from the adding/removing replicas in the topic znode: it lists it
# as in progress (C, a target replica, is down); C is started again on its
# log dirs, and the new controller completes the move. At the end every
# broker reports replicas F,C with ISR {F,C} and a leader among them,
# nothing is listed, the znode has no adding or removing replicas, O's
# directory is deleted, F and C hold the same bytes, and seq_verify finds
# every acknowledged record exactly once at its offset.
CL_SESSION_TIMEOUT_MS=${CL_SESSION_TIMEOUT_MS:-10000} # F stays registered while frozen
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/clusterlib.sh"
cl_require
topic=ck
N=${SEQ_N:-9000}
RATE=${SEQ_RATE:-300}
MOVE_WAIT_S=${MOVE_WAIT_S:-150}
PRODUCER_WAIT_S=${PRODUCER_WAIT_S:-200} # beyond its 120 s message.timeout.ms
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
gr_note "controller C=$C, original replica O=$O, frozen target F=$F"
epoch=$(cl_zk get "$CL_ZK_CHROOT/controller_epoch") || gr_fail "zkCli get /controller_epoch failed"
expect "creating $topic on [$O]" 0 "$(cl_state "$C" create-assigned $topic "$O")"
cl_wait_all_led $topic 1

acked_count() { wc -l <"$GR_TMP/acked"; }
# shellcheck disable=SC2317
acked_beyond() { [ "$(acked_count)" -gt "$1" ]; }
# shellcheck disable=SC2317
producer_done() { ! gr_alive "$producer"; }
[ -x "${GR_PROGS:-}/seq_producer" ] || gr_fail "program seq_producer not built (GR_PROGS=${GR_PROGS:-unset})"
: >"$GR_TMP/acked"
"$GR_PROGS/seq_producer" -b "$GR_BOOTSTRAP" -t $topic -n "$N" -r "$RATE" -o "$GR_TMP/acked" \
    2>"$GR_TMP/producer.err" </dev/null &
producer=$!
gr_track "$producer"
gr_note "seq_producer pid $producer: $N records at $RATE/s"
gr_wait_until "$CL_WAIT_S" "seq_producer's first 500 acknowledgements" acked_beyond 499

cl_freeze_broker "$F"
expect "AlterPartitionReassignments $topic-0 to [$F,$C]" "top 0|$topic 0 0" \
    "$(raw "$C" alter "$topic:0=$F,$C" | paste -sd'|')"
expect "ListPartitionReassignments while $F is frozen" "top 0|$topic 0 $F,$C,$O $F,$C $O" \
    "$(raw "$C" list | paste -sd'|')"
expect "the assignment znode while $F is frozen" "$F,$C,$O $F,$C $O" "$(cl_zk_assignment $topic 0)"
want=$F,$C,$O
gr_wait_until "$CL_WAIT_S" "brokers $C and $O reporting replicas $want for $topic-0" replicas_on "$C" "$O"
gr_note "reassignment in progress at $(acked_count) acknowledged; killing the controller"

cl_kill9_broker "$C"
cl_thaw_broker "$F"
GR_BOOTSTRAP=$(cl_bootstrap)
cl_wait_stable "a new controller after broker $C was killed"
new=$CL_CONTROLLER
[ "$new" != "$C" ] || gr_fail "killed broker $C still the controller"
new_epoch=$(cl_zk get "$CL_ZK_CHROOT/controller_epoch")
[ "$new_epoch" -gt "$epoch" ] || gr_fail "/controller_epoch is $new_epoch after the failover, was $epoch"
gr_note "controller $new at epoch $new_epoch (was $C at $epoch), $(acked_count) acknowledged"
out=$(raw "$new" list | paste -sd'|')
gr_note "the new controller lists: $out"
[[ $out == "top 0|$topic 0 $F,$C,$O $F,$C $O" ]] ||
    gr_fail "the new controller $new does not list the reassignment in progress ($C is down, so it cannot be complete): got '$out'"

cl_start_broker "$C"
GR_BOOTSTRAP=$(cl_bootstrap)
cl_wait_stable "broker $C back"
deadline=$((SECONDS + MOVE_WAIT_S))
until cl_partition_everywhere $topic 0 "$F,$C" "$F,$C" "$F $C"; do
    if [ $SECONDS -ge $deadline ]; then
        cl_partition_views $topic | sed "s/^/[$GR_TEST_NAME] /" >&2
        gr_note "controller $CL_CONTROLLER lists: $(raw "$CL_CONTROLLER" list 2>&1 | paste -sd'|')"
        gr_fail "timed out after ${MOVE_WAIT_S}s waiting for the reassignment of $topic-0 to [$F,$C] to complete"
    fi
    sleep 0.1
done
gr_note "every broker reports $topic-0: $(cl_state "$F" isr $topic) (PARTITION LEADER ISR REPLICAS), $(acked_count) acknowledged"
expect "the assignment znode after the move" "$F,$C - -" "$(cl_zk_assignment $topic 0)"
cl_wait_stable "controller known"
expect "nothing listed after the move" "top 0" "$(raw "$CL_CONTROLLER" list)"
want_dirs=$(printf '%s\n' "$F" "$C" | sort -n | paste -sd' ')
deadline=$((SECONDS + MOVE_WAIT_S))
until [ "$(cl_replica_dirs $topic 0)" = "$want_dirs" ]; do
    [ $SECONDS -lt $deadline ] || gr_fail "after ${MOVE_WAIT_S}s brokers $(cl_replica_dirs $topic 0) hold a directory for $topic-0, want only $want_dirs"
    sleep 0.1
done
gr_note "broker $O's directory for $topic-0 deleted"

producer_done && gr_note "WARNING: seq_producer finished before the reassignment completed"
gr_wait_until "$PRODUCER_WAIT_S" "seq_producer to finish" producer_done
rc=0
wait "$producer" || rc=$?
summary=$(grep '^seq_producer: topic=' "$GR_TMP/producer.err" || true)
gr_note "$summary"
[ $rc = 0 ] || gr_fail "seq_producer exited $rc: $(tail -n 5 "$GR_TMP/producer.err")"
[[ $summary == *" acked=$N failed=0" ]] || gr_fail "not every record was acknowledged: $summary"
out=$(gr_prog seq_verify -b "$GR_BOOTSTRAP" -t $topic -i "$GR_TMP/acked" -n "$N") || gr_fail "seq_verify: $out"
gr_note "$out"
deadline=$((SECONDS + MOVE_WAIT_S))
until cl_replicas_equal $topic 1 "$F" "$C"; do
    [ $SECONDS -lt $deadline ] || gr_fail "replicas of $topic-0 not the same bytes after ${MOVE_WAIT_S}s: $CL_REPLICA_DIFF"
    sleep 0.2
done
gr_note "brokers $F and $C hold the same bytes for $topic-0"
gr_pass
