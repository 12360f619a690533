#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A KIP-848 consumer group survives a broker restart (py/cgroup_restart_raw.py):
# its members, epochs and assignments are replayed from the ConsumerGroup*
# records in __consumer_offsets, and the members carry on heartbeating at
# their epochs.
. "$(dirname "$0")/../lib/lib.sh"

gr_require_gregor
gr_start_broker num.partitions=2
topic=cg_restart_topic
echo one | gr_kcat -P -t $topic -p 0
export GR_TMP
python3 "$GR_INTEROP_DIR/py/cgroup_restart_raw.py" 127.0.0.1 "$GR_PORT" $topic before ||
    gr_fail "before the restart"
gr_restart_broker
python3 "$GR_INTEROP_DIR/py/cgroup_restart_raw.py" 127.0.0.1 "$GR_PORT" $topic after ||
    gr_fail "after the restart"
gr_pass
