#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# producer.id.expiration.ms: with a short expiry (checked every 100 ms), an
# idle producer disappears from DescribeProducers, and its next batch is
# accepted at any sequence, as Kafka (>= 2.5) accepts an unknown producer.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor

topic=idem-expiry
gr_start_broker producer.id.expiration.ms=1000 producer.id.expiration.check.interval.ms=100
echo first | gr_kcat -P -t $topic || gr_fail "kcat could not create $topic"
timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$GR_INTEROP_DIR/py/idempotent_raw.py" 127.0.0.1 "$GR_PORT" \
    $topic "$GR_TMP/state.json" expire || gr_fail "producer expiry checks failed"
gr_pass
