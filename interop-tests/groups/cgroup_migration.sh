#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# KIP-848's online migration with live traffic (js/platformatic/cgroup_migration.mjs,
# see its header): three classic @platformatic/kafka consumers replaced one
# at a time by consumers using ConsumerGroupHeartbeat (the first join
# upgrades the group), then the way back (the last consumer-protocol
# member's leave downgrades it), while a producer writes; every record
# consumed and committed, none consumed again after a commit acknowledged
# before its hand-over (the script header defines it precisely).
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/platformaticlib.sh"
gr_require_gregor
pk_require

gr_start_broker group.initial.rebalance.delay.ms=500 group.consumer.min.heartbeat.interval.ms=100 \
    group.consumer.heartbeat.interval.ms=200
out=$(pk_run cgroup_migration 2>&1) || gr_fail "cgroup_migration: $(tail -n 40 <<<"$out")"
gr_note "$out"
gr_pass
