#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The admin APIs on a KIP-848 consumer group over raw sockets
# (py/cgroup_admin_raw.py): ListGroups' type and state filters and its
# GroupType, DescribeGroups' "not a classic group", OffsetDelete's
# GROUP_SUBSCRIBED_TO_TOPIC, DeleteGroups of a group with and without members
# (still deleted after a restart: its tombstones are replayed).
. "$(dirname "$0")/../lib/lib.sh"

gr_require_gregor
gr_start_broker group.initial.rebalance.delay.ms=0 num.partitions=1
for t in cga_topic cga_other; do echo one | gr_kcat -P -t $t -p 0; done
python3 "$GR_INTEROP_DIR/py/cgroup_admin_raw.py" 127.0.0.1 "$GR_PORT" cga_topic cga_other ||
    gr_fail "cgroup_admin_raw.py failed"
gr_restart_broker
python3 "$GR_INTEROP_DIR/py/cgroup_admin_raw.py" after-restart 127.0.0.1 "$GR_PORT" cga_topic ||
    gr_fail "the deleted consumer group after a restart"
gr_pass
