#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kafkajs group consumers (pinned in package.json, installed by
# ci/install-node-deps.sh). js/group_consume.js: kafkajs' producer writes 100
# messages and its consumer (a group member, read_committed) reads each back
# once. js/group_member.js (commits every message): two members split a
# 4-partition topic two and two and consume it all; they stop (LeaveGroup),
# more records arrive, and a new member resumes at the commits: it gets only
# the new records, each once.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/grouplib.sh"

if ! command -v node >/dev/null || [ ! -d "$GR_INTEROP_DIR/node_modules/kafkajs" ]; then
    gr_note "skipped: node or interop-tests/node_modules/kafkajs missing (run ci/install-node-deps.sh)"
    exit 77
fi
export KAFKAJS_NO_PARTITIONER_WARNING=1
topic=js_group_topic
gm_topic $topic 4
gm_start_broker num.partitions=2
timeout "$GR_CMD_TIMEOUT_S" node "$GR_INTEROP_DIR/js/group_consume.js" "$GR_BOOTSTRAP" js_consume_topic js_consume_group ||
    gr_fail "kafkajs produce and group consume failed"

member() { gm_start_cmd "$1" node "$GR_INTEROP_DIR/js/group_member.js" "$GR_BOOTSTRAP" js_group $topic; }
gm_produce $topic 100
member a
member b
gm_wait_counts a=2 b=2
gm_wait_consumed_all a b
gm_wait_committed_ends a b
gm_stop_all a b

first_batch=$(sort "$GM_PRODUCED")
gm_produce $topic 100
member c
gm_wait_counts c=4
gm_wait_consumed_all a b c
redelivered=$(gm_consumed c | sort | comm -12 - <(echo "$first_batch"))
[ -z "$redelivered" ] || gr_fail "records below the commits redelivered: $(head -n 3 <<<"$redelivered" | tr '\n' ';')"
gm_check_no_duplicates c
gm_stop c
gr_pass
