#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Committed offsets: three members (roundrobin assignor) consume a 6-partition
# topic and commit every record synchronously. All stop; the group's last
# commits are the partitions' ends. Three new members of the same group then
# join: they redeliver nothing below the commits (not while they rebalance
# either), and consume every record produced afterwards exactly once. No
# record of either batch is lost.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/grouplib.sh"

topic=resume_topic
group=resume_group
gm_topic $topic 6
gm_start_broker
gm_produce $topic 300
for m in a b c; do gm_start $m -g $group -t $topic -a roundrobin -c sync; done
gm_wait_counts a=2 b=2 c=2
gm_wait_consumed_all a b c
# Every consumed record's commit is in before the member stops.
gm_wait_committed_ends a b c
gm_stop_all a b c
first_batch=$(sort "$GM_PRODUCED")

for m in d e f; do gm_start $m -g $group -t $topic -a roundrobin -c sync; done
gm_wait_counts d=2 e=2 f=2
gm_produce $topic 300
gm_wait_consumed_all a b c d e f
redelivered=$(gm_consumed d e f | sort | comm -12 - <(echo "$first_batch"))
[ -z "$redelivered" ] || gr_fail "records below the committed offsets redelivered: $(head -n 3 <<<"$redelivered" | tr '\n' ';')"
gm_check_no_duplicates d e f
[ "$(gm_consumed d e f | wc -l)" = 300 ] || gr_fail "the new members consumed $(gm_consumed d e f | wc -l) records, want 300"
gm_stop_all d e f
gr_pass
