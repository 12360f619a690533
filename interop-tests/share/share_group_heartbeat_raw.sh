#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A KIP-932 share group over raw ShareGroupHeartbeat / ShareGroupDescribe
# (py/share_group_heartbeat_raw.py): three members on a one-partition topic
# all get the partition; described, listed under type "share", refused to
# the other group protocols; replayed from its ShareGroup* records after a
# broker restart; then left and deleted, its share-partitions' state deleted
# through the share coordinator first. With share groups off, refused.
. "$(dirname "$0")/../lib/lib.sh"

gr_require_gregor
gr_start_broker num.partitions=1
topic=share_hb_topic
echo one | gr_kcat -P -t $topic -p 0
export GR_TMP
python3 "$GR_INTEROP_DIR/py/share_group_heartbeat_raw.py" 127.0.0.1 "$GR_PORT" $topic before ||
    gr_fail "before the restart"
gr_restart_broker
python3 "$GR_INTEROP_DIR/py/share_group_heartbeat_raw.py" 127.0.0.1 "$GR_PORT" $topic after ||
    gr_fail "after the restart"
# DeleteGroups deleted the share-partition's state first (the persister made the share
# coordinator's topic on that first call).
gr_broker_run_log_has "creating __share_group_state" ||
    gr_fail "DeleteGroups did not delete the share-partitions' state"
# Without "share" among the protocols (Kafka 4.2: share.version=0) the APIs are refused.
gr_stop_broker
gr_start_broker group.coordinator.rebalance.protocols=classic,consumer
python3 "$GR_INTEROP_DIR/py/share_group_heartbeat_raw.py" 127.0.0.1 "$GR_PORT" $topic disabled ||
    gr_fail "with share groups off"
gr_pass
