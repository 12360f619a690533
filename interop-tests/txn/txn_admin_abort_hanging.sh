#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gregor-admin transactions abort ends a hanging transaction as
# kafka-transactions.sh does. A producer leaves a transaction open in
# partition 1 with a long timeout (txn_producer -e hang), plain records
# follow it: read_committed consumers are held at its first offset. An abort
# at an offset where no transaction starts is refused (exit 1, "Could not
# find any open transactions"); at the transaction's start offset
# (describe-producers' CurrentTransactionStartOffset) gregor-admin finds the
# producer with DescribeProducers and writes an ABORT marker with its epoch
# through WriteTxnMarkers: the partition's LSO reaches the high watermark,
# read_committed sees the plain records and never the aborted ones, and
# describe-producers shows no open transaction any more.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/txnlib.sh"
gr_require_gregor
topic=txn_hang

gr_start_broker
tx_topic $topic 2
seq 1 3 | sed 's/^/before-/' | gr_kcat -P -t $topic -p 1
tx_start hung -t $topic -i hang-app -p 1 -n 8 -e hang -T 600000
tx_wait_line hung '^hanging '
seq 1 4 | sed 's/^/after-/' | gr_kcat -P -t $topic -p 1

[ "$(tx_offset_of $topic 1 read_committed)" = 3 ] ||
    gr_fail "LSO $(tx_offset_of $topic 1 read_committed) with the transaction open at offset 3"
out=$(tx_admin transactions describe-producers --topic $topic --partition 1)
start=$(awk 'NR > 1 && $6 != "None" { print $6 }' <<<"$out")
[ "$start" = 3 ] || gr_fail "describe-producers does not show the open transaction at offset 3: $out"

rc=0
out=$(tx_admin transactions abort --topic $topic --partition 1 --start-offset 4 2>&1) || rc=$?
[ $rc = 1 ] && grep -q "Could not find any open transactions starting at offset 4" <<<"$out" ||
    gr_fail "abort at an offset where nothing starts: exit $rc: $out"
out=$(tx_admin transactions abort --topic $topic --partition 1 --start-offset "$start" 2>&1) ||
    gr_fail "transactions abort failed: $out"
gr_note "$out"

lso_is_hw() { [ "$(tx_offset_of $topic 1 read_committed)" = "$(tx_offset_of $topic 1)" ]; }
gr_wait_until "$TX_WAIT_S" "the LSO to reach the high watermark after the abort marker" lso_is_hw
got=$(tx_read $topic read_committed -p 1 | awk '{ print $3 }' | tr '\n' ' ')
[ "$got" = "before-1 before-2 before-3 after-1 after-2 after-3 after-4 " ] ||
    gr_fail "read_committed after the abort saw: $got"
out=$(tx_admin transactions describe-producers --topic $topic --partition 1)
awk 'NR > 1 && $6 != "None" { bad = 1 } END { exit bad }' <<<"$out" ||
    gr_fail "describe-producers still shows an open transaction: $out"
tx_verify read_committed $topic -f 7
tx_verify read_uncommitted $topic -f 7

tx_signal hung TERM
tx_wait_exit hung 0
gr_pass
