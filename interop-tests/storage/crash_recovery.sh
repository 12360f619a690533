#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Crash recovery. (1) A producer with acks=all is mid-stream when the broker
# is killed with SIGKILL; after a restart every acknowledged record is there
# at the offset it was acknowledged with, and the whole log reads back
# consistently from the start. (2) With the broker down again (SIGKILL, so
# recovery must run), one partition's last segment loses its last bytes (a
# torn write) and another's ends in garbage (a bad CRC); after a restart the
# broker serves, each partition reads back as a prefix of what it held (the
# damaged tail batch gone), and new records are appended right after it.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
# Recovery may report what it truncated; that is expected here.
gr_allow_log_errors 'recover|corrupt|truncat|torn|CRC|crc|invalid|checksum'

topic=crash
gr_start_broker num.partitions=2
# Started directly (not through a shell function) so that $! is the producer
# itself and it can be stopped before the broker comes back on the same port.
"$GR_PROGS/roundtrip" -b "$GR_BOOTSTRAP" -t $topic -n 999999999 -s 200 -a all -m produce -A -w 300 \
    >"$GR_TMP/acked" 2>"$GR_TMP/producer.err" &
producer=$!
gr_track $producer
gr_wait_until 60 "20000 acknowledged records" eval '[ "$(wc -l <"$GR_TMP/acked")" -ge 20000 ]'
gr_kill9_broker
kill -KILL "$producer" 2>/dev/null || true
wait "$producer" 2>/dev/null || true
grep '^acked ' "$GR_TMP/acked" | awk '{ print $2, $3, $4 }' | sort >"$GR_TMP/acked.sorted"
acked=$(wc -l <"$GR_TMP/acked.sorted")
gr_note "$acked records acknowledged before SIGKILL"

gr_start_broker
gr_broker_run_log | grep -Eqi 'no clean shutdown|recover' ||
    gr_fail "after SIGKILL the broker did not log a recovery"
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t $topic -n 0 -s 200 -m consume -L -w 60 2>"$GR_TMP/consumer.err") || {
    cat "$GR_TMP/consumer.err" >&2
    gr_fail "reading the log back after the crash failed: $(tail -n 1 <<<"$out")"
}
grep '^got ' <<<"$out" | awk '{ print $2, $3, $4 }' | sort >"$GR_TMP/got1"
missing=$(comm -23 "$GR_TMP/acked.sorted" "$GR_TMP/got1" | wc -l)
if [ "$missing" != 0 ]; then
    comm -23 "$GR_TMP/acked.sorted" "$GR_TMP/got1" | head -n 5 >&2
    gr_fail "$missing of $acked acknowledged records (partition offset id) lost or moved"
fi
gr_note "after the crash: $(wc -l <"$GR_TMP/got1") records, all $acked acknowledged ones among them"

# (2) Damage the tails with the broker down.
gr_kill9_broker
seg0=$(ls "$GR_TMP/logs/$topic-0/"*.log | sort | tail -n 1)
seg1=$(ls "$GR_TMP/logs/$topic-1/"*.log | sort | tail -n 1)
[ -s "$seg0" ] && [ -s "$seg1" ] || gr_fail "no segment files under $GR_TMP/logs/$topic-{0,1}"
truncate -s -7 "$seg0"
size1=$(stat -c %s "$seg1")
printf 'garbage!garbage!garbage!' | dd of="$seg1" bs=1 seek=$((size1 - 24)) conv=notrunc status=none

gr_start_broker
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t $topic -n 0 -s 200 -m consume -L -w 60 2>"$GR_TMP/consumer.err") || {
    cat "$GR_TMP/consumer.err" >&2
    gr_fail "reading the log back after damaging its tail failed: $(tail -n 1 <<<"$out")"
}
for p in 0 1; do
    grep "^got $p " <<<"$out" | awk '{ print $3, $4 }' >"$GR_TMP/got2.$p"
    awk -v p=$p '$1 == p { print $2, $3 }' "$GR_TMP/got1" | sort -n >"$GR_TMP/got1.$p"
    n1=$(wc -l <"$GR_TMP/got1.$p")
    n2=$(wc -l <"$GR_TMP/got2.$p")
    [ "$n2" -lt "$n1" ] || gr_fail "partition $p: $n2 records after damaging its tail, want fewer than $n1"
    head -n "$n2" "$GR_TMP/got1.$p" | cmp -s - "$GR_TMP/got2.$p" ||
        gr_fail "partition $p after recovery is not a prefix of what it held"
    gr_note "partition $p: $n1 records before, $n2 after the damaged tail was cut"
    # The next record lands right after the last intact one.
    echo "after-recovery" | gr_kcat -P -t $topic -p $p
    next=$(gr_kcat -C -t $topic -p $p -o -1 -c 1 -e -q -f '%o %s\n')
    [ "$next" = "$n2 after-recovery" ] || gr_fail "partition $p: new record is '$next', want '$n2 after-recovery'"
done
gr_pass
