#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kafkajs (pinned in package.json, installed by ci/install-node-deps.sh) over
# every secured listener of one broker: SASL_PLAINTEXT with PLAIN,
# SCRAM-SHA-256 and SCRAM-SHA-512, SSL (a test CA made with the openssl tool)
# and SASL_SSL with each mechanism. kafkajs logs in with SaslHandshake v1 and
# SaslAuthenticate. The right login produces and consumes in a group
# (js/sasl_kafkajs.js); a wrong password gets kafkajs' SASL authentication
# error with the broker's message, and the broker logs the failed login.
# After the refusals the broker still serves.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/tlslib.sh"
. "$(dirname "$0")/../lib/sasllib.sh"
gr_require_gregor
if ! command -v node >/dev/null || [ ! -d "$GR_INTEROP_DIR/node_modules/kafkajs" ]; then
    gr_note "skipped: node or interop-tests/node_modules/kafkajs missing (run ci/install-node-deps.sh)"
    exit 77
fi
export KAFKAJS_NO_PARTITIONER_WARNING=1
# A new group rebalances as soon as its first member joins.
gr_sasl_tls_start_broker group.initial.rebalance.delay.ms=0
gr_sasl_add_scram_user bob bob-secret

gr_sasl_client_matrix js SCRAM-SHA-256 node "$GR_INTEROP_DIR/js/sasl_kafkajs.js"
gr_pass
