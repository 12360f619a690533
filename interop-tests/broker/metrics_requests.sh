#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Request and topic metrics on /metrics: producing 10 records (in two
# producer runs) raises messagesin for that topic by exactly 10 and bytesin
# by exactly the bytes the log grew; requests_total, the time summaries and
# the request-time histogram count Produce; a consumer raises bytesout and
# totalfetchrequests; error codes of every API's responses are counted
# (a DescribeConfigs error); the loop's idle ratio is within 0..1; the page passes
# promtool check metrics.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
command -v curl >/dev/null || { gr_note "no curl: skipped"; exit 77; }
command -v promtool >/dev/null || { gr_note "no promtool: skipped"; exit 77; }

GR_HTTP=1
gr_start_broker
gr_wait_broker_started

TOPIC=metrics-req
SEGMENT=$GR_TMP/logs/$TOPIC-0/00000000000000000000.log

# value NAME{LABELS}: the sample's value on the last page read, 0 when absent.
value() { awk -v k="$1" '$1 == k { v = $2 } END { print (v == "" ? 0 : v) }' "$GR_TMP/page.txt"; }
# produce_requests: the sum of Produce's requests_total over its versions.
produce_requests() {
    awk -F'[ ]' '/^kafka_network_requestmetrics_requests_total\{request="Produce",/ { n += $2 }
        END { print n + 0 }' "$GR_TMP/page.txt"
}
scrape() { gr_http_get /metrics >"$GR_TMP/page.txt"; }
produce() { gr_kcat -P -t "$TOPIC" -p 0 -X linger.ms=100; }

printf 'warm\n' | produce # creates the topic
scrape
in0=$(value "kafka_server_brokertopicmetrics_messagesin_total{topic=\"$TOPIC\"}")
bytes0=$(value "kafka_server_brokertopicmetrics_bytesin_total{topic=\"$TOPIC\"}")
all0=$(value kafka_server_brokertopicmetrics_messagesin_total)
size0=$(stat -c %s "$SEGMENT")
[ "$in0" = 1 ] || gr_fail "messagesin after one record: $in0"
[ "$bytes0" = "$size0" ] || gr_fail "bytesin $bytes0 is not the log's $size0 bytes"
produce0=$(produce_requests)
hist0=$(value 'gregor_request_total_time_seconds_count{request="Produce"}')

seq 1 5 | produce
seq 6 10 | produce
scrape
in1=$(value "kafka_server_brokertopicmetrics_messagesin_total{topic=\"$TOPIC\"}")
bytes1=$(value "kafka_server_brokertopicmetrics_bytesin_total{topic=\"$TOPIC\"}")
all1=$(value kafka_server_brokertopicmetrics_messagesin_total)
size1=$(stat -c %s "$SEGMENT")
[ $((in1 - in0)) = 10 ] || gr_fail "messagesin rose by $((in1 - in0)), not 10"
[ $((all1 - all0)) = 10 ] || gr_fail "all-topics messagesin rose by $((all1 - all0)), not 10"
[ $((bytes1 - bytes0)) = $((size1 - size0)) ] ||
    gr_fail "bytesin rose by $((bytes1 - bytes0)), the log by $((size1 - size0))"
produce1=$(produce_requests)
[ "$produce1" -ge $((produce0 + 2)) ] || gr_fail "Produce requests: $produce0 -> $produce1"
hist1=$(value 'gregor_request_total_time_seconds_count{request="Produce"}')
[ "$hist1" -ge $((hist0 + 2)) ] || gr_fail "the Produce histogram counted $hist0 -> $hist1"
inf=$(value 'gregor_request_total_time_seconds_bucket{request="Produce",le="+Inf"}')
[ "$inf" = "$hist1" ] || gr_fail "the +Inf bucket ($inf) is not the count ($hist1)"
grep -q '^kafka_network_requestmetrics_totaltimems{request="Produce",quantile="0.99"} ' \
    "$GR_TMP/page.txt" || gr_fail "no Produce p99 total time"
grep -q '^kafka_network_requestmetrics_errors_total{request="Produce",error="NONE"} ' \
    "$GR_TMP/page.txt" || gr_fail "no Produce NONE error count"
grep -q '^kafka_server_socketservermetrics_connection_creation_total{listener="PLAINTEXT"} ' \
    "$GR_TMP/page.txt" || gr_fail "no connection creation count for the listener"

# Every API's error codes are counted from its response, not only Produce's
# and Fetch's: DescribeConfigs of a topic that does not exist answers
# UNKNOWN_TOPIC_OR_PARTITION in its result.
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
"$ADMIN" --bootstrap-server "127.0.0.1:$GR_PORT" configs describe --entity-type topics \
    --entity-name no-such-topic >/dev/null 2>&1 || true
gr_kcat -C -t "$TOPIC" -p 0 -o beginning -c 11 -e >/dev/null
scrape
grep -q '^kafka_network_requestmetrics_errors_total{request="DescribeConfigs",error="UNKNOWN_TOPIC_OR_PARTITION"} 1$' \
    "$GR_TMP/page.txt" || gr_fail "the DescribeConfigs error was not counted"
grep -q '^kafka_network_requestmetrics_errors_total{request="Fetch",error="NONE"} ' \
    "$GR_TMP/page.txt" || gr_fail "no Fetch NONE error count"
out=$(value "kafka_server_brokertopicmetrics_bytesout_total{topic=\"$TOPIC\"}")
[ "$out" -ge "$size1" ] || gr_fail "bytesout $out after reading the whole $size1-byte log"
fetches=$(value "kafka_server_brokertopicmetrics_totalfetchrequests_total{topic=\"$TOPIC\"}")
[ "$fetches" -ge 1 ] || gr_fail "no fetch counted for the topic"
idle=$(value kafka_network_socketserver_networkprocessoravgidle_percent)
awk -v r="$idle" 'BEGIN { exit !(r >= 0 && r <= 1) }' || gr_fail "idle ratio $idle outside 0..1"

promtool check metrics <"$GR_TMP/page.txt" >&2 || gr_fail "promtool check metrics fails"
gr_alive "$GR_PID" || gr_fail "the broker died"
gr_pass
