#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Malformed requests over raw sockets (py/bad_frames.py): a negative, zero or
# oversize length prefix, a short header, an unknown API key, garbage bodies,
# versions outside the advertised range. Each closes that connection (or, for
# ApiVersions, gets UNSUPPORTED_VERSION), and the broker keeps serving: a raw
# ApiVersions and a normal kcat -L work after each.
. "$(dirname "$0")/../lib/lib.sh"

gr_start_broker
failed=0
for case in $("$GR_PYTHON" "$GR_INTEROP_DIR/py/bad_frames.py" list); do
    if ! "$GR_PYTHON" "$GR_INTEROP_DIR/py/bad_frames.py" 127.0.0.1 "$GR_PORT" "$case" >&2; then
        failed=$((failed + 1))
    fi
    gr_alive "$GR_PID" || gr_fail "broker died after case $case"
    gr_kcat -L >/dev/null 2>"$GR_TMP/kcat.err" || {
        cat "$GR_TMP/kcat.err" >&2
        gr_fail "kcat -L fails after case $case"
    }
done
[ $failed = 0 ] || gr_fail "$failed malformed-request case(s) not handled as Kafka does"
gr_pass
