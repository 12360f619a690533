#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The share-group offset admin APIs 90-92 on a single broker (the group's
# coordinator), through py/share_admin_offsets_raw.py: describe a group's
# share-partition start offsets and lag, alter them (a new state epoch each
# time; a negative offset refused), refuse a group id a classic group holds,
# delete the state of a topic's partitions.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
command -v python3 >/dev/null || { gr_note "no python3"; exit 77; }

gr_start_broker
gr_prog admin -b "$GR_BOOTSTRAP" create st 2 1 >/dev/null || gr_fail "create st"
for p in 0 1; do seq 1 10 | gr_kcat -P -t st -p $p; done
PYTHONPATH="$GR_INTEROP_DIR/py" python3 "$GR_INTEROP_DIR/py/share_admin_offsets_raw.py" \
    127.0.0.1 "$GR_PORT" st || gr_fail "share_admin_offsets_raw.py"
gr_stop_broker
gr_check_log
gr_pass
