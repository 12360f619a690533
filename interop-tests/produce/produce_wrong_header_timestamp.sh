#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Batches whose header maxTimestamp is unset (-1, 0) or wrong, as Sarama 1.22
# sends them, produced over raw sockets (py/timestamps_raw.py), uncompressed
# and gzip: the broker recomputes maxTimestamp from the records, as Kafka's
# LogValidator does, so ListOffsets by timestamp (and -3, the max) answers the
# records' offsets, before and after a restart (then from the .timeindex,
# whose entries must be the records' maxima). Every record's timestamp, not
# just the header's, is checked against message.timestamp.before/after.max.ms
# (INVALID_TIMESTAMP); a client batch claiming LogAppendTime is refused;
# malformed records get INVALID_RECORD / CORRUPT_MESSAGE and append nothing.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor

# A time index entry for every batch after the first; a 7-day / 1-hour window.
gr_start_broker log.index.interval.bytes=1 \
    log.message.timestamp.before.max.ms=604800000 log.message.timestamp.after.max.ms=3600000
raw() { timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$GR_INTEROP_DIR/py/timestamps_raw.py" 127.0.0.1 "$GR_PORT" "$GR_TMP/logs" "$GR_TMP/state.json" "$1"; }
raw produce || gr_fail "produce and lookups failed"

gr_restart_broker
raw lookup || gr_fail "lookups after a restart failed"

# kcat resolves -o s@ts through the same lookup.
t0=$("$GR_PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["lookups"]["ts-create"][0][1][1])' "$GR_TMP/state.json")
first=$(gr_kcat -C -t ts-create -p 0 -o "s@$((t0 + 25))" -c 1 -e -q -f '%o %T\n')
[ "$first" = "3 $((t0 + 30))" ] || gr_fail "kcat -o s@$((t0 + 25)) started at '$first', want '3 $((t0 + 30))'"
gr_pass
