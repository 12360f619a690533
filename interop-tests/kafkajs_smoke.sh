#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kafkajs (pinned in package.json, installed by ci/install-node-deps.sh):
# produce 100 messages, consume them back through a consumer group with
# kafkajs' default read_committed isolation (js/kafkajs_smoke.js).
. "$(dirname "$0")/lib.sh"

if ! command -v node >/dev/null || [ ! -d "$GR_INTEROP_DIR/node_modules/kafkajs" ]; then
    gr_note "skipped: node or interop-tests/node_modules/kafkajs missing (run ci/install-node-deps.sh)"
    exit 77
fi
gr_start_broker
KAFKAJS_NO_PARTITIONER_WARNING=1 timeout "$GR_CMD_TIMEOUT_S" \
    node "$GR_INTEROP_DIR/js/kafkajs_smoke.js" "$GR_BOOTSTRAP" kafkajs_topic kafkajs_group ||
    gr_fail "kafkajs round trip failed"
gr_pass
