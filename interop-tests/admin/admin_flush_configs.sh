#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The topic flush configs take effect, seen through the recovery point each
# partition records in recovery-point-offset-checkpoint (the offset below
# which its data is known to be fsynced): with flush.messages=1 every append
# is flushed; with flush.ms=200 the data is flushed soon after; with neither
# (Kafka's defaults: never, leaving it to the OS) the recovery point stays
# at 0 while the broker runs. Changing flush.messages at run time with
# gregor-admin applies to the live partition.
. "$(dirname "$0")/../lib/lib.sh"

gr_require_gregor
gr_start_broker log.flush.offset.checkpoint.interval.ms=100
admin() { "$(dirname "$GR_BROKER")/gregor-admin" --bootstrap-server "$GR_BOOTSTRAP" "$@" >/dev/null ||
    gr_fail "gregor-admin $* failed"; }
admin topics create --topic by_count --config flush.messages=1
admin topics create --topic by_time --config flush.ms=200
admin topics create --topic never
for t in by_count by_time never; do seq 1 50 | gr_kcat -P -t $t -p 0; done

checkpoint="$GR_TMP/logs/recovery-point-offset-checkpoint"
recovery_point() { awk -v t="$1" '$1 == t && $2 == 0 { print $3 }' "$checkpoint" 2>/dev/null; }
# A function, so that each poll reads the checkpoint again.
flushed_to() { [ "$(recovery_point "$1")" = "$2" ]; }
gr_wait_until 20 "by_count flushed to 50" flushed_to by_count 50
gr_wait_until 20 "by_time flushed to 50" flushed_to by_time 50
# Checkpoints keep being written; the unflushed topic stays at 0.
sleep 1
[ "$(recovery_point never)" = 0 ] || gr_fail "never-flushed topic has recovery point $(recovery_point never)"

admin configs alter --entity-type topics --entity-name never --add-config flush.messages=1
seq 51 60 | gr_kcat -P -t never -p 0
gr_wait_until 20 "never flushed after flush.messages=1" flushed_to never 60
gr_pass
