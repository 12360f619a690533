#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The share coordinator's state RPCs (KIP-932, APIs 83-87) driven over raw
# sockets as a partition leader's persister sends them
# (py/share_state_raw.py): FindCoordinator key type SHARE, Initialize,
# Write (merged: a later write replaces what it covers, the start offset
# drops what is below it), Read, ReadSummary, Delete; stale state and
# leader epochs fenced. After a restart the coordinator replays
# __share_group_state and reads back the same state.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor

gr_start_broker share.coordinator.state.topic.num.partitions=3 \
    share.coordinator.snapshot.update.records.per.snapshot=1
topic=share_state_topic
echo one | gr_kcat -P -t $topic -p 0
meta="$GR_TMP/logs/$topic-0/partition.metadata"
topic_id=$(sed -n 's/^topic_id: //p' "$meta")
[ -n "$topic_id" ] || gr_fail "no topic id in $meta"
raw() { timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$GR_INTEROP_DIR/py/share_state_raw.py" 127.0.0.1 "$GR_PORT" "$topic_id" "$1"; }
raw write || gr_fail "the state RPCs failed"

gr_restart_broker
raw read || gr_fail "the state read back after a restart differs"
gr_pass
