#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Dynamic broker configs (KIP-226) on a 3-broker cluster, without a restart:
# a cluster default (gregor-admin configs --entity-type brokers
# --entity-default, through broker 0) lands in /config/brokers/<default> and
# every broker applies it to a topic without overrides (DescribeConfigs of
# the topic on each broker: retention.ms from DYNAMIC_DEFAULT_BROKER_CONFIG);
# a value for broker 1 (gregor-admin asks broker 1 itself, as Kafka's admin
# client does) lands in /config/brokers/1 and wins there only; removing it gives broker 1 the
# default back. An alter writes over the stored document: keys another
# broker wrote meanwhile stay. num.replica.fetchers=2 set live splits broker
# 1's partitions followed from broker 0 over two fetchers (one more
# connection from broker 1 to broker 0), and back to 1 closes it; the
# replicas still hold the same bytes.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"
TOPIC=dyn
BROKERS=$CL_ZK_CHROOT/config/brokers

cl_start_cluster 3
[ "$(cl_state 0 create $TOPIC 3 1)" = 0 ] || gr_fail "creating $TOPIC failed"
cl_wait_all_led $TOPIC 3

brokers_alter()
{
    "$ADMIN" --bootstrap-server "$(cl_addr 0)" configs --alter --entity-type brokers "$@" \
        >"$GR_TMP/cli.out" 2>&1 || gr_fail "configs --alter $*: $(cat "$GR_TMP/cli.out")"
}
# shellcheck disable=SC2317
retention_is() # BROKER VALUE SOURCE: the topic's retention.ms as that broker describes it
{
    local got
    got=$("$ADMIN" --bootstrap-server "$(cl_addr "$1")" configs describe --topic $TOPIC --json 2>/dev/null |
        "$GR_PYTHON" -c "import json,sys; print(*[c['value'] + ' ' + c['source'] for c in json.load(sys.stdin) if c['name']=='retention.ms'])") ||
        return 1
    [ "$got" = "$2 $3" ]
}

brokers_alter --entity-default --add-config log.retention.ms=3600000
doc=$(cl_zk get "$BROKERS/<default>") || gr_fail "no $BROKERS/<default>"
grep -q '"log.retention.ms":"3600000"' <<<"$doc" || gr_fail "$BROKERS/<default> holds '$doc'"
for i in 0 1 2; do
    gr_wait_until "$CL_WAIT_S" "broker $i applying the default" retention_is "$i" 3600000 DYNAMIC_DEFAULT_BROKER_CONFIG
done

# Another broker's write whose notification has not come yet (written here
# straight into the znode): an alter through broker 0 builds on the stored
# document, so that key stays.
cl_zk set "$BROKERS/<default>" '{"version":1,"config":{"log.retention.ms":"3600000","message.max.bytes":"1500000"}}' >/dev/null ||
    gr_fail "zkCli set $BROKERS/<default> failed: $(tail -n 3 "$GR_TMP/zkcli.err")"
brokers_alter --entity-default --add-config log.segment.bytes=2097152
doc=$(cl_zk get "$BROKERS/<default>") || gr_fail "no $BROKERS/<default>"
grep -q '"message.max.bytes":"1500000"' <<<"$doc" ||
    gr_fail "an alter dropped a key it did not touch: $BROKERS/<default> holds '$doc'"
grep -q '"log.segment.bytes":"2097152"' <<<"$doc" || gr_fail "$BROKERS/<default> holds '$doc'"

brokers_alter --entity-name 1 --add-config log.retention.ms=7200000
doc=$(cl_zk get "$BROKERS/1") || gr_fail "no $BROKERS/1"
grep -q '"log.retention.ms":"7200000"' <<<"$doc" || gr_fail "$BROKERS/1 holds '$doc'"
gr_wait_until "$CL_WAIT_S" "broker 1 applying its own value" retention_is 1 7200000 DYNAMIC_BROKER_CONFIG
retention_is 0 3600000 DYNAMIC_DEFAULT_BROKER_CONFIG || gr_fail "broker 0 took broker 1's value"
retention_is 2 3600000 DYNAMIC_DEFAULT_BROKER_CONFIG || gr_fail "broker 2 took broker 1's value"

brokers_alter --entity-name 1 --delete-config log.retention.ms
gr_wait_until "$CL_WAIT_S" "broker 1 back to the default" retention_is 1 3600000 DYNAMIC_DEFAULT_BROKER_CONFIG

# Partitions 0..3 led by broker 0 and followed by broker 1: with two
# fetchers, consecutive partitions go to different ones.
cl_create_assigned 0 rep 0,1/0,1/0,1/0,1
gr_wait_until "$CL_WAIT_S" "an ISR of 2 for rep (no AlterPartition left to open a channel)" \
    cl_isr_size_is rep 2
conns_1_to_0() { ss -Htnp state established "( dport = :${CL_PORT[0]} )" | grep -c "pid=${CL_PID[1]},"; }
conns_are() { [ "$(conns_1_to_0)" = "$1" ]; }
cl_seq_produce rep 200 "$GR_TMP/acked1"
gr_wait_until 30 "the replicas of rep to hold the same bytes" cl_replicas_equal rep 4 0 1
before=$(conns_1_to_0); gr_note "$before connection(s) from broker 1 to broker 0"
brokers_alter --entity-name 1 --add-config num.replica.fetchers=2
gr_wait_until "$CL_WAIT_S" "a second fetcher from broker 1 to broker 0" conns_are $((before + 1))
cl_seq_produce rep 200 "$GR_TMP/acked2"
gr_wait_until 30 "the replicas of rep to hold the same bytes with 2 fetchers" cl_replicas_equal rep 4 0 1
brokers_alter --entity-name 1 --add-config num.replica.fetchers=1
gr_wait_until "$CL_WAIT_S" "broker 1 back to one fetcher from broker 0" conns_are "$before"
cl_seq_produce rep 200 "$GR_TMP/acked3"
gr_wait_until 30 "the replicas of rep to hold the same bytes with 1 fetcher" cl_replicas_equal rep 4 0 1
gr_pass
