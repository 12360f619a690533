#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Produce and consume with kcat: 1000 keyed records come back exactly (keys,
# values, order), then null keys and null values (-Z), empty values (which
# stay empty, not null), and headers (including an empty header value).
. "$(dirname "$0")/../lib/lib.sh"

gr_start_broker
topic=kcat_roundtrip
fmt='%K|%k|%S|%s|%h\n' # key length (-1 = null), key, value length, value, headers

# 1000 keyed records; every 100th has an empty value.
awk -v in1="$GR_TMP/in1" -v want="$GR_TMP/want" 'BEGIN {
    for (i = 1; i <= 1000; i++) {
        k = "key-" i
        v = (i % 100 == 0) ? "" : "value-" i "-" (i * 7919 % 10007)
        print k ":" v >in1
        print length(k) "|" k "|" length(v) "|" v "|" >want
    }
}'
gr_kcat -P -t $topic -p 0 -K: <"$GR_TMP/in1"

# -Z: an empty key or value is sent as null.
printf ':null-key-1\nkey-with-null-value:\n:\n' | gr_kcat -P -t $topic -p 0 -K: -Z
cat >>"$GR_TMP/want" <<'W'
-1||10|null-key-1|
19|key-with-null-value|-1||
-1||-1||
W

# Headers apply to every record of this run; h2 has an empty value.
printf 'hk-1:hv-1\nhk-2:hv-2\n' | gr_kcat -P -t $topic -p 0 -K: -H h1=v1 -H h2= -H h1=again
cat >>"$GR_TMP/want" <<'W'
4|hk-1|4|hv-1|h1=v1,h2=,h1=again
4|hk-2|4|hv-2|h1=v1,h2=,h1=again
W

gr_kcat -C -t $topic -p 0 -o beginning -e -q -f "$fmt" >"$GR_TMP/got"
if ! cmp -s "$GR_TMP/want" "$GR_TMP/got"; then
    diff "$GR_TMP/want" "$GR_TMP/got" | head -n 20 >&2
    gr_fail "consumed records differ from produced ($(wc -l <"$GR_TMP/got") lines, want $(wc -l <"$GR_TMP/want"))"
fi

# Offsets are dense from 0, one per record.
gr_kcat -C -t $topic -p 0 -o beginning -e -q -f '%o\n' >"$GR_TMP/offsets"
seq 0 $(($(wc -l <"$GR_TMP/want") - 1)) | cmp -s - "$GR_TMP/offsets" || gr_fail "offsets are not 0..n-1"
gr_pass
