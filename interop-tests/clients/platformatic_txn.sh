#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# @platformatic/kafka transactions (js/platformatic/txn.mjs, see its
# header): committed, aborted and held-open transactions, offsets sent with
# them (TxnOffsetCommit), the last stable offset, fencing by a second
# producer with the same transactional id, a read_committed consumer seeing
# exactly the committed records, and the log as Fetch returns it (control
# batches, aborted-transaction lists). Checked last: TxnOffsetCommit's
# commit metadata with a NUL byte ("Hello\0world!") comes back whole.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/platformaticlib.sh"
gr_require_gregor
pk_require

gr_start_broker group.initial.rebalance.delay.ms=0
out=$(pk_run txn 2>&1) || gr_fail "platformatic transactions: $(tail -n 30 <<<"$out")"
gr_note "$out"
gr_pass
