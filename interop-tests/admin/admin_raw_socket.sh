#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The admin APIs librdkafka 2.0.2 lacks, from hand-written raw-socket
# requests (py/admin_raw.py, standard library only): CreateTopics v5 returns
# the created topic's configs; IncrementalAlterConfigs v0/v1 SET, DELETE,
# APPEND, SUBTRACT and their errors; DescribeConfigs key filters, v0
# is_default, v4 types and documentation, broker "" / other ids / bad
# resource types; DescribeCluster v0/v1; DescribeLogDirs v0/v4 sizes;
# ElectLeaders v0/v2 (ELECTION_NOT_NEEDED); DeleteRecords errors; and each
# of these APIs plus AlterConfigs and CreatePartitions at every version of
# Kafka 3.8's range.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
command -v python3 >/dev/null || { gr_note "no python3"; exit 77; }

gr_start_broker
seq 1 50 | gr_kcat -P -t raw_data -p 0
python3 "$GR_INTEROP_DIR/py/admin_raw.py" 127.0.0.1 "$GR_PORT" raw_data ||
    gr_fail "raw-socket admin checks failed"
gr_pass
