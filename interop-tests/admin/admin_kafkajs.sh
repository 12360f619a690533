#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kafkajs' admin client (js/kafkajs_admin.js): createTopics with configs,
# describeConfigs with synonyms (topic and broker), alterConfigs and its
# INVALID_CONFIG refusal, createPartitions, deleteTopicRecords (then
# fetchTopicOffsets sees the new low watermark) and describeCluster.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
if ! command -v node >/dev/null || [ ! -d "$GR_INTEROP_DIR/node_modules/kafkajs" ]; then
    gr_note "skipped: node or interop-tests/node_modules/kafkajs missing (run ci/install-node-deps.sh)"
    exit 77
fi
gr_start_broker
timeout "$GR_CMD_TIMEOUT_S" node "$GR_INTEROP_DIR/js/kafkajs_admin.js" "$GR_BOOTSTRAP" ||
    gr_fail "kafkajs admin checks failed"
gr_pass
