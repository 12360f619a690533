#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A producer that dies mid-transaction is aborted by the coordinator once
# its transaction.timeout.ms passes
# (transaction.abort.timed.out.transaction.cleanup.interval.ms checks). The
# producer (transaction.timeout.ms=4000) writes 12 records over two
# partitions and exits without ending its transaction; plain records follow.
# read_committed consumers are held at the transaction's first offsets
# until the coordinator aborts it; then the LSO reaches the high watermark
# in both partitions and read_committed sees the plain records, never the
# dead producer's. describe shows CompleteAbort with the epoch bumped past
# the dead producer's (0), and a
# new producer with the same transactional id commits normally.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/txnlib.sh"
gr_require_gregor
topic=txn_dies
TXN_ID=dies-app

gr_start_broker transaction.abort.timed.out.transaction.cleanup.interval.ms=500
tx_topic $topic 2
tx_produce dead -t $topic -i $TXN_ID -n 12 -e exit -T 4000
grep -q "^exiting $TXN_ID 0 12\$" "$GR_TMP/dead.out" || gr_fail "the producer did not die as asked: $(tr '\n' ';' <"$GR_TMP/dead.out")"
for p in 0 1; do seq 1 5 | sed "s/^/plain-$p-/" | gr_kcat -P -t $topic -p $p; done

lso_is_hw() { [ "$(tx_offsets $topic read_committed)" = "$(tx_offsets $topic)" ]; }
# The LSO only moves when the coordinator aborts: poll (the timeout is 4 s).
gr_wait_until "$TX_WAIT_S" "the timed-out transaction to be aborted (LSO = high watermark)" lso_is_hw
got=$(tx_read $topic read_committed | awk '{ print $3 }' | sort | tr '\n' ' ')
want=$( (seq 1 5 | sed 's/^/plain-0-/'; seq 1 5 | sed 's/^/plain-1-/') | sort | tr '\n' ' ')
[ "$got" = "$want" ] || gr_fail "read_committed after the timeout saw: $got"
tx_wait_state $TXN_ID CompleteAbort
out=$(tx_admin transactions describe --transactional-id $TXN_ID)
epoch_after=$(tail -n 1 <<<"$out" | awk '{ print $4 }')
# A new transactional id starts at epoch 0; the abort fences it with epoch 1.
[ "$epoch_after" -ge 1 ] || gr_fail "the timeout abort did not bump the epoch: $out"

tx_produce next -t $topic -i $TXN_ID -s 1 -n 12 -e commit
tx_verify read_committed $topic -f 10
tx_verify read_uncommitted $topic -f 10
gr_pass
