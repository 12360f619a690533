#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kafkajs (pinned in package.json, installed by ci/install-node-deps.sh):
# its producer writes 100 keyed messages with headers, its admin client sees
# the topic and its offsets (js/kafkajs_produce.js), and kcat reads every
# message back with its key and header. kafkajs' own consumer always joins a
# group, so it waits on the consumer-groups issue (pending/).
. "$(dirname "$0")/../lib/lib.sh"

if ! command -v node >/dev/null || [ ! -d "$GR_INTEROP_DIR/node_modules/kafkajs" ]; then
    gr_note "skipped: node or interop-tests/node_modules/kafkajs missing (run ci/install-node-deps.sh)"
    exit 77
fi
gr_start_broker
KAFKAJS_NO_PARTITIONER_WARNING=1 timeout "$GR_CMD_TIMEOUT_S" \
    node "$GR_INTEROP_DIR/js/kafkajs_produce.js" "$GR_BOOTSTRAP" kafkajs_topic ||
    gr_fail "kafkajs produce/admin failed"
got=$(gr_kcat -C -t kafkajs_topic -p 0 -o beginning -e -q -f '%k=%s;%h\n')
want=$(for i in $(seq 0 99); do echo "key-$i=value-$i;n=$i"; done)
[ "$got" = "$want" ] || gr_fail "kcat read back something else: $(diff <(echo "$want") <(echo "$got") | head -5)"
gr_pass
