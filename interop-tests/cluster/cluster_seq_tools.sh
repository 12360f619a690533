#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The replication tests' tools, checked against a 3-broker cluster with
# replication factor 1 (they must not need replication to be there):
# seq_producer acknowledges 0..N-1 spread round-robin over the partitions and
# seq_verify finds each at its acknowledged place; seq_verify fails on an
# output file claiming an offset that holds another seq and on seqs written
# twice; cluster_state.py isr reports each partition's one replica as its
# ISR; cl_compare_replicas passes on a copied replica directory (also with its
# segments split differently) and fails, naming the partition, the brokers
# and the first differing byte, once one copy has a byte more or a byte
# changed.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
PARTS=3
N=3000
topic=seq

cl_start_cluster 3
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic $PARTS 1) || gr_fail "admin create failed: $out"
[ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"
cl_wait_all_led $topic $PARTS

gr_prog seq_producer -b "$GR_BOOTSTRAP" -t $topic -n $N -o "$GR_TMP/acked" 2>"$GR_TMP/producer.err" ||
    gr_fail "seq_producer failed: $(tail -n 3 "$GR_TMP/producer.err")"
tail -n 1 "$GR_TMP/producer.err" | grep -q "produced=$N acked=$N failed=0" ||
    gr_fail "seq_producer did not get every record acknowledged: $(tail -n 3 "$GR_TMP/producer.err")"
[ "$(wc -l <"$GR_TMP/acked")" = $N ] || gr_fail "seq_producer wrote $(wc -l <"$GR_TMP/acked") acknowledged lines, want $N"
spread=$(awk '{ n[$2]++; if ($2 != $1 % 3) bad++ } END { print n[0] + 0, n[1] + 0, n[2] + 0, "bad:" bad + 0 }' "$GR_TMP/acked")
[ "$spread" = "1000 1000 1000 bad:0" ] || gr_fail "records not spread as seq % $PARTS: $spread"

want="seq_verify: acked $N, read $N, missing 0, duplicated 0, misplaced 0, out of order 0, foreign 0, partitions $PARTS: ok"
out=$(gr_prog seq_verify -b "$GR_BOOTSTRAP" -t $topic -i "$GR_TMP/acked" -n $N) || gr_fail "seq_verify failed: $out"
[ "$out" = "$want" ] || gr_fail "seq_verify said: $out"

# The verifier can fail: seq 0 (partition 0, offset 0) claimed at offset 1,
# which holds seq 3.
awk '$1 == 0 { $3 = 1 } { print }' "$GR_TMP/acked" >"$GR_TMP/lying"
rc=0
out=$(gr_prog seq_verify -b "$GR_BOOTSTRAP" -t $topic -i "$GR_TMP/lying" 2>"$GR_TMP/verify.err") || rc=$?
[ $rc = 1 ] || gr_fail "seq_verify exited $rc on a file claiming seq 0 at offset 1 (want 1): $out"
[[ $out == *"misplaced 1,"*FAILED ]] || gr_fail "seq_verify on a file claiming seq 0 at offset 1 said: $out"
grep -q "seq 0 acknowledged at 0/1 but read at 0/0" "$GR_TMP/verify.err" ||
    gr_fail "seq_verify did not name the misplaced seq: $(head -n 3 "$GR_TMP/verify.err")"
# ... and with every seq required, one beyond those produced is missing.
rc=0
out=$(gr_prog seq_verify -b "$GR_BOOTSTRAP" -t $topic -i "$GR_TMP/acked" -n $((N + 1)) 2>/dev/null) || rc=$?
if [ $rc != 1 ] || [[ $out != *"missing 1,"* ]]; then gr_fail "seq_verify -n $((N + 1)) exited $rc: $out"; fi

# Duplicates: the first 30 seqs written again to a second topic.
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create dup $PARTS 1) || gr_fail "admin create failed: $out"
cl_wait_all_led dup $PARTS
for run in 1 2; do
    gr_prog seq_producer -b "$GR_BOOTSTRAP" -t dup -n 30 -r 1000 -o "$GR_TMP/dup.$run" 2>"$GR_TMP/producer.err" ||
        gr_fail "seq_producer (dup run $run) failed: $(tail -n 3 "$GR_TMP/producer.err")"
