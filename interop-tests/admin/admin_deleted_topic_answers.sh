#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What the broker answers around a topic deleted under its clients, from
# raw-socket requests (py/deleted_topic_raw.py) checked against Kafka 3.x: a
# fetch waiting on the topic is answered when it goes, with
# UNKNOWN_TOPIC_OR_PARTITION; Fetch v11/v13 (by the old id), Metadata (by
# name and by id), ListOffsets and OffsetCommit answer its partitions as
# unknown and serve the other topic; the groups forget its committed offsets
# (OffsetFetch answers -1) and a group left Empty without offsets is gone.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
command -v python3 >/dev/null || { gr_note "no python3"; exit 77; }

gr_start_broker offsets.topic.replication.factor=1
for spec in keep_answers:1 gone_answers:2; do
    out=$(gr_prog admin -b "$GR_BOOTSTRAP" create "${spec%:*}" "${spec#*:}" 1) || gr_fail "creating $spec: no answer"
    [ "$out" = "${spec%:*} NO_ERROR" ] || gr_fail "creating $spec: $out"
done
seq 1 10 | gr_kcat -P -t keep_answers -p 0
seq 1 10 | gr_kcat -P -t gone_answers -p 0
seq 1 10 | gr_kcat -P -t gone_answers -p 1
python3 "$GR_INTEROP_DIR/py/deleted_topic_raw.py" 127.0.0.1 "$GR_PORT" keep_answers gone_answers ||
    gr_fail "answers around the deleted topic differ from Kafka's"
gr_pass
