#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The online migration is durable (py/cgroup_migration_raw.py): a classic
# group upgraded by a ConsumerGroupHeartbeat keeps its classic member across
# a restart (its ClassicMemberMetadata replayed), the member rejoins and
# syncs; the downgrade when the consumer member leaves is replayed after a
# second restart as a classic group. A third run without "consumer" in
# group.coordinator.rebalance.protocols refuses the consumer protocol's APIs.
. "$(dirname "$0")/../lib/lib.sh"

gr_require_gregor
gr_start_broker num.partitions=2 group.initial.rebalance.delay.ms=0
topic=cg_migration_topic
echo one | gr_kcat -P -t $topic -p 0
export GR_TMP
for phase in before middle after disabled; do
    python3 "$GR_INTEROP_DIR/py/cgroup_migration_raw.py" 127.0.0.1 "$GR_PORT" $topic $phase ||
        gr_fail "phase $phase"
    case $phase in
    before | middle) gr_restart_broker ;;
    after)
        gr_stop_broker
        gr_start_broker group.coordinator.rebalance.protocols=classic
        ;;
    esac
done
gr_pass
