#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Group coordinator edge cases over raw sockets (py/group_raw.py): batched
# FindCoordinator, JoinGroup errors and group.max.size, Heartbeat/SyncGroup
# for unknown groups, OffsetCommit errors, offsets expiring by their
# retention time (and the emptied group disappearing), multi-group
# OffsetFetch.
. "$(dirname "$0")/../lib/lib.sh"

gr_require_gregor
gr_start_broker group.initial.rebalance.delay.ms=0 group.max.size=1 num.partitions=2 \
    offsets.retention.check.interval.ms=200
topic=raw_topic
echo one | gr_kcat -P -t $topic -p 0
python3 "$GR_INTEROP_DIR/py/group_raw.py" 127.0.0.1 "$GR_PORT" $topic || gr_fail "group_raw.py failed"
gr_pass
