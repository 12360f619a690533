#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# /metrics of a 3-broker cluster (each broker's HTTP listener on its own
# port) follows the cluster's state, for a topic replicated on all three:
#  - one active controller over the brokers (the counts sum to 1), the
#    partition led, nothing under-replicated, every ZooKeeper session
#    CONNECTED;
#  - a follower frozen (SIGSTOP; not the controller, which the leader's ISR
#    change goes through) and records produced: the leader reports the
#    partition under-replicated and counts an ISR shrink; frozen until
#    ZooKeeper expires its session;
#  - thawed (SIGCONT): it counts the expiry and is CONNECTED again, catches
#    up, and the leader counts an ISR expansion and nothing under-replicated;
#  - promtool accepts the pages.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
command -v curl >/dev/null || { gr_note "no curl: skipped"; exit 77; }
command -v promtool >/dev/null || { gr_note "no promtool: skipped"; exit 77; }
topic=metrics

declare -a HTTP_PORT
for i in 0 1 2; do HTTP_PORT[i]=$(gr_free_port); done
cl_broker_overrides() { echo "gregor.http.listener=http://127.0.0.1:${HTTP_PORT[$1]}"; }

# value BROKER SERIES: the series' value on that broker's page ("" when absent).
value()
{
    curl -sS --max-time 10 "http://127.0.0.1:${HTTP_PORT[$1]}/metrics" |
        awk -v s="$2" '$1 == s { print $2; found = 1 } END { exit !found }' || true
}
is() { [ "$(value "$1" "$2")" = "$3" ]; }
above() { local v; v=$(value "$1" "$2"); [ -n "$v" ] && [ "$v" -gt "$3" ]; }
URP=kafka_server_replicamanager_underreplicatedpartitions
SHRINKS=kafka_server_replicamanager_isrshrinks_total
EXPANDS=kafka_server_replicamanager_isrexpands_total
CONNECTED='kafka_server_sessionexpirelistener_sessionstate{state="CONNECTED"}'
EXPIRES=kafka_server_sessionexpirelistener_zookeeperexpires_total

cl_start_cluster 3 replica.lag.time.max.ms=2000 replica.fetch.backoff.ms=100
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic 1 3) || gr_fail "admin create failed: $out"
[ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"
cl_wait_all_led $topic 1
gr_wait_until "$CL_WAIT_S" "an ISR of 3" cl_isr_size_is $topic 3
leader=$(cl_state 0 isr $topic | awk '$1 == 0 { print $2 }')
follower=$(cl_live | tr ' ' '\n' | grep -vx "$leader" | grep -vx "$CL_CONTROLLER" | head -n 1)
gr_note "leader $leader, controller $CL_CONTROLLER, follower to freeze $follower"

controllers=0
for i in 0 1 2; do
    c=$(value "$i" kafka_controller_kafkacontroller_activecontrollercount)
    controllers=$((controllers + c))
    is "$i" "$CONNECTED" 1 || gr_fail "broker $i: ZooKeeper session not CONNECTED"
done
[ "$controllers" = 1 ] || gr_fail "activecontrollercount sums to $controllers over the brokers"
is "$CL_CONTROLLER" kafka_controller_kafkacontroller_activebrokercount 3 ||
    gr_fail "the controller counts $(value "$CL_CONTROLLER" kafka_controller_kafkacontroller_activebrokercount) live brokers"
gr_wait_until 30 "the leader to report nothing under-replicated" is "$leader" "$URP" 0
is "$leader" kafka_server_replicamanager_leadercount 1 || gr_fail "the leader leads $(value "$leader" kafka_server_replicamanager_leadercount)"
shrinks=$(value "$leader" "$SHRINKS")
expands=$(value "$leader" "$EXPANDS")

cl_freeze_broker "$follower"
# Records the frozen follower lacks: only then is it out of sync (a follower
# that has the leader's whole log stays in the ISR, fetching or not).
got=$(cl_state "$leader" produce $topic 0 1 5) || gr_fail "acks=1 produce got no answer"
[ "${got%% *}" = 0 ] || gr_fail "acks=1 produce with a follower frozen answered '$got'"
gr_wait_until "$CL_WAIT_S" "the leader to report the partition under-replicated" above "$leader" "$URP" 0
gr_wait_until 30 "the leader to count an ISR shrink" above "$leader" "$SHRINKS" "$shrinks"
# shellcheck disable=SC2317
follower_expired() { ! grep -qw "$follower" <<<"$(cl_zk ls "$CL_ZK_CHROOT/brokers/ids" 2>/dev/null)"; }
gr_wait_until "$CL_WAIT_S" "ZooKeeper to expire broker $follower's session" follower_expired
curl -sS --max-time 10 "http://127.0.0.1:${HTTP_PORT[$leader]}/metrics" >"$GR_TMP/leader.txt"
promtool check metrics <"$GR_TMP/leader.txt" >&2 || gr_fail "promtool check metrics fails on the leader's page"
cl_thaw_broker "$follower"

gr_wait_until "$CL_WAIT_S" "broker $follower to count its session's expiry" above "$follower" "$EXPIRES" 0
gr_wait_until "$CL_WAIT_S" "broker $follower's session CONNECTED again" is "$follower" "$CONNECTED" 1
gr_wait_until "$CL_WAIT_S" "the leader to report nothing under-replicated again" is "$leader" "$URP" 0
gr_wait_until 30 "the leader to count an ISR expansion" above "$leader" "$EXPANDS" "$expands"
curl -sS --max-time 10 "http://127.0.0.1:${HTTP_PORT[$follower]}/metrics" >"$GR_TMP/follower.txt"
promtool check metrics <"$GR_TMP/follower.txt" >&2 || gr_fail "promtool check metrics fails on the follower's page"
gr_pass
