#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The API versions above Kafka 3.8's that Kafka 4.x clients send, over raw
# sockets (py/api_levels_4x_raw.py): ApiVersions advertises them, and each is
# served with the fields it adds: Metadata v13's top-level error, Produce v13
# and Fetch v17/v18 by topic id (read back byte for byte), ListOffsets v9/v10,
# OffsetCommit/OffsetFetch v10 by topic id (UNKNOWN_TOPIC_ID for an unknown
# one), FindCoordinator v6, DescribeCluster v2 and DescribeGroups v6.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
command -v python3 >/dev/null || { gr_note "no python3"; exit 77; }

gr_start_broker offsets.topic.replication.factor=1
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create levels_4x 1 1) || gr_fail "creating levels_4x: no answer"
[ "$out" = "levels_4x NO_ERROR" ] || gr_fail "creating levels_4x: $out"
python3 "$GR_INTEROP_DIR/py/api_levels_4x_raw.py" 127.0.0.1 "$GR_PORT" levels_4x ||
    gr_fail "Kafka 4.x API versions are not served as Kafka serves them"
gr_pass
