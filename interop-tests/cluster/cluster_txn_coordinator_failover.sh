#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The transaction coordinator's broker killed in the middle of a commit.
# Three brokers, __transaction_state with 3 replicas (min.isr 2), a topic
# of 3 partitions with 3 replicas. Twice, a transactional id coordinated by
# a broker other than the controller holds an open transaction of 30
# records over every partition; released, its producer commits and the
# coordinator's broker is killed with SIGKILL: in round "ended" right after
# commit_transaction returned (PrepareCommit is in the replicated log, the
# markers may be on their way), in round "called" right after the producer
# was told to commit (EndTxn in flight). A surviving replica of the
# coordinator's __transaction_state partition becomes leader, loads the
# transaction and completes it: FindCoordinator names a live broker,
# describe shows CompleteCommit, the producer's commit succeeds, and
# read_committed sees every transaction whole (polled: markers reach every
# partition, also the ones whose leadership moved). Nothing is ever
# half-visible. Restarted, the killed broker catches up: every replica of
# the topic holds the same bytes, markers included.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/clusterlib.sh"
. "$GR_INTEROP_DIR/lib/txnlib.sh"
cl_require
topic=cltxn
TXN_PARTS=6

cl_start_cluster 3 transaction.state.log.replication.factor=3 transaction.state.log.min.isr=2 \
    transaction.state.log.num.partitions=$TXN_PARTS \
    transaction.abort.timed.out.transaction.cleanup.interval.ms=1000
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic 3 3) || gr_fail "admin create failed: $out"
[ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"
cl_wait_all_led $topic 3

# The first FindCoordinator (key type 1) creates __transaction_state.
txn_found() { [ "$(cl_state "$CL_CONTROLLER" txn-coordinator "$1" 2>/dev/null | cut -d' ' -f1)" = 0 ]; }
gr_wait_until "$CL_WAIT_S" "FindCoordinator(transaction) to succeed (__transaction_state created)" txn_found probe
cl_wait_all_led __transaction_state $TXN_PARTS

# A transactional id whose coordinator is a running broker other than the
# controller: sets TXN_ID and VICTIM.
pick_txn_id()
{
    local round=$1 n node
    cl_wait_stable "before round $round"
    for ((n = 0; n < 200; n++)); do
        node=$(cl_state "$CL_CONTROLLER" txn-coordinator "cl-$round-$n" | awk '$1 == 0 { print $2 }')
        if [ -n "$node" ] && [ "$node" != "$CL_CONTROLLER" ]; then
            TXN_ID=cl-$round-$n VICTIM=$node
            return 0
        fi
    done
    gr_fail "no transactional id coordinated by a broker other than the controller $CL_CONTROLLER"
}

# txn_verify's read_committed check over every producer so far, quietly.
all_whole()
{
    local f args=(-b "$(tx_brokers)" -t "$topic" -I read_committed -w 30 -f 0)
    for f in "${TX_OUTS[@]}"; do args+=(-i "$f"); done
    "$GR_PROGS/txn_verify" "${args[@]}" >"$GR_TMP/verify.out" 2>"$GR_TMP/verify.err"
}
half_visible() { grep -q 'BAD (partly visible\|BAD (records of a transaction not committed' "$GR_TMP/verify.out"; }

for round in ended called; do
    pick_txn_id $round
    gr_note "round $round: $TXN_ID is coordinated by broker $VICTIM"
    tx_start "$round" -t $topic -i "$TXN_ID" -n 30 -H -e commit -A -T 600000
    tx_wait_line "$round" '^holding '
    tx_signal "$round" USR1
    [ $round = called ] || tx_wait_line "$round" '^(committed|aborted|failed) '
    cl_kill9_broker "$VICTIM"

    # A new coordinator: FindCoordinator on a live broker names a live broker.
    # shellcheck disable=SC2317
    coordinator_moved()
    {
        local got
        got=$(cl_state "$(cl_live | awk '{ print $1 }')" txn-coordinator "$TXN_ID" 2>/dev/null) || return 1
        [ "${got%% *}" = 0 ] && [ "${got##* }" != "$VICTIM" ]
    }
    gr_wait_until "$CL_WAIT_S" "a live coordinator for $TXN_ID" coordinator_moved
    tx_wait_exit "$round" 0
    last=$(tail -n 1 "$(tx_out "$round")")
    gr_note "round $round: the producer says '$last'"
    tx_wait_state "$TXN_ID" '^Complete(Commit|Abort)$'
    case "$last $(tx_state "$TXN_ID")" in
    "committed $TXN_ID 0 30 CompleteCommit" | "aborted $TXN_ID 0 30 CompleteAbort") ;;
    *) gr_fail "round $round: the producer's '$last' against the coordinator's $(tx_state "$TXN_ID")" ;;
    esac
    # Until every marker is in, a read may see a transaction's records in
    # some partitions only behind the LSO, never past it: poll for all of it,
    # failing at once on anything half-visible.
    whole_or_fail() { all_whole && return 0; ! half_visible || gr_fail "round $round: $(grep BAD "$GR_TMP/verify.out")"; return 1; }
    gr_wait_until "$CL_WAIT_S" "round $round: every transaction whole to read_committed" whole_or_fail
    cl_start_broker "$VICTIM"
done

tx_verify read_committed $topic -f 0
tx_verify read_uncommitted $topic -f 0
cl_wait_replicas_equal $topic 3
gr_pass
