#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Bounded memory: with log.cleaner.dedupe.buffer.size room for 900 keys
# (1,000 24-byte slots at load factor 0.9), a dirty range of 3,000 keys is
# cleaned in several passes, each mapping at most 900 keys and starting where
# the previous one ended; in the end each key appears exactly once with its
# last value. The broker starts with an hour's log.cleaner.backoff.ms and the
# default buffer; the short backoff and the small buffer are set live
# (dynamic broker configs at the cluster default), after the records are in.
# log.cleaner.threads changed live resizes the cleaner's pool: the broker's
# threads named gr-log-cleaner go from 1 to 2 and back to 1; a change to
# more than double the current count is refused with Kafka's message.
# log.cleaner.io.max.bytes.per.second and log.cleaner.io.buffer.size set
# live reach every cleaning: each is throttled (waits counted) and reads
# 131072 bytes at once (the default is unthrottled, 524288).
source "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
gr_start_broker log.cleaner.backoff.ms=3600000
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create passes 1 1 cleanup.policy=compact \
    segment.bytes=16384 min.cleanable.dirty.ratio=0.01) || gr_fail "create got no answer: $out"
[ "$out" = "passes NO_ERROR" ] || gr_fail "create: $out"

for round in 1 2 3; do
    seq 0 2999 | awk -v r=$round '{printf "key%04d:round%d\n", $1, r}' |
        gr_kcat -P -t passes -K: -z snappy -X batch.num.messages=50 || gr_fail "round $round failed"
done
seq 1 500 | awk '{printf "fill%04d:filler-padding-padding-padding\n", $1}' |
    gr_kcat -P -t passes -K: -X batch.num.messages=10 || gr_fail "producing filler failed"

ga() { "$(dirname "$GR_BROKER")/gregor-admin" --bootstrap-server "$GR_BOOTSTRAP" configs --alter \
    --entity-type brokers --entity-default --add-config "$1" >/dev/null 2>"$GR_TMP/ga.err"; }
cleaner_threads() { cat /proc/"$GR_PID"/task/*/comm 2>/dev/null | grep -c '^gr-log-cleaner$'; }
threads_are() { [ "$(cleaner_threads)" = "$1" ]; }
threads_are 1 || gr_fail "$(cleaner_threads) cleaner threads at start, want 1"
ga log.cleaner.threads=2 || gr_fail "2 cleaner threads: $(cat "$GR_TMP/ga.err")"
gr_wait_until 10 "2 cleaner threads" threads_are 2
! ga log.cleaner.threads=5 || gr_fail "5 cleaner threads accepted from 2"
grep -q 'Log cleaner threads cannot be increased to more than double the current value 2' \
    "$GR_TMP/ga.err" || gr_fail "5 threads from 2: $(cat "$GR_TMP/ga.err")"
ga log.cleaner.threads=1 || gr_fail "back to 1 cleaner thread: $(cat "$GR_TMP/ga.err")"
gr_wait_until 10 "1 cleaner thread" threads_are 1

ga log.cleaner.dedupe.buffer.size=24000,log.cleaner.backoff.ms=100,\
log.cleaner.io.max.bytes.per.second=2000000,log.cleaner.io.buffer.size=131072 ||
    gr_fail "the cleaner's keys not changed live: $(cat "$GR_TMP/ga.err")"
exactly_once() {
    gr_kcat -C -t passes -o beginning -e -q -f '%k %s\n' |
        awk '$1 ~ /^key/ { seen[$1]++; if ($2 != "round3") bad = 1 }
            END { for (k in seen) { n++; if (seen[k] != 1) bad = 1 }; exit bad || n != 3000 }'
}
gr_wait_until 120 "each key exactly once" exactly_once

passes=$(grep -c 'cleaned passes-0' "$GR_LOG")
[ "$passes" -ge 4 ] || gr_fail "only $passes cleaning(s) for 3 x 3000 keys"
grep 'cleaned passes-0' "$GR_LOG" | sed -E 's/.*mapped \(([0-9]+) keys\).*/\1/' |
    awk '$1 > 900 { bad = 1 } END { exit bad }' || gr_fail "a pass mapped more than 900 keys"
# Passes are contiguous: each starts where the previous one ended.
grep 'cleaned passes-0' "$GR_LOG" | sed -E 's/.*offsets ([0-9]+)\.\.([0-9]+) mapped.*/\1 \2/' |
    awk 'NR > 1 && $1 != prev { bad = 1 } { prev = $2 } END { exit bad }' ||
    gr_fail "passes are not contiguous: $(grep 'cleaned passes-0' "$GR_LOG")"
grep 'cleaned passes-0' "$GR_LOG" | grep -vE ' [1-9][0-9]* throttle wait\(s\), 131072-byte reads$' &&
    gr_fail "a cleaning without the live I/O rate or buffer"
gr_pass
