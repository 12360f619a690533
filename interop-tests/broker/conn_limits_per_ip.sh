#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# max.connections.per.ip and its overrides: 2,000 connections from 127.0.0.2
# leave exactly max.connections.per.ip of them open (the broker closes the
# rest right after accept, as Kafka does), 200 from 127.0.0.3 leave its
# override's count; meanwhile an idempotent acks=all producer on 127.0.0.1
# has every record acknowledged and read back in place, and
# gregor_connections_refused_total counts every refused connection. Then,
# changed live as dynamic broker configs (kafka-configs.sh --entity-default):
# max.connections.per.ip lowered to 3, a new flood keeps 3; raised to 8, it
# keeps 8; max.connections.per.ip.overrides 127.0.0.4:2, a flood from there
# keeps 2; max.connections 4, the broker holds 4 of a flood's 10 open (the
# rest wait in the backlog); max.connection.creation.rate 2, accepts are
# throttled (gregor_connections_throttled_total rises).
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor

PER_IP=20
OVERRIDE=5
FLOOD=2000
SMALL=200
N=3000
# The flood's own sockets (the broker needs only PER_IP of them).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
[ "$(ulimit -n)" -gt $((FLOOD + 100)) ] || { gr_note "ulimit -n too low: skipped"; exit 77; }
GR_HTTP=1
gr_start_broker max.connections.per.ip=$PER_IP \
    "max.connections.per.ip.overrides=127.0.0.3:$OVERRIDE, localhost:100" \
    socket.listen.backlog.size=4096
gr_wait_broker_started
gr_prog admin -b "$GR_BOOTSTRAP" create conn_flood 1 1 >/dev/null
port=${GR_BOOTSTRAP##*:}
flood() # SRC COUNT EXPECT TAG
{
    "$GR_PYTHON" "$GR_INTEROP_DIR/py/conn_flood.py" "$1" 127.0.0.1 "$port" "$2" "$3" \
        "$GR_TMP/ready.$4" "$GR_TMP/stop.$4" >"$GR_TMP/flood.$4" 2>&1
}

# Paced so that it runs through the floods (the pace is not asserted).
gr_prog seq_producer -b "$GR_BOOTSTRAP" -t conn_flood -n $N -r 1000 -o "$GR_TMP/acked" \
    >"$GR_TMP/producer.out" 2>&1 &
producer=$!
gr_track $producer

flood 127.0.0.2 $FLOOD $PER_IP big &
big=$!
gr_track $big
flood 127.0.0.3 $SMALL $OVERRIDE small &
small=$!
gr_track $small
gr_wait_until 60 "the floods to settle" test -e "$GR_TMP/ready.big" -a -e "$GR_TMP/ready.small"
grep -qx "open=$PER_IP closed=$((FLOOD - PER_IP))" "$GR_TMP/flood.big" ||
    gr_fail "127.0.0.2 (max.connections.per.ip=$PER_IP): $(cat "$GR_TMP/flood.big")"
grep -qx "open=$OVERRIDE closed=$((SMALL - OVERRIDE))" "$GR_TMP/flood.small" ||
    gr_fail "127.0.0.3 (override $OVERRIDE): $(cat "$GR_TMP/flood.small")"
gr_kcat -L >/dev/null || gr_fail "a metadata request from 127.0.0.1 failed during the flood"

refused() { gr_http_get /metrics | awk '/^gregor_connections_refused_total\{/ { n += $2 } END { print n + 0 }'; }
want=$((FLOOD - PER_IP + SMALL - OVERRIDE))
[ "$(refused)" = $want ] || gr_fail "gregor_connections_refused_total is $(refused), not $want"
if command -v promtool >/dev/null; then
    gr_http_get /metrics | promtool check metrics >&2 || gr_fail "promtool check metrics fails"
fi
grep -q "rejected connection from 127.0.0.2, address already has the configured maximum of $PER_IP" \
    "$GR_LOG" || gr_fail "no log line for the refused connections"

rc=0
wait $producer || rc=$?
out=$(cat "$GR_TMP/producer.out")
[ $rc = 0 ] || gr_fail "seq_producer exited $rc: $(tail -n 5 <<<"$out")"
[[ $out == *"topic=conn_flood produced=$N acked=$N failed=0"* ]] ||
    gr_fail "not every record acknowledged: $(tail -n 5 <<<"$out")"
gr_prog seq_verify -b "$GR_BOOTSTRAP" -t conn_flood -i "$GR_TMP/acked" -n $N >&2 ||
    gr_fail "seq_verify found records missing or misplaced"
touch "$GR_TMP/stop.big" "$GR_TMP/stop.small"
wait $big $small || gr_fail "a flood failed"

# Closed connections free their address's slots.
open_conns() { gr_http_get /metrics | awk '/^kafka_server_socketservermetrics_connections\{/ { n += $2 } END { print n + 0 }'; }
few() { [ "$(open_conns)" -lt $PER_IP ]; }
gr_wait_until 30 "the flood's connections to close" few
touch "$GR_TMP/stop.again"
flood 127.0.0.2 $((PER_IP + 1)) $PER_IP again || gr_fail "reconnecting from 127.0.0.2 failed"
grep -qx "open=$PER_IP closed=1" "$GR_TMP/flood.again" ||
    gr_fail "127.0.0.2 after its connections closed: $(cat "$GR_TMP/flood.again")"

ADMIN=$(dirname "$GR_BROKER")/gregor-admin
live() # KEY=VALUE: set at the cluster default
{
    "$ADMIN" --bootstrap-server "$GR_BOOTSTRAP" configs --alter --entity-type brokers \
        --entity-default --add-config "$1" >/dev/null || gr_fail "alter $1"
}
settled() # SRC COUNT WANT TAG: a flood, closed at once, keeps WANT open
{
    gr_wait_until 30 "the previous connections to close" few
    touch "$GR_TMP/stop.$4"
    flood "$1" "$2" "$3" "$4" || gr_fail "flood $4 failed"
    grep -qx "open=$3 closed=$(($2 - $3))" "$GR_TMP/flood.$4" ||
        gr_fail "$4: $(cat "$GR_TMP/flood.$4"), want open=$3"
}
live max.connections.per.ip=3
settled 127.0.0.2 10 3 lowered
live max.connections.per.ip=8
settled 127.0.0.2 10 8 raised
live max.connections.per.ip.overrides=127.0.0.4:2
settled 127.0.0.4 6 2 override
throttled() { gr_http_get /metrics | awk '/^gregor_connections_throttled_total\{/ { n += $2 } END { print n + 0 }'; }
[ "$(throttled)" = 0 ] || gr_fail "throttled before max.connection.creation.rate was set"
# Each flood closes before the setting goes back up: the admin client needs a slot too.
four() { [ "$(open_conns)" = 4 ]; }
some() { [ "$(throttled)" -gt 0 ]; }
for setting in max.connections=4:four max.connection.creation.rate=2:some; do
    gr_wait_until 30 "the previous connections to close" few
    live "${setting%%:*}"
    tag=${setting%%=*}
    flood 127.0.0.2 8 -1 "$tag" &
    held=$!
    gr_track $held
    gr_wait_until 30 "the effect of ${setting%%:*}" "${setting##*:}"
    touch "$GR_TMP/stop.$tag"
    wait $held || gr_fail "flood $tag failed"
    live "$tag=1000"
done
gr_alive "$GR_PID" || gr_fail "the broker died"
gr_pass
