#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A real Prometheus server scrapes one broker's /metrics (gregor.http.listener)
# every second, and its HTTP API shows what an operator would chart:
#  - the page passes `promtool check metrics`, and the alert rules of
#    docs/prometheus/gregor-alerts.yml pass `promtool check rules`;
#  - kafka_server_brokertopicmetrics_messagesin_total{topic} rises by the
#    records produced;
#  - a group that consumed and committed M of N records has
#    kafka_consumergroup_lag_sum == N - M (and lag_stable the same, with no
#    transaction open), current_offset == M, and no members (commit-only).
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/promlib.sh"
gr_require_gregor
pl_require
topic=scraped
group=scrape-lag
produced=25
committed=10

"$PL_PROMTOOL" check rules "$GR_INTEROP_DIR/../docs/prometheus/gregor-alerts.yml" >/dev/null ||
    gr_fail "promtool check rules docs/prometheus/gregor-alerts.yml failed"

http_port=$(gr_free_port)
pl_start_prometheus "127.0.0.1:$http_port"
gr_start_broker "gregor.http.listener=http://127.0.0.1:$http_port" group.initial.rebalance.delay.ms=0
gr_wait_broker_started
gr_wait_until 20 "/metrics on port $http_port" curl -sf -o /dev/null "http://127.0.0.1:$http_port/metrics"

out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic 1 1) || gr_fail "admin create failed: $out"
[ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"

pl_wait 20 'up{job="gregor"}' == 1

seq 1 $produced | gr_kcat -P -t $topic -p 0 -X acks=all || gr_fail "kcat produce failed"
pl_wait 20 "kafka_server_brokertopicmetrics_messagesin_total{topic=\"$topic\"}" == $produced

# Consume M records and commit offset M as the group (no rebalance: assigned by hand).
"$GR_PYTHON" - "$GR_BOOTSTRAP" $topic $group $committed <<'EOF' || gr_fail "consume and commit failed"
import sys
from kafka import KafkaConsumer, TopicPartition
from kafka.structs import OffsetAndMetadata
bootstrap, topic, group, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False,
                         max_poll_records=count, auto_offset_reset="earliest")
tp = TopicPartition(topic, 0)
consumer.assign([tp])
seen = []
for _ in range(200):
    for records in consumer.poll(timeout_ms=100, max_records=count - len(seen)).values():
        seen.extend(records)
    if len(seen) >= count:
        break
if len(seen) != count:
    sys.exit("consumed %d records, want %d" % (len(seen), count))
consumer.commit({tp: OffsetAndMetadata(seen[-1].offset + 1, "")})
consumer.close()
EOF

want=$((produced - committed))
pl_wait 20 "kafka_consumergroup_lag_sum{consumergroup=\"$group\",topic=\"$topic\"}" == $want
pl_wait 5 "kafka_consumergroup_lag{consumergroup=\"$group\",topic=\"$topic\",partition=\"0\"}" == $want
pl_wait 5 "kafka_consumergroup_lag_stable{consumergroup=\"$group\",topic=\"$topic\",partition=\"0\"}" == $want
pl_wait 5 "kafka_consumergroup_current_offset{consumergroup=\"$group\",topic=\"$topic\",partition=\"0\"}" == $committed
pl_wait 5 "kafka_consumergroup_members{consumergroup=\"$group\"}" == 0

# The page as Prometheus reads it, checked by its own linter.
curl -sf "http://127.0.0.1:$http_port/metrics" >"$GR_TMP/metrics.txt" || gr_fail "GET /metrics failed"
"$PL_PROMTOOL" check metrics <"$GR_TMP/metrics.txt" >"$GR_TMP/promtool.out" 2>&1 || {
    cat "$GR_TMP/promtool.out" >&2
    gr_fail "promtool check metrics found problems in /metrics"
}
gr_pass
