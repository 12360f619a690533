#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A compacted topic refuses records without a key with INVALID_RECORD, as
# Kafka does (librdkafka says "Broker failed to validate record"), compressed
# or not, and appends nothing of the refused batch; keyed records (tombstones
# included) are accepted, and a topic with cleanup.policy=delete still takes
# keyless records.
source "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
gr_start_broker

for spec in "keyed cleanup.policy=compact" "both cleanup.policy=compact,delete" \
    "plain cleanup.policy=delete"; do
    set -- $spec
    out=$(gr_prog admin -b "$GR_BOOTSTRAP" create "$1" 1 1 "$2") || gr_fail "create $1: $out"
    [ "$out" = "$1 NO_ERROR" ] || gr_fail "create $1: $out"
done

for topic in keyed both; do
    for codec in none gzip zstd; do
        err=$(printf 'no-key-%s\n' "$codec" | gr_kcat -P -t "$topic" -z "$codec" 2>&1) &&
            gr_fail "keyless record accepted by $topic ($codec)"
        echo "$err" | grep -qi 'failed to validate record' || gr_fail "$topic/$codec: unexpected error: $err"
    done
    printf 'k1:v1\nk2:\n' | gr_kcat -P -t "$topic" -K: -Z || gr_fail "keyed records refused by $topic"
    got=$(gr_kcat -C -t "$topic" -o beginning -e -q -Z -f '%k=%s,' -D '')
    [ "$got" = "k1=v1,k2=NULL," ] || gr_fail "$topic holds '$got'"
done
echo no-key | gr_kcat -P -t plain || gr_fail "keyless record refused by a delete topic"
[ "$(gr_kcat -C -t plain -o beginning -e -q)" = no-key ] || gr_fail "plain topic lost its record"
gr_pass
