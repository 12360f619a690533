#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A single-node broker has no ZooKeeper controller, so the controller's
# inter-broker requests (UpdateMetadata, LeaderAndIsr) sent to it by hand,
# whatever their epoch, are answered STALE_CONTROLLER_EPOCH and change
# nothing: the broker list, controller and a topic's leader stay as they were.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
STALE_CONTROLLER_EPOCH=11
STATE_PY=$GR_INTEROP_DIR/py/cluster_state.py
st() { timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$STATE_PY" "$GR_BOOTSTRAP" "$@"; }

gr_start_broker
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create solo 1 1) || gr_fail "creating solo failed: $out"
view() { echo "[$(st brokers)] $(st controller) $(st leaders solo | tr '\n' ' ')"; }
before=$(view)
self=$(st controller)
for epoch in 0 1 1000; do
    for kind in update-metadata leader-and-isr; do
        got=$(st $kind "$self" $epoch solo 99) || gr_fail "$kind got no answer"
        [ "$got" = $STALE_CONTROLLER_EPOCH ] || gr_fail "$kind at epoch $epoch answered $got, want STALE_CONTROLLER_EPOCH"
    done
done
[ "$(view)" = "$before" ] || gr_fail "refused requests changed the metadata: '$before' became '$(view)'"
gr_note "metadata unchanged: $before"
gr_pass
