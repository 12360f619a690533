#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# An exactly-once pipeline (progs/txn_pipeline): a read_committed consumer
# in group eos reads IN, each batch is transformed into OUT by a
# transactional producer with its input offsets added to the transaction
# (send_offsets_to_transaction: AddOffsetsToTxn, TxnOffsetCommit).
# 1. 300 records, every third batch aborted and read again: OUT read with
#    read_committed holds exactly one "out:<value>" per IN record, and the
#    group's committed offsets are IN's ends.
# 2. The group's offsets appear only on commit: 30 more records, the
#    pipeline holds before each commit (-H); while it holds, the committed
#    offsets are still the old ends and OUT's new records are invisible to
#    read_committed (its LSO is below its high watermark); once released,
#    the offsets are the new ends and OUT has all 330.
# 3. A pipeline that dies mid-transaction (-x: after batch 1's records and
#    offsets are in its transaction) and is started again with the same
#    transactional id: the new one's InitProducerId aborts the dead one's
#    transaction (its records and its pending offsets), the group resumes
#    from the last committed offsets, and OUT still holds each of 390
#    transformed records exactly once.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/txnlib.sh"
gr_require_gregor
GROUP=eos

gr_start_broker group.initial.rebalance.delay.ms=0
tx_topic in 3
tx_topic out 3
# Each of IN's partitions gets a third of the records, named explicitly:
# left to the sticky partitioner a quick producer may leave a partition
# empty, and the group commits no offset for a partition it never read.
produce_in()
{
    local p
    for p in 0 1 2; do
        seq "$1" "$2" | awk -v p=$p 'NR % 3 == p' | sed 's/^/in-/' | gr_kcat -P -t in -p $p || return 1
    done
}
pipeline_args=(-b "$GR_BOOTSTRAP" -g "$GROUP" -i in -o out -T eos-app -w "$TX_WAIT_S"
    -X session.timeout.ms=6000)

# OUT read with read_committed is exactly "out:in-1" .. "out:in-$1", once each.
out_is_exactly()
{
    local got want
    got=$(tx_read out read_committed | awk '{ print $3 }' | sort)
    want=$(seq 1 "$1" | sed 's/^/out:in-/' | sort)
    [ "$got" = "$want" ] && return 0
    gr_note "OUT (read_committed) differs from in-1..$1: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | head -n 6 | tr '\n' ';')"
    return 1
}

run_pipeline()
{
    local name=$1 rc=0
    shift
    gr_prog txn_pipeline "${pipeline_args[@]}" "$@" >"$GR_TMP/$name.out" 2>"$GR_TMP/$name.err" || rc=$?
    if [ $rc != 0 ]; then
        tail -n 15 "$GR_TMP/$name.err" >&2
        gr_fail "txn_pipeline $name exited $rc: $(tail -n 1 "$GR_TMP/$name.out")"
    fi
    gr_note "$name: $(tail -n 1 "$GR_TMP/$name.out")"
}

# --- 1: aborts on the way --------------------------------------------------
produce_in 1 300
run_pipeline first -B 25 -a 3 -E
grep -q '^aborted batch ' "$GR_TMP/first.out" || gr_fail "no batch was aborted"
out_is_exactly 300 || gr_fail "OUT is not exactly once after the first run"
[ "$(tx_committed $GROUP)" = "$(tx_ends in)" ] ||
    gr_fail "committed offsets $(tx_committed $GROUP | tr '\n' ';') are not IN's ends $(tx_ends in | tr '\n' ';')"

# --- 2: offsets committed with the transaction only -------------------------
ends_before=$(tx_ends in)
produce_in 301 330
gr_prog_bg() { "$GR_PROGS/txn_pipeline" "${pipeline_args[@]}" "$@" >"$GR_TMP/held.out" 2>"$GR_TMP/held.err" & }
gr_prog_bg -B 100 -n 30 -H
held=$!
gr_track $held
holds() { grep -c '^holding ' "$GR_TMP/held.out" 2>/dev/null || true; }
first_hold() { [ "$(holds)" -ge 1 ] || { gr_alive $held || gr_fail "the held pipeline exited: $(tail -n 3 "$GR_TMP/held.err" | tr '\n' ';')"; return 1; }; }
gr_wait_until "$TX_WAIT_S" "the pipeline to hold its first transaction" first_hold
[ "$(tx_committed $GROUP)" = "$ends_before" ] ||
    gr_fail "offsets visible before the commit: $(tx_committed $GROUP | tr '\n' ';'), want the old ends $(tr '\n' ';' <<<"$ends_before")"
out_is_exactly 300 || gr_fail "read_committed sees OUT records of the open transaction"
[ "$(tx_offsets out read_committed)" != "$(tx_offsets out)" ] || gr_fail "OUT's LSO is at its high watermark with a transaction open"
# Release every hold until the pipeline has its 30 records committed.
released=0
release_all()
{
    local n
    n=$(holds)
    while [ "$released" -lt "$n" ]; do
        kill -USR1 $held 2>/dev/null || true
        released=$((released + 1))
    done
    ! gr_alive $held
}
gr_wait_until "$TX_WAIT_S" "the held pipeline to commit its 30 records" release_all
wait $held || gr_fail "the held pipeline failed: $(tail -n 3 "$GR_TMP/held.err" | tr '\n' ';')"
[ "$(tx_committed $GROUP)" = "$(tx_ends in)" ] ||
    gr_fail "after the commit: offsets $(tx_committed $GROUP | tr '\n' ';'), want $(tx_ends in | tr '\n' ';')"
out_is_exactly 330 || gr_fail "OUT is not exactly once after the held run"

# --- 3: a pipeline dies mid-transaction ------------------------------------
produce_in 331 390
run_pipeline crashed -B 20 -x 1 -E
grep -q '^crashing batch 1 ' "$GR_TMP/crashed.out" || gr_fail "the pipeline did not die at batch 1: $(tr '\n' ';' <"$GR_TMP/crashed.out")"
run_pipeline resumed -B 20 -E
out_is_exactly 390 || gr_fail "OUT is not exactly once after a pipeline died mid-transaction"
[ "$(tx_committed $GROUP)" = "$(tx_ends in)" ] ||
    gr_fail "after the restart: offsets $(tx_committed $GROUP | tr '\n' ';'), want $(tx_ends in | tr '\n' ';')"
gr_pass
