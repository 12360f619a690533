#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Moving a partition off a broker that is down, then back onto it: topic rd
# on [O,X] (neither the controller C) holds seq_producer's records; X is
# stopped and rd-0 moved to [O,C]. The move completes without X (a removed
# replica need not be in sync): every broker reports replicas O,C, ISR
# {O,C}, leader O (in the target, it stays), and more records are written.
# X returns with its old directory for rd-0 (its broker was down for the
# StopReplica, as in Kafka's ZooKeeper mode): it is not a replica, so it
# answers NOT_LEADER_OR_FOLLOWER to a produce, and Metadata still says O,C.
# Then rd-0 is moved to [X,O]: X starts from its stale log and catches up;
# every broker reports replicas X,O, ISR {X,O}, leader O; C's directory is
# deleted; O and X hold the same bytes; every acknowledged record is read
# back at its offset and the high watermark counts the later records too.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
NOT_LEADER=6
topic=rd
N=${SEQ_N:-2000}
LATER=100

cl_start_cluster 3 replica.lag.time.max.ms=10000 auto.leader.rebalance.enable=false
C=$CL_CONTROLLER
read -r O X <<<"$(cl_live_except "$C")"
gr_note "controller C=$C, original replicas [O=$O,X=$X]"
cl_create_assigned "$C" $topic "$O,$X"
gr_wait_until "$CL_WAIT_S" "the ISR of $topic-0 full" cl_isr_size_is $topic 2
cl_seq_produce $topic "$N" "$GR_TMP/acked"

cl_stop_broker "$X"
GR_BOOTSTRAP=$(cl_bootstrap)
cl_wait_stable "broker $X stopped"
cl_expect "moving $topic-0 to [$O,$C] with $X down" "top 0|$topic 0 0" "$(cl_reassign "$C" alter "$topic:0=$O,$C" | paste -sd'|')"
cl_wait_partition $topic 0 "$O,$C" "$O,$C" "$O"
cl_expect "nothing listed after the move" "top 0" "$(cl_reassign "$C" list)"
cl_expect "the assignment znode after the move" "$O,$C - -" "$(cl_zk_assignment $topic 0)"
cl_expect "acks=all produce of $LATER more to $topic-0" "0 $N" "$(cl_state "$O" produce $topic 0 -1 $LATER)"

cl_start_broker "$X"
GR_BOOTSTRAP=$(cl_bootstrap)
cl_wait_stable "broker $X back"
cl_wait_partition $topic 0 "$O,$C" "$O,$C" "$O"
cl_expect "produce to $topic-0 on broker $X, not a replica" "$NOT_LEADER" "$(cl_state "$X" produce $topic 0 -1 1 | cut -d' ' -f1)"

cl_expect "moving $topic-0 to [$X,$O]" "top 0|$topic 0 0" "$(cl_reassign "$C" alter "$topic:0=$X,$O" | paste -sd'|')"
cl_wait_partition $topic 0 "$X,$O" "$X,$O" "$O"
cl_expect "nothing listed after the move back" "top 0" "$(cl_reassign "$C" list)"
cl_wait_replica_dirs $topic 0 "$O" "$X"
cl_wait_replicas_equal $topic 1 "$O" "$X"
cl_expect "the high watermark of $topic-0 on broker $O" "0 0 $((N + LATER))" "$(cl_state "$O" offsets $topic)"
# seq_verify reads to the high watermark: the later records are not seq_producer's.
out=$(gr_prog seq_verify -b "$GR_BOOTSTRAP" -t $topic -i "$GR_TMP/acked" -n "$N" 2>&1) && gr_fail "seq_verify took the $LATER later records for seq_producer's: $out"
[[ $out == *"acked $N, read $((N + LATER)), missing 0, duplicated 0, misplaced 0, out of order 0, foreign $LATER,"* ]] ||
    gr_fail "seq_verify: $out"
gr_note "every acknowledged record at its offset, and the $LATER later ones after them"
gr_pass
