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
# Meanwhile @platformatic/kafka consumers with groupProtocol 'consumer'
# (js/platformatic/cgroup.mjs churn) share a topic replicated three times,
# under another group of the same coordinator, joining and leaving while
# records are produced; the kill lands in the middle of their run: every
# record is consumed, and the group's committed offsets end at the
# partitions' ends.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
source "$(dirname "$0")/../lib/platformaticlib.sh"
cl_require
pk_require
churn_topic=cgfail_churn
OFFSETS_PARTS=3
topic=cgfail

cl_start_cluster 3 offsets.topic.num.partitions=$OFFSETS_PARTS offsets.topic.replication.factor=3 \
    replica.lag.time.max.ms=10000 group.consumer.min.heartbeat.interval.ms=100 \
    group.consumer.heartbeat.interval.ms=300
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
churn_group=''
for ((n = 0; n < 200; n++)); do
    node=$(cl_state "$CL_CONTROLLER" coordinator "pk-churn-$n" | awk '$1 == 0 { print $2 }')
    if [ "$node" = "$victim" ]; then churn_group=pk-churn-$n && break; fi
done
[ -n "$churn_group" ] || gr_fail "no other group coordinated by broker $victim"
gr_note "groups $group and $churn_group: coordinator broker $victim (controller $CL_CONTROLLER)"

export GR_TMP
"$GR_PYTHON" "$GR_INTEROP_DIR/py/cgroup_restart_raw.py" 127.0.0.1 "${CL_PORT[$victim]}" $topic before "$group" ||
    gr_fail "joining through coordinator $victim"

churn_out=$GR_TMP/churn.out
# The clients retry every 100 ms for up to 20 s: the killed broker's partitions
# move once its ZooKeeper session expires.
PK_RETRIES=200 PK_TIMEOUT_S=90 pk_run cgroup churn --group "$churn_group" --topic $churn_topic --members 3 \
    --partitions 3 --replicas 3 --records 300 --pause-ms 400 >"$churn_out" 2>&1 &
churn_pid=$!
# shellcheck disable=SC2317
churn_at_round() { grep -q "round $1 produced" "$churn_out" || ! gr_alive "$churn_pid"; }
gr_wait_until 60 "the consumers' fourth round" churn_at_round 3
gr_alive "$churn_pid" || gr_fail "cgroup.mjs churn ended early: $(tail -n 20 "$churn_out")"

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

rc=0
wait "$churn_pid" || rc=$?
gr_note "$(cat "$churn_out")"
[ $rc = 0 ] || gr_fail "cgroup.mjs churn across the coordinator's kill failed (status $rc): $(tail -n 5 "$churn_out")"
tail -n 1 "$churn_out" | grep -q '"ok":true' || gr_fail "churn summary not ok: $(tail -n 1 "$churn_out")"
gr_pass
