#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A leader's divergent tail is truncated after a failover (KIP-101/KIP-279):
# with both followers stopped, the leader of a 3-replica partition appends 5
# records with acks=1 that nobody copies, and is killed. A follower becomes
# leader (the ISR still names all three) without those records and takes 3
# new ones at the same offsets with acks=-1. The old leader, restarted, asks
# its new leader for the end of its epoch, cuts its 5 records off, copies the
# 3 new ones and rejoins the ISR: all three replicas hold the same bytes and
# consumers read 13 records.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
topic=trunc

cl_start_cluster 3 replica.fetch.backoff.ms=100 replica.fetch.wait.max.ms=200
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic 1 3) || gr_fail "admin create failed: $out"
[ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"
cl_wait_all_led $topic 1

leader_seen_by() { cl_state "$1" isr $topic | awk '$1 == 0 { print $2 }'; }
new_leader_elected() # a running broker other than the old leader leads partition 0
{
    local l
    l=$(leader_seen_by "$(cl_live | cut -d' ' -f1)")
    [ -n "$l" ] && [ "$l" != "$old" ] && [ "$l" -ge 0 ]
}

# NOT_LEADER_OR_FOLLOWER until the new leader has heard of its leadership.
produce_to_new()
{
    cl_state "$new" produce $topic 0 -1 3 >"$GR_TMP/new-produce" && grep -q '^0 ' "$GR_TMP/new-produce"
}

gr_wait_until "$CL_WAIT_S" "an ISR of 3" cl_isr_size_is $topic 3
old=$(leader_seen_by 0)
followers=$(cl_live | tr ' ' '\n' | grep -vx "$old" | tr '\n' ' ')
got=$(cl_state "$old" produce $topic 0 -1 10) || gr_fail "acks=-1 produce got no answer"
[ "$got" = "0 0" ] || gr_fail "acks=-1 produce answered '$got', want '0 0'"

# Within the ZooKeeper session timeout: the followers keep their sessions
# and the leader its ISR of three. Their fetches waiting on the leader end
# after replica.fetch.wait.max.ms (200 ms): stopped, they send no other, so
# the acks=1 records reach no follower.
for f in $followers; do cl_freeze_broker "$f"; done
sleep 1
got=$(cl_state "$old" produce $topic 0 1 5) || gr_fail "acks=1 produce got no answer"
[ "$got" = "0 10" ] || gr_fail "acks=1 produce answered '$got', want '0 10'"
cl_kill9_broker "$old"
for f in $followers; do cl_thaw_broker "$f"; done
gr_wait_until "$CL_WAIT_S" "a new leader for $topic-0" new_leader_elected
new=$(leader_seen_by "$(cl_live | cut -d' ' -f1)")
gr_note "broker $new leads $topic-0 after broker $old was killed"
gr_wait_until "$CL_WAIT_S" "broker $new to take produce requests" produce_to_new
got=$(cat "$GR_TMP/new-produce")
[ "$got" = "0 10" ] || gr_fail "acks=-1 produce to the new leader answered '$got', want '0 10' (the old tail was never committed)"

cl_start_broker "$old"
cl_wait_stable "broker $old back"
gr_wait_until "$CL_WAIT_S" "broker $old back in the ISR" cl_isr_size_is $topic 3
gr_wait_until 30 "the three replicas to hold the same bytes" cl_replicas_equal $topic 1 0 1 2
grep -q "\[replica\] $topic-0: truncating from 15 to 10" "$(cl_broker_log "$old")" ||
    gr_fail "broker $old did not log its truncation from 15 to 10"
count=$(timeout "$GR_CMD_TIMEOUT_S" "$GR_KCAT" -b "$(cl_bootstrap)" -C -t $topic -o beginning -e -q -f '%o\n' | wc -l)
[ "$count" = 13 ] || gr_fail "consumers read $count records, want 13"
gr_pass
