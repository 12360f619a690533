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
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/clusterlib.sh"
cl_require
topic=rt
N=${SEQ_N:-2000}
MOVE_WAIT_S=${MOVE_WAIT_S:-120}
RAW_PY=$GR_INTEROP_DIR/py/reassign_raw.py
raw() { local i=$1; shift; timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$RAW_PY" "$(cl_addr "$i")" "$@"; }
expect() # WHAT WANT GOT
{
    [ "$3" = "$2" ] || gr_fail "$1: got '$3', want '$2'"
    gr_note "$1: ok"
}

cl_start_cluster 3 replica.lag.time.max.ms=10000 auto.leader.rebalance.enable=false
C=$CL_CONTROLLER
read -r O F <<<"$(cl_live | tr ' ' '\n' | grep -vx "$C" | paste -sd' ')"
gr_note "controller C=$C, original replica O=$O, frozen broker F=$F"
expect "creating $topic on [$O]" 0 "$(cl_state "$C" create-assigned $topic "$O")"
cl_wait_all_led $topic 1
out=$(gr_prog seq_producer -b "$GR_BOOTSTRAP" -t $topic -n "$N" -o "$GR_TMP/acked" 2>&1) ||
    gr_fail "seq_producer: $(tail -n 5 <<<"$out")"
[[ $out == *"topic=$topic produced=$N acked=$N failed=0"* ]] || gr_fail "seq_producer: $(tail -n 5 <<<"$out")"

cl_freeze_broker "$F"
expect "moving $topic-0 to [$F,$C]" "top 0|$topic 0 0" "$(raw "$C" alter "$topic:0=$F,$C" | paste -sd'|')"
expect "ListPartitionReassignments while $F is frozen" "top 0|$topic 0 $F,$C,$O $F,$C $O" \
    "$(raw "$C" list | paste -sd'|')"
expect "moving $topic-0 to [$C] instead" "top 0|$topic 0 0" "$(raw "$C" alter "$topic:0=$C" | paste -sd'|')"
deadline=$((SECONDS + MOVE_WAIT_S))
while :; do
    out=$(raw "$C" list | paste -sd'|')
    [ "$out" != "top 0" ] || break
    [[ $out == "top 0|$topic 0 $C,$O $C $O" ]] || gr_fail "listed after the new target [$C]: '$out', want '$topic 0 $C,$O $C $O' or nothing"
    [ $SECONDS -lt $deadline ] || gr_fail "$topic-0 still listed ${MOVE_WAIT_S}s after its new target [$C]: '$out'"
    sleep 0.1
done
gr_note "nothing listed after the new target"
# shellcheck disable=SC2317
moved_on() # BROKERS...: each reports rt-0 on replicas C, ISR C, led by C
{
    local i
    for i in "$@"; do
        [ "$(cl_state "$i" isr "$topic" 2>/dev/null | awk '$1 == 0 { print $2, $3, $4 }')" = "$C $C $C" ] || return 1
    done
}
gr_wait_until "$MOVE_WAIT_S" "brokers $C and $O reporting $topic-0 on [$C], led by it" moved_on "$C" "$O"
expect "the assignment znode after the move" "$C - -" "$(cl_zk_assignment $topic 0)"

cl_thaw_broker "$F"
cl_wait_stable "broker $F thawed"
# shellcheck disable=SC2046 # one argument per broker id
gr_wait_until "$MOVE_WAIT_S" "every broker reporting $topic-0 on [$C], led by it" moved_on $(cl_live)
# A barrier: the controller's requests to F after the moves are handled once
# F leads a topic created now on it alone.
expect "creating probe on [$F]" 0 "$(cl_state "$CL_CONTROLLER" create-assigned probe "$F")"
cl_wait_all_led probe 1
deadline=$((SECONDS + MOVE_WAIT_S))
until [ "$(cl_replica_dirs $topic 0)" = "$C" ]; do
    [ $SECONDS -lt $deadline ] || gr_fail "after ${MOVE_WAIT_S}s brokers $(cl_replica_dirs $topic 0) hold a directory for $topic-0, want only $C"
    sleep 0.1
done
gr_note "only broker $C holds a directory for $topic-0"
out=$(gr_prog seq_verify -b "$GR_BOOTSTRAP" -t $topic -i "$GR_TMP/acked" -n "$N") || gr_fail "seq_verify: $out"
gr_note "$out"
expect "acks=all produce to $topic-0 on broker $C" "0 $N" "$(cl_state "$C" produce $topic 0 -1 5)"
gr_pass
