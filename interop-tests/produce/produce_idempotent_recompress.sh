#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Idempotent produce on a topic whose compression.type makes the broker
# rewrite every batch on its worker thread: the producer-state checks run
# when the rewritten batch comes back to be appended, so duplicates, gaps and
# stale epochs get the same answers as on the direct path (py/idempotent_raw.py).
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor

topic=idem-gzip
gr_start_broker compression.type=gzip
echo first | gr_kcat -P -t $topic || gr_fail "kcat could not create $topic"
timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$GR_INTEROP_DIR/py/idempotent_raw.py" 127.0.0.1 "$GR_PORT" \
    $topic "$GR_TMP/state.json" checks || gr_fail "idempotent checks on a recompressed topic failed"
gr_stop_broker
gr_broker_log | grep -Eq '[1-9][0-9]* produce\(s\) recompressed on the worker' ||
    gr_fail "the produces did not go through the worker"
gr_pass
