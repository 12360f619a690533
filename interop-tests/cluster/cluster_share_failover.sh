#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A share group keeps its promises across broker deaths (SIGKILL) on a
# 3-broker cluster: a topic of one partition on 3 replicas, the share-group
# state in __share_group_state on 3 replicas (min ISR 2). Three members in
# one process (py/share_client.py --members 3) accept 600 records, 2 a
# fetch, while the test kills the partition's leader, brings it back,
# produces the second 300, then kills the broker leading the __share_group_state partition of the group's
# share-partition (FindCoordinator key type SHARE). The members find the
# new leaders and coordinators themselves. In the members' one ordered log:
#  - every record was delivered at least once and acknowledged exactly once
#    (an acknowledgement counts once the broker answered it without error:
#    it was on the state topic's ISR), but for records whose acknowledgement
#    lost its answer with the leader killed: those, never delivered again,
#    must be acknowledged durably (the share-partition's start offset, read
#    back through DescribeShareGroupOffsets, is past every record);
#  - no state write on __share_group_state moves the start offset back;
#  - no record was delivered again after its acknowledgement was answered,
#    by a later acquisition (see the stale deliveries below);
#  - only records in flight at a kill were delivered again.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
source "$(dirname "$0")/../lib/sharelib.sh"
cl_require
topic=share_fo
group=share-fo-g
N=600
STATE_PARTS=3
# shellcheck disable=SC2034 # read by sharelib.sh
SH_TIMEOUT_S=80

