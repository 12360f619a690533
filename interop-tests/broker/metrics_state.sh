#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# /metrics on a single broker shows its cluster state under Kafka's names:
# the partitions it holds and leads equal those created, none
# under-replicated or offline, one active controller (itself); a
# partition's log size and end offset grow with a produce; no ZooKeeper
# session families (there is no ZooKeeper); a consumer group that joins is
# counted by the group coordinator; promtool accepts the page.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
command -v curl >/dev/null || { gr_note "no curl: skipped"; exit 77; }
command -v promtool >/dev/null || { gr_note "no promtool: skipped"; exit 77; }

GR_HTTP=1
gr_start_broker num.partitions=3
gr_wait_broker_started

# value SERIES: its value on a fresh page ("" when absent).
value()
{
    gr_http_get /metrics | awk -v s="$1" '$1 == s { print $2; found = 1 } END { exit !found }' || true
}
is() { [ "$(value "$1")" = "$2" ]; }

gr_kcat -P -t ms -p 0 <<<"one"
gr_wait_until 30 "partitioncount 3" is kafka_server_replicamanager_partitioncount 3
is kafka_server_replicamanager_leadercount 3 || gr_fail "leadercount $(value kafka_server_replicamanager_leadercount), want 3"
is kafka_server_replicamanager_underreplicatedpartitions 0 || gr_fail "under-replicated partitions"
is kafka_controller_kafkacontroller_activecontrollercount 1 || gr_fail "activecontrollercount is not 1"
is kafka_controller_kafkacontroller_offlinepartitionscount 0 || gr_fail "offline partitions"
is kafka_controller_kafkacontroller_globalpartitioncount 3 || gr_fail "globalpartitioncount is not 3"
! gr_http_get /metrics | grep -q sessionexpirelistener || gr_fail "ZooKeeper families without ZooKeeper"

size_p0='kafka_log_log_size{topic="ms",partition="0"}'
end_p0='kafka_log_log_logendoffset{topic="ms",partition="0"}'
before=$(value "$size_p0")
if [ -z "$before" ] || [ "$before" -le 0 ]; then gr_fail "log size of ms-0 after a produce: '$before'"; fi
is "$end_p0" 1 || gr_fail "log end offset of ms-0: $(value "$end_p0"), want 1"
seq 1 50 | gr_kcat -P -t ms -p 0
after=$(value "$size_p0")
[ "$after" -gt "$before" ] || gr_fail "log size of ms-0 did not grow: $before then $after"
is "$end_p0" 51 || gr_fail "log end offset of ms-0: $(value "$end_p0"), want 51"

# A consumer group joins (kcat -G keeps running): the coordinator counts it.
gr_kcat -G ms-group -q ms >/dev/null 2>&1 &
consumer=$!
gr_track "$consumer"
gr_wait_until 60 "the group to be stable" is kafka_coordinator_group_groupmetadatamanager_numgroupsstable 1
is kafka_coordinator_group_groupmetadatamanager_numgroups 1 || gr_fail "numgroups is not 1"
is 'kafka_server_group_coordinator_metrics_groups{protocol="classic"}' 1 ||
    gr_fail "classic groups is not 1"
gr_kill_tree "$consumer"

gr_http_get /metrics >"$GR_TMP/metrics.txt"
promtool check metrics <"$GR_TMP/metrics.txt" >&2 || gr_fail "promtool check metrics fails"
gr_alive "$GR_PID" || gr_fail "the broker died"
gr_pass
