#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kafka-python's group consumer (py/group_member.py, committing every record):
# two members split a 4-partition topic two and two and consume it all; they
# stop (LeaveGroup), more records arrive, and a new member of the group
# resumes at the commits: it gets only the new records, each once.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/grouplib.sh"

# librdkafka's mock cluster answers kafka-python's JoinGroup with
# INVALID_REQUEST, so this runs against gregor only.
gr_require_gregor
"$GR_PYTHON" -c 'import kafka' 2>/dev/null || { gr_note "skipped: python3-kafka missing for $GR_PYTHON"; exit 77; }
topic=py_group_topic
gm_topic $topic 4
gm_start_broker
member() { gm_start_cmd "$1" "$GR_PYTHON" "$GR_INTEROP_DIR/py/group_member.py" "$GR_BOOTSTRAP" py_group $topic; }
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
