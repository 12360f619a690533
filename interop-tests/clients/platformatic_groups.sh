#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# @platformatic/kafka consumer groups (js/platformatic/groups.mjs, see its
# header): commits, a second round of two members resuming at the committed
# offsets, DescribeGroups/ListGroups,
# AlterConsumerGroupOffsets, DeleteConsumerGroupOffsets, DeleteGroups;
# commit metadata with a NUL byte ("Hello\0world!", 12 bytes) coming back
# whole from OffsetCommit v8 and v9, and still whole after a restart (read
# back from __consumer_offsets).
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/platformaticlib.sh"
gr_require_gregor
pk_require

gr_start_broker group.initial.rebalance.delay.ms=0
out=$(pk_run groups 2>&1) || gr_fail "platformatic groups: $(tail -n 30 <<<"$out")"
gr_note "$out"
versions=$(sed -n 's/^metadata-versions //p' <<<"$out")
[ -n "$versions" ] || gr_fail "groups.mjs printed no metadata-versions line"
gr_restart_broker
# shellcheck disable=SC2086 # one argument per version
out=$(pk_run groups metadata-after-restart $versions 2>&1) ||
    gr_fail "platformatic groups after the restart: $(tail -n 30 <<<"$out")"
gr_note "$out"
gr_pass
