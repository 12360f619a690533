#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Topic configs changed at run time (AlterConfigs through librdkafka's Admin
# API) take effect on the live partitions, without a restart:
#  - segment.bytes: a topic created with the 1 GiB default rolls small
#    segments once it is set to 4096;
#  - max.message.bytes: set to 2000, a 5000-byte record is refused with
#    MESSAGE_TOO_LARGE (librdkafka: MSG_SIZE_TOO_LARGE) where it was accepted
#    before;
#  - retention.ms: set to 1000, the closed segments are deleted and the log
#    start offset moves, while a topic without the override keeps all;
#  - message.timestamp.type: set to LogAppendTime, records carry the broker's
#    time instead of the producer's (an hour old);
#  - message.timestamp.difference.max.ms: set to 60000, a record an hour old
#    is refused (INVALID_TIMESTAMP).
. "$(dirname "$0")/lib.sh"
gr_require_gregor

gr_start_broker log.retention.check.interval.ms=200
adm() { gr_prog admin_configs -b "$GR_BOOTSTRAP" "$@"; }
alter()
{
    local out
    out=$(adm alter topic "$@") || gr_fail "alter $*: no answer"
    [ "$out" = "$1 NO_ERROR" ] || gr_fail "alter $*: $out"
}
segments() { ls "$GR_TMP/logs/$1-0/"*.log | wc -l; }

gr_prog admin -b "$GR_BOOTSTRAP" create live 1 1 >/dev/null || gr_fail "create live"
gr_prog admin -b "$GR_BOOTSTRAP" create kept 1 1 >/dev/null || gr_fail "create kept"
produce() { seq 1 "$2" | sed 's/^/record-with-some-padding-/' | gr_kcat -P -t "$1" -X batch.size=2048; }

produce live 500
[ "$(segments live)" = 1 ] || gr_fail "live rolled before segment.bytes changed"
alter live segment.bytes=4096
produce live 2000
n=$(segments live)
[ "$n" -gt 5 ] || gr_fail "segment.bytes=4096 gave $n segments"
produce kept 2000
[ "$(segments kept)" = 1 ] || gr_fail "kept rolled without segment.bytes"

out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t kept -n 1 -s 5000 -m produce -w 60) ||
    gr_fail "a 5000-byte record before max.message.bytes changed: $out"
alter kept max.message.bytes=2000
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t kept -n 2 -s 5000 -m produce -w 60 \
    -x MSG_SIZE_TOO_LARGE) || gr_fail "max.message.bytes=2000 did not refuse 5000 bytes: $out"

alter live segment.bytes=4096 retention.ms=1000
gr_wait_until 60 "retention.ms=1000 to delete live's closed segments" bash -c \
    "[ \$(ls '$GR_TMP/logs/live-0/'*.log | wc -l) -le 1 ]"
earliest=$(gr_kcat -Q -t live:0:-2 | sed -E 's/.*offset ([0-9-]+).*/\1/')
[ "$earliest" -gt 0 ] || gr_fail "live's log start offset did not move"
earliest=$(gr_kcat -Q -t kept:0:-2 | sed -E 's/.*offset ([0-9-]+).*/\1/')
[ "$earliest" = 0 ] || gr_fail "kept lost records ($earliest) without a retention override"

old_ms=$(($(date +%s) * 1000 - 3600 * 1000))
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t kept -n 1 -T "$old_ms" -m produce -w 60) ||
    gr_fail "an hour-old record before the timestamp limit: $out"
alter kept max.message.bytes=2000 message.timestamp.difference.max.ms=60000
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t kept -n 1 -T "$old_ms" -m produce -w 60 \
    -x INVALID_TIMESTAMP) || gr_fail "message.timestamp.difference.max.ms did not refuse: $out"

gr_prog admin -b "$GR_BOOTSTRAP" create stamped 1 1 >/dev/null || gr_fail "create stamped"
alter stamped message.timestamp.type=LogAppendTime
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t stamped -n 1 -T "$old_ms" -m produce -w 60) ||
    gr_fail "an hour-old record into stamped: $out"
ts=$(gr_kcat -C -t stamped -o beginning -e -q -f '%T\n' | head -n 1)
now_ms=$(($(date +%s) * 1000))
[ "$((now_ms - ts))" -lt 600000 ] && [ "$((now_ms - ts))" -gt -600000 ] ||
    gr_fail "LogAppendTime record has timestamp $ts, not the broker's clock ($now_ms)"
gr_pass
