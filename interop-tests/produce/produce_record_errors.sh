#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Per-record errors in Produce responses (KIP-467), over raw sockets
# (py/record_errors_raw.py): a batch with records without a key on a
# compacted topic, or with timestamps outside the topic's window, is refused
# whole (INVALID_RECORD / INVALID_TIMESTAMP) and from Produce v8 on the
# response names each bad record's index and reason, with Kafka's summary in
# error_message; v7 gets the error alone. Then kcat: Debian's librdkafka
# (2.0) sends Produce v7, so it gets the error alone, as from Kafka, fails
# every message of the batch with it, and nothing is appended.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor

gr_start_broker
timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$GR_INTEROP_DIR/py/record_errors_raw.py" 127.0.0.1 "$GR_PORT" ||
    gr_fail "per-record errors"

# One batch (a 10 s linger), its second and fourth records without a key.
err=$(printf 'k1:v1\n:v2\nk3:v3\n:v4\n' |
    gr_kcat -P -t rec-compact -K: -Z -X linger.ms=10000 -X batch.num.messages=4 2>&1) &&
    gr_fail "kcat: keyless records accepted by a compacted topic"
echo "$err" | grep -qi 'failed to validate record' || gr_fail "kcat: unexpected error: $err"
got=$(gr_kcat -C -t rec-compact -o beginning -e -q -f '%k,' -c 200 | tr -cd ',' | wc -c)
[ "$got" = 100 ] || gr_fail "rec-compact holds $got records, want the raw test's 100"
gr_pass