done
rc=0
out=$(gr_prog seq_verify -b "$GR_BOOTSTRAP" -t dup -i "$GR_TMP/dup.1" -n 30 2>"$GR_TMP/verify.err") || rc=$?
if [ $rc != 1 ] || [[ $out != *"read 60, missing 0, duplicated 30,"* ]]; then
    gr_fail "seq_verify on seqs written twice exited $rc: $out"
fi

# cluster_state.py isr: with one replica each, the ISR and the replicas are the leader.
isr=$(cl_state "$CL_CONTROLLER" isr $topic) || gr_fail "cluster_state isr failed: $isr"
awk -v parts=$PARTS '$2 < 0 || $3 != $2 || $4 != $2 { bad = 1 } END { exit bad || NR != parts }' <<<"$isr" ||
    gr_fail "cluster_state isr $topic: $(tr '\n' ';' <<<"$isr")"

# Replica comparison on partition 0: a copy as a second "replica".
src=$(cl_replica_dirs $topic 0)
[[ $src =~ ^[0-9]+$ ]] || gr_fail "partition $topic-0 should have one replica directory, brokers: '$src'"
dst=$(((src + 1) % 3))
[ ! -e "$GR_TMP/b$dst/logs/$topic-0" ] || gr_fail "broker $dst already holds $topic-0"
cl_stop_broker "$dst" # nothing may write into the copy, nor see it appear
cp -r "$GR_TMP/b$src/logs/$topic-0" "$GR_TMP/b$dst/logs/$topic-0"
[ "$(cl_replica_dirs $topic 0)" = "$(tr ' ' '\n' <<<"$src $dst" | sort -n | tr '\n' ' ' | sed 's/ $//')" ] ||
    gr_fail "cl_replica_dirs $topic 0 lists '$(cl_replica_dirs $topic 0)', want brokers $src and $dst"
cl_compare_replicas $topic 1
cl_compare_replicas $topic 1 "$src" "$dst"

# The same bytes in two segments instead of one compare equal too.
copy=$GR_TMP/b$dst/logs/$topic-0
segment=$copy/00000000000000000000.log
[ "$(find "$copy" -name '*.log')" = "$segment" ] || gr_fail "partition $topic-0 has other segments than $segment: $(ls "$copy")"
size=$(stat -c %s "$segment")
[ "$size" -gt 200 ] || gr_fail "partition $topic-0's segment holds $size bytes only"
head -c 100 "$segment" >"$copy/00000000000000000000.log.part"
tail -c +101 "$segment" >"$copy/00000000000000099999.log"
mv "$copy/00000000000000000000.log.part" "$segment"
cl_compare_replicas $topic 1 "$src" "$dst"

# shellcheck disable=SC2317
must_differ() # WANT_SUBSTRING: cl_compare_replicas on partition 0 fails saying so
{
    local rc=0
    (cl_compare_replicas $topic 1 "$src" "$dst") 2>"$GR_TMP/compare.err" || rc=$?
    [ $rc != 0 ] || gr_fail "cl_compare_replicas passed on replicas that differ ($1)"
    grep -q -F "$1" "$GR_TMP/compare.err" || gr_fail "cl_compare_replicas said: $(cat "$GR_TMP/compare.err")"
}
printf 'x' >>"$copy/00000000000000099999.log"
must_differ "partition $topic-0: brokers $src ($size bytes) and $dst ($((size + 1)) bytes) differ first at byte offset $size (broker $src's copy ends there)"
truncate -s -1 "$copy/00000000000000099999.log"
cl_compare_replicas $topic 1 "$src" "$dst"
# A byte changed in the second file, at offset 150 of the whole.
byte=$(od -A n -t u1 -j 50 -N 1 "$copy/00000000000000099999.log" | tr -d ' ')
printf '%b' "\\0$(printf %03o $(((byte + 1) % 256)))" | dd of="$copy/00000000000000099999.log" bs=1 seek=50 conv=notrunc status=none
must_differ "partition $topic-0: brokers $src ($size bytes) and $dst ($size bytes) differ first at byte offset 150"
# A listed broker without the partition fails too.
other=$((3 - src - dst))
rc=0
(cl_compare_replicas $topic 1 "$src" "$other") 2>"$GR_TMP/compare.err" || rc=$?
if [ -d "$GR_TMP/b$other/logs/$topic-0" ] || [ $rc = 0 ] || ! grep -q "broker $other holds no replica directory" "$GR_TMP/compare.err"; then
    gr_fail "cl_compare_replicas with broker $other (no replica) exited $rc: $(cat "$GR_TMP/compare.err")"
fi
gr_pass
