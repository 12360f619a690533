#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A real Prometheus server scrapes the three brokers of a cluster (each with
# gregor.http.listener on its own port), and its HTTP API shows:
#  - exactly one active controller: sum(activecontrollercount) == 1;
#  - a group whose coordinator holds no replica of the partition it
#    committed on (the coordinator asks the partition's leader with
#    ListOffsets) has lag produced - committed, reported by one broker only;
#  - a follower of an RF-3 topic stopped with SIGSTOP makes
#    sum(underreplicatedpartitions) > 0, and it is back to 0 once the
#    follower runs again (SIGCONT) and rejoins the ISR.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
source "$(dirname "$0")/../lib/promlib.sh"
cl_require
pl_require
rf3=replicated
lagged=lagged
group=remote-lag
produced=12
committed=5

declare -a HTTP_PORT=()
for i in 0 1 2; do HTTP_PORT[i]=$(gr_free_port); done
cl_broker_overrides() { echo "gregor.http.listener=http://127.0.0.1:${HTTP_PORT[$1]}"; }

pl_start_prometheus "127.0.0.1:${HTTP_PORT[0]}" "127.0.0.1:${HTTP_PORT[1]}" "127.0.0.1:${HTTP_PORT[2]}"
cl_start_cluster 3 replica.lag.time.max.ms=2000 replica.fetch.backoff.ms=100
pl_wait 30 'count(up{job="gregor"} == 1)' == 3
pl_wait 20 'sum(kafka_controller_kafkacontroller_activecontrollercount)' == 1

# --- lag through ListOffsets: the coordinator has no replica of the partition
coordinator_known()
{
    local err
    read -r err coordinator <<<"$(cl_state 0 coordinator $group)"
    [ "$err" = 0 ]
}
gr_wait_until "$CL_WAIT_S" "a coordinator for $group" coordinator_known
leader=$(((coordinator + 1) % 3))
gr_note "group $group: coordinator $coordinator; $lagged led by broker $leader alone"
cl_create_assigned 0 $lagged "$leader"
got=$(cl_state "$leader" produce $lagged 0 -1 $produced) || gr_fail "produce got no answer"
[ "$got" = "0 0" ] || gr_fail "producing $produced records to $lagged answered '$got', want '0 0'"

"$GR_PYTHON" - "$GR_BOOTSTRAP" $lagged $group $committed <<'EOF' || gr_fail "commit failed"
import sys
from kafka import KafkaConsumer, TopicPartition
from kafka.structs import OffsetAndMetadata
bootstrap, topic, group, offset = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
consumer = KafkaConsumer(bootstrap_servers=bootstrap.split(","), group_id=group,
                         enable_auto_commit=False)
tp = TopicPartition(topic, 0)
consumer.assign([tp])
consumer.commit({tp: OffsetAndMetadata(offset, "")})
consumer.close()
EOF

want=$((produced - committed))
lag_of="kafka_consumergroup_lag_sum{consumergroup=\"$group\",topic=\"$lagged\"}"
pl_wait 30 "sum($lag_of)" == $want
pl_wait 5 "count($lag_of)" == 1
pl_wait 5 "$lag_of and on(instance) up{instance=\"127.0.0.1:${HTTP_PORT[$coordinator]}\"}" == $want
pl_wait 5 "sum(kafka_consumergroup_lag_stable{consumergroup=\"$group\",topic=\"$lagged\"})" == $want

# --- under-replicated partitions while a follower is stopped
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $rf3 1 3) || gr_fail "admin create failed: $out"
[ "$out" = "$rf3 NO_ERROR" ] || gr_fail "creating $rf3: $out"
cl_wait_all_led $rf3 1
gr_wait_until "$CL_WAIT_S" "an ISR of 3" cl_isr_size_is $rf3 3
pl_wait 20 'sum(kafka_server_replicamanager_underreplicatedpartitions)' == 0
# A follower that is not the controller: the controller stays, so does its count.
rf3_leader=$(cl_state 0 isr $rf3 | awk '$1 == 0 { print $2 }')
controller=$(cl_controller 0)
follower=
for i in 0 1 2; do
    if [ "$i" != "$rf3_leader" ] && [ "$i" != "$controller" ]; then follower=$i; fi
done
gr_note "$rf3 led by $rf3_leader, controller $controller; stopping follower $follower"
cl_freeze_broker "$follower"
pl_wait 30 'sum(kafka_server_replicamanager_underreplicatedpartitions)' '>' 0
cl_thaw_broker "$follower"
pl_wait 60 'sum(kafka_server_replicamanager_underreplicatedpartitions)' == 0
pl_wait 30 'count(up{job="gregor"} == 1)' == 3
gr_pass
