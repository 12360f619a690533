#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ShareFetch / ShareAcknowledge on the partition leader over raw sockets
# (py/share_fetch_raw.py): two share sessions acquire distinct records,
# release and redelivery, reject, acknowledgement errors, session epochs,
# a long poll woken by a produce. No share group membership involved.
. "$(dirname "$0")/../lib/lib.sh"

gr_require_gregor
command -v python3 >/dev/null || { gr_note "no python3"; exit 77; }

gr_start_broker offsets.topic.replication.factor=1
topic=share_raw_topic
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic 1 1) || gr_fail "creating $topic: no answer"
[ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"
python3 "$GR_INTEROP_DIR/py/share_fetch_raw.py" 127.0.0.1 "$GR_PORT" $topic ||
    gr_fail "share_fetch_raw.py failed"
gr_pass
