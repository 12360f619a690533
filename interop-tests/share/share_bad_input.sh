#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ShareFetch and ShareAcknowledge refuse what a well-behaved consumer never
# sends (py/share_raw.py bad-input): acknowledging an offset no longer acquired
# is INVALID_RECORD_STATE, a stale share session epoch
# INVALID_SHARE_SESSION_EPOCH, a member without a session
# SHARE_SESSION_NOT_FOUND, acknowledgements in the request opening a
# session INVALID_REQUEST (ShareAcknowledge at epoch 0:
# INVALID_SHARE_SESSION_EPOCH), an unknown acknowledge type or a backwards
# batch INVALID_REQUEST; a truncated ShareFetch frame closes its connection
# and the broker goes on serving the member's session on a new one.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/sharelib.sh"
gr_require_gregor
topic=share_bad
group=bad-g

gr_start_broker
# The truncated frame is logged as a protocol error.
gr_allow_log_errors 'ShareFetch|share_fetch|truncated|malformed|decode|parse'
sh_topic $topic 1
sh_init $group $topic
sh_produce $topic b 1 5
"$GR_PYTHON" "$GR_INTEROP_DIR/py/share_raw.py" "$GR_BOOTSTRAP" bad-input $group $topic ||
    gr_fail "share_raw.py bad-input failed"
gr_alive "$GR_PID" || gr_fail "the broker died"
gr_pass
