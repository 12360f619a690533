#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every compression codec round-trips through the broker: progs/roundtrip
# produces GR_CODEC_RECORDS (default 100000) records per codec into a topic of
# its own and reads them back from the beginning, checking content, count and
# per-partition order. Record batches stay compressed on the wire both ways.
. "$(dirname "$0")/../lib/lib.sh"

records=${GR_CODEC_RECORDS:-100000}
gr_start_broker num.partitions=3

for codec in none gzip snappy lz4 zstd; do
    out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t "codec_$codec" -n "$records" -z "$codec" -a all -s 200 -w 50) ||
        gr_fail "codec $codec: $(tail -n 1 <<<"$out")"
    echo "$out" >&2
    grep -q "consumed=$records .* ok$" <<<"$out" || gr_fail "codec $codec: unexpected summary: $out"
done
gr_pass
