#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ElectLeaders and ControlledShutdown over raw requests, with the automatic
# preferred-leader check off (auto.leader.rebalance.enable=false) so that
# only the requests move leadership:
#  - after broker 0's controlled shutdown and restart, partition 0 (first
#    replica 0) stays with its new leader; a PREFERRED election gives it
#    back (NONE), a second one is ELECTION_NOT_NEEDED, as is UNCLEAN with a
#    live leader; unknown partitions are UNKNOWN_TOPIC_OR_PARTITION; asking
#    for every partition leaves out those needing no election; brokers other
#    than the controller answer NOT_CONTROLLER;
#  - broker 0 stopped: PREFERRED is PREFERRED_LEADER_NOT_AVAILABLE, and a
#    partition whose only replica it is has ELIGIBLE_LEADERS_NOT_AVAILABLE;
#  - an offline partition (its only in-sync replica killed) gets a leader
#    from outside its ISR through an UNCLEAN election, and serves again;
#  - ControlledShutdown for a broker id that is not registered is
#    BROKER_NOT_AVAILABLE.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
NONE=0 UNKNOWN=3 BROKER_NOT_AVAILABLE=8 NOT_CONTROLLER=41
PREFERRED_NOT_AVAILABLE=80 ELIGIBLE_NOT_AVAILABLE=83 NOT_NEEDED=84
OPS_PY=$GR_INTEROP_DIR/py/cluster_ops_raw.py
ops() { local i=$1; shift; timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$OPS_PY" "$(cl_addr "$i")" "$@"; }

cl_start_cluster 3 auto.leader.rebalance.enable=false replica.lag.time.max.ms=3000
for spec in "el 0,1,2/1,2,0/2,0,1" "solo 0" "un 1,2"; do
    read -r name assignment <<<"$spec"
    out=$(cl_state 0 create-assigned "$name" "$assignment")
    [ "$out" = 0 ] || gr_fail "creating $name: error $out"
done
cl_wait_all_led el 3
gr_wait_until "$CL_WAIT_S" "every ISR of el full" cl_isr_size_is el 3

leader_of() { cl_state "$(cl_live | cut -d' ' -f1)" leaders "$1" | awk -v p="$2" '$1 == p { print $2 }'; }
# shellcheck disable=SC2317
leader_everywhere() # TOPIC PARTITION LEADER: every running broker reports it
{
    local i
    for i in $(cl_live); do
        [ "$(cl_state "$i" leaders "$1" 2>/dev/null | awk -v p="$2" '$1 == p { print $2 }')" = "$3" ] || return 1
    done
}

cl_stop_broker 0
gr_wait_until "$CL_WAIT_S" "partition el-0 led by broker 1" leader_everywhere el 0 1
cl_start_broker 0
GR_BOOTSTRAP=$(cl_bootstrap)
cl_wait_stable "broker 0 back"
gr_wait_until "$CL_WAIT_S" "broker 0 back in every ISR of el" cl_isr_size_is el 3
cl_expect "el-0 stays with broker 1 without rebalancing" 1 "$(leader_of el 0)"

cl_wait_stable "controller known"
ctl=$CL_CONTROLLER
other=$(cl_non_controller)
cl_expect "ElectLeaders to a non-controller" "top $NOT_CONTROLLER" "$(ops "$other" elect preferred el:0)"
cl_expect "PREFERRED el-0, el-1, el-9, nosuch-0" \
    "top $NONE|el 0 $NONE|el 1 $NOT_NEEDED|el 9 $UNKNOWN|nosuch 0 $UNKNOWN" \
    "$(ops "$ctl" elect preferred el:0 el:1 el:9 nosuch:0 | paste -sd'|')"
gr_wait_until "$CL_WAIT_S" "el-0 back with broker 0 everywhere" leader_everywhere el 0 0
cl_expect "PREFERRED el-0 again" "top $NONE|el 0 $NOT_NEEDED" "$(ops "$ctl" elect preferred el:0 | paste -sd'|')"
cl_expect "UNCLEAN el-0 with a live leader" "top $NONE|el 0 $NOT_NEEDED" "$(ops "$ctl" elect unclean el:0 | paste -sd'|')"
cl_expect "PREFERRED for every partition, all in place" "top $NONE" "$(ops "$ctl" elect preferred | paste -sd'|')"

cl_expect "ControlledShutdown of an unregistered broker" "$BROKER_NOT_AVAILABLE 0" "$(ops "$ctl" shutdown 99)"
cl_expect "ControlledShutdown to a non-controller" "$NOT_CONTROLLER 0" "$(ops "$other" shutdown 1)"

# Broker 0 down (it may be the controller: ask whichever is now).
cl_stop_broker 0
GR_BOOTSTRAP=$(cl_bootstrap)
cl_wait_stable "broker 0 stopped"
ctl=$CL_CONTROLLER
cl_expect "PREFERRED el-0 with broker 0 down" "top $NONE|el 0 $PREFERRED_NOT_AVAILABLE" \
    "$(ops "$ctl" elect preferred el:0 | paste -sd'|')"
cl_expect "UNCLEAN solo-0, its only replica down" "top $NONE|solo 0 $ELIGIBLE_NOT_AVAILABLE" \
    "$(ops "$ctl" elect unclean solo:0 | paste -sd'|')"

# un-0 on brokers 1 and 2: broker 2 frozen until the ISR is broker 1 alone,
# records written to broker 1 only, then broker 1 killed: offline.
# shellcheck disable=SC2317
isr_is_1() { [ "$(cl_state 1 isr un 2>/dev/null | awk '$1 == 0 { print $3 }')" = 1 ]; }
cl_freeze_broker 2
gr_wait_until "$CL_WAIT_S" "the ISR of un-0 shrunk to broker 1 (as broker 1 says)" isr_is_1
out=$(cl_state 1 produce un 0 1 5)
[ "${out%% *}" = 0 ] || gr_fail "acks=1 produce to un-0: $out"
cl_kill9_broker 1
cl_thaw_broker 2
GR_BOOTSTRAP=$(cl_bootstrap)
cl_wait_stable "broker 1 killed"
gr_wait_until "$CL_WAIT_S" "un-0 offline" leader_everywhere un 0 -1
ctl=$CL_CONTROLLER
cl_expect "UNCLEAN un-0, offline" "top $NONE|un 0 $NONE" "$(ops "$ctl" elect unclean un:0 | paste -sd'|')"
gr_wait_until "$CL_WAIT_S" "un-0 led by broker 2" leader_everywhere un 0 2
out=$(cl_state 2 produce un 0 -1 1)
[ "${out%% *}" = 0 ] || gr_fail "produce to un-0 after the unclean election: $out"
gr_note "un-0 serves again after the unclean election"
gr_pass
