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
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/clusterlib.sh"
cl_require
NOT_LEADER=6
topic=rd
N=${SEQ_N:-2000}
LATER=100
MOVE_WAIT_S=${MOVE_WAIT_S:-120}
RAW_PY=$GR_INTEROP_DIR/py/reassign_raw.py
raw() { local i=$1; shift; timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$RAW_PY" "$(cl_addr "$i")" "$@"; }
expect() # WHAT WANT GOT
{
    [ "$3" = "$2" ] || gr_fail "$1: got '$3', want '$2'"
    gr_note "$1: ok"
}
wait_partition() # REPLICAS ISR LEADERS
{
    local deadline=$((SECONDS + MOVE_WAIT_S))
    until cl_partition_everywhere $topic 0 "$1" "$2" "$3"; do
        if [ $SECONDS -ge $deadline ]; then
            cl_partition_views $topic | sed "s/^/[$GR_TEST_NAME] /" >&2
            gr_fail "timed out after ${MOVE_WAIT_S}s waiting for every broker to report $topic-0 on replicas $1, ISR {$2}, leader in {$3}"
        fi
        sleep 0.1
    done
    gr_note "every broker reports $topic-0: $(cl_state "$(cl_live | cut -d' ' -f1)" isr $topic) (PARTITION LEADER ISR REPLICAS)"
}

cl_start_cluster 3 replica.lag.time.max.ms=10000 auto.leader.rebalance.enable=false
C=$CL_CONTROLLER
read -r O X <<<"$(cl_live | tr ' ' '\n' | grep -vx "$C" | paste -sd' ')"
gr_note "controller C=$C, original replicas [O=$O,X=$X]"
expect "creating $topic on [$O,$X]" 0 "$(cl_state "$C" create-assigned $topic "$O,$X")"
cl_wait_all_led $topic 1
gr_wait_until "$CL_WAIT_S" "the ISR of $topic-0 full" cl_isr_size_is $topic 2
out=$(gr_prog seq_producer -b "$GR_BOOTSTRAP" -t $topic -n "$N" -o "$GR_TMP/acked" 2>&1) ||
    gr_fail "seq_producer: $(tail -n 5 <<<"$out")"
[[ $out == *"topic=$topic produced=$N acked=$N failed=0"* ]] || gr_fail "seq_producer: $(tail -n 5 <<<"$out")"

cl_stop_broker "$X"
GR_BOOTSTRAP=$(cl_bootstrap)
cl_wait_stable "broker $X stopped"
expect "moving $topic-0 to [$O,$C] with $X down" "top 0|$topic 0 0" "$(raw "$C" alter "$topic:0=$O,$C" | paste -sd'|')"
wait_partition "$O,$C" "$O,$C" "$O"
expect "nothing listed after the move" "top 0" "$(raw "$C" list)"
expect "the assignment znode after the move" "$O,$C - -" "$(cl_zk_assignment $topic 0)"
expect "acks=all produce of $LATER more to $topic-0" "0 $N" "$(cl_state "$O" produce $topic 0 -1 $LATER)"

cl_start_broker "$X"
GR_BOOTSTRAP=$(cl_bootstrap)
cl_wait_stable "broker $X back"
wait_partition "$O,$C" "$O,$C" "$O"
expect "produce to $topic-0 on broker $X, not a replica" "$NOT_LEADER" "$(cl_state "$X" produce $topic 0 -1 1 | cut -d' ' -f1)"

expect "moving $topic-0 to [$X,$O]" "top 0|$topic 0 0" "$(raw "$C" alter "$topic:0=$X,$O" | paste -sd'|')"
wait_partition "$X,$O" "$X,$O" "$O"
expect "nothing listed after the move back" "top 0" "$(raw "$C" list)"
want_dirs=$(printf '%s\n' "$O" "$X" | sort -n | paste -sd' ')
deadline=$((SECONDS + MOVE_WAIT_S))
until [ "$(cl_replica_dirs $topic 0)" = "$want_dirs" ]; do
    [ $SECONDS -lt $deadline ] || gr_fail "after ${MOVE_WAIT_S}s brokers $(cl_replica_dirs $topic 0) hold a directory for $topic-0, want only $want_dirs"
    sleep 0.1
done
gr_note "broker $C's directory for $topic-0 deleted"
deadline=$((SECONDS + MOVE_WAIT_S))
until cl_replicas_equal $topic 1 "$O" "$X"; do
    [ $SECONDS -lt $deadline ] || gr_fail "replicas of $topic-0 not the same bytes after ${MOVE_WAIT_S}s: $CL_REPLICA_DIFF"
    sleep 0.2
done
gr_note "brokers $O and $X hold the same bytes for $topic-0"
expect "the high watermark of $topic-0 on broker $O" "0 0 $((N + LATER))" "$(cl_state "$O" offsets $topic)"
# seq_verify reads to the high watermark: the later records are not seq_producer's.
out=$(gr_prog seq_verify -b "$GR_BOOTSTRAP" -t $topic -i "$GR_TMP/acked" -n "$N" 2>&1) && gr_fail "seq_verify took the $LATER later records for seq_producer's: $out"
[[ $out == *"acked $N, read $((N + LATER)), missing 0, duplicated 0, misplaced 0, out of order 0, foreign $LATER,"* ]] ||
    gr_fail "seq_verify: $out"
gr_note "every acknowledged record at its offset, and the $LATER later ones after them"
gr_pass
