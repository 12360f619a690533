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
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
topic=co
N=${SEQ_N:-1000}

cl_start_cluster 4 replica.lag.time.max.ms=10000 auto.leader.rebalance.enable=false
C=$CL_CONTROLLER
read -r O X F <<<"$(cl_live_except "$C")"
gr_note "controller C=$C, original replicas [O=$O,X=$X], frozen target F=$F"
cl_create_assigned "$C" $topic "$O,$X"
gr_wait_until "$CL_WAIT_S" "the ISR of $topic-0 full" cl_isr_size_is $topic 2
cl_seq_produce $topic "$N" "$GR_TMP/acked"

cl_stop_broker "$X"
cl_wait_stable "broker $X stopped"
cl_freeze_broker "$F"
cl_expect "moving $topic-0 to [$O,$F]" "top 0|$topic 0 0" "$(cl_reassign "$C" alter "$topic:0=$O,$F" | paste -sd'|')"
cl_expect "the move listed" "top 0|$topic 0 $O,$F,$X $F $X" "$(cl_reassign "$C" list | paste -sd'|')"
cl_expect "cancelling it with broker $X down" "top 0|$topic 0 0" "$(cl_reassign "$C" alter "$topic:0=null" | paste -sd'|')"
cl_expect "nothing listed after the cancel" "top 0" "$(cl_reassign "$C" list)"
cl_expect "the assignment znode after the cancel" "$O,$X - -" "$(cl_zk_assignment $topic 0)"

cl_thaw_broker "$F"
cl_start_broker "$X"
GR_BOOTSTRAP=$(cl_bootstrap)
cl_wait_stable "brokers $F and $X back"
cl_wait_partition $topic 0 "$O,$X" "$O,$X" "$O"
cl_wait_replica_dirs $topic 0 "$O" "$X"
cl_wait_replicas_equal $topic 1 "$O" "$X"
cl_seq_verify $topic "$N" "$GR_TMP/acked"
gr_pass
