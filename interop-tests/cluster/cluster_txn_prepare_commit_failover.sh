#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A commit held in PrepareCommit when its coordinator dies, finished by the
# next coordinator once every partition is back. Three brokers: controller
# C, the coordinator V of a transactional id whose __transaction_state
# partition has the replicas {V, C} (replication factor 2, min.isr 1), and
# F. The data topic has one replica a partition: 0 on F, 1 on C, 2 on V.
# The producer writes 30 records over the three partitions and holds; F is
# frozen (SIGSTOP) and the producer commits: EndTxn logs PrepareCommit and
# answers (as Kafka's, before the markers), but the marker for partition 0
# cannot reach F, so describe shows the transaction staying in
# PrepareCommit. V is killed with SIGKILL: C takes the __transaction_state
# partition over and loads the transaction with a commit to complete (its
# log says so); partition 1's records become visible to read_committed.
# F is thawed: partition 0's marker lands (its records visible), while
# partition 2, on the dead V, keeps the transaction in PrepareCommit.
# V restarted: the marker reaches partition 2, the transaction is
# CompleteCommit and read_committed sees all 30 records.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/clusterlib.sh"
. "$GR_INTEROP_DIR/lib/txnlib.sh"
cl_require
topic=cltxn_prep
TXN_PARTS=6

cl_start_cluster 3 transaction.state.log.replication.factor=2 transaction.state.log.min.isr=1 \
    transaction.state.log.num.partitions=$TXN_PARTS auto.leader.rebalance.enable=false
txn_found() { [ "$(cl_state "$CL_CONTROLLER" txn-coordinator "$1" 2>/dev/null | cut -d' ' -f1)" = 0 ]; }
gr_wait_until "$CL_WAIT_S" "FindCoordinator(transaction) to succeed (__transaction_state created)" txn_found probe
cl_wait_all_led __transaction_state $TXN_PARTS
C=$CL_CONTROLLER

# The __transaction_state partition of a transactional id: Java's
# abs(hashCode) modulo the partition count, as Kafka computes it.
txn_partition()
{
    "$GR_PYTHON" -c 'import sys
h = 0
for ch in sys.argv[1]:
    h = (31 * h + ord(ch)) & 0xffffffff
if h >= 1 << 31:
    h -= 1 << 32
print((0 if h == -(1 << 31) else abs(h)) % int(sys.argv[2]))' "$1" "$2"
}

TXN_ID='' V='' F=''
for ((n = 0; n < 500; n++)); do
    id=pc-$n
    part=$(txn_partition "$id" $TXN_PARTS)
    replicas=$(cl_state "$C" replicas __transaction_state | awk -v p="$part" '$1 == p { print $2 }')
    leader=$(cl_state "$C" leaders __transaction_state | awk -v p="$part" '$1 == p { print $2 }')
    # Replicas {leader, C} with a leader other than C.
    if [ "$leader" != "$C" ] && { [ "$replicas" = "$leader,$C" ] || [ "$replicas" = "$C,$leader" ]; }; then
        TXN_ID=$id V=$leader TXN_PART=$part
        break
    fi
done
[ -n "$TXN_ID" ] || gr_fail "no transactional id on a __transaction_state partition with replicas {X, $C} led by X != $C: $(cl_state "$C" replicas __transaction_state | tr '\n' ';')"
for b in 0 1 2; do [ "$b" = "$C" ] || [ "$b" = "$V" ] || F=$b; done
got=$(cl_state "$C" txn-coordinator "$TXN_ID")
[ "$got" = "0 $V" ] || gr_fail "FindCoordinator($TXN_ID) answered '$got', want '0 $V' (partition $TXN_PART by Java's hash)"
gr_note "$TXN_ID: __transaction_state-$TXN_PART on {$V, $C}, coordinator $V, controller $C, frozen later: $F"
TX_BROKER=$(cl_addr "$C")

cl_create_assigned "$C" $topic "$F/$C/$V"

tx_start held -t $topic -i "$TXN_ID" -n 30 -H -e commit -T 600000
tx_wait_line held '^holding '
cl_freeze_broker "$F"
tx_signal held USR1
tx_wait_line held '^committed '
tx_wait_state "$TXN_ID" '^PrepareCommit$'
gr_note "with broker $F frozen the commit stays in $(tx_state "$TXN_ID")"

cl_kill9_broker "$V"
# shellcheck disable=SC2317
coordinator_is_c() { [ "$(cl_state "$C" txn-coordinator "$TXN_ID" 2>/dev/null)" = "0 $C" ]; }
gr_wait_until "$CL_WAIT_S" "broker $C to coordinate $TXN_ID" coordinator_is_c
tx_wait_state "$TXN_ID" '^PrepareCommit$'
grep -q "from __transaction_state-$TXN_PART (coordinator epoch [0-9]*), [1-9][0-9]* to complete" "$(cl_broker_log "$C")" ||
    gr_fail "broker $C did not load __transaction_state-$TXN_PART with a transaction to complete: $(grep "__transaction_state-$TXN_PART" "$(cl_broker_log "$C")" | tail -n 3 | tr '\n' ';')"
# A partition's records as read_committed sees them through C.
visible_in()
{
    [ "$(timeout 30 "$GR_KCAT" -b "$TX_BROKER" -C -t $topic -p "$1" -o beginning -e -q \
        -X isolation.level=read_committed -f '%s\n' 2>/dev/null | grep -c "^$TXN_ID-0-")" = 10 ]
}
gr_wait_until "$CL_WAIT_S" "partition 1's records visible to read_committed" visible_in 1
[ "$(tx_state "$TXN_ID")" = PrepareCommit ] || gr_fail "$TXN_ID left PrepareCommit while partition 0's broker is frozen: $(tx_state "$TXN_ID")"

cl_thaw_broker "$F"
gr_wait_until "$CL_WAIT_S" "partition 0's records visible to read_committed once broker $F is back" visible_in 0
[ "$(tx_state "$TXN_ID")" = PrepareCommit ] || gr_fail "$TXN_ID left PrepareCommit while partition 2's broker is down: $(tx_state "$TXN_ID")"

cl_start_broker "$V"
tx_wait_state "$TXN_ID" '^CompleteCommit$'
tx_wait_exit held 0
cl_wait_stable "after broker $V's restart"
unset TX_BROKER
tx_verify read_committed $topic -f 0
tx_verify read_uncommitted $topic -f 0
gr_pass
