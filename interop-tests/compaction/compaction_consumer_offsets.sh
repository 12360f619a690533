#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# __consumer_offsets is compacted: 100,000 offset commits of one group
# leave its partition a small fraction of what they wrote, and after a
# restart the group's committed offset reads back as the last commit.
source "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
gr_start_broker log.cleaner.backoff.ms=100 offsets.topic.num.partitions=1 \
    offsets.topic.replication.factor=1 offsets.topic.segment.bytes=262144 \
    group.initial.rebalance.delay.ms=0
echo x | gr_kcat -P -t committed_topic || gr_fail "producing failed"

out=$(gr_prog commit_loop -b "$GR_BOOTSTRAP" -g compacting -t committed_topic -n 100000) ||
    gr_fail "commit loop failed: $out"
[ "$out" = "committed 100000" ] || gr_fail "commit loop: $out"

dir=$GR_TMP/logs/__consumer_offsets-0
# Uncompacted, 100k commit records are about 10 MB; compacted, a few
# hundred bytes plus the active segment (at most offsets.topic.segment.bytes).
# (A file may be renamed by a swap between the glob and stat: sizes of the rest.)
live_bytes() { stat -c %s "$dir"/*.log 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
small() { [ "$(live_bytes)" -lt 524288 ]; }
# (The swap and its log line are two steps: wait for both.)
compacted() { small && gr_broker_run_log_has 'cleaned __consumer_offsets-0'; }
gr_wait_until 120 "__consumer_offsets to be compacted" compacted
gr_note "__consumer_offsets-0 holds $(live_bytes) bytes in $(ls "$dir" | grep -c '\.log$') segment(s)"

gr_restart_broker
out=$(gr_prog commit_loop -b "$GR_BOOTSTRAP" -g compacting -t committed_topic -r) ||
    gr_fail "reading the committed offset failed: $out"
[ "$out" = "offset 100000" ] || gr_fail "after the restart: $out"
gr_pass
