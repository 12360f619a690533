#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Once a compacted log is clean and its tombstones are gone, the cleaner
# leaves it alone. The trap: a batch holding a tombstone and a live record
# keeps its delete-horizon stamp after the tombstone goes, and a cleaner that
# took that stamp for "tombstones due" re-cleaned the same segment every
# millisecond or two, forever ("offsets 23..23 mapped (0 keys); 1 segment(s)
# of 89 bytes became 1 of 89 bytes"). Tiny segments, a low dirty ratio and a
# short delete.retention.ms, as in the report; then the cleanings logged over
# an idle stretch are counted: they must not keep coming.
source "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
gr_start_broker log.cleaner.backoff.ms=50
IDLE_S=3
MAX_IDLE_CLEANINGS=2

out=$(gr_prog admin -b "$GR_BOOTSTRAP" create table 1 1 cleanup.policy=compact \
    segment.bytes=100 segment.ms=100 min.cleanable.dirty.ratio=0.01 delete.retention.ms=500) ||
    gr_fail "create got no answer: $out"
[ "$out" = "table NO_ERROR" ] || gr_fail "create: $out"

# Each produce is a batch of its own (segment.bytes=100 puts it in a segment
# of its own); the second holds key0's tombstone with key1's new value.
produce() { gr_kcat -P -t table -K: -Z -X linger.ms=50 || gr_fail "producing '$1' failed"; }
printf 'key0:a\nkey1:b\n' | produce first
printf 'key0:\nkey1:new\n' | produce tombstone
printf 'fill:x\n' | produce filler

consume() { gr_kcat -C -t table -o beginning -e -q -Z -f '%k=%s\n'; }
tombstone_gone() {
    consume >"$GR_TMP/seen"
    ! grep -q '^key0=' "$GR_TMP/seen" && grep -q '^key1=new$' "$GR_TMP/seen"
}
gr_wait_until 60 "key0's tombstone to be cleaned away" tombstone_gone
[ "$(sort "$GR_TMP/seen" | tr '\n' ' ')" = "fill=x key1=new " ] ||
    gr_fail "after cleaning: $(cat "$GR_TMP/seen")"

cleanings() { grep -c 'cleaned table-0' "$GR_LOG" || true; }
before=$(cleanings)
# Nothing is produced from here on: whatever the cleaner does now, it does idle.
sleep "$IDLE_S"
after=$(cleanings)
[ $((after - before)) -le $MAX_IDLE_CLEANINGS ] ||
    gr_fail "$((after - before)) cleanings of an idle, clean log in ${IDLE_S}s; last: $(grep 'cleaned table-0' "$GR_LOG" | tail -n 1)"
[ "$(consume | sort | tr '\n' ' ')" = "fill=x key1=new " ] || gr_fail "data changed while idle"
gr_pass
