#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# @platformatic/kafka's Admin (js/platformatic/admin.mjs, see its header):
# the API versions it negotiates, cluster metadata, CreateTopics with
# configs, ListTopics, Metadata (topic ids, leaders), CreatePartitions,
# DescribeConfigs, AlterConfigs, IncrementalAlterConfigs, DescribeLogDirs,
# DeleteTopics, and the errors Kafka gives for a duplicate topic, fewer
# partitions and unknown topics.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/platformaticlib.sh"
gr_require_gregor
pk_require

gr_start_broker
out=$(pk_run admin 2>&1) || gr_fail "platformatic admin: $(tail -n 30 <<<"$out")"
gr_note "$out"
gr_pass
