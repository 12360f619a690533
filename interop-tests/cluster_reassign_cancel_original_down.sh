#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Cancelling a move while one of the original replicas is down, as KIP-455
# allows (only replicas being added must be registered; a cancel is not
# checked): four brokers, topic co on [O,X] (neither the controller C)
# holds seq_producer's records; X is stopped, F frozen (SIGSTOP) so that it
# cannot catch up, and co-0 moved to [O,F]. ListPartitionReassignments lists
# replicas O,F,X, adding F, removing X. The cancel answers NONE (not
# INVALID_REPLICA_ASSIGNMENT for the down X); nothing is listed then and the
# assignment znode says O,X with no adding or removing replicas. F is
# thawed and X started: every broker reports replicas O,X, ISR {O,X},
# leader O; F's directory for co-0 is deleted (its StopReplica, lost while
# it was frozen, is sent again); O and X hold the same bytes and every
# acknowledged record is read back at its offset.
CL_SESSION_TIMEOUT_MS=${CL_SESSION_TIMEOUT_MS:-10000} # F stays registered while frozen
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/clusterlib.sh"
cl_require
topic=co
N=${SEQ_N:-1000}
MOVE_WAIT_S=${MOVE_WAIT_S:-120}
RAW_PY=$GR_INTEROP_DIR/py/reassign_raw.py
raw() { local i=$1; shift; timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$RAW_PY" "$(cl_addr "$i")" "$@"; }
expect() # WHAT WANT GOT
{
    [ "$3" = "$2" ] || gr_fail "$1: got '$3', want '$2'"
    gr_note "$1: ok"
}

cl_start_cluster 4 replica.lag.time.max.ms=10000 auto.leader.rebalance.enable=false
C=$CL_CONTROLLER
read -r O X F <<<"$(cl_live | tr ' ' '\n' | grep -vx "$C" | paste -sd' ')"
gr_note "controller C=$C, original replicas [O=$O,X=$X], frozen target F=$F"
expect "creating $topic on [$O,$X]" 0 "$(cl_state "$C" create-assigned $topic "$O,$X")"
cl_wait_all_led $topic 1
gr_wait_until "$CL_WAIT_S" "the ISR of $topic-0 full" cl_isr_size_is $topic 2
out=$(gr_prog seq_producer -b "$GR_BOOTSTRAP" -t $topic -n "$N" -o "$GR_TMP/acked" 2>&1) ||
    gr_fail "seq_producer: $(tail -n 5 <<<"$out")"
[[ $out == *"topic=$topic produced=$N acked=$N failed=0"* ]] || gr_fail "seq_producer: $(tail -n 5 <<<"$out")"

cl_stop_broker "$X"
cl_wait_stable "broker $X stopped"
cl_freeze_broker "$F"
expect "moving $topic-0 to [$O,$F]" "top 0|$topic 0 0" "$(raw "$C" alter "$topic:0=$O,$F" | paste -sd'|')"
expect "the move listed" "top 0|$topic 0 $O,$F,$X $F $X" "$(raw "$C" list | paste -sd'|')"
expect "cancelling it with broker $X down" "top 0|$topic 0 0" "$(raw "$C" alter "$topic:0=null" | paste -sd'|')"
expect "nothing listed after the cancel" "top 0" "$(raw "$C" list)"
expect "the assignment znode after the cancel" "$O,$X - -" "$(cl_zk_assignment $topic 0)"

cl_thaw_broker "$F"
cl_start_broker "$X"
GR_BOOTSTRAP=$(cl_bootstrap)
cl_wait_stable "brokers $F and $X back"
deadline=$((SECONDS + MOVE_WAIT_S))
until cl_partition_everywhere $topic 0 "$O,$X" "$O,$X" "$O"; do
    if [ $SECONDS -ge $deadline ]; then
        cl_partition_views $topic | sed "s/^/[$GR_TEST_NAME] /" >&2
        gr_fail "timed out after ${MOVE_WAIT_S}s waiting for $topic-0 on replicas $O,$X, ISR {$O,$X}, leader $O"
    fi
    sleep 0.1
done
want_dirs=$(printf '%s\n' "$O" "$X" | sort -n | paste -sd' ')
gr_wait_until "$MOVE_WAIT_S" "only brokers $want_dirs holding a directory for $topic-0" \
    eval '[ "$(cl_replica_dirs $topic 0)" = "$want_dirs" ]'
gr_wait_until "$MOVE_WAIT_S" "brokers $O and $X holding the same bytes for $topic-0" cl_replicas_equal $topic 1 "$O" "$X"
out=$(gr_prog seq_verify -b "$GR_BOOTSTRAP" -t $topic -i "$GR_TMP/acked" -n "$N" 2>&1) || gr_fail "seq_verify: $out"
gr_note "seq_verify: $(tail -n 1 <<<"$out")"
gr_pass
