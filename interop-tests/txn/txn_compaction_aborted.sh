#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Compaction of a topic with aborted transactions. 20 transactions over 10
# keys (each key written twice per transaction), alternately committed and
# aborted, the last one aborted, then plain filler records so the
# transactional data leaves the active segment (cleanup.policy=compact,
# small segments, min.cleanable.dirty.ratio 0.01). Once cleaned:
# read_committed never sees a value of an aborted transaction and each key's
# last value is the one the last committed transaction wrote; the cleaner
# removes the aborted transactions' records, so read_uncommitted no longer
# sees them either; offsets keep increasing. After a restart (the .txnindex
# and producer state rebuilt from the cleaned log) the same holds, and the
# LSO is the high watermark.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/txnlib.sh"
gr_require_gregor
topic=txn_cmp

gr_start_broker log.cleaner.backoff.ms=100
tx_topic $topic 1 cleanup.policy=compact segment.bytes=4096 min.cleanable.dirty.ratio=0.01 \
    delete.retention.ms=2000
tx_produce cmp -t $topic -i cmp-app -l cmp -k 10 -n 20 -r 20 -e alternate
# Filler: plain records with keys of their own, several segments' worth.
seq 1 300 | awk '{ printf "fill-%04d:filler-padding-padding-padding-padding\n", $1 }' |
    gr_kcat -P -t $topic -K: -X batch.num.messages=10 || gr_fail "producing filler failed"
gr_wait_until "$TX_WAIT_S" "a cleaning of $topic-0" bash -c "grep -q 'cleaned $topic-0' '$GR_LOG'"

# "<offset> <key> <value>" lines with the isolation level $1.
consume() { tx_read $topic "$1" -f '%o %k %s\n'; }
# Values of odd (aborted) transactions: "cmp-<odd>-<seq>".
aborted_values() { awk '$3 ~ /^cmp-[0-9]*[13579]-[0-9]+$/' "$1"; }

check_committed_view()
{
    consume read_committed >"$GR_TMP/rc"
    [ -z "$(aborted_values "$GR_TMP/rc")" ] ||
        gr_fail "read_committed sees aborted values: $(aborted_values "$GR_TMP/rc" | head -n 3 | tr '\n' ';')"
    # Last value per key: transaction 18 wrote key-k at seqs k and 10+k.
    got=$(awk '$2 ~ /^key-/ { last[$2] = $3 } END { for (k in last) print k, last[k] }' "$GR_TMP/rc" | sort)
    want=$(for k in 0 1 2 3 4 5 6 7 8 9; do echo "key-$k cmp-18-$((10 + k))"; done | sort)
    [ "$got" = "$want" ] || gr_fail "last committed value per key: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | head -n 4 | tr '\n' ';')"
    awk 'NR > 1 && $1 <= prev { bad = 1 } { prev = $1 } END { exit bad }' "$GR_TMP/rc" ||
        gr_fail "offsets do not increase"
    [ "$(grep -c ' fill-' "$GR_TMP/rc")" = 300 ] || gr_fail "filler records lost"
}

check_committed_view
# The cleaner drops aborted transactions' records from what it rewrites.
aborted_gone() { consume read_uncommitted >"$GR_TMP/ru" && [ -z "$(aborted_values "$GR_TMP/ru")" ]; }
gr_wait_until "$TX_WAIT_S" "the cleaner to remove the aborted records (read_uncommitted)" aborted_gone

gr_restart_broker
check_committed_view
aborted_gone || gr_fail "aborted records came back after a restart: $(aborted_values "$GR_TMP/ru" | head -n 3 | tr '\n' ';')"
[ "$(tx_offsets $topic read_committed)" = "$(tx_offsets $topic)" ] ||
    gr_fail "LSO $(tx_offsets $topic read_committed | tr '\n' ';') is not the high watermark $(tx_offsets $topic | tr '\n' ';') after the restart"
gr_pass
