#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A consumer_byte_rate quota slows a consumer: ~2.5 MB are produced, then
# read back with kcat as a client id holding consumer_byte_rate (set with
# gregor-admin) at no more than twice the quota, while another client id
# reads them faster than that; librdkafka reports the throttle only to the
# throttled consumer. Generous bounds, short quota windows (see
# quota_produce.sh).
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"

QUOTA=250000 # bytes/s
RECORDS=2500
gr_start_broker quota.window.num=2 quota.window.size.seconds=1
ga() { "$ADMIN" --bootstrap-server "$GR_BOOTSTRAP" "$@"; }
ga configs --alter --entity-type clients --entity-name quota-slow \
    --add-config "consumer_byte_rate=$QUOTA" >/dev/null || gr_fail "alter quota"
ga topics create --topic quota --partitions 1 --replication-factor 1 >/dev/null ||
    gr_fail "create topic"
line=$(printf 'q%.0s' $(seq 1 1000))
for _ in $(seq 1 "$RECORDS"); do echo "$line"; done >"$GR_TMP/data"
BYTES=$(stat -c %s "$GR_TMP/data")
gr_kcat -P -t quota -X client.id=quota-slow -l "$GR_TMP/data" || gr_fail "produce"

# Reads the topic as client id $1; prints bytes per second, kcat's stderr in $GR_TMP/$1.err.
consume_rate()
{
    local start end n
    start=$(date +%s%N)
    n=$(gr_kcat -C -t quota -e -X "client.id=$1" \
        -X fetch.message.max.bytes=100000 2>"$GR_TMP/$1.err" | wc -l)
    end=$(date +%s%N)
    [ "$n" = "$RECORDS" ] || gr_fail "$1 read $n records, want $RECORDS: $(cat "$GR_TMP/$1.err")"
    echo $((BYTES * 1000000000 / (end - start + 1)))
}

fast=$(consume_rate quota-fast)
slow=$(consume_rate quota-slow)
gr_note "unthrottled $fast B/s, throttled $slow B/s, quota $QUOTA B/s"
[ "$slow" -lt $((2 * QUOTA)) ] || gr_fail "throttled consumer ran at $slow B/s, quota $QUOTA"
[ "$fast" -gt $((2 * QUOTA)) ] || gr_fail "unthrottled consumer only ran at $fast B/s"
grep -q 'throttled request for [1-9]' "$GR_TMP/quota-slow.err" ||
    gr_fail "no throttle_time_ms reported to the throttled consumer"
! grep -q 'throttled request' "$GR_TMP/quota-fast.err" ||
    gr_fail "the unthrottled consumer was told to back off"
gr_pass
