#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A static member of a KIP-848 consumer group (@platformatic/kafka,
# groupProtocol 'consumer') leaves with epoch -2 and a new process with its
# instance id takes its partitions over without a rebalance
# (js/platformatic/cgroup_static.mjs).
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/platformaticlib.sh"
gr_require_gregor
pk_require

# Heartbeats every second: the static restart happens within one interval.
gr_start_broker group.consumer.min.heartbeat.interval.ms=100 group.consumer.heartbeat.interval.ms=1000
out=$(pk_run cgroup_static 2>&1) || gr_fail "platformatic cgroup static: $(tail -n 40 <<<"$out")"
gr_note "$out"
gr_pass
