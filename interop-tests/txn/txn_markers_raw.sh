#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The data path of transactions over raw sockets (py/txn_markers_raw.py),
# the test playing the transaction coordinator: transactional produce holds
# read_committed fetches and ListOffsets at the last stable offset;
# WriteTxnMarkers aborts (the fetch then lists the aborted transaction) and
# commits (waking a long-polling read_committed fetch), and fences older
# coordinator and producer epochs. The aborted transaction is still listed
# after a clean restart, and after kill -9 with the .txnindex files removed
# (rebuilt from the log).
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor

topic=txn-raw
gr_start_broker
echo first | gr_kcat -P -t $topic || gr_fail "kcat could not create $topic"
raw() { timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$GR_INTEROP_DIR/py/txn_markers_raw.py" 127.0.0.1 "$GR_PORT" $topic "$1"; }
raw checks || gr_fail "transaction marker checks failed"
ls "$GR_TMP/logs/$topic-0/"*.txnindex >/dev/null 2>&1 || gr_fail "no .txnindex in the log dir"

gr_restart_broker
raw restarted || gr_fail "the aborted transaction is not listed after a clean restart"

gr_kill9_broker
rm -f "$GR_TMP/logs/$topic-0/"*.txnindex
gr_start_broker
raw restarted || gr_fail "the aborted transaction is not listed after kill -9 (index rebuilt)"
gr_pass
