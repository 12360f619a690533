#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Where a group lives: its records go to partition
# abs(javaHashCode(group.id)) % offsets.topic.num.partitions of
# __consumer_offsets, with Java's String.hashCode over UTF-16 code units and
# Kafka's abs (INT_MIN maps to 0). Four groups commit through librdkafka
# members: an ASCII id, one with Latin-1 and BMP characters, one with an
# emoji (a UTF-16 surrogate pair; hashing UTF-8 bytes or code points would
# pick other partitions) and "polygenelubricants", whose hash is INT_MIN.
# Exactly their four partitions of __consumer_offsets fill, each holding its
# group's records, and the admin API finds every group's offsets by name.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/grouplib.sh"

gr_require_gregor # the mock cluster has no __consumer_offsets topic
topic=cp_topic
gm_topic $topic 1
gm_start_broker
gm_produce $topic 10
groups=("plain_group" "grüße-✓" "group-😀" "polygenelubricants")
i=0
for group in "${groups[@]}"; do
    i=$((i + 1))
    gr_prog group_member -b "$GR_BOOTSTRAP" -g "$group" -t $topic -c sync -n 10 >"$GR_TMP/g$i.out" 2>"$GR_TMP/g$i.err" ||
        gr_fail "member of group $group failed: $(tail -n 3 "$GR_TMP/g$i.err")"
done

java_partition() # group id: Kafka's coordinator partition of it (of 50)
{
    "$GR_PYTHON" - "$1" <<'PY'
import sys
units = sys.argv[1].encode("utf-16-be")
h = 0
for i in range(0, len(units), 2):
    h = (31 * h + int.from_bytes(units[i:i + 2], "big")) & 0xFFFFFFFF
h = h - (1 << 32) if h >= 1 << 31 else h
print((0 if h == -(1 << 31) else abs(h)) % 50)
PY
}
want=$(for group in "${groups[@]}"; do java_partition "$group"; done | sort -n)
[ "$(uniq <<<"$want" | wc -l)" = 4 ] || gr_fail "test setup: the groups' partitions are not distinct: $want"

query=()
for p in $(seq 0 49); do query+=(-t "__consumer_offsets:$p:-1"); done
ends=$(gr_kcat -Q "${query[@]}") || gr_fail "kcat -Q on __consumer_offsets failed"
got=$(awk '$1 == "__consumer_offsets" && $4 > 0 { gsub(/[][]/, "", $2); print $2 }' <<<"$ends" | sort -n)
[ "$got" = "$want" ] || gr_fail "__consumer_offsets partitions with records: $(tr '\n' ' ' <<<"$got"), want $(tr '\n' ' ' <<<"$want")"
for group in "${groups[@]}"; do
    p=$(java_partition "$group")
    gr_kcat -C -t __consumer_offsets -p "$p" -o beginning -e -q -f '%k\n' | grep -aqF "$group" ||
        gr_fail "partition $p of __consumer_offsets has no record keyed by group $group"
    out=$(gr_prog group_admin -b "$GR_BOOTSTRAP" offsets "$group") || gr_fail "ListConsumerGroupOffsets $group failed"
    grep -qx "offset $group $topic 0 10 NO_ERROR" <<<"$out" || gr_fail "group $group's committed offset: $out"
done
listed=$(gr_prog group_admin -b "$GR_BOOTSTRAP" list) || gr_fail "ListConsumerGroups failed"
for group in "${groups[@]}"; do
    grep -qxF "group $group Empty consumer" <<<"$listed" || gr_fail "group $group not listed: $listed"
done
gr_pass
