#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Offset commit metadata keeps its exact bytes, NULs included, through
# OffsetCommit and TxnOffsetCommit, in memory and in __consumer_offsets: the
# raw-wire checks of py/offset_metadata_raw.py before a restart, and again
# after it (the coordinator replays the records).
. "$(dirname "$0")/../lib/lib.sh"

gr_require_gregor
gr_start_broker group.initial.rebalance.delay.ms=0
topic=meta_topic
echo one | gr_kcat -P -t $topic -p 0 || gr_fail "producing to $topic failed"
python3 "$GR_INTEROP_DIR/py/offset_metadata_raw.py" 127.0.0.1 "$GR_PORT" $topic commit ||
    gr_fail "offset_metadata_raw.py commit failed"
gr_restart_broker
gr_wait_broker_started
python3 "$GR_INTEROP_DIR/py/offset_metadata_raw.py" 127.0.0.1 "$GR_PORT" $topic check ||
    gr_fail "offset_metadata_raw.py check after the restart failed"
gr_pass
