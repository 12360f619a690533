#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Retention on a timer: with small segments, a short retention.ms and a short
# log.retention.check.interval.ms, old segments are deleted and the log start
# offset moves forward (ListOffsets earliest, and consuming from the
# beginning starts there), while the active segment and new records stay.
# A second topic without time retention keeps everything.
source "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
gr_start_broker log.segment.bytes=16384 log.retention.check.interval.ms=200 \
    log.retention.ms=3000

seq 1 3000 | sed 's/^/old-record-padding-padding-/' | gr_kcat -P -t aging -X batch.size=4096
segments=$(ls "$GR_TMP/logs/aging-0/"*.log | wc -l)
[ "$segments" -gt 3 ] || gr_fail "expected several segments, got $segments"

earliest() { gr_kcat -Q -t "aging:0:-2" | sed -E 's/.*offset ([0-9-]+).*/\1/'; }
# Old segments go once their newest record is over 3 s old; then one more
# record keeps the partition alive in a fresh segment.
gr_wait_until 60 "retention to delete old segments" bash -c \
    "[ \$(ls '$GR_TMP/logs/aging-0/'*.log | wc -l) -le 1 ]"
echo fresh | gr_kcat -P -t aging -X batch.size=4096
start=$(earliest)
[ "$start" -gt 0 ] || gr_fail "log start offset did not move ($start)"
first=$(gr_kcat -C -t aging -o beginning -e -q -f '%o\n' | head -n 1)
[ "$first" -ge "$start" ] || gr_fail "consumed offset $first below the log start $start"
gr_kcat -C -t aging -o beginning -e -q | grep -qx fresh || gr_fail "the new record is gone"
gr_broker_run_log_has "retention deleted" || gr_fail "no retention line in the log"
gr_pass
