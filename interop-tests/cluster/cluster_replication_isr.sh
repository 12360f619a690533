#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The ISR and the high watermark of a partition replicated on three brokers
# (min.insync.replicas=2, replica.lag.time.max.ms=2000):
#  - acks=-1 is answered once every ISR member has the records;
#  - with both followers stopped (SIGSTOP), records appended with acks=1 stay
#    above the high watermark: ListOffsets latest (what consumers may read)
#    does not move, and an acks=-1 produce times out (REQUEST_TIMED_OUT);
#  - the leader then drops the lagging followers from the ISR through the
#    controller: every broker reports an ISR of the leader alone, the high
#    watermark reaches the log end, and acks=-1 gets NOT_ENOUGH_REPLICAS;
#  - resumed (SIGCONT), the followers catch up and rejoin the ISR, acks=-1
#    works again and the three replicas hold the same bytes.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
REQUEST_TIMED_OUT=7
NOT_ENOUGH_REPLICAS=19
topic=isr

cl_start_cluster 3 replica.lag.time.max.ms=2000 replica.fetch.backoff.ms=100
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic 1 3 min.insync.replicas=2) ||
    gr_fail "admin create failed: $out"
[ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"
cl_wait_all_led $topic 1

isr_of() { cl_state "$1" isr $topic | awk '$1 == 0 { print $3 }'; }
hw() { cl_state "$leader" offsets $topic | awk '$1 == 0 { print $3 }'; }
produce() { cl_state "$leader" produce $topic 0 "$@"; }
hw_is() { [ "$(hw)" = "$1" ]; }
leader_alone_in_isr() { [ "$(isr_of "$leader")" = "$leader" ]; }

gr_wait_until "$CL_WAIT_S" "an ISR of 3" cl_isr_size_is $topic 3
leader=$(cl_state 0 isr $topic | awk '$1 == 0 { print $2 }')
followers=$(cl_live | tr ' ' '\n' | grep -vx "$leader" | tr '\n' ' ')
gr_note "leader $leader, followers $followers"

got=$(produce -1 10) || gr_fail "acks=-1 produce got no answer"
[ "$got" = "0 0" ] || gr_fail "acks=-1 produce with 3 in sync answered '$got', want '0 0'"
[ "$(hw)" = 10 ] || gr_fail "high watermark $(hw) after an acks=-1 produce of 10, want 10"

for f in $followers; do cl_freeze_broker "$f"; done
got=$(produce 1 5) || gr_fail "acks=1 produce got no answer"
[ "$got" = "0 10" ] || gr_fail "acks=1 produce with followers stopped answered '$got', want '0 10'"
got=$(hw)
[ "$got" = 10 ] || gr_fail "high watermark $got with followers stopped, want 10: consumers must not see records the followers lack"
got=$(produce -1 1 1000) || gr_fail "acks=-1 produce got no answer"
[ "${got%% *}" = $REQUEST_TIMED_OUT ] || gr_fail "acks=-1 produce with followers stopped answered '$got', want REQUEST_TIMED_OUT"

gr_wait_until "$CL_WAIT_S" "the leader's ISR to shrink to itself" leader_alone_in_isr
gr_wait_until 30 "the high watermark to reach the log end (16)" hw_is 16
got=$(produce -1 1) || gr_fail "acks=-1 produce got no answer"
[ "${got%% *}" = $NOT_ENOUGH_REPLICAS ] || gr_fail "acks=-1 produce with an ISR of 1 answered '$got', want NOT_ENOUGH_REPLICAS"
got=$(produce 1 1) || gr_fail "acks=1 produce got no answer"
[ "$got" = "0 16" ] || gr_fail "acks=1 produce with an ISR of 1 answered '$got', want '0 16'"

for f in $followers; do cl_thaw_broker "$f"; done
cl_wait_stable "followers back"
gr_wait_until "$CL_WAIT_S" "the followers back in the ISR" cl_isr_size_is $topic 3
got=$(produce -1 3) || gr_fail "acks=-1 produce got no answer"
[ "$got" = "0 17" ] || gr_fail "acks=-1 produce with 3 in sync again answered '$got', want '0 17'"
gr_wait_until 30 "the three replicas to hold the same bytes" cl_replicas_equal $topic 1 0 1 2
gr_note "ISR $(isr_of "$leader"), high watermark $(hw), replicas identical"
gr_pass
