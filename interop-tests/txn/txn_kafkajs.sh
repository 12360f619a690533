#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kafkajs transactions (js/kafkajs_txn.js): its transactional producer
# commits and aborts transactions, its consumer with kafkajs' default
# isolation (read_committed) sees exactly the committed records; offsets
# sent in a committed transaction are the group's (5 on partition 0), those
# of an aborted one (9) never appear. read_uncommitted (kcat) sees the
# aborted records too, and nothing is left open.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/txnlib.sh"
gr_require_gregor
if ! command -v node >/dev/null || [ ! -d "$GR_INTEROP_DIR/node_modules/kafkajs" ]; then
    gr_note "skipped: node or interop-tests/node_modules/kafkajs missing (run ci/install-node-deps.sh)"
    exit 77
fi
topic=txn_kafkajs

gr_start_broker group.initial.rebalance.delay.ms=0
tx_topic $topic 2
out=$(KAFKAJS_NO_PARTITIONER_WARNING=1 timeout "$GR_CMD_TIMEOUT_S" \
    node "$GR_INTEROP_DIR/js/kafkajs_txn.js" "$GR_BOOTSTRAP" $topic kjs-offsets 2>&1) ||
    gr_fail "kafkajs transactions: $(tail -n 20 <<<"$out")"
gr_note "$out"
[ "$(tx_committed kjs-offsets)" = "$topic 0 5" ] ||
    gr_fail "kjs-offsets' committed offsets: '$(tx_committed kjs-offsets | tr '\n' ';')', want '$topic 0 5'"
[ "$(tx_read $topic read_uncommitted | grep -c ' kjs-')" = 40 ] || gr_fail "read_uncommitted does not see all 40 records"
[ "$(tx_offsets $topic read_committed)" = "$(tx_offsets $topic)" ] || gr_fail "a transaction is left open"
tx_wait_state kjs-app '^CompleteCommit$'
gr_pass
