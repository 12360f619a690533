#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kcat's transactional producer (-X transactional.id): all of its input in
# one transaction, committed when the input ends, aborted when kcat is
# interrupted. 50 lines through kcat -P are committed: read_committed sees
# all 50 (and gregor-admin describes kcat's transactional id
# CompleteCommit). A second kcat gets 5000 long lines and its input stays
# open (kcat reads its input in large blocks: only whole blocks are
# produced before the input ends): what it wrote is in an open transaction,
# read_uncommitted sees it, read_committed is held before it. SIGINT ends
# kcat: it aborts the transaction, or (kcat 1.7 interrupted in the middle
# of a produce call exits without aborting) the coordinator aborts it once
# its transaction.timeout.ms (20 s here) passes. Either way the LSO reaches
# the high watermark and read_committed never sees any of those lines.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/txnlib.sh"
gr_require_gregor
kcat_list=$("$GR_KCAT" -X list 2>&1 || true)
grep -q '^transactional.id ' <<<"$kcat_list" || { gr_note "skipped: this kcat has no transactional.id"; exit 77; }
topic=txn_kcat

gr_start_broker transaction.abort.timed.out.transaction.cleanup.interval.ms=500
tx_topic $topic 1
seq 1 50 | sed 's/^/kcat-committed-/' |
    gr_kcat -P -t $topic -m 30 -X transactional.id=kcat-app || gr_fail "kcat's transactional produce failed"
got=$(tx_read $topic read_committed | awk '{ print $3 }')
[ "$got" = "$(seq 1 50 | sed 's/^/kcat-committed-/')" ] || gr_fail "read_committed after kcat's commit: $(tr '\n' ' ' <<<"$got")"
tx_wait_state kcat-app '^CompleteCommit$'

mkfifo "$GR_TMP/input"
"$GR_KCAT" -b "$GR_BOOTSTRAP" -P -t $topic -m 30 -X transactional.id=kcat-app2 \
    -X transaction.timeout.ms=20000 <"$GR_TMP/input" \
    2>"$GR_TMP/kcat2.err" &
kcat_pid=$!
gr_track $kcat_pid
exec 3>"$GR_TMP/input"
seq 1 5000 | awk '{ printf "kcat-aborted-%d-%s\n", $1, "padding-padding-padding-padding-padding-padding-padding" }' >&3
uncommitted_seen() { [ "$(tx_read $topic read_uncommitted | grep -c ' kcat-aborted-')" -gt 0 ]; }
gr_wait_until "$TX_WAIT_S" "records of kcat's open transaction in the log" uncommitted_seen
# 50 committed records and their COMMIT marker: the open transaction starts at 51.
first=$(tx_read $topic read_uncommitted | awk '$3 ~ /^kcat-aborted-/ && !found { print $2; found = 1 }')
[ "$first" = 51 ] || gr_fail "kcat's second transaction starts at offset '$first', want 51"
[ "$(tx_offset_of $topic 0 read_committed)" = 51 ] ||
    gr_fail "LSO $(tx_offset_of $topic 0 read_committed) with kcat's transaction open at offset 51"
[ "$(tx_state kcat-app2)" = Ongoing ] || gr_fail "kcat-app2 is '$(tx_state kcat-app2)', want Ongoing"
kill -INT $kcat_pid
exec 3>&-
rc=0
wait $kcat_pid || rc=$?
gr_note "kcat exited $rc after SIGINT: $(tail -n 2 "$GR_TMP/kcat2.err" | tr '\n' ';')"
lso_is_hw() { [ "$(tx_offset_of $topic 0 read_committed)" = "$(tx_offset_of $topic 0)" ]; }
gr_wait_until "$TX_WAIT_S" "the LSO to reach the high watermark after kcat's abort" lso_is_hw
got=$(tx_read $topic read_committed | awk '{ print $3 }')
[ "$got" = "$(seq 1 50 | sed 's/^/kcat-committed-/')" ] ||
    gr_fail "read_committed after kcat's abort: $(tr '\n' ' ' <<<"$got" | head -c 300)"
tx_wait_state kcat-app2 '^CompleteAbort$'
gr_pass
