#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kill -9 of the broker in each transaction state, then a restart: every
# transaction ends consistently, all of it visible to read_committed or
# none of it, and nothing stays open.
# Ongoing: a producer holds an open transaction over 3 partitions (records
#   written, not ended) when the broker is killed; after the restart the
#   transaction is still open (describe: Ongoing, each partition's LSO at
#   the transaction's first offset, 0) and the producer, released, commits
#   it: read_committed sees all of it.
# PrepareCommit / PrepareAbort: a producer is released to commit (or abort)
#   and the broker is killed at once after the signal, after the producer
#   called commit_transaction (abort_transaction), or right after the call
#   returned (the coordinator has logged PrepareCommit/PrepareAbort and may
#   still be writing markers). After the restart the coordinator completes
#   the transaction (describe: CompleteCommit or CompleteAbort), every
#   partition's LSO reaches its high watermark, and read_committed sees
#   exactly what the producer was told (a commit it saw fail and then
#   aborted counts as aborted: -A).
# On one broker the markers are local appends, so the window in which the
# kill finds PrepareCommit/PrepareAbort is narrow and a run may miss it
# (the broker log's "N to complete" on load tells); the deterministic
# recovery from PrepareCommit is cluster_txn_prepare_commit_failover.sh's,
# where a frozen broker holds a marker back.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/txnlib.sh"
gr_require_gregor
topic=txn_kill9
# Longer than the test: no transaction may end by timing out here.
TIMEOUT_MS=600000

gr_start_broker
tx_topic $topic 3
lso_is_hw() { [ "$(tx_offsets $topic read_committed)" = "$(tx_offsets $topic)" ]; }

# --- Ongoing ---------------------------------------------------------------
tx_start ongoing -t $topic -i k9-ongoing -n 30 -H -e commit -A -T $TIMEOUT_MS
tx_wait_line ongoing '^holding '
gr_kill9_broker
gr_start_broker
tx_wait_state k9-ongoing '^Ongoing$'
lsos=$(tx_offsets $topic read_committed | awk '{ print $3 }' | tr '\n' ' ')
[ "$lsos" = "0 0 0 " ] || gr_fail "after the restart the open transaction does not hold the LSO at 0: $lsos"
tx_signal ongoing USR1
tx_wait_exit ongoing 0
grep -q '^committed k9-ongoing 0 30$' "$GR_TMP/ongoing.out" || gr_fail "the held transaction was not committed after the restart"
gr_wait_until "$TX_WAIT_S" "the LSO to reach the high watermark" lso_is_hw
tx_verify read_committed $topic -f 0

# --- PrepareCommit / PrepareAbort --------------------------------------------
for ending in commit abort; do
    for when in signal call return; do
        name=k9-$ending-$when
        tx_start "$name" -t $topic -i "$name" -n 30 -H -e $ending -A -T $TIMEOUT_MS
        tx_wait_line "$name" '^holding '
        tx_signal "$name" USR1
        case $when in
        call) tx_wait_line "$name" '^(committing|aborting) ' ;;
        return) tx_wait_line "$name" '^(committed|aborted|failed) ' ;;
        esac
        gr_kill9_broker
        gr_start_broker
        tx_wait_exit "$name" 0
        tx_wait_state "$name" '^Complete(Commit|Abort)$'
        state=$(tx_state "$name")
        last=$(tail -n 1 "$(tx_out "$name")")
        case "$last $state" in
        "committed $name 0 30 CompleteCommit" | "aborted $name 0 30 CompleteAbort") ;;
        *) gr_fail "$name: the producer's last word '$last' but the coordinator says $state" ;;
        esac
        gr_note "$name: $last ($state)"
        gr_wait_until "$TX_WAIT_S" "$name: the LSO to reach the high watermark" lso_is_hw
        tx_verify read_committed $topic -f 0
    done
done
tx_verify read_uncommitted $topic -f 0
gr_pass
