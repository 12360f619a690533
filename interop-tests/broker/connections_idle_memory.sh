#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 2,000 idle clients (each answered its ApiVersions and Metadata, then
# silent) grow the broker's RSS by at most 6 KiB each: an idle connection
# keeps no read block or response arenas (src/net/conn.c, "Idle"). Before
# that it was ~14 KiB each. A memory bound, read from /proc, never a time.
. "$(dirname "$0")/../lib/lib.sh"

bound=6144
# A sanitizer build holds freed memory in its quarantine on purpose: there
# the connections are still opened and answered, the figure only reported.
if [[ $(ldd "$GR_BROKER" 2>/dev/null) == *libasan* ]]; then
    bound=0
fi
gr_start_broker
"$GR_PYTHON" "$GR_INTEROP_DIR/py/idle_conns_memory.py" 127.0.0.1 "$GR_PORT" "$GR_PID" 2000 $bound ||
    gr_fail "idle connections cost too much memory"
gr_alive "$GR_PID" || gr_fail "the broker died"
gr_pass
