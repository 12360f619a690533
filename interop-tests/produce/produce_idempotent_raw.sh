#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Idempotent produce over raw sockets (py/idempotent_raw.py): a duplicate
# batch (same producer id, epoch and sequence) is answered with the first
# offset and nothing is appended; a sequence gap gets
# OUT_OF_ORDER_SEQUENCE_NUMBER; an epoch bump fences the old epoch; then the
# same retry is still recognised after a clean restart (state from the
# .snapshot written at shutdown) and after a SIGKILL with the snapshot
# removed (state rebuilt from the log). The id block is in the metadata
# store, so ids stay unique across restarts.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor

topic=idem-raw
gr_start_broker
echo first | gr_kcat -P -t $topic || gr_fail "kcat could not create $topic"
raw() { timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$GR_INTEROP_DIR/py/idempotent_raw.py" 127.0.0.1 "$GR_PORT" $topic "$GR_TMP/state.json" "$1"; }
raw checks || gr_fail "idempotent checks failed"

gr_restart_broker
ls "$GR_TMP/logs/$topic-0/"*.snapshot >/dev/null 2>&1 || gr_fail "no .snapshot written at shutdown"
raw dup || gr_fail "retry after a clean restart was not recognised"

gr_kill9_broker
rm -f "$GR_TMP/logs/$topic-0/"*.snapshot
gr_start_broker
raw dup || gr_fail "retry after SIGKILL (state rebuilt from the log) was not recognised"

# One block claimed per broker run, in Kafka's node layout.
block='{"version":1,"broker":0,"block_start":"2000","block_end":"2999"}'
python3 "$GR_INTEROP_DIR/py/store_nodes.py" "$GR_TMP/logs/__gregor_metadata" | grep -qaF "$block" ||
    gr_fail "the store does not hold $block at /latest_producer_id_block"
gr_pass
