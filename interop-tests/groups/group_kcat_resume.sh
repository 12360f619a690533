#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Consumer groups through kcat's balanced consumer (-G, librdkafka's
# high-level consumer: FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
# OffsetFetch, OffsetCommit, LeaveGroup). A group reads a topic to its end and
# commits on close; after more records arrive, the same group resumes at its
# committed offsets and reads only the new ones; a new group with
# auto.offset.reset=earliest reads everything.
. "$(dirname "$0")/../lib/lib.sh"

# Each group read must finish well within the test deadline.
GR_CMD_TIMEOUT_S=${GR_GROUP_READ_TIMEOUT_S:-60}
gr_start_broker group.initial.rebalance.delay.ms=0 offsets.topic.replication.factor=1
topic=group_topic
seq 1 100 | gr_kcat -P -t $topic -p 0
group_read() # group, extra kcat args...
{
    local group=$1
    shift
    gr_kcat -G "$group" -e -q -f '%s\n' -X auto.offset.reset=earliest "$@" $topic
}

got=$(group_read g1 | sort -n) || gr_fail "group g1: kcat -G failed (see above)"
[ "$got" = "$(seq 1 100)" ] || gr_fail "group g1 first read: $(wc -l <<<"$got") records, want 1..100"

seq 101 150 | gr_kcat -P -t $topic -p 0
got=$(group_read g1 | sort -n) || gr_fail "group g1: kcat -G failed (see above)"
[ "$got" = "$(seq 101 150)" ] ||
    gr_fail "group g1 after its commit read $(wc -l <<<"$got") records ($(head -n 1 <<<"$got")...), want 101..150"

got=$(group_read g2 | sort -n) || gr_fail "group g2: kcat -G failed (see above)"
[ "$got" = "$(seq 1 150)" ] || gr_fail "new group g2 read $(wc -l <<<"$got") records, want 1..150"
gr_pass
