#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# @platformatic/kafka's Producer and Consumer (js/platformatic/produce.mjs,
# see its header): one batch per compression codec the client has (none,
# gzip, snappy, lz4, zstd), read back by a raw Fetch by topic id (each batch
# kept its codec) and by a group consumer (keys, values, headers,
# timestamps, per-partition order); ListOffsets EARLIEST, LATEST,
# MAX_TIMESTAMP and by timestamp; LogAppendTime; DeleteRecords.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/platformaticlib.sh"
gr_require_gregor
pk_require

gr_start_broker group.initial.rebalance.delay.ms=0
out=$(pk_run produce 2>&1) || gr_fail "platformatic produce/consume: $(tail -n 30 <<<"$out")"
gr_note "$out"
gr_pass
