#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# producer.id.expiration.ms: with a short expiry (checked every 100 ms), an
# idle producer disappears from DescribeProducers, and its next batch is
# accepted at any sequence, as Kafka (>= 2.5) accepts an unknown producer.
# The short expiry is set live (a dynamic broker config at the cluster
# default), over the day the broker started with.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor

topic=idem-expiry
gr_start_broker producer.id.expiration.check.interval.ms=100
echo first | gr_kcat -P -t $topic || gr_fail "kcat could not create $topic"
"$(dirname "$GR_BROKER")/gregor-admin" --bootstrap-server "$GR_BOOTSTRAP" configs --alter \
    --entity-type brokers --entity-default --add-config producer.id.expiration.ms=1000 >/dev/null ||
    gr_fail "producer.id.expiration.ms not changed live"
timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$GR_INTEROP_DIR/py/idempotent_raw.py" 127.0.0.1 "$GR_PORT" \
    $topic "$GR_TMP/state.json" expire || gr_fail "producer expiry checks failed"
gr_pass
