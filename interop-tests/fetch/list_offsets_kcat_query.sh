#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ListOffsets by timestamp through kcat -Q, and consuming from an offset
# (-o 500) and from a timestamp (-o s@ts). progs/roundtrip gives record i the
# CreateTime base + i ms in a one-partition topic, so record i is at offset i.
. "$(dirname "$0")/../lib/lib.sh"

gr_start_broker
topic=timestamps
base=1700000000000
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t $topic -n 1000 -T $base -p 0 -w 60) ||
    gr_fail "producing timestamped records failed: $out"

# The first offset whose timestamp is >= the query.
query()
{
    gr_kcat -Q -t "$topic:0:$1" | awk '/offset/ { for (i = 1; i <= NF; i++) if ($i == "offset") print $(i + 1) }'
}
# (librdkafka's mock cluster answers -1 to every timestamp query, so these
# checks need gregor.)
[ "$GR_BROKER_KIND" = gregor ] || gr_note "mock cluster: timestamp lookups not checked"
[ "$GR_BROKER_KIND" != gregor ] || for pair in "$base:0" "$((base + 500)):500" "$((base + 999)):999" "$((base - 5)):0"; do
    ts=${pair%%:*}
    want=${pair##*:}
    got=$(query "$ts")
    [ "$got" = "$want" ] || gr_fail "kcat -Q at timestamp $ts: offset '$got', want $want"
done
# After the last timestamp there is no such record: ListOffsets v1+ answers
# offset -1 (kcat prints it as is).
got=$(query $((base + 5000)))
[ "$GR_BROKER_KIND" != gregor ] || [ "$got" = -1 ] || gr_fail "kcat -Q past the last timestamp: offset '$got', want -1"

# Consume from an absolute offset.
first=$(gr_kcat -C -t $topic -p 0 -o 500 -c 1 -e -q -f '%o %k %T\n')
[ "$first" = "500 k000000500 $((base + 500))" ] || gr_fail "-o 500 started at '$first'"
count=$(gr_kcat -C -t $topic -p 0 -o 500 -e -q -f '%o\n' | wc -l)
[ "$count" = 500 ] || gr_fail "-o 500 read $count records, want 500"

# Consume from a timestamp (kcat resolves it with ListOffsets).
first=$(gr_kcat -C -t $topic -p 0 -o "s@$((base + 250))" -c 1 -e -q -f '%o %k\n')
[ "$GR_BROKER_KIND" != gregor ] || [ "$first" = "250 k000000250" ] || gr_fail "-o s@$((base + 250)) started at '$first'"

# Logical offsets: -o -10 (ten from the end) and the earliest/latest queries.
first=$(gr_kcat -C -t $topic -p 0 -o -10 -c 1 -e -q -f '%o\n')
[ "$first" = 990 ] || gr_fail "-o -10 started at '$first', want 990"
got=$(query -1)
[ "$got" = 1000 ] || gr_fail "kcat -Q latest (-1): '$got', want 1000"
got=$(query -2)
[ "$got" = 0 ] || gr_fail "kcat -Q earliest (-2): '$got', want 0"
gr_pass
