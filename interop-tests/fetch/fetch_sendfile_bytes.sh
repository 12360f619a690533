#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetched record bytes go from segment files to the socket with sendfile():
# the broker's shutdown line reports the bytes sent by sendfile and the record
# bytes its fetch responses carried, and the two must be equal (and cover
# what the consumer read).
source "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
gr_start_broker
seq 1 20000 | sed 's/^/payload-/' | gr_kcat -P -t zerocopy
n=$(gr_kcat -C -t zerocopy -o beginning -e -q | wc -l)
[ "$n" -eq 20000 ] || gr_fail "consumed $n of 20000 records"
gr_stop_broker
line=$(gr_broker_run_log | grep "bytes with sendfile") || gr_fail "no sendfile report at shutdown"
sent=$(sed -E 's/.*sent ([0-9]+) bytes with sendfile.*/\1/' <<<"$line")
carried=$(sed -E 's/.*carried ([0-9]+) record bytes.*/\1/' <<<"$line")
gr_note "sendfile bytes $sent, fetched record bytes $carried"
[ "$sent" -gt 200000 ] || gr_fail "only $sent bytes went out with sendfile"
[ "$sent" -eq "$carried" ] || gr_fail "sendfile sent $sent bytes but fetches carried $carried"
gr_pass
