#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# KIP-848 consumer groups over raw sockets (py/cgroup_heartbeat_raw.py):
# ConsumerGroupHeartbeat's joins, revocation before reassignment, fencing,
# static members, leaving and every error path, one kind of group per id,
# and ConsumerGroupDescribe.
. "$(dirname "$0")/../lib/lib.sh"

gr_require_gregor
gr_start_broker group.initial.rebalance.delay.ms=0 group.consumer.max.size=2 num.partitions=2
topic=cg_raw_topic
echo one | gr_kcat -P -t $topic -p 0
python3 "$GR_INTEROP_DIR/py/cgroup_heartbeat_raw.py" 127.0.0.1 "$GR_PORT" $topic ||
    gr_fail "cgroup_heartbeat_raw.py failed"
gr_pass