cl_start_cluster 3 offsets.topic.num.partitions=3 offsets.topic.replication.factor=3 \
    share.coordinator.state.topic.num.partitions=$STATE_PARTS \
    share.coordinator.state.topic.replication.factor=3 share.coordinator.state.topic.min.isr=2 \
    replica.lag.time.max.ms=10000 group.share.record.lock.duration.ms=5000
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic 1 3) || gr_fail "admin create failed: $out"
[ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"
cl_wait_all_led $topic 1
sh_init $group $topic
cl_wait_all_led __share_group_state $STATE_PARTS
# shellcheck disable=SC2317
# Small batches: a fetch acquires whole batches (Kafka's batch alignment).
produce() { seq "$1" "$2" | sed 's/^/f-/' | gr_kcat -P -t $topic -p 0 -X acks=all -X batch.num.messages=2 || gr_fail "producing $1..$2"; }
produce 0 $((N / 2 - 1))

log=$GR_TMP/members.log
# --quiet-s: a leader killed between writing an acknowledgement and
# answering it has acknowledged the record for good (the new leader reads
# that state), while its member saw the connection drop: the record never
# comes again and --until-acked alone would wait for it until the timeout.
# An acknowledgement that did not reach the state comes back within one
# lock duration; twice that without a delivery settles it.
sh_start members --group $group --topic $topic --members 3 --ack accept --until-acked $N \
    --quiet-s 10 --max-records 2 --delay-ms 200 --log "$log" --verbose
# shellcheck disable=SC2317
acked_at_least() { [ "$(grep -c '^A ' "$log" 2>/dev/null || true)" -ge "$1" ] || ! gr_alive "${SH_PID[members]}"; }
# shellcheck disable=SC2317
share_state_leader()
{
    local found
    found=$("$GR_PYTHON" "$GR_INTEROP_DIR/py/share_raw.py" "$(cl_bootstrap)" share-coordinator $group $topic 0) &&
        [[ $found =~ ^0\ ([0-9]+)$ ]] && [[ " $(cl_live) " == *" ${BASH_REMATCH[1]} "* ]] &&
        echo "${BASH_REMATCH[1]}"
}

gr_wait_until 60 "100 acknowledgements" acked_at_least 100
leader=$(cl_state "$(cl_live | cut -d' ' -f1)" leaders $topic | awk '{ print $2 }')
gr_note "killing $topic-0's leader, broker $leader, after $(grep -c '^A ' "$log") acknowledgements"
cl_kill9_broker "$leader"
gr_wait_until 60 "200 acknowledgements" acked_at_least 200
cl_start_broker "$leader"
gr_wait_until "$CL_WAIT_S" "__share_group_state back on 3 replicas in sync" cl_isr_size_is __share_group_state 3
# The second half, so that records are in flight when the coordinator dies.
produce $((N / 2)) $((N - 1))
gr_wait_until 60 "$((N / 2 + 50)) acknowledgements" acked_at_least $((N / 2 + 50))
gr_wait_until "$CL_WAIT_S" "FindCoordinator(SHARE) to name a live broker" share_state_leader
coordinator=$(share_state_leader)
gr_note "killing the share coordinator of $group:$topic:0, broker $coordinator, after $(grep -c '^A ' "$log") acknowledgements"
cl_kill9_broker "$coordinator"
sh_wait members

# Stale deliveries: a ShareFetch that carries acknowledgements is answered
# only once their state write is on the __share_group_state ISR, but the
# records it acquired are locked from the acquisition on. While the
# coordinator fails over (or its ISR is slow on a loaded machine) that wait
# can outlast group.share.record.lock.duration.ms: the lock expires, another
# member acquires the record (delivery count + 1), and may acknowledge it
# before the held response reaches the first member. The first member's
# delivery then shows up in the log after the acknowledgement, and its own
# acknowledgement of it is answered without error once the start offset
# has passed the record (acknowledged already: nothing to do). Both carry a
# lower delivery count than the acknowledged delivery, which no acquisition
# after the acknowledgement can have (each acquisition counts one more), so
# they are told apart by it and still count as redeliveries.
awk -v n=$N '
    { seen[$2] = seen[$2] "\n  " $0 }
    $1 == "D" { delivered[$2]++; if (($2 in acked) && $3 < acked[$2]) stale++
                if (($2 in acked) && $3 >= acked[$2]) { print "offset " $2 " delivered again after its acknowledgement"; bad = 1; show[$2] = 1 }
                if (delivered[$2] > 1) again[$2] = 1 }
    $1 == "A" { if (!($2 in acked)) acked[$2] = $3
                else if ($3 >= acked[$2]) { print "offset " $2 " acknowledged twice"; bad = 1; show[$2] = 1 } }
    $1 == "F" && $6 == -1 { lost[$2] = 1 }
    END {
        for (o = 0; o < n; o++) {
            if (!(o in delivered)) { print "offset " o " never delivered"; bad = 1 }
            if (!(o in acked) && (o in lost)) u++
            else if (!(o in acked)) { print "offset " o " never acknowledged"; bad = 1; show[o] = 1 }
        }
        for (o in show) print "offset " o ":" seen[o]
        if (u) print u " acknowledgements lost their answer"
        r = 0; for (o in again) r++
        print "redelivered " r " records (" stale + 0 " stale deliveries)"
        # In flight at each of the two kills: at most 3 members x 2
        # records acquired, and as many awaiting their acknowledgement.
        if (r > 2 * 3 * 2 * 2) { print "more redeliveries than records in flight"; bad = 1 }
        exit bad
    }' "$log" >"$GR_TMP/check" || gr_fail "$(head -n 40 "$GR_TMP/check")"
gr_note "$(tail -n 2 "$GR_TMP/check" | paste -sd ';')"
# Each state write carries the share-partition's whole state: one landing
# after a newer one (its start offset lower) would hand acknowledged records
# out again after a leader change. Read every replica's state-topic log.
out=$("$GR_PYTHON" "$GR_INTEROP_DIR/py/share_state_log.py" "$GR_TMP"/b*/logs/__share_group_state-*) ||
    gr_fail "an older share-partition state written over a newer one: $(head -n 5 <<<"$out")"
start=$(sh_admin share-groups describe --group $group --topic "$topic:0" --json |
    "$GR_PYTHON" -c 'import json,sys; print(json.load(sys.stdin)[0]["start_offset"])') ||
    gr_fail "describing $group's start offset: $start"
[ "$start" = $N ] || gr_fail "$group's start offset is $start, not $N: records not acknowledged durably"
gr_pass
