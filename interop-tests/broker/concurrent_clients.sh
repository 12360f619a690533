#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 50 concurrent clients: 25 consumers start first and wait for their topics
# to appear, then 25 producers (one per topic, auto-creating it) write 2000
# records each while the consumers read them. Every producer gets all its
# acknowledgements and every consumer reads exactly its topic's records.
. "$(dirname "$0")/../lib/lib.sh"

pairs=${GR_CONCURRENT_PAIRS:-25}
records=2000
gr_start_broker num.partitions=2

pids=()
for i in $(seq 1 "$pairs"); do
    gr_prog roundtrip -b "$GR_BOOTSTRAP" -t "conc_$i" -n $records -m consume -w 150 \
        >"$GR_TMP/consumer.$i" 2>&1 &
    pids+=($!)
done
for i in $(seq 1 "$pairs"); do
    gr_prog roundtrip -b "$GR_BOOTSTRAP" -t "conc_$i" -n $records -m produce -a all -w 150 \
        >"$GR_TMP/producer.$i" 2>&1 &
    pids+=($!)
done
gr_track "${pids[@]}"
failed=0
for pid in "${pids[@]}"; do
    wait "$pid" || failed=$((failed + 1))
done
for i in $(seq 1 "$pairs"); do
    grep -q "acked=$records failed=0 .* ok$" "$GR_TMP/producer.$i" || {
        tail -n 3 "$GR_TMP/producer.$i" >&2
        failed=$((failed + 1))
    }
    grep -q "consumed=$records .* ok$" "$GR_TMP/consumer.$i" || {
        tail -n 3 "$GR_TMP/consumer.$i" >&2
        failed=$((failed + 1))
    }
done
[ $failed = 0 ] || gr_fail "$failed client check(s) failed"
gr_pass
