#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Offset commits wait for min.insync.replicas as Kafka's acks=-1 coordinator
# writes do: with min.insync.replicas=2 on a single broker (the offsets
# topic has one replica), OffsetCommit is refused COORDINATOR_NOT_AVAILABLE
# and nothing is stored (py/offset_commit_min_isr_raw.py).
. "$(dirname "$0")/../lib/lib.sh"

gr_require_gregor
gr_start_broker min.insync.replicas=2 group.initial.rebalance.delay.ms=0
topic=min_isr_topic
echo one | gr_kcat -P -t $topic -p 0 -X acks=1 || gr_fail "producing to $topic failed"
python3 "$GR_INTEROP_DIR/py/offset_commit_min_isr_raw.py" 127.0.0.1 "$GR_PORT" $topic ||
    gr_fail "offset_commit_min_isr_raw.py failed"
gr_pass
