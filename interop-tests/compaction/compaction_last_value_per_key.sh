#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Log compaction: a compacted topic gets many updates per key, in batches of
# every codec (the cleaner recompresses what it rewrites with the batch's own
# codec), and tombstones for some keys. Once cleaned, a consumer from the
# beginning sees each live key exactly once with its last value, offsets
# increasing with gaps; the active segment is untouched; tombstoned keys keep
# their tombstone for delete.retention.ms after the cleaning that kept it and
# then disappear. The cleaner-offset-checkpoint names the partition.
source "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
gr_start_broker log.cleaner.backoff.ms=100
dir=$GR_TMP/logs/table-0

out=$(gr_prog admin -b "$GR_BOOTSTRAP" create table 1 1 cleanup.policy=compact \
    segment.bytes=8192 min.cleanable.dirty.ratio=0.01 delete.retention.ms=4000) ||
    gr_fail "create got no answer: $out"
[ "$out" = "table NO_ERROR" ] || gr_fail "create: $out"

# 5 rounds over 100 keys, each round in another codec.
round=0
for codec in none gzip snappy lz4 zstd; do
    round=$((round + 1))
    seq 0 99 | awk -v r=$round '{printf "key%03d:round%d-%s\n", $1, r, "padding-padding-padding"}' |
        gr_kcat -P -t table -K: -z "$codec" -X batch.num.messages=20 ||
        gr_fail "producing round $round ($codec) failed"
done
# Tombstones for keys 0-9.
for k in 0 1 2 3 4 5 6 7 8 9; do printf 'key%03d:\n' "$k"; done |
    gr_kcat -P -t table -K: -Z || gr_fail "producing tombstones failed"
# Filler keys, each once, so the data above leaves the active segment.
seq 1 300 | awk '{printf "fill%04d:filler-value-padding-padding-padding\n", $1}' |
    gr_kcat -P -t table -K: -X batch.num.messages=10 || gr_fail "producing filler failed"

# (The listing, not a glob: the cleaner may rename files between a glob and its use.)
active=$dir/$(ls "$dir" | grep '\.log$' | sort | tail -n 1)
active_sum=$(md5sum <"$active")
gr_wait_until 60 "a cleaning of table-0" bash -c "grep -q 'cleaned table-0' '$GR_LOG'"

# Consumes everything: "<offset> <key> <value or NULL>" lines.
consume() { gr_kcat -C -t table -o beginning -e -q -Z -f '%o %k %s\n' -D '\n'; }
exactly_once() {
    consume >"$GR_TMP/seen"
    awk '$2 ~ /^key0[1-9][0-9]$/ { seen[$2]++ }
        END { for (k in seen) { n++; if (seen[k] != 1) bad = 1 }; exit bad || n != 90 }' "$GR_TMP/seen"
}
gr_wait_until 60 "every live key exactly once" exactly_once
awk '$2 ~ /^key0[1-9][0-9]$/ && $3 !~ /^round5-/ { print; bad = 1 } END { exit bad }' "$GR_TMP/seen" ||
    gr_fail "keys lost their last value (above)"
awk 'NR > 1 && $1 <= prev { bad = 1 } { prev = $1 } END { exit bad }' "$GR_TMP/seen" ||
    gr_fail "offsets do not increase"
last=$(tail -n 1 "$GR_TMP/seen" | cut -d' ' -f1)
lines=$(wc -l <"$GR_TMP/seen")
[ "$lines" -lt $((last + 1)) ] || gr_fail "no gaps: $lines records up to offset $last"
[ "$(grep -c ' fill' "$GR_TMP/seen")" = 300 ] || gr_fail "filler records lost"
[ "$(md5sum <"$active")" = "$active_sum" ] || gr_fail "the active segment changed"

# Tombstones: kept by the first cleaning, gone after delete.retention.ms.
tombstones_gone() {
    consume >"$GR_TMP/seen2"
    ! grep -q ' key00[0-9] ' "$GR_TMP/seen2"
}
gr_wait_until 90 "tombstoned keys to disappear" tombstones_gone
[ "$(grep -c ' key0[1-9][0-9] ' "$GR_TMP/seen2")" = 90 ] || gr_fail "live keys lost with the tombstones"

grep -q '^table 0 [0-9]' "$GR_TMP/logs/cleaner-offset-checkpoint" ||
    gr_fail "no cleaner checkpoint: $(cat "$GR_TMP/logs/cleaner-offset-checkpoint" 2>&1)"
# A clean shutdown (cancelling any cleaning under way) leaves no cleaner files.
gr_stop_broker
ls "$dir" | grep -q '\.cleaned$\|\.swap$' && gr_fail "leftover .cleaned/.swap files: $(ls "$dir")"
gr_pass
