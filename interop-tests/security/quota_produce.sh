#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A producer_byte_rate quota slows a producer: with producer_byte_rate set
# for one client id (gregor-admin), kcat producing ~2.5 MB with that
# client.id runs at no more than twice the quota, while the same produce
# with another client id runs faster than that; librdkafka reports the
# throttle_time_ms the broker sent ("throttled request for N ms") only for
# the throttled client. Rates are measured over the whole produce; the
# bounds are generous (a shared machine), and short quota windows
# (quota.window.num=2) keep the first-burst allowance small.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"

QUOTA=250000 # bytes/s
gr_start_broker quota.window.num=2 quota.window.size.seconds=1
ga() { "$ADMIN" --bootstrap-server "$GR_BOOTSTRAP" "$@"; }
ga configs --alter --entity-type clients --entity-name quota-slow \
    --add-config "producer_byte_rate=$QUOTA" >/dev/null || gr_fail "alter quota"
ga topics create --topic quota --partitions 1 --replication-factor 1 >/dev/null ||
    gr_fail "create topic"

line=$(printf 'q%.0s' $(seq 1 1000))
for _ in $(seq 1 2500); do echo "$line"; done >"$GR_TMP/data"
BYTES=$(stat -c %s "$GR_TMP/data")

# Produces the file as client id $1; prints bytes per second, kcat's stderr in $GR_TMP/$1.err.
produce_rate()
{
    local start end
    start=$(date +%s%N)
    gr_kcat -P -t quota -X "client.id=$1" -X batch.size=100000 -l "$GR_TMP/data" \
        2>"$GR_TMP/$1.err" || gr_fail "produce as $1 failed: $(cat "$GR_TMP/$1.err")"
    end=$(date +%s%N)
    echo $((BYTES * 1000000000 / (end - start + 1)))
}

fast=$(produce_rate quota-fast)
slow=$(produce_rate quota-slow)
gr_note "unthrottled $fast B/s, throttled $slow B/s, quota $QUOTA B/s"
[ "$slow" -lt $((2 * QUOTA)) ] || gr_fail "throttled producer ran at $slow B/s, quota $QUOTA"
[ "$fast" -gt $((2 * QUOTA)) ] || gr_fail "unthrottled producer only ran at $fast B/s"
grep -q 'throttled request for [1-9]' "$GR_TMP/quota-slow.err" ||
    gr_fail "no throttle_time_ms reported to the throttled producer"
! grep -q 'throttled request' "$GR_TMP/quota-fast.err" ||
    gr_fail "the unthrottled producer was told to back off"

# Every record arrived.
n=$(gr_kcat -C -t quota -e -q -f 'x\n' | wc -l)
[ "$n" = $((2 * 2500)) ] || gr_fail "$n records in the topic, want 5000"
gr_pass
