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
CL_MOVE_WAIT_S=${CL_MOVE_WAIT_S:-150}
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
topic=ck
N=${SEQ_N:-9000}
RATE=${SEQ_RATE:-300}
PRODUCER_WAIT_S=${PRODUCER_WAIT_S:-200} # beyond its 120 s message.timeout.ms

cl_start_cluster 3 replica.lag.time.max.ms=10000 auto.leader.rebalance.enable=false
C=$CL_CONTROLLER
read -r O F <<<"$(cl_live_except "$C")"
gr_note "controller C=$C, original replica O=$O, frozen target F=$F"
epoch=$(cl_zk get "$CL_ZK_CHROOT/controller_epoch") || gr_fail "zkCli get /controller_epoch failed"
cl_create_assigned "$C" $topic "$O"

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
cl_expect "AlterPartitionReassignments $topic-0 to [$F,$C]" "top 0|$topic 0 0" \
    "$(cl_reassign "$C" alter "$topic:0=$F,$C" | paste -sd'|')"
cl_expect "ListPartitionReassignments while $F is frozen" "top 0|$topic 0 $F,$C,$O $F,$C $O" \
    "$(cl_reassign "$C" list | paste -sd'|')"
cl_expect "the assignment znode while $F is frozen" "$F,$C,$O $F,$C $O" "$(cl_zk_assignment $topic 0)"
gr_wait_until "$CL_WAIT_S" "brokers $C and $O reporting replicas $F,$C,$O for $topic-0" \
    cl_replicas_on $topic 0 "$F,$C,$O" "$C" "$O"
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
out=$(cl_reassign "$new" list | paste -sd'|')
gr_note "the new controller lists: $out"
[[ $out == "top 0|$topic 0 $F,$C,$O $F,$C $O" ]] ||
    gr_fail "the new controller $new does not list the reassignment in progress ($C is down, so it cannot be complete): got '$out'"

cl_start_broker "$C"
GR_BOOTSTRAP=$(cl_bootstrap)
cl_wait_stable "broker $C back"
cl_wait_partition $topic 0 "$F,$C" "$F,$C" "$F $C"
gr_note "the reassignment of $topic-0 to [$F,$C] complete at $(acked_count) acknowledged"
cl_expect "the assignment znode after the move" "$F,$C - -" "$(cl_zk_assignment $topic 0)"
cl_wait_stable "controller known"
cl_expect "nothing listed after the move" "top 0" "$(cl_reassign "$CL_CONTROLLER" list)"
cl_wait_replica_dirs $topic 0 "$F" "$C"

producer_done && gr_note "WARNING: seq_producer finished before the reassignment completed"
gr_wait_until "$PRODUCER_WAIT_S" "seq_producer to finish" producer_done
rc=0
wait "$producer" || rc=$?
summary=$(grep '^seq_producer: topic=' "$GR_TMP/producer.err" || true)
gr_note "$summary"
[ $rc = 0 ] || gr_fail "seq_producer exited $rc: $(tail -n 5 "$GR_TMP/producer.err")"
[[ $summary == *" acked=$N failed=0" ]] || gr_fail "not every record was acknowledged: $summary"
cl_seq_verify $topic "$N" "$GR_TMP/acked"
cl_wait_replicas_equal $topic 1 "$F" "$C"
gr_pass
