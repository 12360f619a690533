#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# max.connections with the inter-broker listener protected, and
# max.connection.creation.rate delaying rather than refusing. Two listeners,
# INTERNAL (inter-broker) and EXTERNAL; EXTERNAL limited to 10 new
# connections a second; max.connections=30. A flood of 60 connections on
# EXTERNAL: the broker accepts exactly 30 of them, the first ones throttled
# (gregor_connections_throttled_total rises, none refused), the rest wait in
# the backlog (AcceptorBlockedPercent above 0). A client on INTERNAL is
# still served; once the flood goes, EXTERNAL serves clients again.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor

MAX=30
FLOOD=60
RATE=10
GR_HTTP=1
GR_PORT=$(gr_free_port)
ext_port=$(gr_free_port)
gr_start_broker "listeners=INTERNAL://127.0.0.1:$GR_PORT,EXTERNAL://127.0.0.1:$ext_port" \
    "listener.security.protocol.map=INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT" \
    inter.broker.listener.name=INTERNAL max.connections=$MAX \
    listener.name.external.max.connection.creation.rate=$RATE
gr_wait_broker_started
ext=127.0.0.1:$ext_port

metric() # NAME LISTENER
{
    gr_http_get /metrics | awk -v m="$1{listener=\"$2\"}" '$1 == m { print $2 }'
}
"$GR_PYTHON" "$GR_INTEROP_DIR/py/conn_flood.py" 127.0.0.2 127.0.0.1 "$ext_port" $FLOOD -1 \
    "$GR_TMP/ready" "$GR_TMP/stop" >"$GR_TMP/flood.out" 2>&1 &
holder=$!
gr_track $holder
gr_wait_until 30 "the flood to connect" test -e "$GR_TMP/ready"
at_max() { [ "$(metric kafka_server_socketservermetrics_connections EXTERNAL)" = $MAX ]; }
gr_wait_until 30 "EXTERNAL to hold max.connections" at_max

# The inter-broker listener accepts past max.connections.
out=$(gr_kcat -L) || gr_fail "a metadata request on INTERNAL failed at max.connections"
grep -q "broker 0 at" <<<"$out" || gr_fail "INTERNAL answered: $out"
gr_wait_until 30 "EXTERNAL back at max.connections" at_max
n=$(metric kafka_server_socketservermetrics_connections EXTERNAL)
[ "$n" -le $MAX ] || gr_fail "EXTERNAL holds $n connections, above max.connections=$MAX"

throttled=$(metric gregor_connections_throttled_total EXTERNAL)
[ "${throttled:-0}" -gt 0 ] || gr_fail "no accept throttled on EXTERNAL"
[ "$(metric gregor_connections_refused_total EXTERNAL)" = 0 ] || gr_fail "connections refused"
blocked=$(metric kafka_network_acceptor_acceptorblocked_percent EXTERNAL)
awk -v b="${blocked:-0}" 'BEGIN { exit !(b > 0) }' || gr_fail "AcceptorBlockedPercent is '$blocked'"
avg=$(metric kafka_server_socketservermetrics_connection_accept_throttle_time EXTERNAL)
awk -v a="${avg:-0}" 'BEGIN { exit !(a > 0) }' || gr_fail "connection-accept-throttle-time is '$avg'"
[ "$(metric gregor_connections_throttled_total INTERNAL)" = 0 ] || gr_fail "INTERNAL throttled"
if command -v promtool >/dev/null; then
    gr_http_get /metrics | promtool check metrics >&2 || gr_fail "promtool check metrics fails"
fi

touch "$GR_TMP/stop"
wait $holder || gr_fail "the flood failed: $(cat "$GR_TMP/flood.out")"
out=$(timeout 30 "$GR_KCAT" -b "$ext" -L -m 20) || gr_fail "EXTERNAL does not serve after the flood"
grep -q "broker 0 at" <<<"$out" || gr_fail "EXTERNAL answered: $out"
gr_alive "$GR_PID" || gr_fail "the broker died"
gr_pass
