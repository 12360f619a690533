#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# @platformatic/kafka consumers with groupProtocol 'consumer' (KIP-848)
# joining and leaving while records flow (js/platformatic/cgroup_members.mjs):
# each record read once, each committed with the member epoch, the
# coordinator moving partitions one revocation at a time.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/platformaticlib.sh"
gr_require_gregor
pk_require

# Heartbeats every 200 ms so that each move of a partition takes a moment.
gr_start_broker group.consumer.min.heartbeat.interval.ms=100 \
    group.consumer.heartbeat.interval.ms=200
out=$(pk_run cgroup_members 2>&1) || gr_fail "platformatic cgroup members: $(tail -n 40 <<<"$out")"
gr_note "$out"
gr_pass
