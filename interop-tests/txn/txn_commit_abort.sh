#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Committed and aborted transactions as each isolation level sees them.
# progs/txn_producer writes 6 transactions of 30 records over a 3-partition
# topic, alternately committed and aborted, between plain (non
# transactional) records from kcat; a second run of the same transactional
# id (a new session: InitProducerId bumps the epoch) aborts one more and
# commits one more. txn_verify with read_committed sees every record of the
# committed transactions exactly once and nothing of the aborted ones; with
# read_uncommitted it sees all of them; kcat with read_committed sees the
# plain records and the committed ones, nothing aborted. With no
# transaction open the last stable offset is the high watermark (ListOffsets
# latest with read_committed). gregor-admin transactions list and describe
# show the transactional id, its producer id, a bumped epoch, the timeout
# asked and state CompleteCommit, with no partition left in it.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/txnlib.sh"
gr_require_gregor
topic=txn_ca
TXN_ID=ca-app

gr_start_broker
tx_topic $topic 3
plain() { seq "$1" "$2" | sed 's/^/plain-/' | gr_kcat -P -t $topic -p "$3"; }

plain 1 10 0
tx_produce first -t $topic -i $TXN_ID -n 30 -r 6 -e alternate -T 45000
plain 11 20 1
tx_produce second -t $topic -i $TXN_ID -s 6 -n 30 -r 2 -e ac -T 45000
plain 21 30 2
[ "$(grep -c '^committed ' "$GR_TMP/first.out" "$GR_TMP/second.out" | awk -F: '{ n += $2 } END { print n }')" = 4 ] ||
    gr_fail "the producers did not commit 4 transactions: $(cat "$GR_TMP"/*.out | tr '\n' ';')"

tx_verify read_committed $topic -f 30
tx_verify read_uncommitted $topic -f 30

# kcat, read_committed: the 30 plain records and the 4 committed transactions.
got=$(tx_read $topic read_committed | awk '{ print $3 }' | sort)
want=$( (seq 1 30 | sed 's/^/plain-/'
    for t in 0 2 4 7; do seq 0 29 | sed "s/^/$TXN_ID-$t-/"; done) | sort)
[ "$got" = "$want" ] || gr_fail "kcat read_committed saw something else: $(diff <(echo "$want") <(echo "$got") | head -n 6 | tr '\n' ';')"

# Nothing open: the last stable offset is the high watermark everywhere.
[ "$(tx_offsets $topic read_committed)" = "$(tx_offsets $topic)" ] ||
    gr_fail "LSO is not the high watermark with no transaction open: LSO $(tx_offsets $topic read_committed | tr '\n' ';') HW $(tx_offsets $topic | tr '\n' ';')"

# gregor-admin transactions.
out=$(tx_admin transactions list) || gr_fail "transactions list failed: $out"
head -n 1 <<<"$out" | grep -Eq '^TransactionalId +Coordinator +ProducerId +TransactionState$' ||
    gr_fail "transactions list header: $out"
grep -Eq "^$TXN_ID +0 +[0-9]+ +CompleteCommit\$" <<<"$out" || gr_fail "transactions list: $out"
out=$(tx_admin transactions describe --transactional-id $TXN_ID) || gr_fail "transactions describe failed: $out"
head -n 1 <<<"$out" | grep -Eq '^CoordinatorId +TransactionalId +ProducerId +ProducerEpoch +TransactionState +TransactionTimeoutMs +CurrentTransactionStartTimeMs +TransactionDurationMs +TopicPartitions$' ||
    gr_fail "transactions describe header: $out"
read -r coordinator id pid epoch state timeout rest < <(tail -n 1 <<<"$out")
[ "$coordinator $id $state $timeout" = "0 $TXN_ID CompleteCommit 45000" ] || gr_fail "transactions describe: $out"
[ "$epoch" -ge 1 ] || gr_fail "the second session did not bump the epoch: $out"
grep -q "$topic-" <<<"$rest" && gr_fail "a completed transaction still lists partitions: $out"
list_pid=$(tx_admin transactions list | awk -v id=$TXN_ID '$1 == id { print $3 }')
[ "$list_pid" = "$pid" ] || gr_fail "list says producer id $list_pid, describe $pid"
out=$(tx_admin transactions describe --transactional-id no-such-app 2>&1) && gr_fail "describing an unknown transactional id succeeded: $out"
grep -q TRANSACTIONAL_ID_NOT_FOUND <<<"$out" || gr_fail "unknown transactional id: $out"
gr_pass
