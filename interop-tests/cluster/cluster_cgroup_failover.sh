#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A KIP-848 consumer group survives its coordinator's death (SIGKILL) on a
# 3-broker cluster with __consumer_offsets replicated 3 times: two members
# join and reconcile through the coordinator (py/cgroup_restart_raw.py
# before); each heartbeat that changed the group was answered only once the
# ISR had its ConsumerGroup* records. After the kill, the broker that
# FindCoordinator names next replays them: the members heartbeat there at
# the epochs they had and keep their partitions, the group epoch unchanged
# (cgroup_restart_raw.py after).
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
OFFSETS_PARTS=3
topic=cgfail

cl_start_cluster 3 offsets.topic.num.partitions=$OFFSETS_PARTS offsets.topic.replication.factor=3 \
    replica.lag.time.max.ms=10000
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic 2 3) || gr_fail "admin create failed: $out"
[ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"
cl_wait_all_led $topic 2

# shellcheck disable=SC2317
coordinator_found() { [ "$(cl_state "$CL_CONTROLLER" coordinator "$1" 2>/dev/null | cut -d' ' -f1)" = 0 ]; }
gr_wait_until "$CL_WAIT_S" "FindCoordinator to succeed (__consumer_offsets created)" coordinator_found probe
cl_wait_all_led __consumer_offsets $OFFSETS_PARTS

# A group coordinated by a broker other than the controller.
group='' victim=''
for ((n = 0; n < 200; n++)); do
    node=$(cl_state "$CL_CONTROLLER" coordinator "cgroup-$n" | awk '$1 == 0 { print $2 }')
    if [ -n "$node" ] && [ "$node" != "$CL_CONTROLLER" ]; then
        group=cgroup-$n victim=$node
        break
    fi
done
[ -n "$group" ] || gr_fail "no group coordinated by another broker than the controller $CL_CONTROLLER"
gr_note "group $group: coordinator broker $victim (controller $CL_CONTROLLER)"

export GR_TMP
"$GR_PYTHON" "$GR_INTEROP_DIR/py/cgroup_restart_raw.py" 127.0.0.1 "${CL_PORT[$victim]}" $topic before "$group" ||
    gr_fail "joining through coordinator $victim"

cl_kill9_broker "$victim"
# shellcheck disable=SC2317
coordinator_moved() # every live broker names one live broker, not the victim
{
    local i got first=""
    for i in $(cl_live); do
        got=$(cl_state "$i" coordinator "$group" 2>/dev/null) || return 1
        [ -n "$first" ] || first=$got
        [ "$got" = "$first" ] || return 1
    done
    [[ $first =~ ^0\ ([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" != "$victim" ] &&
        [[ " $(cl_live) " == *" ${BASH_REMATCH[1]} "* ]] || return 1
    new_coordinator=${BASH_REMATCH[1]}
}
gr_wait_until "$CL_WAIT_S" "FindCoordinator($group) to name a live broker other than $victim" coordinator_moved
gr_note "group $group now coordinated by broker $new_coordinator"
# (Retried while the new coordinator still replays: its describe answers
# COORDINATOR_LOAD_IN_PROGRESS until then.)
deadline=$((SECONDS + CL_WAIT_S))
until out=$("$GR_PYTHON" "$GR_INTEROP_DIR/py/cgroup_restart_raw.py" 127.0.0.1 \
    "${CL_PORT[$new_coordinator]}" $topic after "$group" 2>&1); do
    [ $SECONDS -lt $deadline ] || gr_fail "after the failover, on broker $new_coordinator: $out"
    sleep 0.5
done
gr_pass
