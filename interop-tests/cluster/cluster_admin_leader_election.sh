#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gregor-admin leader-election and topics describe's filters in a 3-broker
# cluster, with the automatic preferred-leader check off
# (auto.leader.rebalance.enable=false) so that only the tool moves leaders:
#  - after broker 0 restarts, el-0 (first replica 0) stays with broker 1;
#    "leader-election --election-type PREFERRED" bootstrapped on a broker
#    that is not the controller gives it back ("Successfully completed"),
#    and asking again is "Valid replica already elected" (exit 0);
#  - a follower frozen (SIGSTOP) drops out of the ISRs: "topics describe
#    --under-replicated-partitions" lists exactly the partitions it
#    replicates, and none once it is thawed and caught up;
#  - once the frozen broker's ZooKeeper session expires, the partition
#    whose only replica it holds has no leader: "--unavailable-partitions"
#    lists it with leader Offline.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"

cl_start_cluster 3 auto.leader.rebalance.enable=false replica.lag.time.max.ms=3000
for spec in "el 0,1,2/1,2,0/2,0,1" "solo 2"; do
    read -r name assignment <<<"$spec"
    out=$(cl_state 0 create-assigned "$name" "$assignment")
    [ "$out" = 0 ] || gr_fail "creating $name: error $out"
done
cl_wait_all_led el 3
cl_wait_all_led solo 1
gr_wait_until "$CL_WAIT_S" "every ISR of el full" cl_isr_size_is el 3

# ga BROKER ARGS...: gregor-admin bootstrapped on BROKER; sets out, err, rc.
ga()
{
    local i=$1
    shift
    rc=0
    out=$("$ADMIN" --bootstrap-server "$(cl_addr "$i")" "$@" 2>"$GR_TMP/cli.err") || rc=$?
    err=$(cat "$GR_TMP/cli.err")
}
expect_run() # WANT_RC BROKER ARGS...
{
    local want=$1
    shift
    ga "$@"
    [ "$rc" = "$want" ] || gr_fail "gregor-admin (broker $1) ${*:2}: exit $rc, want $want; out '$out' err '$err'"
}
# shellcheck disable=SC2317
leader_everywhere() # TOPIC PARTITION LEADER
{
    local i
    for i in $(cl_live); do
        [ "$(cl_state "$i" leaders "$1" 2>/dev/null | awk -v p="$2" '$1 == p { print $2 }')" = "$3" ] || return 1
    done
}

cl_stop_broker 0
gr_wait_until "$CL_WAIT_S" "el-0 led by broker 1" leader_everywhere el 0 1
cl_start_broker 0
GR_BOOTSTRAP=$(cl_bootstrap)
cl_wait_stable "broker 0 back"
gr_wait_until "$CL_WAIT_S" "broker 0 back in every ISR of el" cl_isr_size_is el 3
leader_everywhere el 0 1 || gr_fail "el-0 moved back to broker 0 without an election"

other=$(cl_non_controller)
expect_run 0 "$other" leader-election --election-type PREFERRED --topic el --partition 0
[ "$out" = "Successfully completed leader election (PREFERRED) for partitions el-0" ] ||
    gr_fail "PREFERRED el-0: '$out'"
gr_wait_until "$CL_WAIT_S" "el-0 led by broker 0 everywhere" leader_everywhere el 0 0
expect_run 0 "$other" leader-election --election-type preferred --topic el --partition 0
[ "$out" = "Valid replica already elected for partitions el-0" ] || gr_fail "PREFERRED el-0 again: '$out'"
expect_run 0 "$other" leader-election --election-type PREFERRED --all-topic-partitions
gr_note "leader-election PREFERRED through gregor-admin: ok"

# A follower frozen: the partitions it replicates become under-replicated.
# The frozen broker is neither the controller (it shrinks the ISRs) nor the
# broker asked.
cl_wait_stable "before freezing"
ctl=$CL_CONTROLLER
for i in 0 1 2; do [ "$i" = "$ctl" ] || frozen=$i; done
# shellcheck disable=SC2317
under_replicated_is() # WANT: el's partitions listed, "el-0 ..." sorted, from --json
{
    local got
    ga "$ctl" topics describe --under-replicated-partitions --json
    [ "$rc" = 0 ] || return 1
    got=$("$GR_PYTHON" -c 'import json, sys
d = json.load(sys.stdin)
print(" ".join(sorted("%s-%d" % (t["topic"], p["partition"])
                     for t in d if t["topic"] == "el" for p in t["partitions"])))' <<<"$out") || return 1
    [ "$got" = "$1" ]
}
cl_freeze_broker "$frozen"
gr_wait_until "$CL_WAIT_S" "el-0..2 under-replicated (broker $frozen frozen)" under_replicated_is "el-0 el-1 el-2"
ga "$ctl" topics describe --under-replicated-partitions
[ "$rc" = 0 ] || gr_fail "describe --under-replicated-partitions: exit $rc ($err)"
[ "$(grep -c '^el ' <<<"$out")" = 3 ] || gr_fail "under-replicated table: '$out'"
grep -q '^TOPIC  *PARTITION  *LEADER  *REPLICAS  *ISR' <<<"$out" || gr_fail "under-replicated table headers: '$out'"

# solo-0's only replica is on the frozen broker (2, or whichever is frozen):
# unavailable once its session expires, unless it is broker 2 itself that
# is not frozen.
if [ "$frozen" = 2 ]; then
    # shellcheck disable=SC2317
    solo_unavailable()
    {
        ga "$ctl" topics describe --unavailable-partitions
        [ "$rc" = 0 ] && grep -q '^solo  *0  *Offline  *2 ' <<<"$out"
    }
    gr_wait_until "$CL_WAIT_S" "solo-0 listed unavailable (Offline)" solo_unavailable
    gr_note "describe --unavailable-partitions: $(tail -n 1 <<<"$out")"
else
    ga "$ctl" topics describe --unavailable-partitions
    grep -q '^solo ' <<<"$out" && gr_fail "solo-0 (on live broker 2) listed unavailable: '$out'"
fi

cl_thaw_broker "$frozen"
GR_BOOTSTRAP=$(cl_bootstrap)
cl_wait_stable "broker $frozen thawed"
gr_wait_until "$CL_WAIT_S" "no partition under-replicated" under_replicated_is ""
# shellcheck disable=SC2317
none_unavailable() { ga "$ctl" topics describe --unavailable-partitions && [ "$rc" = 0 ] && [ -z "$out" ]; }
gr_wait_until "$CL_WAIT_S" "no partition unavailable" none_unavailable
gr_pass
