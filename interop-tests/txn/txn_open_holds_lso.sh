#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# An open transaction holds read_committed consumers at the last stable
# offset until it ends. Five plain records, then a transaction of 10 records
# left open (txn_producer -H holds before committing), then five plain
# records more: ListOffsets latest with read_committed answers the
# transaction's first offset (5) while the high watermark is past the later
# records; kcat with read_committed sees the first five plain records and
# nothing of the transaction nor after it; read_uncommitted sees all 20.
# gregor-admin shows the transaction Ongoing on the partition
# (describe-producers: its start offset 5). Released, the producer commits:
# the LSO reaches the high watermark and read_committed sees all 20 records
# in offset order, the transaction's between the plain ones. A second
# transaction on two partitions, aborted, leaves both partitions' LSO at
# their high watermark and read_committed never sees it.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/txnlib.sh"
gr_require_gregor
topic=txn_lso
TXN_ID="lso-app"

gr_start_broker
tx_topic $topic 2
plain() { seq "$1" "$2" | sed 's/^/plain-/' | gr_kcat -P -t $topic -p 0; }

plain 1 5
tx_start held -t $topic -i $TXN_ID -p 0 -n 10 -H -e commit
tx_wait_line held '^holding '
plain 6 10

lso=$(tx_offset_of $topic 0 read_committed)
hw=$(tx_offset_of $topic 0)
[ "$lso" = 5 ] || gr_fail "ListOffsets read_committed answered $lso with a transaction open at offset 5 (high watermark $hw)"
[ "$hw" = 20 ] || gr_fail "high watermark $hw, want 20 (5 plain + 10 transactional + 5 plain)"
got=$(tx_read $topic read_committed | awk '{ print $3 }' | tr '\n' ' ')
[ "$got" = "plain-1 plain-2 plain-3 plain-4 plain-5 " ] ||
    gr_fail "read_committed with a transaction open at offset 5 saw: $got"
[ "$(tx_read $topic read_uncommitted | wc -l)" = 20 ] || gr_fail "read_uncommitted does not see all 20 records"
# txn_verify reads up to the LSO: the held transaction is not visible.
tx_verify read_committed $topic -f 5
grep -q "^end 0 5\$" <<<"$TX_VERIFY_OUT" || gr_fail "librdkafka's read_committed end offset: $TX_VERIFY_OUT"

[ "$(tx_state $TXN_ID)" = Ongoing ] || gr_fail "describe: state '$(tx_state $TXN_ID)', want Ongoing"
out=$(tx_admin transactions describe --transactional-id $TXN_ID)
grep -Eq "^0 +$TXN_ID +[0-9]+ +[0-9]+ +Ongoing +[0-9]+ +[0-9]+ +[0-9]+ +$topic-0\$" <<<"$out" ||
    gr_fail "transactions describe of the open transaction: $out"
out=$(tx_admin transactions describe-producers --topic $topic --partition 0)
grep -Eq '^[0-9]+ +[0-9]+ +-?[0-9]+ +9 +[0-9]+ +5$' <<<"$out" ||
    gr_fail "describe-producers: want the producer at last sequence 9 with its transaction from offset 5: $out"
grep -Eq "^$TXN_ID +0 +[0-9]+ +Ongoing\$" <<<"$(tx_admin transactions list)" ||
    gr_fail "transactions list: $(tx_admin transactions list)"

tx_signal held USR1
tx_wait_exit held 0
# The marker is the 21st offset; the LSO follows the high watermark.
lso_is_hw() { [ "$(tx_offset_of $topic 0 read_committed)" = "$(tx_offset_of $topic 0)" ]; }
gr_wait_until "$TX_WAIT_S" "the LSO to reach the high watermark after the commit" lso_is_hw
[ "$(tx_offset_of $topic 0)" = 21 ] || gr_fail "high watermark $(tx_offset_of $topic 0) after the commit marker, want 21"
got=$(tx_read $topic read_committed | awk '{ print $3 }' | tr '\n' ' ')
want="$(seq 1 5 | sed 's/^/plain-/' | tr '\n' ' ')$(seq 0 9 | sed "s/^/$TXN_ID-0-/" | tr '\n' ' ')$(seq 6 10 | sed 's/^/plain-/' | tr '\n' ' ')"
[ "$got" = "$want" ] || gr_fail "read_committed after the commit saw: $got"
tx_verify read_committed $topic -f 10
tx_wait_state $TXN_ID CompleteCommit

# An aborted transaction over both partitions: nothing left open anywhere.
tx_produce aborted -t $topic -i $TXN_ID -s 1 -n 6 -e abort
[ "$(tx_offsets $topic read_committed)" = "$(tx_offsets $topic)" ] ||
    gr_fail "an aborted transaction left the LSO behind: LSO $(tx_offsets $topic read_committed | tr '\n' ';') HW $(tx_offsets $topic | tr '\n' ';')"
tx_verify read_committed $topic -f 10
tx_verify read_uncommitted $topic -f 10
gr_pass
