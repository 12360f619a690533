#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Unclean leader election, off and on. A 3-replica partition
# (min.insync.replicas=2) loses both followers (killed: the controller takes
# them out of the ISR); its leader refuses acks=-1 (NOT_ENOUGH_REPLICAS),
# takes 4 records with acks=1, and dies too. A follower comes back: with
# unclean.leader.election.enable=false (the default) the partition stays
# offline, since no in-sync replica is alive. Set to true live as the
# cluster-wide broker default (a dynamic broker config, not on the topic:
# the topic falls back to it), the controller elects the out-of-sync replica alone in its
# ISR: it takes produces at its own log end (the 4 records are lost, as
# unclean election means), and the old leader, back, truncates to it; all
# three replicas end with the same bytes. The controller counts the one
# unclean election once (uncleanleaderelections_total).
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
topic=unclean
NOT_ENOUGH_REPLICAS=19

GR_HTTP=1
cl_start_cluster 3 replica.fetch.backoff.ms=100
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic 1 3 min.insync.replicas=2) ||
    gr_fail "admin create failed: $out"
[ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"
cl_wait_all_led $topic 1

state_of() { cl_state "$1" isr $topic | awk '$1 == 0 { print $2 " " $3 }'; }
state_is() { [ "$(state_of "$1")" = "$2" ]; }
produce_ok() { cl_state "$1" produce $topic 0 1 2 >"$GR_TMP/produced" && grep -q '^0 ' "$GR_TMP/produced"; }

gr_wait_until "$CL_WAIT_S" "an ISR of 3" cl_isr_size_is $topic 3
leader=$(state_of 0 | cut -d' ' -f1)
read -r f1 f2 <<<"$(cl_live | tr ' ' '\n' | grep -vx "$leader" | tr '\n' ' ')"
got=$(cl_state "$leader" produce $topic 0 -1 5) || gr_fail "acks=-1 produce got no answer"
[ "$got" = "0 0" ] || gr_fail "acks=-1 produce answered '$got', want '0 0'"

cl_kill9_broker "$f1"
cl_kill9_broker "$f2"
gr_wait_until "$CL_WAIT_S" "broker $leader alone in the ISR" state_is "$leader" "$leader $leader"
got=$(cl_state "$leader" produce $topic 0 -1 1) || gr_fail "acks=-1 produce got no answer"
[ "${got%% *}" = $NOT_ENOUGH_REPLICAS ] ||
    gr_fail "acks=-1 produce with one of three alive answered '$got', want NOT_ENOUGH_REPLICAS"
got=$(cl_state "$leader" produce $topic 0 1 4) || gr_fail "acks=1 produce got no answer"
[ "$got" = "0 5" ] || gr_fail "acks=1 produce to the last replica answered '$got', want '0 5'"
cl_kill9_broker "$leader"

cl_start_broker "$f1"
cl_wait_stable "broker $f1 alone"
gr_wait_until "$CL_WAIT_S" "$topic-0 offline (no in-sync replica alive)" state_is "$f1" "-1 $leader"
sleep 1 # a decision made, and kept: not an unclean election
state_is "$f1" "-1 $leader" || gr_fail "$topic-0 left offline state with unclean election off: $(state_of "$f1")"

# Turned on live at the cluster default (a dynamic broker config): the controller elects.
out=$("$(dirname "$GR_BROKER")/gregor-admin" --bootstrap-server "$(cl_addr "$f1")" configs --alter \
    --entity-type brokers --entity-default --add-config unclean.leader.election.enable=true) ||
    gr_fail "enabling unclean election failed: $out"
gr_wait_until "$CL_WAIT_S" "broker $f1 elected uncleanly" state_is "$f1" "$f1 $f1"
grep -q "unclean leader election of broker $f1" "$(cl_broker_log "$f1")" ||
    gr_fail "the controller did not log the unclean election"
# Broker f1, alone, is the controller that elected itself: one election, counted once.
unclean=$(cl_http_get "$f1" /metrics | awk '$1 == "kafka_controller_controllerstats_uncleanleaderelections_total" { print $2 }')
[ "$unclean" = 1 ] || gr_fail "uncleanleaderelections_total on broker $f1: '$unclean', want 1"
gr_wait_until "$CL_WAIT_S" "broker $f1 to take produce requests" produce_ok "$f1"
got=$(cat "$GR_TMP/produced")
[ "$got" = "0 5" ] || gr_fail "acks=1 produce to the unclean leader answered '$got', want '0 5'"

cl_start_broker "$leader"
cl_start_broker "$f2"
cl_wait_stable "all back"
gr_wait_until "$CL_WAIT_S" "an ISR of 3 again" cl_isr_size_is $topic 3
gr_wait_until 30 "the three replicas to hold the same bytes" cl_replicas_equal $topic 1 0 1 2
grep -q "\[replica\] $topic-0: truncating from 9 to 5" "$(cl_broker_log "$leader")" ||
    gr_fail "broker $leader did not truncate its 4 unreplicated records"
gr_pass
